"""The Token-swap panel's plots: token-labelled attention maps with a row-sum column, output maps,
and the chosen query's weights as bars.  They only draw what they are given."""

from __future__ import annotations

import math
import re

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter
from PySide6.QtWidgets import QGraphicsLinearLayout, QGraphicsWidget

from ...jobs.swap import EQUIVARIANCE_TOL
from ...widgets.axis import Axis
from ...widgets.plain import esc
from ...widgets.plots import DIVERGING, SEQUENTIAL, Heatmap, Plot
from ...widgets.pointer import pointer_for, two_lines
from ...widgets.token_chips import short_word
from .scale import difference_title, scale_text, symmetric_scale

_NOTE = re.compile(r" ?\(?every \w+ labelled\)?")
_BRACKET = re.compile(r"\s*\([^)]*\)")
#: Token tick labels are shortened above this many letters (the whole word is in its chip's tooltip).
TICK_WORD = 10

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


_TICK_PT = 11
_TITLE_SIZE = "12pt"
_LABEL_STYLE = {"font-size": "11pt"}


def _tick_font() -> QFont:
    f = QFont()
    f.setPointSize(_TICK_PT)
    return f


def fmt_value(v: float) -> str:
    """A weight or row sum as the cells show it."""
    return f"{v:.2f}"


