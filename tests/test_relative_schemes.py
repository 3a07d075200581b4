"""Shaw, Transformer-XL, Kerple (log) and FIRE: each against its paper's formula, the identities it promises
(relative: depends on i − j only; Shaw: constant past ±k; Kerple: monotone decay; FIRE: progressive
normalisation), Token swap, and a Lab forward/backward step (issue 19)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from explorer import schemes as registry
from explorer.encodings.blocks import blocks
from explorer.jobs.schemes import build_requests, distance_scores, matrix_scores
from explorer.jobs.swap import forward
from explorer.schemes import fire, kerple, shaw, transformer_xl
from explorer.state import SchemesState, SwapState

torch = pytest.importorskip("torch")

NEW = ("shaw", "transformer_xl", "kerple", "fire")


def _req(scheme, view="matrices", **kw):
    st = SchemesState(**{"l_train": 32, "l_eval": 48, "head_dim": 8, **kw}).clamped(**{f"show_{scheme}": True})
    return next(r for r in build_requests(st, view) if r.scheme == scheme)


def _matrix(scheme, **kw):
    r = matrix_scores(_req(scheme, **kw))
    assert r.block == 1  # one cell per pair: the identities hold cell by cell
    return r


def _toeplitz_error(m: np.ndarray) -> float:
    """Largest spread along any diagonal (0 for a function of i − j alone), ignoring NaN (masked) cells."""
    n = m.shape[0]
    worst = 0.0
    for off in range(-(n - 1), n):
        d = np.diagonal(m, offset=off)
        d = d[np.isfinite(d)]
        if d.size:
            worst = max(worst, float(d.max() - d.min()))
    return worst


def test_schemes_json_lists_the_four(capsys):
    import json

    from explorer.cli import main

    assert main(["schemes", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)["schemes"]}
    assert {r["sources"][0]["year"] for sid, r in rows.items() if sid in NEW} == {2018, 2019, 2022, 2023}
    assert rows["shaw"]["kind_text"] == rows["transformer_xl"]["kind_text"] == "a relative term inside the score"
    assert {p["name"] for p in rows["kerple"]["parameters"]} == {"r1", "r2"}


def test_the_registry_lists_the_four_schemes_everywhere():
    for sid in NEW:
        sch = registry.get(sid)
        assert sch.panels() == ["schemes", "swap", "lab"] and sch.sources and sch.used_by
        assert not sch.shown_by_default and not sch.lab_by_default  # the default Lab run stays ≤ 3 minutes


# -- Shaw et al. 2018 -------------------------------------------------------------------------------
def test_shaw_clip_is_the_papers():
    np.testing.assert_array_equal(shaw.clip_offsets([-9, -3, 0, 2, 3, 40], 3), [-3, -3, 0, 2, 3, 3])


@pytest.mark.parametrize("causal", (True, False))
def test_shaw_score_is_the_papers_formula_relative_and_constant_past_k(causal):
    k = 5
    r = _matrix("shaw", causal=causal, scheme_params=(("shaw", "k", k),))
    m, n, d = r.matrix, 48, 8
    c = shaw.content_vectors(d, "same", 0)[0]
    wk = shaw.relative_vectors(k, d, 0)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    # e_ij = q_i (k_j + a^K_ij)ᵀ/√d with q = k = c, minus the score without positions c·c/√d.
    want = (c + wk[np.clip(j - i, -k, k) + k]) @ c / math.sqrt(d) - c @ c / math.sqrt(d)
    seen = j <= i if causal else np.ones((n, n), bool)
    np.testing.assert_allclose(m[seen], want[seen], atol=1e-12)
    assert _toeplitz_error(m) < 1e-12
    far = m[(i - j >= k) & seen]
    assert np.ptp(far) < 1e-12  # every key k or more before the query shares w_−k
    assert r.marks[0][0] == k and (causal or r.marks[1][0] == -k)  # the clipping distance is marked


def test_shaw_marks_k_on_the_distance_curve_and_the_beyond_plot():
    req = _req("shaw", "distance", scheme_params=(("shaw", "k", 7),))
    r = distance_scores(req)
    assert r.relative and r.marks[0][0] == 7
    assert np.ptp(r.mean[r.distance >= 7]) < 1e-12 and np.ptp(r.mean[:8]) > 0
    spec = registry.get("shaw").beyond_plot(req)
    assert (7.0, "k = 7") in spec.marks and set(spec.y[spec.x >= 7]) == {-7.0}


def test_shaw_swap_terms_match_a_loop():
    rng = np.random.default_rng(0)
    q, w = rng.normal(size=(2, 6, 4)), rng.random((2, 6, 6))
    wk, wv = shaw.relative_vectors(2, 4, 1, "key"), shaw.relative_vectors(2, 4, 1, "value")
    got_k, got_v = shaw.key_term(q, wk=wk, k=2), shaw.value_term(w, wv=wv, k=2)
    for i in range(6):
        for j in range(6):
            r = min(2, max(-2, j - i)) + 2
            np.testing.assert_allclose(got_k[:, i, j], q[:, i] @ wk[r] / 2.0, atol=1e-12)
    want_v = np.stack([[sum(w[h, i, j] * wv[min(2, max(-2, j - i)) + 2] for j in range(6)) for i in range(6)]
                       for h in range(2)])
    np.testing.assert_allclose(got_v, want_v, atol=1e-12)


# -- Transformer-XL -------------------------------------------------------------------------------
def test_transformer_xl_matrix_is_the_papers_four_terms_and_relative():
    r = _matrix("transformer_xl", causal=False)
    d, n = 8, 48
    c = transformer_xl.content_vectors(d, "same", 0)[0]
    wr, u, v = transformer_xl.weights(d, 0)
    terms = transformer_xl.score_terms(np.tile(c, (n, 1)), np.tile(c, (n, 1)), wr, u, v)
    np.testing.assert_allclose(r.matrix, terms[1] + terms[2] + terms[3], atol=1e-12)  # (a) is the plain score
    assert _toeplitz_error(r.matrix) < 1e-12
    # (b) by hand at one pair: qᵀ W_R R_(i−j), R = [sin(Δω), cos(Δω)].
    om = 10000.0 ** (-np.arange(0, d, 2) / d)
    big_r = np.concatenate([np.sin(7 * om), np.cos(7 * om)])
    assert terms[1][10, 3] == pytest.approx(c @ wr @ big_r / math.sqrt(d), abs=1e-12)


def test_transformer_xl_distance_curve_draws_its_four_terms():
    r = distance_scores(_req("transformer_xl", "distance"))
    assert [t[0][:3] for t in r.terms] == ["(a)", "(b)", "(c)", "(d)"]
    np.testing.assert_allclose(r.mean, r.terms[1][1] + r.terms[2][1] + r.terms[3][1], atol=1e-12)
    assert np.ptp(r.terms[0][1]) == 0 and np.ptp(r.terms[2][1]) == 0  # (a), (c) do not depend on Δ


def _authors_rel_shift(x):
    """kimiyoung/transformer-xl ``RelMultiHeadAttn._rel_shift`` (pytorch/mem_transformer.py), x (qlen, klen, …)."""
    zero_pad = torch.zeros((x.size(0), 1, *x.size()[2:]), dtype=x.dtype)
    x_padded = torch.cat([zero_pad, x], dim=1).view(x.size(1) + 1, x.size(0), *x.size()[2:])
    return x_padded[1:].view_as(x)


def test_transformer_xl_lab_term_equals_the_authors_rel_shift():
    torch.manual_seed(0)
    pos = registry.get("transformer_xl").lab_module(16, 2, 8).double()
    pos.setup_layers(1)
    pos.double()
    n, dh = 6, 8
    q, k = torch.randn(1, 2, n, dh, dtype=torch.float64), torch.randn(1, 2, n, dh, dtype=torch.float64)
    got = pos.score_extra(0, q, k)[0]  # (h, i, j)
    # The authors: R for pos_seq = klen − 1 … 0, BD = (q + v)·(W_R R), then the relative shift.
    r = torch.from_numpy(transformer_xl.relative_sinusoids(np.arange(n - 1, -1, -1.0), 16))
    rk = pos.r_net[0](r).view(n, 2, dh)
    bd = torch.einsum("ind,jnd->ijn", (q[0] + pos.v[:, None, :]).permute(1, 0, 2), rk)
    bd = _authors_rel_shift(bd[..., None])[..., 0].permute(2, 0, 1)  # (h, i, j)
    ac_c = torch.einsum("nd,njd->nj", pos.u, k[0])[:, None, :]  # uᵀk_j
    want = (bd + ac_c) / math.sqrt(dh)
    low = torch.tril(torch.ones(n, n, dtype=torch.bool))  # the shift's upper triangle is masked anyway
    torch.testing.assert_close(got[:, low], want[:, low], rtol=1e-12, atol=1e-12)


def test_transformer_xl_swap_term_is_the_formula_per_head():
    rng = np.random.default_rng(2)
    q, k = rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 3))
    wr, u, v = transformer_xl.weights(6, 4)
    got = transformer_xl.swap_score(q, k, wr=wr, u=u, v=v)
    for h in range(2):
        cols = slice(3 * h, 3 * h + 3)
        for i in range(5):
            for j in range(5):
                rr = wr @ transformer_xl.relative_sinusoids(i - j, 6)
                want = ((q[h, i] + v[cols]) @ rr[cols] + u[cols] @ k[h, j]) / math.sqrt(3)
                assert got[h, i, j] == pytest.approx(want, abs=1e-12)


# -- Kerple (log) -------------------------------------------------------------------------------
def test_kerple_is_the_papers_log_kernel():
    assert kerple.kerple_log_bias(3, 2.0, 0.5) == pytest.approx(-2.0 * math.log(2.5))
    assert kerple.kerple_log_bias(-3, 2.0, 0.5) == kerple.kerple_log_bias(3, 2.0, 0.5)
    r = _matrix("kerple", causal=False, scheme_params=(("kerple", "r1", 1.5), ("kerple", "r2", 0.25)))
    i, j = np.meshgrid(np.arange(48), np.arange(48), indexing="ij")
    np.testing.assert_allclose(r.matrix, -1.5 * np.log(1 + 0.25 * np.abs(i - j)), atol=1e-12)
    assert _toeplitz_error(_matrix("kerple").matrix) < 1e-12


def test_kerple_decays_monotonically_and_slower_than_alibi():
    r = distance_scores(_req("kerple", "distance"))
    assert r.relative and np.all(np.diff(r.mean) < 0) and r.mean[0] == 0
    alibi = distance_scores(_req("alibi", "distance"))
    assert r.mean[-1] > alibi.mean[-1]  # log(1 + Δ) against ALiBi's m·Δ (head 0: m = 1/2)


def test_kerple_lab_bias_is_the_formula_with_its_parameters():
    torch.manual_seed(0)
    pos = registry.get("kerple").lab_module(16, 2, 8).double()
    with torch.no_grad():
        pos.r1.copy_(torch.tensor([0.5, -1.0]))  # a negative r₁ is clamped to the authors' 10⁻²
    b = pos.bias(5, "cpu", torch.float64)
    r1 = np.array([0.5, 1e-2])
    r2 = pos.r2.detach().numpy().clip(1e-2)
    i, j = np.meshgrid(np.arange(5), np.arange(5), indexing="ij")
    want = -r1[:, None, None] * np.log1p(r2[:, None, None] * (i - j)) + np.where(j > i, -np.inf, 0)
    np.testing.assert_allclose(b.detach().numpy(), want, atol=1e-12)


# -- FIRE -----------------------------------------------------------------------------------------
def test_fire_psi_and_the_progressive_normalisation():
    assert fire.psi(0, 0.1) == 0 and fire.psi(9, 1.0) == pytest.approx(math.log(10))
    c, big_l = 0.1, 16
    # Below the threshold every query divides by ψ(L): relative there.
    assert fire.normalised_distance(5, 2, c, big_l) == pytest.approx(fire.psi(3, c) / (fire.psi(16, c) + fire.EPS))
    assert fire.normalised_distance(9, 6, c, big_l) == fire.normalised_distance(5, 2, c, big_l)
    # Past it the query's own position normalises: x(i, 0) → 1, and every key j ≤ i lands in [0, 1).
    i = np.arange(16, 400)
    x = fire.normalised_distance(i[:, None], np.arange(400)[None, :], c, big_l)
    keep = np.arange(400)[None, :] <= i[:, None]
    assert x[keep].min() == 0 and x[keep].max() < 1 and fire.normalised_distance(399, 0, c, big_l) > 0.999


def test_fire_bias_shape_causality_and_relative_below_the_threshold():
    w = fire.seeded_weights(3, 0, 8)
    b = fire.fire_bias(20, w)
    assert b.shape == (3, 20, 20)
    assert np.all(np.isneginf(b[:, np.triu_indices(20, 1)[0], np.triu_indices(20, 1)[1]]))
    assert _toeplitz_error(b[0, :8, :8]) < 1e-12  # rows i < L: a function of i − j
    assert _toeplitz_error(b[0]) > 1e-6  # past L: not any more
    m = _matrix("fire", l_train=8).matrix  # the panel: head 0 of the seeded MLP (8 heads)
    want = fire.fire_bias(48, fire.seeded_weights(8, 0, 8))[0]
    np.testing.assert_allclose(m[np.isfinite(want)], want[np.isfinite(want)], atol=1e-12)


def test_fire_says_whose_weights_it_draws_and_uses_the_labs():
    assert "seeded initialisation" in registry.get("fire").beyond_plot(_req("fire", "distance")).title
    w = fire.seeded_weights(4, 3, 8)
    w["w2"] = w["w2"] * 3
    packed = fire.pack(w)
    assert fire.unpack(packed)["L"] == 8.0
    st = SchemesState(l_train=32, l_eval=48).clamped(show_fire=True)
    req = next(r for r in build_requests(st, "matrices", trained={"fire": packed}) if r.scheme == "fire")
    assert req.trained == packed
    want = fire.fire_bias(48, fire.unpack(packed))[0]
    np.testing.assert_allclose(matrix_scores(req).matrix[np.isfinite(want)], want[np.isfinite(want)], atol=1e-12)
    assert "trained in the Lab" in registry.get("fire").beyond_plot(req).title


def test_fire_lab_bias_is_the_formula_and_a_run_keeps_its_weights():
    from explorer.lab import LabConfig, run_experiment
    from explorer.panels.links import PanelLinks

    torch.manual_seed(0)
    pos = registry.get("fire").lab_module(16, 2, 8)
    pos.setup_layers(2)
    got = pos.layer_bias(0, 12, "cpu", torch.float32, None).detach().numpy()
    want = fire.fire_bias(12, pos.trained_weights())
    np.testing.assert_allclose(got, want, atol=1e-5)
    res = run_experiment(LabConfig(schemes=("fire",), train_len=8, steps=2, d_model=16, heads=2, batch=4,
                                   eval_batch=4, device="cpu"))
    links = PanelLinks()
    assert links.trained_weights() == {}
    links.remember_weights(res)
    assert fire.unpack(links.trained_weights()["fire"])["w2"].shape == (2, fire.MLP_WIDTH)
    assert PanelLinks().trained_weights() == {}  # another window's channel starts with nothing


# -- all four: Token swap and a Lab step ------------------------------------------------------------
@pytest.mark.parametrize("scheme", NEW)
def test_token_swap_sees_a_swap_that_changes_distances(scheme):
    st = SwapState(scheme=scheme, causal=False, sentence="the dog bites the old man", swap_i=1, swap_j=2)
    before = forward(st.tokens, st).outputs
    after = forward([st.tokens[k] for k in (0, 2, 1, 3, 4, 5)], st).outputs
    assert np.abs(after[[0, 2, 1, 3, 4, 5]] - before).max() > 1e-6
    assert np.allclose(forward(st.tokens, st).weights.sum(-1), 1.0)


@pytest.mark.parametrize("scheme", ("kerple", "fire"))
def test_distance_only_biases_cannot_see_a_mirror_swap_without_the_mask(scheme):
    st = SwapState(scheme=scheme, causal=False, sentence="a b c d", swap_i=0, swap_j=3, heads=2, d_model=8)
    before = forward(st.tokens, st).outputs
    after = forward(st.tokens[::-1], st).outputs
    np.testing.assert_allclose(after[::-1], before, atol=1e-12)
    assert registry.get(scheme).swap_invisible(st, True) is not None


@pytest.mark.parametrize("scheme", ("shaw", "transformer_xl"))
def test_signed_relative_schemes_see_even_the_mirror_swap(scheme):
    st = SwapState(scheme=scheme, causal=False, sentence="a b c d", swap_i=0, swap_j=3, heads=2, d_model=8)
    before = forward(st.tokens, st).outputs
    after = forward(st.tokens[::-1], st).outputs
    assert np.abs(after[::-1] - before).max() > 1e-6  # clip(j − i) and R_(i−j) keep the sign of the offset


@pytest.mark.parametrize("scheme", NEW)
def test_a_lab_step_trains_the_schemes_own_parameters(scheme):
    from explorer.lab.model import TinyTransformer

    torch.manual_seed(0)
    model = TinyTransformer(scheme, vocab=6, d_model=16, heads=2, layers=2, train_len=8)
    own = [p for p in model.position.parameters()]
    assert own  # each of the four learns something
    x = torch.randint(0, 6, (3, 9))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for _ in range(2):
        loss = torch.nn.functional.cross_entropy(model(x[:, :-1]).reshape(-1, 6), x[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in own)
        assert any(p.grad.abs().sum() > 0 for p in own)
        opt.step()
        losses.append(loss.item())
    assert losses[1] < losses[0]
    model.eval()
    with torch.no_grad():  # causal: a prefix's outputs do not see what follows (and longer runs work)
        long = torch.randint(0, 6, (1, 20))
        torch.testing.assert_close(model(long)[:, :7], model(long[:, :7]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("scheme", ("nope", "rope", "alibi", "t5", "learned", "sinusoidal"))
def test_default_hooks_leave_the_other_schemes_attention_unchanged(scheme):
    from explorer.lab.model import Block

    torch.manual_seed(1)
    pos = registry.get(scheme).lab_module(16, 2, 8)
    pos.setup_layers(2)
    blk = Block(16, 2).eval()
    x = torch.randn(2, 7, 16)
    rope = pos.rotary(7, 8, "cpu", x.dtype)
    bias = pos.bias(7, "cpu", x.dtype)
    assert pos.layer_bias(1, 7, "cpu", x.dtype, bias) is bias
    torch.testing.assert_close(blk(x, rope, bias, pos, 1), blk(x, rope, bias), rtol=0, atol=0)


def test_blocks_for_the_matrix_are_one_per_pair():
    assert blocks(48, 256).size == 1
