"""Lecture scenes: leaving one clears its name and notes; the first-start welcome and the tour (issue 14)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint, QRect, Qt

from explorer import presets as pr
from explorer.settings import config_dir, load_settings
from explorer.shell.session import DEFAULT_TITLE


@pytest.fixture
def win(qtbot):
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    w = MainWindow(restore_layout=False)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: w.all_drawn, timeout=60000)
    yield w
    w.close()


def _in_scene(w, preset) -> bool:
    return w.session.scene is preset and w.windowTitle().endswith(preset.title) and w.scene_bar.isVisible()


def _left(w) -> bool:
    return w.session.scene is None and w.windowTitle() == DEFAULT_TITLE and not w.scene_bar.isVisible()


def test_a_reset_leaves_the_scene(win):
    alibi = pr.find_preset("rope_vs_alibi")
    assert win.session.apply_preset(alibi) and _in_scene(win, alibi)
    win.session.reset_current_panel()
    assert _left(win)
    assert win.session.apply_preset(alibi) and _in_scene(win, alibi)
    win.session.reset_all_panels()
    assert _left(win)


def test_bringing_another_panel_up_by_hand_leaves_the_scene(win, qtbot):
    scene = pr.find_preset("stretching_rope_to_long_contexts")
    assert win.session.apply_preset(scene) and _in_scene(win, scene)
    assert win.current_panel_id() == "schemes"
    win.show_panel("schemes")  # the scene's own panel: still in the scene
    assert _in_scene(win, scene)
    win.show_panel("lab")
    assert _left(win)
    assert "Left “Stretching RoPE" in win.statusBar().currentMessage()


def test_every_scene_after_every_other_names_only_itself(win):
    scenes = pr.builtin_presets()
    for first in scenes:
        for second in scenes:
            assert win.session.apply_preset(first) and _in_scene(win, first)
            assert win.session.apply_preset(second) and _in_scene(win, second), (first.title, second.title)
            if second.panel:
                assert win.current_panel_id() == second.panel


def test_a_session_without_a_scene_restores_without_a_name(qtbot):
    """It used to come back as "PE Explorer — session" (the file's name) after every restart."""
    from explorer.main_window import MainWindow

    w1 = MainWindow(restore_layout=True)
    qtbot.addWidget(w1)
    w1.session.apply_preset(pr.find_preset("rope_vs_alibi"))
    w1.session.reset_all_panels()  # leaves the scene
    w1.close()
    saved = json.loads((config_dir() / "session.json").read_text())
    assert "title" not in saved
    w2 = MainWindow(restore_layout=True)
    qtbot.addWidget(w2)
    try:
        assert w2.windowTitle() == DEFAULT_TITLE and w2.session.scene is None
    finally:
        w2.close()


# -- the welcome ---------------------------------------------------------------------------------
def test_the_welcome_opens_on_the_first_start_only_and_a_scene_from_it_loads(win, qtbot):
    assert win.welcome.offer()
    dlg = win.welcome.dialog
    assert dlg.isVisible() and not dlg.isModal()
    scenes = pr.builtin_presets()
    assert [b.text() for b in dlg.scene_buttons] == [f"{n}. {p.title}" for n, p in enumerate(scenes, 1)]
    qtbot.mouseClick(dlg.scene_buttons[4], Qt.MouseButton.LeftButton)
    assert not dlg.isVisible()
    assert win.session.scene is not None and win.session.scene.title == scenes[4].title
    assert load_settings()["welcome/done"] is True
    assert not win.welcome.offer(), "remembered: not offered again"


def test_show_again_keeps_the_welcome(win, qtbot):
    assert win.welcome.offer()
    win.welcome.dialog.again.setChecked(True)
    qtbot.mouseClick(win.welcome.dialog.explore_button, Qt.MouseButton.LeftButton)
    assert load_settings()["welcome/done"] is False
    assert win.welcome.offer()
    win.welcome.dialog.reject()  # closed with the window's button: remembered as seen
    assert load_settings()["welcome/done"] is True


def test_no_welcome_when_the_settings_cannot_be_kept(win, monkeypatch):
    monkeypatch.setattr(win, "settings_problem", "a file where the folder should be")
    assert not win.welcome.offer()
    assert win.welcome.dialog is None


def test_the_help_menu_opens_it_again(win):
    assert win.acts["actWelcome"] in win.menus["Help"].actions()
    win.acts["actWelcome"].trigger()
    assert win.welcome.dialog is not None and win.welcome.dialog.isVisible()
    win.welcome.dialog.reject()


def test_the_tour_points_at_real_parts_of_the_window_inside_it(win, qtbot):
    from explorer.shell.welcome import TOUR

    assert win.welcome.offer()
    qtbot.mouseClick(win.welcome.dialog.tour_button, Qt.MouseButton.LeftButton)
    tour = win.welcome.tour
    assert tour is not None
    inside = win.rect()
    for n in range(len(TOUR)):
        assert tour.index == n
        rect = tour.target_rect()
        assert rect is not None and not rect.isEmpty(), TOUR[n].title
        assert tour.ring.isVisible()
        box = QRect(tour.box.mapTo(win, QPoint(0, 0)), tour.box.size())
        assert inside.contains(box), (TOUR[n].title, box, inside)
        assert not box.intersects(rect) or rect.width() * rect.height() > inside.width() * inside.height() // 3, (
            "the text box sits beside what it points at, unless that fills the window")
        if n < len(TOUR) - 1:
            qtbot.mouseClick(tour.next, Qt.MouseButton.LeftButton)
    assert not tour.next.isVisible()
    qtbot.mouseClick(tour.back, Qt.MouseButton.LeftButton)
    assert tour.index == len(TOUR) - 2
    qtbot.keyClick(win, Qt.Key.Key_Escape)
    assert win.welcome.tour is None and not tour.box.isVisible()


