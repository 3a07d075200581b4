"""The bench's wake-up probe: a round trip to a waiting process and thread, and what it leaves out when it fails."""

from __future__ import annotations

import time

from explorer.bench import wake
from explorer.bench.report import _speed


def test_a_round_trip_to_a_waiting_process_and_thread_is_measured_after_each_pause():
    t0 = time.perf_counter()
    out = wake.wake_round_trip(pings=20, pause_s=0.005)
    assert time.perf_counter() - t0 >= 2 * 20 * 0.005  # both sides slept before each ping
    assert set(out) == {"process_us", "process_p90_us", "thread_us", "thread_p90_us"}
    assert 0 < out["process_us"] <= out["process_p90_us"] < 1e6
    assert 0 < out["thread_us"] <= out["thread_p90_us"] < 1e6


def test_a_child_that_does_not_answer_or_cannot_start_leaves_the_process_figures_out(monkeypatch):
    monkeypatch.setattr(wake, "_ECHO", "import time\ntime.sleep(30)\n")
    t0 = time.perf_counter()
    out = wake.wake_round_trip(pings=3, pause_s=0.001)
    assert "process_us" not in out and out["thread_us"] > 0
    assert time.perf_counter() - t0 < 5  # one second for the unanswered ping, one for the child to leave
    monkeypatch.setattr(wake.sys, "executable", "/nonexistent/python")
    assert "process_us" not in wake.wake_round_trip(pings=3, pause_s=0.001)


def test_the_report_line_names_the_round_trips_it_has():
    speed = {"python_ms": 8.0, "raster_ms": 0.8, "wake": {"process_us": 180.4, "thread_us": 211.0}}
    assert _speed(speed).endswith("wake-up round trip 180 µs (process), 211 µs (thread)")
    assert "wake-up" not in _speed({"python_ms": 8.0, "raster_ms": 0.8})
