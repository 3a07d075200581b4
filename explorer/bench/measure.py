"""What the bench measures during a drag: latency per step, UI stall, painted frames, CPU per process."""

from __future__ import annotations

import os
import time

import numpy as np
from PySide6.QtCore import QAbstractEventDispatcher, QElapsedTimer, QObject, Qt, QTimer

from ..interrupts import check as check_interrupt
from ..widgets import frame_probe
from .split import FrameLedger, summarise
from .timed_app import TimedApplication


def percentiles(values) -> dict:
    if not values:
        return {"p50": float("nan"), "p95": float("nan")}
    a = np.asarray(values, dtype=np.float64)
    return {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95))}


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _proc_stat(pid: int):
    """(name, ppid, cpu seconds) of ``pid`` from /proc, or None."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            raw = fh.read()
    except OSError:
        return None
    name = raw[raw.index("(") + 1:raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2:].split()
    return name, int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK


def process_cpu() -> dict:
    """CPU seconds (user + system) of this process and of every descendant, by pid.

    Generic on purpose: compute children (a process pool, a compute process) are found as whatever
    descends from the UI process. Without /proc only this process is counted (``os.times``)."""
    me = os.getpid()
    t = os.times()
    out = {me: ("ui", t.user + t.system)}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return out
    stats = {}
    for pid in pids:
        st = _proc_stat(pid)
        if st is not None:
            stats[pid] = st
    kids = {me}
    grew = True
    while grew:  # descendants, any depth
        grew = False
        for pid, (_, ppid, _) in stats.items():
            if ppid in kids and pid not in kids:
                kids.add(pid)
                grew = True
    for pid in kids - {me}:
        name, _, cpu = stats[pid]
        out[pid] = (name, cpu)
    return out


def steal_s() -> float:
    """CPU seconds the hypervisor has given to others while this machine's CPUs wanted them ("steal", all CPUs, since
    boot; /proc/stat), NaN where it is not known.  A drag during which it grows ran on a shared host: its times are
    longer than this machine's own."""
    try:
        with open("/proc/stat") as fh:
            fields = fh.readline().split()
        return int(fields[8]) / _TICK if fields and fields[0] == "cpu" and len(fields) > 8 else float("nan")
    except (OSError, ValueError):
        return float("nan")


def cpu_delta(before: dict, after: dict) -> dict:
    """CPU seconds spent between two :func:`process_cpu` samples: the UI process and each child."""
    me = os.getpid()
    children = []
    for pid, (name, cpu) in after.items():
        if pid == me:
            continue
        children.append({"pid": int(pid), "name": name, "cpu_s": float(cpu - before.get(pid, (name, 0.0))[1])})
    total = sum(c["cpu_s"] for c in children)
    return {"ui": float(after[me][1] - before[me][1]), "children": children, "children_total": float(total)}


def wait(app, predicate, timeout_s: float, ledger: FrameLedger | None = None) -> bool:
    """Run the event loop until ``predicate()`` holds (True) or ``timeout_s`` passed (False); a ``ledger``
    records the time spent in events, and waits for them as the app's loop does when it tells idle time apart
    (:attr:`FrameLedger.waits`), woken at the latest by a timer of its own at ``timeout_s``."""
    end = time.perf_counter() + timeout_s
    deadline = None
    if ledger is not None and ledger.waits:
        deadline = QTimer()
        deadline.setSingleShot(True)
        deadline.setTimerType(Qt.TimerType.PreciseTimer)
        deadline.start(max(1, int(timeout_s * 1e3)))
    try:
        while time.perf_counter() < end:
            check_interrupt()
            if ledger is None:
                app.processEvents()
            else:
                ledger.pump(app, wait=ledger.waits)
            if predicate():
                return True
            if deadline is None:
                time.sleep(0.001)
        return predicate()
    finally:
        if deadline is not None:
            deadline.stop()


def main_slider(panel):
    from PySide6.QtWidgets import QAbstractSlider

    getter = getattr(panel, "main_slider", None)
    slider = getter() if callable(getter) else None
    if slider is None:
        sliders = panel.findChildren(QAbstractSlider)
        if not sliders:
            raise RuntimeError(f"panel {panel.panel_id} has no slider to drag")
        slider = sliders[0]
    return slider


def drag_values(slider, steps: int) -> list:
    lo, hi = slider.minimum(), slider.maximum()
    start = slider.value()
    span = hi - lo
    # Sweep from the current value across up to half the range and halfway back: a lecturer's drag.  It ends on a
    # new value: a drag back to where it began may rightly show nothing new (on a loaded machine no step between
    # was computed, the last equalled what was on screen, and the drag measured nothing).
    amp = span / 2 if span else 0
    tri = np.abs(((np.arange(steps) / max(steps - 1, 1)) * 1.5) % 2 - 1)  # 1 -> 0 -> 0.5
    raw = start + (1 - tri) * (amp if start + amp <= hi else -amp)
    if isinstance(lo, int) and isinstance(hi, int):
        return [int(round(v)) for v in np.clip(raw, lo, hi)]
    return [float(v) for v in np.clip(raw, lo, hi)]


