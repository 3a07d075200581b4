"""Pause and cancel for long jobs (no Qt): the flags a long job checks between its steps.

The compute service hands one to every long job it runs (``ComputeService.submit_long``); the job
calls :meth:`JobControl.checkpoint` between steps, which blocks while paused and raises
:attr:`JobControl.cancelled_error` once cancelled.  The CLI and the tests use one directly.
"""

from __future__ import annotations

import threading
import time


class Cancelled(Exception):
    """A long job was cancelled through its :class:`JobControl`."""


class JobControl:
    """Thread-safe pause/cancel flags, checked by a long job between its steps.

    Subclasses may set ``cancelled_error`` to the exception their job expects on cancel.
    """

    cancelled_error: type[BaseException] = Cancelled

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self._running = threading.Event()
        self._running.set()
        #: Seconds spent paused inside :meth:`checkpoint` (a job's own elapsed time leaves them out).
        self.paused_seconds = 0.0

    def use_events(self, cancel, running) -> None:
        """Keep the flags in ``cancel`` and ``running`` (multiprocessing events shared with a child
        process that runs the job), carrying over what is set now."""
        if self.cancelled:
            cancel.set()
        if self.paused:
            running.clear()
        else:
            running.set()
        self._cancel, self._running = cancel, running

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def cancel(self) -> None:
        self._cancel.set()
        self._running.set()  # wake a paused job so it can see the cancel

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def checkpoint(self) -> None:
        """Raise ``cancelled_error`` if cancelled; block (cancellably) while paused."""
        if self._cancel.is_set():
            raise self.cancelled_error()
        if not self._running.is_set():
            t0 = time.perf_counter()
            while not self._running.wait(0.05):
                pass
            self.paused_seconds += time.perf_counter() - t0
            if self._cancel.is_set():
                raise self.cancelled_error()
