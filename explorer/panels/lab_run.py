"""The Lab's training run as a long job of the compute service (no thread of the Lab's own).

:class:`LabRunner` hands :func:`~explorer.lab.run_experiment` to
:meth:`ComputeService.submit_long <explorer.service.ComputeService.submit_long>`, which runs it on a
service-owned ``pe-lab`` worker — never the interactive one, so every other panel keeps updating —
and brings its progress, result or error back to the UI thread; the runner re-emits them as signals
for the panel.  Stopping the service (the window closing) cancels the run and joins its worker.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from ..lab import LabConfig, LabControl
from ..service import ComputeService, LongHandle

#: How long closing the window waits for the training worker (it checks for cancel every step).
STOP_TIMEOUT_S = 1.0


class LabRunner(QObject):
    """Runs one Lab experiment at a time through the compute service.

    Signals (on the UI thread): ``progressed(Progress)``, ``finished(LabResult)`` (also after a
    cancel, with status "cancelled"), ``failed(str)``.  By the time ``finished`` or ``failed`` is
    emitted the worker has ended.
    """

    progressed = Signal(object)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, service: ComputeService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self._handle: LongHandle | None = None
        self._closed = False

    @property
    def running(self) -> bool:
        """True from :meth:`start` until ``finished`` or ``failed`` is emitted (or :meth:`stop`)."""
        h = self._handle
        return h is not None and h.status == "running"

    @property
    def paused(self) -> bool:
        return self._handle is not None and self.running and self._handle.paused

    def start(self, config: LabConfig, experiment: Callable) -> None:
        """Train ``config`` with ``experiment`` (:func:`~explorer.lab.run_experiment`) as a long job."""
        if self.running:
            raise RuntimeError("a Lab run is already going")
        self._handle = self.service.submit_long(
            lambda control, report: experiment(config, control, report),
            control=LabControl(), name="pe-lab",
            on_progress=self._on_progress, on_result=self._on_result, on_error=self._on_error)
        if self._handle.status == "refused":
            self._handle = None
            self.failed.emit("the compute service has stopped")

    def pause(self) -> None:
        if self._handle is not None:
            self._handle.pause()

    def resume(self) -> None:
        if self._handle is not None:
            self._handle.resume()

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> bool:
        """Cancel, wait for the worker, and deliver nothing more.  True if no worker is left running."""
        self._closed = True
        h = self._handle
        if h is None:
            return True
        h.cancel()
        if h.join(timeout):
            self._handle = None  # ended: nothing of it is delivered any more
            return True
        return False

    def _emit(self, signal, value) -> None:
        if not self._closed:
            signal.emit(value)

    def _on_progress(self, p) -> None:
        self._emit(self.progressed, p)

    def _on_result(self, result) -> None:
        self._emit(self.finished, result)

    def _on_error(self, failure) -> None:
        # LabError messages are for the banner as they are; anything else names its type (the service did).
        self._emit(self.failed, failure.message)
