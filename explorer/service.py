"""The compute service: one worker thread runs every numeric job; the UI thread never computes.

Requests are small frozen objects with a ``key`` (one per plot or panel).  For each key only
the newest request matters:

* a request that has not started yet is *superseded* (replaced) by a newer one for its key;
* a result that is no longer the newest for its key when it arrives is *dropped*
  (generation ids), on the worker and again on the UI thread.

Results and errors reach the UI thread through queued Qt signals; the worker never
touches a widget.  :meth:`ComputeService.stop` (called when the main window closes) ends the
worker and joins it, so no thread outlives the window.
"""

from __future__ import annotations

import itertools
import threading
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from . import jobs


@dataclass(frozen=True)
class Result:
    """A finished job: what was asked, what came back, and how long it took."""

    key: str
    generation: int
    request: Any
    value: Any
    elapsed_ms: float


@dataclass(frozen=True)
class Failure:
    """A job that raised: the message is meant for a banner or the status bar."""

    key: str
    generation: int
    request: Any
    message: str
    details: str


class _Relay(QObject):
    # Lives on the UI thread; emitting from the worker makes these queued deliveries.
    delivered = Signal(object)


class ComputeService(QObject):
    """One worker thread, newest-request-per-key scheduling, generation-checked delivery.

    Signals
    -------
    resultReady(Result)
        On the UI thread, only for the newest request of its key.
    failed(Failure)
        On the UI thread, when a job raised (the app keeps running).
    """

    resultReady = Signal(object)
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None, *, warm_up: bool = True, paused: bool = False) -> None:
        super().__init__(parent)
        # A paused service queues requests but starts none until resume(): the main window
        # resumes it once it is on screen, so start-up never competes with the worker for the GIL.
        self._paused = paused
        self._cv = threading.Condition()
        self._pending: OrderedDict[str, tuple[int, Any]] = OrderedDict()
        self._latest: dict[str, int] = {}
        self._gen = itertools.count(1)
        self._running_key: str | None = None
        self._stopping = False
        self.superseded = 0  # pending requests replaced before they started
        self.dropped = 0  # results discarded because a newer request existed
        self.completed = 0
        self._relay = _Relay(self)
        self._relay.delivered.connect(self._on_delivered)
        self._thread = threading.Thread(target=self._loop, name="pe-compute", daemon=True)
        self._thread.start()
        self._warm_up = warm_up
        if warm_up and not paused:
            self._submit_warm_up()

    def _submit_warm_up(self) -> None:
        from .jobs.misc import WarmUpRequest

        self._warm_up = False
        self.submit(WarmUpRequest())

    # -- UI side -------------------------------------------------------------------------------
    def submit(self, request: Any) -> int:
        """Queue ``request`` (it must have a ``key``); returns its generation id."""
        key = request.key
        with self._cv:
            if self._stopping:
                return -1
            gen = next(self._gen)
            if key in self._pending:
                self.superseded += 1
                del self._pending[key]
            self._pending[key] = (gen, request)
            self._latest[key] = gen
            self._cv.notify()
        return gen

    def resume(self) -> None:
        """Start running queued requests (see ``paused``)."""
        if self._warm_up:
            self._submit_warm_up()  # after what the panels asked for first
        with self._cv:
            self._paused = False
            self._cv.notify_all()

    def is_current(self, key: str, generation: int) -> bool:
        """True if ``generation`` is still the newest request for ``key``."""
        with self._cv:
            return self._latest.get(key) == generation

    def idle(self) -> bool:
        """Nothing pending and nothing running."""
        with self._cv:
            return not self._pending and self._running_key is None

    def stop(self, timeout: float = 2.0) -> bool:
        """Stop accepting work, drop what is pending, and join the worker.  Returns True if it ended."""
        with self._cv:
            self._stopping = True
            self._pending.clear()
            self._cv.notify_all()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)
        try:
            self._relay.delivered.disconnect(self._on_delivered)
        except (RuntimeError, TypeError):
            pass
        return not self._thread.is_alive()

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    @Slot(object)
    def _on_delivered(self, item: Result | Failure) -> None:
        if self._stopping:
            return
        if not self.is_current(item.key, item.generation):
            self.dropped += 1
            return
        if isinstance(item, Result):
            self.resultReady.emit(item)
        else:
            self.failed.emit(item)

    # -- worker side ---------------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            with self._cv:
                while (not self._pending or self._paused) and not self._stopping:
                    self._cv.wait()
                if self._stopping:
                    return
                key, (gen, request) = self._pending.popitem(last=False)
                self._running_key = key
            t0 = time.perf_counter()
            try:
                value = jobs.run(request)
                item: Result | Failure = Result(key, gen, request, value, (time.perf_counter() - t0) * 1e3)
            except Exception as exc:  # noqa: BLE001 - every job error goes back to the UI
                message = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
                item = Failure(key, gen, request, message, traceback.format_exc())
            with self._cv:
                self._running_key = None
                stale = self._stopping or self._latest.get(key) != gen
                if stale:
                    self.dropped += 1
                else:
                    self.completed += 1
            if not stale:
                try:
                    self._relay.delivered.emit(item)
                except RuntimeError:  # the relay was deleted during shutdown
                    return