class TokenAxis(Axis):
    """An axis whose ticks are tokens at cell centres (k + 0.5): every token keeps its label where the cells
    leave room, shortened to its cell's width ("bi…") rather than dropped; only where a cell is too small even
    for that are the labels thinned (every 2nd, 3rd … token), and the axis's title then says so.

    ``extra`` adds fixed ticks (e.g. "Σ" over the row-sum column).  The step between labelled
    tokens follows the axis length in pixels, so a 64-token sentence stays legible when the plot is
    small and shows every word when it is big.
    """

    def __init__(self, orientation: str, **kwargs) -> None:
        self._title = ""
        self._step = 1
        self._cell_px = 0.0
        self._labels: list[str] = []
        self._extra: dict[float, str] = {}
        super().__init__(orientation, **kwargs)
        self.setTickFont(_tick_font())

    def set_labels(self, labels: list[str], extra: dict[float, str] | None = None) -> None:
        """Show ``labels`` (and ``extra``); the same ones again (a slider drag) leave the drawn axis as it is."""
        if [short_word(s, TICK_WORD) for s in labels] == self._labels and dict(extra or {}) == self._extra:
            return
        self._labels = [short_word(s, TICK_WORD) for s in labels]  # one 500-letter word must not eat the plot
        self._extra = dict(extra or {})
        self.picture = None
        self.update()

    def labels(self) -> list[str]:
        return list(self._labels)

    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(self.style.get("tickFont") or _tick_font())

    def pitch(self) -> float:
        """The least pixels a token's cell needs for every token to keep its label."""
        if not self._labels:
            return 0.0
        fm = self._metrics()
        if self.orientation in ("left", "right"):
            return fm.height() * 0.8 + 4
        # a word shortened to two letters and "…" is still a label
        need = min(max(fm.horizontalAdvance(s) for s in self._labels), fm.horizontalAdvance("mm…"))
        return need + fm.horizontalAdvance("  ")

    def label_step(self, size_px: float, span: float) -> int:
        """Every how many tokens a label fits into ``size_px`` pixels showing ``span`` cells."""
        n = len(self._labels)
        if n == 0 or size_px <= 0:
            return 1
        per_cell = size_px / max(span, 1e-9)
        return max(1, math.ceil(self.pitch() / per_cell))

    def hidden_note(self) -> str:
        """What the axis's title says when labels are thinned ("" when every token has its label)."""
        if self._step <= 1:
            return ""
        nth = {2: "2nd", 3: "3rd"}.get(self._step, f"{self._step}th")
        return f"every {nth} labelled"

    def label_forms(self, text: str, font, room: float) -> list[str]:
        """Where the title does not fit, the note on which tokens are labelled is what it keeps, whole."""
        note = self.hidden_note()
        return [note] if note and note != text else super().label_forms(text, font, room)

    def setLabel(self, text=None, units=None, unitPrefix=None, **kwargs) -> None:  # noqa: N802,N803 - pyqtgraph
        self._title = _NOTE.sub("", text or "")  # the theme sets the shown title again, note and all
        self._show_title(units, unitPrefix, **kwargs)

    def _show_title(self, units=None, unit_prefix=None, **kwargs) -> None:
        super().setLabel(self._title_text(), units, unit_prefix, **kwargs)

    def _title_text(self) -> str:
        """The title with the note of which tokens are labelled; where that is longer than the axis, the title
        without its own bracket ("key (original order)" → "key"): the note must stay, it says what is missing."""
        note = self.hidden_note()
        if not note or not self._title:
            return note or self._title
        text = f"{self._title} ({note})"
        bare = _BRACKET.sub("", self._title).strip()
        if bare and bare != self._title and self._label_width(text) > self._length() - 8:
            return f"{bare} ({note})"
        return text

    def _length(self) -> float:
        return self.size().height() if self.orientation in ("left", "right") else self.size().width()

    def _label_width(self, text: str) -> float:
        font = QFont(self.label.font())
        size = str(self.labelStyle.get("font-size", ""))
        if size.endswith("pt"):
            font.setPointSizeF(float(size[:-2]))
        return QFontMetricsF(font).horizontalAdvance(text)

    def _update_title(self) -> None:
        """The step and title for the axis' present length and range, at once: a resized map kept its old note
        ("every 2nd labelled") until its next paint."""
        if self._labels:
            lo, hi = self.range
            self._step = self.label_step(self._length(), abs(hi - lo))
        if self._title and self.label.toPlainText().strip() != self._title_text():
            self._show_title()

    def setRange(self, mn: float, mx: float) -> None:  # noqa: N802 - pyqtgraph API
        super().setRange(mn, mx)
        self._update_title()

    def resizeEvent(self, ev=None) -> None:  # noqa: N802 - Qt override
        self._update_title()
        super().resizeEvent(ev)

    def tickValues(self, minVal: float, maxVal: float, size: float):  # noqa: N802,N803 - pyqtgraph API
        n = len(self._labels)
        if n == 0:
            return []
        span = abs(maxVal - minVal)
        step = self.label_step(size, span)
        self._cell_px = size / max(span, 1e-9)
        if step != self._step:  # the title says which are labelled (not while the axis is being drawn)
            self._step = step
            QTimer.singleShot(0, self._show_title)
        values = [k + 0.5 for k in range(0, n, step)] + list(self._extra)
        return [(float(step), values)]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph API
        fm = self._metrics()
        room = self._cell_px * self._step - fm.horizontalAdvance("  ")
        out = []
        for v in values:
            if v in self._extra:
                out.append(self._extra[v])
                continue
            k = int(math.floor(v))
            word = self._labels[k] if 0 <= k < len(self._labels) else ""
            if self.orientation in ("top", "bottom") and room > 0 and fm.horizontalAdvance(word) > room:
                word = fm.elidedText(word, Qt.TextElideMode.ElideRight, room)
            out.append(word)
        return out


