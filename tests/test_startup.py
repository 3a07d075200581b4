"""Start-up builds only the dock on screen; every other panel is built when first shown or asked for."""

import dataclasses

from explorer.panels import PANELS


def _window(qtbot, **kw):
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    win = MainWindow(restore_layout=False, **kw)
    qtbot.addWidget(win)
    return win


def test_only_the_raised_dock_is_built_and_the_others_build_when_shown(qtbot):
    win = _window(qtbot)
    try:
        assert win.panels.built() == {}  # nothing before the window is shown
        assert set(win.panels) == {pid for pid, _, _ in PANELS} and "lab" in win.panels
        at_build = []
        win.panelBuilt.connect(lambda pid: at_build.append((pid, win.first_frame_at is not None)))
        win.show()
        qtbot.waitUntil(lambda: bool(win.panels.built()), timeout=10000)
        assert list(win.panels.built()) == ["waves"]  # the raised tab only
        assert at_build == [("waves", True)]  # built just after the window's first frame, not inside it
        built = []
        win.panelBuilt.connect(built.append)
        win.show_panel("schemes")
        qtbot.waitUntil(lambda: win.panels.is_built("schemes"), timeout=10000)
        assert built == ["schemes"] and win.docks["schemes"].widget() is win.panels.built()["schemes"]
        assert not win.panels.is_built("swap")
        lab = win.panels["lab"]  # asking builds it (every caller of window.panels[...] keeps working)
        assert win.panels.is_built("lab") and win.docks["lab"].widget() is lab
        qtbot.waitUntil(lambda: win.panels["schemes"].has_drawn, timeout=60000)
    finally:
        win.close()


def test_a_late_panel_is_styled_wired_to_undo_and_sidebar_like_the_others(qtbot):
    win = _window(qtbot)
    try:
        win.show()
        win.set_sidebar_visible(False)
        swap = win.panels["swap"]
        assert all(not bar.isVisibleTo(swap) for bar in swap.sidebars())
        assert swap.font().pointSizeF() == win.panels["waves"].font().pointSizeF()
        qtbot.waitUntil(lambda: swap.has_drawn, timeout=60000)
        before = win.undo.stack.count()
        swap.set_state(dataclasses.replace(swap.state, alpha=0.5))
        assert win.undo.stack.count() == before + 1
        win.undo.stack.undo()
        assert swap.state.alpha == 1.0
    finally:
        win.close()


def test_a_restored_session_reaches_panels_built_later(qtbot):
    from explorer.state.app import AppState

    first = _window(qtbot, save_on_close=True)
    first.show()
    swap = first.panels["swap"]
    swap.set_state(dataclasses.replace(swap.state, alpha=2.5))
    first.close()
    win = _window(qtbot, restore_session=True)
    try:
        assert not win.panels.is_built("swap")
        assert win.panels.state_of("swap").alpha == 2.5  # known before the panel exists
        assert isinstance(win.session.app_state(), AppState) and win.session.app_state().get("swap").alpha == 2.5
        win.show()
        assert win.panels["swap"].state.alpha == 2.5
        assert win.undo.stack.count() == 0  # a restored session is not an undo step
    finally:
        win.close()


def test_compute_starts_after_the_first_frame(qtbot, monkeypatch):
    from PySide6.QtCore import QEvent, QObject

    from explorer import main_window

    # Only the paint may start it here: on a loaded machine the first frame can take longer than the fallback.
    monkeypatch.setattr(main_window, "FIRST_FRAME_FALLBACK_MS", 600_000)

    class Order(QObject):
        """What came first: the window's first paint or the service starting (bound methods only)."""

        def __init__(self, win) -> None:
            super().__init__()
            self.log: list[str] = []
            self.win = win
            self._resume = win.service.resume
            win.service.resume = self.resume

        def resume(self) -> None:
            self.log.append("resume")
            self._resume()

        def after(self) -> None:
            self.log.append("after")

        def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
            if obj is self.win and event.type() == QEvent.Type.Paint and "paint" not in self.log:
                self.log.append("paint")
            return False

    win = _window(qtbot)
    order = Order(win)
    win.installEventFilter(order)
    win.after_first_frame(order.after)  # the app's gc.freeze() goes here
    try:
        win.show()
        qtbot.waitUntil(lambda: "after" in order.log, timeout=10000)
        assert order.log[:3] == ["paint", "resume", "after"]  # a 0-ms timer from showEvent ran before the paint
        win.after_first_frame(order.after)  # later: at once (queued)
        qtbot.waitUntil(lambda: order.log.count("after") == 2, timeout=10000)
        qtbot.waitUntil(lambda: win.panels["waves"].has_drawn, timeout=60000)
    finally:
        win.removeEventFilter(order)
        win.close()


