"""The Token-swap panel's plots: token-labelled attention maps with a row-sum column, output maps,
and the chosen query's weights as bars.  They only draw what they are given."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGraphicsLinearLayout, QGraphicsWidget

from ...jobs.swap import EQUIVARIANCE_TOL
from ...widgets.image import ImageItem
from ...widgets.plain import esc
from ...widgets.plots import DIVERGING, SEQUENTIAL, Heatmap, Plot
from ...widgets.pointer import pointer_for, two_lines
from ...widgets.token_chips import short_word
from ..held_scale import held_scale
from .axis import TICK_WORD, TokenAxis
from .scale import difference_title, held_difference_scale, scale_text, symmetric_scale
from .values import ValueText, row_sum_colour, row_sum_colour_dark, text_colour_on_viridis

BEFORE_COLOUR = "#4c72b0"
AFTER_COLOUR = "#dd8452"
#: Row sums: white at exactly 1, warmer the further below.
ROWSUM_MAP = pg.ColorMap([0.0, 1.0], [(214, 96, 16), (232, 244, 234)])
#: The same on the dark themes: near the background at exactly 1 (a white column was a glaring block there).
ROWSUM_MAP_DARK = pg.ColorMap([0.0, 1.0], [(214, 96, 16), (34, 40, 48)])


def sum_column(n: int) -> tuple[float, float]:
    """Left edge and width (in cells) of the row-sum column beside an n × n map.

    One cell wide for short sentences, a tenth of the map for long ones, so it stays visible.
    """
    width = max(1.0, n / 10)
    return n + 0.35 * width, width


_TITLE_SIZE = "12pt"
_LABEL_STYLE = {"font-size": "11pt"}


def _style_plot(plot: Plot, *, zoom: bool = False) -> None:
    """Mouse zoom (maps) or a fixed view (bars); the plot's theme sizes the text and fits the title."""
    pi = plot.getPlotItem()
    # Maps zoom with the wheel, so a 64-token map can be read cell by cell (the numbers appear
    # once the cells are big enough); the "A" button or a new sentence shows all of it again.
    pi.setMouseEnabled(x=zoom, y=zoom)
    if not zoom:
        pi.hideButtons()


