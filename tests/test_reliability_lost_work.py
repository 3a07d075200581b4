"""Hostile settings, sessions and presets in the real window, and work that must not be lost (issue 16).

Under the offscreen platform: a crafted ``window.ini`` that would run code (QSettings unpickles a
``@Variant(PySide::PyObjectWrapper)`` value as soon as any key is read), ``zoom=nan``, sessions and
presets that crashed every start (400- and 5,000-digit numbers, ``"panel": []``), a refused session
(moved aside, never replaced by defaults), ``--screenshot`` keeping the user's session and look, preset
file names that are unique in every script, a question before a preset is replaced, and a title with a
lone surrogate.  The corpus of files for every reader is tests/test_hostile_files.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from explorer import presets as pr
from explorer.settings import config_dir
from explorer.state import AppState

LEGACY_INI, SETTINGS_FILE = "window.ini", "settings.json"  # (names, not imports: these tests also run on main)

pytestmark = pytest.mark.timeout(180)

BIG = "1" + "0" * 399
HUGE = "1" + "0" * 4999
#: Session/preset texts that raised out of MainWindow() or load_preset_file on main.
CRASHERS = {
    "int_400_digits": '{"version": 2, "panels": {"waves": {"d_model": %s}}}'.replace("%s", BIG),
    "int_5000_digits": '{"version": 2, "panels": {"waves": {"d_model": %s}}}'.replace("%s", HUGE),
    "panel_list": '{"version": 2, "panel": [], "panels": {}}',
    "param_400_digits": (
        '{"version": 2, "panels": {"schemes": {"scheme_params": {"t5": {"num_buckets": %s}}}}}'.replace("%s", BIG)
    ),
}
#: Refused before too, but then replaced by the defaults when the window closed.
REFUSED = {
    "version_3": '{"version": 3, "panels": {}}',
    "malformed": '{"version": 2, "panels": {"waves": {"base": 10',
    "text": "Week 3: bring the RoPE slides\n",
}


class _Marker:
    path = ""

    def __reduce__(self):
        return (open, (self.path, "w"))


_CRAFT = """
import sys
from PySide6.QtCore import QCoreApplication, QSettings

class Marker:
    def __reduce__(self):
        return (open, (sys.argv[2], "w"))

app = QCoreApplication([])
s = QSettings(sys.argv[1], QSettings.Format.IniFormat)
for key in sys.argv[3:]:
    s.setValue(key, Marker())
