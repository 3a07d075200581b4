"""Plots that keep a readable size: a data area at least :data:`LINES` lines of body text tall and twice that wide.

A smaller plot cannot show three labelled ticks a line apart beside its data, nor a one-line annotation without
covering it (the "90-px stamps" of issue 27; the in-plot audit of the tests measures the same rule).

:class:`ReadableSplitter` is a ``QSplitter`` that shares its room so that every plot in each of its parts keeps
that size where the room allows it: a part whose plots are too small takes what it lacks from the parts with room
to spare, in proportion to that room.  Where the room allows more it also gives each plot a line to spare and its
whole axis titles (a title longer than its axis is shrunk or shortened).  It never raises a minimum size (the
window still fits a small screen; where the room cannot hold every part readably the shares are left as they are),
a split that already gives every plot that room (a scene's shares) is left alone, and one set by hand is only kept
readable.  A part that is no plot may say what it needs to show its text whole (``readable_need``): a table's
numbers are kept whole where the room allows that too.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QSplitter, QWidget

#: The least height of a plot's data area, in lines of body text (twice that is its least width).
LINES = 5
#: Lines of room a share gives its plots over the readable size, where the room allows it.
SPARE = 1.0
#: Plots that are colour bars or strips, not data plots.
NOT_PLOTS = frozenset({"sharedColourBar", "gridColourBar"})


def body_line(widget: QWidget) -> float:
    """The height of a line of the window's body text (14 px normally, about 21 in presenter mode)."""
    return QFontMetricsF(widget.window().font()).height()


def readable_size(widget: QWidget) -> tuple[float, float]:
    """The least (width, height) of a readable data area, in ``widget``'s window."""
    line = body_line(widget)
    return 2 * LINES * line, LINES * line


def _all_plots(widget: QWidget) -> list[pg.PlotWidget]:
    return [widget] if isinstance(widget, pg.PlotWidget) else widget.findChildren(pg.PlotWidget)


def plots_in(widget: QWidget) -> list[pg.PlotWidget]:
    """The data plots shown in ``widget`` (itself one, or inside it)."""
    return [p for p in _all_plots(widget) if p.isVisible() and p.objectName() not in NOT_PLOTS]


def _title_length(plot: pg.PlotWidget, vertical: bool) -> float:
    """The length of the plot's longest axis title along its data (unshrunk), 0 where it has none."""
    pi = plot.getPlotItem()
    names = ("left", "right") if vertical else ("bottom", "top")
    out = 0.0
    for name in names:
        axis = pi.getAxis(name) if name in pi.axes else None
        if axis is not None and axis.isVisible() and axis.label.isVisible() and axis.label.toPlainText().strip():
            out = max(out, axis.label.boundingRect().width())
    return out


def need(widget: QWidget, vertical: bool, titles: bool = False, spare: float = 0.0) -> int:
    """How tall (``vertical``) or wide ``widget`` must be for each of its plots to be readable: its size now, less
    what that plot's data area has, plus a readable one (0 where it holds no plot); with ``titles``, a data area as
    long as the plot's axis title along it, too (it need not shrink); ``spare`` lines more."""
    want = readable_size(widget)[1 if vertical else 0] + spare * body_line(widget)
    size = widget.height() if vertical else widget.width()
    out = 0.0
    for p in plots_in(widget):
        vb = p.getPlotItem().getViewBox()
        data = vb.height() if vertical else vb.width()
        length = max(want, _title_length(p, vertical)) if titles else want
        out = max(out, size - data + length)
    return int(math.ceil(out))


def own_need(widget: QWidget, vertical: bool) -> int:
    """What a part that is no plot needs to show its text whole (``readable_need(vertical)``, where it has one: a
    table's numbers), else 0."""
    told = getattr(widget, "readable_need", None)
    return int(math.ceil(told(vertical))) if callable(told) else 0


def shares_for(sizes: list[int], needs: list[int]) -> list[int] | None:
    """Sizes (same total) giving each part at least its need, taking from the parts above theirs in proportion to
    what they have to spare (``sizes`` themselves where they meet every need); None where the total cannot."""
    short = [max(0, n - s) for s, n in zip(sizes, needs, strict=True)]
    lack = sum(short)
    if lack <= 0:
        return list(sizes)
    spare = [max(0, s - n) for s, n in zip(sizes, needs, strict=True)]
    room = sum(spare)
    if room < lack:
        return None
    out = [s + d - int(math.ceil(lack * p / room)) if p else s + d for s, d, p in zip(sizes, short, spare,
                                                                                     strict=True)]
    out[max(range(len(out)), key=lambda i: spare[i])] += sum(sizes) - sum(out)  # rounding
    return out


class ReadableSplitter(QSplitter):
    """A splitter that shares its room so that every plot in it stays readable (see the module)."""

    def __init__(self, orientation: Qt.Orientation, parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        self._pending = False
        self._watch = _PlotWatch(self)
        #: The user moved a handle since the splitter last changed size: only the readable size is kept.
        self.by_hand = False
        self.splitterMoved.connect(self._on_moved)

    def _on_moved(self, *_args) -> None:
        self.by_hand = True

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.by_hand = False
        self.schedule()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._watch.rewatch()
        self.schedule()

    def schedule(self) -> None:
        """Share the room again once the layouts have settled (a change of size, font or plot)."""
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self.rebalance)

    def parts(self) -> list[QWidget]:
        return [w for w in (self.widget(i) for i in range(self.count())) if w is not None]

    def needs(self, titles: bool = False, spare: float = 0.0, own: bool = True) -> list[int]:
        """Each part's need (0 for a hidden one): its plots' (:func:`need`), and with ``own`` what a part that is
        no plot says it needs (:func:`own_need`)."""
        vertical = self.orientation() == Qt.Orientation.Vertical
        return [max(need(w, vertical, titles, spare), own_need(w, vertical) if own else 0) if w.isVisible() else 0
                for w in self.parts()]

    def rebalance(self) -> bool:
        """Give every part its readable size where the room allows it (and its plots' whole axis titles where it
        allows that too); True when the shares changed."""
        self._pending = False
        if not shiboken6.isValid(self) or not self.isVisible() or self.count() < 2:
            return False
        self._watch.rewatch()  # a part may have been replaced (a plot in focus leaves a placeholder)
        sizes = self.sizes()
        if sum(sizes) <= 0:
            return False
        # Best first: whole axis titles and a line to spare (the axes widen a little once the data is drawn), then
        # the spare line alone, then the bare readable size, and last the plots' readable size alone (a table's
        # numbers elided rather than a plot a stamp).
        new = None
        tiers = ((True, SPARE, True), (False, SPARE, True), (False, 0.0, True), (False, 0.0, False))
        for titles, spare, own in tiers[-2:] if self.by_hand else tiers:
            new = shares_for(sizes, self.needs(titles, spare, own))
            if new is not None:
                break
        if new is None or new == sizes:
            return False
        self.setSizes(new)
        return True


class _PlotWatch(QObject):
    """Tells its splitter when a plot inside it changes size (its title, axes or legend grew with the fonts)."""

    def __init__(self, splitter: ReadableSplitter) -> None:
        super().__init__(splitter)
        self._splitter = splitter
        self._plots: list = []

    def rewatch(self) -> None:
        """Follow every plot now inside the splitter (shown or not: a tab's plots show later)."""
        plots = [p for w in self._splitter.parts() for p in _all_plots(w)]
        for p in plots:
            if p not in self._plots:
                p.getPlotItem().getViewBox().sigResized.connect(self._changed)
        self._plots = plots

    def _changed(self, *_args) -> None:
        self._splitter.schedule()