class AttentionMap(Heatmap):
    """Attention weights (queries down, keys across) labelled with tokens, plus a Σ row-sum column.

    Signals
    -------
    hovered(str)
        A sentence describing the cell under the mouse ("" when it leaves).
    rowClicked(int)
        The query row that was clicked.
    """

    hovered = Signal(str)
    rowClicked = Signal(int)

    def __init__(self, title: str, parent=None) -> None:
        super().__init__(title, x="key", y="query", levels=(0.0, 1.0),
                         cmap=SEQUENTIAL, parent=parent)
        pi = self.getPlotItem()
        self.x_axis = TokenAxis("bottom")
        self.y_axis = TokenAxis("left")
        pi.setAxisItems({"bottom": self.x_axis, "left": self.y_axis})
        pi.setLabel("bottom", "key", **_LABEL_STYLE)
        pi.setLabel("left", "query", **_LABEL_STYLE)
        pi.setTitle(title, size=_TITLE_SIZE)
        self._full_title = title
        self.sums = ImageItem(axisOrder="row-major")
        self.sums.setColorMap(ROWSUM_MAP)
        pi.addItem(self.sums)
        self.values = ValueText()
        self.values.set_colour_rule(text_colour_on_viridis)
        # Three decimals where they fit, else two: at 1280 × 720 one map's Σ column was 0.2 px short of "1.000" and
        # showed no sums beside the other map's.
        self.sum_values = ValueText(fmt=lambda v: f"{v:.3f}", short=lambda v: f"{v:.2f}")
        # Black where a row sums to 1, dark red where it does not (the mask-after-softmax mistake).
        self.sum_values.set_colour_rule(row_sum_colour)
        pi.addItem(self.values, ignoreBounds=True)
        pi.addItem(self.sum_values, ignoreBounds=True)
        _style_plot(self, zoom=True)
        self._shape: tuple = ()
        self._weights = np.zeros((0, 0))
        self._row_sums = np.zeros(0)
        self._tokens: list[str] = []
        self._centres: tuple[np.ndarray, np.ndarray] = (np.zeros((0, 0)), np.zeros((0, 0)))  # cell centres (x, y)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)

    def set_dark(self, dark: bool) -> None:
        """The row-sum column's colours for a dark or a light background (a sum of exactly 1 recedes into it)."""
        self.sums.setColorMap(ROWSUM_MAP_DARK if dark else ROWSUM_MAP)
        self.sum_values.set_colour_rule(row_sum_colour_dark if dark else row_sum_colour)

    def set_data(self, weights: np.ndarray, row_sums: np.ndarray, tokens: list[str],
                 title: str | None = None) -> None:
        """Draw ``weights`` (n, n) and ``row_sums`` (n,) beside them; rows and columns show ``tokens``."""
        w = np.asarray(weights, dtype=float)
        s = np.asarray(row_sums, dtype=float)
        n = len(tokens)
        # Softmax's rows sum to 1 at every step of an α drag, give or take a rounding (1e-16): the Σ column and its
        # numbers are then left as they are drawn, not given the same picture again and repainted.
        same_sums = (s.shape == self._row_sums.shape and s.size > 0
                     and float(np.abs(s - self._row_sums).max()) <= 1e-12)  # (NaN: not the same)
        self._weights, self._row_sums, self._tokens = w, s, list(tokens)
        self.set_matrix(w, rect=(0, 0, n, n))
        x0, sw = sum_column(n)
        if not same_sums:
            self.sums.setImage(s[:, None].astype(np.float32), levels=(0.0, 1.0))
            self.sums.setRect(x0, 0, sw, n)
        self.x_axis.set_labels(tokens, {x0 + sw / 2: "Σ"})
        self.y_axis.set_labels(tokens)
        if self._centres[0].shape != (n, n):
            rows, cols = np.indices((n, n))
            self._centres = (cols + 0.5, rows + 0.5)
        self.values.set_items(*self._centres, w)
        if not same_sums:
            self.sum_values.set_items(np.full(n, x0 + sw / 2), np.arange(n) + 0.5, s, cell=(sw, 1.0))
        if title is not None:
            self.set_title(title)
        if self._shape != (n,):
            # A new size: show all of it.  The same size again (a slider drag): keep the user's zoom.
            self._shape = (n,)
            vb = self.getPlotItem().getViewBox()
            vb.setLimits(xMin=-0.5, xMax=x0 + sw + 0.5, yMin=-0.5, yMax=n + 0.5, minXRange=1.5, minYRange=1.5)
            vb.setRange(xRange=(0, x0 + sw), yRange=(0, n), padding=0.02)

    def cell_text(self, x: float, y: float) -> str:
        """What the readout says for data point (x, y)."""
        n = len(self._tokens)
        r = int(math.floor(y))
        if not 0 <= r < n:
            return ""
        q = f"“{short_word(self._tokens[r])}” ({r})"
        if 0 <= x < n:
            c = int(math.floor(x))
            key = f"“{short_word(self._tokens[c])}” ({c})"
            return f"{self._full_title}: query {q} → key {key}: weight {self._weights[r, c]:.4f}"
        x0, sw = sum_column(n)
        if x0 <= x < x0 + sw:
            return f"{self._full_title}: weights of query {q} sum to {self._row_sums[r]:.6f}"
        return ""

    def _on_mouse_moved(self, pos) -> None:
        vb = self.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            pointer_for(self).hide()
            self.hovered.emit("")
            return
        p = vb.mapSceneToView(pos)
        text = self.cell_text(p.x(), p.y())
        # Large, beside the cursor, in presenter mode (without the title the hall can read above).
        pointer_for(self).show_at(pos, two_lines(text, f"{self._full_title}: "))
        self.hovered.emit(text)

    def _on_mouse_clicked(self, event) -> None:
        vb = self.getPlotItem().getViewBox()
        inside = vb.sceneBoundingRect().contains(event.scenePos())
        if event.button() != Qt.MouseButton.LeftButton or not inside:
            return
        p = vb.mapSceneToView(event.scenePos())
        r = int(math.floor(p.y()))
        if 0 <= r < len(self._tokens) and 0 <= p.x() < len(self._tokens):
            self.rowClicked.emit(r)


