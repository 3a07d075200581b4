"""Start-up: the QApplication, the main window, and ``--screenshot``."""

from __future__ import annotations

import os
import signal
import sys
import time

_T0 = time.perf_counter()


_previous_handler = None


def _quiet_offscreen_notes() -> None:
    """The offscreen platform (screenshots, export, bench) notes on every window that it cannot
    propagate size hints or raise windows; that is expected there, so keep it off the terminal."""
    if os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        return
    from PySide6.QtCore import qInstallMessageHandler

    global _previous_handler

    def handler(mode, context, message):
        if message.startswith("This plugin does not support"):
            return
        if _previous_handler is not None:
            _previous_handler(mode, context, message)
        else:
            sys.stderr.write(message + "\n")

    _previous_handler = qInstallMessageHandler(handler)


def make_app(argv: list[str] | None = None):
    """The QApplication (created once), with names set for settings and the desktop."""
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        _quiet_offscreen_notes()
        app = QApplication(argv or [sys.argv[0]])
    app.setApplicationName("PE Explorer")
    app.setOrganizationName("pe-explorer")
    app.setDesktopFileName("pe-explorer")
    try:
        from .paths import resource_path

        icon = resource_path("icons", "pe-explorer.svg")
        if icon.is_file():
            app.setWindowIcon(QIcon(str(icon)))
    except Exception:  # noqa: BLE001 - an icon is never worth failing start-up for
        pass
    return app


def take_screenshot(window, path: str, timeout_s: float = 120.0) -> int:
    """Wait until every panel has drawn, grab the window to ``path``; 0 on success."""
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout_s
    while not window.all_drawn and time.monotonic() < deadline:
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.01)
    if not window.all_drawn:
        print(f"pe-explorer: error: panels did not draw within {timeout_s:.0f} s", file=sys.stderr)
        return 1
    # Let layouts and repaints settle before grabbing.
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        QApplication.processEvents()
        time.sleep(0.01)
    from PySide6.QtCore import QBuffer, QIODevice

    from .fileio import OutputError, atomic_write_bytes

    image = window.grab()
    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG")
    try:
        atomic_write_bytes(path, bytes(buf.data()))
    except OutputError as exc:
        print(f"pe-explorer: error: {exc}", file=sys.stderr)
        return 2
    QTimer.singleShot(0, window.close)
    return 0


def run_app(args) -> int:
    """Open the main window (``args`` from :mod:`explorer.cli`)."""
    from .widgets.plots import configure_pyqtgraph

    if args.screenshot:
        from pathlib import Path

        folder = Path(args.screenshot).resolve().parent
        if not folder.is_dir():
            print(f"pe-explorer: error: cannot write {args.screenshot}: folder {folder} does not exist",
                  file=sys.stderr)
            return 2
    app = make_app()
    configure_pyqtgraph()
    from .main_window import MainWindow

    # --screenshot neither reads nor writes the user's layout, look and session; --reset-layout
    # starts from the defaults and keeps what the user does from there.
    window = MainWindow(restore_layout=not args.reset_layout and not args.screenshot,
                        save_on_close=not args.screenshot)
    if args.panel:
        if args.panel not in window.docks:
            print(f"pe-explorer: error: --panel must be one of {', '.join(window.docks)}", file=sys.stderr)
            window.close()
            return 2
        window.show_panel(args.panel)
    window.show()
    if os.environ.get("PE_EXPLORER_EXIT_AFTER_SHOWN") or os.environ.get("PE_EXPLORER_REPORT_SHOWN"):
        # For the benchmark's window_shown_ms and the shutdown tests: say when the window is up.
        app.processEvents()
        print(f"shown_at={time.time():.6f}", flush=True)
        if os.environ.get("PE_EXPLORER_EXIT_AFTER_SHOWN"):
            window.close()
            return 0
    # Ctrl+C in the terminal closes the window cleanly (Python signal handlers need the
    # interpreter to run now and then, hence the idle timer).
    from PySide6.QtCore import QTimer

    signal.signal(signal.SIGINT, lambda *_: window.close())
    tick = QTimer(window)
    tick.start(200)
    tick.timeout.connect(lambda: None)
    if args.screenshot:
        rc = take_screenshot(window, args.screenshot)
        window.close()
        return rc
    return app.exec()
