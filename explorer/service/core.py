"""The compute service: every numeric job runs on a service-owned worker; the UI thread never computes.

Interactive requests (:meth:`ComputeService.submit`) are small frozen objects with a ``key`` (one
per plot or panel).  The service owns the whole scheduling policy, per key:

* **newest request wins** — a request that has not started yet is *superseded* (replaced) by a
  newer one for its key;
* **at most one in flight** — a newer request for a key whose job is running waits, and starts when
  that job returns; the running job's result is still delivered (during a fast drag whose steps come
  quicker than a job, dropping it would leave nothing to draw until the drag stops);
* **equal requests are skipped** — a request equal to the one in flight (or on its way to the UI
  thread) takes that job over instead of running again; one equal to the last result delivered to
  the same requester is not run at all;
* **optional pacing** — ``pace_s`` is the shortest time between two starts of one key (the Waves
  panel's ~30 frames a second while a slider is held);
* **held until wanted** — a request submitted with ``hold=True`` (one only hidden views need while a slider
  is held) waits without running; the requester's next submit for its key, held or not, replaces it.

Each submit returns a :class:`Handle`; its callbacks run on the UI thread and reach only the
requester (no panel filters a global signal by its own bookkeeping).  Generation ids still guard
delivery: a result of a cancelled handle, or one older than a result already delivered for its
key, is dropped.  :attr:`ComputeService.resultReady` and :attr:`ComputeService.failed` still
announce every delivery, for observers (the status bar, the benchmark).

Long jobs (:meth:`ComputeService.submit_long`: the Lab's training) run on a worker of their own,
never the interactive one, report progress, and can be paused and cancelled.  :meth:`stop` (called
when the main window closes) cancels everything and joins every worker.

Where the jobs run (``mode``, by default ``$PE_EXPLORER_COMPUTE`` or "process"): in "process" mode each
request goes to a compute child process (:mod:`explorer.worker`), and each long job runs in a child of its own,
so the UI process never imports torch and never shares its GIL with a job.  On POSIX the UI thread itself sends
a request the moment the policy lets it start, and a reader thread waits for the replies (:mod:`explorer.service.pipe`:
no thread hand-off on the way in); elsewhere (Windows' pipes are not tried from two threads) a worker thread sends
each request and waits for its reply.  A child that dies comes back as a :class:`Failure` (for every request it
had) and a new one starts for the next request.
"thread" runs the jobs on the worker thread itself (tests that stand in jobs of their own).
"""

from __future__ import annotations

import itertools
import math
import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot

from .. import jobs, worker
from ..jobs.control import JobControl
from .cores import CoreSplit
from .long import LongHandle, LongJobs
from .pipe import Answer, ChildPipe
from .results import Failure, Result, alive

#: Whether the UI thread sends requests to the compute child itself (POSIX), a reader thread waiting for the replies
#: (:mod:`explorer.service.pipe`); elsewhere a worker thread sends each request and waits for its reply.
DIRECT_PIPE = os.name == "posix"

#: Every service made in this process, for :func:`stop_all` (weak: a service's life is its owner's).
_SERVICES: weakref.WeakSet = weakref.WeakSet()


def stop_all(timeout: float = 10.0) -> bool:
    """Stop every service of this process and join its workers (Ctrl+C paths of the commands).

    A worker left running while the interpreter shuts down (in torch's import, in an attention
    job) can crash it; returns True when no worker is left alive after about ``timeout`` seconds.
    """
    end = time.monotonic() + timeout
    services = list(_SERVICES)
    for service in services:
        if not service._stopping:
            try:
                service.stop(max(0.0, end - time.monotonic()))
            except RuntimeError:  # its Qt half is gone already; its threads are joined below
                pass
        for t in service.threads():
            if t is not threading.current_thread():
                t.join(max(0.0, end - time.monotonic()))
    return not any(service.threads() for service in services)


#: Handle states that will not change any more.
FINISHED = frozenset({"done", "failed", "skipped", "superseded", "cancelled", "dropped", "refused"})


