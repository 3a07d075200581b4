"""The Waves animation's clock: p (or k) advances at the state's speed until anything else is touched."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QElapsedTimer, QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication, QWidget

_USER_INPUT = (QEvent.Type.MouseButtonPress, QEvent.Type.KeyPress, QEvent.Type.Wheel)


class Player(QObject):
    """Ticks about 30 times a second and says how many whole positions to advance (``speed()`` per
    second, fractions carried over); a click, key or wheel anywhere but on ``button`` interrupts it."""

    stepped = Signal(int)
    interrupted = Signal()

    def __init__(self, button: QWidget, speed: Callable[[], float], parent: QObject) -> None:
        super().__init__(parent)
        self.button = button
        self.speed = speed
        self._acc = 0.0
        self._clock = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(33)
        self._timer.timeout.connect(self._on_tick)
        self._filtering = False

    @property
    def active(self) -> bool:
        return self._timer.isActive()

    def start(self) -> bool:
        """Start (True), or nothing if already playing (False)."""
        if self.active:
            return False
        self._acc = 0.0
        self._clock.start()
        self._timer.start()
        app = QApplication.instance()
        if app is not None and not self._filtering:
            app.installEventFilter(self)
            self._filtering = True
        return True

    def stop(self) -> bool:
        """Stop; True if it was playing."""
        was = self.active
        self._timer.stop()
        if self._filtering:
            app = QApplication.instance()
            if app is not None:
                app.removeEventFilter(self)
            self._filtering = False
        return was

    def _on_tick(self) -> None:
        self._acc += self.speed() * self._clock.restart() / 1000.0
        steps = int(self._acc)
        if steps > 0:
            self._acc -= steps
            self.stepped.emit(steps)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        # Any click, key or wheel anywhere stops the animation, except on the play button itself
        # (its own toggle stops it; stopping here too would restart it on release).
        if self.active and event.type() in _USER_INPUT and isinstance(watched, QWidget):
            if watched is not self.button:
                self.interrupted.emit()
        return False
