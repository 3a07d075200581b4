"""The compute service's scheduling policy, tested with tiny plain jobs and no widgets.

Newest request per key, one in flight per key, equal requests skipped, pacing, callbacks that reach
only their requester, errors, origins, long jobs (progress, pause, cancel) and a clean stop.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import pytest
from waiting import settled_count

from explorer.jobs import job
from explorer.jobs.control import Cancelled, JobControl
from explorer.service import ComputeService

#: (key, value, perf_counter at start) of every job run, in order.
STARTS: list[tuple[str, int, float]] = []
GATES: dict[str, threading.Event] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Ask:
    value: int
    key: str = "policy.a"
    gate: str = ""  # wait for this gate before returning
    fail: bool = False


@job(Ask)
def _ask(req: Ask) -> int:
    with _lock:
        STARTS.append((req.key, req.value, time.perf_counter()))
    if req.gate:
        GATES[req.gate].wait(5)
    if req.fail:
        raise ValueError(f"no answer for {req.value}")
    return req.value * 10


def _runs(key: str = "policy.a") -> list[int]:
    with _lock:
        return [v for k, v, _ in STARTS if k == key]


@pytest.fixture(autouse=True)
def _fresh():
    STARTS.clear()
    GATES.clear()
    yield
    for g in GATES.values():
        g.set()


def _gate(name: str) -> threading.Event:
    GATES[name] = threading.Event()
    return GATES[name]


def _started(key: str, value: int):
    return lambda: value in _runs(key)


# -- newest per key -------------------------------------------------------------------------------
def test_a_newer_request_supersedes_a_pending_one(qtbot, service):
    gate = _gate("block")
    blocker = service.submit(Ask(0, key="policy.blocker", gate="block"))  # occupies the worker
    qtbot.waitUntil(_started("policy.blocker", 0), timeout=2000)
    got = []
    handles = [service.submit(Ask(v), on_result=got.append) for v in (1, 2, 3)]
    assert [h.status for h in handles] == ["superseded", "superseded", "pending"]
    gate.set()
    qtbot.waitUntil(lambda: handles[-1].done, timeout=5000)
    assert _runs() == [3] and [r.value for r in got] == [30]
    assert service.superseded == 2 and blocker.status == "done"


def test_the_same_request_again_replaces_a_pending_one_without_counting_it_superseded(qtbot, service):
    gate = _gate("block2")
    service.submit(Ask(0, key="policy.blocker", gate="block2"))
    qtbot.waitUntil(_started("policy.blocker", 0), timeout=2000)
    first, again = service.submit(Ask(5)), service.submit(Ask(5))
    assert first.status == "superseded" and again.status == "pending" and service.superseded == 0
    gate.set()
    qtbot.waitUntil(lambda: again.done, timeout=5000)
    assert _runs() == [5]


# -- held until wanted ----------------------------------------------------------------------------
def test_a_held_request_does_not_run_and_the_next_submit_replaces_it(qtbot, service):
    got = []
    held = service.submit(Ask(1), on_result=got.append, hold=True)
    assert held.status == "held" and not held.done
    qtbot.wait(150)
    assert _runs() == [] and service.idle()  # held is not work in progress
    rehold = service.submit(Ask(2), on_result=got.append, hold=True)
    assert held.status == "superseded" and rehold.status == "held"
    wanted = service.submit(Ask(2), on_result=got.append)  # its views are on screen again: run it
    assert rehold.status == "superseded" and wanted.status == "pending"
    qtbot.waitUntil(lambda: wanted.done, timeout=5000)
    assert _runs() == [2] and [r.value for r in got] == [20]


def test_a_held_request_equal_to_what_is_shown_is_skipped_and_one_can_be_cancelled(qtbot, service):
    got = []
    first = service.submit(Ask(3), on_result=got.append)
    qtbot.waitUntil(lambda: first.done, timeout=5000)
    same = service.submit(Ask(3), on_result=got.append, hold=True)
    assert same.status == "skipped"  # the requester has it already: nothing to hold
    other = service.submit(Ask(4), on_result=got.append, hold=True)
    other.cancel()
    assert other.status == "cancelled"
    qtbot.wait(100)
    assert _runs() == [3] and [r.value for r in got] == [30]


def test_stop_drops_held_requests(qtbot):
    svc = ComputeService(warm_up=False, mode="thread")
    held = svc.submit(Ask(7), hold=True)
    assert svc.stop(5.0) and held.status == "cancelled" and _runs() == []


# -- one in flight per key ------------------------------------------------------------------------
def test_one_in_flight_per_key_then_the_newest_pending_runs(qtbot, service):
    gate = _gate("a1")
    got = []
    first = service.submit(Ask(1, gate="a1"), on_result=got.append)
    qtbot.waitUntil(_started("policy.a", 1), timeout=2000)
    second = service.submit(Ask(2), on_result=got.append)
    third = service.submit(Ask(3), on_result=got.append)
    qtbot.wait(150)  # 2 and 3 wait for 1 (3 replaces 2, which never runs)
    assert _runs() == [1] and second.status == "superseded" and third.status == "pending"
    gate.set()
    qtbot.waitUntil(lambda: third.done, timeout=5000)
    # The running job's result is delivered (it was the newest that had started), then the newest.
    assert [r.value for r in got] == [10, 30] and _runs() == [1, 3]
    assert first.status == "done" and third.status == "done"


def test_a_key_waits_for_its_own_job_not_for_other_keys(qtbot, service):
    gate = _gate("slow")
    service.submit(Ask(1, key="policy.slow", gate="slow"))
    qtbot.waitUntil(_started("policy.slow", 1), timeout=2000)
    later = service.submit(Ask(2, key="policy.slow"))
    other = service.submit(Ask(5, key="policy.other"))
    gate.set()
    qtbot.waitUntil(lambda: later.done and other.done, timeout=5000)
    with _lock:
        order = [(k, v) for k, v, _ in STARTS]
    assert order[0] == ("policy.slow", 1) and set(order[1:]) == {("policy.slow", 2), ("policy.other", 5)}


# -- equal requests -------------------------------------------------------------------------------
def test_an_equal_request_takes_over_the_running_job(qtbot, service):
    gate = _gate("eq")
    got = []
    first = service.submit(Ask(7, gate="eq"), origin="step 1", on_result=got.append)
    qtbot.waitUntil(_started("policy.a", 7), timeout=2000)
    again = service.submit(Ask(7, gate="eq"), origin="step 2", on_result=got.append)
    assert first.status == "superseded" and again.status == "running"
    gate.set()
    qtbot.waitUntil(lambda: again.done, timeout=5000)
    assert _runs() == [7]  # computed once
    assert [(r.value, r.origin) for r in got] == [(70, "step 2")]  # for the newest requester


def test_a_request_equal_to_the_last_delivered_is_not_run_again(qtbot, service):
    got = []
    h = service.submit(Ask(4), on_result=got.append)
    qtbot.waitUntil(lambda: h.done, timeout=5000)
    same = service.submit(Ask(4), on_result=got.append)
    assert same.status == "skipped" and same.done
    qtbot.wait(100)
    assert _runs() == [4] and len(got) == 1
    # Another requester has not seen that result: it is computed for it.
    other = []
    h2 = service.submit(Ask(4), on_result=other.append)
    qtbot.waitUntil(lambda: h2.done, timeout=5000)
    assert [r.value for r in other] == [40] and _runs() == [4, 4]


def test_a_failed_request_runs_again_when_asked_again(qtbot, service):
    errors = []
    h = service.submit(Ask(9, fail=True), on_error=errors.append)
    qtbot.waitUntil(lambda: h.done, timeout=5000)
    h2 = service.submit(Ask(9, fail=True), on_error=errors.append)
    qtbot.waitUntil(lambda: h2.done, timeout=5000)
    assert _runs() == [9, 9] and len(errors) == 2 and h2.status == "failed"


def test_back_to_what_is_drawn_while_another_runs_is_computed_after_it(qtbot, service):
    got = []
    h = service.submit(Ask(1), on_result=got.append)
    qtbot.waitUntil(lambda: h.done, timeout=5000)
    gate = _gate("b")
    service.submit(Ask(2, gate="b"), on_result=got.append)
    qtbot.waitUntil(_started("policy.a", 2), timeout=2000)
    back = service.submit(Ask(1), on_result=got.append)  # 2's result would overwrite it: must run
    gate.set()
    qtbot.waitUntil(lambda: back.done, timeout=5000)
    assert [r.value for r in got] == [10, 20, 10]


# -- pacing ---------------------------------------------------------------------------------------
def _frozen_clock(monkeypatch) -> None:
    """The service's clock stands still: a request that waits for any pace never starts, one that waits for none
    starts (what "at once" means, with no bound on wall time a loaded machine could break)."""
    import types

    from explorer.service import core

    monkeypatch.setattr(core, "time", types.SimpleNamespace(perf_counter=lambda: 1000.0, monotonic=time.monotonic,
                                                            sleep=time.sleep))


def test_pacing_spaces_the_starts_of_one_key(qtbot, service):
    handles, starts = [], []
    for v in range(4):
        handles.append(service.submit(Ask(v), pace_s=0.12))
        qtbot.waitUntil(lambda: handles[-1].done, timeout=5000)  # each one waits for its slot
        starts.append(service._started_at["policy.a"])  # when the service started it (a job's own clock may lag)
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert len(set(starts)) == 4 and min(gaps) >= 0.12, gaps
    with _lock:
        assert [v for k, v, _ in STARTS if k == "policy.a"] == [0, 1, 2, 3]


def test_a_paced_key_does_not_pace_another(qtbot, service, monkeypatch):
    _frozen_clock(monkeypatch)
    first = service.submit(Ask(1), pace_s=0.12)
    qtbot.waitUntil(lambda: first.done, timeout=5000)  # the key's first start is due at once
    paced = service.submit(Ask(2), pace_s=0.12)
    h = service.submit(Ask(1, key="policy.free"))
    qtbot.waitUntil(lambda: h.done, timeout=5000)  # another key starts, the clock standing still
    assert paced.status == "pending"  # the paced key's next waits for its pace: never, here
    paced.cancel()


def test_unpaced_requests_start_at_once(qtbot, service, monkeypatch):
    _frozen_clock(monkeypatch)
    for v in (1, 2):
        h = service.submit(Ask(v))
        qtbot.waitUntil(lambda h=h: h.done, timeout=5000)  # no pace: started with the clock standing still
    paced = service.submit(Ask(3), pace_s=0.5)
    qtbot.wait(200)
    assert paced.status == "pending"  # (the clock does stand still: a paced one is held)
    paced.cancel()


# -- callbacks, origins, errors ---------------------------------------------------------------------
def test_callbacks_reach_only_their_requester_with_its_origin(qtbot, service):
    mine, theirs, everyone = [], [], []
    service.resultReady.connect(everyone.append)
    a = service.submit(Ask(1, key="policy.mine"), origin=11, on_result=mine.append)
    b = service.submit(Ask(2, key="policy.theirs"), origin=("panel", 3), on_result=theirs.append)
    qtbot.waitUntil(lambda: a.done and b.done, timeout=5000)
    assert [(r.value, r.origin, r.key) for r in mine] == [(10, 11, "policy.mine")]
    assert [(r.value, r.origin) for r in theirs] == [(20, ("panel", 3))]
    assert {r.key for r in everyone} == {"policy.mine", "policy.theirs"}  # observers see all
    assert all(threading.current_thread() is threading.main_thread() for _ in mine)


def test_errors_come_back_to_on_error_with_the_origin(qtbot, service):
    ok, errors, announced = [], [], []
    service.failed.connect(announced.append)
    h = service.submit(Ask(3, fail=True), origin="o-3", on_result=ok.append, on_error=errors.append)
    qtbot.waitUntil(lambda: h.done, timeout=5000)
    assert ok == [] and h.status == "failed"
    (f,) = errors
    assert f.message == "no answer for 3" and f.origin == "o-3" and f.request == Ask(3, fail=True)
    assert "ValueError" in f.details and announced == [f]


def test_a_cancelled_handle_hears_nothing(qtbot, service):
    gate = _gate("c")
    got = []
    h = service.submit(Ask(1, gate="c"), on_result=got.append)
    qtbot.waitUntil(_started("policy.a", 1), timeout=2000)
    h.cancel()
    gate.set()
    qtbot.waitUntil(service.idle, timeout=5000)
    qtbot.wait(50)
    assert got == [] and h.status == "cancelled" and service.dropped == 1
    pending = service.submit(Ask(2, key="policy.b", gate="c2"))
    pending.cancel()
    assert pending.status == "cancelled" and service.idle()


# -- long jobs ------------------------------------------------------------------------------------
def _counting_job(steps: int, sleep: float = 0.01, report_paused: bool = False):
    """A long job that reports its step count each step (``report_paused``: whether it was paused when it reported)."""
    def fn(control: JobControl, report):
        done = 0
        try:
            for i in range(steps):
                control.checkpoint()
                time.sleep(sleep)
                done = i + 1
                report(control.paused if report_paused else done)
        except Cancelled:
            return ("cancelled", done)
        return ("done", done)

    return fn


def test_a_long_job_reports_progress_and_its_result(qtbot, service):
    progress, results = [], []
    h = service.submit_long(_counting_job(5), on_progress=progress.append, on_result=results.append,
                            name="pe-long-test")
    assert h.thread.name == "pe-long-test" and h.thread is not service.worker_thread
    qtbot.waitUntil(lambda: bool(results), timeout=5000)
    assert progress == [1, 2, 3, 4, 5] and results == [("done", 5)]
    assert h.status == "done" and not h.running  # the worker has ended when the result arrives


def test_a_long_job_pauses_resumes_and_cancels(qtbot, service):
    progress, results = [], []
    h = service.submit_long(_counting_job(100_000, 0.002, report_paused=True), on_progress=progress.append,
                            on_result=results.append)
    qtbot.waitUntil(lambda: len(progress) > 3, timeout=5000)
    h.pause()
    assert h.paused
    n = settled_count(qtbot, lambda: len(progress), "reports")  # held at its checkpoint
    h.resume()
    qtbot.waitUntil(lambda: len(progress) > n, timeout=5000)
    # Paused: held at its checkpoint.  Only the step under way when it was paused reported while paused (counted
    # in the job, so a report late on its way to the UI thread does not count as a step).
    assert sum(progress) <= 1 and h.control.paused_seconds > 0
    t0 = time.monotonic()
    h.cancel()
    qtbot.waitUntil(lambda: bool(results), timeout=2000)
    assert time.monotonic() - t0 < 1.0
    assert results[0][0] == "cancelled" and not h.running


def test_a_failing_long_job_reaches_on_error(qtbot, service):
    def fn(control, report):
        report("half")
        raise RuntimeError("out of memory")

    progress, errors = [], []
    h = service.submit_long(fn, on_progress=progress.append, on_error=errors.append, origin="lab")
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    assert progress == ["half"] and errors[0].message == "RuntimeError: out of memory"
    assert errors[0].origin == "lab" and h.status == "failed"


def test_a_long_job_does_not_block_interactive_requests(qtbot, service):
    h = service.submit_long(_counting_job(100_000, 0.002))
    qtbot.waitUntil(lambda: h.running, timeout=2000)
    got = []
    r = service.submit(Ask(6), on_result=got.append)
    qtbot.waitUntil(lambda: r.done, timeout=2000)
    assert [x.value for x in got] == [60] and h.running
    h.cancel()
    assert h.join(2.0)


# -- stop -----------------------------------------------------------------------------------------
def test_stop_cancels_and_joins_every_worker(qtbot):
    svc = ComputeService(warm_up=False)
    gate = _gate("stop")
    heard = []
    svc.submit(Ask(1, gate="stop"), on_result=heard.append)
    qtbot.waitUntil(_started("policy.a", 1), timeout=2000)
    pending = svc.submit(Ask(2), on_result=heard.append)
    longs = [svc.submit_long(_counting_job(100_000, 0.002), on_result=heard.append, name=f"pe-long-{i}")
             for i in range(2)]
    qtbot.waitUntil(lambda: all(h.running for h in longs), timeout=2000)
    threading.Timer(0.1, gate.set).start()  # the running job returns while stop() waits for it
    assert svc.stop(3.0)
    assert not svc.threads() and not svc.worker_thread.is_alive()
    assert all(not h.running for h in longs) and pending.status == "cancelled"
    qtbot.wait(100)
    assert heard == []  # nothing is delivered after stop
    assert svc.submit(Ask(3)).status == "refused"
    assert svc.submit_long(_counting_job(1)).status == "refused"
