"""Copy as Python (issue 17 §3): every plot of every panel has a numpy snippet whose ``result`` equals the
app's exported numbers (max |difference| ≤ 1e-12, NaNs in the same places), or a stated reason why not.

The plots are enumerated from the app (``named_plots`` of each panel, every Schemes view): a plot added
without a snippet or a declared reason fails here.  All snippets run in ONE bare interpreter (``python -I``)
that refuses to import this package, torch or Qt, each in its own namespace.
"""

from __future__ import annotations

import dataclasses
import functools
import pickle
import subprocess
import sys
import textwrap

import numpy as np
from PySide6.QtWidgets import QMenu

from explorer.export.slide import lay_out_all, named_plots
from explorer.jobs.schemes import build_requests
from explorer.panels import PANELS, load_panel_class
from explorer.snippets import NoSnippet, Snippet
from explorer.state import AppState

SETTLE_MS = 60000
TOL = 1e-12

RUNNER = textwrap.dedent('''
    import importlib.abc, pickle, sys

    class Refuse(importlib.abc.MetaPathFinder):
        """A snippet may use numpy and the standard library only."""
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("explorer", "torch", "PySide6", "pyqtgraph", "scipy"):
                raise ImportError(f"a snippet imported {name}")
            return None

    sys.meta_path.insert(0, Refuse())
    jobs = pickle.load(sys.stdin.buffer)
    out = []
    for name, code in jobs:
        ns = {"__name__": "__snippet__"}
        try:
            exec(compile(code, name, "exec"), ns)
            out.append((name, {k: __import__("numpy").asarray(v) for k, v in ns["result"].items()}, ""))
        except Exception as exc:
            out.append((name, None, f"{type(exc).__name__}: {exc}"))
    sys.stdout.buffer.write(pickle.dumps(out))
''')

#: Parameter sets beyond the defaults: (panel, changes) — lanes and similarity binned, other layouts,
#: an overview, a causal rotary swap with two heads, ALiBi, added encodings.
VARIANTS = (
    ("waves", {"variant": "halves", "d_model": 64, "n_positions": 4096, "position": 100, "offset": -37,
               "pair": 5, "pairs": (0, 2, 9), "token_seed": 3, "token_scale": 2.5}),
    ("waves", {"variant": "t2t", "d_model": 32, "n_positions": 65536, "base": 500000.0, "position": 40000}),
    ("swap", {"sentence": "the cat sat on the mat", "swap_i": 1, "swap_j": 5, "heads": 2, "d_model": 24,
              "causal": True, "seed": 7, "head": 1, "query": 4}),
    ("swap", {"sentence": "a b c d e", "swap_i": 0, "swap_j": 3, "heads": 3, "d_model": 18, "causal": True,
              "mask_after_softmax": True, "query": 3}),
)
#: The Schemes panel with every registered scheme shown: one cell per position, content averaged, no mask,
#: NTK; then blocks of 8 positions, causal, linear scaling.
SCHEMES_VARIANTS = (
    {"l_eval": 300, "content": "average", "causal": False, "heads": 3, "alibi_head": 2, "scaling": "ntk",
     "factor": 2.0, "seed": 4},
    {"l_eval": 2048, "l_train": 1024, "causal": True, "scaling": "linear", "factor": 4.0, "head_dim": 32},
)
#: Small and causal, for every scheme with a score program (the distance view's curves of all of them).
SCHEMES_SMALL = {"l_eval": 160, "l_train": 96, "causal": True, "head_dim": 16, "content": "average"}
#: Every scheme the Token-swap panel offers, once each (with the sentence and mask above).
SWAP_SCHEMES = {"sentence": "the dog saw the cat", "swap_i": 1, "swap_j": 4, "heads": 2, "d_model": 16,
                "alpha": 1.5}


def _settled(panel):
    return panel.has_drawn and not panel.waiting and panel.service.idle()


