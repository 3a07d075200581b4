"""Start-up: the QApplication, the main window, and ``--screenshot``."""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import TYPE_CHECKING

from .interrupts import exit_at_once

if TYPE_CHECKING:
    import socket

    from PySide6.QtCore import QSocketNotifier

_T0 = time.perf_counter()


_previous_handler = None

#: What ends the app: Ctrl+C in the terminal, a polite kill (logout, shutdown), the terminal closing.
QUIT_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


class QuitSignals:
    """How SIGINT, SIGTERM and SIGHUP end the app.

    Before the window is up they end the process at once (nothing is loaded that could be lost,
    and a ``KeyboardInterrupt`` raised inside a Qt slot would be swallowed: the app came up anyway).
    Once it is up they close it as its close button does (layout and session saved, workers
    joined, exit status 0).  Python runs a signal handler only when the interpreter runs, and Qt's
    event loop sleeps in C++; so the C handler's wake-up byte (``signal.set_wakeup_fd``) goes to a
    socket a ``QSocketNotifier`` watches: the loop wakes, and the Python handler runs at once.
    """

    def __init__(self) -> None:
        self._sockets: tuple[socket.socket, socket.socket] | None = None
        self._notifier: QSocketNotifier | None = None

    def exit_at_once(self) -> None:
        self._release()
        self._install(exit_at_once)

    def close_window(self, window) -> None:
        import socket

        from PySide6.QtCore import QSocketNotifier, QTimer

        self._release()
        reader, writer = socket.socketpair()
        reader.setblocking(False)
        writer.setblocking(False)
        try:
            signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        except ValueError:  # not the main thread: nothing can be installed
            reader.close()
            writer.close()
            return
        self._sockets = (reader, writer)
        self._notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, window)
        self._notifier.activated.connect(self._drain)
        # Queued, not called: the handler may run in the middle of any slot.
        self._install(lambda _signum, _frame: QTimer.singleShot(0, window.close))

    @staticmethod
    def _install(handler) -> None:
        for sig in QUIT_SIGNALS:
            try:
                signal.signal(sig, handler)
            except ValueError:  # not the main thread (an embedding host): leave its handlers alone
                return

    def _drain(self, *_args) -> None:
        try:
            while self._sockets is not None and self._sockets[0].recv(512):
                pass
        except OSError:  # empty (would block)
            pass

    def _release(self) -> None:
        if self._sockets is None:
            return
        try:
            signal.set_wakeup_fd(-1)
        except ValueError:
            pass
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
        for sock in self._sockets:
            sock.close()
        self._sockets = None


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


def make_app(argv: list[str] | None = None, app_class: type | None = None):
    """The QApplication (created once, of ``app_class`` if given: the bench's records its events), with names
    set for settings and the desktop."""
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        _quiet_offscreen_notes()
        from .widgets.renderer import opengl_asked

        if opengl_asked():
            from PySide6.QtCore import QCoreApplication, Qt

            # A plot's GL viewport in a dock that floats moves to another window: its context must be shareable.
            QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
        app = (app_class or QApplication)(argv or [sys.argv[0]])
    if not isinstance(app, QApplication):
        raise RuntimeError("a QCoreApplication is running: PE Explorer's windows need a QApplication")
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


def wait_until(app, until, timeout_s: float = 120.0) -> bool:
    """Run the event loop until ``until()`` is true or ``timeout_s`` has passed; returns ``until()``.  It waits for
    events between checks (a 20 ms timer wakes it): ``processEvents`` given a time limit does not wait, it spins."""
    from PySide6.QtCore import QEventLoop, QTimer

    deadline = time.monotonic() + timeout_s
    tick = QTimer()
    tick.start(20)
    try:
        while not until() and time.monotonic() < deadline:
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    finally:
        tick.stop()
    return until()


