"""One draw per frame and key, one key per turn of the event loop: the newest of each key is drawn, and each
drawn plot is painted before the next key is drawn.

The compute service hands results to the UI thread as soon as they are ready; during a drag several
keys (and, when the UI thread was busy, several results of one key) can arrive within one frame.
Drawing each at once does work nobody sees: a result superseded a millisecond later, and one
repaint per result instead of one for all.  :class:`FrameScheduler` sits on the receiving side (the
service's policy is untouched): :meth:`~FrameScheduler.post` keeps the newest item per key, and a
single-shot timer starts a frame at once after an idle spell (0 ms: no latency added to a lone result) or
``frame_ms`` after the previous frame began during a burst.  That is a few milliseconds, not a display frame:
what keeps frames from piling up is the wait for the last one's paint (below), and a 16 ms boundary made a
result that came sooner wait for it (half or more of Token swap's and Schemes' drag latency, and one of the
turns that stalled with the next slider step; docs/performance.md).

A frame draws its keys one per turn of the event loop, in the order they were first posted: Qt paints what a
key changed (its plots) in between, and the next frame too waits for the last key's paint, so no single turn holds
more than one key's drawing and painting (on the 2-core machine of docs/performance.md the three plots of Waves
took 20–25 ms as one batch, which is what the UI stalled for).  The next key waits for that paint: a scene hands
its changes to its view in queued calls and the view's repaint is a posted event of low priority, so the next key
is drawn after :data:`HOPS` posted events of that priority, each posted by the one before, and ``gap_ms`` more
(with a 1 ms timer alone, a key that took a few ms to draw was followed by the next before Qt painted it, and both
plots were painted in one turn).  A newer item of a key still to come in the frame takes its place there, and a
key new to the frame joins it while it is drawn (a panel's results for one step come back a fraction of a
millisecond apart: the first began a frame, and the others waited ``frame_ms`` for the next); a key already drawn
in it waits for the next frame.
Keys that paint the same plot (``paints``) are drawn in the same turn, whichever frame they wait for: one
repaint for both (Waves' markers on the lanes, from a result of their own, came a millisecond after the lanes'
and cost the lanes a second repaint at every step).
:meth:`~FrameScheduler.flush` draws everything at once (an export, a test, shutdown).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEvent, QObject, Qt, QTimer, Signal

from .frame_probe import timed

#: Shortest time between the starts of two frames (see the module: not a display frame).
FRAME_MS = 4
#: Between two keys of one frame, after the wait for the first one's paint (HOPS): none more.  (A millisecond
#: more, from before the wait was counted in posted events, added one to the latency of each key after the first.)
GAP_MS = 0


#: Posted events between drawing a key and drawing the next (see FrameScheduler._next_after_paint).
HOPS = 3
_HOP = QEvent.Type(QEvent.registerEventType())


class _Hop(QEvent):
    def __init__(self, left: int, wait: object) -> None:
        super().__init__(_HOP)
        self.left = left
        self.wait = wait  # the wait it belongs to (FrameScheduler._waiting)


class FrameScheduler(QObject):
    """Coalesce items per key and hand the newest of each to ``draw(key, item)`` once per frame.

    Parameters
    ----------
    draw : callable
        Called on the UI thread as ``draw(key, item)`` for each key posted since the last frame, in
        the order the keys were first posted, one per turn of the event loop.  Pass a bound method (not
        a lambda holding Qt objects).
    parent : QObject
        Owner of the scheduler (and of its timer).
    frame_ms : int
        Shortest time between the starts of two frames.
    gap_ms : int
        Time between two keys of one frame, after the wait for the first one's paint (HOPS posted events).
    paints : callable, optional
        ``paints(key, item)``: the plot (any hashable) that drawing ``item`` repaints, or None (none shared with
        another key).  Keys waiting with the same plot are drawn in the turn of the first of them.

    Counters: ``frames`` (draw passes that drew something), ``draws`` (``draw`` calls) and
    ``coalesced`` (items replaced by a newer one of their key before they were drawn).  ``painted`` is emitted
    when the wait for a turn's paint ends: what that turn drew is on screen (the bench's latency ends there).
    """

    painted = Signal()

    def __init__(self, draw: Callable[[Hashable, Any], None], parent: QObject | None = None,
                 frame_ms: int = FRAME_MS, gap_ms: int = GAP_MS,
                 paints: Callable[[Hashable, Any], Hashable | None] | None = None) -> None:
        super().__init__(parent)
        self._draw = draw
        self._paints = paints
        self.frame_ms = int(frame_ms)
        self.gap_ms = int(gap_ms)
        self._pending: dict[Hashable, Any] = {}
        self._last: set[Hashable] = set()  # keys posted ``last`` (see post)
        self._drawing: dict[Hashable, Any] = {}  # the frame being drawn: what is still to come in it
        self._frame_keys: set[Hashable] = set()  # the keys of the frame being drawn (empty: none is)
        self._flushing = False
        self._waiting: object | None = None  # the wait for a key's paint in progress (see _next_after_paint)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._turn)
        self._since = QElapsedTimer()  # since the last frame was drawn
        self.frames = 0
        self.draws = 0
        self.coalesced = 0
        #: True while the draw in progress is a frame's first (the bench's frame split counts frames by it).
        self.frame_begins = True

    @property
    def pending(self) -> bool:
        """True while something waits for the next frame (or for its turn in the frame being drawn)."""
        return bool(self._pending) or bool(self._drawing)

    def post(self, key: Hashable, item: Any, *, last: bool = False) -> None:
        """Draw ``item`` in the frame being drawn if its key is still to come there or new to it, else at the next
        frame, unless a newer item of ``key`` arrives first.  ``last``: only in a turn where nothing else waits, this
        frame's or the next's (an update that follows a result must not hold up the results that come after it)."""
        if last:
            self._last.add(key)
        else:
            self._last.discard(key)
        if key in self._drawing:
            self.coalesced += 1
            self._drawing[key] = item
            return
        if self._frame_keys and key not in self._frame_keys and key not in self._pending:
            # Another result of the step being drawn (a panel's keys come back from the compute process a
            # fraction of a millisecond apart): it joins the frame, drawn in a turn of its own once the last key is
            # painted, not a frame_ms later (which was most of a Waves step's latency).
            self._frame_keys.add(key)
            self._drawing[key] = item
            if self._waiting is None and not self._flushing:
                self._schedule()
            return
        if key in self._pending:
            self.coalesced += 1
        self._pending[key] = item
        if self._waiting is None:  # (after the paint waited for, the timer starts)
            self._schedule()

    def _schedule(self) -> None:
        """Start the timer, unless it runs, for the frame's next key (``gap_ms``) or the next frame."""
        if not self._timer.isActive():
            self._timer.start(self.gap_ms if self._drawing else self._until_next_frame())

    def _until_next_frame(self) -> int:
        return 0 if not self._since.isValid() else max(0, self.frame_ms - int(self._since.elapsed()))

    def _turn(self) -> None:
        """One turn of the event loop: begin a frame if none is being drawn, then draw its next key."""
        if self._flushing:
            return
        self.frame_begins = not self._drawing
        if self.frame_begins:
            if not self._pending:
                self._frame_keys.clear()  # (its keys dropped meanwhile: that frame is over)
                return
            self._begin_frame()
        self._flushing = True
        try:
            error = timed("draw", self, self._draw_next)
        finally:
            self._flushing = False
            self._next_after_paint()  # the frame's next key, or the next frame, once this key is painted
        if error is not None:
            raise error

    def _next_after_paint(self) -> None:
        """Draw the frame's next key (or begin the next frame) once Qt has painted what this one changed: a scene
        hands its changes to its view through queued calls, and the view's repaint is a posted event of low
        priority, so the next key waits for HOPS posted events of that priority (each posted by the one before,
        after what the last turn posted), then ``gap_ms`` on the timer (the next frame: at least ``frame_ms`` after
        this one began).  A result posted meanwhile waits too."""
        self._waiting = object()
        QCoreApplication.postEvent(self, _Hop(HOPS, self._waiting), Qt.EventPriority.LowEventPriority.value)

    def event(self, e: QEvent) -> bool:  # noqa: D102 - Qt override
        if not isinstance(e, _Hop):
            return super().event(e)
        if e.wait is not self._waiting:
            return True  # a wait that flush() or clear() ended
        if e.left > 1:
            QCoreApplication.postEvent(self, _Hop(e.left - 1, e.wait), Qt.EventPriority.LowEventPriority.value)
            return True
        self._waiting = None
        if not self._drawing:
            self._frame_keys.clear()  # the frame is on screen: what comes now is the next one's
        self.painted.emit()
        if self._drawing or self._pending:
            self._schedule()
        return True

    def _begin_frame(self) -> None:
        self._drawing, self._pending = self._pending, {}
        self._frame_keys = set(self._drawing)
        self._since.start()
        self.frames += 1

    def flush(self) -> None:
        """Draw everything posted now, at once (an export, a test, shutdown; the timer draws a key per turn)."""
        if self._flushing:
            return  # called from inside a draw: what was posted meanwhile keeps its timer
        self._timer.stop()
        self._waiting = None
        if not self._pending and not self._drawing:
            self._frame_keys.clear()  # (a wait for the last key's paint cut short: that frame is over)
            return
        self.frame_begins = bool(self._pending)
        if self._pending:
            held, self._drawing = self._drawing, {}
            self._begin_frame()
            self._drawing = {**held, **self._drawing}  # the frame being drawn first, then what came after
            self._frame_keys = set(self._drawing)
        self._flushing = True
        try:
            error = timed("draw", self, self._draw_frame)
        finally:
            self._flushing = False
            self._frame_keys.clear()  # all drawn, at once
            if self._pending:  # posted during the draw: the next frame
                self._timer.start(self._until_next_frame())
        if error is not None:
            raise error

    def _draw_next(self, pull: bool = True) -> BaseException | None:
        """Draw the frame's next key, and the keys waiting that paint its plot; the first failure is returned
        (the other keys still come).  ``pull``: the next frame's keys may be drawn now (a key posted ``last`` gives
        way to them; a key of the same plot joins); a flush draws what it was given and the keys new to its frame
        that join it meanwhile, not the next frame's."""
        queues = (self._drawing, self._pending) if pull else (self._drawing,)
        queue, key = self._drawing, next(iter(self._drawing))
        if key in self._last:  # anything else waiting comes first
            queue, key = next(((q, k) for q in queues for k in q if k not in self._last), (queue, key))
        todo = [(key, queue.pop(key))]
        plot = self._plot_of(key, todo[0][1])
        if plot is not None:
            for queue in queues:
                todo += [(k, queue.pop(k)) for k in [k for k, item in queue.items() if self._plot_of(k, item) == plot]]
        error: BaseException | None = None
        for k, item in todo:
            self._last.discard(k)
            self.draws += 1
            try:
                self._draw(k, item)
            except Exception as exc:  # noqa: BLE001 - one view's failure must not leave the others undrawn
                error = error or exc
        return error

    def _plot_of(self, key: Hashable, item: Any) -> Hashable | None:
        """``paints(key, item)``, or None (none, or it failed: the key is then drawn alone)."""
        if self._paints is None:
            return None
        try:
            return self._paints(key, item)
        except Exception:  # noqa: BLE001 - grouping is an optimisation: a key it cannot place is drawn alone
            return None

    def _draw_frame(self) -> BaseException | None:
        """Draw what the frame holds, each key once; the first failure is returned, after the others drew."""
        error: BaseException | None = None
        while self._drawing:
            failed = self._draw_next(pull=False)
            error = error or failed
        return error

    def holds(self, which: Callable[[Hashable], bool]) -> bool:
        """True while a key for which ``which(key)`` is true waits (in the next frame or later in this one)."""
        return any(which(k) for k in (*self._drawing, *self._pending))

    def drop(self, which: Callable[[Hashable], bool]) -> None:
        """Forget the waiting items of the keys for which ``which(key)`` is true."""
        for queue in (self._drawing, self._pending):
            for k in [k for k in queue if which(k)]:
                del queue[k]
                self._last.discard(k)

    def clear(self) -> None:
        """Forget what waits (the owner is closing)."""
        self._timer.stop()
        self._waiting = None
        self._pending.clear()
        self._drawing.clear()
        self._frame_keys.clear()
        self._last.clear()