class OutputMap(Heatmap):
    """Output vectors, one row per token (labelled), components across; signed diverging colours."""

    hovered = Signal(str)

    def __init__(self, title: str, parent=None) -> None:
        super().__init__(title, x="output component", y="token", levels=(-1.0, 1.0), cmap=DIVERGING,
                         parent=parent)
        pi = self.getPlotItem()
        self.y_axis = TokenAxis("left")
        pi.setAxisItems({"left": self.y_axis})
        pi.setLabel("bottom", "output component", **_LABEL_STYLE)
        pi.setLabel("left", "token", **_LABEL_STYLE)
        pi.setTitle(title, size=_TITLE_SIZE)
        self._full_title = title
        _style_plot(self, zoom=True)
        self._shape: tuple = ()
        self._data = np.zeros((0, 0))
        self._tokens: list[str] = []
        self._levels = 0.0  # the colour scale shown (±)
        self._ticks: list | None = None
        #: The difference map's own scale as its title says it (None: none said; see :func:`show_outputs`).
        self.said_scale: float | None = None
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)

    def set_data(self, data: np.ndarray, tokens: list[str], levels: float, title: str | None = None, *,
                 say_scale: bool = False, hold: bool = False) -> None:
        """Draw ``data`` (tokens × components) on the colour scale ±``levels``; ``say_scale``: the colour bar's
        ticks are the scale's ends and zero ("−0.35", "0", "+0.35").  ``hold`` (a slider is held): the scale is
        :func:`~explorer.panels.held_scale.held_scale`, so the colour bar's axis is not laid out again at every
        step; the next draw without it shows ±``levels`` exactly."""
        d = np.asarray(data, dtype=float)
        n, m = d.shape
        self._data, self._tokens = d, list(tokens)
        if hold and not say_scale:
            levels = held_scale(self._levels, levels)
        self._levels = levels
        self.set_matrix(d, rect=(0, 0, m, n), levels=(-levels, levels))
        text = scale_text(levels)
        ticks = [[(-levels, f"−{text}"), (0.0, "0"), (levels, f"+{text}")]] if say_scale else None
        if ticks != self._ticks:  # the same ticks set again would lay the axis out again all the same
            self._ticks = ticks
            self.colorbar.axis.setTicks(ticks)
        self.y_axis.set_labels(tokens)
        if title is not None:
            self.set_title(title)
        if self._shape != d.shape:
            self._shape = d.shape
            vb = self.getPlotItem().getViewBox()
            vb.setLimits(xMin=-0.5, xMax=m + 0.5, yMin=-0.5, yMax=n + 0.5, minXRange=1.5, minYRange=1.5)
            vb.setRange(xRange=(0, m), yRange=(0, n), padding=0.02)

    def cell_text(self, x: float, y: float) -> str:
        n, m = self._data.shape
        r, c = int(math.floor(y)), int(math.floor(x))
        if not (0 <= r < n and 0 <= c < m):
            return ""
        word = short_word(self._tokens[r])
        return f"{self._full_title}: token “{word}” ({r}), component {c}: {self._data[r, c]:+.6g}"

    def _on_mouse_moved(self, scene_pos) -> None:
        vb = self.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            pointer_for(self).hide()
            self.hovered.emit("")
            return
        p = vb.mapSceneToView(scene_pos)
        text = self.cell_text(p.x(), p.y())
        # Large, beside the cursor, in presenter mode (without the title the hall can read above).
        pointer_for(self).show_at(scene_pos, two_lines(text, f"{self._full_title}: "))
        self.hovered.emit(text)


def show_outputs(before: OutputMap, after: OutputMap, difference: OutputMap, r, hold: bool = False) -> None:
    """Draw a swap response's outputs: before and after (moved back) on one shared scale, their difference on a
    symmetric scale of its own, said in its title and colour bar (RoPE's 0.3 was near-white on the outputs' ±2).
    A difference of rounding noise stays on the outputs' scale, where it reads as the zero it is.  ``hold``: a
    slider is held: the outputs' scale is held (see :meth:`OutputMap.set_data`), and so is the difference's
    (:func:`~explorer.panels.swap.scale.held_difference_scale`)."""
    tokens = r.before.tokens
    level = float(max(abs(r.before.outputs).max(), abs(r.outputs_after_relabelled).max(), 1e-12))
    before.set_data(r.before.outputs, tokens, level, "Outputs before", hold=hold)
    after.set_data(r.outputs_after_relabelled, tokens, before._levels, "Outputs after, moved back")  # before's scale
    scale = symmetric_scale(r.difference, EQUIVARIANCE_TOL)
    if hold:
        scale = held_difference_scale(difference.said_scale, scale)
    difference.said_scale = scale
    difference.set_data(r.difference, tokens, scale or symmetric_scale(level) or 1.0,
                        difference_title(r.difference, scale, r.max_relabel_error), say_scale=True)