class ValueText(pg.GraphicsObject):
    """Numbers drawn at data points in screen pixels, shown only when they fit their cells.

    ``cell`` is the data-space box one number owns (e.g. (1, 1) for a matrix cell); when that box
    is smaller on screen than the text, the numbers hide (the hover readout still gives them) and
    reappear when the plot is zoomed in.  Texts are formatted only for the points in view, at paint
    time, so a 64 × 64 map costs nothing while its numbers are hidden.
    """

    def __init__(self, *, anchor: str = "center", point_size: float = 10.5, fmt=None) -> None:
        super().__init__()
        self._xs = np.zeros(0)
        self._ys = np.zeros(0)
        self._values = np.zeros(0)
        self._fmt = fmt or fmt_value
        self._colour_of = lambda v: QColor("black")
        self._cell = (1.0, 1.0)
        self._anchor = anchor
        self._font = QFont()
        self._font.setPointSizeF(point_size)
        self._rect = QRectF()

    def set_point_size(self, point_size: float) -> None:
        self._font.setPointSizeF(point_size)
        self.update()

    def set_colour_rule(self, colour_of) -> None:
        """``colour_of(value) -> QColor`` (e.g. white on dark cells, or the theme's text colour)."""
        self._colour_of = colour_of
        self.update()

    def set_items(self, xs, ys, values, cell=(1.0, 1.0)) -> None:
        """Show ``values`` (formatted at paint time) centred on (``xs``, ``ys``)."""
        self.prepareGeometryChange()
        self._xs = np.asarray(xs, dtype=float).ravel()
        self._ys = np.asarray(ys, dtype=float).ravel()
        self._values = np.asarray(values, dtype=float).ravel()
        self._cell = (float(cell[0]), float(cell[1]))
        if self._xs.size:
            cw, ch = self._cell
            x0, x1 = self._xs.min() - cw, self._xs.max() + cw
            y0, y1 = self._ys.min() - 2 * ch - 0.2, self._ys.max() + 2 * ch + 0.2
            self._rect = QRectF(x0, y0, x1 - x0, y1 - y0)
        else:
            self._rect = QRectF()
        self.update()

    def texts(self) -> list[str]:
        """Every number as it is drawn (for tests and export)."""
        return [self._fmt(v) for v in self._values]

    def visible_texts(self, painter_transform) -> bool:
        """True if the numbers fit their cells under ``painter_transform`` (data -> pixels)."""
        if not self._values.size:
            return False
        fm = QFontMetricsF(self._font)
        need_w = max(fm.horizontalAdvance(self._fmt(v)) for v in (self._values.min(), self._values.max())) + 4
        w = abs(painter_transform.m11()) * self._cell[0]
        h = abs(painter_transform.m22()) * self._cell[1]
        # A cell height of 0 means "only the width matters" (labels above bars).
        return w >= need_w and (self._cell[1] == 0 or h >= fm.height())

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._rect

    def paint(self, p: QPainter, *args) -> None:
        tr = p.transform()
        if not self.visible_texts(tr):
            return
        view = self.viewRect()  # only the points in view are drawn
        keep = np.ones(self._xs.size, dtype=bool)
        if view is not None:
            cw, ch = self._cell
            keep = ((self._xs >= view.left() - cw) & (self._xs <= view.right() + cw)
                    & (self._ys >= view.top() - ch - 1) & (self._ys <= view.bottom() + ch + 1))
        p.save()
        p.resetTransform()
        p.setFont(self._font)
        fm = QFontMetricsF(self._font)
        h = fm.height()
        for x, y, v in zip(self._xs[keep], self._ys[keep], self._values[keep], strict=True):
            t = self._fmt(v)
            pt = tr.map(QPointF(x, y))
            w = fm.horizontalAdvance(t) + 4
            if self._anchor == "bottom":  # text sits just above the point (bar tops)
                rect = QRectF(pt.x() - w / 2, pt.y() - h - 2, w, h)
            else:
                rect = QRectF(pt.x() - w / 2, pt.y() - h / 2, w, h)
            p.setPen(self._colour_of(v))
            p.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), t)
        p.restore()


def _row_sum_colour(v: float) -> QColor:
    return QColor("black") if abs(v - 1.0) < 1e-9 else QColor("#9b1c00")


def _row_sum_colour_dark(v: float) -> QColor:
    return QColor("#e6e6e6") if abs(v - 1.0) < 1e-9 else QColor("#ffd0ad")


