"""How long this host takes to wake a process or a thread that was waiting: the cost of every hand-off in a drag step.

A drag step is a chain of waits (the UI thread, the compute process, the reader thread, Qt's timers).  On the
virtual machine of docs/performance.md the same drags took twice as long in some hours as in others while a fixed
Python loop and a fixed raster paint ran at the same speed (the third pass's sixth stop): what changed was how soon
a waiting thread ran again.  :func:`wake_round_trip` measures that directly — a byte sent to a waiting child process
(or thread) and answered, after a pause long enough for both to go to sleep — so that a bench report says which
kind of hour it ran in.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import threading
import time

import numpy as np

#: The child: answer each byte read with the same byte; leave at end of input or "q".
_ECHO = "import os\nwhile True:\n    b = os.read(0, 1)\n    if not b or b == b'q':\n        break\n    os.write(1, b)\n"


def wake_round_trip(pings: int = 150, pause_s: float = 0.002) -> dict:
    """Median and 90th percentile (µs) of a one-byte round trip to a child process over pipes
    (``process_us``/``process_p90_us``) and to a thread through two events (``thread_us``/``thread_p90_us``),
    each after ``pause_s`` of sleep on both sides.  Keys whose measure failed (no child could be started, or it
    did not answer within a second) are left out."""
    out: dict = {}
    process = _process_round_trips(pings, pause_s)
    if process:
        out["process_us"], out["process_p90_us"] = _summary(process)
    out["thread_us"], out["thread_p90_us"] = _summary(_thread_round_trips(pings, pause_s))
    return out


def _summary(samples: list[float]) -> tuple[float, float]:
    a = np.asarray(samples) * 1e6
    return round(float(np.median(a)), 1), round(float(np.percentile(a, 90)), 1)


def _process_round_trips(pings: int, pause_s: float) -> list[float]:
    try:
        child = subprocess.Popen([sys.executable, "-I", "-S", "-c", _ECHO], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, bufsize=0)
    except OSError:
        return []
    assert child.stdin is not None and child.stdout is not None
    to_child, from_child = child.stdin.fileno(), child.stdout.fileno()
    samples: list[float] = []
    try:
        for _ in range(pings + 1):  # the first wakes a child that is still starting: not counted
            time.sleep(pause_s)
            t0 = time.perf_counter()
            os.write(to_child, b"p")
            if not select.select([from_child], [], [], 1.0)[0] or os.read(from_child, 1) != b"p":
                return []
            samples.append(time.perf_counter() - t0)
    except OSError:
        return []
    finally:
        try:
            os.write(to_child, b"q")
        except OSError:
            pass
        try:
            child.wait(1.0)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        child.stdin.close()
        child.stdout.close()
    return samples[1:]


def _thread_round_trips(pings: int, pause_s: float) -> list[float]:
    ask, answer = threading.Event(), threading.Event()
    done = False

    def echo() -> None:
        while True:
            ask.wait()
            ask.clear()
            if done:
                return
            answer.set()

    thread = threading.Thread(target=echo, name="pe-bench-wake", daemon=True)
    thread.start()
    samples = []
    try:
        for _ in range(pings):
            time.sleep(pause_s)
            t0 = time.perf_counter()
            ask.set()
            answer.wait()
            samples.append(time.perf_counter() - t0)
            answer.clear()
    finally:
        done = True
        ask.set()
        thread.join(1.0)
    return samples