def _same_receiver(callback: Callable | None) -> Callable[[Callable | None], bool]:
    """A test "is this the same receiver?" that keeps no receiver alive (weak for bound methods)."""
    if callback is None:
        return lambda other: other is None
    try:
        ref = weakref.WeakMethod(callback) if hasattr(callback, "__self__") else weakref.ref(callback)
    except TypeError:  # not weak-referenceable (a builtin): compare directly
        return lambda other: other == callback
    return lambda other: other is not None and ref() == other


class Handle:
    """One submitted request: its generation, its requester's ``origin`` and callbacks, its status.

    ``status`` is "pending" (or "held": see :meth:`ComputeService.submit`), "running", "delivering", then one
    of :data:`FINISHED`: "done", "failed",
    "skipped" (an equal result is already the requester's), "superseded" (a newer request for the key
    came first, or an equal one took its job over), "cancelled", "dropped" or "refused" (the service
    had stopped).
    """

    __slots__ = ("key", "request", "generation", "origin", "on_result", "on_error", "status", "_service")

    def __init__(self, service, request, generation: int, origin, on_result, on_error) -> None:
        self._service = service
        self.key: str = request.key
        self.request = request
        self.generation = generation
        self.origin = origin
        self.on_result = on_result
        self.on_error = on_error
        self.status = "pending"

    @property
    def done(self) -> bool:
        """True once nothing more will come from this handle."""
        return self.status in FINISHED

    @property
    def in_flight(self) -> bool:
        """True while its result is still to come: queued, running or on its way (a request sent held is not: it
        waits for its views to be wanted)."""
        return not self.done and self.status != "held"

    def cancel(self) -> None:
        """Drop the request if it has not started; otherwise its result is not delivered."""
        self._service._cancel(self)

    def __repr__(self) -> str:
        return f"<Handle {self.key} #{self.generation} {self.status}>"


class _Ticket:
    """The job run for a key; a newer, equal request takes it over by replacing its handle."""

    __slots__ = ("key", "request", "handle", "pace_s")

    def __init__(self, handle: Handle, pace_s: float) -> None:
        self.key, self.request, self.handle, self.pace_s = handle.key, handle.request, handle, pace_s


class _Relay(QObject):
    # Lives on the UI thread; emitting from a worker makes these queued deliveries.
    delivered = Signal(object)


