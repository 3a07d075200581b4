"""What the Lab panel's plots share: each scheme's colour, marker and pen, the dashed reference lines, the "Press
Start…" hint of an empty plot, the legend under each plot, and the one key above the plots that names the run's
schemes while a plot is too small for its own legend."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont

from ... import schemes as registry
from ...widgets.legend_place import LegendPlacer
from ...widgets.styler import mapped_colour
from ..schemes.items import line_style, scheme_key


class _Record(dict):
    """scheme id -> one field of its record (colour, marker), read from the registry on each use."""

    def __init__(self, attr: str) -> None:
        super().__init__()
        self._attr = attr

    def __getitem__(self, key: str) -> str:
        return getattr(registry.get(key), self._attr)

    def __contains__(self, key) -> bool:
        return key in registry.ids()


#: One colour per scheme, the same as the Schemes panel's (Okabe–Ito, safe for colour-vision deficiency),
#: and one marker each, so curves stay apart in grey-scale print.
SCHEME_COLOURS = _Record("colour")
SCHEME_SYMBOLS = _Record("symbol")
NEUTRAL = "#555555"


def pen(colour: str, width: float = 2.5, style=Qt.PenStyle.SolidLine, alpha: int = 255) -> pg.QtGui.QPen:
    c = QColor(colour)
    c.setAlpha(alpha)
    p = pg.mkPen(c, width=width)
    p.setStyle(style)
    return p


def scheme_pen(scheme: str, width: float, alpha: int = 255) -> pg.QtGui.QPen:
    """``scheme``'s pen: its colour in its line style (a variant that shares a colour is dashed)."""
    return pen(SCHEME_COLOURS[scheme], width, line_style(scheme), alpha)


def scheme_colour(scheme: str, theme=None) -> QColor:
    """``scheme``'s colour as ``theme`` draws its curves (the plots' theming maps each pen the same way)."""
    return mapped_colour(SCHEME_COLOURS[scheme], theme)


def ref_line(pos: float, angle: int, label: str, style=Qt.PenStyle.DashLine, label_pos: float = 0.95,
             anchors=None) -> pg.InfiniteLine:
    """A thin grey reference line behind the curves (the loss floor, chance, L_train), labelled at ``label_pos``."""
    line = pg.InfiniteLine(pos=pos, angle=angle, pen=pen(NEUTRAL, 1.6, style),
                           label=label, labelOpts={"position": label_pos, "color": NEUTRAL,
                                                   "anchors": anchors or [(0, 1), (0, 1)]})
    line.setZValue(-5)
    return line


class Hint(pg.TextItem):
    """A "Press Start…" placeholder inside an empty plot, shown only where it fits: at 1280 × 720 in
    presenter mode it ran over the legend and the reference lines' labels."""

    #: The share of the plot's width and height the hint may take (by default).
    ROOM = (0.8, 0.45)
    #: It shows and hides itself (the plot's annotation placer leaves it be).
    self_placed = True

    def __init__(self, text: str, color: str = NEUTRAL, anchor=(0.5, 0.5), room: tuple | None = None) -> None:
        super().__init__(text, color=color, anchor=anchor)
        self._wanted = True
        self._view = None
        self._room = room or self.ROOM

    def fits(self) -> bool:
        view = self.getViewBox()
        if view is None:
            return True
        if view is not self._view:  # added to a plot: follow its size from now on
            self._view = view
            view.sigResized.connect(self._refit)  # a bound method: no lambda holding the item in a cycle
        room, text = view.boundingRect(), self.textItem.boundingRect()
        return text.width() <= self._room[0] * room.width() and text.height() <= self._room[1] * room.height()

    def _refit(self, *_args) -> None:
        self.setVisible(self._wanted)

    def setVisible(self, on: bool) -> None:  # noqa: N802 - Qt's name
        self._wanted = bool(on)
        super().setVisible(self._wanted and self.fits())


def hint(text: str) -> Hint:
    """An empty plot's placeholder ``text`` (12 pt)."""
    item = Hint(text)
    f = QFont()
    f.setPointSizeF(12)
    item.setFont(f)
    return item


def legend_under(plot: pg.PlotWidget) -> tuple[pg.LegendItem, LegendPlacer]:
    """``plot``'s legend and its placer: under the x axis, in the plot's own layout (it never covers a curve), as
    many entries to a row as fit, shown while it has entries and leaves the data a readable area
    (:mod:`explorer.widgets.legend_place`)."""
    pi = plot.getPlotItem()
    legend = pi.addLegend(under=True, colCount=5, labelTextSize="11pt", pen=None, brush=None)
    placer = pi.legend_placer
    assert placer is not None, "the app's plot item keeps each legend with its placer"
    return legend, placer


def show_key(key, views, theme=None) -> None:
    """Show ``key`` (a QLabel) naming the run's schemes while any of ``views``' legends is left out."""
    schemes = list(views[0].smooth)
    if not schemes or not any(v.placer.hidden_for_room for v in views):
        key.setVisible(False)
        return
    key.setText(scheme_key(schemes, theme))
    key.setVisible(True)


def key_when_exported(plot: pg.PlotWidget, placer: LegendPlacer, schemes) -> None:
    """A plot exported alone names its curves (``export_key``, drawn under it) while its own legend is left out
    for room: the shared key above the plots does not go with it."""
    plot.export_key = lambda: scheme_key(list(schemes)) if placer.hidden_for_room and schemes else ""
