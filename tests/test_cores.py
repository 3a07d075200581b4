"""While a slider is held, the UI thread and the compute process run on cores apart (``explorer.service.cores``),
and every core is given back when it is let go."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from PySide6.QtWidgets import QSlider

from explorer import worker
from explorer.service.cores import CoreSplit, current_cpu

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(worker.ALLOWED_CPUS) < 2 or current_cpu() is None,
    reason="cores are split on Linux with two cores or more")


@pytest.fixture
def sleeper():
    """A process started with every core, standing in for the compute process."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield proc
    proc.kill()
    proc.wait()


def test_a_hold_keeps_the_ui_thread_and_the_child_on_cores_apart_until_let_go(sleeper):
    allowed = frozenset(os.sched_getaffinity(0))
    split = CoreSplit(sleeper, allowed)
    split.hold()
    try:
        ui = os.sched_getaffinity(0)
        assert len(ui) == 1 and os.sched_getaffinity(sleeper.pid) == allowed - ui
        split.hold()  # a second slider held and let go: still apart until the first is let go too
        split.release()
        assert os.sched_getaffinity(0) == ui and os.sched_getaffinity(sleeper.pid) == allowed - ui
    finally:
        split.release()
    assert os.sched_getaffinity(0) == allowed and os.sched_getaffinity(sleeper.pid) == allowed
    split.release()  # let go once more than held: nothing happens
    assert split.split is None and os.sched_getaffinity(0) == allowed
    split.hold()
    split.hold()
    split.reset()  # the service stops with two holds open
    assert split.split is None and os.sched_getaffinity(0) == allowed
    assert os.sched_getaffinity(sleeper.pid) == allowed


def test_a_child_gone_while_held_leaves_nothing_split(sleeper):
    allowed = frozenset(os.sched_getaffinity(0))
    split = CoreSplit(sleeper, allowed)
    split.hold()
    sleeper.kill()
    sleeper.wait()
    split.release()
    assert os.sched_getaffinity(0) == allowed


def test_a_child_started_while_a_slider_is_held_runs_on_every_core(sleeper):
    """A child spawned from the UI thread while it is kept on one core inherits that core; it takes the cores the
    app started with (a compute process restarted in a drag, a Lab run started from one)."""
    split = CoreSplit(sleeper)
    child = worker.ComputeProcess()
    split.hold()
    try:
        assert len(os.sched_getaffinity(0)) == 1
        child.route()  # started now, from this thread
        pid = child.pid
        end = time.monotonic() + 60
        while os.sched_getaffinity(pid) != worker.ALLOWED_CPUS and time.monotonic() < end:
            time.sleep(0.05)
        assert os.sched_getaffinity(pid) == worker.ALLOWED_CPUS
    finally:
        split.release()
        child.close()


def test_a_long_job_started_while_a_slider_is_held_runs_on_every_core(qtbot, sleeper):
    """A Lab run's thread started from the UI thread while it is kept on one core would share that core."""
    from explorer.service.core import ComputeService

    service = ComputeService(warm_up=False, mode="thread")
    split = CoreSplit(sleeper)
    got = []
    split.hold()
    try:
        assert len(os.sched_getaffinity(0)) == 1
        service.submit_long(lambda control, report: frozenset(os.sched_getaffinity(0)), on_result=got.append)
        qtbot.waitUntil(lambda: bool(got), timeout=20000)
    finally:
        split.release()
        assert service.stop(5.0)
    assert got == [worker.ALLOWED_CPUS]


def test_a_panels_held_slider_splits_the_cores_until_let_go_or_hidden(qtbot):
    """The wiring: a panel's slider held puts its service's compute process and the UI thread on cores apart; let go,
    or hidden while held (Qt sends no release then: another panel put on stage, a drawer closed), every core is back.
    With the jobs on a thread of this process there is nothing to split."""
    from explorer.panels.swap import SwapPanel
    from explorer.service.core import ComputeService

    allowed = worker.ALLOWED_CPUS
    service = ComputeService(warm_up=False, mode="process")
    try:
        panel = SwapPanel(service)
        qtbot.addWidget(panel)
        panel.show()
        qtbot.waitUntil(lambda: panel.has_drawn, timeout=120000)
        pid = service.child.pid
        slider = panel.alpha_slider.findChild(QSlider)
        for let_go in (lambda: slider.setSliderDown(False), slider.hide):
            slider.show()
            slider.setSliderDown(True)  # (Qt's sliderPressed, as a press on the handle)
            ui = os.sched_getaffinity(0)
            assert len(ui) == 1 and service.cores.split == (min(ui), pid)
            assert os.sched_getaffinity(pid) == allowed - ui
            let_go()
            assert os.sched_getaffinity(0) == allowed and service.cores.split is None
            assert os.sched_getaffinity(pid) == allowed and not panel.text_pin.pinned
            slider.setSliderDown(False)
    finally:
        assert service.stop(5.0)
    threaded = ComputeService(warm_up=False, mode="thread")
    try:
        threaded.cores.hold()
        assert threaded.cores.split is None and os.sched_getaffinity(0) == allowed
        threaded.cores.release()
    finally:
        assert threaded.stop(5.0)


def test_the_service_is_freed_without_the_collector(qtbot):
    """The core split holds the compute process, not the service: holding the service made a cycle through a
    QObject, left to the collector (and collections of Qt objects at a moment of their choosing have killed the
    suite's process before)."""
    import gc
    import weakref

    from explorer.service.core import ComputeService

    was = gc.isenabled()
    gc.disable()
    try:
        service = ComputeService(warm_up=False, mode="thread")
        assert service.stop(5.0)
        ref = weakref.ref(service)
        del service
        assert ref() is None
    finally:
        if was:
            gc.enable()