# -- views -----------------------------------------------------------------------------------------
def test_a_scene_opens_its_tab_and_a_session_keeps_the_tab(qtbot):
    """Scene 3 ("relative position as rotation") used to leave the Waves panel on its first tab."""
    from explorer.main_window import MainWindow

    w1 = MainWindow(restore_layout=True)
    qtbot.addWidget(w1)
    waves = w1.panels["waves"]
    assert waves.current_view() == "table"
    scene = pr.find_preset("relative_position_as_rotation")
    assert scene.view == "relative"
    assert w1.session.apply_preset(scene)
    assert w1.current_panel_id() == "waves" and waves.current_view() == "relative"
    assert waves.tabs.tabText(waves.tabs.currentIndex()) == "Relative position"
    w1.close()
    assert json.loads((config_dir() / "session.json").read_text())["view"] == "relative"
    w2 = MainWindow(restore_layout=True)
    qtbot.addWidget(w2)
    try:
        assert w2.panels["waves"].current_view() == "relative"
    finally:
        w2.close()


@pytest.mark.parametrize("doc, why", [
    ({"view": "relative"}, "needs a 'panel'"),
    ({"panel": "swap", "view": "relative"}, "needs a 'panel' with views"),
    ({"panel": "waves", "view": "matrices"}, "must be one of table, relative, beyond"),
    ({"panel": "waves", "view": ["x"] * 3}, "got a list"),
])
def test_a_view_the_panel_does_not_have_is_refused_in_one_line(doc, why):
    text = json.dumps({"version": 2, "panels": {}, **doc})
    with pytest.raises(pr.PresetError, match=why.replace("(", r"\(").replace("'", "'")) as err:
        pr.parse_preset(text)
    assert "\n" not in str(err.value)