def _open(qtbot, service, panel_id, state):
    spec = dict((p, s) for p, _t, s in PANELS)[panel_id]
    panel = load_panel_class(spec)(service, state)
    qtbot.addWidget(panel)
    panel.resize(1440, 900)
    panel.show()
    qtbot.waitExposed(panel)

    def wait():
        qtbot.waitUntil(lambda: _settled(panel), timeout=SETTLE_MS)

    wait()
    qtbot.wait(50)
    wait()
    return panel, wait


def _view_states(panel):
    """The panel's states that bring each of its views on screen (the Schemes panel computes the visible
    view only); one state for the others."""
    st = panel.state
    views = dataclasses.fields(st)
    if any(f.name == "view" for f in views) and panel.view_ids:
        return [dataclasses.replace(st, view=v) for v in panel.view_ids]
    return [st]


def _collect(qtbot, service, panel_id, cases):
    """(snippet jobs, expected arrays, declared reasons) for every plot of the panel and its formula, for each
    ``(state, label)`` of ``cases`` in turn (one panel, its state set for each)."""
    panel, wait = _open(qtbot, service, panel_id, cases[0][0])
    jobs, expected, reasons = [], {}, {}
    seen_any: set = set()  # every plot must be on screen in at least one of the cases
    everything: set = set()

    def note(key, snip, arrays):
        if isinstance(snip, NoSnippet):
            assert snip.declared, f"{key}: no snippet and no stated reason ({snip.reason})"
            reasons[key] = snip.reason
            return
        assert isinstance(snip, Snippet)
        jobs.append((key, snip.code))
        expected[key] = {k: np.asarray(v) for k, v in arrays().items()}

    try:
        lay_out_all(panel, wait)
        for state, label in cases:
            if state != panel.state:
                panel.set_state(state)
                wait()
            seen = set()
            for st in _view_states(panel):
                if st != panel.state:
                    panel.set_state(st)
                    wait()
                for name, plot in named_plots(panel):
                    if name in seen or not (plot in panel.plots() or plot.isVisibleTo(panel)):
                        continue
                    seen.add(name)
                    note(f"{label}:{name}", panel.export_snippet(plot), functools.partial(panel.export_data, plot))
            everything = {name for name, _p in named_plots(panel)}
            seen_any |= seen
            note(f"{label}:formula strip", panel.formula_snippet(), panel.formula_data)
    finally:
        panel.shutdown()
    assert seen_any == everything, f"{panel_id}: plots never on screen: {everything - seen_any}"
    return jobs, expected, reasons


