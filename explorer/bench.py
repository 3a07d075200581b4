"""``pe-explorer bench``: a fixed, reproducible performance suite, run offscreen.

For each case (a panel at a size) it measures:

* ``compute_ms`` — the worker's time per job during the drag (p50/p95);
* ``drag_latency_ms`` — a simulated slider drag of 120 steps at 60 Hz on the panel's main
  slider; for each step, the time from the slider's value change to the moment the panel has
  drawn that step's (or a later step's) result (p50/p95);
* ``superseded`` — how many requests were replaced before they started (the service at work);
* ``ui_stall_ms_max`` — the longest gap of a 1 ms heartbeat timer on the UI thread during the drag;
* ``matplotlib_ms`` — the baseline: the same figure (the same images, curves and bars the panel
  shows) recomputed with the same jobs and redrawn with matplotlib's Agg backend, per update;
  ``speedup_vs_matplotlib`` = matplotlib p50 / our drag-latency p50.

``window_shown_ms`` is measured in a fresh process: from just before the process is started to
the main window being shown (torch is not loaded by then).

Timings are for comparison within one run (ratios), never for pass/fail tests.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version

import numpy as np

from .interrupts import check as check_interrupt
from .interrupts import deferred_sigint

SENTENCE_64 = (
    "the quick brown fox jumps over the lazy dog while a small bird sings in the tall green tree "
    "near the old stone bridge and the river flows slowly past the quiet town where people walk "
    "their dogs every morning before work begins at nine and children run to school with bright "
    "bags full of books"
)


@dataclass(frozen=True)
class Case:
    panel: str
    size: str
    overrides: dict = field(default_factory=dict)


CASES = (
    Case("waves", "default"),
    Case("waves", "N=131072 d=128", {"n_positions": 131072, "d_model": 128}),
    Case("waves", "N=8192 d=1024", {"n_positions": 8192, "d_model": 1024}),
    Case("swap", "default"),
    Case("swap", "64 tokens", {"sentence": SENTENCE_64}),
    Case("schemes", "default"),
    Case("schemes", "L_eval=16384 head_dim=128", {"l_train": 1024, "l_eval": 16384, "head_dim": 128}),
)

QUICK_CASES = (
    Case("waves", "tiny", {"n_positions": 64, "d_model": 16}),
    Case("swap", "default"),
    Case("schemes", "tiny", {"l_train": 32, "l_eval": 64, "head_dim": 16}),
)


def _percentiles(values) -> dict:
    if not values:
        return {"p50": float("nan"), "p95": float("nan")}
    a = np.asarray(values, dtype=np.float64)
    return {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95))}


def _pkg(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def machine_info() -> dict:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_gib = None
    try:
        with open("/proc/meminfo") as fh:
            mem_gib = round(int(fh.readline().split()[1]) / 2**20, 1)
    except (OSError, ValueError, IndexError):
        pass
    from PySide6 import QtCore

    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": mem_gib,
        "python": platform.python_version(),
        "qt": QtCore.qVersion(),
        "pyside6": _pkg("PySide6-Essentials"),
        "pyqtgraph": _pkg("pyqtgraph"),
        "numpy": np.__version__,
        "torch": _pkg("torch"),
        "matplotlib": _pkg("matplotlib"),
        "qpa_platform": os.environ.get("QT_QPA_PLATFORM", ""),
    }


def window_shown_ms(repeats: int = 3) -> float:
    """Median time from process start to the main window shown, in fresh processes."""
    import tempfile

    # A settings folder of its own: the window closes after it is shown, and a closing window that
    # started with --reset-layout saves its layout and session — never over the user's.
    home = tempfile.TemporaryDirectory(prefix="pe-bench-home-")
    env = {**os.environ, "PE_EXPLORER_EXIT_AFTER_SHOWN": "1", "PE_EXPLORER_HOME": home.name}
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    samples = []
    for _ in range(repeats):
        t0 = time.time()
        proc = subprocess.Popen([sys.executable, "-m", "explorer", "--reset-layout"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            while proc.poll() is None and time.time() - t0 < 120:  # Ctrl+C is looked at while it runs
                check_interrupt()
                time.sleep(0.02)
        finally:
            if proc.poll() is None:
                proc.kill()
            out, _ = proc.communicate()
        for line in out.splitlines():
            if line.startswith("shown_at="):
                samples.append((float(line.split("=", 1)[1]) - t0) * 1e3)
    home.cleanup()
    return float(np.median(samples)) if samples else float("nan")


# -- the drag ---------------------------------------------------------------------------------------
def _main_slider(panel):
    from PySide6.QtWidgets import QAbstractSlider

    getter = getattr(panel, "main_slider", None)
    slider = getter() if callable(getter) else None
    if slider is None:
        sliders = panel.findChildren(QAbstractSlider)
        if not sliders:
            raise RuntimeError(f"panel {panel.panel_id} has no slider to drag")
        slider = sliders[0]
    return slider


def _drag_values(slider, steps: int) -> list:
    lo, hi = slider.minimum(), slider.maximum()
    start = slider.value()
    span = hi - lo
    # Sweep from the current value across up to half the range and back: a lecturer's drag.
    amp = span / 2 if span else 0
    tri = np.abs(((np.arange(steps) / max(steps - 1, 1)) * 2) % 2 - 1)  # 1 -> 0 -> 1
    raw = start + (1 - tri) * (amp if start + amp <= hi else -amp)
    if isinstance(lo, int) and isinstance(hi, int):
        return [int(round(v)) for v in np.clip(raw, lo, hi)]
    return [float(v) for v in np.clip(raw, lo, hi)]


def _wait(app, predicate, timeout_s: float) -> bool:
    end = time.perf_counter() + timeout_s
    while time.perf_counter() < end:
        check_interrupt()
        app.processEvents()
        if predicate():
            return True
        time.sleep(0.001)
    return predicate()


def run_drag(panel, service, steps: int = 120, hz: float = 60.0) -> dict:
    from PySide6.QtCore import QElapsedTimer, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    slider = _main_slider(panel)
    values = _drag_values(slider, steps)
    t_step: list[float] = []
    latency: dict[int, float] = {}
    step_of: dict = {}
    job_ms: list[float] = []
    superseded0 = service.superseded

    def on_result(res):
        if res.key.split(".")[0] == panel.panel_id:
            job_ms.append(res.elapsed_ms)

    def on_drawn(_key):
        now = time.perf_counter()
        # The drawn result's origin is the panel's state id when it was asked for: map it to its step.
        i = step_of.get(panel.last_drawn_origin)
        if i is None:
            return
        for j in range(i + 1):
            if j not in latency and j < len(t_step):
                latency[j] = (now - t_step[j]) * 1e3

    service.resultReady.connect(on_result)
    panel.drawn.connect(on_drawn)

    # Heartbeat: a 1 ms timer on the UI thread; its longest gap is the worst stall.
    beat = QElapsedTimer()
    beat.start()
    gaps = [0.0]
    last = [beat.nsecsElapsed()]

    def tick():
        now = beat.nsecsElapsed()
        gaps.append((now - last[0]) / 1e6)
        last[0] = now

    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(1)
    heartbeat.timeout.connect(tick)

    interval = 1.0 / hz
    slider.setSliderDown(True)
    heartbeat.start()
    t0 = time.perf_counter()
    for i, v in enumerate(values):
        target = t0 + i * interval
        while time.perf_counter() < target:
            check_interrupt()
            app.processEvents()
            time.sleep(0.0005)
        t_step.append(time.perf_counter())
        slider.setValue(v)
        step_of[panel.origin] = i
    slider.setSliderDown(False)
    # Settled when every step has been shown, or when nothing is left to come (the service is
    # idle and the panel waits for nothing) — then unshown steps simply had no visible effect.
    settled = _wait(app, lambda: (len(latency) == len(values) and service.idle() and panel.has_drawn)
                    or (service.idle() and not panel.waiting), 120.0)
    _wait(app, lambda: False, 0.05)
    heartbeat.stop()
    service.resultReady.disconnect(on_result)
    panel.drawn.disconnect(on_drawn)
    stall = max(gaps[1:], default=0.0)
    return {
        "compute_ms": _percentiles(job_ms),
        "drag_latency_ms": _percentiles(list(latency.values())),
        "ui_stall_ms_max": float(stall),
        "superseded": int(service.superseded - superseded0),
        "steps": len(values),
        "steps_shown": len(latency),
        "settled": bool(settled),
    }


# -- the matplotlib baseline --------------------------------------------------------------------------
def _figure_items(panel) -> list:
    """What the panel shows, per plot: images, curves and bars (the data, not the widgets)."""
    import pyqtgraph as pg

    plots = []
    for pw in panel.plots():
        if not pw.isVisible():
            continue
        items = []
        for it in pw.getPlotItem().items:
            if isinstance(it, pg.ImageItem) and it.image is not None:
                items.append(("image", np.asarray(it.image)))
            elif isinstance(it, pg.PlotDataItem):
                x, y = it.getOriginalDataset()
                if x is not None and y is not None and len(x):
                    items.append(("curve", (np.asarray(x), np.asarray(y))))
            elif isinstance(it, pg.BarGraphItem):
                opts = it.opts
                if opts.get("x") is not None and opts.get("height") is not None:
                    items.append(("bars", (np.asarray(opts["x"]), np.asarray(opts["height"]))))
        if items:
            plots.append(items)
    return plots


def matplotlib_update_ms(panel, repeats: int = 3) -> dict:
    """Per update: recompute the panel's jobs at full resolution and redraw its figure with Agg."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=True)
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return {"p50": float("nan")}
    from . import jobs
    from .jobs.misc import WarmUpRequest

    # The panel's jobs ran in the compute process: torch is imported here, outside the timing, with
    # the one intra-op thread the compute process uses (its default pool crawls on a loaded 2-core machine).
    jobs.run(WarmUpRequest())
    layout = _figure_items(panel)
    if not layout:
        return {"p50": float("nan")}
    n = len(layout)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    samples = []
    for _ in range(repeats):
        check_interrupt()
        t0 = time.perf_counter()
        for req in panel.requests(panel.state):
            full = dataclasses.replace(req, preview=False) if hasattr(req, "preview") else req
            jobs.run(full)
        fig = Figure(figsize=(12.8, 8.0), dpi=100)
        FigureCanvasAgg(fig)
        for k, items in enumerate(layout):
            ax = fig.add_subplot(rows, cols, k + 1)
            for kind, data in items:
                if kind == "image":
                    ax.imshow(data, aspect="auto", cmap="RdBu_r", interpolation="nearest")
                elif kind == "curve":
                    ax.plot(*data, lw=1)
                else:
                    ax.bar(*data)
        fig.canvas.draw()
        samples.append((time.perf_counter() - t0) * 1e3)
    return {"p50": float(np.median(samples))}


