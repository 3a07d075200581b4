"""The UI thread sends requests to the compute child itself (process mode on POSIX): a request is in the child as
soon as the policy lets it start, every key's request can wait there at once, a reader thread hands the replies back
in order — with the same policy, the same errors and the same recovery as the worker thread's path, which other
systems keep."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from explorer.jobs.misc import ProbeRequest
from explorer.service import ComputeService, core

pytestmark = pytest.mark.skipif(not core.DIRECT_PIPE, reason="the UI thread sends to the child on POSIX only")


@pytest.fixture
def svc(qtbot):
    service = ComputeService(warm_up=False, mode="process")
    yield service
    assert service.stop(5.0) and not service.threads()


def _submit(service, request, **kw):
    got: list = []
    handle = service.submit(request, on_result=got.append, on_error=got.append, **kw)
    return handle, got


def test_requests_reach_the_child_from_the_ui_thread_and_run_while_it_is_busy(qtbot, svc):
    warm, _ = _submit(svc, ProbeRequest(key="warm"))  # the child started and its imports done
    qtbot.waitUntil(lambda: warm.done, timeout=30000)
    assert svc.worker_thread is None and [t.name for t in svc.threads()] == ["pe-compute-reader"]
    first, a = _submit(svc, ProbeRequest(sleep_s=0.3, key="a"))
    second, b = _submit(svc, ProbeRequest(key="b"))
    third, c = _submit(svc, ProbeRequest(key="c"))
    # Sent at submit: all three are in the child (each key once), none waits for the UI thread.
    assert [h.status for h in (first, second, third)] == ["running"] * 3
    # The UI thread busy, no event processed: the child still works through all three, and the reader takes
    # their replies.
    end = time.monotonic() + 30
    while svc._pipe.in_child() and time.monotonic() < end:
        time.sleep(0.01)
    assert svc._pipe.in_child() == 0
    assert not (a or b or c)  # delivered on the UI thread only
    qtbot.waitUntil(lambda: first.done and second.done and third.done, timeout=10000)
    began = [got[0].value["began"] for got in (a, b, c)]
    assert began[1] - began[0] >= 0.3 and began[2] >= began[1]  # one after another, in the child


def test_the_policy_holds_a_keys_newer_request_until_its_job_returns(qtbot, svc):
    running, _ = _submit(svc, ProbeRequest(sleep_s=0.3, key="k"))
    middle, _ = _submit(svc, ProbeRequest(sleep_s=0.01, key="k"))
    newest, got = _submit(svc, ProbeRequest(sleep_s=0.02, key="k"))
    assert running.status == "running" and middle.status == "superseded" and newest.status == "pending"
    qtbot.waitUntil(lambda: newest.done, timeout=30000)
    assert running.status == "done" and got[0].request.sleep_s == 0.02


def test_a_paced_key_starts_no_sooner_than_its_pace(qtbot, svc):
    warm, _ = _submit(svc, ProbeRequest(key="warm"))  # (the pace counts from the send: the child's start-up aside)
    qtbot.waitUntil(lambda: warm.done, timeout=30000)
    sent = time.monotonic()  # the first is sent after this, and the pace counts from its send
    first, a = _submit(svc, ProbeRequest(key="p"), pace_s=1.0)
    second, b = _submit(svc, ProbeRequest(sleep_s=0.001, key="p"), pace_s=1.0)
    assert second.status == "pending"  # waits for the first, then for its pace, on a timer
    qtbot.waitUntil(lambda: first.done and second.done, timeout=10000)
    assert b[0].value["began"] - sent >= 1.0 and b[0].value["began"] > a[0].value["began"]


def test_a_big_request_waits_until_the_child_is_free_and_none_hangs_the_ui_thread(qtbot, svc):
    """A request pickled larger than the pipe holds is written only once the child has answered what it has (the UI
    thread writes it): one written behind a job would wait for that job, and a reply the reader could not take while
    the UI thread waited would hold both sides for good."""
    from explorer.service import pipe

    warm, _ = _submit(svc, ProbeRequest(key="warm"))
    qtbot.waitUntil(lambda: warm.done, timeout=30000)
    busy, a = _submit(svc, ProbeRequest(sleep_s=3.0, key="busy"))
    t0 = time.monotonic()
    big, b = _submit(svc, ProbeRequest(fail="", key="x" * (4 * pipe.BIG_REQUEST)))
    after, c = _submit(svc, ProbeRequest(key="after"))
    # Neither written behind the running job (a write of the big one would have waited for its 3 s).
    assert svc._pipe.in_child() == 1 and time.monotonic() - t0 < 1.5
    qtbot.waitUntil(lambda: busy.done and big.done and after.done, timeout=10000)
    assert [got[0].value["pid"] for got in (a, b, c)] == [svc.child.pid] * 3
    assert a[0].value["began"] < b[0].value["began"] < c[0].value["began"]  # in the order they were asked for


def test_a_request_that_cannot_be_sent_fails_after_submit_returns_and_the_next_one_runs(qtbot, svc):
    bad, got = _submit(svc, ProbeRequest(fail=lambda: None, key="bad"))  # a lambda does not pickle
    assert not got  # never inside the requester's own submit()
    qtbot.waitUntil(lambda: bad.done, timeout=30000)
    assert bad.status == "failed" and "pickle" in got[0].message.lower()
    good, ok = _submit(svc, ProbeRequest(key="good"))
    qtbot.waitUntil(lambda: good.done, timeout=30000)
    assert good.status == "done" and ok[0].value["pid"] == svc.child.pid and svc.child.starts == 1


def test_a_child_that_dies_fails_every_request_it_had_and_the_next_one_starts_a_new_child(qtbot, svc):
    stuck, a = _submit(svc, ProbeRequest(sleep_s=60, key="a"))
    waiting, b = _submit(svc, ProbeRequest(key="b"))
    qtbot.waitUntil(lambda: svc.child.pid is not None, timeout=30000)
    old = svc.child.pid
    time.sleep(0.3)
    os.kill(old, signal.SIGKILL)
    qtbot.waitUntil(lambda: stuck.done and waiting.done, timeout=10000)
    for handle, got in ((stuck, a), (waiting, b)):
        assert handle.status == "failed" and "stopped unexpectedly (killed by SIGKILL)" in got[0].message
    again, c = _submit(svc, ProbeRequest(key="again"))
    qtbot.waitUntil(lambda: again.done, timeout=30000)
    assert again.status == "done" and c[0].value["pid"] not in (old, os.getpid()) and svc.child.starts == 2


def test_writing_a_request_does_not_wake_the_reader_which_waits_on_the_childs_pipe(qtbot, monkeypatch):
    """A drag step's first request woke the reader, which took the interpreter while the UI thread wrote; the UI
    thread got it back a wake-up later (about 1 ms between a Waves step's first request and its second)."""
    from explorer.service import pipe

    notified = []

    class Counting(threading.Condition):
        def notify(self, n=1):
            notified.append(self)
            super().notify(n)

    monkeypatch.setattr(pipe.threading, "Condition", Counting)
    service = ComputeService(warm_up=False, mode="process")
    try:
        warm, _ = _submit(service, ProbeRequest(key="warm"))
        qtbot.waitUntil(lambda: warm.done, timeout=30000)
        def reader_woken() -> int:
            return sum(cv is service._pipe._cv for cv in notified)

        assert reader_woken() == 1  # the first child: the reader learns which pipe to wait on
        for i in range(10):
            handle, _ = _submit(service, ProbeRequest(key=f"k{i}"))
            qtbot.waitUntil(lambda h=handle: h.done, timeout=10000)
            assert handle.status == "done"
        assert reader_woken() == 1
    finally:
        assert service.stop(5.0) and not service.threads()


def test_a_child_that_dies_while_idle_is_let_go_without_a_busy_wait_and_replaced(qtbot, svc, monkeypatch):
    from explorer.service import pipe

    waits = []
    real = pipe.ChildPipe._replied_by
    monkeypatch.setattr(pipe.ChildPipe, "_replied_by", staticmethod(lambda route: waits.append(1) or real(route)))
    warm, _ = _submit(svc, ProbeRequest(key="warm"))
    qtbot.waitUntil(lambda: warm.done, timeout=30000)
    old = svc.child.pid
    os.kill(old, signal.SIGKILL)
    qtbot.waitUntil(lambda: svc._pipe._route is None, timeout=5000)  # the reader found its pipe at its end
    before = len(waits)
    time.sleep(0.5)
    assert len(waits) == before  # waiting for the next request, not polling a dead pipe
    again, got = _submit(svc, ProbeRequest(key="again"))
    qtbot.waitUntil(lambda: again.done, timeout=30000)
    assert again.status == "done" and got[0].value["pid"] not in (old, os.getpid()) and svc.child.starts == 2


def test_a_request_written_to_a_pipe_closed_under_it_fails_and_the_reader_goes_on(qtbot, svc):
    """A child that crashed was still alive, not yet reaped, when the next request was sent to it, and the reader
    had closed its pipe meanwhile: the request went to the closed pipe, the reader waited for a live one, and no
    reply was read again (the next child's filled its pipe, and a write then blocked the UI thread)."""
    warm, _ = _submit(svc, ProbeRequest(key="warm"))
    qtbot.waitUntil(lambda: warm.done, timeout=30000)
    route = svc.child.route()
    with svc.child._lock:
        svc.child._close_pipe(route)  # its child still alive: the next request is written to this closed pipe
    lost, got = _submit(svc, ProbeRequest(key="lost"))
    qtbot.waitUntil(lambda: lost.done, timeout=10000)
    assert lost.status == "failed" and "stopped unexpectedly" in got[0].message
    after, got = _submit(svc, ProbeRequest(key="after"))
    qtbot.waitUntil(lambda: after.done, timeout=30000)
    assert after.status == "done" and svc.child.starts == 2


def test_stop_with_requests_in_the_child_delivers_nothing_and_leaves_no_child(qtbot):
    svc = ComputeService(warm_up=False, mode="process")
    handles = [_submit(svc, ProbeRequest(sleep_s=0.2, key=f"k{i}")) for i in range(3)]
    qtbot.waitUntil(lambda: svc.child.pid is not None, timeout=30000)
    pid = svc.child.pid
    assert svc.stop(3.0) and not svc.threads()
    qtbot.wait(300)
    assert all(not got for _, got in handles) and svc.child.pid is None
    assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split(") ")[1][0] == "Z"


def test_elsewhere_a_worker_thread_sends_each_request_and_waits_for_the_child(qtbot, monkeypatch):
    monkeypatch.setattr(core, "DIRECT_PIPE", False)
    service = ComputeService(warm_up=False, mode="process")
    try:
        assert service.worker_thread is not None and service.worker_thread.is_alive()
        first, a = _submit(service, ProbeRequest(sleep_s=0.2, key="a"))
        second, b = _submit(service, ProbeRequest(key="b"))
        qtbot.waitUntil(lambda: first.done and second.done, timeout=30000)
        assert a[0].value["pid"] == b[0].value["pid"] == service.child.pid != os.getpid()
    finally:
        assert service.stop(5.0) and not service.threads()
