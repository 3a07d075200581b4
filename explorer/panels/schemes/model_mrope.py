"""The model view's plots for a multimodal model (M-RoPE): each token's (t, h, w) ids in a mixed sequence of text,
an image and a video, which axis turns each rotary pair, and the score from one query token to every token and
over the image's grid of patches.  Clicking a token or a patch makes it the query."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal

from ...encodings.mrope import AXES
from ...encodings.mrope_sequence import MRopeResult
from ...widgets.log_ticks import use_si_log_ticks
from ...widgets.plots import SEQUENTIAL, Heatmap
from ...widgets.styler import mapped_colour
from .items import make_plot

#: The colour of each axis (time, height, width), in every plot of this view.
AXIS_COLOURS = ("#D55E00", "#0072B2", "#E69F00")
AXIS_NAMES = ("time t", "height h", "width w")
#: Shading of the image and video runs in the token plots.
SEGMENT_FILL = {"image": (0, 114, 178, 28), "video": (213, 94, 0, 28)}


class MropePlots(QObject):
    """Four plots: ids per token, θ per pair by axis, scores per token, scores on the image grid."""

    #: A token (index) was clicked: make it the query.
    queryPicked = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.ids = make_plot("Ids per token", x="token", y="id")
        self.axes = make_plot("θ per pair", x="pair i", y="θ (rad per step)")
        self.tokens = make_plot("Score from the query", x="token", y="score ÷ |q|²")
        self.image = Heatmap("Score on the image", x="column", y="row", levels=(0.0, 1.0), cmap=SEQUENTIAL)
        for pw, name in ((self.ids, "mropeIds"), (self.axes, "mropeAxes"), (self.tokens, "mropeTokens"),
                         (self.image, "mropeImage")):
            pw.setObjectName(name)
        ipi = self.ids.getPlotItem()
        self.id_curves = [ipi.plot(pen=pg.mkPen(c, width=w, style=s), name=n) for c, w, s, n in zip(
            AXIS_COLOURS, (4.0, 2.5, 1.6), (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.SolidLine),
            AXIS_NAMES, strict=True)]
        api = self.axes.getPlotItem()
        api.setLogMode(x=False, y=True)
        use_si_log_ticks(api)
        self.axis_dots = [api.plot(pen=None, symbol="o", symbolPen=None, symbolSize=7, symbolBrush=c, name=n)
                          for c, n in zip(AXIS_COLOURS, AXIS_NAMES, strict=True)]
        tpi = self.tokens.getPlotItem()
        self.score_curve = tpi.plot(pen=pg.mkPen("#444444", width=1.5), symbol="o", symbolSize=5,
                                    symbolPen=None, symbolBrush="#444444")
        self.query_line = pg.InfiniteLine(0, angle=90, pen=pg.mkPen("#CC79A7", width=2.0))
        tpi.addItem(self.query_line, ignoreBounds=True)
        self.regions: list[pg.LinearRegionItem] = []
        gpi = self.image.getPlotItem()
        gpi.setAspectLocked(True)
        # Its scores differ in the fifth decimal (Qwen2-VL turns space with its slowest pairs): the bar's ticks
        # ("0.99994") get the width they need rather than the fixed 45 px that hid them.
        self.image.colorbar.axis.setStyle(autoExpandTextSpace=True)
        self.image.colorbar.axis.setWidth(None)
        self.query_box = pg.ScatterPlotItem(symbol="s", size=16, brush=None, pen=pg.mkPen("#CC79A7", width=3))
        gpi.addItem(self.query_box)
        self.result: MRopeResult | None = None
        self.tokens.scene().sigMouseClicked.connect(self._on_tokens_clicked)
        self.image.scene().sigMouseClicked.connect(self._on_image_clicked)

    def plot_widgets(self) -> list:
        return [self.ids, self.axes, self.tokens, self.image]

    def show(self, r: MRopeResult, theta: np.ndarray) -> None:
        self.result = r
        n = r.ids.shape[1]
        x = np.arange(n, dtype=np.float64)
        for k, c in enumerate(self.id_curves):
            c.setData(x, r.ids[k].astype(np.float64))
        pairs = np.arange(theta.size, dtype=np.float64)
        for k, d in enumerate(self.axis_dots):
            d.setData(pairs[r.axes == k], theta[r.axes == k])
        self.score_curve.setData(x, r.scores)
        self.query_line.setPos(r.query)
        self._shade(r)
        first, rows, cols = r.image
        lo, hi = float(r.image_scores.min()), float(r.image_scores.max())
        if hi - lo < 1e-9:
            lo -= 1e-9
        # Levels from the patches' own scores: they differ by little (Qwen2-VL turns space with its slow pairs).
        self.image.set_matrix(r.image_scores, rect=(0, 0, cols, rows), levels=(lo, hi))
        k = r.query - first
        if 0 <= k < rows * cols:
            self.query_box.setData([k % cols + 0.5], [k // cols + 0.5])
        else:
            self.query_box.setData([], [])
        self.image.getPlotItem().setRange(xRange=(0, cols), yRange=(0, rows), padding=0.02)
        self.tokens.getPlotItem().setTitle(f"Score from token {r.query}")
        self.retitle()

    def retitle(self, theme=None) -> None:
        """The ids' and θ's titles are their keys: each axis's name in its colour (no legend over the data)."""
        def key(glyphs) -> str:
            return " ".join(f"<span style='color:{mapped_colour(c, theme).name()}'>{g}&nbsp;{a}</span>"
                            for c, g, a in zip(AXIS_COLOURS, glyphs, AXES, strict=True))

        self.ids.getPlotItem().setTitle(f"Ids per token: {key(('━', '╍', '─'))}")
        self.axes.getPlotItem().setTitle(f"θ per pair: {key(('●', '●', '●'))}")

    def kind_of(self, token: int) -> str:
        """What token ``token`` of the shown sequence is: "text", "image (row, col)" or "video (frame, row, col)"."""
        r = self.result
        if r is None:
            return ""
        for kind, a, b in r.segments:
            if a <= token < b:
                t, h, w = (int(v) for v in r.ids[:, token])
                return kind if kind == "text" else f"{kind}, t {t} h {h} w {w}"
        return ""

    def _shade(self, r: MRopeResult) -> None:
        for reg in self.regions:
            for pw in (self.ids, self.tokens):
                pw.getPlotItem().removeItem(reg)
        self.regions = []
        for kind, a, b in r.segments:
            if kind == "text":
                continue
            for pw in (self.ids, self.tokens):
                reg = pg.LinearRegionItem((a - 0.5, b - 0.5), movable=False, brush=pg.mkBrush(*SEGMENT_FILL[kind]),
                                          pen=pg.mkPen(None))
                reg.setZValue(-10)
                pw.getPlotItem().addItem(reg, ignoreBounds=True)
                self.regions.append(reg)

    def _on_tokens_clicked(self, event) -> None:
        pt = clicked_at(self.tokens, event)
        if self.result is None or pt is None:
            return
        t = int(round(pt.x()))
        if 0 <= t < self.result.ids.shape[1]:
            self.queryPicked.emit(t)

    def _on_image_clicked(self, event) -> None:
        pt = clicked_at(self.image, event)  # the heatmap's rows run downwards (row 0 at the top)
        if self.result is None or pt is None:
            return
        first, rows, cols = self.result.image
        row, col = int(np.floor(pt.y())), int(np.floor(pt.x()))
        if 0 <= row < rows and 0 <= col < cols:
            self.queryPicked.emit(first + row * cols + col)


def clicked_at(pw, event):
    """The data point under a left click inside ``pw``'s view box, or None."""
    if event.button() != Qt.MouseButton.LeftButton:
        return None
    vb = pw.getPlotItem().getViewBox()
    if not vb.sceneBoundingRect().contains(event.scenePos()):
        return None
    return vb.mapSceneToView(event.scenePos())


def axes_text(r: MRopeResult) -> str:
    """How many pairs each axis turns, for the explanation."""
    counts = np.bincount(r.axes, minlength=3)
    return ", ".join(f"{int(c)} {AXES[k]}" for k, c in enumerate(counts))
