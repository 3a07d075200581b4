"""Long jobs (the Lab's training): each on a worker of its own, never the interactive one, with progress, pause
and cancel.  :class:`ComputeService` makes one :class:`LongJobs` and hands it :meth:`ComputeService.submit_long`;
in "process" mode each job runs in a child process of its own (:func:`explorer.worker.run_long`)."""

from __future__ import annotations

import pickle
import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from .. import worker
from ..jobs.control import JobControl
from .results import Failure, alive


class LongHandle:
    """A long job (see :meth:`ComputeService.submit_long`): pause, resume, cancel, wait."""

    def __init__(self, control: JobControl, name: str, origin=None) -> None:
        self.control = control
        self.name = name
        self.origin = origin
        #: "running", then "done", "failed", "cancelled" (stopped before it ended) or "refused".
        self.status = "running"
        self.on_progress: Callable | None = None
        self.on_result: Callable | None = None
        self.on_error: Callable | None = None
        self.thread: threading.Thread | None = None
        #: The child process running it ("process" mode), while it runs.
        self.process: Any = None

    def pause(self) -> None:
        self.control.pause()

    def resume(self) -> None:
        self.control.resume()

    def cancel(self) -> None:
        """Ask the job to stop at its next checkpoint; it still reports how it ended."""
        self.control.cancel()

    @property
    def paused(self) -> bool:
        return self.control.paused

    @property
    def running(self) -> bool:
        """True until the job has ended and its worker has returned."""
        return self.thread is not None and self.thread.is_alive()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the worker to end; True if it has."""
        t = self.thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout)
        return not self.running


class LongJobs(QObject):
    """The long jobs of one service: started on threads of their own, their events relayed to the UI thread."""

    _event = Signal(object)  # emitted on a worker: a queued delivery to the UI thread

    def __init__(self, mode: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.mode = mode
        self._jobs: list[LongHandle] = []
        self._stopping = False
        self._lock = threading.Lock()
        self._event.connect(self._on_event)

    def submit(self, fn: Callable[[JobControl, Callable[[Any], None]], Any], *, control: JobControl | None = None,
               origin: Any = None, on_progress: Callable[[Any], None] | None = None,
               on_result: Callable[[Any], None] | None = None, on_error: Callable[[Failure], None] | None = None,
               name: str = "pe-long") -> LongHandle:
        """See :meth:`ComputeService.submit_long`."""
        handle = LongHandle(control or JobControl(), name, origin)
        handle.on_progress, handle.on_result, handle.on_error = on_progress, on_result, on_error
        with self._lock:
            if self._stopping:
                handle.status = "refused"
                return handle
            self._jobs = [h for h in self._jobs if h.running]
            self._jobs.append(handle)
        target = self._work
        if self.mode == "process":
            try:
                pickle.dumps(fn)
                target = self._work_in_child
            except Exception:  # noqa: BLE001 - cannot cross to a process: run it here, as in thread mode
                pass
        handle.thread = threading.Thread(target=self._on_every_core, args=(target, handle, fn), name=name, daemon=True)
        handle.thread.start()
        return handle

    def threads(self) -> list[threading.Thread]:
        return [h.thread for h in self._jobs if h.thread is not None]

    def _emit(self, handle: LongHandle, kind: str, value) -> None:
        if self._stopping:
            return
        try:
            self._event.emit((handle, kind, value))
        except RuntimeError:  # deleted during shutdown
            pass

    @staticmethod
    def _on_every_core(target: Callable, handle: LongHandle, fn) -> None:
        worker.every_core()  # (started while a slider is held, it would share the UI thread's one core)
        target(handle, fn)

    def _work(self, handle: LongHandle, fn) -> None:
        try:
            value = fn(handle.control, lambda p: self._emit(handle, "progress", p))
        except Exception as exc:  # noqa: BLE001 - a failed job must reach its requester, not kill the app
            self._emit(handle, "error", Failure(handle.name, 0, fn, worker.error_message(exc),
                                                traceback.format_exc(), handle.origin))
        else:
            self._emit(handle, "result", value)

    def _work_in_child(self, handle: LongHandle, fn) -> None:
        def on_start(process) -> None:
            handle.process = process

        def on_event(kind: str, value) -> None:
            if kind == "error":
                value = Failure(handle.name, 0, fn, value[0], value[1], handle.origin)
            self._emit(handle, kind, value)

        try:
            worker.run_long(fn, handle.control, on_event, on_start)
        except Exception as exc:  # noqa: BLE001 - the child could not start (out of memory, no fork)
            self._emit(handle, "error", Failure(handle.name, 0, fn, worker.error_message(exc),
                                                traceback.format_exc(), handle.origin))
        finally:
            handle.process = None

    @Slot(object)
    def _on_event(self, payload) -> None:
        handle, kind, value = payload
        if self._stopping or handle.status != "running":
            return
        if kind == "progress":
            cb = handle.on_progress
        else:
            handle.join(1.0)  # it has emitted its last event and is returning: let it end first
            handle.status = "done" if kind == "result" else "failed"
            cb = handle.on_result if kind == "result" else handle.on_error
        if cb is not None and alive(cb):
            cb(value)

    def cancel_all(self) -> list[LongHandle]:
        """Stop accepting jobs and ask each running one to stop; the jobs, for :meth:`finish`."""
        with self._lock:
            self._stopping = True
            jobs = list(self._jobs)
        for h in jobs:
            h.cancel()
            if h.status == "running":
                h.status = "cancelled"
        return jobs

    def finish(self, jobs: list[LongHandle], join: Callable[[threading.Thread], None]) -> None:
        """Join each job's thread (``join``), end a training child that did not reach its next checkpoint in time,
        and let no late event through."""
        for h in jobs:
            if h.thread is not None:
                join(h.thread)
        for h in jobs:
            proc = h.process
            if proc is not None and proc.is_alive():
                proc.terminate()
                proc.join(1.0)
                if h.thread is not None:
                    h.thread.join(1.0)
        try:
            self._event.disconnect(self._on_event)
        except (RuntimeError, TypeError):
            pass
