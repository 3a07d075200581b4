"""Brushes for plot symbols that keep their identity, so pyqtgraph draws each symbol once.

pyqtgraph's ``ScatterPlotItem`` keeps each symbol it has drawn in an atlas keyed by the *identity* of the pen
and brush (``SymbolAtlas._keys``), and it keeps a ``QBrush`` it is given as it is, but turns a colour ("#555",
a tuple) into a new ``QBrush`` at every ``setData``: each data update then drew its symbols anew and added them
to the atlas (two to five renders per update of the Waves spectrum, about 2 ms of its 4 ms draw).  A colour
given as :func:`steady_brush` is the same object every time.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
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


def marker_room(*items) -> float:
    """Pixels from the largest symbol's centre to its outer edge (its size, its pen and a pixel of antialiasing),
    over ``items`` (``PlotDataItem`` or ``ScatterPlotItem``)."""
    room = 0.0
    for item in items:
        scatter = isinstance(item, pg.ScatterPlotItem)
        size = item.opts.get("size" if scatter else "symbolSize") or 0.0
        pen = pg.mkPen(item.opts.get("pen" if scatter else "symbolPen"))
        width = pen.widthF() if pen.style() != Qt.PenStyle.NoPen else 0.0
        room = max(room, float(np.max(size)) / 2 + width / 2 + 1.0)
    return room


def room_for(pixels: float, span: float, length: float, *, one_side: bool = False) -> float:
    """The margin, in data units, that leaves ``pixels`` between the data's ends and a view ``length`` pixels long
    which shows ``span`` data units and the margin on both sides (``one_side``: on one side, the other end fixed);
    0 where the view is not laid out yet (or too small to leave that room)."""
    sides = 1 if one_side else 2
    if length <= sides * pixels or span <= 0:
        return 0.0
    return pixels * span / (length - sides * pixels)


def range_with_room(vb: pg.ViewBox, room: float, x: tuple[float, float], y: tuple[float, float] | None = None, *,
                    limits: bool = True) -> list:
    """Show data ``x`` (and ``y``) with ``room`` pixels kept on each side for the symbols at their ends (a marker on
    the first or last position is whole, not cut by the plot's edge); ``limits``: the x limits are the range, its
    margin included.  Returns the view's target range, to tell later whether the user has moved it."""
    size = vb.size()
    mx = room_for(room, x[1] - x[0], size.width())
    if limits:
        vb.setLimits(xMin=x[0] - mx, xMax=x[1] + mx)
    if y is None:
        vb.setXRange(x[0] - mx, x[1] + mx, padding=0)
    else:
        my = room_for(room, y[1] - y[0], size.height())
        vb.setRange(xRange=(x[0] - mx, x[1] + mx), yRange=(y[0] - my, y[1] + my), padding=0)
    return vb.targetRange()