def legend_beside_title(pi) -> pg.LegendItem:
    """A one-row legend at the right end of ``pi``'s title row: off the data at every size (in the view's head-room
    it covered the tallest bars on a short plot, and under the plot it took a short plot's height)."""
    legend = pg.LegendItem(offset=None, colCount=8, horSpacing=4)
    legend.layout.setContentsMargins(4, 0, 4, 0)
    pi.styler.adopt(legend)
    title = pi.titleLabel
    pi.layout.removeItem(title)
    head = QGraphicsWidget(pi)
    row = QGraphicsLinearLayout(Qt.Orientation.Horizontal)
    row.setContentsMargins(0, 0, 0, 0)
    row.addItem(title)
    row.addItem(legend)
    row.setStretchFactor(title, 1)
    row.setAlignment(legend, Qt.AlignmentFlag.AlignVCenter)
    head.setLayout(row)
    pi.layout.addItem(head, 0, 0, 1, 3)
    return legend


class QueryBars(Plot):
    """One query token's attention weights before and after the swap, keys in the original order."""

    hovered = Signal(str)

    def __init__(self, parent=None) -> None:
        self.x_axis = TokenAxis("bottom")
        super().__init__(parent=parent, grid=False, si_prefix=True, axis_items={"bottom": self.x_axis})
        pi = self.getPlotItem()
        pi.setLabel("bottom", "key (original order)", **_LABEL_STYLE)
        pi.setLabel("left", "weight", **_LABEL_STYLE)
        pi.showGrid(x=False, y=True, alpha=0.25)
        # Weights live in [0, 1]: no ticks in the head-room above 1.
        pi.getAxis("left").setTicks([[(v, f"{v:g}") for v in (0.0, 0.25, 0.5, 0.75, 1.0)]])
        pi.setTitle("Query", size=_TITLE_SIZE)
        _style_plot(self)
        self.before = pg.BarGraphItem(x=[], height=[], width=0.38, brush=BEFORE_COLOUR, pen=None)
        self.after = pg.BarGraphItem(x=[], height=[], width=0.38, brush=AFTER_COLOUR, pen=None)
        pi.addItem(self.before)
        pi.addItem(self.after)
        self.legend = legend_beside_title(pi)
        self.legend.addItem(self.before, "before")
        self.legend.addItem(self.after, "after")
        self.values = ValueText(anchor="bottom", point_size=9.5)
        pi.addItem(self.values, ignoreBounds=True)
        self._b = np.zeros(0)
        self._a = np.zeros(0)
        self._tokens: list[str] = []
        self._query = ""
        self._bars_shown = -1  # the token count the range was set for
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)

    def set_data(self, before: np.ndarray, after: np.ndarray, tokens: list[str], query: int,
                 head_note: str) -> None:
        """``before[k]``, ``after[k]``: the query's weight on original token k, before/after the swap."""
        b, a = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
        n = len(tokens)
        same = np.array_equal(b, self._b) and np.array_equal(a, self._a)  # bars set again would be repainted
        self._b, self._a, self._tokens = b, a, list(tokens)
        self._query = short_word(tokens[query])
        x = np.arange(n, dtype=float)
        if not same:
            self.before.setOpts(x=x + 0.3, height=b, width=0.38)
            self.after.setOpts(x=x + 0.7, height=a, width=0.38)
        self.x_axis.set_labels(tokens)
        xs = np.concatenate([x + 0.3, x + 0.7])
        ys = np.concatenate([b, a])
        self.values.set_items(xs, ys, ys, cell=(0.4, 0.0))
        self.set_title(f"Query “{esc(short_word(tokens[query], TICK_WORD))}” ({query}){head_note}")  # title: HTML
        if self._bars_shown != n:
            # A new sentence length: show all of it.  The same again (a slider drag): keep the range.
            self._bars_shown = n
            # Head-room above 1 for the weights written over the tallest bars.
            self.getPlotItem().getViewBox().setRange(xRange=(0, n), yRange=(0, 1.3), padding=0.02)

    def _on_mouse_moved(self, pos) -> None:
        vb = self.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(pos) or not self._tokens:
            pointer_for(self).hide()
            self.hovered.emit("")
            return
        p = vb.mapSceneToView(pos)
        k = int(math.floor(p.x()))
        if 0 <= k < len(self._tokens):
            key = f"“{short_word(self._tokens[k])}” ({k})"
            text = f"“{self._query}” → {key}: before {self._b[k]:.4f}, after {self._a[k]:.4f}"
            pointer_for(self).show_at(pos, two_lines(text))
            self.hovered.emit(text)
        else:
            pointer_for(self).hide()
