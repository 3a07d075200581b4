"""The Lesson pane docks beside the stage at every size and stays on one side (issue 27): at 1280×720 it floated as a
420×646 window over the panel tabs and sidebar and jumped between the left and right edges from step to step.  One
window walks every step of every shipped lesson at 1280×720 and 1920×1080, normal and presenter mode."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QScrollBar,
    QTabBar,
    QWidget,
)
from window_fixture import module_window, put_on_screen, settle

from explorer.lesson_dock import visible_rect

SIZES = [(1280, 720), (1920, 1080)]


@pytest.fixture(scope="module")
def window(tmp_path_factory):
    yield from module_window(tmp_path_factory.mktemp("pe-lesson-dock-home"))


def _controls(win) -> list[tuple[str, QRect]]:
    """The panel on screen's sidebar and every control of it, in window coordinates."""
    panel = win.panels[win.current_panel_id()]
    kinds = (QAbstractSlider, QAbstractSpinBox, QAbstractButton, QComboBox, QLineEdit, QTabBar)
    widgets = [b for b in panel.sidebars() if b.isVisible()] + [
        w for w in panel.findChildren(QWidget) if isinstance(w, kinds) and not isinstance(w, QScrollBar)
        and w.isVisible()]
    return [(f"{type(w).__name__} {w.objectName()}", visible_rect(w, win)) for w in widgets]


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_pane_docks_beside_the_stage_on_one_side_for_every_step(qtbot, window, size, presenter):
    win = window
    put_on_screen(win, size, presenter)
    lessons = win.lessons
    pane = lessons.show()
    settle(60)
    dock = lessons.dock
    frame = QRect(0, 0, win.width(), win.height())
    sides, ringed = set(), 0
    for lesson in pane.lessons:
        for index, step in enumerate(lesson.steps):
            pane.set_lesson(lesson, index)
            if lessons._ring is not None:
                lessons._ring.hide()
            if step.scene is not None:
                assert lessons.set_scene(step, lesson)
            if step.scene is not None and step.scene.highlight:
                qtbot.waitUntil(lambda: lessons._ring is not None and lessons._ring.isVisible(), timeout=10000)
            settle(120)  # the scene's panel lays itself out and the pane is placed again
            where = (size, "presenter" if presenter else "normal", lesson.name, index + 1)
            assert not dock.isFloating(), where
            sides.add(win.dockWidgetArea(dock))
            shown = dock.geometry()  # docked: in the window's coordinates
            assert frame.contains(shown), (where, shown.getRect(), frame.getRect())
            assert shown.width() >= 0.2 * win.width() and shown.height() >= 0.6 * win.height(), (where, shown)
            stage = win.docks[win.current_panel_id()].geometry()
            assert stage.right() < shown.left(), (where, stage.getRect(), shown.getRect())  # beside, to its right
            for name, r in _controls(win):
                assert not r.intersects(shown), (where, name, r.getRect(), shown.getRect())
            plot = lessons._target()
            if step.scene is not None and step.scene.highlight:
                assert plot is not None, where
                on_screen = visible_rect(plot, win)
                assert on_screen.height() >= 0.9 * min(plot.height(), 200), (where, on_screen, plot.size())
                assert not on_screen.intersects(shown), (where, on_screen.getRect(), shown.getRect())
                # The ring goes round the part of the plot on screen once the layout settles (it follows the plot as
                # the panel narrows beside the pane), never over the formula strip.
                qtbot.waitUntil(lambda plot=plot: visible_rect(plot, win).adjusted(-2, -2, 2, 2).contains(
                    lessons._ring.geometry()), timeout=5000)
                ring = lessons._ring.geometry()
                strip = win.panels[step.scene.panel].formula
                if strip.isVisible():
                    assert not ring.intersects(QRect(strip.mapTo(win, QPoint(0, 0)), strip.size())), where
                ringed += 1
    assert sides == {Qt.DockWidgetArea.RightDockWidgetArea}, sides
    assert ringed >= 5 and not lessons.placed_by_hand
    win.look.set_presenter(False)
    qtbot.waitUntil(win.service.idle, timeout=60000)
