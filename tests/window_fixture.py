"""One window for a whole test module (the layout, stage and 2-D view tests walk many sizes on one window): a
settings folder of its own, every panel drawn before the first test, closed with its compute thread joined."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication


def settle(ms: float = 40) -> None:
    """Let the event loop run for ``ms`` milliseconds."""
    end = time.monotonic() + ms / 1000
    while True:
        QApplication.processEvents()
        if time.monotonic() >= end:
            return
        time.sleep(0.005)


def module_window(home, *, screen: tuple[int, int] | None = None, presenter: bool = False) -> Iterator:
    """Yield a shown main window (on a simulated ``screen``, in presenter mode if asked) with ``home`` as its
    settings folder; close it after the module and check its compute thread ended."""
    os.environ["PE_EXPLORER_HOME"] = str(home)
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    app = QApplication.instance() or QApplication([])
    configure_pyqtgraph()
    win = MainWindow(restore_layout=False)
    if screen is not None:
        win.screen_limit = QSize(*screen)
    win.show()
    if presenter:
        win.look.set_presenter(True)
        win.fit_to_screen()
    deadline = time.monotonic() + 60
    while not win.all_drawn and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    yield win
    win.look.set_presenter(False)
    win.close()
    app.processEvents()
    win.service.worker_thread.join(60)  # a job still running (torch's first import) ends first
    assert not win.service.worker_thread.is_alive()


def put_on_screen(win, size: tuple[int, int], presenter: bool) -> None:
    """Fit ``win`` to a simulated ``size`` screen, in presenter mode or not (the look applied again: the test set-up
    puts the theme bus back to light between tests)."""
    from PySide6.QtCore import QSize

    win.screen_limit = QSize(*size)
    win.look.set_presenter(presenter)
    win.look.apply()
    win.fit_to_screen()
