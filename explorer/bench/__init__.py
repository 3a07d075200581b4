"""``pe-explorer bench``: a fixed, reproducible performance suite, run offscreen.

Each case (a panel at a size) runs in the whole main window — menus, docks, the theme bus, export
menus, every other dock — as the app does, not a panel alone.  It measures:

* ``compute_ms`` — the worker's time per job during the drag (p50/p95);
* ``drag_latency_ms`` — a simulated slider drag of 120 steps at 60 Hz on the panel's main
  slider; for each step, the time from the slider's value change to the moment the panel has
  drawn that step's (or a later step's) result (p50/p95);
* ``superseded`` — how many requests were replaced before they started (the service at work);
* ``ui_stall_ms_max`` — the longest gap of a 1 ms heartbeat timer on the UI thread during the drag;
* ``frames_per_s`` — frames painted per second from the drag's first step until its last step is on screen
  (the frame split's frames: a draw pass after a repaint or another draw pass, or a plot repainted more than
  4 ms after the last repaint ended, begins one); ``paints`` counts the repaints of the panel's plots;
* ``cpu_s`` — CPU seconds during the drag of the UI process (``ui``) and of each process descending
  from it (``children``: a compute process or pool, whatever exists);
* ``notebook_ms`` — the baseline, what a notebook user does: the full data (the panel's exact
  arrays: the whole N × d table, lines over all positions) put into an existing matplotlib figure
  (``set_data`` + ``draw``) per update; ``speedup_vs_notebook`` = its p50 / our drag-latency p50;
* ``notebook_interactive_ms`` — at the default sizes, the notebook a lecturer would make, redrawn after a
  slider change as ipywidgets and ipympl do (``set_data`` + ``draw_idle`` + ``flush_events``, then the render
  and the PNG the front end asks for; :func:`~explorer.bench.baseline.interactive_update_ms`);
  ``speedup_vs_notebook_interactive`` likewise (None at the other sizes);
* ``matplotlib_ms`` — the older, kinder baseline: the display-resolution figure the panel shows,
  recomputed with the same jobs and redrawn with Agg; ``speedup_vs_matplotlib`` likewise;
* ``frame_split`` — where each frame's UI-thread time goes during the drag: the draw, each plot's repaint and
  its scene's work, axes, the slider's input and the rest by event, mean and p95 per frame; the means add up to
  the total (:mod:`explorer.bench.split`);
* ``renderer`` — what paints the plots (``raster``: QPainter in software; ``opengl``: a GL viewport);
* ``host_loop_ms`` — the host's speed just before the case's drags and just after them (the median of three runs
  of :func:`host_speed`'s Python loop, ms): a case whose host slowed down as it ran says so, where the machine's
  one reading at the start of a run of many minutes cannot.

Each case's drag runs ``--runs`` times (3; 1 with ``--quick``) from the same state: every number is the median
over the runs, the frame split the median run's (:mod:`explorer.bench.runs`).  ``machine`` names the CPU, the
cores this process may use, the load average at the start, the Qt platform and the renderer, and how fast the host
is now (``speed``: a fixed Python loop and a fixed raster paint, :func:`host_speed`; hosts of the same name differ).

``window_shown_ms`` is measured in a fresh process: from just before the process is started to
the main window's first frame on screen, and ``first_results_ms`` to the raised panel's first results drawn
and painted (the compute process started and its first jobs done); ``imports`` is what the window path costs to import
(``python -X importtime``: total and the costliest top-level packages); ``startup`` splits a fresh
start into imports, ``MainWindow()``, the first frame and the raised panel built just after it (wall-clock and the
process's CPU time), and counts the panels, plots and modules made by then.  ``--scale`` adds a table
at four sizes per axis for each panel (:mod:`explorer.bench.scale`); ``--profile CASE`` runs one case and
writes its split, frame by frame, and a profile of the UI thread during a drag (:mod:`explorer.bench.profile`).

Timings are for comparison within one run (ratios), never for pass/fail tests.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import platform
import tempfile
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np

from ..interrupts import check as check_interrupt
from ..interrupts import deferred_sigint
from .baseline import full_update_ms, interactive_update_ms, notebook_arrays, reduced_update_ms
from .measure import drag_values, main_slider, run_drag, wait
from .runs import median_of_runs
from .startup import import_costs, startup_phases, window_shown_ms

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
    #: Also time the notebook redrawn after a slider change (ipywidgets + ipympl): done at the default sizes.
    interactive: bool = False


def _alpha_scales() -> str:
    """The first Token swap scheme that α scales (the registry's sinusoidal PE): under the default NoPE an α drag
    changes no number."""
    from ..panels.swap.controls import adds_to_input
    from ..schemes import swap_ids

    return next(s for s in swap_ids() if adds_to_input(s))


#: A Token swap scheme whose drag of α changes the maps.
ALPHA_PE = _alpha_scales()

CASES = (
    Case("waves", "default", interactive=True),
    Case("waves", "N=131072 d=128", {"n_positions": 131072, "d_model": 128}),
    Case("waves", "N=8192 d=1024", {"n_positions": 8192, "d_model": 1024}),
    Case("swap", "default", interactive=True),
    Case("swap", "64 tokens", {"sentence": SENTENCE_64}),
    # Token swap's default scheme is NoPE, where α changes no number: its two cases above give the maps the same
    # data at every step.  A drag where α matters, at both sentence lengths:
    Case("swap", ALPHA_PE, {"scheme": ALPHA_PE}, interactive=True),
    Case("swap", f"64 tokens {ALPHA_PE}", {"sentence": SENTENCE_64, "scheme": ALPHA_PE}),
    Case("schemes", "default", interactive=True),
    Case("schemes", "L_eval=16384 head_dim=128", {"l_train": 1024, "l_eval": 16384, "head_dim": 128}),
)

QUICK_CASES = (
    Case("waves", "tiny", {"n_positions": 64, "d_model": 16}, interactive=True),
    Case("swap", "default", interactive=True),
    Case("schemes", "tiny", {"l_train": 32, "l_eval": 64, "head_dim": 16}, interactive=True),
)


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
    from PySide6.QtGui import QGuiApplication

    try:
        cores = len(os.sched_getaffinity(0))  # the cores this process may run on
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        load = [round(v, 2) for v in os.getloadavg()]
    except (AttributeError, OSError):
        load = []
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": cores,
        "cpus": os.cpu_count(),
        "load_avg": load,  # 1, 5 and 15 minutes, at the start
        "memory_gib": mem_gib,
        "python": platform.python_version(),
        "qt": QtCore.qVersion(),
        "pyside6": _pkg("PySide6-Essentials"),
        "pyqtgraph": _pkg("pyqtgraph"),
        "numpy": np.__version__,
        "torch": _pkg("torch"),
        "matplotlib": _pkg("matplotlib"),
        "qpa_platform": QGuiApplication.platformName() or os.environ.get("QT_QPA_PLATFORM", ""),
        "renderer": "",  # filled in from the cases' plots (see measure.renderer)
        "speed": host_speed(),
    }


def host_speed(repeats: int = 5) -> dict:
    """How fast this host is now, for comparing runs (the same code ran 2× slower on one day's host than another's):
    the median time (ms) of a fixed pure-Python loop (``python_ms``: the interpreter, as the UI thread's Python is)
    and of a fixed software-raster paint (``raster_ms``: 300 antialiased segments, 64 short texts and a scaled
    64 × 64 image into 600 × 400 pixels, as a Token swap map's repaint is made of)."""
    from PySide6.QtCore import QLineF, QPointF, QRectF
    from PySide6.QtGui import QColor, QImage, QPainter, QPen

    target = QImage(600, 400, QImage.Format.Format_ARGB32_Premultiplied)
    picture = QImage(64, 64, QImage.Format.Format_ARGB32_Premultiplied)
    picture.fill(QColor(200, 80, 40))
    ys = 200 + 150 * np.sin(np.arange(301) / 9)
    segments = [QLineF(2 * i, ys[i], 2 * i + 2, ys[i + 1]) for i in range(300)]

    def raster() -> None:
        target.fill(0)
        painter = QPainter(target)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.drawImage(QRectF(0, 0, 600, 400), picture)
            painter.setPen(QPen(QColor(20, 20, 120), 2.0))
            painter.drawLines(segments)
            for k in range(64):
                painter.drawText(QPointF(10 + 70 * (k % 8), 20 + 45 * (k // 8)), f"0.{k:02d}")
        finally:
            painter.end()

    return {"python_ms": _median_ms(_python_loop, repeats), "raster_ms": _median_ms(raster, repeats)}


def _python_loop() -> None:
    """The fixed pure-Python work whose time tells how fast the host is now (:func:`host_speed`)."""
    total = 0
    for i in range(200_000):
        total += i % 7


def _median_ms(work, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        work()
        samples.append((time.perf_counter() - t0) * 1e3)
    return round(float(np.median(samples)), 2)


def host_loop_ms(repeats: int = 3) -> float:
    """:func:`host_speed`'s Python loop alone (ms, the median of ``repeats``): read before and after each case."""
    return _median_ms(_python_loop, repeats)


# -- the suite ------------------------------------------------------------------------------------------
def case_state(case: Case):
    from ..panels import PANELS, load_panel_class

    spec = dict((pid, s) for pid, _, s in PANELS)[case.panel]
    default = load_panel_class(spec).state_cls()
    clamp = getattr(default, "clamped", None)
    return clamp(**case.overrides) if callable(clamp) else dataclasses.replace(default, **case.overrides)


def run_case(case: Case, steps: int, mpl_repeats: int, runs: int = 1, profile=None,
             keep_frames: bool = False) -> dict:
    """One case in a whole main window (its own service), the case's panel raised and set to the size: its drag
    ``runs`` times (the medians), then the baselines; ``profile`` (a ``cProfile.Profile``) profiles one drag
    more; ``keep_frames`` keeps the split frame by frame."""
    from PySide6.QtWidgets import QApplication

    from ..app import freeze_after_start
    from ..main_window import MainWindow

    app = QApplication.instance()
    if app is None:
        raise RuntimeError("the bench runs in the app's QApplication (make_app first)")
    window = MainWindow(restore_layout=False, save_on_close=False)
    try:
        window.resize(1440, 900)
        window.show()
        window.show_panel(case.panel)
        panel = window.panels[case.panel]
        freeze_after_start()  # as the app does once its window is up and the panel on screen built
        drags: list[dict] = []
        loop_before = float("nan")
        for _ in range(runs):
            check_interrupt()
            _set_and_draw(app, window.service, panel, case)
            if not drags:  # (once the case's first result is drawn: nothing then computes beside the loop)
                loop_before = host_loop_ms()
            drags.append(run_drag(panel, window.service, steps=steps, keep_frames=keep_frames))
        if profile is not None:  # a drag of its own: the profiler's cost is in none of the times above
            _set_and_draw(app, window.service, panel, case)
            run_drag(panel, window.service, steps=steps, profile=profile)
        result: dict[str, Any] = {"panel": case.panel, "size": case.size}  # JSON: numbers and tables
        result.update(median_of_runs(drags))
        result["host_loop_ms"] = [loop_before, host_loop_ms()]
        ours = result["drag_latency_ms"]["p50"]
        for name, measure in (("notebook", full_update_ms), ("matplotlib", reduced_update_ms)):
            result[f"{name}_ms"] = base = measure(panel, mpl_repeats)
            result[f"speedup_vs_{name}"] = _ratio(base["p50"], ours)
        result["notebook_interactive_ms"] = result["speedup_vs_notebook_interactive"] = None
        if case.interactive:
            positions = _slider_positions(app, window.service, panel, 4 if mpl_repeats > 1 else 2)
            result["notebook_interactive_ms"] = base = interactive_update_ms(positions, 8 if mpl_repeats > 1 else 3)
            result["speedup_vs_notebook_interactive"] = _ratio(base["p50"], ours)
        return result
    finally:
        window.close()
        window.deleteLater()
        app.processEvents()
        gc.unfreeze()  # the closed window's objects can go; the next case freezes its own


def _ratio(base: float, ours: float) -> float:
    return float(base / ours) if ours and ours == ours else float("nan")


def _set_and_draw(app, service, panel, case: Case) -> None:
    """The case's state, drawn: where each run of its drag starts."""
    panel.set_state(case_state(case))
    if not wait(app, lambda: panel.has_drawn and service.idle(), 300.0):
        raise RuntimeError(f"{case.panel} ({case.size}) did not draw its first result")
    wait(app, lambda: False, 0.05)  # its repaint too


def _slider_positions(app, service, panel, n: int) -> list:
    """The notebook's figure arrays at ``n`` positions of the panel's main slider (out and back, as the drag
    goes), each once the panel has drawn it; the panel is left at the last one."""
    slider = main_slider(panel)
    out = []
    for v in drag_values(slider, n + 1)[1:]:
        slider.setValue(v)
        wait(app, lambda: panel.has_drawn and service.idle(), 300.0)
        out.append(notebook_arrays(panel))
    return out


def start_app() -> None:
    """The bench's QApplication (it names the events of a frame's split), set up as the app does."""
    from ..app import make_app, prepare_ui_process
    from ..widgets.plots import configure_pyqtgraph
    from .timed_app import TimedApplication

    prepare_ui_process()  # as the app does: one BLAS thread in the UI process
    make_app(app_class=TimedApplication)
    configure_pyqtgraph()


def run_suite(quick: bool = False, steps: int | None = None, scale: bool = False, runs: int | None = None) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # The suite's windows read and write no settings of the user's (a folder of its own).
    with tempfile.TemporaryDirectory(prefix="pe-bench-home-") as home:
        os.environ["PE_EXPLORER_HOME"] = home
        return _run_suite(quick, steps, scale, runs or (1 if quick else 3))


def _run_suite(quick: bool, steps: int | None, scale: bool, runs: int) -> dict:
    start_app()
    cases = QUICK_CASES if quick else CASES
    steps = steps or (12 if quick else 120)
    ran: list[dict] = []
    start = window_shown_ms(1 if quick else 3)
    out: dict[str, Any] = {"machine": machine_info(), "window_shown_ms": start["shown"],
                           "first_results_ms": start["drawn"], "imports": import_costs(), "startup": startup_phases(),
                           "runs": runs, "cases": ran}
    for case in cases:
        check_interrupt()
        ran.append(run_case(case, steps, 1 if quick else 3, runs))
    out["machine"]["renderer"] = renderers(ran)
    from ..widgets import plots

    out["machine"]["renderer_problem"] = plots.renderer_problem  # why OpenGL, asked for, was not used
    if scale:
        from .scale import run_scale

        out["scale"] = run_scale(quick=quick, runs=runs)
    return out


def renderers(cases: list[dict]) -> str:
    """The renderers the cases' plots used, in one word each ("raster")."""
    return ", ".join(sorted({c["renderer"] for c in cases})) or "?"


def main(args) -> int:
    from .report import format_table

    # Ctrl+C is raised only where the suite looks (between events), never inside a Qt callback;
    # each case's ``finally`` then stops its worker before the interpreter shuts down.
    with deferred_sigint():
        if getattr(args, "profile", None):
            from .profile import run_profile

            report = run_profile(args.profile, args.profile_out, quick=args.quick, steps=args.steps, runs=args.runs)
        else:
            report = run_suite(quick=args.quick, steps=args.steps, scale=getattr(args, "scale", False),
                               runs=args.runs)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(format_table(report))
    if args.out:
        from ..fileio import atomic_write_text

        atomic_write_text(args.out, json.dumps(report, indent=1))
    return 0