s.setValue("view/theme", "dark")
s.sync()
"""


def _crafted_window_ini(home: Path, marker: Path, *keys: str) -> Path:
    """A window.ini as QSettings writes Python objects: unpickling any of them creates ``marker``.

    Written by QSettings itself, in another process: this process's QSettings would otherwise answer
    from its cache of what it wrote, and never parse the file.
    """
    ini = home / LEGACY_INI
    subprocess.run([sys.executable, "-c", _CRAFT, str(ini), str(marker), *(keys or ("view/zoom",))],
                   check=True, timeout=60, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert b"PyObjectWrapper" in ini.read_bytes() and not marker.exists()
    return ini


def _qsettings_runs_it(ini: Path, marker: Path, key: str) -> bool:
    """Whether reading ``key`` of ``ini`` with QSettings (what main did) creates ``marker``."""
    code = ("import sys; from PySide6.QtCore import QCoreApplication, QSettings; app = QCoreApplication([]);"
            "QSettings(sys.argv[1], QSettings.Format.IniFormat).value(sys.argv[2])")
    subprocess.run([sys.executable, "-c", code, str(ini), key], timeout=60, capture_output=True,
                   env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    ran = marker.exists()
    marker.unlink(missing_ok=True)
    return ran


def _window(qtbot, **kw):
    from explorer.main_window import MainWindow

    w = MainWindow(**{"restore_layout": True, **kw})
    qtbot.addWidget(w)
    w.show()
    return w


# -- settings never run code -----------------------------------------------------------------------------
def test_a_crafted_window_ini_runs_nothing_and_the_window_opens(qtbot, tmp_path):
    marker = tmp_path / "MARKER"
    ini = _crafted_window_ini(config_dir(), marker, "view/zoom", "export/folder", "geometry")
    assert _qsettings_runs_it(ini, marker, "view/zoom"), "the crafted file is live: QSettings unpickles it"
    w = _window(qtbot)
    try:
        assert not marker.exists(), "reading window.ini ran code"
        assert w.isVisible() and w.look.theme.dark  # the plain-text key of the old file is taken over
        assert w.look.zoom == 1.0
        w.exporter.last_folder()
        assert not marker.exists(), "the export choices ran code"
    finally:
        w.close()
    assert not marker.exists()
    saved = json.loads((config_dir() / SETTINGS_FILE).read_text())  # plain JSON from now on
    assert saved["settings"]["view/theme"] == "dark" and "PyObjectWrapper" not in json.dumps(saved)


def test_export_choices_read_no_pickles_either(qtbot, tmp_path):
    """The export controller read window.ini with QSettings too (export/print, export/folder)."""
    marker = tmp_path / "MARKER"
    ini = _crafted_window_ini(config_dir(), marker, "export/print", "export/folder")
    assert _qsettings_runs_it(ini, marker, "export/folder")
    w = _window(qtbot, restore_layout=False)
    try:
        w.exporter.last_folder()
        assert not marker.exists() and not w.exporter.print_action.isChecked()
    finally:
        w.close()


@pytest.mark.parametrize("content,name", [
    (b"[view]\nzoom=nan\ntheme=dark\n", LEGACY_INI),
    (b"[view]\nzoom=inf\npresenter=maybe\ntheme=dark\n", LEGACY_INI),
    (b'{"version": 1, "settings": {"view/zoom": NaN, "view/theme": "dark"}}', SETTINGS_FILE),
    (b'{"version": 1, "settings": {"view/zoom": 1e400, "view/theme": "dark", "geometry": "%%%"}}', SETTINGS_FILE),
    (b'{"version": 1, "settings": {"view/zoom": "1.5", "view/theme": "dark", "view/presenter": "yes",'
     b' "evil": {"__reduce__": 1}}}', SETTINGS_FILE),
])
def test_bad_settings_are_ignored_key_by_key_and_named_in_the_log(qtbot, caplog, content, name):
    (config_dir() / name).write_bytes(content)
    with caplog.at_level("WARNING", logger="explorer.settings"):
        w = _window(qtbot)
    try:
        assert w.look.zoom == 1.0 and w.look.theme.dark and not w.look.presenter  # the good key is kept
        logged = " ".join(r.getMessage() for r in caplog.records)
        assert "view/zoom" in logged, logged
    finally:
        w.close()


def test_an_old_window_ini_layout_is_taken_over_as_plain_bytes(qtbot):
    """The layout blobs of an old window.ini (@ByteArray) are unescaped as text, not read by QSettings."""
    from PySide6.QtCore import QSettings

    from explorer.main_window import LAYOUT_VERSION

    w1 = _window(qtbot, restore_layout=False)
    w1.docks["schemes"].hide()
    s = QSettings(str(config_dir() / LEGACY_INI), QSettings.Format.IniFormat)
    s.setValue("geometry", w1.saveGeometry())
    s.setValue("state", w1.saveState(LAYOUT_VERSION))
    s.setValue("view/presenter", True)
    s.sync()
    del s
    w1.close()
    from explorer.settings import load_settings

    assert set(load_settings()) == {"geometry", "state", "view/presenter"}
    w2 = _window(qtbot)
    try:
        assert w2.docks["schemes"].isHidden() and not w2.docks["waves"].isHidden() and w2.look.presenter
    finally:
        w2.close()


# -- sessions and presets that crashed every start ----------------------------------------------------------
@pytest.mark.parametrize("name", [*CRASHERS, *REFUSED])
def test_a_bad_session_starts_with_defaults_and_is_moved_aside(qtbot, name):
    text = {**CRASHERS, **REFUSED}[name]
    session = config_dir() / "session.json"
    session.write_text(text)
    w = _window(qtbot)
    try:
        assert w.session.app_state() == AppState()
        assert "Last session not restored" in w.statusBar().currentMessage()
        assert "\n" not in w.statusBar().currentMessage()
    finally:
        w.close()
    aside = list(config_dir().glob("session.rejected-*.json"))
    assert len(aside) == 1 and aside[0].read_text() == text  # kept, byte for byte
    assert session.exists() and json.loads(session.read_text())["version"] == 2  # this run's session


def test_a_session_that_cannot_be_moved_aside_is_not_overwritten(qtbot, monkeypatch):
    session = config_dir() / "session.json"
    session.write_text(REFUSED["version_3"])
    monkeypatch.setattr(Path, "rename", lambda *_a: (_ for _ in ()).throw(PermissionError(13, "Permission denied")))
    w = _window(qtbot)
    w.close()
    assert session.read_text() == REFUSED["version_3"]


def test_two_windows_on_one_settings_folder_keep_both_sessions(qtbot, capfd):
    """The last window to close silently dropped the other's session (issue 25, 10 of 10 tries): it is now kept
    as session.other-<date>.json, and the terminal says so."""
    session = config_dir() / "session.json"
    first, second = _window(qtbot), _window(qtbot)
    try:
        waves = first.panels["waves"]
        waves.set_state(dataclasses.replace(waves.state, d_model=64))
        swap = second.panels["swap"]
        swap.set_state(dataclasses.replace(swap.state, sentence="the cat sat"))
    finally:
        second.close()
        first.close()
    kept = list(config_dir().glob("session.other-*.json"))
    assert len(kept) == 1, sorted(p.name for p in config_dir().iterdir())
    assert pr.load_preset(kept[0]).state.swap.sentence == "the cat sat"  # the second window's
    last = pr.load_preset(session).state
    assert last.waves.d_model == 64 and last.swap.sentence != "the cat sat"  # the first's, closed last
    err = capfd.readouterr().err
    assert f"its session is kept as {kept[0].name}" in err and len(err.strip().splitlines()) == 1, err
    w = _window(qtbot)  # one window alone: it replaces the file it read, and says nothing
    w.close()
    assert not capfd.readouterr().err and len(list(config_dir().glob("session.other-*.json"))) == 1


@pytest.mark.parametrize("name", CRASHERS)
def test_a_bad_file_in_my_presets_does_not_stop_the_start(qtbot, name):
    pr.user_dir().mkdir(parents=True)
    (pr.user_dir() / f"{name}.json").write_text(CRASHERS[name])
    w = _window(qtbot, restore_layout=False)
    try:
        w._fill_presets_menu()
        broken = [a.text() for a in w.menus["Presets"].actions() if a.text().startswith("⚠")]
        assert len(broken) == 1 and f"{name}.json" in broken[0] and "\n" not in broken[0]
    finally:
        w.close()


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory):
    from explorer.main_window import MainWindow

    old = os.environ.get("PE_EXPLORER_HOME")
    os.environ["PE_EXPLORER_HOME"] = str(tmp_path_factory.mktemp("lost-work-home"))
    w = MainWindow(restore_layout=False)
    w.show()
    yield w
    w.close()
    if old is not None:
        os.environ["PE_EXPLORER_HOME"] = old


@pytest.fixture
def window(win):
    win.undo.set_states({pid: p.state_cls() for pid, p in win.panels.items()}, "reset for a test")
    win.undo.clear()
    win.session.leave_scene()
    win.errors = []
    win.dialogs.show_error = lambda title, message: win.errors.append(message)
    win.dialogs.ask_overwrite = lambda path, title: pytest.fail("asked to overwrite")
    return win


@pytest.mark.parametrize("name", [*CRASHERS, *REFUSED, "pickle", "fifo", "dev_zero"])
@pytest.mark.timeout(30)
def test_load_preset_file_shows_a_one_line_error_and_never_raises(window, tmp_path, name):
    path = tmp_path / f"{name}.json"
    if name == "pickle":
        m = _Marker()
        m.path = str(tmp_path / "MARKER")
        path.write_bytes(pickle.dumps(m))
    elif name == "fifo":
        os.mkfifo(path)
    elif name == "dev_zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_text({**CRASHERS, **REFUSED}[name])
    before = window.session.app_state()
    assert window.session.load_preset_file(path) is False
    assert len(window.errors) == 1
    first, _, rest = window.errors[0].partition("\n")
    assert path.name in first and rest.strip() == "Nothing was changed."
    assert window.session.app_state() == before and not (tmp_path / "MARKER").exists()


@pytest.mark.parametrize("text,words", [
    ("Week 3: bring the RoPE slides\n", "not a PE Explorer preset: not valid JSON"),
    ('{"version": 2, "panels": {"waves": {"pairs": ["1", "2"]}}}', "pairs must be a list of whole numbers"),
    ('{"version": 2, "panels": {"waves": {"d_model": "64"}}}', "d_model must be a whole number"),
])
def test_messages_name_what_is_wrong(window, tmp_path, text, words):
    path = tmp_path / "p.json"
    path.write_text(text)
    assert not window.session.load_preset_file(path)
    assert words in window.errors[-1], window.errors[-1]


# -- lost work -----------------------------------------------------------------------------------------------
def test_screenshot_keeps_the_users_session_and_look(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    mine = dataclasses.replace(AppState().waves, base=777.0)
    session = pr.save_preset(home / "session.json", AppState().replace(waves=mine), title="Week 3")
    ini = home / LEGACY_INI
    ini.write_text("[view]\ntheme=dark\nzoom=1.25\n")
    (home / SETTINGS_FILE).write_text('{"version": 1, "settings": {"view/theme": "dark"}}\n')
    before = {p.name: p.read_bytes() for p in home.iterdir()}
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PE_EXPLORER_HOME": str(home)}
    out = tmp_path / "shot.png"
    proc = subprocess.run([sys.executable, "-m", "explorer", "--screenshot", str(out)], env=env,
                          capture_output=True, text=True, timeout=170)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 1000
    proc = subprocess.run([sys.executable, "-m", "explorer", "export", "--panel", "waves", "--out",
                           str(tmp_path / "w.png")], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    after = {p.name: p.read_bytes() for p in home.iterdir()}
    assert after == before, "a run that did not load the session or the look wrote over them"
    assert pr.load_preset(session).state.waves.base == 777.0


def test_preset_names_are_unique_and_readable_in_any_script():
    titles = ["Week 3!", "week 3?", "Week 3", "Неделя 3", "Неделя 4", "第三周 位置编码", "第四周", "सप्ताह ३",
              "الأسبوع ٣", "Εβδομάδα 3", "../../etc/passwd", "con", "?!?"]
    paths = [pr.save_user_preset(t, AppState()) for t in titles]
    assert len({p.name for p in paths}) == len(titles), [p.name for p in paths]
    assert all(p.parent == pr.user_dir() for p in paths)
    assert sorted(p.title for p in pr.user_presets()[0]) == sorted(titles)
    names = {t: p.name for t, p in zip(titles, paths, strict=True)}
    assert names["Week 3!"] == "week_3.json" and names["week 3?"] == "week_3-2.json"
    assert names["Неделя 3"] == "неделя_3.json" and names["第三周 位置编码"] == "第三周_位置编码.json"
    assert names["सप्ताह ३"] == "सप्ताह_३.json"  # vowel signs (marks) are kept with their letters
    assert names["?!?"] == "preset.json"
    assert all(len(p.name.encode()) < 255 for p in paths)


def test_saving_a_preset_of_the_same_title_asks_first(window):
    window.dialogs.ask_preset_details = lambda _title="": ("Week 5", "first")
    assert window.session.save_preset_dialog()
    path = pr.user_dir() / "week_5.json"
    first = path.read_text()
    asked = []
    window.dialogs.ask_preset_details = lambda _title="": ("Week 5", "second")
    window.dialogs.ask_overwrite = lambda p, title: asked.append((p, title)) or False
    assert not window.session.save_preset_dialog()
    assert asked == [(path, "Week 5")] and path.read_text() == first
    window.dialogs.ask_overwrite = lambda p, title: True
    assert window.session.save_preset_dialog()
    assert pr.load_preset(path).description == "second"
    assert sorted(f.name for f in pr.user_dir().iterdir()) == ["week_5.json"]


def test_a_lone_surrogate_in_a_title_does_not_make_the_session_unsavable(window, tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"version": 2, "title": "Week \\ud800 3", "description": "a \\udfff b", "panels": {}}')
    assert window.session.load_preset_file(path), window.errors
    window.session.save_session()  # raised UnicodeEncodeError, so every close lost the session
    back = pr.load_preset(window.session.session_path())
    assert back.title == "Week \ufffd 3" and back.description == "a \ufffd b"
    window.dialogs.ask_preset_details = lambda _title="": ("Week \udc00 4", "notes \ud800")
    assert window.session.save_preset_dialog(), window.errors
    assert [p.title for p in pr.user_presets()[0]] == ["Week \ufffd 4"]


def test_the_benchmarks_window_start_keeps_the_users_session_and_look():
    """bench's window_shown_ms starts the app with --reset-layout and closes it: never in the user's folder."""
    from explorer.bench import window_shown_ms

    home = config_dir()
    pr.save_preset(home / "session.json", AppState().replace(
        waves=dataclasses.replace(AppState().waves, base=777.0)), title="Week 3")
    (home / SETTINGS_FILE).write_text('{"version": 1, "settings": {"view/theme": "dark"}}\n')
    (home / LEGACY_INI).write_text("[view]\ntheme=dark\n")
    before = {p.name: p.read_bytes() for p in home.iterdir()}
    start = window_shown_ms(repeats=1)
    assert 0 < start["shown"] < start["drawn"]
    assert {p.name: p.read_bytes() for p in home.iterdir()} == before
