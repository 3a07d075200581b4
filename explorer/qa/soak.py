"""Soak: thousands of live updates of every panel in one process, with resident memory measured.

``python -m explorer.qa.soak --updates 10000 --real 100`` opens the real main window offscreen and, for
each panel in turn, makes it the front tab and updates it over and over; it prints one JSON line
with the updates made, the time taken, and resident memory (``/proc/self/statm``) after a warm-up
and at the end.  ``tests/test_reliability_soak.py`` runs it in a subprocess, so a fatal interpreter
error (the kind of PySide6 reference bug that killed live plots after ~1–2k updates) fails the test
instead of killing the test session.

Two kinds of update, both through code the app really runs:

* **real** (``--real`` per panel): a parameter change through the panel's whole path —
  ``set_state`` → compute service (worker thread) → result slot → ``show_result`` — each waited for
  until it is drawn.
* **direct** (the rest, up to ``--updates`` per panel): the drawing path with the worker's answers
  computed beforehand.  The panel alternates between two or three parameter sets: for each set its
  state is set (widgets synced, nothing requested), then its precomputed results are handed to
  ``show_result`` in turn, one per update, for a run of :data:`BLOCK` updates; every update changes
  what is drawn.  The window repaints every :data:`PAINT_EVERY` updates (a drag also produces results
  faster than the screen repaints), and the updates rotate through the panels' tabs (Waves' three
  tabs, Schemes' five views), so every view is drawn.  Computing ten thousand results per panel on
  two cores would take many minutes and add nothing: the worker's side is pure numpy, tested
  elsewhere.

The Lab sends no interactive requests: its live updates are the progress reports of its training run,
a long job of the compute service (on a ``pe-lab`` worker).  One tiny real run provides the real
updates and a recording of its reports; the direct updates replay that recording into the panel's progress slot,
one report at a time, run after run (each run: fresh views, reports, then the finished result).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from collections.abc import Callable

#: Direct updates per panel (with half the real ones) before the memory baseline is taken.
WARM_UP = 1000
#: The event loop runs (and the panel repaints) once per this many direct updates: results arrive
#: faster than a screen refreshes while a slider is dragged, and Qt paints the newest state.
PAINT_EVERY = 50
#: Direct updates per parameter set before the next (a drag changes a few values many times).
BLOCK = 16


def rss_mb() -> float:
    """Resident memory of this process in MiB (``/proc/self/statm``; peak RSS where there is no /proc)."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError, AttributeError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def _process_events(app, until: Callable[[], bool] | None = None, timeout_s: float = 60.0) -> bool:
    """Run the event loop once (``until`` None) or until ``until()`` holds; False on timeout."""
    from PySide6.QtCore import QEventLoop

    if until is None:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        return True
    deadline = time.monotonic() + timeout_s
    while not until():
        if time.monotonic() > deadline:
            return False
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.001)
    return True


# -- parameter sets each panel alternates between --------------------------------------------------
def variants(panel_id: str) -> list:
    """A few states of ``panel_id`` that draw visibly different results (grouped per view for Schemes)."""
    from .. import schemes as registry
    from ..state import SchemesState, SwapState, WavesState
    from ..state.schemes import views

    if panel_id == "waves":
        w = WavesState()
        return [w, w.clamped(base=500000.0, position=100, d_model=256, pairs=(0, 3, 60)),
                w.clamped(n_positions=4096, d_model=512, offset=-30, pair=7, token_seed=3)]
    if panel_id == "swap":
        s = SwapState()
        rotary, added = (next(i for i in registry.swap_ids() if registry.get(i).kind == k) for k in ("rotary", "input"))
        return [s, s.clamped(sentence="the cat sat on the mat", swap_i=1, swap_j=4, scheme=rotary,
                             causal=True, heads=2, d_model=32),
                s.clamped(scheme=added, alpha=2.0, seed=5, query=2)]
    if panel_id == "schemes":
        base = SchemesState()
        out = []
        for view in views():
            out.append(base.clamped(view=view))
            out.append(base.clamped(view=view, factor=8.0, scaling="ntk", l_eval=2048, head_dim=32, heads=4))
        return out
    if panel_id == "lab":
        from ..state.lab import LabState

        every = LabState().schemes
        return [LabState(schemes=every[::2], train_len=8, eval_lens=(8, 16), steps=30),
                LabState(schemes=every[1:], train_len=16, eval_lens=(16, 32, 64), steps=30, seed=1)]
    raise ValueError(f"unknown panel {panel_id!r}")