class _Heartbeat(QObject):
    """A 1 ms timer on the UI thread; its longest gap is the worst stall."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = QElapsedTimer()
        self.clock.start()
        self.gaps = [0.0]
        self._last = self.clock.nsecsElapsed()
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(1)
        self.timer.timeout.connect(self.tick)

    def start(self) -> None:
        """Begin timing now (the first gap is from here, not from when the heartbeat was made)."""
        self._last = self.clock.nsecsElapsed()
        self.timer.start()

    def tick(self) -> None:
        now = self.clock.nsecsElapsed()
        self.gaps.append((now - self._last) / 1e6)
        self._last = now


class _Drag(QObject):
    """Result and draw bookkeeping of one drag (bound methods: no lambdas on Qt signals)."""

    def __init__(self, panel) -> None:
        super().__init__()
        self.panel = panel
        self.t_step: list[float] = []
        self.latency: dict[int, float] = {}
        self.first_plot: dict[int, float] = {}  # step -> ms until one plot showed it (a result's first part)
        self.step_of: dict = {}
        self.job_ms: list[float] = []
        self._drawn: list = []  # origins drawn whole since the last paint (see on_painted)
        self._first: list = []  # origins drawn in one plot at least since the last paint

    def on_result(self, res) -> None:
        if res.key.split(".")[0] == self.panel.panel_id:
            self.job_ms.append(res.elapsed_ms)

    def on_drawn(self, _key) -> None:
        """A whole result drawn (its last part): the steps up to its own are on screen once it is painted."""
        self._drawn.append(self.panel.last_drawn_origin)

    def on_part_drawn(self, _key) -> None:
        """A result, or a first part of one, drawn: the steps up to its own are in one plot once it is painted."""
        self._first.append(self.panel.last_drawn_origin)

    def on_painted(self) -> None:
        """What the frame scheduler drew in the turn before is painted: the steps it showed are on screen now (the
        latency ends here, not at the draw, which leaves the painting to Qt a few turns later)."""
        now = time.perf_counter()
        for origins, into in ((self._drawn, self.latency), (self._first, self.first_plot)):
            for origin in origins:
                # The drawn result's origin is the panel's state id when it was asked for: map it to its step.
                i = self.step_of.get(origin)
                for j in range(i + 1 if i is not None else 0):
                    if j not in into and j < len(self.t_step):
                        into[j] = (now - self.t_step[j]) * 1e3
            origins.clear()


def plot_names(panel) -> tuple[dict[int, str], dict[int, str]]:
    """``id(plot) -> name`` for the panel's plots built so far (their stable names, as export lists them), and
    ``id(scene) -> name`` for their scenes."""
    import pyqtgraph as pg

    from ..export.slide import plot_key

    names: dict[int, str] = {}
    scenes: dict[int, str] = {}
    seen: dict[str, int] = {}
    for view in panel.findChildren(pg.GraphicsView):
        name = plot_key(panel, view)
        seen[name] = seen.get(name, 0) + 1
        names[id(view)] = scenes[id(view.scene())] = name if seen[name] == 1 else f"{name}-{seen[name]}"
    return names, scenes


def plot_order(panel, names: dict[int, str]) -> list[str]:
    """The names of the plots on screen, top to bottom and left to right (the split lists them so)."""
    from PySide6.QtCore import QPoint

    shown = [(v.mapTo(panel, QPoint(0, 0)), v) for v in panel.visible_plots() if id(v) in names]
    return [names[id(v)] for p, v in sorted(shown, key=lambda pv: (pv[0].y(), pv[0].x()))]


def renderer(panel) -> str:
    """What paints the panel's plots: "opengl" (a QOpenGLWidget viewport) or "raster" (QPainter in software)."""
    import pyqtgraph as pg

    from ..widgets.renderer import renderer_of

    return renderer_of(panel.findChildren(pg.GraphicsView))


