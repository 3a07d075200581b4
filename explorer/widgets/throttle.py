"""Show a value at once, then at most every so often: what comes sooner waits, the newest of its key.

While a slider is held, text that follows the state (the live labels of :mod:`.text_pin`, the Waves lanes' λ
labels) changes at every frame, faster than anyone reads it, and each change costs a repaint or an axis laid
out again.  A :class:`Throttle` shows a first value at once and starts its interval; a value offered while the
interval runs waits, and the newest value of each key is shown when it ends (starting another interval) or at
:meth:`~Throttle.flush` (the slider let go).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from PySide6.QtCore import QTimer


class Throttle:
    """Shows values through their ``show`` callables at most once every ``interval_ms`` (see the module)."""

    def __init__(self, interval_ms: int) -> None:
        self._due: dict[Hashable, tuple[Callable[[Any], None], Any]] = {}
        self._timer = QTimer()
        self._timer.setSingleShot(True)
        self._timer.setInterval(int(interval_ms))
        self._timer.timeout.connect(self._tick)

    def due(self, key: Hashable, default: Any = None) -> Any:
        """The value waiting for ``key`` (``default`` when none waits)."""
        waiting = self._due.get(key)
        return default if waiting is None else waiting[1]

    def offer(self, key: Hashable, value: Any, show: Callable[[Any], None]) -> None:
        """``show(value)`` now if no interval runs, else when it ends (unless a newer value of ``key`` comes)."""
        if self._timer.isActive():
            self._due[key] = (show, value)
        else:
            self.now(key, value, show)

    def now(self, key: Hashable, value: Any, show: Callable[[Any], None]) -> None:
        """``show(value)`` now, whatever runs (what waited for ``key`` is older), and start an interval."""
        self._due.pop(key, None)
        show(value)
        self._timer.start()

    def drop(self, key: Hashable) -> None:
        """Forget what waits for ``key``."""
        self._due.pop(key, None)

    def flush(self) -> None:
        """Show what waits now, and end the interval (the next value is shown at once)."""
        self._timer.stop()
        self._show_due()

    def _tick(self) -> None:
        if self._show_due():
            self._timer.start()

    def _show_due(self) -> bool:
        due, self._due = self._due, {}
        for show, value in due.values():
            show(value)
        return bool(due)