class ComputeService(QObject):
    """The compute service: interactive requests with per-key scheduling, plus long-job workers.

    Signals
    -------
    resultReady(Result)
        On the UI thread, after the requester's ``on_result``: for observers, never for filtering.
    failed(Failure)
        On the UI thread, after the requester's ``on_error`` (the app keeps running).
    """

    resultReady = Signal(object)
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None, *, warm_up: bool = True, paused: bool = False,
                 mode: str | None = None) -> None:
        super().__init__(parent)
        #: "process" or "thread": where the jobs run (see the module's docstring).
        self.mode = worker.compute_mode(mode)
        self.child = worker.ComputeProcess() if self.mode == "process" else None
        #: While a slider is held, the UI thread and the compute process on cores of their own (see .cores).
        self.cores = CoreSplit(self.child)
        # A paused service queues requests but starts none until resume(): the main window
        # resumes it once it is on screen, so start-up never competes with the jobs.
        self._paused = paused
        self._cv = threading.Condition()
        self._pending: OrderedDict[str, _Ticket] = OrderedDict()
        self._held: dict[str, _Ticket] = {}  # submitted with hold=True: not run until asked for again
        self._running: dict[str, _Ticket] = {}
        self._transit: dict[str, _Ticket] = {}  # job returned, result not yet delivered
        self._shown: dict[str, tuple[Any, Callable]] = {}  # key -> (last delivered request, same receiver?)
        self._started_at: dict[str, float] = {}
        self._latest: dict[str, int] = {}
        self._delivered_gen: dict[str, int] = {}
        self._gen = itertools.count(1)
        self._stopping = False
        self._long = LongJobs(self.mode, self)
        self.superseded = 0  # pending requests replaced before they started
        self.dropped = 0  # results not delivered (cancelled, or older than one already delivered)
        self.skipped = 0  # requests not run: equal to one in flight or to the last delivered
        self.completed = 0
        self._relay = _Relay(self)
        # Queued also when emitted on the UI thread (a request the UI thread could not send): a requester's
        # callbacks never run inside its own submit().
        self._relay.delivered.connect(self._on_delivered, Qt.ConnectionType.QueuedConnection)
        # Process mode on POSIX: the UI thread sends each request as it is due, a reader thread waits for the replies
        # (explorer.service.pipe).
        self._pipe: ChildPipe | None = None
        if self.child is not None and DIRECT_PIPE:
            self._pipe = ChildPipe(self.child, self._on_answered, self)
        self._due = QTimer(self)  # (with the pipe) the next paced request's start
        self._due.setSingleShot(True)
        self._due.timeout.connect(self._pump)
        self._thread: threading.Thread | None = None
        if self._pipe is None:
            self._thread = threading.Thread(target=self._loop, name="pe-compute", daemon=True)
            self._thread.start()
        _SERVICES.add(self)
        self._warm_up = warm_up
        if warm_up and not paused:
            self._submit_warm_up()

    def _submit_warm_up(self) -> None:
        from ..jobs.misc import WarmUpRequest

        self._warm_up = False
        self.submit(WarmUpRequest())

    # -- interactive requests (UI side) ---------------------------------------------------------
    def submit(self, request: Any, *, origin: Any = None, on_result: Callable[[Result], None] | None = None,
               on_error: Callable[[Failure], None] | None = None, pace_s: float = 0.0,
               hold: bool = False) -> Handle:
        """Ask for ``request`` (it must have a ``key``); callbacks run on the UI thread, for this handle only.

        ``origin`` is the requester's opaque id, carried back on the :class:`Result`/:class:`Failure`.
        ``pace_s``: do not start this key's job sooner than ``pace_s`` after its previous start.
        ``hold``: keep the request ("held") without running it until the next submit for its key, which
        replaces it (a held request is not work in progress: :meth:`idle` does not wait for it).
        """
        key = request.key
        with self._cv:
            if self._stopping:
                h = Handle(self, request, -1, origin, on_result, on_error)
                h.status = "refused"
                return h
            h = Handle(self, request, next(self._gen), origin, on_result, on_error)
            self._latest[key] = h.generation
            for old in (self._pending.pop(key, None), self._held.pop(key, None)):
                if old is not None:
                    self.superseded += old.request != request  # the same ask again replaces nothing
                    old.handle.status = "superseded"
            outstanding = self._running.get(key) or self._transit.get(key)
            if outstanding is not None and outstanding.request == request:
                # The same job is running (or its result is on the way): the newest requester gets it.
                if outstanding.handle.status not in FINISHED:
                    outstanding.handle.status = "superseded"
                h.status = "running" if key in self._running else "delivering"
                outstanding.handle = h
                self.skipped += 1
                return h
            shown = self._shown.get(key)
            if outstanding is None and shown is not None and shown[0] == request and shown[1](on_result):
                h.status = "skipped"  # the requester already has this very result
                self.skipped += 1
                return h
            ticket = _Ticket(h, max(0.0, float(pace_s)))
            if hold:
                h.status = "held"
                self._held[key] = ticket
            else:
                self._pending[key] = ticket
                self._cv.notify()
        if self._pipe is not None and not hold:
            self._pump()
        return h

    def _cancel(self, handle: Handle) -> None:
        with self._cv:
            if handle.done:
                return
            for waiting in (self._pending, self._held):
                ticket = waiting.get(handle.key)
                if ticket is not None and ticket.handle is handle:
                    del waiting[handle.key]
            handle.status = "cancelled"

    def resume(self) -> None:
        """Start running queued requests (see ``paused``)."""
        if self._warm_up:
            self._submit_warm_up()  # after what the panels asked for first
        with self._cv:
            self._paused = False
            self._cv.notify_all()
        if self._pipe is not None:
            self._pump()

    def is_current(self, key: str, generation: int) -> bool:
        """True if ``generation`` is still the newest request for ``key``."""
        with self._cv:
            return self._latest.get(key) == generation

    def delivered(self, key: str):
        """The request whose result was the last delivered for ``key`` (None: none, or its newest request
        failed): after :meth:`idle`, what a requester of ``key`` has on screen."""
        with self._cv:
            shown = self._shown.get(key)
            return None if shown is None else shown[0]

    def idle(self) -> bool:
        """No interactive request is waiting, running or on its way to the UI thread (held ones aside)."""
        with self._cv:
            return not self._pending and not self._running and not self._transit

    def running_keys(self) -> list[str]:
        """The keys whose jobs are running now (in process mode on POSIX: in the compute process, running or
        waiting there for the one before)."""
        with self._cv:
            return list(self._running)

    @property
    def worker_thread(self) -> threading.Thread | None:
        """The interactive worker (not ``thread()``: that is QObject's, the Qt thread the service lives in); None
        where the UI thread itself sends requests to the compute process (process mode on POSIX: its reader thread
        is among :meth:`threads`)."""
        return self._thread

    def _reader(self) -> threading.Thread | None:
        return self._pipe.reader if self._pipe is not None else None

    def threads(self) -> list[threading.Thread]:
        """Every worker thread still alive: the interactive one (if any) and those of long jobs."""
        out = [t for t in (self._thread, self._reader()) if t is not None] + self._long.threads()
        return [t for t in out if t.is_alive()]

    @Slot(object)
    def _on_delivered(self, payload: tuple[_Ticket, Any, float, tuple[str, str] | None]) -> None:
        ticket, value, elapsed_ms, error = payload
        with self._cv:
            if self._transit.get(ticket.key) is ticket:
                del self._transit[ticket.key]
            h = ticket.handle
            key = ticket.key
            if self._stopping or h.status == "cancelled" or h.generation < self._delivered_gen.get(key, 0):
                self.dropped += 1
                if not h.done:
                    h.status = "dropped"
                return
            self._delivered_gen[key] = h.generation
            if error is None:
                self._shown[key] = (h.request, _same_receiver(h.on_result))
                h.status = "done"
            else:
                self._shown.pop(key, None)  # a failed request is run again next time it is asked for
                h.status = "failed"
        if error is None:
            result = Result(key, h.generation, h.request, value, elapsed_ms, h.origin)
            try:
                if h.on_result is not None and alive(h.on_result):
                    h.on_result(result)
            finally:
                self.resultReady.emit(result)
        else:
            failure = Failure(key, h.generation, h.request, error[0], error[1], h.origin)
            try:
                if h.on_error is not None and alive(h.on_error):
                    h.on_error(failure)
            finally:
                self.failed.emit(failure)

    # -- interactive worker ----------------------------------------------------------------------
    def _next_ticket(self) -> tuple[_Ticket | None, float | None]:
        """Start the first waiting ticket whose key is free and due (it is running from here), else say how long
        until one is due."""
        if self._paused:
            return None, None
        now = time.perf_counter()
        wait = None
        for key, ticket in self._pending.items():
            if key in self._running:
                continue
            due = self._started_at.get(key, -1e9) + ticket.pace_s - now
            if due <= 0:
                del self._pending[key]
                self._started_at[key] = now
                self._running[key] = ticket
                if ticket.handle.status == "pending":
                    ticket.handle.status = "running"
                return ticket, None
            wait = due if wait is None else min(wait, due)
        return None, wait

    def _loop(self) -> None:
        while True:
            with self._cv:
                while True:
                    if self._stopping:
                        return
                    ticket, wait = self._next_ticket()
                    if ticket is not None:
                        break
                    self._cv.wait(wait)
            value, error, elapsed = self._run(ticket.request)
            if not self._ran(ticket):
                return
            try:
                self._relay.delivered.emit((ticket, value, elapsed, error))
            except RuntimeError:  # the relay was deleted during shutdown
                return

    def _ran(self, ticket: _Ticket) -> bool:
        """A ticket's job has returned: its key is free and its result on the way; False once stopping."""
        with self._cv:
            self._running.pop(ticket.key, None)
            if self._stopping:
                return False
            self.completed += 1
            self._transit[ticket.key] = ticket
            if ticket.handle.status == "running":
                ticket.handle.status = "delivering"
            self._cv.notify_all()  # the key is free: a request that waited for it may start
        return True

    # -- process mode on POSIX: the UI thread sends, the pipe's reader thread receives -----------------------------
    def _pump(self) -> None:
        """Send every due request to the child (on the UI thread), which runs them in turn; a paced one on a timer.
        A key is in the child at most once (the policy's one in flight): a drag step's keys are all in the child at
        once, none waiting for the reply to the one before it."""
        while self._pipe is not None and not self._stopping:
            with self._cv:
                ticket, wait = self._next_ticket()
                if ticket is None:
                    if wait is not None and (not self._due.isActive() or self._due.remainingTime() > wait * 1e3):
                        self._due.start(max(1, math.ceil(wait * 1e3)))
                    return
            error = self._pipe.send(ticket, ticket.request)
            if error is not None and self._ran(ticket):  # delivered queued: never inside the submit() that sent it
                self._relay.delivered.emit((ticket, None, 0.0, error))

    def _on_answered(self, answers: list[Answer]) -> None:
        """The child's replies (oldest first): their keys are free, what waits is sent, then they are delivered."""
        if not all([self._ran(ticket) for ticket, *_ in answers]):
            return
        self._pump()  # the child works on what waits while these results are drawn
        raised = None
        for answer in answers:  # each is delivered, whatever a requester's callback raises (the first is re-raised)
            try:
                self._on_delivered(answer)
            except Exception as exc:  # noqa: BLE001 - re-raised below, after the rest
                raised = raised or exc
        if raised is not None:
            raise raised

    def _run(self, request) -> tuple[Any, tuple[str, str] | None, float]:
        """Run one job here or in the compute child: ``(value, error or None, elapsed ms)``."""
        t0 = time.perf_counter()
        try:
            if self.child is not None:
                value, elapsed = self.child.call(request)
                return value, None, elapsed
            value = jobs.run(request)
        except Exception as exc:  # noqa: BLE001 - every job error goes back to the requester
            return None, worker.failure(exc), (time.perf_counter() - t0) * 1e3
        return value, None, (time.perf_counter() - t0) * 1e3

    # -- long jobs -------------------------------------------------------------------------------
    def submit_long(self, fn: Callable[[JobControl, Callable[[Any], None]], Any], *,
                    control: JobControl | None = None, origin: Any = None,
                    on_progress: Callable[[Any], None] | None = None,
                    on_result: Callable[[Any], None] | None = None,
                    on_error: Callable[[Failure], None] | None = None,
                    name: str = "pe-long") -> LongHandle:
        """Run ``fn(control, report)`` on a service-owned worker of its own (never the interactive one).

        ``fn`` calls ``control.checkpoint()`` between steps (it blocks while paused and raises once
        cancelled) and ``report(value)`` with progress.  On the UI thread: ``on_progress(value)`` for
        each report, then ``on_result(return value)`` or ``on_error(Failure)``; by then the worker has
        ended.  A cancelled job ends however ``fn`` ends it (e.g. returning what it has).

        In "process" mode ``fn`` runs in a child process of its own (the worker thread waits for it),
        so it must pickle (a module-level function or a ``functools.partial`` of one); one that does
        not (a test's local stand-in) runs on the worker thread as in "thread" mode.
        """
        return self._long.submit(fn, control=control, origin=origin, on_progress=on_progress,
                                 on_result=on_result, on_error=on_error, name=name)

    # -- shutdown --------------------------------------------------------------------------------
    def stop(self, timeout: float = 2.0) -> bool:
        """Stop accepting work, drop what is pending or held, cancel long jobs, join every worker.

        Returns True if every worker ended within ``timeout`` (about; each is given what is left).
        """
        self.cores.reset()
        with self._cv:
            self._stopping = True
            for ticket in [*self._pending.values(), *self._held.values()]:
                ticket.handle.status = "cancelled"
            self._pending.clear()
            self._held.clear()
            self._cv.notify_all()
        long_jobs = self._long.cancel_all()
        end = time.monotonic() + timeout
        if self._pipe is not None:
            self._pipe.close()
        if self.child is not None:  # a job it is in the middle of is abandoned: the worker is let go
            self.child.close(min(0.5, timeout))
        try:
            self._due.stop()
        except RuntimeError:  # its Qt half is gone already (stop_all at exit)
            pass

        def join(t: threading.Thread) -> None:
            if t.is_alive() and threading.current_thread() is not t:
                t.join(max(0.0, end - time.monotonic()))

        for worker_thread in (self._thread, self._reader()):
            if worker_thread is not None:
                join(worker_thread)
        self._long.finish(long_jobs, join)
        try:
            self._relay.delivered.disconnect(self._on_delivered)
        except (RuntimeError, TypeError):
            pass
        return not self.threads()
