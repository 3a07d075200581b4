"""The scheme registry: one module per scheme, and every layer (state, jobs, panels, Lab, CLI) loops over it.

A throw-away scheme registered at run time must appear everywhere without touching any other file.
"""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

from explorer import jobs
from explorer import schemes as registry
from explorer.cli import main
from explorer.encodings import EncodingError
from explorer.encodings.blocks import blocks, relative_block_means
from explorer.jobs.schemes import build_requests
from explorer.schemes import Curve, Scheme, Source, SwapTerms
from explorer.schemes.base import future_mask, lab_position_class
from explorer.state import AppState, SchemesState, StateError, SwapState
from explorer.state.lab import LabState

BUILTIN = ("nope", "sinusoidal", "learned", "rope", "scaled_rope", "alibi")


class Decay(Scheme):
    """A made-up bias −λ·|i − j| with λ a parameter of its own (a stand-in for any new scheme)."""

    id = "throwaway_decay"
    title = "Throw-away decay"
    colour = "#112233"
    symbol = "x"
    order = 999
    description = "A test scheme: −λ·|i − j| on the scores."
    sources = (Source("Nobody 2026, a test", 2026),)
    kind = "bias"
    relative = True
    bounded = False
    parameters = (registry.Parameter("lam", 0.25, 0.0, 4.0, "λ", integer=False),)
    depends_on = ("causal", "params")
    used_by = "no model (a test)"
    where = "a bias on the scores"
    relation = "relative"
    swap_label = "throw-away decay (bias)"
    swap_note = "−λ·|i − j|"
    in_lab = True
    lab_note = "a test bias"

    def offsets(self, req, delta):
        return -float(self.param(req, "lam")) * np.abs(delta).astype(float)

    def score_blocks(self, req, bl):
        delta = np.arange(-(bl.length - 1), bl.length)
        return relative_block_means(self.offsets(req, delta), bl, req.causal)

    def distance_values(self, req, dist):
        return Curve(dist, self.offsets(req, dist), marks=((4.0, "four"),))

    def swap_terms(self, n, d_model, heads, seed, causal):
        pos = np.arange(n)
        return SwapTerms(bias=np.broadcast_to(-0.25 * np.abs(pos[:, None] - pos[None, :]), (heads, n, n)).copy())

    def swap_reason(self, st):
        return "the throw-away bias sees distances"

    def lab_module(self, d_model, heads, train_len):
        import torch

        class DecayPosition(lab_position_class()):
            def bias(self, n, device, dtype):
                pos = np.arange(n)
                b = -0.25 * np.abs(pos[:, None] - pos[None, :]) + future_mask(n)
                return torch.tensor(np.broadcast_to(b, (self.heads, n, n)).copy(), dtype=dtype, device=device)

        return DecayPosition(self, d_model, heads, train_len)


@pytest.fixture
def throwaway():
    scheme = registry.register(Decay())
    try:
        yield scheme
    finally:
        registry.unregister(scheme.id)


def _cli_json(*argv) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return json.loads(out.getvalue())


# -- the registry itself --------------------------------------------------------------------------------
def test_builtin_schemes_are_found_in_their_modules_with_their_traits():
    ids = registry.ids()
    assert set(BUILTIN) <= set(ids)
    for s in registry.all_schemes():
        assert s.kind in registry.KINDS and s.title and s.description and s.sources, s.id
        assert s.colour.startswith("#") and len(s.colour) == 7
    traits = {s.id: (s.kind, s.relative, s.bounded) for s in registry.all_schemes()}
    assert traits["nope"] == ("none", False, True)
    assert traits["sinusoidal"] == ("input", False, True)
    assert traits["learned"] == ("input", False, True)
    assert traits["rope"] == ("rotary", True, True)
    assert traits["scaled_rope"] == ("rotary", True, True)
    assert traits["alibi"] == ("bias", True, False)
    # One look, one meaning: Okabe–Ito has eight colours, so a later scheme shares one in another line style.
    assert len({(s.colour, s.line) for s in registry.all_schemes()}) == len(ids)
    assert {s.line for s in registry.all_schemes()} <= {"solid", "dash", "dot", "dashdot", "dashdotdot"}


