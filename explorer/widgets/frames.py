"""One paint per frame: results that arrive within a frame are drawn together, the newest of each key once.

The compute service hands results to the UI thread as soon as they are ready; during a drag several
keys (and, when the UI thread was busy, several results of one key) can arrive within one frame.
Drawing each at once does work nobody sees: a result superseded a millisecond later, and one
repaint per result instead of one for all.  :class:`FrameScheduler` sits on the receiving side (the
service's policy is untouched): :meth:`~FrameScheduler.post` keeps the newest item per key and a
single-shot timer draws them all in one go, at once after an idle spell (0 ms: no latency added to
a lone result) or at the next frame boundary (``frame_ms`` after the previous draw) during a burst.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from PySide6.QtCore import QElapsedTimer, QObject, QTimer

from .frame_probe import timed

#: One frame at 60 Hz.
FRAME_MS = 16


class FrameScheduler(QObject):
    """Coalesce items per key and hand the newest of each to ``draw(key, item)`` once per frame.

    Parameters
    ----------
    draw : callable
        Called on the UI thread as ``draw(key, item)`` for each key posted since the last frame, in
        the order the keys were first posted.  Pass a bound method (not a lambda holding Qt objects).
    parent : QObject
        Owner of the scheduler (and of its timer).
    frame_ms : int
        Shortest time between two frames.

    Counters: ``frames`` (draw passes that drew something), ``draws`` (``draw`` calls) and
    ``coalesced`` (items replaced by a newer one of their key before they were drawn).
    """

    def __init__(self, draw: Callable[[Hashable, Any], None], parent: QObject | None = None,
                 frame_ms: int = FRAME_MS) -> None:
        super().__init__(parent)
        self._draw = draw
        self.frame_ms = int(frame_ms)
        self._pending: dict[Hashable, Any] = {}
        self._drawing: dict[Hashable, Any] = {}  # the frame being drawn: what is still to come in it
        self._flushing = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.flush)
        self._since = QElapsedTimer()  # since the last frame was drawn
        self.frames = 0
        self.draws = 0
        self.coalesced = 0

    @property
    def pending(self) -> bool:
        """True while something waits for the next frame (or for its turn in the frame being drawn)."""
        return bool(self._pending) or bool(self._drawing)

    def post(self, key: Hashable, item: Any) -> None:
        """Draw ``item`` at the next frame, unless a newer item of ``key`` arrives first."""
        if key in self._pending:
            self.coalesced += 1
        self._pending[key] = item
        if not self._timer.isActive():
            wait = 0 if not self._since.isValid() else max(0, self.frame_ms - int(self._since.elapsed()))
            self._timer.start(wait)

    def flush(self) -> None:
        """Draw everything posted now (the timer does this; tests and shutdown may call it)."""
        if self._flushing:
            return  # called from inside a draw: what was posted meanwhile keeps its timer
        self._timer.stop()
        if not self._pending:
            return
        self._drawing, self._pending = self._pending, {}
        self._since.start()
        self.frames += 1
        self._flushing = True
        try:
            error = timed("draw", self, self._draw_frame)
        finally:
            self._flushing = False
        if error is not None:
            raise error

    def _draw_frame(self) -> BaseException | None:
        """Draw what the frame holds, each key once; the first failure is returned, after the others drew."""
        error: BaseException | None = None
        while self._drawing:
            key = next(iter(self._drawing))
            item = self._drawing.pop(key)
            self.draws += 1
            try:
                self._draw(key, item)
            except Exception as exc:  # one view's failure must not leave the others undrawn
                error = error or exc
        return error

    def clear(self) -> None:
        """Forget what waits (the owner is closing)."""
        self._timer.stop()
        self._pending.clear()
        self._drawing.clear()
