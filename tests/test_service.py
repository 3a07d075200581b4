"""The compute service: superseding, stale-result dropping, errors, shutdown (pytest-qt).

The scheduling policy itself (one in flight per key, equal requests, pacing, callbacks, long jobs)
is tested with plain jobs in tests/test_service_policy.py."""

import threading
import time
from dataclasses import dataclass

import pytest

from explorer import jobs
from explorer.jobs import job
from explorer.service import ComputeService

GATE = threading.Event()


@dataclass(frozen=True)
class SlowRequest:
    value: int
    key: str = "test.slow"
    delay: float = 0.0
    wait_gate: bool = False


@job(SlowRequest)
def _slow(req: SlowRequest):
    if req.wait_gate:
        GATE.wait(5)
    time.sleep(req.delay)
    return req.value * 2


@dataclass(frozen=True)
class BoomRequest:
    key: str = "test.boom"


@job(BoomRequest)
def _boom(req):
    raise ValueError("base must be greater than 1, got 0.5")


@dataclass(frozen=True)
class CrashRequest:
    key: str = "test.crash"


@job(CrashRequest)
def _crash(req):
    return 1 / 0


def test_result_arrives_on_ui_thread(qtbot, service):
    seen = []
    service.resultReady.connect(lambda r: seen.append((r.value, threading.current_thread() is threading.main_thread())))
    with qtbot.waitSignal(service.resultReady, timeout=5000):
        service.submit(SlowRequest(21))
    assert seen == [(42, True)]


def test_newer_request_supersedes_pending_one(qtbot, service):
    GATE.clear()
    results = []
    service.resultReady.connect(lambda r: results.append((r.key, r.value)))
    service.submit(SlowRequest(0, key="test.blocker", wait_gate=True))  # occupies the worker
    gens = [service.submit(SlowRequest(v)) for v in range(1, 30)]
    assert service.superseded == 28
    GATE.set()
    qtbot.waitUntil(lambda: ("test.slow", 58) in results, timeout=5000)
    qtbot.wait(50)
    assert [r for r in results if r[0] == "test.slow"] == [("test.slow", 58)]
    assert service.is_current("test.slow", gens[-1].generation)
    assert [h.status for h in gens[:-1]] == ["superseded"] * 28


def test_stale_result_is_dropped(qtbot, service):
    # One in flight per key: a newer request waits for the running one, whose result is still drawn;
    # a result whose requester has cancelled it is stale and dropped.
    results = []
    service.resultReady.connect(lambda r: results.append(r.value))
    GATE.clear()  # the first runs until the test lets it go: "running" is not a state of 0.3 s a loaded machine misses
    try:
        first = service.submit(SlowRequest(1, wait_gate=True))
        qtbot.waitUntil(lambda: first.status == "running", timeout=5000)
        first.cancel()
        service.submit(SlowRequest(2))
    finally:
        GATE.set()
    qtbot.waitUntil(lambda: 4 in results, timeout=5000)
    qtbot.wait(100)
    assert results == [4]
    assert service.dropped >= 1 and first.status == "cancelled"


def test_keys_are_independent(qtbot, service):
    results = {}
    service.resultReady.connect(lambda r: results.__setitem__(r.key, r.value))
    service.submit(SlowRequest(1, key="a"))
    service.submit(SlowRequest(2, key="b"))
    qtbot.waitUntil(lambda: len(results) == 2, timeout=5000)
    assert results == {"a": 2, "b": 4}


def test_errors_come_back_and_service_keeps_running(qtbot, service):
    with qtbot.waitSignal(service.failed, timeout=5000) as blocker:
        service.submit(BoomRequest())
    assert blocker.args[0].message == "base must be greater than 1, got 0.5"
    with qtbot.waitSignal(service.failed, timeout=5000) as blocker:
        service.submit(CrashRequest())
    assert "ZeroDivisionError" in blocker.args[0].message
    with qtbot.waitSignal(service.resultReady, timeout=5000):
        service.submit(SlowRequest(5))


def test_the_services_worker_leaves_qobjects_thread_alone(qtbot):
    # The worker is ``worker_thread``: QObject.thread() (the Qt thread the service lives in) still answers.
    from PySide6.QtCore import QThread

    svc = ComputeService(warm_up=False)
    try:
        assert isinstance(svc.thread(), QThread) and svc.worker_thread.is_alive()
    finally:
        svc.stop(timeout=2.0)


def test_stop_joins_the_worker_even_with_work_pending(qtbot):
    svc = ComputeService(warm_up=False)
    svc.submit(SlowRequest(1, delay=0.2))
    for v in range(50):
        svc.submit(SlowRequest(v, key=f"k{v}"))
    t0 = time.monotonic()
    assert svc.stop(timeout=2.0)
    assert time.monotonic() - t0 < 2.0
    assert not svc.worker_thread.is_alive()
    refused = svc.submit(SlowRequest(1))  # a stopped service accepts nothing
    assert refused.status == "refused" and refused.generation == -1


def test_warm_up_imports_torch_on_the_worker(qtbot):
    svc = ComputeService(warm_up=True)
    try:
        with qtbot.waitSignal(svc.resultReady, timeout=30000) as blocker:
            pass
        assert blocker.args[0].value.startswith("torch ")
    finally:
        assert svc.stop(5.0)


def test_jobs_run_synchronously_for_cli_and_tests():
    assert jobs.run(SlowRequest(4)) == 8
    with pytest.raises(TypeError):
        jobs.run(object())


def test_a_paused_service_queues_until_resumed(qtbot):
    svc = ComputeService(warm_up=False, paused=True)
    try:
        got = []
        svc.resultReady.connect(lambda r: got.append(r.value))
        svc.submit(SlowRequest(3))
        qtbot.wait(200)
        assert got == [] and not svc.idle()
        svc.resume()
        qtbot.waitUntil(lambda: got == [6], timeout=5000)
    finally:
        assert svc.stop(5.0)