def test_schemes_command_lists_the_registry_as_json():
    doc = _cli_json("schemes", "--json")
    rows = {r["id"]: r for r in doc["schemes"]}
    assert tuple(rows) == registry.ids()
    assert rows["rope"]["kind_text"] == "rotates q and k" and rows["rope"]["relative"] is True
    assert rows["alibi"]["bounded"] is False and rows["alibi"]["sources"][0]["year"] == 2022
    assert rows["learned"]["kind_text"] == "added to the input"
    assert {p["name"] for p in rows["scaled_rope"]["parameters"]} >= {"factor", "l_train"}


def test_schemes_command_prints_a_table(capsys):
    assert main(["schemes"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["id", "title", "kind"]
    for sid in registry.ids():
        assert f"\n{sid} " in out or out.startswith(sid)


def test_registering_twice_or_a_bad_record_is_refused(throwaway):
    with pytest.raises(EncodingError, match="already registered"):
        registry.register(Decay())
    bad = Decay()
    bad.kind = "sideways"
    with pytest.raises(EncodingError, match="known kind"):
        registry.register(bad)
    with pytest.raises(EncodingError, match="unknown scheme 'nosuch'"):
        registry.get("nosuch")


# -- one id everywhere, old files still load --------------------------------------------------------------
def test_version_1_files_load_through_the_migration():
    v1 = {"version": 1, "panels": {
        "swap": {"scheme": "none", "sentence": "a b c", "swap_i": 0, "swap_j": 2},
        "schemes": {"show_sinusoidal": False, "show_learned": True, "show_rope": True, "show_alibi": False,
                    "show_nope": False, "show_scaled_rope": True},
        "lab": {"scheme_nope": True, "scheme_sinusoidal": False, "scheme_learned": True, "scheme_rope": False,
                "scheme_alibi": True},
    }}
    st = AppState.from_json_dict(v1)
    assert st.swap.scheme == "nope"
    assert st.schemes.schemes == ("learned", "rope", "scaled_rope")
    assert st.lab.schemes == ("nope", "learned", "alibi")
    again = AppState.from_json(st.to_json())
    assert again == st and json.loads(st.to_json())["version"] == 2


def test_state_refuses_unknown_ids_and_bad_scheme_parameters(throwaway):
    with pytest.raises(StateError, match="unknown 'nosuch'"):
        SchemesState(schemes=("rope", "nosuch"))
    with pytest.raises(StateError, match="none"):
        SwapState(scheme="none")  # only files are migrated; the new id is "nope"
    st = SchemesState().with_scheme_param(throwaway.id, "lam", 2.0)
    assert dict(st.params_of(throwaway.id)) == {"lam": 2.0}
    with pytest.raises(StateError, match="lam must be 0 … 4"):
        SchemesState().with_scheme_param(throwaway.id, "lam", 9.0)
    with pytest.raises(StateError, match="unknown rope.lam"):
        SchemesState().with_scheme_param("rope", "lam", 1.0)


# -- a throw-away scheme appears in every layer ----------------------------------------------------------------
def test_throwaway_scheme_reaches_state_jobs_and_cli(throwaway):
    sid = throwaway.id
    assert SchemesState().shows(sid) and sid in LabState().schemes and sid in registry.swap_ids()
    doc = _cli_json("schemes", "--json")
    assert doc["schemes"][-1]["id"] == sid and doc["schemes"][-1]["panels"] == ["schemes", "swap", "lab"]
    st = SchemesState(l_eval=40, l_train=20).with_scheme_param(sid, "lam", 0.5)
    by_key = {r.key: r for v in ("matrices", "distance", "properties", "beyond") for r in build_requests(st, v)}
    m = jobs.run(by_key[f"schemes.matrix.{sid}"])
    full = -0.5 * np.abs(np.arange(40)[:, None] - np.arange(40)[None, :])
    full[np.triu_indices(40, 1)] = np.nan
    np.testing.assert_allclose(m.matrix, full, atol=1e-12)
    d = jobs.run(by_key[f"schemes.distance.{sid}"])
    assert d.relative and d.marks == ((4.0, "four"),)
    np.testing.assert_allclose(d.mean, -0.5 * d.distance)
    props = jobs.run(by_key["schemes.properties"])
    assert props.rows[-1][0] == "Throw-away decay" and props.rows[-1][5] == "no model (a test)"
    from explorer.jobs.swap import SwapRequest

    swap = jobs.run(SwapRequest(SwapState(scheme=sid, sentence="dog bites man", swap_i=0,
                                        swap_j=1)))
    assert swap.verdict == "order-visible" and "throw-away bias" in swap.explanation


def test_throwaway_scheme_trains_in_the_lab(throwaway):
    from explorer.lab import LabConfig, run_experiment

    cfg = LabConfig(schemes=("nope", throwaway.id), train_len=8, eval_lens=(8, 16), steps=12, d_model=16,
                    heads=2, layers=1, batch=4, eval_batch=4)
    result = run_experiment(cfg)
    mine = result.scheme(throwaway.id)
    assert mine.losses and len(mine.lengths) == 2 and all(r.accuracy is not None for r in mine.lengths)


def test_throwaway_scheme_appears_in_every_panel(qtbot, throwaway):
    from explorer.panels.lab import LabPanel
    from explorer.panels.schemes import SchemesPanel
    from explorer.panels.swap import SwapPanel
    from explorer.service import ComputeService

    service = ComputeService(warm_up=False)
    try:
        schemes = SchemesPanel(service, SchemesState(l_eval=64, l_train=32))
        swap = SwapPanel(service)
        lab = LabPanel(service)
        for w in (schemes, swap, lab):
            qtbot.addWidget(w)
        sid = throwaway.id
        assert schemes.scheme_checks[sid].isChecked()
        assert (sid, "lam") in schemes.param_spins
        qtbot.waitUntil(lambda: sid in schemes.matrix_view.responses, timeout=10000)
        assert schemes.matrix_view.plots[sid].getPlotItem().titleLabel.text.startswith("Throw-away")
        schemes.set_state(schemes.state.clamped(view="distance"))
        qtbot.waitUntil(lambda: sid in schemes.distance_view.responses, timeout=10000)
        assert schemes.distance_view.marks[sid][0].value() == 4.0
        assert swap.scheme_combo.findData(sid) >= 0
        assert sid in lab.scheme_checks and lab.scheme_checks[sid].text() == "Throw-away decay"
        for w in (schemes, swap, lab):
            w.shutdown()
    finally:
        service.stop()


# -- exact block means of an offset-only score --------------------------------------------------------------
@pytest.mark.parametrize(("n", "cells", "causal"), [(10, 3, False), (17, 5, True), (64, 7, True), (50, 50, False)])
def test_relative_block_means_are_exact(n, cells, causal):
    rng = np.random.default_rng(n)
    f = rng.standard_normal(2 * n - 1)
    bl = blocks(n, cells)
    got = relative_block_means(f, bl, causal)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    full = f[j - i + n - 1]
    if causal:
        full = np.where(j > i, np.nan, full)
    for r in range(bl.n):
        for c in range(bl.n):
            cell = full[bl.starts[r]:bl.starts[r] + bl.counts[r], bl.starts[c]:bl.starts[c] + bl.counts[c]]
            want = np.nanmean(cell) if np.isfinite(cell).any() else np.nan
            np.testing.assert_allclose(got[r, c], want, atol=1e-12, equal_nan=True)