# -- the suite ------------------------------------------------------------------------------------------
def run_case(case: Case, steps: int, mpl_repeats: int) -> dict:
    from PySide6.QtWidgets import QApplication

    from .main_window import load_panel_class
    from .panels import PANELS
    from .service import ComputeService

    app = QApplication.instance()
    spec = dict((pid, s) for pid, _, s in PANELS)[case.panel]
    cls = load_panel_class(spec)
    default = cls.state_cls()
    clamp = getattr(default, "clamped", None)
    state = clamp(**case.overrides) if callable(clamp) else dataclasses.replace(default, **case.overrides)
    service = ComputeService(warm_up=True)
    panel = cls(service, state)
    try:
        panel.resize(1280, 800)
        panel.show()
        if not _wait(app, lambda: panel.has_drawn and service.idle(), 300.0):
            raise RuntimeError(f"{case.panel} ({case.size}) did not draw its first result")
        result = {"panel": case.panel, "size": case.size}
        result.update(run_drag(panel, service, steps=steps))
        mpl = matplotlib_update_ms(panel, mpl_repeats)
        result["matplotlib_ms"] = mpl
        ours = result["drag_latency_ms"]["p50"]
        result["speedup_vs_matplotlib"] = float(mpl["p50"] / ours) if ours and ours == ours else float("nan")
        return result
    finally:
        panel.shutdown()
        service.stop(10.0)
        panel.close()
        panel.deleteLater()
        app.processEvents()


