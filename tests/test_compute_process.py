"""The compute process (issue 15): jobs run in a child, the UI process never loads torch, and no child
is ever left behind — window close, Ctrl+C, SIGTERM, a killed child."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from waiting import settled_count

from explorer.jobs.control import Cancelled, JobControl
from explorer.jobs.misc import ProbeRequest
from explorer.service import ComputeService

ROOT = Path(__file__).resolve().parents[1]


def _children(pid: int, tracker: bool = False) -> list[int]:
    """Live (not zombie) child processes of ``pid``, from /proc; multiprocessing's resource tracker only
    if ``tracker`` (one per process that started a child: it leaves when that process ends)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if tracker or b"resource_tracker" not in cmdline:
                out.append(int(entry.name))
    return out


def _gone(pid: int, wait_s: float = 0.0) -> bool:
    end = time.monotonic() + wait_s
    while not _dead(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return _dead(pid)


def _dead(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2] == "Z"


@pytest.fixture
def proc_service(qtbot):
    svc = ComputeService(warm_up=False, mode="process")
    yield svc
    pid = svc.child.pid
    assert svc.stop(5.0)
    assert pid is None or _gone(pid)
    assert not _children(os.getpid())


def _wait_result(qtbot, svc, request, timeout=30000):
    got = []
    h = svc.submit(request, on_result=got.append, on_error=got.append)
    qtbot.waitUntil(lambda: h.done, timeout=timeout)
    return h, got[0] if got else None


def test_jobs_run_in_the_child_and_errors_come_back(qtbot, proc_service):
    h, r = _wait_result(qtbot, proc_service, ProbeRequest())
    assert h.status == "done" and r.value["pid"] != os.getpid() and r.value["pid"] == proc_service.child.pid
    h, f = _wait_result(qtbot, proc_service, ProbeRequest(fail="base must be greater than 1", key="b"))
    assert h.status == "failed" and f.message == "base must be greater than 1" and "ValueError" in f.details
    # The policy is the service's, unchanged: a request waiting behind a running one is superseded.
    first = proc_service.submit(ProbeRequest(sleep_s=0.3, key="c"))
    qtbot.waitUntil(lambda: first.status == "running", timeout=30000)
    middle = proc_service.submit(ProbeRequest(sleep_s=0.01, key="c"))
    h, r = _wait_result(qtbot, proc_service, ProbeRequest(sleep_s=0.02, key="c"))
    assert middle.status == "superseded" and first.status == "done" and r.request.sleep_s == 0.02


def test_torch_in_the_child_uses_one_thread_from_its_first_import(qtbot, proc_service):
    """No warm-up here (it sets one thread, but after the panels' first jobs, and never in a child started again
    after a crash): a job that imports torch first finds one thread all the same (the machine has two)."""
    h, r = _wait_result(qtbot, proc_service, ProbeRequest(load_torch=True, key="threads"))
    assert h.status == "done", r
    assert r.value["torch_threads"] == 1


def test_a_lesson_check_runs_in_the_child(qtbot, proc_service):
    """A lesson step's check (issue 17) pickles to the child, which learns its job by unpickling the request;
    torch's learned table is refused there, not in the UI process."""
    from explorer.lessons.checks import CheckRequest

    h, r = _wait_result(qtbot, proc_service, CheckRequest("learned_table_refuses", (("d_model", 8), ("rows", 16))),
                        timeout=120000)
    assert h.status == "done" and r.value.passed and "index out of range" in r.value.values["refusal"]
    h, f = _wait_result(qtbot, proc_service, CheckRequest("fastest_pair", (("d_model", 3),), key="lesson.bad"))
    assert h.status == "failed" and "even" in f.message


def test_a_killed_child_is_reported_and_started_again(qtbot, proc_service):
    running = proc_service.submit(ProbeRequest(sleep_s=60))
    qtbot.waitUntil(lambda: running.status == "running" and proc_service.child.pid is not None, timeout=30000)
    old = proc_service.child.pid
    time.sleep(0.2)  # inside the job
    os.kill(old, signal.SIGKILL)
    with qtbot.waitSignal(proc_service.failed, timeout=10000) as blocker:
        pass
    assert "compute process stopped unexpectedly (killed by SIGKILL)" in blocker.args[0].message
    assert running.status == "failed" and _gone(old)
    h, r = _wait_result(qtbot, proc_service, ProbeRequest(key="again"))
    assert h.status == "done" and r.value["pid"] not in (old, os.getpid()) and proc_service.child.starts == 2


def test_stop_in_the_middle_of_a_job_leaves_no_child(qtbot):
    svc = ComputeService(warm_up=False, mode="process")
    h = svc.submit(ProbeRequest(sleep_s=60))
    qtbot.waitUntil(lambda: h.status == "running" and svc.child.pid is not None, timeout=30000)
    pid = svc.child.pid
    assert svc.stop(3.0)  # within 3 s of a 60-s job: the child is ended, not waited for
    assert _gone(pid) and not svc.threads()
    assert svc.submit(ProbeRequest()).status == "refused"


# -- long jobs ------------------------------------------------------------------------------------
def _count(steps: int, sleep: float, control: JobControl, report):
    """A long job that pickles (module level): reports (its pid, step, paused when it reported) each step, and
    returns how it ended, its steps, its pid and the time its checkpoints held it."""
    done = 0
    try:
        for i in range(steps):
            control.checkpoint()
            time.sleep(sleep)
            done = i + 1
            report((os.getpid(), done, control.paused))
    except Cancelled:
        return ("cancelled", done, os.getpid(), control.paused_seconds)
    return ("done", done, os.getpid(), control.paused_seconds)


def test_a_long_job_runs_in_a_child_and_pauses_resumes_cancels(qtbot, proc_service):
    progress, results = [], []
    h = proc_service.submit_long(functools.partial(_count, 100_000, 0.005), on_progress=progress.append,
                                 on_result=results.append, name="pe-long-test")
    qtbot.waitUntil(lambda: len(progress) > 3, timeout=30000)
    child = h.process.pid
    assert progress[0][0] == child != os.getpid()
    h.pause()
    assert h.paused
    n = settled_count(qtbot, lambda: len(progress), "reports")  # held at its checkpoint
    h.resume()
    qtbot.waitUntil(lambda: len(progress) > n, timeout=5000)
    # Held at its checkpoint, in the child: only the step under way when it was paused reported while paused
    # (counted in the child, so a report late on its way to the UI thread does not count as a step).
    assert sum(p[2] for p in progress) <= 1
    h.cancel()
    qtbot.waitUntil(lambda: bool(results), timeout=5000)
    assert results[0][0] == "cancelled" and results[0][2] == child
    assert results[0][3] > 0  # the child's own checkpoint held it
    assert h.status == "done" and not h.running and _gone(child)


def test_a_killed_long_child_is_a_failure(qtbot, proc_service):
    progress, errors = [], []
    h = proc_service.submit_long(functools.partial(_count, 100_000, 0.005), on_progress=progress.append,
                                 on_error=errors.append, origin="lab")
    qtbot.waitUntil(lambda: bool(progress), timeout=30000)
    os.kill(h.process.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: bool(errors), timeout=10000)
    assert "training process stopped unexpectedly (killed by SIGKILL)" in errors[0].message
    assert errors[0].origin == "lab" and h.status == "failed" and not h.running


def test_stop_ends_a_long_child_that_does_not_reach_a_checkpoint(qtbot):
    svc = ComputeService(warm_up=False, mode="process")
    progress = []
    h = svc.submit_long(functools.partial(_count, 2, 60.0), on_progress=progress.append)
    qtbot.waitUntil(lambda: h.process is not None, timeout=30000)
    pid = h.process.pid
    time.sleep(0.5)
    assert svc.stop(1.0)
    assert _gone(pid) and not h.running and not svc.threads()


# -- the app --------------------------------------------------------------------------------------
def _env(tmp_path, **extra):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PE_EXPLORER_HOME": str(tmp_path),
           "PE_EXPLORER_COMPUTE": "process", "PYTHONPATH": str(ROOT)}
    env.update(extra)
    return env


