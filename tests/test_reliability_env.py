"""Hostile environments (issue 16): a settings folder that cannot be used, no display, stale temp files.

The app must start with its settings disabled (one line on stderr, one in the status bar) rather
than crash; the headless commands must not need the settings folder at all; without a display the
app says so in one line and exits 2 instead of Qt's SIGABRT about ``xcb-cursor0``.

A read-only HOME is a real one: the tests run as root, which ignores permission bits, so the app
runs under ``setpriv`` with every capability dropped (uid 0 without CAP_DAC_OVERRIDE obeys the
bits like any user).  A non-root user cannot run the interpreter here (it lives under /root, mode
700), so "no HOME and no entry in the user database" is simulated: ``Path.home()`` raising, as it
does then.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from explorer.cli import main as cli

PNG = b"\x89PNG\r\n\x1a\n"


def _env(**changes) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = str(value)
    return env


def _run(args, env, timeout=120, prefix=()) -> subprocess.CompletedProcess:
    proc = subprocess.Popen([*prefix, sys.executable, "-m", "explorer", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _no_caps() -> tuple[str, ...]:
    """``setpriv`` dropping every capability, if it works here (else the test is skipped)."""
    exe = shutil.which("setpriv")
    if exe is None or os.geteuid() != 0:
        pytest.skip("needs root and setpriv to make a read-only HOME binding")
    prefix = (exe, "--inh-caps=-all", "--bounding-set=-all")
    probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop capabilities here: {probe.stderr[-200:]!r}")
    return prefix


# -- the window with an unusable settings folder ---------------------------------------------------
@pytest.mark.parametrize("where", ["PE_EXPLORER_HOME", "XDG_CONFIG_HOME"])
def test_window_starts_with_settings_disabled_when_the_folder_is_a_file(qtbot, tmp_path, monkeypatch, where):
    from explorer.main_window import MainWindow

    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    monkeypatch.delenv("PE_EXPLORER_HOME")
    monkeypatch.setenv(where, str(a_file))
    w = MainWindow()
    qtbot.addWidget(w)
    assert w.settings_problem and str(a_file) in w.settings_problem
    assert "Settings disabled" in w.statusBar().currentMessage()
    w.close()
    assert a_file.read_text() == "x"  # nothing written over or beside it


def test_window_starts_with_settings_disabled_without_a_home(qtbot, monkeypatch):
    from explorer.main_window import MainWindow
    from explorer.settings import config_problem

    def no_home(*_args):
        raise RuntimeError("Could not determine home directory.")

    for var in ("PE_EXPLORER_HOME", "XDG_CONFIG_HOME", "HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(Path, "home", classmethod(no_home))
    assert "no home folder" in config_problem()
    w = MainWindow()
    qtbot.addWidget(w)
    assert "no home folder" in w.statusBar().currentMessage()
    assert w.exporter.last_folder() == Path.cwd()  # file dialogs start somewhere that exists
    w.close()


def test_app_starts_with_settings_disabled_when_the_folder_is_a_file(tmp_path):
    a_file = tmp_path / "settings"
    a_file.write_text("x")
    proc = _run([], _env(PE_EXPLORER_HOME=a_file, PE_EXPLORER_EXIT_AFTER_SHOWN=1))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert f"settings disabled: {a_file} is not a folder" in proc.stderr


def test_screenshot_with_xdg_config_home_a_file(tmp_path):
    a_file = tmp_path / "xdg"
    a_file.write_text("x")
    out = tmp_path / "shot.png"
    proc = _run(["--screenshot", str(out)], _env(PE_EXPLORER_HOME=None, XDG_CONFIG_HOME=a_file), timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert out.read_bytes()[:8] == PNG


def test_app_and_export_with_a_read_only_home(tmp_path):
    prefix = _no_caps()
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o555)
    env = _env(PE_EXPLORER_HOME=None, XDG_CONFIG_HOME=None, HOME=home, PE_EXPLORER_EXIT_AFTER_SHOWN=1)
    proc = _run([], env, prefix=prefix)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert "settings disabled" in proc.stderr and "Permission denied" in proc.stderr
    out = tmp_path / "out"
    out.mkdir()
    proc = _run(["export", "--panel", "waves", "--preset", "waves_and_frequencies", "--out",
                 str(out / "w.png")], env, prefix=prefix)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (out / "w.png").read_bytes()[:8] == PNG
    assert list(home.iterdir()) == []


def test_export_preset_with_xdg_config_home_a_file(tmp_path, monkeypatch):
    a_file = tmp_path / "xdg"
    a_file.write_text("x")
    monkeypatch.delenv("PE_EXPLORER_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(a_file))
    out = tmp_path / "w.png"
    assert cli(["export", "--panel", "waves", "--preset", "waves_and_frequencies", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG


def test_export_preset_never_creates_the_settings_folder(tmp_path, monkeypatch):
    home = tmp_path / "never-made"
    monkeypatch.setenv("PE_EXPLORER_HOME", str(home))
    out = tmp_path / "w.png"
    assert cli(["export", "--panel", "waves", "--preset", "waves_and_frequencies", "--out", str(out)]) == 0
    assert out.is_file() and not home.exists()


def test_relative_xdg_config_home_is_ignored(tmp_path, monkeypatch):
    from explorer.settings import config_location

    monkeypatch.delenv("PE_EXPLORER_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert config_location() == tmp_path / ".config" / "pe-explorer"


# -- no display ------------------------------------------------------------------------------------
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland selection is Linux's")
@pytest.mark.parametrize("args", [[], ["--screenshot", "shot.png"]], ids=["window", "screenshot"])
def test_no_display_says_so_and_exits_2(tmp_path, args):
    args = [str(tmp_path / a) if a.endswith(".png") else a for a in args]
    env = _env(QT_QPA_PLATFORM=None, DISPLAY=None, WAYLAND_DISPLAY=None, PE_EXPLORER_HOME=tmp_path)
    proc = _run(args, env, timeout=60)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "no display" in lines[0] and "QT_QPA_PLATFORM=offscreen" in lines[0]
    assert "xcb" not in proc.stderr
    assert not (tmp_path / "shot.png").exists()


@pytest.mark.parametrize("args", [
    ["data", "sinusoidal", "--positions", "8", "--d-model", "4", "--out", "{tmp}/s.npy"],
    ["export", "--panel", "waves", "--out", "{tmp}/w.png"],
], ids=["data", "export"])
def test_headless_commands_need_no_display(tmp_path, args):
    args = [a.format(tmp=tmp_path) for a in args]
    env = _env(QT_QPA_PLATFORM=None, DISPLAY=None, WAYLAND_DISPLAY=None, PE_EXPLORER_HOME=tmp_path)
    proc = _run(args, env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert Path(args[-1]).is_file()


def test_display_problem_rules():
    from explorer.app import display_problem

    linux = "linux"
    assert display_problem({}, linux)
    assert display_problem({"QT_QPA_PLATFORM": "xcb"}, linux)
    assert display_problem({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"}, linux)
    assert display_problem({"DISPLAY": ":0"}, linux) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, linux) is None
    assert display_problem({"QT_QPA_PLATFORM": "wayland;xcb", "WAYLAND_DISPLAY": "w"}, linux) is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, linux) is None
    assert display_problem({"QT_QPA_PLATFORM": "vnc"}, linux) is None
    assert display_problem({}, "darwin") is None
    assert display_problem({}, "win32") is None


# -- stale temp files ------------------------------------------------------------------------------
def test_stale_temp_files_in_the_settings_folder_are_removed_at_start(qtbot, _isolated_home):
    from explorer.main_window import MainWindow

    home = _isolated_home
    (home / "presets").mkdir()
    old = time.time() - 3600
    stale = [home / ".session.json.ab12cd34.part", home / ".settings.json.zz_9yx8w.part",
             home / "presets" / ".my_scene.json.q1w2e3r4.part"]
    fresh = home / ".session.json.fresh123.part"  # another instance may be writing it right now
    others = [home / "notes.part", home / ".session.json.part"]  # not our pattern
    folder = home / ".x.json.dir12345.part"  # our pattern, but a folder
    folder.mkdir()
    for f in stale + [fresh] + others:
        f.write_bytes(b"{")
    for f in stale + others + [folder]:
        os.utime(f, (old, old))
    w = MainWindow(restore_layout=False)
    qtbot.addWidget(w)
    assert not [f for f in stale if f.exists()]
    assert fresh.exists() and folder.is_dir() and all(f.exists() for f in others)
    w.close()
