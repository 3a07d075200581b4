"""Legends placed where they cover no data, chosen from the data.

Every legend of an app plot (``AppPlotItem.addLegend``: pyqtgraph's legend, not anchored to a corner) is kept
by a :class:`LegendPlacer`: whenever the plot's view, size or data change, it tries the corner the view asked
for (the sign of its offset: negative x is the right side, negative y the bottom), then the other corners and
the middles of the top and bottom edges, and puts the legend in the first that covers no curve, point, bar or
image (:class:`~explorer.widgets.plot_geometry.PlotData`).  Where every place covers data, the legend goes
under the plot, in the plot item's own layout (one row, as many columns as it has entries): outside the data.
Where even there it would take more than :attr:`LegendPlacer.ROOM` of the plot's height (a small plot in a grid at
1280×720), or leave the data less than a readable area (:func:`~explorer.widgets.readable.readable_size`: two
rows of legend took a 720p presenter plot's data area to 77 px), it is left out, its room given back to the data
(:attr:`LegendPlacer.hidden_for_room`, ``changed``): the view names the curves in a key of its own, and a picture
of the plot alone carries :func:`legend_key`.

A legend made ``under`` the plot (``AppPlotItem.addLegend(under=True)``: the Lab's, whose curves fill the whole
view) goes there from the start and is shown by its placer alone: while it has entries and fits.
"""

from __future__ import annotations

import html

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QObject, QRectF, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QSizePolicy

from .plot_geometry import PlotData, visible
from .readable import readable_size
from .titles import plain

#: Where a legend may sit inside the view: (x, y) anchors, 0 = left/top, 1 = right/bottom, 0.5 = middle.
_PLACES = [(1, 0), (0, 0), (1, 1), (0, 1), (0.5, 0), (0.5, 1)]
_ROW = 4  # the plot item's layout row under the bottom axis


def legend_key(legend) -> str:
    """The names of ``legend``'s entries as one line of rich text, each after a mark in its item's colour (a key
    that stands in for the legend outside the plot)."""
    out = []
    for sample, label in getattr(legend, "items", ()):
        opts = getattr(getattr(sample, "item", None), "opts", {}) or {}
        colour = None
        for key in ("pen", "symbolBrush", "brush"):
            try:
                colour = pg.mkColor(opts[key].color() if hasattr(opts.get(key), "color") else opts[key]).name()
                break
            except Exception:  # noqa: BLE001 - no usable colour under this key: try the next
                continue
        mark = f"<span style='color:{colour}'>■</span> " if colour else ""
        out.append(mark + html.escape(plain(label.text)))
    return " &nbsp; ".join(out)