def run_drag(panel, service, steps: int = 120, hz: float = 60.0, profile=None, keep_frames: bool = False) -> dict:
    """A simulated slider drag of ``steps`` steps at ``hz`` on the panel's main slider, in its window; ``profile``
    (a ``cProfile.Profile``) profiles the UI thread during the drag; ``keep_frames`` keeps each frame's split
    (``frame_split["per_frame"]``, ms)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        raise RuntimeError("the bench runs in the app's QApplication (make_app first)")
    slider = main_slider(panel)
    values = drag_values(slider, steps)
    drag = _Drag(panel)
    superseded0 = service.superseded
    service.resultReady.connect(drag.on_result)
    panel.drawn.connect(drag.on_drawn)
    panel.partDrawn.connect(drag.on_part_drawn)
    panel.frames.painted.connect(drag.on_painted)
    beat = _Heartbeat()
    names, scenes = plot_names(panel)
    ledger = FrameLedger(names, scenes)
    interval = 1.0 / hz
    cpu0, steal0 = process_cpu(), steal_s()
    slider.setSliderDown(True)
    beat.start()
    dispatcher = QAbstractEventDispatcher.instance()
    timed_app = app if isinstance(app, TimedApplication) else None
    # Idle time is told apart only where every event is recorded (its end is the first one delivered): in a plain
    # QApplication the loop polls, as it did before, and what it waits counts as busy.
    ledger.waits = timed_app is not None
    before, connected = frame_probe.active(), False
    try:
        if ledger.waits:
            dispatcher.aboutToBlock.connect(ledger.blocking)
            connected = True
        before = frame_probe.install(ledger)
        if timed_app is not None:
            timed_app.ledger = ledger
        if profile is not None:
            profile.enable()
        t0 = time.perf_counter()
        for i, v in enumerate(values):
            target = t0 + i * interval
            # At least one turn of the event loop between two steps, as between two mouse moves: a step that is
            # late (the loop was busy) is not sent straight after the one before, with nothing drawn between.
            # Between steps the loop runs as the app's own does: it waits for events and handles each the moment
            # it is posted (polling with a sleep between made every hop of a result's way to the screen wait out a
            # sleep: about 2 ms of every step's latency was the bench's own, docs/performance.md).  The heartbeat's
            # 1 ms timer wakes it in time for the next step.
            ledger.pump(app)
            while time.perf_counter() < target:
                check_interrupt()
                ledger.pump(app, wait=ledger.waits)
                if not ledger.waits:
                    time.sleep(0.0005)
            t_step, origin = time.perf_counter(), panel.origin
            ledger.run_input(slider.setValue, v)
            # A step that leaves the panel's state as it was (the slider's first value, where it stands; a value
            # that snaps to a mark it already shows) has nothing to show: it is not timed.  Counted as it was, its
            # "latency" ran on to the next step's draw (Waves' first two steps: +17 and +34 ms).
            if panel.origin != origin:
                drag.step_of[panel.origin] = len(drag.t_step)
                drag.t_step.append(t_step)
        # The drag's frames: from the first step until its last step is on screen (at least one interval after
        # the last step); a loaded machine showed the last steps after the drag itself and counted no frame.
        wait(app, lambda: False, interval, ledger)
        wait(app, lambda: len(drag.latency) == len(drag.t_step) or (service.idle() and not panel.waiting), 120.0,
             ledger)
        drag_s = time.perf_counter() - t0
    finally:
        if profile is not None:
            profile.disable()
        frame_probe.install(before)
        if connected:
            dispatcher.aboutToBlock.disconnect(ledger.blocking)
        if timed_app is not None:
            timed_app.ledger = None
        slider.setSliderDown(False)  # (also when the drag fails or is interrupted: the UI thread gets its cores back)
    # Settled when every step has been shown, or when nothing is left to come (the service is
    # idle and the panel waits for nothing) — then unshown steps simply had no visible effect.
    settled = wait(app, lambda: (len(drag.latency) == len(drag.t_step) and service.idle() and panel.has_drawn)
                   or (service.idle() and not panel.waiting), 120.0)
    wait(app, lambda: False, 0.05)
    cpu = cpu_delta(cpu0, process_cpu())
    steal = steal_s() - steal0
    cpu["steal"] = None if steal != steal else float(steal)  # None: not known here (no /proc/stat)
    beat.timer.stop()
    service.resultReady.disconnect(drag.on_result)
    panel.drawn.disconnect(drag.on_drawn)
    panel.partDrawn.disconnect(drag.on_part_drawn)
    panel.frames.painted.disconnect(drag.on_painted)
    # The frames are the split's: a plot's repaint more than FRAME_GAP_S after the last one ended, or after a draw
    # pass, begins one (timed from the start of the last repaint, each of three plots repainted back to back in a
    # frame counted as a frame of its own once a repaint took longer than that).
    per_frame = ledger.frames()
    split = summarise(per_frame, plot_order(panel, names))
    if keep_frames:
        split["per_frame"] = [{k: v * 1e3 for k, v in f.items()} for f in per_frame]
    return {
        "compute_ms": percentiles(drag.job_ms),
        "drag_latency_ms": percentiles(list(drag.latency.values())),
        # Until the first plot showed each step (a result drawn in parts counts at its first: see Panel.draw_parts).
        "first_plot_ms": percentiles(list(drag.first_plot.values())),
        "ui_stall_ms_max": float(max(beat.gaps[1:], default=0.0)),
        "superseded": int(service.superseded - superseded0),
        "steps": len(values),
        "steps_changed": len(drag.t_step),  # the steps that changed the panel's state: the ones timed
        "steps_shown": len(drag.latency),
        "settled": bool(settled),
        "frames_per_s": float(len(per_frame) / drag_s) if drag_s > 0 else 0.0,
        "paints": int(ledger.paints),
        "cpu_s": cpu,
        "frame_split": split,
        "renderer": renderer(panel),
    }
