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

from .lean_items import LeanScatter


@lru_cache(maxsize=256)
def steady_brush(colour) -> QBrush:
    """The one ``QBrush`` of ``colour`` (anything ``pg.mkBrush`` takes that can be a dict key)."""
    return pg.mkBrush(colour)


@lru_cache(maxsize=256)
def steady_pen(colour=None, width: float = 1.0) -> QPen:
    """The one symbol outline ``QPen`` of ``colour`` and ``width`` (None: no outline; pyqtgraph's default outline
    of a PlotDataItem's symbols is a colour, so a new pen at every update, unless one of these is given)."""
    return pg.mkPen(None) if colour is None else pg.mkPen(colour, width=width)


class Markers(LeanScatter):
    """A scatter whose markers grow with the theme's lines, as a curve's symbols do (the plot's styler scales its
    size; a plain ``ScatterPlotItem`` keeps its size in every theme).  For a few markers that move at every drag
    step: a ``PlotDataItem`` with symbols spends about 0.2 ms of bookkeeping in each ``setData`` that this
    scatter does not."""


def marker_room(*items) -> float:
    """Pixels from the largest symbol's centre to its outer edge (its size, its pen and a pixel of antialiasing),
    over ``items`` (``PlotDataItem`` or ``ScatterPlotItem``)."""
    room = 0.0
    for item in items:
        scatter = isinstance(item, pg.ScatterPlotItem)
        size = item.opts.get("size" if scatter else "symbolSize")
        size = 0.0 if size is None else float(np.max(size))  # one size, or one per point
        pen = pg.mkPen(item.opts.get("pen" if scatter else "symbolPen"))
        width = pen.widthF() if pen.style() != Qt.PenStyle.NoPen else 0.0
        room = max(room, size / 2 + width / 2 + 1.0)
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
                    least: tuple[float, float] = (0.0, 0.0), below_only: bool = False, limits: bool = True) -> list:
    """Show data ``x`` (and ``y``) with ``room`` pixels kept on each side for the symbols at their ends (a marker on
    the first or last position is whole, not cut by the plot's edge).  ``least``: the margins (x, y), in data units,
    kept whatever the view's size; ``below_only``: y's room below the data only (its top is a bound of its own);
    ``limits``: the x limits are the range, its margin included.  Returns the view's target range, to tell later
    whether the user has moved it."""
    size = vb.size()
    mx = max(least[0], room_for(room, x[1] - x[0], size.width()))
    xs = (x[0] - mx, x[1] + mx)
    if limits:
        vb.setLimits(xMin=xs[0], xMax=xs[1])
    if y is None:
        vb.setXRange(*xs, padding=0)
    else:
        my = max(least[1], room_for(room, y[1] - y[0], size.height(), one_side=below_only))
        vb.setRange(xRange=xs, yRange=(y[0] - my, y[1] + (0.0 if below_only else my)), padding=0)
    return vb.targetRange()