def test_window_close_leaves_no_child(qtbot, monkeypatch):
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    monkeypatch.setenv("PE_EXPLORER_COMPUTE", "process")
    configure_pyqtgraph()
    w = MainWindow(restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.service.child.pid is not None, timeout=30000)
    pid = w.service.child.pid
    assert w.service.mode == "process" and pid in _children(os.getpid())
    w.close()
    assert _gone(pid) and not w.service.threads() and not _children(os.getpid())


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_quit_signal_to_the_app_leaves_no_child(tmp_path, sig):
    env = _env(tmp_path, PE_EXPLORER_REPORT_SHOWN="1", PE_EXPLORER_REPORT_PROCESS="1")
    proc = subprocess.Popen([sys.executable, "-m", "explorer"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        lines = dict(proc.stdout.readline().split("=", 1) for _ in range(2))  # either comes first
        assert set(lines) == {"shown_at", "process"}, lines
        report = json.loads(lines["process"])
        # The UI process after start-up: its objects frozen, one BLAS thread, no torch.
        assert report["pid"] == proc.pid and report["gc_frozen"] > 1000
        assert report["blas_threads"] == [1] and report["torch"] is False
        deadline = time.monotonic() + 30
        while not _children(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        children = _children(proc.pid, tracker=True)
        assert children, "the compute process did not start"
        time.sleep(0.5)  # the child is busy with the panels' first jobs and torch's import
        proc.send_signal(sig)
        rc = proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    _, err = proc.communicate()
    assert rc == 0, err
    assert "Traceback" not in err, err
    assert all(_gone(c, wait_s=5.0) for c in children)  # the compute child and the resource tracker


DRIVER = textwrap.dedent("""
    import json, sys, time
    from explorer.app import freeze_after_start, make_app, prepare_ui_process
    prepare_ui_process()
    app = make_app()
    from explorer.widgets.plots import configure_pyqtgraph
    configure_pyqtgraph()
    from explorer.main_window import MainWindow
    from explorer.state.lab import LabState
    w = MainWindow(restore_layout=False)
    w.show()
    freeze_after_start()

    def wait(cond, timeout=120):
        end = time.monotonic() + timeout
        while not cond() and time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)
        return cond()

    drawn = {}
    for name in list(w.docks):
        w.show_panel(name)
        panel = w.panels[name]
        drawn[name] = wait(lambda: panel.has_drawn and w.service.idle())
    lab = w.panels["lab"]
    lab.set_state(LabState(schemes=("nope", "rope"), train_len=8, eval_lens=(8, 16), steps=10))
    lab.start()
    trained = wait(lambda: lab.result is not None and not lab.runner.running, 180)
    out = {"drawn": drawn, "trained": trained and lab.result.status, "torch": "torch" in sys.modules,
           "failures": w.statusBar().currentMessage()}
    w.close()
    print("driver=" + json.dumps(out), flush=True)
""")


def test_the_ui_process_never_imports_torch(tmp_path):
    proc = subprocess.run([sys.executable, "-c", DRIVER], env=_env(tmp_path), capture_output=True, text=True,
                          timeout=300)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("driver=")]
    assert proc.returncode == 0 and lines, proc.stdout[-2000:] + proc.stderr[-3000:]
    out = json.loads(lines[0].split("=", 1)[1])
    assert all(out["drawn"].values()) and out["drawn"], out
    assert out["trained"] == "done", out
    assert out["torch"] is False, out


ORPHAN = textwrap.dedent("""
    import threading, time
    from explorer.jobs.misc import ProbeRequest
    from explorer.worker import ComputeProcess
    child = ComputeProcess()
    child.call(ProbeRequest())
    threading.Thread(target=child.call, args=(ProbeRequest(sleep_s=60),), daemon=True).start()
    time.sleep(0.3)  # the child is inside that job: only its watch on the parent can end it
    print(child.pid, flush=True)
    time.sleep(60)
""")


def test_a_child_leaves_by_itself_when_its_parent_is_killed(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", ORPHAN], env=_env(tmp_path), stdout=subprocess.PIPE, text=True)
    try:
        child = int(proc.stdout.readline())
        assert not _gone(child)
        proc.kill()  # SIGKILL: nothing of the parent runs, no stop(), no atexit
        proc.wait(10)
        assert _gone(child, wait_s=5.0)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()


def test_a_window_closed_before_the_welcome_offer_opens_nothing(qtbot):
    """SIGTERM right after the window is shown closed it before the welcome's 200-ms offer fired; the
    offer then opened the welcome and kept the event loop (and the app) running for ever."""
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    w = MainWindow(restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    w.close()
    assert w.welcome.offer() is False and w.welcome.dialog is None


UNGUARDED = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QCoreApplication, QElapsedTimer
from explorer.jobs.misc import ProbeRequest
from explorer.service import ComputeService

app = QCoreApplication.instance() or QCoreApplication(sys.argv)
print("script ran in", os.getpid(), flush=True)
service = ComputeService(mode="process", warm_up=False)
out = []
service.submit(ProbeRequest(), on_result=lambda r: out.append(r.value), on_error=lambda f: out.append(f.message))
t = QElapsedTimer(); t.start()
while not out and t.elapsed() < 60000:
    app.processEvents()
print("answer", out, flush=True)
service.stop()
"""


def test_a_script_without_a_main_guard_still_computes_in_the_child(tmp_path):
    """Spawn re-ran the main script in the child: a script that opens the app without
    ``if __name__ == "__main__":`` (a student's, a screenshot script) got a RuntimeError in every plot."""
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED)
    proc = subprocess.run([sys.executable, str(script)], env=_env(tmp_path), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("script ran in") == 1, proc.stdout  # not again in the child
    answer = next(line for line in proc.stdout.splitlines() if line.startswith("answer"))
    assert "'pid'" in answer and "RuntimeError" not in answer, answer