def report_start(app, window, *, drawn: bool = False, timeout_s: float = 120.0) -> None:
    """Print ``shown_at=`` (the window's first frame on screen, ``time.time()``) and, with ``drawn``,
    ``drawn_at=`` once every panel built by then has drawn its first results and they are painted (not printed
    when none is built or they do not come within ``timeout_s``: said on stderr)."""
    deadline = time.monotonic() + timeout_s

    def results_drawn() -> bool:
        built = window.panels.built().values()
        return not built or all(p.has_drawn for p in built)

    wait_until(app, lambda: window.first_frame_at is not None, timeout_s)
    print(f"shown_at={window.first_frame_at or time.time():.6f}", flush=True)
    if not drawn:
        return
    if wait_until(app, results_drawn, max(0.0, deadline - time.monotonic())) and window.panels.built():
        app.processEvents()  # the drawn results painted
        print(f"drawn_at={time.time():.6f}", flush=True)
    else:
        print(f"pe-explorer: no first results drawn within {timeout_s:.0f} s", file=sys.stderr)


def take_screenshot(window, path: str, timeout_s: float = 120.0) -> int:
    """Wait until every panel has drawn, grab the window to ``path``; 0 on success.  A panel that cannot
    draw (``--checkpoint`` a file it refuses) ends the wait at once with its reason."""
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout_s
    while not window.all_drawn and time.monotonic() < deadline:
        stuck = [p.stuck_error for p in window.panels.built().values() if p.stuck_error]
        if stuck:
            print(f"pe-explorer: error: {stuck[0]}", file=sys.stderr)
            return 2
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
        atomic_write_bytes(path, bytes(buf.data().data()))
    except OutputError as exc:
        print(f"pe-explorer: error: {exc}", file=sys.stderr)
        return 2
    QTimer.singleShot(0, window.close)
    return 0


def display_problem(environ=None, platform: str | None = None) -> str | None:
    """Why no window can open here (one line), or None.

    On Linux and the BSDs Qt picks X11 or Wayland; without ``DISPLAY``/``WAYLAND_DISPLAY`` its xcb
    plugin aborts the process (SIGABRT) with a message about ``xcb-cursor0`` that sends people
    looking for a missing library.  A platform the user chose (``QT_QPA_PLATFORM=offscreen``,
    ``wayland``, ``vnc``…) is trusted, but xcb still needs ``DISPLAY``.
    """
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform.startswith(("win", "darwin", "cygwin")):
        return None
    chosen = [p.strip() for p in environ.get("QT_QPA_PLATFORM", "").split(";") if p.strip()]
    if chosen and not any(p.startswith("xcb") for p in chosen):
        return None
    if environ.get("DISPLAY"):
        return None
    if environ.get("WAYLAND_DISPLAY") and (not chosen or any(p.startswith("wayland") for p in chosen)):
        return None
    return ("there is no display (DISPLAY and WAYLAND_DISPLAY are not set); for headless use set "
            "QT_QPA_PLATFORM=offscreen (the data, export, lab and bench commands need no display)")


def prepare_ui_process() -> None:
    """Before numpy does any work in the UI process: one BLAS thread (see
    :func:`explorer.worker.limit_blas_threads`); the jobs run in the compute process."""
    from .worker import limit_blas_threads

    limit_blas_threads(1)


#: The collector that runs on the UI thread only (kept alive here: see :func:`collect_on_ui_thread`).
_UI_COLLECTOR = None


def collect_on_ui_thread():
    """Garbage collection only on the UI thread, from a timer (pyqtgraph's ``GarbageCollector``).

    Python collects whenever an allocation crosses a threshold, on whichever thread made it: a worker
    thread (the service's, a Lab run's progress) then destroyed Qt objects that belong to the UI thread,
    and the interpreter died in the middle of the collection (SIGSEGV; seen twice in test runs, in the
    Lab). Automatic collection is off; the UI thread collects each generation past its threshold once a
    second. Idempotent; needs a Q(Core)Application."""
    global _UI_COLLECTOR
    if _UI_COLLECTOR is None:
        from pyqtgraph.util.garbage_collector import GarbageCollector

        _UI_COLLECTOR = GarbageCollector(interval=1.0)
    return _UI_COLLECTOR


def warn_renderer() -> None:
    """Say where the plots cannot be painted as asked (``--renderer opengl`` without OpenGL)."""
    from .widgets import plots

    plots.configure_pyqtgraph()  # (done already where a panel was built)
    if plots.renderer_problem:
        print(f"pe-explorer: warning: the plots are painted in software (raster): {plots.renderer_problem}",
              file=sys.stderr)