def test_closing_the_window_closes_the_welcome_so_the_app_can_quit(qtbot):
    """A welcome left open kept the app running after SIGTERM closed its window (CI: still running 30 s)."""
    from explorer.main_window import MainWindow

    w = MainWindow(restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    assert w.welcome.offer()
    dlg = w.welcome.dialog
    w.welcome.start_tour()
    w.close()
    assert not dlg.isVisible() and w.welcome.dialog is None and w.welcome.tour is None
    from PySide6.QtWidgets import QApplication

    assert not [t for t in QApplication.topLevelWidgets() if t.isVisible() and t.objectName() == "welcomeDialog"]


def test_scene_notes_are_one_line_until_clicked(win, qtbot):
    """At 1280 × 720 in presenter mode the notes took four lines and pushed the window past the screen."""
    win.look.set_presenter(True)
    try:
        scene = pr.find_preset("stretching_rope_to_long_contexts")
        assert win.session.apply_preset(scene)
        notes = win.scene_bar.notes
        assert not notes.expanded and notes.notes() == scene.description
        one_line = notes.fontMetrics().height() + notes.contentsMargins().top() + notes.contentsMargins().bottom()
        assert notes.height() <= one_line + 4 and notes.text().endswith("…")
        assert scene.description[:30] in notes.toolTip()
        qtbot.mouseClick(notes, Qt.MouseButton.LeftButton)
        assert notes.expanded and notes.text() == scene.description
        qtbot.mouseClick(notes, Qt.MouseButton.LeftButton)
        assert not notes.expanded
    finally:
        win.look.set_presenter(False)


# -- layouts ---------------------------------------------------------------------------------------
def test_a_scene_sets_its_splitters_and_axis_ranges_after_its_plots_are_drawn(win, qtbot):
    from PySide6.QtWidgets import QSplitter

    doc = {"title": "Zoomed", "description": "the first 64 distances", "panel": "schemes", "view": "distance",
           "layout": {"ranges": {"distance-top": {"x": [0, 64], "y": [-3, 1.5]}}},
           "version": 2, "panels": {"schemes": {"schemes": ["rope", "alibi"], "view": "distance", "l_eval": 2048}}}
    scene = pr.parse_preset(json.dumps(doc))
    assert win.session.apply_preset(scene)
    plot = dict(__import__("explorer.export.slide", fromlist=["named_plots"]).named_plots(win.panels["schemes"]))[
        "distance-top"]
    qtbot.waitUntil(lambda: win.session._pending_ranges is None, timeout=30000)
    (x0, x1), (y0, y1) = plot.getPlotItem().viewRange()
    assert (x0, x1) == pytest.approx((0, 64)) and (y0, y1) == pytest.approx((-3, 1.5))
    # Scene 3 gives the rotation three fifths of the tab.
    assert win.session.apply_preset(pr.find_preset("relative_position_as_rotation"))
    split = win.panels["waves"].findChild(QSplitter, "wavesRelativeSplit")
    a, b = split.sizes()
    assert a / (a + b) == pytest.approx(0.6, abs=0.03)


def test_a_layout_name_the_panel_lacks_is_said_not_fatal(win):
    doc = {"title": "Odd", "panel": "waves", "layout": {"splitters": {"noSuchSplit": [1, 1]},
                                                          "ranges": {"no-such-plot": {"x": [0, 1]}}},
           "version": 2, "panels": {}}
    assert win.session.apply_preset(pr.parse_preset(json.dumps(doc)))
    assert "noSuchSplit" in win.statusBar().currentMessage() or "no-such-plot" in win.statusBar().currentMessage()


@pytest.mark.parametrize("layout, why", [
    ({"splitters": {"a": [1]}}, "2 to 8 shares"),
    ({"splitters": {"a": [1, -1]}}, "2 to 8 shares"),
    ({"splitters": {"a": [1, float("nan")]}}, "not valid JSON|NaN|2 to 8 shares"),
    ({"ranges": {"p": {"x": [2, 1]}}}, "lo < hi"),
    ({"ranges": {"p": {"z": [0, 1]}}}, "lo < hi"),
    ({"ranges": {"p" * 61: {"x": [0, 1]}}}, "longer than 60"),
    ({"zoom": 3}, "'splitters', 'ranges' and/or 'focus'"),
    ([1, 2], "'splitters', 'ranges' and/or 'focus'"),
])
def test_a_bad_layout_is_refused_in_one_line(layout, why):
    text = json.dumps({"version": 2, "panels": {}, "panel": "waves", "layout": layout}, allow_nan=True)
    with pytest.raises(pr.PresetError) as err:
        pr.parse_preset(text)
    import re

    assert re.search(why, str(err.value)) and "\n" not in str(err.value), str(err.value)