def run_suite(quick: bool = False, steps: int | None = None) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from .app import make_app
    from .widgets.plots import configure_pyqtgraph

    make_app()
    configure_pyqtgraph()
    cases = QUICK_CASES if quick else CASES
    steps = steps or (12 if quick else 120)
    out = {"machine": machine_info(), "window_shown_ms": window_shown_ms(1 if quick else 3), "cases": []}
    for case in cases:
        check_interrupt()
        out["cases"].append(run_case(case, steps, 1 if quick else 3))
    return out


def format_table(report: dict) -> str:
    m = report["machine"]
    lines = [
        f"PE Explorer benchmark — {m['cpu']} ({m['cores']} cores), Python {m['python']}, Qt {m['qt']}, "
        f"torch {m['torch']}",
        f"window shown: {report['window_shown_ms']:.0f} ms after process start",
        "",
        f"{'panel':8} {'size':28} {'compute p50/p95':>17} {'drag p50/p95':>15} {'stall max':>10} "
        f"{'superseded':>10} {'matplotlib':>11} {'speedup':>8}",
    ]
    for c in report["cases"]:
        lines.append(
            f"{c['panel']:8} {c['size']:28} {c['compute_ms']['p50']:7.1f}/{c['compute_ms']['p95']:<7.1f}ms "
            f"{c['drag_latency_ms']['p50']:6.1f}/{c['drag_latency_ms']['p95']:<6.1f}ms "
            f"{c['ui_stall_ms_max']:8.1f}ms {c['superseded']:10d} {c['matplotlib_ms']['p50']:9.0f}ms "
            f"{c['speedup_vs_matplotlib']:7.1f}×"
        )
    return "\n".join(lines)


def main(args) -> int:
    # Ctrl+C is raised only where the suite looks (between events), never inside a Qt callback;
    # each case's ``finally`` then stops its worker before the interpreter shuts down.
    with deferred_sigint():
        report = run_suite(quick=args.quick, steps=args.steps)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(format_table(report))
    if args.out:
        from .fileio import atomic_write_text

        atomic_write_text(args.out, json.dumps(report, indent=1))
    return 0
