"""Plot symbols that cost one draw: brushes and pens that keep their identity, and a scatter Qt never repaints whole.

pyqtgraph's ``ScatterPlotItem`` keeps each symbol it has drawn in an atlas keyed by the *identity* of the pen
and brush (``SymbolAtlas._keys``), and it keeps a ``QBrush`` it is given as it is, but turns a colour ("#555",
a tuple) into a new ``QBrush`` at every ``setData``: each data update then drew its symbols anew and added them
to the atlas (two to five renders per update of the Waves spectrum, about 2 ms of its 4 ms draw).  A colour
given as :func:`steady_brush` is the same object every time.

:class:`SteadyScatter`: a scatter whose bounding rect is never null (see there).
"""

from __future__ import annotations

from functools import lru_cache

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QBrush, QPen


@lru_cache(maxsize=256)
def steady_brush(colour) -> QBrush:
    """The one ``QBrush`` of ``colour`` (anything ``pg.mkBrush`` takes that can be a dict key)."""
    return pg.mkBrush(colour)


@lru_cache(maxsize=256)
def steady_pen(colour=None, width: float = 1.0) -> QPen:
    """The one symbol outline ``QPen`` of ``colour`` and ``width`` (None: no outline; pyqtgraph's default outline
    of a PlotDataItem's symbols is a colour, so a new pen at every update, unless one of these is given)."""
    return pg.mkPen(None) if colour is None else pg.mkPen(colour, width=width)


class SteadyScatter(pg.ScatterPlotItem):
    """A ``ScatterPlotItem`` whose bounding rect is never null, so an update repaints the points, not the plot.

    pyqtgraph pads a scatter's data bounds by its symbols' size in pixels, which ``setData`` learns only after it
    has told Qt the geometry changes: one point (or several at one place) has, for that moment, a rect of no
    size, and Qt reads a null rect as "the whole scene changed".  The Waves spectrum's ring around the picked pair
    (one point) repainted the whole plot, axes and all, at every drag step (2.2 ms where its changes took ~1).
    A point of no size here is a rect of a millionth of a unit around it instead.
    """

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        r = super().boundingRect()
        if not r.isNull():
            return r
        c = r.center()
        return QRectF(c.x() - 1e-6, c.y() - 1e-6, 2e-6, 2e-6)
