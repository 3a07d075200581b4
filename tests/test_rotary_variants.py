"""The rotary variants (issue 19): xPos, partial RoPE, p-RoPE and the NoPE/RoPE hybrid.

Each against its paper's formula and the library that implements it (rotary-embedding-torch's ``use_xpos``
for xPos, Hugging Face's GPT-NeoX rotary application for partial RoPE, its "proportional" RoPE for
p-RoPE, its Llama 4 ``no_rope_layers`` for the hybrid), the identities they promise (scores depend on
i − j only; xPos decays), Token swap, and one Lab training step each.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from explorer import jobs
from explorer import schemes as registry
from explorer.encodings import apply_rope, inv_freq
from explorer.encodings.blocks import blocks
from explorer.encodings.rotary import rotate_pairs
from explorer.jobs.schemes import DistanceRequest, MatrixRequest, build_requests
from explorer.schemes import NotShown
from explorer.schemes.base import content_vectors, pair_energy
from explorer.schemes.p_rope import kept_pairs, p_rope_inv_freq
from explorer.schemes.partial_rope import neox_to_interleaved, partial_inv_freq, rotary_dims
from explorer.schemes.rope_hybrid import rope_layers
from explorer.schemes.xpos import GAMMA, xpos_rotate, xpos_scale, xpos_zeta
from explorer.state import SchemesState, SwapState

MINE = ("xpos", "partial_rope", "p_rope", "rope_nope")


def _brute_block_means(full: np.ndarray, bl, causal: bool) -> np.ndarray:
    out = np.full((bl.n, bl.n), np.nan)
    for a in range(bl.n):
        for b in range(bl.n):
            i = np.arange(bl.starts[a], bl.starts[a] + bl.counts[a])
            j = np.arange(bl.starts[b], bl.starts[b] + bl.counts[b])
            ok = i[:, None] >= j[None, :] if causal else np.ones((i.size, j.size), bool)
            if ok.any():
                out[a, b] = full[np.ix_(i, j)][ok].mean()
    return out


# -- the registry --------------------------------------------------------------------------------------
def test_the_variants_are_registered_with_their_records_and_distinct_looks():
    rows = {s.id: s for s in registry.all_schemes()}
    rope = rows["rope"]
    looks = {(s.colour.lower(), s.line) for s in registry.all_schemes()}
    assert len(looks) == len(rows)
    for sid in MINE:
        s = rows[sid]
        assert s.kind == "rotary" and s.relative and s.sources and s.used_by and s.in_lab
        assert s.line != "solid" and s.colour != rope.colour  # a variant: RoPE's family, dashed or dotted
        assert not s.shown_by_default and not s.lab_by_default  # the default runs stay as they were
        rec = s.record()
        assert rec["panels"][0] == "schemes" and "lab" in rec["panels"]
    assert registry.get("rope_nope").swap_label is None  # one attention layer cannot hold a layer pattern
    assert {"xpos", "partial_rope", "p_rope"} <= set(registry.swap_ids())


def test_schemes_json_lists_the_variants_with_their_parameters(capsys):
    import json

    from explorer.cli import main

    assert main(["schemes", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)["schemes"]}
    names = {sid: {p["name"]: p["default"] for p in rows[sid]["parameters"]} for sid in MINE}
    assert names["xpos"]["scale_base"] == 512
    assert names["partial_rope"]["fraction"] == 0.25 and names["p_rope"]["p"] == 0.25
    assert names["rope_nope"]["nope_every"] == 2
    assert "Gemma 4" in rows["p_rope"]["used_by"] and "Pythia" in rows["partial_rope"]["used_by"]
    assert "Llama 4" in rows["rope_nope"]["used_by"]


# -- xPos ------------------------------------------------------------------------------------------------
def test_xpos_zeta_is_the_papers_scale():
    d = 16
    z = xpos_zeta(d)
    k = np.arange(d // 2)
    np.testing.assert_allclose(z, (k / (d / 2) + GAMMA) / (1 + GAMMA), rtol=0, atol=1e-15)
    assert GAMMA == 0.4 and np.all(np.diff(z) > 0) and z[-1] < 1.0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_xpos_matches_rotary_embedding_torch(dtype):
    import torch
    from rotary_embedding_torch import RotaryEmbedding

    d, n = 16, 40
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    tdt = getattr(torch, dtype)
    if dtype == "float32":
        ref = RotaryEmbedding(dim=d, use_xpos=True, xpos_scale_base=8)
    else:  # its θ come from ``.float()``: give them in float64; its ζ follow torch's default dtype
        old = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        try:
            ref = RotaryEmbedding(dim=d, use_xpos=True, xpos_scale_base=8, custom_freqs=torch.tensor(inv_freq(d)))
        finally:
            torch.set_default_dtype(old)
        ref = ref.double()
    rq, rk = ref.rotate_queries_and_keys(torch.tensor(q, dtype=tdt)[None, None], torch.tensor(k, dtype=tdt)[None, None])
    # Both interleave pairs (2i, 2i + 1); the library centres positions on ⌊n/2⌋ (cancels in q·k).
    ours_q = xpos_rotate(q, 1, 10000.0, 8, offset=n // 2)
    ours_k = xpos_rotate(k, -1, 10000.0, 8, offset=n // 2)
    rel = 1e-12 if dtype == "float64" else 1e-6  # of the largest value (the scales reach ζ^(±20/8) ≈ 20)
    for got, want in ((rq, ours_q), (rk, ours_k), (rq[0, 0] @ rk[0, 0].T, ours_q @ ours_k.T)):
        want_max = np.abs(want).max()
        np.testing.assert_allclose(np.squeeze(got.double().numpy()), want, rtol=0, atol=rel * want_max)


def test_xpos_score_depends_on_the_offset_only_and_decays():
    d, n, b = 8, 30, 16
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    qs, ks = np.tile(q, (n, 1)), np.tile(k, (n, 1))
    s0 = xpos_rotate(qs, 1, 10000.0, b) @ xpos_rotate(ks, -1, 10000.0, b).T
    s7 = xpos_rotate(qs, 1, 10000.0, b, offset=-7) @ xpos_rotate(ks, -1, 10000.0, b, offset=-7).T
    np.testing.assert_allclose(s0, s7, atol=1e-12)  # shifting every position changes nothing
    for delta in (0, 3, 11):
        diag = np.diagonal(s0, -delta)
        np.testing.assert_allclose(diag, diag[0], atol=1e-12)
    # The closed form: Re Σ ζ^(Δ/B)·q_k·conj(k_k)·e^{iΔθ_k} (Δ = m − n).
    z = (q[0::2] + 1j * q[1::2]) * np.conj(k[0::2] + 1j * k[1::2])
    delta = np.arange(n)
    want = np.real(np.exp(np.multiply.outer(delta, np.log(xpos_zeta(d)) / b + 1j * inv_freq(d))) @ z)
    np.testing.assert_allclose(s0[delta, 0], want, atol=1e-12)
    # Decay by design: every pair's amplitude ζ_k^(Δ/B) falls with Δ, and the score stays inside it.
    amp = np.exp(np.multiply.outer(delta, np.log(xpos_zeta(d)) / b)) @ np.abs(z)
    assert np.all(np.diff(amp) < 0) and np.all(np.abs(want) <= amp + 1e-12)
    np.testing.assert_allclose(xpos_scale([5], d, b, 1) * xpos_scale([5], d, b, -1), 1.0)


@pytest.mark.parametrize(("n", "cells"), [(37, 37), (37, 5), (50, 8)])
def test_xpos_block_means_are_exact_and_causal_only(n, cells):
    d, b = 8, 5
    sch = registry.get("xpos")
    req = MatrixRequest("xpos", n, head_dim=d, params=(("scale_base", b),))
    h = pair_energy(content_vectors(d, "same", 0))
    i = np.arange(n)
    delta = (i[:, None] - i[None, :])[..., None]
    full = ((np.cos(delta * inv_freq(d)) * xpos_zeta(d) ** (delta / b)) @ h - h.sum()) / math.sqrt(d)
    bl = blocks(n, cells)
    got = sch.score_blocks(req, bl)
    want = _brute_block_means(full, bl, causal=True)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, atol=1e-12)
    with pytest.raises(NotShown, match="causal"):
        sch.score_blocks(MatrixRequest("xpos", n, head_dim=d, causal=False), bl)


def test_xpos_views_stay_finite_at_the_longest_context():
    req = MatrixRequest("xpos", 16 * 131072, head_dim=16, params=(("scale_base", 1),))
    m = jobs.run(req)
    assert np.isfinite(m.matrix[np.tril_indices(m.cells)]).all()
    d = jobs.run(DistanceRequest("xpos", 4096, head_dim=16, params=(("scale_base", 1),)))
    assert np.isfinite(d.mean).all() and np.isfinite(d.bound).all()


# -- partial RoPE ----------------------------------------------------------------------------------------
def test_partial_rope_frequencies_follow_gpt_neox():
    np.testing.assert_allclose(partial_inv_freq(64, 10000.0, 0.25)[:8], 10000.0 ** (-np.arange(0, 16, 2) / 16))
    assert np.all(partial_inv_freq(64, 10000.0, 0.25)[8:] == 0)
    assert rotary_dims(64, 0.25) == 16 and rotary_dims(10, 0.5) == 4  # ⌊f·d⌋ = 5 rounds down to even
    np.testing.assert_array_equal(partial_inv_freq(64, 500.0, 1.0), inv_freq(64, 500.0))
    assert not partial_inv_freq(64, 500.0, 0.0).any()


def test_partial_rope_matches_transformers_gpt_neox():
    import torch
    from transformers import GPTNeoXConfig
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding, apply_rotary_pos_emb

    d, heads, n, f = 32, 2, 12, 0.25
    cfg = GPTNeoXConfig(hidden_size=d * heads, num_attention_heads=heads, rotary_pct=f)
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    tq, tk = (torch.tensor(a, dtype=torch.float32)[None, None] for a in (q, k))
    cos, sin = GPTNeoXRotaryEmbedding(cfg)(tq, torch.arange(n)[None])
    hq, hk = apply_rotary_pos_emb(tq, tk, cos, sin)
    perm = neox_to_interleaved(d, f)
    theta = partial_inv_freq(d, 10000.0, f)
    ours_q = rotate_pairs(q[:, perm], theta)
    ours_k = rotate_pairs(k[:, perm], theta)
    for got, want in ((hq[0, 0][:, perm], ours_q), (hk[0, 0][:, perm], ours_k), (hq[0, 0] @ hk[0, 0].T,
                                                                              ours_q @ ours_k.T)):
        np.testing.assert_allclose(got.double().numpy(), want, rtol=0, atol=1e-6 * np.abs(want).max())  # float32


# -- p-RoPE ---------------------------------------------------------------------------------------------
def test_p_rope_keeps_the_fastest_frequencies_as_transformers_proportional_rope():
    from transformers import GPTNeoXConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    for d, p in ((32, 0.25), (64, 0.75), (16, 0.3), (8, 1.0), (8, 0.0)):
        cfg = GPTNeoXConfig(hidden_size=2 * d, num_attention_heads=2,
                            rope_parameters={"rope_type": "proportional", "rope_theta": 500.0,
                                             "partial_rotary_factor": p})
        ref, _ = ROPE_INIT_FUNCTIONS["proportional"](cfg)
        ours = p_rope_inv_freq(d, 500.0, p)
        np.testing.assert_allclose(ref.double().numpy(), ours, rtol=1e-6)
        k = kept_pairs(d, p)
        assert k == int(p * d // 2)
        np.testing.assert_array_equal(ours[:k], inv_freq(d, 500.0)[:k])  # unchanged, exponent over all d
        assert not ours[k:].any() and (k == 0 or ours[:k].min() > inv_freq(d, 500.0)[k:].max(initial=0))


@pytest.mark.parametrize("sid", ["partial_rope", "p_rope"])
def test_fraction_one_is_rope_and_zero_is_nope(sid):
    name = registry.get(sid).own_parameters()[0].name
    bl = blocks(200, 16)
    rope = registry.get("rope").score_blocks(MatrixRequest("rope", 200, head_dim=16), bl)
    full = registry.get(sid).score_blocks(MatrixRequest(sid, 200, head_dim=16, params=((name, 1.0),)), bl)
    none = registry.get(sid).score_blocks(MatrixRequest(sid, 200, head_dim=16, params=((name, 0.0),)), bl)
    np.testing.assert_allclose(full, rope, atol=1e-12)
    np.testing.assert_allclose(none, 0.0, atol=1e-15)


@pytest.mark.parametrize("sid", ["partial_rope", "p_rope"])
def test_zeroed_pairs_rotate_as_rope_and_stay_relative(sid):
    d, n = 16, 20
    sch = registry.get(sid)
    theta = sch.theta(d, 10000.0, 0.5)
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    s = rotate_pairs(np.tile(q, (n, 1)), theta) @ rotate_pairs(np.tile(k, (n, 1)), theta).T
    s2 = (rotate_pairs(np.tile(q, (n, 1)), theta, np.arange(n) + 9.0)
          @ rotate_pairs(np.tile(k, (n, 1)), theta, np.arange(n) + 9.0).T)
    np.testing.assert_allclose(s, s2, atol=1e-12)
    if sid == "p_rope":  # the kept pairs turn exactly as RoPE's
        x = rng.standard_normal((n, d))
        on = np.repeat(theta > 0, 2)
        np.testing.assert_allclose(rotate_pairs(x, theta)[:, on], apply_rope(x)[:, on], atol=1e-12)
        np.testing.assert_array_equal(rotate_pairs(x, theta)[:, ~on], x[:, ~on])
    # The score matrix's block means are exact.
    req = MatrixRequest(sid, n, head_dim=d, params=((sch.own_parameters()[0].name, 0.5),))
    h = pair_energy(content_vectors(d, "same", 0))
    delta = np.arange(n)[:, None] - np.arange(n)[None, :]
    full = (np.cos(delta[..., None] * theta) @ h - h.sum()) / math.sqrt(d)
    bl = blocks(n, 6)
    np.testing.assert_allclose(sch.score_blocks(req, bl), _brute_block_means(full, bl, causal=False), atol=1e-12)


def test_the_beyond_plot_marks_which_frequencies_turn():
    st = SchemesState(l_eval=64, l_train=32, head_dim=32, schemes=("partial_rope", "p_rope", "xpos", "rope_nope"))
    (beyond, _scaled) = build_requests(st, "beyond")
    extras = jobs.run(beyond).extras
    assert extras["p_rope"].log_y and extras["p_rope"].marks[0][0] == 3.5  # θ = 0 from pair 4 (of 16)
    np.testing.assert_array_equal(extras["p_rope"].y[:4], inv_freq(32)[:4])
    assert extras["partial_rope"].y[3] == inv_freq(8)[3] and extras["partial_rope"].y[4] == 0
    assert np.all(np.diff(extras["xpos"].y) < 0)
    np.testing.assert_array_equal(extras["rope_nope"].y[:4], [1, 0, 1, 0])


# -- the hybrid --------------------------------------------------------------------------------------------
def test_hybrid_layers_follow_llama4s_no_rope_layers():
    from transformers.models.llama4 import Llama4TextConfig

    ref = Llama4TextConfig(num_hidden_layers=12).no_rope_layers  # 1 = RoPE, 0 = NoPE, every 4th
    np.testing.assert_array_equal(rope_layers(12, 4), np.array(ref, dtype=bool))
    assert not rope_layers(3, 1).any() and rope_layers(3, 64).all()


def test_hybrid_shows_the_chosen_layer_and_says_where_position_enters():
    sch = registry.get("rope_nope")
    bl = blocks(100, 10)
    rope = registry.get("rope").score_blocks(MatrixRequest("rope", 100, head_dim=16), bl)
    layer1 = sch.score_blocks(MatrixRequest("rope_nope", 100, head_dim=16, params=(("layer", 1),)), bl)
    layer2 = sch.score_blocks(MatrixRequest("rope_nope", 100, head_dim=16, params=(("layer", 2),)), bl)
    np.testing.assert_array_equal(layer1, rope)
    assert not layer2.any()
    st = SchemesState(schemes=("rope_nope",)).with_scheme_param("rope_nope", "nope_every", 4)
    props = jobs.run(build_requests(st, "properties")[0])
    assert props.rows[0][1].startswith("RoPE in layers 1, 2, 3; NoPE in 4 (of 4)")
    from explorer.state import StateError

    with pytest.raises(StateError, match="layer shown"):
        SchemesState().with_scheme_param("rope_nope", "layer", 5)


# -- Token swap and the Lab --------------------------------------------------------------------------------
@pytest.mark.parametrize("sid", ["xpos", "partial_rope", "p_rope"])
def test_token_swap_sees_order_through_each_variant(sid):
    from explorer.jobs.swap import SwapRequest

    out = jobs.run(SwapRequest(SwapState(scheme=sid, sentence="the dog bites the man", swap_i=1, swap_j=4)))
    assert out.verdict == "order-visible" and out.explanation
    terms = registry.get(sid).swap_terms(5, 64, 4, 0, True)
    x = np.random.default_rng(0).standard_normal((5, 16))
    if sid == "xpos":  # keys shrink where queries grow: the product is ζ^((i−j)/512)
        assert terms.rotate_k is not None
        np.testing.assert_allclose(terms.rotate(x) @ terms.rotate_k(x).T,
                                   xpos_rotate(x, 1, offset=2) @ xpos_rotate(x, -1, offset=2).T, atol=1e-12)
    else:
        assert terms.rotate_k is None


@pytest.mark.parametrize("sid", MINE)
def test_one_lab_training_step_per_variant(sid):
    import torch

    from explorer.lab.model import TinyTransformer

    torch.manual_seed(0)
    model = TinyTransformer(sid, vocab=8, d_model=16, heads=2, layers=2, train_len=8)
    idx = torch.randint(0, 8, (4, 12))
    loss = torch.nn.functional.cross_entropy(model(idx)[:, :-1].reshape(-1, 8), idx[:, 1:].reshape(-1))
    loss.backward()
    assert torch.isfinite(loss) and all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)


def test_lab_xpos_tables_multiply_to_the_decay_and_the_hybrid_skips_layer_two():
    import torch

    from explorer.lab.model import TinyTransformer

    pos = registry.get("xpos").lab_module(16, 2, 8)
    cq, sq, ck, sk = (t.double() for t in pos.rotary(10, 8, "cpu", torch.float64))
    m, n = 7, 3
    want = xpos_zeta(8) ** ((m - n) / 512) * np.cos((m - n) * inv_freq(8))
    np.testing.assert_allclose((cq[m] * ck[n] + sq[m] * sk[n]).numpy(), want, atol=1e-12)
    torch.manual_seed(1)
    hybrid = TinyTransformer("rope_nope", vocab=8, d_model=16, heads=2, layers=2, train_len=8)
    torch.manual_seed(1)
    rope = TinyTransformer("rope", vocab=8, d_model=16, heads=2, layers=2, train_len=8)
    idx = torch.randint(0, 8, (2, 9))
    tables = rope.position.rotary(9, 8, "cpu", torch.float32)
    assert hybrid.position.layer(0, tables, None) == (tables, None)
    assert hybrid.position.layer(1, tables, None) == (None, None)
    x = rope.embed(idx)
    x = rope.blocks[1](rope.blocks[0](x, tables), None)  # RoPE's weights, layer 2 without rotation
    torch.testing.assert_close(hybrid(idx), rope.head(rope.ln(x)), rtol=0, atol=0)


# -- how they look ------------------------------------------------------------------------------------------
def _cielab(rgb) -> np.ndarray:
    c = np.asarray(rgb[:3], dtype=float) / 255.0
    c = np.where(c > 0.04045, ((c + 0.055) / 1.055) ** 2.4, c / 12.92)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ c
    f = np.cbrt(xyz / np.array([0.9505, 1.0, 1.089]))
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


@pytest.mark.parametrize("theme", ["LIGHT", "DARK", "PRESENTER_LIGHT", "PRESENTER_DARK"])
def test_rope_family_colours_stay_apart_in_every_theme(theme):
    """Dark themes clamp lightness (every green would become one colour): the variants differ in hue and
    saturation too, at least ΔE 15 from RoPE, each other and every other scheme."""
    from explorer import theme as themes

    th = getattr(themes, theme)
    lab = {s.id: _cielab(th.map_colour((*(int(s.colour[i:i + 2], 16) for i in (1, 3, 5)), 255)))
           for s in registry.all_schemes()}
    for sid in MINE:
        for other, v in lab.items():
            if other != sid:
                assert np.linalg.norm(lab[sid] - v) > 15, (sid, other)


def test_the_schemes_panel_draws_the_variants(qtbot):
    from PySide6.QtCore import Qt

    from explorer.panels.schemes import SchemesPanel
    from explorer.service import ComputeService

    service = ComputeService(warm_up=False)
    try:
        panel = SchemesPanel(service, SchemesState(l_eval=256, l_train=128, schemes=("rope", *MINE)))
        qtbot.addWidget(panel)
        qtbot.waitUntil(lambda: all(s in panel.matrix_view.responses for s in MINE), timeout=20000)
        panel.set_state(panel.state.clamped(view="distance"))
        qtbot.waitUntil(lambda: all(s in panel.distance_view.responses for s in MINE), timeout=20000)
        styles = {s: panel.distance_view.curves[s].opts["pen"].style() for s in ("rope", *MINE)}
        assert styles["rope"] == Qt.PenStyle.SolidLine and styles["xpos"] == Qt.PenStyle.DotLine
        assert len(set(styles.values())) == len(styles)  # one dash per rotary variant
        panel.set_state(panel.state.clamped(view="beyond"))
        qtbot.waitUntil(lambda: all(s in panel.beyond_view.extras for s in MINE), timeout=20000)
        pw = panel.beyond_view.extras["p_rope"].widget
        assert pw.getPlotItem().getViewBox().viewRange()[0][1] > 30  # every pair on the axis, not only the kept
        panel.shutdown()
    finally:
        service.stop()
