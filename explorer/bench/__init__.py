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
  (paint events of the panel's plot viewports; paints within 4 ms are one frame), ``paints`` their count;
* ``cpu_s`` — CPU seconds during the drag of the UI process (``ui``) and of each process descending
  from it (``children``: a compute process or pool, whatever exists);
* ``notebook_ms`` — the baseline, what a notebook user does: the full data (the panel's exact
  arrays: the whole N × d table, lines over all positions) put into an existing matplotlib figure
  (``set_data`` + ``draw``) per update; ``speedup_vs_notebook`` = its p50 / our drag-latency p50;
* ``matplotlib_ms`` — the older, kinder baseline: the display-resolution figure the panel shows,
  recomputed with the same jobs and redrawn with Agg; ``speedup_vs_matplotlib`` likewise.

``window_shown_ms`` is measured in a fresh process: from just before the process is started to
the main window being shown; ``imports`` is what the window path costs to import
(``python -X importtime``: total and the costliest top-level packages); ``startup`` splits a fresh
start into imports, ``MainWindow()`` and the first frame (wall-clock and the process's CPU time), and
counts the panels, plots and modules made by then.  ``--scale`` adds a table
at four sizes per axis for each panel (:mod:`explorer.bench.scale`).

Timings are for comparison within one run (ratios), never for pass/fail tests.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import platform
import tempfile
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np

from ..interrupts import check as check_interrupt
from ..interrupts import deferred_sigint
from .baseline import full_update_ms, reduced_update_ms
from .measure import run_drag, wait
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


# -- the suite ------------------------------------------------------------------------------------------
def case_state(case: Case):
    from ..panels import PANELS, load_panel_class

    spec = dict((pid, s) for pid, _, s in PANELS)[case.panel]
    default = load_panel_class(spec).state_cls()
    clamp = getattr(default, "clamped", None)
    return clamp(**case.overrides) if callable(clamp) else dataclasses.replace(default, **case.overrides)


def run_case(case: Case, steps: int, mpl_repeats: int) -> dict:
    """One case in a whole main window (its own service), the case's panel raised and set to the size."""
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
        freeze_after_start()  # as the app does once its window is up
        window.show_panel(case.panel)
        panel = window.panels[case.panel]
        panel.set_state(case_state(case))
        if not wait(app, lambda: panel.has_drawn and window.service.idle(), 300.0):
            raise RuntimeError(f"{case.panel} ({case.size}) did not draw its first result")
        result: dict[str, Any] = {"panel": case.panel, "size": case.size}  # JSON: numbers and tables
        result.update(run_drag(panel, window.service, steps=steps))
        ours = result["drag_latency_ms"]["p50"]
        for name, measure in (("notebook", full_update_ms), ("matplotlib", reduced_update_ms)):
            base = measure(panel, mpl_repeats)
            result[f"{name}_ms"] = base
            result[f"speedup_vs_{name}"] = float(base["p50"] / ours) if ours and ours == ours else float("nan")
        return result
    finally:
        window.close()
        window.deleteLater()
        app.processEvents()
        gc.unfreeze()  # the closed window's objects can go; the next case freezes its own


def run_suite(quick: bool = False, steps: int | None = None, scale: bool = False) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # The suite's windows read and write no settings of the user's (a folder of its own).
    with tempfile.TemporaryDirectory(prefix="pe-bench-home-") as home:
        os.environ["PE_EXPLORER_HOME"] = home
        return _run_suite(quick, steps, scale)


def _run_suite(quick: bool, steps: int | None, scale: bool) -> dict:
    from ..app import make_app, prepare_ui_process
    from ..widgets.plots import configure_pyqtgraph

    prepare_ui_process()  # as the app does: one BLAS thread in the UI process
    make_app()
    configure_pyqtgraph()
    cases = QUICK_CASES if quick else CASES
    steps = steps or (12 if quick else 120)
    ran: list[dict] = []
    out = {"machine": machine_info(), "window_shown_ms": window_shown_ms(1 if quick else 3),
           "imports": import_costs(), "startup": startup_phases(), "cases": ran}
    for case in cases:
        check_interrupt()
        ran.append(run_case(case, steps, 1 if quick else 3))
    if scale:
        from .scale import run_scale

        out["scale"] = run_scale(quick=quick)
    return out


def format_table(report: dict) -> str:
    m = report["machine"]
    imp = report.get("imports", {})
    top = ", ".join(f"{t['module']} {t['self_ms']:.0f}" for t in imp.get("top", [])[:6])
    lines = [
        f"PE Explorer benchmark — {m['cpu']} ({m['cores']} cores), Python {m['python']}, Qt {m['qt']}, "
        f"torch {m['torch']}",
        f"window shown: {report['window_shown_ms']:.0f} ms after process start; window path imports "
        f"{imp.get('total_ms', float('nan')):.0f} ms ({top} ms)",
        "start-up in a fresh process: " + ", ".join(
            f"{k[:-3]} {v:.0f} ms" for k, v in report.get("startup", {}).items() if k.endswith("_ms"))
        + f" (panels built: {', '.join(report.get('startup', {}).get('panels_built', []))}; plots built: "
        f"{report.get('startup', {}).get('plots_built', '?')}; modules: "
        f"{report.get('startup', {}).get('modules_imported', '?')})",
        "",
        f"{'panel':8} {'size':26} {'compute p50/p95':>17} {'drag p50/p95':>15} {'stall':>7} {'fps':>4} "
        f"{'cpu ui/kids':>11} {'notebook':>9} {'×':>6} {'reduced':>8} {'×':>6}",
    ]
    for c in report["cases"]:
        cpu = c["cpu_s"]
        lines.append(
            f"{c['panel']:8} {c['size']:26} {c['compute_ms']['p50']:7.1f}/{c['compute_ms']['p95']:<7.1f}ms "
            f"{c['drag_latency_ms']['p50']:6.1f}/{c['drag_latency_ms']['p95']:<6.1f}ms "
            f"{c['ui_stall_ms_max']:5.0f}ms {c['frames_per_s']:4.0f} "
            f"{cpu['ui']:4.1f}/{cpu['children_total']:<4.1f}s "
            f"{c['notebook_ms']['p50']:7.0f}ms {c['speedup_vs_notebook']:5.1f}× "
            f"{c['matplotlib_ms']['p50']:6.0f}ms {c['speedup_vs_matplotlib']:5.1f}×"
        )
    if "scale" in report:
        from .scale import format_scale

        lines += ["", format_scale(report["scale"])]
    return "\n".join(lines)


def main(args) -> int:
    # Ctrl+C is raised only where the suite looks (between events), never inside a Qt callback;
    # each case's ``finally`` then stops its worker before the interpreter shuts down.
    with deferred_sigint():
        report = run_suite(quick=args.quick, steps=args.steps, scale=getattr(args, "scale", False))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(format_table(report))
    if args.out:
        from ..fileio import atomic_write_text

        atomic_write_text(args.out, json.dumps(report, indent=1))
    return 0