class LegendPlacer(QObject):
    """Keeps ``legend`` of ``plot_item`` off the data (see the module)."""

    #: The most of its plot's height a legend under the plot may take before it is left out.
    ROOM = 0.3
    #: The legend was left out (or came back): the view's own key follows.
    changed = Signal()

    def __init__(self, plot_item, legend, offset, *, under: bool = False) -> None:
        super().__init__(legend)
        self.hidden_for_room = False
        self.plot_item, self.legend = plot_item, legend
        ox, oy = (offset if offset is not None else (30, 30))
        self._gap = (abs(float(ox)), abs(float(oy)))
        first = (1 if ox < 0 else 0, 1 if oy < 0 else 0)
        self._places = [first] + [p for p in _PLACES if p != first]
        #: Under the plot from the start, shown while it has entries and fits (see the module).
        self.under = under
        self.outside = False
        self._shown: bool | None = None  # an ``under`` legend as last shown or hidden
        self._pending = False
        vb = plot_item.getViewBox()
        vb.sigResized.connect(self.schedule)
        vb.sigRangeChanged.connect(self.schedule)  # and the plot's repaints (see AnnotationPlacer: not the scene's)
        if under:
            self._put_outside()

    def schedule(self, *_args) -> None:
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self.place)

    def flush(self) -> None:
        """Place now (for an export or an audit): the data may have changed in a plot not painted since, a hidden
        one, and only a paint or the view's range or size asks for a placement."""
        self.place()

    def _rect(self, place, size, view: QRectF) -> QRectF:
        gx, gy = self._gap
        x = {0: view.left() + gx, 1: view.right() - gx - size.width()}.get(
            place[0], view.center().x() - size.width() / 2)
        y = {0: view.top() + gy, 1: view.bottom() - gy - size.height()}.get(
            place[1], view.center().y() - size.height() / 2)
        return QRectF(x, y, size.width(), size.height())

    def place(self) -> None:
        """Put the legend in the first place that covers no data (or under the plot)."""
        self._pending = False
        legend = self.legend
        if not shiboken6.isValid(legend):
            return
        if self.under:  # shown by the placer: the entries may have come or gone
            self._fit_columns()
            return
        if not (visible(legend) or self.hidden_for_room) or not legend.items:
            return
        if self.outside:
            self._fit_columns()
            return
        vb = self.plot_item.getViewBox()
        view = vb.sceneBoundingRect()
        size = legend.sceneBoundingRect().size()
        if view.width() <= 0 or size.width() <= 0:
            return
        data = PlotData(self.plot_item)
        for place in self._places:
            rect = self._rect(place, size, view)
            if view.contains(rect) and not data.covered(rect.adjusted(1, 1, -1, -1)):
                pos = legend.parentItem().mapFromScene(rect.topLeft())
                if (legend.pos() - pos).manhattanLength() > 0.5:
                    legend.setPos(pos)
                return
        self._put_outside()

    def _put_outside(self) -> None:
        """The legend in one row under the bottom axis, in the plot item's layout."""
        legend, pi = self.legend, self.plot_item
        self.outside = True
        legend.setMinimumWidth(0)  # never wider than its plot for the layout (the plot's widget would cut it)
        pi.layout.addItem(legend, _ROW, 1)
        pi.layout.setRowStretchFactor(_ROW, 0)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """As many entries to a row as the plot's width holds."""
        legend = self.legend
        entries = [s.boundingRect().width() + lb.item.boundingRect().width() + 24 for s, lb in legend.items]
        room = self.plot_item.getViewBox().sceneBoundingRect().width()
        n = max(1, len(entries))
        while n > 1 and max(sum(entries[i:i + n]) for i in range(0, len(entries), n)) > room:
            n -= 1
        if n != legend.columnCount:
            legend.setColumnCount(n)
        legend.layout.invalidate()  # its rows as they are laid out now, frame and spacing included
        need = legend.layout.effectiveSizeHint(Qt.SizeHint.PreferredSize).height()
        fits = need <= self.ROOM * self.plot_item.size().height() and self._leaves_readable(need)
        hidden = bool(legend.items) and not fits
        if self.under:
            self._show(bool(legend.items) and fits)
        elif hidden != self.hidden_for_room:
            self._show(fits)
        if hidden != self.hidden_for_room:
            self.hidden_for_room = hidden
            self.changed.emit()

    def _leaves_readable(self, need: float) -> bool:
        """Whether the data area keeps a readable height with ``need`` px of legend under it."""
        widget = self.plot_item.getViewWidget()
        if widget is None:
            return True
        shown = self.legend.geometry().height() if self.legend.isVisible() else 0.0
        return self.plot_item.getViewBox().height() + shown - need >= readable_size(widget)[1]

    def _show(self, on: bool) -> None:
        legend = self.legend
        if on == self._shown and legend.isVisible() == on:
            return
        self._shown = on
        legend.setVisible(on)
        # A hidden item keeps its room in a graphics layout: none while left out, its own when shown.
        legend.setMinimumHeight(-1 if on else 0)
        legend.setMaximumHeight(-1 if on else 0)


class LegendKey(QLabel):
    """One wrapped line above a grid of plots that names what their legends would, for the legends left out for
    room (:attr:`LegendPlacer.hidden_for_room`), each after its plot's short name; hidden while none is."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.RichText)
        self._plots: list[tuple[str, pg.PlotWidget]] = []
        self.setVisible(False)

    def follow(self, plots: list[tuple[str, pg.PlotWidget]]) -> None:
        """Name the legends of ``plots`` ((short name, app plot widget)) whenever one is left out or comes back."""
        self._plots = list(plots)
        for _name, pw in self._plots:
            placer = getattr(pw.getPlotItem(), "legend_placer", None)
            if placer is not None:
                placer.changed.connect(self.update_key)
        self.update_key()

    def update_key(self) -> None:
        parts = []
        for name, pw in self._plots:
            placer = getattr(pw.getPlotItem(), "legend_placer", None) if shiboken6.isValid(pw) else None
            if placer is not None and placer.hidden_for_room and pw.isVisible():
                parts.append(f"<b>{html.escape(name)}</b>: {legend_key(placer.legend)}")
        self.setText(" &nbsp;·&nbsp; ".join(parts))
        self.setVisible(bool(parts))
