"""The Lab's training run as a long job of the compute service (no thread of the Lab's own).

:class:`LabRunner` hands :func:`~explorer.lab.run_experiment` to
:meth:`ComputeService.submit_long <explorer.service.ComputeService.submit_long>`, which runs it on a
service-owned ``pe-lab`` worker — never the interactive one, so every other panel keeps updating —
and brings its progress, result or error back to the UI thread; the runner re-emits them as signals
for the panel.  Stopping the service (the window closing) cancels the run and joins its worker.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from ...lab import LabConfig, LabControl, LabResult
from ...lab.runner import run_as_long_job
from ...service import ComputeService, LongHandle

if TYPE_CHECKING:
    from PySide6.QtWidgets import QGroupBox, QLabel, QPushButton

    from ...lab import Progress
    from ..base import Panel as _PanelBase
else:
    _PanelBase = object

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
            partial(run_as_long_job, config, experiment),  # it pickles: it runs in a child process
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


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "estimating…"
    s = int(round(seconds))
    return f"{s // 60}:{s % 60:02d}"


class LabRunControl(_PanelBase):
    """The Lab panel's run controls: Pause/Resume, Cancel, and what a run's end (or failure) shows.

    A mixin of :class:`~explorer.panels.lab.LabPanel` (which builds the buttons and the views and
    starts the run); it holds only what talks to the :class:`LabRunner`.
    """

    # What the Lab panel builds and this mixin uses.
    runner: LabRunner
    result: LabResult | None
    start_button: QPushButton
    pause_button: QPushButton
    cancel_button: QPushButton
    open_button: QPushButton
    save_button: QPushButton
    scheme_box: QGroupBox
    settings_box: QGroupBox
    status: QLabel
    _shut_down: bool
    show_lab_result: Callable[..., None]
    _on_runner_progressed: Callable[[Progress], None]

    def _set_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.pause_button.setEnabled(running)
        self.cancel_button.setEnabled(running)
        self.scheme_box.setEnabled(not running)
        self.settings_box.setEnabled(not running)
        self.open_button.setEnabled(not running)
        self.save_button.setEnabled(not running and self.result is not None)
        self.pause_button.setText("Pause")

    def pause(self) -> None:
        if self.runner.running and not self.runner.paused:
            self.runner.pause()
            self.pause_button.setText("Resume")
            self.status.setText("Paused. " + self.status.text())

    def resume(self) -> None:
        if self.runner.running and self.runner.paused:
            self.runner.resume()
            self.pause_button.setText("Pause")

    def _on_pause_clicked(self) -> None:
        if self.runner.paused:
            self.resume()
        else:
            self.pause()

    def cancel(self) -> None:
        if self.runner.running:
            self.runner.cancel()
            self.cancel_button.setEnabled(False)
            self.pause_button.setEnabled(False)
            self.status.setText("Cancelling…")

    @property
    def running(self) -> bool:
        return self.runner.running

    def _on_runner_finished(self, result: LabResult) -> None:
        # The service has joined the worker before this arrives: Start may be enabled again at once.
        self.links.remember_weights(result)  # FIRE's trained MLP, for the Schemes panel
        self.show_lab_result(result, redraw_losses=False)
        if result.status == "done":
            self.status.setText(f"Done in {_eta(result.seconds)} on {result.device.upper()}"
                                f" ({result.threads} thread{'s' if result.threads != 1 else ''}; "
                                f"{_eta(result.cpu_seconds)} of CPU time).")
        else:
            n = sum(s.status == "done" for s in result.schemes)
            self.status.setText(f"Cancelled after {_eta(result.seconds)}: {n} of "
                                f"{len(result.config.schemes)} schemes finished.")

    def _on_runner_failed(self, message: str) -> None:
        self.banner.show_error(f"The Lab run failed: {message}")
        self.status.setText("Failed.")
        self._set_running(False)

    # -- shutdown ----------------------------------------------------------------------------------
    def shutdown(self) -> None:
        """Cancel a run and join its worker (it checks for cancel every step), then the base clean-up."""
        if self._shut_down:
            return
        self._shut_down = True
        for sig, slot in ((self.runner.progressed, self._on_runner_progressed),
                          (self.runner.finished, self._on_runner_finished),
                          (self.runner.failed, self._on_runner_failed)):
            try:
                sig.disconnect(slot)
            except (RuntimeError, TypeError):
                pass
        self.runner.stop(STOP_TIMEOUT_S)
        super().shutdown()
