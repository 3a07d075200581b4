"""The numbers Token swap writes in its cells and bars, coloured to read on what lies under them."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QStaticText


def fmt_value(v: float) -> str:
    """A weight or row sum as the cells show it."""
    return f"{v:.2f}"


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
        self._laid_out: dict[str, QStaticText] = {}  # each text laid out once in the font (see _static)

    def set_point_size(self, point_size: float) -> None:
        self._font.setPointSizeF(point_size)
        self._laid_out.clear()
        self.update()

    def _static(self, text: str) -> QStaticText:
        """``text`` laid out in the font, kept: a cell's numbers take a hundred or so values (0.00 … 1.00), and
        laying each out again at every repaint of a drag was half of the numbers' cost."""
        st = self._laid_out.get(text)
        if st is None:
            if len(self._laid_out) >= 2048:
                self._laid_out.clear()
            st = self._laid_out[text] = QStaticText(text)
            st.setTextFormat(Qt.TextFormat.PlainText)
            st.prepare(font=self._font)
        return st

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
        h = QFontMetricsF(self._font).height()
        for x, y, v in zip(self._xs[keep], self._ys[keep], self._values[keep], strict=True):
            st = self._static(self._fmt(v))
            size = st.size()
            pt = tr.map(QPointF(x, y))
            # Centred across on the point; down, just above it (bar tops) or centred on it, in a line's height.
            top = pt.y() - h - 2 if self._anchor == "bottom" else pt.y() - h / 2
            p.setPen(self._colour_of(v))
            p.drawStaticText(QPointF(pt.x() - size.width() / 2, top + (h - size.height()) / 2), st)
        p.restore()


def row_sum_colour(v: float) -> QColor:
    return QColor("black") if abs(v - 1.0) < 1e-9 else QColor("#9b1c00")


def row_sum_colour_dark(v: float) -> QColor:
    return QColor("#e6e6e6") if abs(v - 1.0) < 1e-9 else QColor("#ffd0ad")


def text_colour_on_viridis(v: float) -> QColor:
    # viridis is dark below ~0.55: white text there, black above.
    return QColor("white") if v < 0.55 else QColor("black")
