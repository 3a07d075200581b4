"""Files under a full disk, and settings files that are not what they should be (issue 10).

Malformed, truncated, wrong-version, huge and unreadable presets, saving into missing or read-only
folders and a failing rename are covered in tests/test_lecture_presets.py and
tests/test_lecture_export.py.  Here: a disk that fills up *during* the write (half the bytes land,
then ENOSPC) for everything the window writes — preset files, my presets, the last session, plot,
panel and window images, plot numbers — and broken window settings at start.  Each time: a clear
message, no partial file, the old file intact, and the current state untouched.
"""

from __future__ import annotations

import errno
import os

import pytest

from explorer import fileio
from explorer import presets as pr
from explorer.state import AppState
from explorer.theme import ZOOM_STEPS


class _HalfWritten:
    """A file object that writes half of what it is given, then reports a full disk."""

    def __init__(self, fh) -> None:
        self._fh = fh

    def write(self, data) -> int:
        self._fh.write(data[: len(data) // 2])
        self._fh.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()
        return False


class _FullDiskOs:
    """``os`` as explorer.fileio sees it, except that files opened for writing fill the disk."""

    def __init__(self) -> None:
        self.writes = 0

    def fdopen(self, fd, *args, **kwargs):
        self.writes += 1
        return _HalfWritten(os.fdopen(fd, *args, **kwargs))

    def __getattr__(self, name):
        return getattr(os, name)


@pytest.fixture
def full_disk(monkeypatch):
    """Every atomic write of the app (explorer.fileio) fails half-way with ENOSPC."""
    fake = _FullDiskOs()
    monkeypatch.setattr(fileio, "os", fake)
    return fake


@pytest.fixture
def window(qtbot):
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    w = MainWindow(restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.all_drawn and w.service.idle(), timeout=60000)
    w.errors = []
    w.dialogs.show_error = lambda title, message: w.errors.append(f"{title}: {message}")
    w.exporter.show_error = lambda message: w.errors.append(message)
    yield w
    w.close()


def _changed(w) -> AppState:
    waves = w.panels["waves"]
    waves.set_state(waves.state.clamped(base=500000.0, d_model=256))
    return w.session.app_state()


def _leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".part" in p.name)


def test_full_disk_while_saving_a_preset_file(window, tmp_path, full_disk):
    target = tmp_path / "lecture.json"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fileio, "os", os)  # a good first save
        pr.save_preset(target, AppState(), title="old")
    state = _changed(window)
    undo_count = window.undo.stack.count()
    window.dialogs.ask_save_path = lambda _default: str(target)
    assert not window.session.save_preset_file()
    assert full_disk.writes == 1
    assert len(window.errors) == 1
    msg = window.errors[0]
    assert msg.startswith("Preset not saved:") and "lecture.json" in msg and "No space left on device" in msg
    assert _leftovers(tmp_path) == []
    assert pr.load_preset(target).title == "old"  # the old file is whole
    assert window.session.app_state() == state and window.undo.stack.count() == undo_count


def test_full_disk_while_saving_my_preset(window, full_disk):
    state = _changed(window)
    window.dialogs.ask_preset_details = lambda _title="": ("Week 3", "notes")
    assert not window.session.save_preset_dialog()
    assert "No space left on device" in window.errors[-1] and "week_3.json" in window.errors[-1]
    assert _leftovers(pr.user_dir()) == []
    assert not (pr.user_dir() / "week_3.json").exists()
    assert window.session.app_state() == state


def test_full_disk_while_saving_the_session_on_close(qtbot, full_disk, capfd):
    """Closing still closes; the last good session stays, nothing partial, and the terminal says why."""
    from explorer.main_window import MainWindow

    w1 = MainWindow(restore_layout=True)  # a run that loaded the (empty) session saves it on close
    qtbot.addWidget(w1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fileio, "os", os)
        w1.close()  # a good session: the defaults
    good = w1.session.session_path().read_text(encoding="utf-8")
    w2 = MainWindow(restore_layout=True)
    qtbot.addWidget(w2)
    _changed(w2)
    w2.close()
    w2.service.worker_thread.join(60)  # a job still running (torch's first import) ends first
    assert not w2.service.worker_thread.is_alive()
    assert w2.session.session_path().read_text(encoding="utf-8") == good
    assert _leftovers(w2.session.session_path().parent) == []
    err = capfd.readouterr().err
    assert "session not saved" in err and "No space left on device" in err and "Traceback" not in err


@pytest.mark.parametrize("what", ["panel png", "panel svg", "window png", "plot png", "plot csv", "plot npy"])
def test_full_disk_while_exporting(window, tmp_path, full_disk, what):
    target = tmp_path / ("old" + "." + what.split()[1])
    target.write_bytes(b"the previous export")
    state = window.session.app_state()
    window.exporter.ask_save_path = lambda title, default, ext: str(target)
    panel = window.panels["waves"]
    window.show_panel("waves")
    view = next(v for v in panel.plots() if v.isVisible())
    ext = target.suffix
    if what.startswith("panel"):
        ok = window.exports.export_panel(ext=ext)
    elif what == "window png":
        ok = window.exports.export_window(scale=1)
    elif what == "plot png":
        ok = window.exporter.save_plot(panel, view, ext=".png")
    else:
        ok = window.exporter.save_plot_data(panel, view, ext)
    assert not ok and full_disk.writes == 1
    assert window.errors and "No space left on device" in window.errors[-1]
    assert target.name in window.errors[-1]
    assert target.read_bytes() == b"the previous export"
    assert _leftovers(tmp_path) == []
    assert window.session.app_state() == state


def test_broken_window_settings_start_with_defaults(qtbot):
    """A window.ini with garbage in every key (or not text at all) is ignored key by key."""
    from explorer.main_window import MainWindow
    from explorer.settings import config_dir

    ini = config_dir() / "window.ini"
    for content in (
        b"[General]\ngeometry=@ByteArray(\\x1\\x2garbage)\nstate=@ByteArray(nonsense)\n"
        b"[view]\ntheme=purple\npresenter=maybe\nsafe_maps=2\nzoom=abc\n",
        b"\x89PNG\r\n\x1a\n\xff\xfe\x00" + os.urandom(4096),
        b"[view]\nzoom=1e308\n",
    ):
        ini.write_bytes(content)
        w = MainWindow(restore_layout=True)
        qtbot.addWidget(w)
        w.show()
        try:
            qtbot.waitUntil(lambda w=w: w.all_drawn, timeout=60000)
            assert not w.look.theme.dark  # "purple" is no theme: the light one
            assert ZOOM_STEPS[0] <= w.look.zoom <= ZOOM_STEPS[-1]
            assert all(not d.isHidden() for d in w.docks.values())
        finally:
            w.close()
