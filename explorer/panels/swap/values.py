"""The numbers Token swap writes in its cells and bars, coloured to read on what lies under them."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QStaticText


def fmt_value(v: float) -> str:
    """A weight or row sum as the cells show it."""
    return f"{v:.2f}"


class ValueText(pg.GraphicsObject):
    """Numbers drawn at data points in screen pixels, shown only when they fit their cells.

    ``cell`` is the data-space box one number owns (e.g. (1, 1) for a matrix cell); when that box
    is smaller on screen than the text, the numbers are written with ``short`` (a shorter format) where
    that fits, else hide (the hover readout still gives them) and reappear when the plot is zoomed in.
    Texts are formatted only for the points in view, at paint time, so a 64 × 64 map costs nothing while
    its numbers are hidden.
    """

    def __init__(self, *, anchor: str = "center", point_size: float = 10.5, fmt=None, short=None) -> None:
        super().__init__()
        self._xs = np.zeros(0)
        self._ys = np.zeros(0)
        self._values = np.zeros(0)
        self._fmts = (fmt or fmt_value, *([short] if short is not None else []))
        self._fmt = self._fmts[0]  # the format of the last paint (see texts)
        #: Texts whose numbers are written in the same format as these (see :meth:`share_format`).
        self._peers: list[ValueText] = []
        self._colour_of = lambda v: _BLACK
        self._cell = (1.0, 1.0)
        self._anchor = anchor
        self._font = QFont()
        self._font.setPointSizeF(point_size)
        self._rect = QRectF()
        self._bounds = (0.0, 0.0, 0.0, 0.0)  # the points' least and greatest x and y
        #: Each text laid out once in the font, with its size (see _static).
        self._laid_out: dict[str, tuple[QStaticText, float, float]] = {}
        # The font's line height, and the width the widest number needs in each format (None: not known yet; see
        # _need).
        self._line: float | None = None
        self._need_w: tuple[float, ...] | None = None

    def set_point_size(self, point_size: float) -> None:
        self._font.setPointSizeF(point_size)
        self._laid_out.clear()
        self._line = self._need_w = None
        self.update()

    def _need(self) -> tuple[tuple[float, ...], float]:
        """The width a cell needs for the widest number (the smallest's or the largest's) in each format and the
        font's line height, worked out once per font and numbers: every repaint of a drag asked Qt again."""
        if self._need_w is None or self._line is None:
            fm = QFontMetricsF(self._font)
            lo, hi = self._values.min(), self._values.max()
            self._need_w = tuple(max(fm.horizontalAdvance(fmt(v)) for v in (lo, hi)) + 4 for fmt in self._fmts)
            self._line = fm.height()
        return self._need_w, self._line

    def _static(self, text: str) -> tuple[QStaticText, float, float]:
        """``text`` laid out in the font, and its width and height, kept: a cell's numbers take a hundred or so
        values (0.00 … 1.00), and laying each out again at every repaint of a drag was half of the numbers' cost."""
        laid = self._laid_out.get(text)
        if laid is None:
            if len(self._laid_out) >= 2048:
                self._laid_out.clear()
            st = QStaticText(text)
            st.setTextFormat(Qt.TextFormat.PlainText)
            st.prepare(font=self._font)
            size = st.size()
            laid = self._laid_out[text] = (st, size.width(), size.height())
        return laid

    def set_colour_rule(self, colour_of) -> None:
        """``colour_of(value) -> QColor`` (e.g. white on dark cells, or the theme's text colour)."""
        self._colour_of = colour_of
        self.update()

    def set_items(self, xs, ys, values, cell=(1.0, 1.0)) -> None:
        """Show ``values`` (formatted at paint time) centred on (``xs``, ``ys``); the same again changes nothing
        (a drag step that leaves them alone does not repaint them: an attention map's row sums)."""
        xs = np.asarray(xs, dtype=float).ravel()
        ys = np.asarray(ys, dtype=float).ravel()
        values = np.asarray(values, dtype=float).ravel()
        cell = (float(cell[0]), float(cell[1]))
        if cell == self._cell and all(np.array_equal(a, b) for a, b in
                                      ((xs, self._xs), (ys, self._ys), (values, self._values))):
            return
        self.prepareGeometryChange()
        self._xs, self._ys, self._values, self._cell = xs, ys, values, cell
        self._need_w = None
        if self._xs.size:
            cw, ch = self._cell
            self._bounds = (float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max()))
            x0, x1 = self._bounds[0] - cw, self._bounds[1] + cw
            y0, y1 = self._bounds[2] - 2 * ch - 0.2, self._bounds[3] + 2 * ch + 0.2
            self._rect = QRectF(x0, y0, x1 - x0, y1 - y0)
        else:
            self._rect = QRectF()
        self.update()

    def share_format(self, *others: ValueText) -> None:
        """Write these numbers and ``others``' in one format: the one that fits the narrowest cells of them all
        (two maps side by side, a fraction of a pixel apart in width, showed "1.000" beside "1.00")."""
        group = [self, *others]
        for vt in group:
            vt._peers = [o for o in group if o is not vt]

    def _cell_px(self, painter_transform) -> float:
        return abs(painter_transform.m11()) * self._cell[0]

    def _peer_cell_px(self) -> list[float]:
        """The peers' cell widths on screen now (those shown in a view and holding numbers)."""
        out = []
        for vt in self._peers:
            if not shiboken6.isValid(vt):  # (deleted first in a teardown)
                continue
            views = vt.scene().views() if vt.scene() is not None else []
            if views and vt._values.size and vt.isVisible():
                out.append(vt._cell_px(vt.deviceTransform(views[0].viewportTransform())))
        return out

    def texts(self) -> list[str]:
        """Every number as it is drawn (in the format of the last paint; for tests and export)."""
        return [self._fmt(v) for v in self._values]

    def visible_texts(self, painter_transform) -> bool:
        """True if the numbers fit their cells under ``painter_transform`` (data -> pixels), in a format."""
        return self._format_for(painter_transform) is not None

    def _format_for(self, painter_transform):
        """The first format whose numbers fit their cells under ``painter_transform``, or None (hidden)."""
        if not self._values.size:
            return None
        need_w, line = self._need()
        w = min([self._cell_px(painter_transform), *self._peer_cell_px()])
        h = abs(painter_transform.m22()) * self._cell[1]
        # A cell height of 0 means "only the width matters" (labels above bars).
        if self._cell[1] != 0 and h < line:
            return None
        return next((fmt for fmt, need in zip(self._fmts, need_w, strict=True) if w >= need), None)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._rect

    def paint(self, p: QPainter, *args) -> None:
        tr = p.transform()
        fmt = self._format_for(tr)
        if fmt is None:
            return
        self._fmt = fmt
        view = self.viewRect()  # only the points in view are drawn
        xs, ys, values = self._xs, self._ys, self._values
        if view is not None:
            cw, ch = self._cell
            left, right = view.left() - cw, view.right() + cw
            top, bottom = view.top() - ch - 1, view.bottom() + ch + 1
            x_lo, x_hi, y_lo, y_hi = self._bounds
            if not (left <= x_lo and x_hi <= right and top <= y_lo and y_hi <= bottom):  # (all in view: all drawn)
                keep = (xs >= left) & (xs <= right) & (ys >= top) & (ys <= bottom)
                xs, ys, values = xs[keep], ys[keep], values[keep]
        if tr.isAffine():  # (a plot's view: scale and shift) every point mapped at once
            px = tr.m11() * xs + tr.m21() * ys + tr.dx()
            py = tr.m12() * xs + tr.m22() * ys + tr.dy()
        else:
            mapped = [tr.map(QPointF(x, y)) for x, y in zip(xs, ys, strict=True)]
            px, py = np.array([q.x() for q in mapped]), np.array([q.y() for q in mapped])
        h = self._need()[1]
        # Centred across on the point; down, just above it (bar tops) or centred on it, in a line's height.
        tops = py - h - 2 if self._anchor == "bottom" else py - h / 2
        by_colour: dict[int, tuple[QColor, list]] = {}  # one pen per colour, not per number
        for x, top, v in zip(px.tolist(), tops.tolist(), values.tolist(), strict=True):
            colour = self._colour_of(v)
            by_colour.setdefault(colour.rgba(), (colour, []))[1].append((x, top, self._static(self._fmt(v))))
        p.save()
        p.resetTransform()
        p.setFont(self._font)
        for colour, texts in by_colour.values():
            p.setPen(colour)
            for x, top, (st, w, th) in texts:
                p.drawStaticText(QPointF(x - w / 2, top + (h - th) / 2), st)
        p.restore()


_BLACK, _WHITE = QColor("black"), QColor("white")
_RED, _LIGHT, _PEACH = QColor("#9b1c00"), QColor("#e6e6e6"), QColor("#ffd0ad")


def row_sum_colour(v: float) -> QColor:
    return _BLACK if abs(v - 1.0) < 1e-9 else _RED


def row_sum_colour_dark(v: float) -> QColor:
    return _LIGHT if abs(v - 1.0) < 1e-9 else _PEACH


def text_colour_on_viridis(v: float) -> QColor:
    # viridis is dark below ~0.55: white text there, black above.
    return _WHITE if v < 0.55 else _BLACK
