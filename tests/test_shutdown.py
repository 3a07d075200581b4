"""Shutdown: closing the window or Ctrl+C while work is in flight exits quickly and cleanly."""

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from explorer.jobs import job


@dataclass(frozen=True)
class NapRequest:
    seconds: float
    key: str = "waves.nap"


@job(NapRequest)
def _nap(req):
    time.sleep(req.seconds)
    return req.seconds


def test_closing_the_window_with_a_job_in_flight(qtbot):
    from explorer.main_window import MainWindow

    w = MainWindow(restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.all_drawn and w.service.idle(), timeout=120000)
    w.service.submit(NapRequest(0.4))
    qtbot.waitUntil(lambda: "waves.nap" in w.service.running_keys(), timeout=10000)
    t0 = time.monotonic()
    w.close()
    elapsed = time.monotonic() - t0
    assert not w.service.worker_thread.is_alive()
    assert elapsed < 30.0  # a hang detector (the nap itself is 0.4 s); the report below has the real figure
    assert not [t for t in threading.enumerate() if t.name.startswith("pe-")]


def _start_app(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PE_EXPLORER_REPORT_SHOWN": "1",
           "PE_EXPLORER_HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "explorer"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("shown_at="):
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"app did not start: {line!r} {err[-2000:]}")
    return proc


def test_ctrl_c_in_the_terminal_exits_cleanly(tmp_path):
    proc = _start_app(tmp_path)
    time.sleep(1.0)  # let panels submit and the worker start (torch warm-up may be running)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        rc = proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    elapsed = time.monotonic() - t0
    _, err = proc.communicate()
    assert rc == 0, err
    assert "Traceback" not in err and "QThread" not in err and "Destroyed" not in err, err
    assert elapsed < 30, elapsed  # a hang detector, not a timing
    # the layout was saved on the way out
    assert (tmp_path / "settings.json").exists()


def test_sigterm_is_not_needed_for_a_clean_exit_after_close(tmp_path):
    """Quit from the menu path: closing the main window ends the process with status 0."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PE_EXPLORER_EXIT_AFTER_SHOWN": "1",
           "PE_EXPLORER_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "explorer"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "QThread" not in proc.stderr and "Traceback" not in proc.stderr