class ServiceSoak:
    """Direct and real updates of a panel that draws compute-service results (Waves, Swap, Schemes)."""

    def __init__(self, window, panel_id: str, app) -> None:
        from .. import jobs

        self.app = app
        self.window = window
        self.panel = window.panels[panel_id]
        self.states = variants(panel_id)
        #: Each parameter set's results (one per key), computed once, here, as the worker would.
        self.frames: list[list] = []
        for st in self.states:
            self.panel.set_state(st, request=False)
            self.frames.append([jobs.run(r) for r in self.panel.requests(st)])
        self._shown = -1

    def direct(self, i: int) -> None:
        # A run of BLOCK updates per parameter set: its results, alternating, then the next set.
        block, n = i // BLOCK, len(self.states)
        k = block % n
        frames = self.frames[k]
        panel = self.panel
        if k != self._shown:  # the next parameter set: widgets follow, then its results arrive
            panel.set_state(self.states[k], request=False)
            self._shown = k
            if panel.panel_id == "waves" and block % n == 0:
                panel.tabs.setCurrentIndex((block // n) % panel.tabs.count())  # hidden views draw too
        panel.show_result(frames[i % len(frames)])
        if i % PAINT_EVERY == 0:
            _process_events(self.app)

    def real(self, i: int) -> None:
        panel = self.panel
        self._shown = -1
        panel.set_state(self.states[i % len(self.states)])
        ok = _process_events(self.app, lambda: panel.has_drawn and self.window.service.idle())
        if not ok:
            raise RuntimeError(f"{panel.panel_id}: update {i} was not drawn within 60 s")


class LabSoak:
    """The Lab's live updates: training progress reports (see the module docstring)."""

    def __init__(self, window, app) -> None:
        self.app = app
        self.panel = window.panels["lab"]
        self.states = variants("lab")
        self.recording: list = []
        self.result = None
        self._cursor = 0

    def _record(self, p) -> None:
        self.recording.append(p)

    def real(self, i: int) -> None:
        """A settings change through the panel's own boxes, between runs (as a user would make it)."""
        panel = self.panel
        if self._cursor:  # a replayed run is under way: let it finish first
            panel.show_lab_result(self.result, redraw_losses=False)
            self._cursor = 0
        st = self.states[i % len(self.states)]
        panel.steps_spin.setValue(st.steps + i % 7)
        panel.seed_spin.setValue(st.seed + i % 5)
        _process_events(self.app)

    def run_once(self, timeout_s: float = 120.0) -> int:
        """One tiny real run (a long job of the service); its reports are recorded for the direct updates."""
        panel = self.panel
        panel.set_state(self.states[0])
        panel.runner.progressed.connect(self._record)
        try:
            panel.start()
            done = lambda: not panel.running and panel.result is not None  # noqa: E731
            if not _process_events(self.app, done, timeout_s):
                raise RuntimeError("the Lab run did not finish within 120 s")
        finally:
            panel.runner.progressed.disconnect(self._record)
        self.result = panel.result
        if self.result is None or self.result.status != "done" or not self.recording:
            raise RuntimeError("the Lab run did not complete")
        return len(self.recording)

    def direct(self, i: int) -> None:
        panel = self.panel
        if self.result is None:
            raise RuntimeError("no recorded Lab run to replay (run_once first)")
        if self._cursor == 0:  # a new "run": fresh views, as start() prepares them
            panel.result = None
            panel._partial = []
            panel._run_config = self.result.config
            panel._prepare_views(self.result.config)
            panel._set_running(True)
        p = self.recording[self._cursor]
        panel._on_runner_progressed(p)
        self._cursor += 1
        if self._cursor == len(self.recording):
            panel.show_lab_result(self.result, redraw_losses=i % 2 == 0)
            self._cursor = 0
        if i % PAINT_EVERY == 0:
            _process_events(self.app)


def soak(updates: int = 10000, real: int = 100, panels: tuple[str, ...] = ("waves", "swap", "schemes", "lab"),
         warm_up: int = WARM_UP, size: tuple[int, int] = (1280, 800)) -> dict:
    """Update each panel ``updates`` times (``real`` of them through the service); return the figures.

    Memory: resident size is read after a warm-up (``warm_up`` direct and half the real updates of
    every panel) and again at the end; ``rss_growth_mb`` is the difference.
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import threading

    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    from ..app import make_app
    from ..main_window import MainWindow
    from ..widgets.plots import configure_pyqtgraph

    warnings: list[str] = []
    errors: list[str] = []

    def on_message(mode, _context, message):
        if message.startswith("This plugin does not support"):
            return
        if mode.name not in ("QtDebugMsg", "QtInfoMsg"):
            warnings.append(f"{mode.name}: {message}")

    def on_exception(kind, value, tb):
        import traceback

        errors.append("".join(traceback.format_exception(kind, value, tb))[-3000:])

    app = QApplication.instance() or make_app()
    previous = qInstallMessageHandler(on_message)
    previous_hook, sys.excepthook = sys.excepthook, on_exception
    try:
        configure_pyqtgraph()
        window = MainWindow(restore_layout=False, restore_session=False)
        window.resize(*size)
        window.show()
        if not _process_events(app, lambda: window.all_drawn and window.service.idle(), 120):
            raise RuntimeError("the window did not draw its first results within 120 s")
        drivers = {}
        for pid in panels:
            window.show_panel(pid)
            _process_events(app)
            drivers[pid] = LabSoak(window, app) if pid == "lab" else ServiceSoak(window, pid, app)
        figures = {pid: {"direct": 0, "real": 0} for pid in panels}
        seconds = dict.fromkeys(panels, 0.0)

        def run(pid: str, n_direct: int, n_real: int) -> None:
            d, f = drivers[pid], figures[pid]
            window.show_panel(pid)
            t0 = time.perf_counter()
            if isinstance(d, LabSoak) and f["real"] == 0:
                f["real"] += d.run_once()  # every progress report of the run is a real update
            for _ in range(n_real):
                d.real(f["real"])
                f["real"] += 1
            for _ in range(n_direct):
                d.direct(f["direct"])
                f["direct"] += 1
            seconds[pid] += time.perf_counter() - t0

        first_real = real // 2
        for pid in panels:  # warm-up: torch, caches, every view built once
            run(pid, min(warm_up, updates - real), first_real)
        gc.collect()
        _process_events(app)
        before = rss_mb()
        growth = {}
        for pid in panels:
            r0 = rss_mb()
            f = figures[pid]
            run(pid, 0, real - first_real)
            run(pid, max(0, updates - f["direct"] - f["real"]), 0)
            gc.collect()
            _process_events(app)
            growth[pid] = round(rss_mb() - r0, 1)
        after = rss_mb()
        t0 = time.perf_counter()
        window.close()
        close_s = time.perf_counter() - t0
        _process_events(app)
        left = [t.name for t in threading.enumerate() if t.name.startswith("pe-") and t.is_alive()]
    finally:
        qInstallMessageHandler(previous)
        sys.excepthook = previous_hook
    return {
        "panels": {pid: {**f, "seconds": round(seconds[pid], 1), "updates": f["direct"] + f["real"],
                         "rss_growth_mb": growth[pid]} for pid, f in figures.items()},
        "rss_after_warm_up_mb": round(before, 1),
        "rss_end_mb": round(after, 1),
        "rss_growth_mb": round(after - before, 1),
        "close_s": round(close_s, 3),
        "qt_warnings": warnings[:20],
        "exceptions": errors[:5],
        "threads_left": left,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explorer.qa.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=10000, help="updates per panel (default 10000)")
    parser.add_argument("--real", type=int, default=100,
                        help="of which through the compute service, each waited for (default 100)")
    parser.add_argument("--panels", default="waves,swap,schemes,lab", help="comma-separated panel ids")
    parser.add_argument("--warm-up", type=int, default=WARM_UP,
                        help=f"direct updates per panel before memory is first read (default {WARM_UP})")
    args = parser.parse_args(argv)
    panels = tuple(p for p in args.panels.split(",") if p)
    out = soak(args.updates, min(args.real, args.updates), panels, args.warm_up)
    print(json.dumps(out), flush=True)
    return 0 if not (out["exceptions"] or out["qt_warnings"] or out["threads_left"]) else 1


if __name__ == "__main__":
    sys.exit(main())
