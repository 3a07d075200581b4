"""A saved window layout cannot stop the app from starting (issue 25, finding 2).

``QMainWindow.restoreState`` trusts its bytes: a settings.json whose layout differed from a valid one in one
byte (the count of dock areas) killed every start with SIGSEGV.  The layout is now read by
:mod:`explorer.layout_state` first: every layout the window writes is accepted (tried here in many
arrangements), a layout it could not have written is refused with one line, and a layout whose restoring
killed the last start is not restored again.  tests/test_reliability_hostile.py starts the real app on such
files.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QToolBar

from explorer.layout_state import PENDING_FILE, LayoutError, check_layout, restore_died
from explorer.settings import config_dir, save_settings


def _window(qtbot, **kw):
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    w = MainWindow(**{"restore_layout": False, **kw})
    qtbot.addWidget(w)
    w.show()
    return w


def _names(w):
    return [d.objectName() for d in w.findChildren(QDockWidget)], [b.objectName() for b in w.findChildren(QToolBar)]


def _state(w) -> bytes:
    from explorer.main_window import LAYOUT_VERSION

    return bytes(w.saveState(LAYOUT_VERSION).data())


def _check(w, data: bytes) -> None:
    from explorer.main_window import LAYOUT_VERSION

    check_layout(data, LAYOUT_VERSION, *_names(w))


def test_every_layout_the_window_writes_is_accepted(qtbot):
    w = _window(qtbot)
    try:
        d = list(w.docks.values())
        bars = w.findChildren(QToolBar)
        steps = [
            ("default", lambda: None),
            ("a floating dock", lambda: d[1].setFloating(True)),
            ("a dock on the left", lambda: w.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, d[2])),
            ("split", lambda: w.splitDockWidget(d[2], d[3], Qt.Orientation.Vertical)),
            ("tabbed inside a split", lambda: w.tabifyDockWidget(d[2], d[4])),
            ("a hidden dock", lambda: d[0].hide()),
            ("a dock at the bottom", lambda: (w.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, d[0]),
                                               d[0].show())),
            ("the lesson dock", lambda: w.lessons.show()),
            ("tool bars hidden", lambda: [b.hide() for b in bars]),
            ("a tool bar on the left", lambda: w.addToolBar(Qt.ToolBarArea.LeftToolBarArea, bars[0])),
            ("every dock floating", lambda: [x.setFloating(True) for x in d]),
            ("reset", w.reset_layout),
        ]
        for what, act in steps:
            act()
            qtbot.wait(10)
            data = _state(w)
            try:
                _check(w, data)
            except LayoutError as exc:
                pytest.fail(f"{what}: the window's own layout was refused: {exc}")
    finally:
        w.close()


def _flip(data: bytes, at: int, value: int) -> bytes:
    b = bytearray(data)
    b[at] = value
    return bytes(b)


def test_layouts_the_window_could_not_have_written_are_refused_in_one_line(qtbot):
    w = _window(qtbot)
    try:
        good = _state(w)
        _check(w, good)
        docks, bars = _names(w)
        bad = {
            # The first dock area's number (bytes 13-16, 0-3): each of these killed every start with SIGSEGV.
            "area 256 more": _flip(good, 15, 1), "area 2^24 more": _flip(good, 14, 1),
            "area negative": _flip(good, 13, 0x80), "area 4": _flip(good, 16, 4),
            # The count of dock areas (bytes 9-12).
            "5 areas": _flip(good, 12, 5), "2^24 areas": _flip(good, 9, 1),
            "truncated": good[:-5], "one byte more": good + b"\0", "empty": b"",
            "not a layout": b"\x00\x00\x00\xfe" + good[4:], "another version": _flip(good, 7, 9),
            "an unknown dock": good.replace("dock_lab".encode("utf-16-be"), "dock_xyz".encode("utf-16-be")),
            "a dock twice": good.replace("dock_lab".encode("utf-16-be"), "dock_swap".encode("utf-16-be")),
        }
        for what, data in bad.items():
            assert data != good, what
            with pytest.raises(LayoutError) as exc:
                check_layout(data, 3, docks, bars)
            assert "\n" not in str(exc.value), what
    finally:
        w.close()


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          timeout=60)
    return int(proc.stdout)


def test_a_layout_whose_restoring_killed_the_last_start_is_not_restored_again(qtbot, capfd):
    save_settings({"state": _floating_lab_state(qtbot)})
    pending = config_dir() / PENDING_FILE
    pending.write_text(f"{_dead_pid()} is restoring the saved window layout\n")  # that start died
    assert restore_died(config_dir())
    w = _window(qtbot, restore_layout=True)
    try:
        assert not w.docks["lab"].isFloating()  # the default layout
        assert "Saved window layout not used" in w.statusBar().currentMessage()
        assert not pending.exists()  # said once: the next start restores what this one saves
        assert "did not get its window up" in capfd.readouterr().err
    finally:
        w.close()
    save_settings({"state": _floating_lab_state(qtbot)})
    pending.write_text(f"{os.getpid()} is restoring the saved window layout\n")  # a window starting beside it
    assert not restore_died(config_dir())
    w = _window(qtbot, restore_layout=True)
    try:
        assert w.docks["lab"].isFloating()  # restored: that start is alive
    finally:
        w.close()
    assert not pending.exists()  # closed normally


def _floating_lab_state(qtbot) -> bytes:
    w = _window(qtbot)
    try:
        w.docks["lab"].setFloating(True)
        return _state(w)
    finally:
        w.close()