def test_a_panel_built_late_follows_the_next_theme_change(qtbot):
    """A panel first built in light presenter mode kept that palette after the switch to dark (its own
    palette stopped the window's from reaching it): black labels on a black panel."""
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QLabel

    win = _window(qtbot)
    try:
        win.show()
        win.look.set_presenter(True)
        swap = win.panels["swap"]  # built now, in light presenter mode
        win.look.set_base_theme("dark")
        label = next(lb for lb in swap.findChildren(QLabel) if lb.text() == "Sentence")
        text = label.palette().color(QPalette.ColorRole.WindowText)
        window = swap.palette().color(QPalette.ColorRole.Window)
        assert text.lightness() > 200 and window.lightness() < 60, (text.name(), window.name())
        assert text == win.panels["waves"].palette().color(QPalette.ColorRole.WindowText)
    finally:
        win.close()


def test_what_waits_for_the_first_frame_starts_anyway_when_no_paint_comes(qtbot):
    from PySide6.QtWidgets import QWidget

    from explorer.main_window import _FirstFrame

    never_shown = QWidget()
    qtbot.addWidget(never_shown)
    called = []
    _FirstFrame(never_shown, lambda: called.append(1), fallback_ms=0)
    qtbot.waitUntil(lambda: called == [1], timeout=5000)
    qtbot.wait(20)
    assert called == [1]  # once


def test_a_panel_that_fails_to_build_after_the_first_frame_stops_nothing_else(qtbot, monkeypatch, caplog):
    """The raised panel is built just after the first frame: one that raises there is logged, and the compute service
    and what waits for the first frame start all the same (the layout's survival mark, gc.freeze, ...)."""
    from explorer.shell import lazy_docks

    win = _window(qtbot)
    build = win.panel_docks._build_panel

    def failing(panel_id):
        if panel_id == "waves":
            raise RuntimeError("a broken panel")
        return build(panel_id)

    monkeypatch.setattr(win.panel_docks.panels, "_build", failing)
    after = []
    win.after_first_frame(lambda: after.append("called"))
    with caplog.at_level("ERROR", logger=lazy_docks.__name__):
        win.show()
        qtbot.waitUntil(lambda: after == ["called"], timeout=10000)
    assert not win.service._paused and "waves" in caplog.text and "a broken panel" in caplog.text
    assert not win.panels.is_built("waves")
    win.close()


_FIRST_FRAME = r"""
import json, sys
from PySide6.QtCore import QEvent, QObject
from explorer.app import make_app, wait_until
from explorer.main_window import MainWindow

app = make_app()
w = MainWindow(restore_layout=False, save_on_close=False)
paints = []

class Watch(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            paints.append("pyqtgraph" in sys.modules)
        return False

watch = Watch()
w.installEventFilter(watch)
w.show()
wait_until(app, lambda: w.first_frame_at is not None)
print(json.dumps({"first_paint_with_pyqtgraph": paints[0], "built": list(w.panels.built()),
                  "pyqtgraph_after": "pyqtgraph" in sys.modules}))
w.close()
"""


def test_the_window_is_painted_before_pyqtgraph_is_imported(tmp_path):
    """The window path (imports, ``MainWindow()``, its first frame) needs no pyqtgraph: the first panel brings it,
    just after the first frame."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PE_EXPLORER_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", _FIRST_FRAME], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"first_paint_with_pyqtgraph": False, "built": ["waves"], "pyqtgraph_after": True}
