"""The Lesson pane (issue 17 §1): built only when shown, Show me sets the scene and reveals the computed
numbers, keys step through without stealing a slider's arrows, a bad lesson file is refused in one line,
and its visibility is part of the saved layout."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSlider

from explorer.lessons.ui.pane import parse_number, shown_number


def _revealed(qtbot, pane):
    with qtbot.waitSignal(pane.revealed, timeout=30000) as sig:
        pane.show_me()
    return sig.args[0]


def test_pane_is_built_only_when_shown_and_is_in_the_view_menu(qtbot, main_window):
    win = main_window
    assert win.lessons.pane is None and not win.lessons.dock.isVisible()
    lesson = win.acts["actLesson"]
    assert lesson in win.menus["View"].actions() and lesson.shortcut().toString() == "Ctrl+L"
    assert win.acts["actOpenLesson"] in win.menus["File"].actions()
    win.acts["actLesson"].trigger()
    qtbot.waitUntil(lambda: win.lessons.pane is not None and win.lessons.pane.isVisible(), timeout=5000)
    pane = win.lessons.pane
    assert len(pane.lessons) >= 6 and pane.picker.count() == len(pane.lessons)
    assert pane.counter.text() == f"1 / {len(pane.lessons[0].steps)}"
    qtbot.waitUntil(win.service.idle, timeout=60000)  # the warm-up (torch's import) ends before the window closes


def test_show_me_sets_the_scene_and_reveals_the_numbers(qtbot, main_window):
    win = main_window
    qtbot.waitUntil(lambda: win.all_drawn, timeout=60000)
    pane = win.lessons.show()
    pane.set_lesson(next(x for x in pane.lessons if x.name == "order_blindness"), 1)  # the causal mask's leak
    pane.group.button(0).setChecked(True)  # "stays exactly the same": wrong
    result = _revealed(qtbot, pane)
    assert result.name == "swap_causal_leak" and result.passed
    assert win.current_panel_id() == "swap" and win.panels["swap"].state.causal
    assert win.scene_bar.title.text().endswith("A causal mask leaks order")
    assert f"{result.values['between_change']:.3g}" in pane.reveal.text()
    assert pane.verdict.text().startswith("Not quite") and pane.wrong.isVisible()
    assert "holds" in pane.computed.text()
    win.undo.stack.undo()  # the scene was one undoable change
    assert not win.panels["swap"].state.causal
    # Back and forth: a step shown before is revealed again at once, from the kept result.
    pane.go_back()
    assert not pane.reveal.isVisible()
    pane.go_next()
    assert pane.reveal.isVisible() and pane.verdict.text().startswith("Not quite")


def test_number_question_and_saved_lab_result(qtbot, main_window, monkeypatch):
    win = main_window
    # The ring is up for RING_MS from the scene, which is set before the lesson's check has run: a loaded machine
    # could spend that long on the check, and the ring is then gone before the test looks.
    monkeypatch.setattr(win.lessons, "ring_ms", 600_000)
    pane = win.lessons.show()
    waves = next(x for x in pane.lessons if x.name == "waves_and_frequencies")
    pane.set_lesson(waves, 2)
    pane.number.setText("54,000")
    _revealed(qtbot, pane)
    assert pane.verdict.text().startswith("Right") and "54,410" in pane.verdict.text()
    assert win.panels["waves"].state.d_model == 128
    # The step's plot is ringed for a moment (a frame over the window, around the spectrum plot).
    qtbot.waitUntil(lambda: win.lessons._ring is not None and win.lessons._ring.isVisible(),
                    timeout=5000)
    beyond = next(x for x in pane.lessons if x.name == "learned_vs_formula_beyond_training")
    pane.set_lesson(beyond, 1)
    _revealed(qtbot, pane)
    lab = win.panels["lab"]
    assert lab.result is not None and lab.result.config.train_len == 32
    assert "cannot run" in pane.reveal.text()


def test_every_shipped_highlight_names_a_plot_its_scene_shows(qtbot, main_window):
    """A ringed plot is on screen; a step's plot in focus is the stage's one plot (issue 27: the Beyond tab's six
    plots got 85 px each at 720p presenter beside the pane)."""
    from explorer.export.slide import named_plots

    win = main_window
    qtbot.waitUntil(lambda: win.panels["waves"].has_drawn, timeout=60000)
    pane = win.lessons.show()
    ringed, focused = [], []
    for lesson in pane.lessons:
        for step in lesson.steps:
            if step.scene is None or not (step.scene.highlight or step.scene.focus):
                continue
            assert win.lessons.set_scene(step, lesson)
            qtbot.wait(30)
            shown = {name for name, plot in named_plots(win.panels[step.scene.panel]) if plot.isVisible()}
            if step.scene.focus:
                focused.append(step.title)
                focus = win.stage.plot()
                assert win.stage.now().plot == step.scene.focus and focus is not None and focus.isVisible(), (
                    lesson.name, step.title, step.scene.focus)
            if step.scene.highlight:  # a plot in focus is the one on stage (checked above)
                assert step.scene.focus or step.scene.highlight in shown, (lesson.name, step.title, sorted(shown))
                ringed.append(step.title)
    win.session.leave_scene()
    win.stage.set_focus_plot(None)
    assert len(ringed) >= 5 and len(focused) >= 3
    qtbot.waitUntil(win.service.idle, timeout=60000)


def test_arrow_keys_step_through_but_leave_a_focused_slider_alone(qtbot, main_window):
    win = main_window
    qtbot.waitUntil(lambda: win.panels["waves"].has_drawn, timeout=60000)
    pane = win.lessons.show()
    pane.set_lesson(pane.lessons[1], 0)
    pane.setFocus()
    qtbot.keyClick(pane, Qt.Key.Key_Right)
    assert pane.index == 1
    qtbot.keyClick(pane.next_button, Qt.Key.Key_Right)  # a button does not use the arrows: they reach the pane
    assert pane.index == 2
    qtbot.keyClick(pane, Qt.Key.Key_Left)
    assert pane.index == 1
    win.show_panel("waves")
    slider = next(s for s in win.panels["waves"].findChildren(QAbstractSlider) if s.isVisible()
                  and s.focusPolicy() & Qt.FocusPolicy.StrongFocus)
    before = slider.value()
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    assert pane.index == 1 and slider.value() != before
    win.acts["actLessonNext"].trigger()  # Alt+→ anywhere in the window
    assert pane.index == 2
    win.acts["actLessonBack"].trigger()
    assert pane.index == 1


def test_a_bad_lesson_file_is_refused_in_one_line_and_a_good_one_opens(qtbot, main_window, tmp_path):
    win = main_window
    errors = []
    win.dialogs.show_error = lambda title, message: errors.append(message)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "pe-explorer-lesson", "version": 1, "title": "T", "steps": [{"n": ' + "9" * 400 + "}]}")
    assert not win.lessons.open_file(str(bad))
    assert errors and errors[0].split("\n")[0].startswith("bad.json: ") and "digits" in errors[0]
    good = tmp_path / "mine.json"
    good.write_text(json.dumps({"format": "pe-explorer-lesson", "version": 1, "title": "Mine", "steps": [
        {"title": "Fast", "text": "Pair 0.", "check": {"name": "fastest_pair"}, "reveal": "{wavelength_first:.2f}"}]}))
    assert win.lessons.open_file(str(good))
    pane = win.lessons.pane
    assert pane.lesson.title == "Mine" and pane.picker.currentText() == "Mine"
    _revealed(qtbot, pane)
    assert pane.reveal.text() == "6.28"


def test_a_dock_placed_by_hand_stays_where_it_was_put(qtbot, main_window):
    from PySide6.QtCore import QSize

    win = main_window
    win.screen_limit = QSize(1920, 1080)
    win.fit_to_screen()
    pane = win.lessons.show()
    qtbot.waitUntil(win.lessons.dock.isVisible, timeout=5000)
    assert not win.lessons.dock.isFloating()  # wide enough: beside the panels
    win.lessons.dock.setFloating(True)  # as a drag off the dock area does
    pane.go_next()
    qtbot.wait(50)
    assert win.lessons.dock.isFloating()
    win.reset_layout()
    win.lessons.show()
    qtbot.wait(50)
    assert not win.lessons.dock.isFloating()


def test_visibility_is_part_of_the_saved_layout(qtbot, main_window):
    from explorer.main_window import LAYOUT_VERSION

    win = main_window
    win.lessons.show()
    qtbot.waitUntil(win.lessons.dock.isVisible, timeout=5000)
    state = win.saveState(LAYOUT_VERSION)
    win.lessons.dock.hide()
    assert win.restoreState(state, LAYOUT_VERSION)
    qtbot.waitUntil(win.lessons.dock.isVisible, timeout=5000)


@pytest.mark.parametrize(("text", "value"), [("54,410", 54410.0), ("5.4e4", 54000.0), ("13 %", 0.13),
                                             ("−2", -2.0), ("nan", None), ("abc", None), ("1,2", None)])
def test_typed_predictions(text, value):
    assert parse_number(text) == value


def test_numbers_read_like_a_student_writes_them():
    assert [shown_number(v) for v in (54410.1, 6.283185, 2.2e-16, 0, 131071, "cannot run")] == [
        "54,410", "6.283", "2.20e-16", "0", "131,071", "cannot run"]


def test_answer_boxes_keep_the_presenter_font_on_every_step(qtbot, main_window):
    """The coloured boxes kept presenter size on the first step only (a style sheet set on a later step
    dropped the font the pane gave them); "no prediction" is neither right nor wrong: a neutral box."""
    win = main_window
    win.look.set_presenter(True)
    pane = win.lessons.show()
    pane.set_lesson(pane.lessons[1], 0)
    kinds = []
    for index in (0, 1, 2):
        win.lessons.show(pane.lessons[1], index)
        pane.go(index)
        _revealed(qtbot, pane)
        size = pane.reveal.font().pointSizeF()
        for box in (pane.verdict, pane.wrong):
            if box.isVisible():
                assert box.font().pointSizeF() == pytest.approx(size), (index, box.objectName())
                assert box.fontInfo().pointSizeF() == pytest.approx(pane.reveal.fontInfo().pointSizeF(), rel=0.05)
        assert pane.verdict.text().startswith("No prediction")
        kinds.append(pane.verdict.property("kind"))
    assert kinds == ["none"] * 3
    win.look.set_presenter(False)
    qtbot.waitUntil(win.service.idle, timeout=60000)
