"""Test set-up: headless Qt, isolated settings, and fixtures that fail a test on leaks."""

from __future__ import annotations

import os
import threading

# Headless by default (set here, in the test config, not by hand).  A test that needs a real X
# server sets up Xvfb itself.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Jobs on the service's thread in the test process (tests stand in jobs and experiments of their own);
# tests/test_compute_process.py runs the app's compute process.
os.environ.setdefault("PE_EXPLORER_COMPUTE", "thread")

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _collect_garbage_on_the_ui_thread(qapp):
    """As the app does: no automatic collection on whatever thread allocates, a timer on the UI thread."""
    from explorer.app import collect_on_ui_thread

    collect_on_ui_thread()
    yield


@pytest.fixture(autouse=True)
def _every_core_after():
    """A test that leaves a slider held leaves the UI thread on one core (explorer.service.cores): the next tests
    of this worker get every core back."""
    yield
    from explorer.worker import every_core

    every_core()


@pytest.fixture(scope="session", autouse=True)
def _temp_files_inside_the_session(tmp_path_factory):
    """Every temporary file of the session, the app's subprocesses' included, goes under pytest's own folder for
    this run, which pytest removes when the run passes (``tmp_path_retention_policy = "failed"``) and keeps for
    reading when it fails."""
    import tempfile

    folder = tmp_path_factory.mktemp("tmp", numbered=False)
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = None  # tempfile's documented cache of the folder: read TMPDIR again
    yield folder
    if before is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = before
    tempfile.tempdir = None


@pytest.fixture(scope="session", autouse=True)
def _libraries_out_of_every_collection():
    """Import what nearly every test process imports anyway, then keep those objects out of all later collections,
    as the app does after its first frame (``explorer.app.freeze_after_start``).  torch and pyqtgraph bring ~200,000
    long-lived objects, and a full collection walks them all: 0.3–1 s on this machine, after every test (below)."""
    import gc

    import pyqtgraph  # noqa: F401
    import torch  # noqa: F401

    import explorer.main_window  # noqa: F401

    gc.collect()
    gc.freeze()
    yield


@pytest.fixture(autouse=True)
def _collect_garbage_after():
    """Collect each test's garbage when the test is over, with no worker running.  Otherwise a later test
    collects it at a random moment — once, on a clean-clone CI run, inside the Lab's first torch import on
    another thread, and the interpreter died in the middle of that collection (SIGSEGV in
    test_lab_panel.py, after the panels' tests had run in the same process)."""
    yield
    import gc

    gc.collect()


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """Every test gets its own settings folder: never a user's, never another test's."""
    home = tmp_path_factory.mktemp("pe-home")
    monkeypatch.setenv("PE_EXPLORER_HOME", str(home))
    yield home


@pytest.fixture(autouse=True)
def _light_theme_after():
    """The theme bus is one per process: put it back to the light look after a test changed it."""
    yield
    import sys

    if "explorer.widgets.theming" in sys.modules:
        from explorer.theme import LIGHT
        from explorer.widgets.theming import theme_bus

        bus = theme_bus()
        if bus.theme != LIGHT or bus.zoom != 1.0:
            bus.set_look(LIGHT, 1.0)


@pytest.fixture(autouse=True)
def _no_leaked_threads():
    """Fail a test that leaves a compute thread (or any new non-daemon thread) running."""
    before = set(threading.enumerate())
    yield
    deadline = 2.0
    import time

    t0 = time.monotonic()
    while time.monotonic() - t0 < deadline:
        leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()
                  and (t.name.startswith("pe-") or not t.daemon)]
        if not leaked:
            return
        time.sleep(0.02)
    pytest.fail(f"test leaked threads: {[t.name for t in leaked]}")


@pytest.fixture
def service(qtbot):
    """A running ComputeService that is stopped (and checked stopped) after the test."""
    from explorer.service import ComputeService

    svc = ComputeService(warm_up=False)
    yield svc
    assert svc.stop(5.0), "compute thread did not stop"


@pytest.fixture
def main_window(qtbot):
    """The real main window, shown offscreen; closed and checked for a stopped service after."""
    import shiboken6

    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    win = MainWindow(restore_layout=False)
    qtbot.addWidget(win)
    win.show()
    worker = win.service.worker_thread
    yield win
    # pytest-qt has closed (and may have deleted) the window by now; its close stopped the service, and a job that
    # was running (torch's first import, on a loaded machine) finishes first: wait for it, then check.
    if shiboken6.isValid(win):
        win.close()
    worker.join(60)
    assert not worker.is_alive(), "the compute thread outlived the window"


#: The longest files (minutes each), run first: with one worker per core (scripts/test.sh) they then run
#: beside the rest instead of trailing after it.
LONG_FILES = ("test_reliability_soak.py", "test_packaging.py", "test_reliability_monkey.py",
              "test_reliability_monkey_hostile.py", "test_reliability_signals.py", "test_layout_fit.py",
              "test_lesson_walk.py", "test_plot_audit.py", "test_export_on_stage.py", "test_untrusted_text.py",
              "test_snippets.py")


def pytest_collection_modifyitems(config, items):
    order = {name: n for n, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: order.get(item.path.name, len(LONG_FILES)))  # stable: the rest keep their order
