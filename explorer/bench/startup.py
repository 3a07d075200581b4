"""Start-up: the window shown after process start, and what importing the window path costs."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from ..interrupts import check as check_interrupt

#: What the window path imports before anything is shown (what ``pe-explorer`` does first).
WINDOW_PATH = "import explorer.app, explorer.main_window"


def window_shown_ms(repeats: int = 3) -> dict[str, float]:
    """In fresh processes, the medians of the time from process start to the main window's first frame on
    screen (``shown``) and to the raised panel's first results drawn and painted (``drawn``), ms."""
    # A settings folder of its own: the window closes after it is shown, and a closing window that
    # started with --reset-layout saves its layout and session — never over the user's.
    with tempfile.TemporaryDirectory(prefix="pe-bench-home-") as home:
        env = {**os.environ, "PE_EXPLORER_EXIT_AFTER_SHOWN": "drawn", "PE_EXPLORER_HOME": home}
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        samples: dict[str, list[float]] = {"shown": [], "drawn": []}
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
                name, _, at = line.partition("_at=")
                if name in samples:
                    samples[name].append((float(at) - t0) * 1e3)
    return {k: float(np.median(v)) if v else float("nan") for k, v in samples.items()}


def parse_importtime(text: str, top: int = 10) -> dict:
    """``python -X importtime`` output -> total, and the ``top`` costliest top-level packages (the
sum of their modules' own times, so a package imported inside another is charged to itself)."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = line[len("import time:"):].split("|")
        try:
            self_us, cum_us = int(parts[0]), int(parts[1])
        except ValueError:  # the header
            continue
        name = parts[2].rstrip()
        depth = (len(name) - len(name.lstrip())) // 2
        rows.append((name.strip(), self_us, cum_us, depth))
    roots = [r for r in rows if r[3] == 0]
    total = sum(r[2] for r in roots) / 1e3
    by_package: dict[str, int] = {}
    for name, self_us, _, _ in rows:  # each module's own time, summed per top-level package
        pkg = name.split(".")[0]
        by_package[pkg] = by_package.get(pkg, 0) + self_us
    best = sorted(by_package.items(), key=lambda kv: -kv[1])[:top]
    return {
        "total_ms": float(total),
        "modules": len(rows),
        "top": [{"module": n, "self_ms": us / 1e3} for n, us in best],
        "torch_imported": "torch" in by_package,
    }


def import_costs(code: str = WINDOW_PATH, top: int = 10) -> dict:
    """What importing the window path costs, measured in a fresh ``python -X importtime``."""
    env = {**os.environ}
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], env=env, capture_output=True,
                              text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return {"total_ms": float("nan"), "modules": 0, "top": [], "torch_imported": False}
    return parse_importtime(proc.stderr, top)


#: Run in a fresh process by :func:`startup_phases`: where the time to the first frame goes (imports,
#: ``MainWindow()``, its show to the first frame painted) and the raised dock's panel built just after it, in
#: wall-clock and in CPU time of the process (``*_cpu_ms``: what a loaded machine changes least), with counts.
_PHASES = r"""
import json, os, sys, time
c0, t0 = time.process_time(), time.perf_counter()
from explorer.app import make_app, wait_until
from explorer.main_window import MainWindow
c1, t1 = time.process_time(), time.perf_counter()
modules = len(sys.modules)
app = make_app()
w = MainWindow(restore_layout=False, save_on_close=False)
c2, t2, wall2 = time.process_time(), time.perf_counter(), time.time()
w.show()
wait_until(app, lambda: w.first_frame_at is not None)  # just after the first frame, the raised panel is built
c3, wall3 = time.process_time(), time.time()
import pyqtgraph as pg
first_ms, first_cpu_ms = (w.first_frame_at - wall2) * 1e3, (w.first_frame_cpu - c2) * 1e3
print(json.dumps({"imports_ms": (t1 - t0) * 1e3, "main_window_ms": (t2 - t1) * 1e3,
                  "first_frame_ms": first_ms, "first_panel_ms": (wall3 - wall2) * 1e3 - first_ms,
                  "imports_cpu_ms": (c1 - c0) * 1e3, "main_window_cpu_ms": (c2 - c1) * 1e3,
                  "first_frame_cpu_ms": first_cpu_ms, "first_panel_cpu_ms": (c3 - c2) * 1e3 - first_cpu_ms,
                  "modules_imported": modules, "plots_built": len(w.findChildren(pg.PlotWidget)),
                  "panels_built": list(w.panels.built()), "torch_imported": "torch" in sys.modules}))
w.close()
"""


def startup_phases() -> dict:
    """In a fresh process: imports, ``MainWindow()``, its show to the first frame and the raised panel built just
    after it (``first_panel``, the compute service resumed with it), in ms, and which panels and plots exist."""
    home = tempfile.TemporaryDirectory(prefix="pe-bench-home-")
    env = {**os.environ, "PE_EXPLORER_HOME": home.name}
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        proc = subprocess.run([sys.executable, "-c", _PHASES], env=env, capture_output=True, text=True, timeout=120)
        import json

        line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith("{")), None)
        return json.loads(line) if line else {}
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}
    finally:
        home.cleanup()