def freeze_after_start() -> None:
    """Once the window is built and shown: move every object made so far out of the collector's sight.

    A full collection walks every tracked object; with the window's ~10⁵ long-lived ones it took
    113–136 ms on the UI thread, once per drag.  ``gc.freeze()`` keeps them out of all later
    collections (they live as long as the app anyway).  It costs nothing (no collection first: that
    would hold the first frame for as long as the collection it saves; the little start-up garbage
    is kept).  ``PE_EXPLORER_REPORT_PROCESS`` prints the process's state afterwards (the tests).
    """
    import gc

    gc.freeze()
    collect_on_ui_thread()
    if os.environ.get("PE_EXPLORER_REPORT_PROCESS"):
        print(f"process={process_report()}", flush=True)


def process_report() -> str:
    """This process in one JSON line: frozen objects, BLAS threads, whether torch is loaded."""
    import gc
    import json

    try:
        from threadpoolctl import threadpool_info

        blas = sorted({int(i["num_threads"]) for i in threadpool_info() if i.get("user_api") == "blas"})
    except ImportError:  # pragma: no cover
        blas = []
    return json.dumps({"pid": os.getpid(), "gc_frozen": gc.get_freeze_count(), "blas_threads": blas,
                       "torch": "torch" in sys.modules})


def _finish(window, rc: int) -> int:
    """After the event loop: the window has saved what it keeps and stopped the service.  A worker
    still inside torch's import (it cannot be interrupted) gets a moment more; if it is still
    there, leave without shutting the interpreter down under it (that can crash it)."""
    for t in window.service.threads():
        t.join(1.0)
    if window.service.threads():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    return rc


def open_model_view(window, path: str) -> None:
    """``--config``: the Schemes panel in front, on its "A model's RoPE" view of the config at ``path``."""
    from .panels.schemes.model import open_model_config

    spec, error = open_model_config(path)
    window.show_panel("schemes")
    panel = window.panels["schemes"]
    if error:  # checked before the window opened; the file may have changed since
        panel.banner.show_error(error)
        return
    panel.set_state(panel.state.clamped(view="model", model=spec))


def run_app(args) -> int:
    """Open the main window (``args`` from :mod:`explorer.cli`)."""
    # Ctrl+C, SIGTERM, SIGHUP: at once while starting (nothing to save yet), then like closing the window.
    signals = QuitSignals()
    signals.exit_at_once()
    problem = display_problem()
    if problem:
        print(f"pe-explorer: error: {problem}", file=sys.stderr)
        return 2
    prepare_ui_process()
    if args.screenshot:
        from pathlib import Path

        folder = Path(args.screenshot).resolve().parent
        if not folder.is_dir():
            print(f"pe-explorer: error: cannot write {args.screenshot}: folder {folder} does not exist",
                  file=sys.stderr)
            return 2
    from .widgets.renderer import choose

    choose(getattr(args, "renderer", None))
    app = make_app()
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
    if getattr(args, "checkpoint", None):
        window.panel_docks.open_checkpoint(args.checkpoint)
    if getattr(args, "model_config", None):
        open_model_view(window, os.path.expanduser(args.model_config))
    window.show()
    # The first panel, its plots and pyqtgraph are made just after the first frame (lazy_docks), then these.
    window.after_first_frame(warn_renderer)
    window.after_first_frame(freeze_after_start)  # a 0-ms timer from here ran before the first paint
    if not args.screenshot:  # a screenshot saves nothing, so it keeps exiting at once
        signals.close_window(window)
    exit_after = os.environ.get("PE_EXPLORER_EXIT_AFTER_SHOWN")
    if exit_after or os.environ.get("PE_EXPLORER_REPORT_SHOWN"):
        # For the benchmark's window_shown_ms and the shutdown tests: say when the window's first frame was on
        # screen, and (EXIT_AFTER_SHOWN=drawn) when the panel on screen had drawn its first results.
        report_start(app, window, drawn=exit_after == "drawn")
        if exit_after:
            window.close()
            signals.exit_at_once()
            return _finish(window, 0)
    if args.screenshot:
        rc = take_screenshot(window, args.screenshot)
        window.close()
        return _finish(window, rc)
    from PySide6.QtCore import QTimer

    QTimer.singleShot(200, window.welcome.offer)  # first start only, after the first frame (settings.json)
    rc = app.exec()
    signals.exit_at_once()  # the session is saved: a late signal must not trace back from shutdown
    return _finish(window, rc)
