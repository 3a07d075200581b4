"""Brushes for plot symbols that keep their identity, so pyqtgraph draws each symbol once.

pyqtgraph's ``ScatterPlotItem`` keeps each symbol it has drawn in an atlas keyed by the *identity* of the pen
and brush (``SymbolAtlas._keys``), and it keeps a ``QBrush`` it is given as it is, but turns a colour ("#555",
a tuple) into a new ``QBrush`` at every ``setData``: each data update then drew its symbols anew and added them
to the atlas (two to five renders per update of the Waves spectrum, about 2 ms of its 4 ms draw).  A colour
given as :func:`steady_brush` is the same object every time.
"""

from __future__ import annotations

from functools import lru_cache

import pyqtgraph as pg
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