def _run_all(jobs):
    """Run each distinct program once (a plot that does not follow the parameters gives the same one)."""
    first = {}
    for name, code in jobs:
        first.setdefault(code, name)
    proc = subprocess.run([sys.executable, "-I", "-c", RUNNER], input=pickle.dumps([(n, c) for c, n in first.items()]),
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    ran = {name: (res, err) for name, res, err in pickle.loads(proc.stdout)}
    return {name: ran[first[code]] for name, code in jobs}


def _compare(key, got, want):
    assert got is not None
    assert set(got) == set(want), f"{key}: snippet gives {sorted(got)}, export gives {sorted(want)}"
    for name, w in want.items():
        g = got[name].astype(np.float64) if got[name].dtype.kind in "biuf" else got[name]
        w = w.astype(np.float64)
        assert g.shape == w.shape, f"{key} / {name}: shape {g.shape} != {w.shape}"
        assert np.array_equal(np.isnan(g), np.isnan(w)), f"{key} / {name}: NaNs in other places"
        ok = ~np.isnan(w)
        diff = float(np.max(np.abs(g[ok] - w[ok]), initial=0.0))
        assert diff <= TOL, f"{key} / {name}: max |snippet − export| = {diff:.3g}"


def test_every_snippet_reproduces_its_plot_in_a_bare_interpreter(qtbot, service):
    app = AppState()
    jobs, expected, reasons = [], {}, {}
    cases = [(p, app.get(p), p) for p, _t, _s in PANELS]
    for k, (pid, changes) in enumerate(VARIANTS):
        st = app.get(pid)
        st = st.clamped(**changes) if hasattr(st, "clamped") else dataclasses.replace(st, **changes)
        cases.append((pid, st, f"{pid}#{k + 1}"))
    from explorer import schemes as registry

    every = tuple(registry.ids())
    for k, changes in enumerate(SCHEMES_VARIANTS):
        cases.append(("schemes", app.get("schemes").clamped(schemes=every, **changes), f"schemes#{k + 1}"))
    # Every scheme that has a score program (a curve without one disables the distance plot's program).
    small = app.get("schemes").clamped(schemes=every, **SCHEMES_SMALL)
    programs = tuple(r.scheme for r in build_requests(small, "matrices")
                     if not isinstance(registry.get(r.scheme).score_snippet(r), NoSnippet))
    cases.append(("schemes", small.clamped(schemes=programs), "schemes#programs"))
    # One shipped model of each other RoPE type and layout for the model view (the programs compute every scaling).
    from explorer.encodings.rope_config import load_shipped, shipped

    def kind(cid):  # its RoPE type, and whether its layers differ (with a temperature) or its positions are 3-D
        m = load_shipped(cid)
        return (m.rope_type, m.layers is not None, m.layers is not None and m.layers.temperature is not None,
                m.mrope is not None)

    seen_types = {kind(small.model)}
    for cid in shipped():
        if kind(cid) not in seen_types:
            seen_types.add(kind(cid))
            cases.append(("schemes", small.clamped(schemes=programs[:1], model=cid), f"schemes[{cid}]"))
    for s in registry.swap_ids():
        st = app.get("swap").clamped(scheme=s, **SWAP_SCHEMES)
        cases.append(("swap", st, f"swap[{s}]"))
    by_panel: dict = {}
    for pid, st, label in cases:
        by_panel.setdefault(pid, []).append((st, label))
    for pid, states in by_panel.items():
        j, e, r = _collect(qtbot, service, pid, states)
        jobs += j
        expected.update(e)
        reasons.update(r)
    assert jobs, "no snippets at all"
    for code in (c for _n, c in jobs):
        assert "explorer" not in code.split("# The numbers")[-1].split("\n", 1)[-1].replace("PE Explorer", "")
    results = _run_all(jobs)
    failures = []
    for key, want in expected.items():
        got, err = results[key]
        if err:
            failures.append(f"{key}: {err}")
            continue
        try:
            _compare(key, got, want)
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n".join(failures)
    for key, why in reasons.items():
        assert why and len(why) < 200, key


def test_copy_as_python_is_in_every_plot_menu_and_disabled_with_a_reason(qtbot, service):
    from explorer.export.controller import add_python_action, plot_snippet

    panel, _wait = _open(qtbot, service, "waves", AppState().get("waves"))
    try:
        menu = QMenu()
        notes = []
        act = add_python_action(menu, lambda: plot_snippet(panel, panel.spectrum.plot), notes.append)
        assert act.isEnabled() and "import numpy as np" in act.data()
        act.trigger()
        from PySide6.QtGui import QGuiApplication

        assert QGuiApplication.clipboard().text() == act.data() and notes
        off = add_python_action(menu, lambda: NoSnippet("not reproducible without the run"), notes.append)
        assert not off.isEnabled() and "not reproducible" in off.toolTip()
        strip = panel.formula.context_menu()
        python = [a for a in strip.actions() if a.text() == "Copy as Python"]
        assert python and python[0].isEnabled()
        strip.deleteLater()
        menu.deleteLater()
    finally:
        panel.shutdown()


def test_export_python_prints_or_writes_a_plots_program_headless(qtbot, tmp_path, capsys):
    from explorer.cli import main

    assert main(["export", "--panel", "waves", "--plot", "spectrum", "--python", "--set", "d_model=8"]) == 0
    code = capsys.readouterr().out
    ns: dict = {}
    exec(compile(code, "spectrum", "exec"), ns)
    assert ns["result"]["wavelength"].shape == (4,)
    assert main(["export", "--panel", "waves", "--python"]) == 2
    assert "give --plot" in capsys.readouterr().err
