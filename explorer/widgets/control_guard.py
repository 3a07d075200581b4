"""Controls that do not change by accident, and keep their keys.

The mouse wheel scrolls the sidebar; it changes a value only in the control that has the keyboard.

Scrolling a sidebar with the wheel changed every spin box, slider or list box that passed under the pointer (the
Lab's training steps went from 600 to 400 and nobody saw it).  :class:`WheelGuard`, installed once on the
application, hands a wheel turn over an unfocused control to the scroll area around it (or drops it when there is
none), so a control changes only once it was clicked or tabbed into.  It is installed on each control (never on
the application: an application filter would see every event of every widget).

A focused control also keeps the keys it steps with (Page Up/Down, Home/End, the arrows) where the window has a
shortcut on them: Page Down is the next lecture scene (what a presentation clicker sends), except in a focused
slider or box, which it steps by a page.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
)

GUARDED = (QAbstractSpinBox, QAbstractSlider, QComboBox)


def _guarded(obj: QObject) -> QAbstractSpinBox | QAbstractSlider | QComboBox | None:
    """The control ``obj`` belongs to (a spin box's line edit belongs to its box), if it is one to guard."""
    w: QObject | None = obj
    for _ in range(3):
        if isinstance(w, GUARDED) and not isinstance(w, QScrollBar):
            return w
        w = w.parent() if w is not None else None
    return None


def _scroll_area(widget) -> QAbstractScrollArea | None:
    w = widget.parentWidget()
    while w is not None:
        if isinstance(w, QAbstractScrollArea) and not isinstance(w, QComboBox):
            return w
        w = w.parentWidget()
    return None


#: The keys a focused control steps with, kept from the window's shortcuts.
STEP_KEYS = frozenset((Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_Left,
                       Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down))


class ControlGuard(QObject):
    """The event filter of the guarded controls (see the module's docstring)."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if event.key() in STEP_KEYS and event.modifiers() in (Qt.KeyboardModifier.NoModifier,
                                                                  Qt.KeyboardModifier.KeypadModifier):
                event.accept()  # the control takes the key itself: no shortcut fires
                return True
            return False
        if kind != QEvent.Type.Wheel:
            return False
        control = _guarded(obj)
        if control is None or control.hasFocus():
            return False
        area = _scroll_area(control)
        if area is not None:
            QApplication.sendEvent(area.verticalScrollBar(), event)
        return True


def guard_controls(root, guard: ControlGuard) -> None:
    """Put every spin box, slider and list box under ``root`` behind ``guard``; they take the keyboard by a click or
    Tab, not by a wheel turn (Qt's WheelFocus)."""
    for cls in GUARDED:
        for w in root.findChildren(cls):
            if isinstance(w, QScrollBar):
                continue
            w.installEventFilter(guard)
            if w.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
