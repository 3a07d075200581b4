"""In-plot annotations that stay inside their plot, off the data and apart from each other.

A :class:`AnnotationPlacer` keeps the text items of one plot's view — ``pg.TextItem`` and the labels of
``pg.InfiniteLine`` — whenever the view, its size, its data or a text change (the view's range and size, and any
repaint of its plot, schedule a placement): each text, in the order the view
added them, is tried where the view put it, then on the other sides of its point (a TextItem's anchor) or at
other heights along its line (a line's label), and kept at the first place that lies inside the view, covers no
curve, point or bar (:class:`~explorer.widgets.plot_geometry.PlotData`; 2 px of slack) and meets no text kept
before it nor the legend.  A text with no such place is hidden until there is one (the line itself stays and
says what it is through its dash; a hover readout gives the numbers).  A text that shows and hides itself
(``self_placed``) is left to its view.

Placing measures every curve of the plot: during a drag, whose every frame changes the data, the texts are
placed at most every :data:`EVERY_MS` (the first change at once), so a frame draws its data without waiting for
them; an export or an audit places them first (:meth:`AnnotationPlacer.flush`).
"""

from __future__ import annotations

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QElapsedTimer, QObject, QRectF, QTimer

from .plot_geometry import PlotData, visible

_ANCHORS = [(0, 1), (1, 1), (0, 0), (1, 0), (0.5, 1), (0.5, 0), (0, 0.5), (1, 0.5)]
_ALONG = [0.95, 0.05, 0.5, 0.8, 0.2, 0.65, 0.35]
_SLACK = 2.0
#: Shortest time between two placements while changes keep coming (a drag): six frames at 60 Hz.
EVERY_MS = 100


def text_rect(item) -> QRectF:
    """A TextItem's text in scene coordinates, as the next paint draws it (a TextItem undoes its view's scale in
    its own transform, brought up to date by its paint: a view resized since then would be measured wrong)."""
    item.updateTransform()
    return item.mapRectToScene(item.textItem.mapRectToParent(item.textItem.boundingRect()))


def _rounded(rect: QRectF) -> tuple[float, float, float, float]:
    return round(rect.x(), 1), round(rect.y(), 1), round(rect.width(), 1), round(rect.height(), 1)


