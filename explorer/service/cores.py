"""While a slider is held: the UI thread on the core it runs on, the compute process on the others (Linux).

A drag step writes its request to the compute process and goes on with its own work (the controls, the undo
record), then waits for the reply and draws it.  The kernel here woke the compute process on the UI thread's
core most of the time (a pipe's or a semaphore's wake-up alike), and the two ran one after the other while the
second core idled: in a loop that models a step (2 ms of the UI's own work after the request, 1 ms of the
child's), 161–175 of 200 replies were computed on the UI's core and a round trip took 3.1 ms; with the two kept
apart, 2.1 ms, and the write of a request 0.08 ms instead of 0.8–1.1 (docs/performance.md, the twelfth stop).

Only while a slider is held: afterwards the UI thread may move between cores again, and a program or a child
started from it gets the cores the app started with (children set them themselves: ``worker.ALLOWED_CPUS``).
:meth:`CoreSplit.hold`, :meth:`CoreSplit.release` and :meth:`CoreSplit.reset` are called on the UI thread (the thread
they pin and unpin); threads started meanwhile take every core themselves (``worker.every_core``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from typing import Any

from ..worker import ALLOWED_CPUS, every_core


def current_cpu() -> int | None:
    """The core the calling thread runs on now (None where the C library does not say)."""
    try:
        cpu = int(ctypes.CDLL(None).sched_getcpu())
    except (OSError, AttributeError, TypeError):
        return None
    return cpu if cpu >= 0 else None


class CoreSplit:
    """Keeps the UI thread and the compute process (``child``: its ``pid``, None while none runs; or no child at all)
    on cores of their own while held; holds nest (two sliders held: split until both are let go).  It holds the
    child, not the service: a reference back to the service (a QObject) would make a cycle that only the collector
    frees, at a moment of its choosing (the suite has seen such collections kill the process)."""

    def __init__(self, child: Any = None, allowed: frozenset[int] = ALLOWED_CPUS) -> None:
        self._child = child
        self.allowed = frozenset(allowed)
        self._holds = 0
        #: (the UI thread's core, the child's process id) while split; None otherwise.
        self.split: tuple[int, int] | None = None

    def _child_pid(self) -> int | None:
        return None if self._child is None else self._child.pid

    def hold(self) -> None:
        self._holds += 1
        pid = self._child_pid()
        if self._holds > 1 or pid is None or len(self.allowed) < 2 or not hasattr(os, "sched_setaffinity"):
            return  # (no compute process: jobs on a thread of this process, which no core split helps)
        ui = current_cpu()
        if ui not in self.allowed:
            return
        try:
            os.sched_setaffinity(0, {ui})
        except OSError:
            return
        self.split = (ui, pid)
        with contextlib.suppress(OSError):  # (gone meanwhile: a new one starts with every core)
            os.sched_setaffinity(pid, self.allowed - {ui})

    def release(self) -> None:
        self._holds = max(0, self._holds - 1)
        if self._holds or self.split is None:
            return
        _ui, pid = self.split
        self.split = None
        every_core(self.allowed)
        # Only the child that was split: one that died meanwhile may have left its id to another program, and one
        # started meanwhile took every core itself.
        if pid is not None and pid == self._child_pid():
            with contextlib.suppress(OSError):
                os.sched_setaffinity(pid, self.allowed)

    def reset(self) -> None:
        """Every core back, however many holds are open (the service stops: a slider held as its window closes)."""
        self._holds = min(self._holds, 1)
        self.release()
