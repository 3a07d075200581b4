"""The mouse wheel over the sidebar scrolls it and changes no value unless the control under the pointer has the
keyboard (issue 27: scrolling the Lab's sidebar took its training steps from 600 to 400, silently)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QScrollArea


def _wheel(widget, steps: int = -1) -> None:
    pos = QPointF(widget.rect().center())
    ev = QWheelEvent(pos, QPointF(widget.mapToGlobal(pos.toPoint())), QPoint(0, 0), QPoint(0, 120 * steps),
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, ev)


def _sidebar_box(panel):
    scroll = next(s for s in panel.findChildren(QScrollArea) if s.objectName() == "controlSidebar")
    boxes = [b for b in scroll.widget().findChildren(QAbstractSpinBox) if b.isVisible() and b.isEnabled()]
    return scroll, boxes[-1]


def test_the_wheel_over_an_unfocused_box_scrolls_the_sidebar_and_changes_nothing(qtbot, main_window):
    win = main_window
    win.resize(1280, 480)  # the Lab's sidebar scrolls at this height
    win.show_panel("lab")
    panel = win.panels["lab"]
    qtbot.waitUntil(lambda: panel.isVisible())
    scroll, box = _sidebar_box(panel)
    bar = scroll.verticalScrollBar()
    assert bar.maximum() > 0, "the sidebar does not scroll at this size"
    state, value, top = panel.state, box.value(), bar.value()
    _wheel(box, -1)
    assert box.value() == value and panel.state == state, "an unfocused box took the wheel"
    assert bar.value() > top, "the sidebar did not scroll"
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    _wheel(box, +1)
    assert box.value() != value, "a focused box ignores the wheel"
    qtbot.waitUntil(win.service.idle, timeout=60000)


def test_combo_boxes_and_sliders_are_guarded_too(qtbot, main_window):
    win = main_window
    panel = win.panels["waves"]
    combo = next(c for c in panel.findChildren(QComboBox) if c.isVisible() and c.count() > 1)
    index = combo.currentIndex()
    _wheel(combo, -1)
    _wheel(combo, +1)
    assert combo.currentIndex() == index
    from PySide6.QtWidgets import QSlider

    slider = next(s for s in panel.findChildren(QSlider) if s.isVisible())
    value = slider.value()
    _wheel(slider, -1)
    assert slider.value() == value
    qtbot.waitUntil(win.service.idle, timeout=60000)
