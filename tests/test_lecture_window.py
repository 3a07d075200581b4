"""The main window's lecture features: undo/redo, presets, sessions, shortcuts, presenter mode, themes."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import time
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QAbstractSlider, QApplication, QScrollBar

from explorer import presets as pr
from explorer.state import AppState

DOCS = Path(__file__).resolve().parents[1] / "docs" / "keyboard.md"


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory):
    """One window for the module (starting one costs seconds); each test gets it reset."""
    import os

    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    old = os.environ.get("PE_EXPLORER_HOME")
    os.environ["PE_EXPLORER_HOME"] = str(tmp_path_factory.mktemp("win-home"))
    configure_pyqtgraph()
    w = MainWindow(restore_layout=False)
    w.show()
    yield w
    w.close()
    w.service.worker_thread.join(60)  # a job still running (torch's first import) ends first
    assert not w.service.worker_thread.is_alive()
    if old is not None:
        os.environ["PE_EXPLORER_HOME"] = old


@pytest.fixture
def window(win, qtbot):
    qtbot.waitUntil(lambda: win.all_drawn, timeout=60000)
    win.look.set_full_screen(False)
    win.look.set_presenter(False)
    win.look.set_base_theme("light")
    win.look.set_zoom(1.0)
    win.undo.set_states({pid: p.state_cls() for pid, p in win.panels.items()}, "reset for a test")
    win.undo.clear()
    win.session.leave_scene()
    win.show_panel("waves")
    win.activateWindow()
    qtbot.waitUntil(lambda: all(p.has_drawn for p in win.panels.values()), timeout=30000)
    errors = []
    win.dialogs.show_error = lambda title, message: errors.append(message)
    win.errors = errors
    return win


def _key(qtbot, window, seq: str) -> None:
    ks = QKeySequence(seq)[0]
    qtbot.keyClick(window, ks.key(), ks.keyboardModifiers())


# -- undo / redo ---------------------------------------------------------------------------------------
def test_undo_redo_of_parameter_changes(qtbot, window):
    panel = window.panels["waves"]
    default = panel.state
    a = dataclasses.replace(default, base=500000.0)
    b = dataclasses.replace(a, d_model=256)
    panel.set_state(a)
    qtbot.wait(700)  # further apart than a drag: two undo steps
    panel.set_state(b)
    assert window.undo.stack.count() == 2
    _key(qtbot, window, "Ctrl+Z")
    assert panel.state == a
    _key(qtbot, window, "Ctrl+Z")
    assert panel.state == default
    _key(qtbot, window, "Ctrl+Shift+Z")
    assert panel.state == a
    _key(qtbot, window, "Ctrl+Y")
    assert panel.state == b
    assert not window.undo.stack.canRedo()


def test_a_slider_drag_is_one_undo_step(qtbot, window):
    panel = window.panels["waves"]
    start = panel.state
    sliders = [
        s
        for s in panel.findChildren(QAbstractSlider)
        if not isinstance(s, QScrollBar) and s.isEnabled() and s.isVisible()
    ]
    slider = None
    for s in sliders:  # the first visible slider that changes the panel's state
        before = panel.state
        s.setValue(s.value() + s.singleStep() if s.value() < s.maximum() else s.value() - s.singleStep())
        if panel.state != before:
            slider = s
            break
    assert slider is not None, "no slider of the Waves panel changes its state"
    window.undo.stack.undo()
    window.undo.clear()
    start = panel.state
    slider.setSliderDown(True)
    for k in range(1, 25):
        slider.setValue(min(slider.minimum() + k * max(1, slider.singleStep()), slider.maximum()))
        qtbot.wait(5)
    slider.setSliderDown(False)
    assert panel.state != start
    assert window.undo.stack.count() == 1
    window.undo.stack.undo()
    assert panel.state == start


def test_the_undo_action_is_renamed_at_most_every_interval_during_a_drag(qtbot, window):
    """A held slider's steps merge into one command renamed at every step; the action follows at most every
    EVERY_MS (each rename updated the Edit menu and the toolbar's button), and names the last value then."""
    from explorer.widgets.plain import plain_tip
    from explorer.widgets.text_pin import EVERY_MS

    panel = window.panels["waves"]
    act = window.acts["actUndo"]
    window.undo.clear()
    qtbot.wait(EVERY_MS + 20)
    names = []
    act.changed.connect(lambda: names.append(act.text()) if not names or names[-1] != act.text() else None)
    from explorer.bench.measure import main_slider

    slider = main_slider(panel)  # base
    start = time.monotonic()
    slider.setSliderDown(True)
    for k in range(1, 31):
        slider.setValue(slider.minimum() + (slider.maximum() - slider.minimum()) * k // 40)
        QApplication.processEvents()
    slider.setSliderDown(False)
    intervals = (time.monotonic() - start) * 1000 / EVERY_MS
    assert window.undo.stack.count() == 1
    final = window.undo.stack.undoText()
    # One rename at the first step, then at most one per interval; before, all 30 steps renamed it.
    assert 1 <= len(names) <= 1 + math.ceil(intervals), (names, intervals)
    if intervals < 20:  # a very slow machine renames it nearly every step anyway
        assert len(names) < 30, names
    qtbot.waitUntil(lambda: act.text() == f"&Undo {final}", timeout=EVERY_MS * 5)
    assert act.toolTip() == plain_tip(f"Undo {final}") and act.isEnabled()
    window.undo.stack.undo()
    qtbot.waitUntil(lambda: not act.isEnabled() and act.text() == "&Undo", timeout=EVERY_MS * 5)
    assert window.acts["actRedo"].isEnabled() and window.acts["actRedo"].text() == f"&Redo {final}"


def test_undo_and_redo_are_in_the_edit_menu_and_toolbar(window):
    edit = window.menus["Edit"].actions()
    assert window.acts["actUndo"] in edit and window.acts["actRedo"] in edit
    names = {a.objectName() for a in window.toolbar.actions()}
    assert {"toolbarUndo", "toolbarRedo", "actPresenter", "actResetPanel"} <= names


# -- reset panel -----------------------------------------------------------------------------------------
def test_reset_panel_restores_defaults_and_is_undoable(qtbot, window):
    panel = window.panels["schemes"]
    window.show_panel("schemes")
    changed = dataclasses.replace(panel.state, factor=16.0, scaling="ntk")
    panel.set_state(changed)
    panel.setFocus()
    _key(qtbot, window, "Ctrl+R")
    assert panel.state == panel.state_cls()
    assert window.panels["waves"].state == window.panels["waves"].state_cls()
    window.undo.stack.undo()
    assert panel.state == changed


# -- presets ----------------------------------------------------------------------------------------------
def test_presets_menu_lists_the_six_scenes_and_loads_one_in_one_undo_step(qtbot, window):
    window._fill_presets_menu()
    texts = [a.text() for a in window.menus["Presets"].actions()]
    scenes = pr.builtin_presets()
    for n, p in enumerate(scenes, start=1):
        assert f"&{n}  {p.title}" in texts
    act = next(a for a in window.menus["Presets"].actions() if a.text().endswith("RoPE vs ALiBi"))
    before = window.session.app_state()
    act.trigger()
    preset = pr.find_preset("rope_vs_alibi")
    for pid in window.panels:
        assert window.panels[pid].state == preset.state.get(pid)
    assert window.scene_bar.isVisible() and "ALiBi" in window.scene_bar.notes.notes()
    assert window.current_panel_id() == "schemes"
    assert window.undo.stack.count() == 1
    window.undo.stack.undo()
    assert window.session.app_state() == before


def test_malformed_preset_changes_nothing(tmp_path, window):
    panel = window.panels["waves"]
    panel.set_state(dataclasses.replace(panel.state, base=123456.0))
    before = window.session.app_state()
    count = window.undo.stack.count()
    good = json.loads(pr.preset_json(AppState()))
    cases = {
        "truncated.json": pr.preset_json(AppState())[:300],
        "version.json": json.dumps({**good, "version": 7}),
        "range.json": json.dumps({**good, "panels": {**good["panels"], "schemes": {"factor": 1000}}}),
        "unknown.json": json.dumps({**good, "panels": {**good["panels"], "waves": {"colour": 1}}}),
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        assert not window.session.load_preset_file(tmp_path / name)
        assert window.session.app_state() == before, name
        assert window.undo.stack.count() == count
    assert len(window.errors) == len(cases)
    assert all("Nothing was changed" in m for m in window.errors)
    assert "unsupported state version 7" in window.errors[1]
    assert "factor must be at most 64" in window.errors[2]


def test_a_panel_that_fails_to_apply_rolls_every_panel_back(window, monkeypatch):
    before = window.session.app_state()
    preset = pr.find_preset("stretching_rope_to_long_contexts")
    panel = window.panels["schemes"]

    def broken(state, **kw):
        raise RuntimeError("widget exploded")

    monkeypatch.setattr(panel, "set_state", broken)
    assert not window.session.apply_preset(preset)
    monkeypatch.undo()
    assert window.session.app_state() == before
    assert "widget exploded" in window.errors[-1] and "Nothing was changed" in window.errors[-1]


def test_save_and_load_my_preset(window):
    panel = window.panels["waves"]
    panel.set_state(dataclasses.replace(panel.state, base=777.0))
    window.dialogs.ask_preset_details = lambda _title="": ("Week 5", "my notes")
    assert window.session.save_preset_dialog()
    saved = window.session.app_state()
    window.session.reset_all_panels()
    window._fill_presets_menu()
    act = next(a for a in window.menus["Presets"].actions() if a.text() == "Week 5")
    act.trigger()
    assert window.session.app_state() == saved and window.scene_bar.notes.notes() == "my notes"


def test_save_preset_to_a_missing_folder_is_a_clear_error(tmp_path, window):
    window.dialogs.ask_save_path = lambda _name: str(tmp_path / "none" / "p.json")
    assert not window.session.save_preset_file()
    assert "does not exist" in window.errors[-1]
    assert not (tmp_path / "none").exists()


# -- the last session ---------------------------------------------------------------------------------
def test_last_session_is_restored_at_start(qtbot):
    from explorer.main_window import MainWindow

    w1 = MainWindow(restore_layout=True)  # only a run that loaded the session saves it
    qtbot.addWidget(w1)
    preset = pr.find_preset("waves_and_frequencies")
    w1.session.apply_preset(preset)
    w1.look.set_base_theme("dark")
    w1.panels["swap"].set_state(w1.panels["swap"].state.clamped(sentence="the cat sat", swap_i=0, swap_j=2))
    expected = w1.session.app_state()
    w1.close()
    w2 = MainWindow(restore_layout=True)
    qtbot.addWidget(w2)
    try:
        assert w2.session.app_state() == expected
        assert w2.undo.stack.count() == 0  # a restored session is not an undo step
        assert w2.look.theme.dark
        assert w2.windowTitle().endswith(preset.title)
    finally:
        w2.close()


def test_corrupt_session_starts_with_defaults(qtbot):
    from explorer.main_window import MainWindow
    from explorer.settings import config_dir

    (config_dir() / "session.json").write_text('{"version": 1, "panels": {"waves": {"base": -1}}}')
    w = MainWindow(restore_layout=True)
    qtbot.addWidget(w)
    try:
        assert w.session.app_state() == AppState()
        assert "Last session not restored" in w.statusBar().currentMessage()
    finally:
        w.close()


# -- presenter mode, themes, zoom, full screen -------------------------------------------------------------
def _look(window):
    panel = window.panels["waves"]
    view = next(v for v in panel.plots() if v.getPlotItem().listDataItems())
    axis = view.getPlotItem().getAxis("bottom")
    curve = view.getPlotItem().listDataItems()[0]
    return {
        "font": window.font().pointSizeF(),
        "panel_font": panel.font().pointSizeF(),
        "tick": axis.style["tickFont"].pointSizeF(),
        "axis_pen": axis.pen().widthF(),
        "curve": pg.mkPen(curve.opts["pen"]).widthF(),
        "fg": axis.pen().color().name(),
        "formula": panel.formula.styleSheet(),
    }


def test_f5_toggles_presenter_mode(qtbot, window):
    normal = _look(window)
    _key(qtbot, window, "F5")
    assert window.look.presenter and window.acts["actPresenter"].isChecked()
    big = _look(window)
    assert big["font"] >= 1.4 * normal["font"] and big["panel_font"] == big["font"]
    assert big["tick"] >= 1.4 * normal["tick"]
    assert big["curve"] >= 2 * normal["curve"] and big["axis_pen"] >= 2 * normal["axis_pen"]
    assert big["fg"] == "#000000"  # high contrast
    assert "font-weight: 600" in big["formula"]
    _key(qtbot, window, "F5")
    assert not window.look.presenter and _look(window) == normal


def test_presenter_toolbar_toggle_and_dark_high_contrast(window):
    window.acts["actDark"].trigger()
    assert window.look.theme.dark
    window.acts["actPresenter"].trigger()
    assert window.look.theme.high_contrast and window.look.theme.dark
    view = window.panels["waves"].plots()[0]
    assert view.backgroundBrush().color().name() == "#000000"
    window.acts["actPresenter"].trigger()
    window.acts["actDark"].trigger()
    assert window.look.theme.name == "light"
    assert view.backgroundBrush().color().name() == "#ffffff"


def test_text_zoom_keys(qtbot, window):
    base = window.font().pointSizeF()
    _key(qtbot, window, "Ctrl+=")
    assert window.look.zoom > 1 and window.font().pointSizeF() > base
    _key(qtbot, window, "Ctrl+-")
    _key(qtbot, window, "Ctrl+-")
    assert window.look.zoom < 1 and window.font().pointSizeF() < base
    _key(qtbot, window, "Ctrl+0")
    assert window.look.zoom == 1 and window.font().pointSizeF() == base


def test_f11_full_screen(qtbot, window):
    _key(qtbot, window, "F11")
    assert window.windowState() & Qt.WindowState.WindowFullScreen
    _key(qtbot, window, "Esc")
    assert not window.windowState() & Qt.WindowState.WindowFullScreen


def test_grey_scale_safe_maps_switch_the_colour_bars(window):
    bars = [
        i
        for p in window.panels.values()
        for v in p.plots()
        for i in v.scene().items()
        if isinstance(i, pg.ColorBarItem)
    ]
    assert bars
    names = [b.colorMap().name for b in bars]
    window.acts["actSafeMaps"].trigger()
    assert "CET-D1A" not in [b.colorMap().name for b in bars]
    window.acts["actSafeMaps"].trigger()
    assert [b.colorMap().name for b in bars] == names


# -- the keyboard ----------------------------------------------------------------------------------------
def test_every_slider_is_reachable_and_steppable_from_the_keyboard(qtbot, window):
    seen = 0
    for pid, panel in window.panels.items():
        window.show_panel(pid)
        qtbot.wait(20)
        for s in panel.findChildren(QAbstractSlider):
            if isinstance(s, QScrollBar):
                continue
            target = s.focusProxy() or s  # a labelled slider hands focus to its inner slider
            name = s.objectName() or type(s).__name__
            assert target.focusPolicy() & Qt.FocusPolicy.TabFocus, f"{pid}: {name} is not reachable with Tab"
            if not (s.isEnabled() and s.isVisible()) or s.minimum() == s.maximum():
                continue
            seen += 1
            before = s.value()
            key = Qt.Key.Key_Right if before < s.maximum() else Qt.Key.Key_Left
            s.setFocus()
            qtbot.keyClick(target, key)
            assert s.value() != before, f"{pid}: the arrow keys do not step {name}"
    assert seen >= 5


def test_shortcuts_dialog_lists_every_shortcut(qtbot, window):
    _key(qtbot, window, "F1")
    dlg = window.help.shortcuts_dialog
    qtbot.waitUntil(dlg.isVisible)
    from PySide6.QtWidgets import QTableWidget

    table = dlg.findChild(QTableWidget, "shortcutsTable")
    cells = {table.item(r, 2).text() for r in range(table.rowCount())}
    joined = " ".join(cells)
    actions = _shortcut_actions(window)
    assert len(actions) >= 20
    for act in actions:
        for seq in act.shortcuts():
            assert seq.toString(QKeySequence.SequenceFormat.NativeText) in joined, act.text()
    dlg.close()


def _shortcut_actions(window) -> list:
    """Every action of the window with a keyboard shortcut, wherever it was made."""
    from PySide6.QtGui import QAction

    return [a for a in window.findChildren(QAction) if a.shortcuts()]


def test_docs_list_every_shortcut(window):
    text = DOCS.read_text(encoding="utf-8")
    table = "\n".join(line for line in text.splitlines() if line.startswith("|"))
    documented = set(re.findall(r"`([^`]+)`", table))
    for act in _shortcut_actions(window):
        for seq in act.shortcuts():
            key = seq.toString(QKeySequence.SequenceFormat.PortableText)
            assert key in documented, f"{key} ({act.text()}) is missing from {DOCS.name}"


def test_window_export_shortcuts_write_images(qtbot, window, tmp_path):
    paths = []

    def ask(_title, default, ext):
        paths.append(tmp_path / default)
        return str(paths[-1])

    window.exporter.ask_save_path = ask
    window.exporter.show_error = lambda m: pytest.fail(m)
    window.panels["waves"].setFocus()
    _key(qtbot, window, "Ctrl+E")
    _key(qtbot, window, "Ctrl+Shift+E")
    assert len(paths) == 2 and all(p.is_file() for p in paths)
    assert paths[0].name == window.panels["waves"].export_basename() + "@2x.png"
    QApplication.clipboard().clear()
    _key(qtbot, window, "Ctrl+Shift+C")
    assert not QApplication.clipboard().image().isNull()