def _text_colour_on_viridis(v: float) -> QColor:
    # viridis is dark below ~0.55: white text there, black above.
    return QColor("white") if v < 0.55 else QColor("black")


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
        self.sums = pg.ImageItem(axisOrder="row-major")
        self.sums.setColorMap(ROWSUM_MAP)
        pi.addItem(self.sums)
        self.values = ValueText()
        self.values.set_colour_rule(_text_colour_on_viridis)
        self.sum_values = ValueText(fmt=lambda v: f"{v:.3f}")
        # Black where a row sums to 1, dark red where it does not (the mask-after-softmax mistake).
        self.sum_values.set_colour_rule(_row_sum_colour)
        pi.addItem(self.values, ignoreBounds=True)
        pi.addItem(self.sum_values, ignoreBounds=True)
        _style_plot(self, zoom=True)
        self._shape: tuple = ()
        self._weights = np.zeros((0, 0))
        self._row_sums = np.zeros(0)
        self._tokens: list[str] = []
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)

    def set_dark(self, dark: bool) -> None:
        """The row-sum column's colours for a dark or a light background (a sum of exactly 1 recedes into it)."""
        self.sums.setColorMap(ROWSUM_MAP_DARK if dark else ROWSUM_MAP)
        self.sum_values.set_colour_rule(_row_sum_colour_dark if dark else _row_sum_colour)

    def set_data(self, weights: np.ndarray, row_sums: np.ndarray, tokens: list[str],
                 title: str | None = None) -> None:
        """Draw ``weights`` (n, n) and ``row_sums`` (n,) beside them; rows and columns show ``tokens``."""
        w = np.asarray(weights, dtype=float)
        s = np.asarray(row_sums, dtype=float)
        n = len(tokens)
        self._weights, self._row_sums, self._tokens = w, s, list(tokens)
        self.set_matrix(w, rect=(0, 0, n, n))
        x0, sw = sum_column(n)
        self.sums.setImage(s[:, None].astype(np.float32), levels=(0.0, 1.0))
        self.sums.setRect(x0, 0, sw, n)
        self.x_axis.set_labels(tokens, {x0 + sw / 2: "Σ"})
        self.y_axis.set_labels(tokens)
        rows, cols = np.indices((n, n))
        self.values.set_items(cols + 0.5, rows + 0.5, w)
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
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)

    def set_data(self, data: np.ndarray, tokens: list[str], levels: float, title: str | None = None, *,
                 say_scale: bool = False) -> None:
        """Draw ``data`` (tokens × components) on the colour scale ±``levels``; ``say_scale``: the colour bar's
        ticks are the scale's ends and zero ("−0.35", "0", "+0.35")."""
        d = np.asarray(data, dtype=float)
        n, m = d.shape
        self._data, self._tokens = d, list(tokens)
        self.set_matrix(d, rect=(0, 0, m, n), levels=(-levels, levels))
        text = scale_text(levels)
        self.colorbar.axis.setTicks([[(-levels, f"−{text}"), (0.0, "0"), (levels, f"+{text}")]] if say_scale
                                    else None)
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


def show_outputs(before: OutputMap, after: OutputMap, difference: OutputMap, r) -> None:
    """Draw a swap response's outputs: before and after (moved back) on one shared scale, their difference on a
    symmetric scale of its own, said in its title and colour bar (RoPE's 0.3 was near-white on the outputs' ±2).
    A difference of rounding noise stays on the outputs' scale, where it reads as the zero it is."""
    tokens = r.before.tokens
    level = float(max(abs(r.before.outputs).max(), abs(r.outputs_after_relabelled).max(), 1e-12))
    before.set_data(r.before.outputs, tokens, level, "Outputs before")
    after.set_data(r.outputs_after_relabelled, tokens, level, "Outputs after, moved back")
    scale = symmetric_scale(r.difference, EQUIVARIANCE_TOL)
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
        self._b, self._a, self._tokens = b, a, list(tokens)
        self._query = short_word(tokens[query])
        x = np.arange(n, dtype=float)
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
