"""Show a value at once, then at most every so often: what comes sooner waits, the newest of its key.

While a slider is held, text that follows the state (the live labels of :mod:`.text_pin`, the Waves lanes' λ
labels) changes at every frame, faster than anyone reads it, and each change costs a repaint or an axis laid
out again.  A :class:`Throttle` shows a first value at once and starts its interval; a value offered while the
interval runs waits, and the newest value of each key is shown when it ends (starting another interval) or at
:meth:`~Throttle.flush` (the slider let go).  With ``spread_ms``, the values that waited are shown one at a time,
that far apart, not all in one turn of the event loop: the Waves panel's three live labels and formula strip
changed together every 100 ms of a drag, 2 ms of repaints in the turn that also painted a plot (the drag's
longest turns).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from PySide6.QtCore import QObject, QTimer


class Throttle:
    """Shows values through their ``show`` callables at most once every ``interval_ms`` (see the module)."""

    def __init__(self, interval_ms: int, spread_ms: int = 0, parent: QObject | None = None) -> None:
        """``parent``: the object whose life the timers share (else Python's, which may end first at exit)."""
        self._due: dict[Hashable, tuple[Callable[[Any], None], Any]] = {}
        self._timer = QTimer(parent)
        self._timer.setSingleShot(True)
        self._timer.setInterval(int(interval_ms))
        self._timer.timeout.connect(self._tick)
        #: What an interval's end shows one at a time (the first at once), ``spread_ms`` apart.
        self._spreading: dict[Hashable, tuple[Callable[[Any], None], Any]] = {}
        self._spread = QTimer(parent)
        self._spread.setSingleShot(True)
        self._spread.setInterval(max(0, int(spread_ms)))
        self._spread.timeout.connect(self._show_next)

    def due(self, key: Hashable, default: Any = None) -> Any:
        """The value waiting for ``key`` (``default`` when none waits)."""
        waiting = self._spreading.get(key) or self._due.get(key)
        return default if waiting is None else waiting[1]

    def offer(self, key: Hashable, value: Any, show: Callable[[Any], None]) -> None:
        """``show(value)`` now if no interval runs, else when it ends (unless a newer value of ``key`` comes)."""
        if key in self._spreading:  # its turn is coming: the newer value takes it
            self._spreading[key] = (show, value)
        elif self._timer.isActive():
            self._due[key] = (show, value)
        else:
            self.now(key, value, show)

    def now(self, key: Hashable, value: Any, show: Callable[[Any], None]) -> None:
        """``show(value)`` now, whatever runs (what waited for ``key`` is older), and start an interval."""
        self._due.pop(key, None)
        self._spreading.pop(key, None)
        show(value)
        self._timer.start()

    def drop(self, key: Hashable) -> None:
        """Forget what waits for ``key``."""
        self._due.pop(key, None)
        self._spreading.pop(key, None)

    def flush(self) -> None:
        """Show what waits now, all of it, and end the interval (the next value is shown at once)."""
        self._timer.stop()
        self._spread.stop()
        waiting, self._spreading = self._spreading, {}
        for show, value in waiting.values():
            show(value)
        self._show_due()

    def _tick(self) -> None:
        if not self._due:
            return
        if self._spread.interval() > 0 and len(self._due) > 1:
            self._spreading.update(self._due)
            self._due = {}
            self._show_next()
        else:
            self._show_due()
        self._timer.start()

    def _show_next(self) -> None:
        if not self._spreading:
            return
        key = next(iter(self._spreading))
        show, value = self._spreading.pop(key)
        show(value)
        if self._spreading:
            self._spread.start()

    def _show_due(self) -> None:
        due, self._due = self._due, {}
        for show, value in due.values():
            show(value)