class AnnotationPlacer(QObject):
    """Keeps the annotations of ``plot_item``'s view placed (see the module)."""

    def __init__(self, plot_item) -> None:
        super().__init__()
        self.plot_item = plot_item
        self._pending = False
        self._since = QElapsedTimer()  # since the last placement
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.place)
        self._signature: tuple | None = None
        self._hidden: set[int] = set()
        self._home: dict[int, tuple] = {}
        vb = plot_item.getViewBox()
        vb.sigResized.connect(self.schedule)
        vb.sigRangeChanged.connect(self.schedule)
        # Anything else that changes the picture (data, a text) repaints the plot, whose paint schedules this
        # (explorer.widgets.plots.Plot.paintEvent).  Not the scene's ``changed`` signal: a receiver of it routes
        # every update of the scene through the signal instead of to the view directly, and Qt then repaints the
        # whole plot for an item whose rect is null for a moment (a one-point scatter's, at every setData).

    def schedule(self, *_args) -> None:
        if not self._pending:
            self._pending = True
            wait = 0 if not self._since.isValid() else max(0, EVERY_MS - int(self._since.elapsed()))
            self._timer.start(wait)

    def flush(self) -> None:
        """Place now what changed since the last placement (the timer then finds nothing to do): for whoever reads
        or draws the plot before the event loop turns, an audit or an export.  Not only when a placement is due: a
        line's label moves with its line at once, and the plot is repainted (which schedules one) only later."""
        self.place()

    def _texts(self) -> list:
        out = []
        vb = self.plot_item.getViewBox()
        for item in vb.childGroup.childItems():
            if isinstance(item, pg.InfiniteLine):
                label = getattr(item, "label", None)
                if label is not None and item.isVisible() and (label.isVisible() or id(label) in self._hidden):
                    out.append(label)
            elif isinstance(item, pg.TextItem) and getattr(item, "self_placed", False):
                continue
            elif isinstance(item, pg.TextItem) and (item.isVisible() or id(item) in self._hidden):
                out.append(item)
        return [t for t in out if t.toPlainText().strip()]

    def _candidates(self, item) -> list:
        """Ways to move ``item`` (callables), where the view put it first."""
        key = id(item)
        if isinstance(item, pg.InfLineLabel):
            # Its text as its line says now (pyqtgraph leaves a hidden label's text as it was); set only when it
            # differs: setting a text lays it out again.
            text = item.format.format(value=item.line.value())
            if text != item.toPlainText():
                item.setText(text)
            home = self._home.setdefault(key, (item.orthoPos, list(item.anchors)))
            flipped = [(1 - a[0], a[1]) for a in home[1]]
            out = []
            for anchors in (home[1], flipped):
                for pos in [home[0]] + _ALONG:
                    out.append(lambda p=pos, a=anchors: self._set_label(item, p, a))
            return out
        home = self._home.setdefault(key, (tuple(item.anchor),))
        return [lambda a=a: item.setAnchor(a) for a in [home[0]] + _ANCHORS]

    @staticmethod
    def _set_label(label, pos: float, anchors: list) -> None:
        label.anchors = list(anchors)
        label.setPosition(pos)

    @staticmethod
    def _legend(pi) -> list[QRectF]:
        """Where the plot's legend is (the texts keep off it), or nothing."""
        legend = pi.legend
        return [legend.sceneBoundingRect()] if visible(legend) and legend.items else []

    def _state(self, texts, data: PlotData, view: QRectF) -> tuple:
        return (view.getRect(), data.signature(),
                # The legend too: its placer may move it after the texts were placed (a plot shown for the first
                # time lays out twice), and a text then lay under it until the data changed.
                tuple(r.getRect() for r in self._legend(self.plot_item)),
                # Where each text is on screen, not in its parent: a line's label keeps its place along the line
                # while the line moves under it (the view's range or size changed after the text was placed).
                tuple((t.toPlainText(), t.isVisible(), _rounded(text_rect(t)),
                       getattr(getattr(t, "line", None), "value", lambda: None)()) for t in texts))

    def place(self) -> None:
        self._pending = False
        self._timer.stop()
        self._since.start()
        pi = self.plot_item
        if not shiboken6.isValid(pi) or not visible(pi):
            return
        vb = pi.getViewBox()
        view = vb.sceneBoundingRect()
        texts = self._texts()
        if not texts or view.width() <= 0:
            return
        data = PlotData(pi)
        state = self._state(texts, data, view)
        if state == self._signature:
            return
        taken = self._legend(pi)
        inside = view.adjusted(-_SLACK, -_SLACK, _SLACK, _SLACK)
        for item in texts:
            found = False
            # Tried shown: a hidden TextItem keeps the transform of its last paint, so it would be measured where it
            # was drawn in a view of another size.  Only a hidden one: showing a line's label sets its text and
            # position again (pyqtgraph's InfLineLabel), a fifth of a placement's time for labels already shown.
            if not item.isVisible():
                item.setVisible(True)
            for move in self._candidates(item):
                move()
                rect = text_rect(item)
                tight = rect.adjusted(_SLACK, _SLACK, -_SLACK, -_SLACK)
                if (inside.contains(rect) and not data.covered(tight, images=False)
                        and not any(rect.intersects(other) for other in taken)):
                    found = True
                    taken.append(rect)
                    break
            if found:  # (shown above)
                self._hidden.discard(id(item))
            else:
                self._candidates(item)[0]()  # back where the view put it, hidden
                self._hidden.add(id(item))
                item.setVisible(False)
        self._signature = self._state(texts, data, view)
