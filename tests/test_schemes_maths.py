"""Schemes-panel jobs against the foundation's encodings and independent hand formulas (no Qt)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from explorer import jobs
from explorer.encodings import EncodingError, RopeScaling, apply_rope, inv_freq, scaled_inv_freq, sinusoidal
from explorer.encodings.attention import attention
from explorer.encodings.blocks import Blocks, block_cis, blocks, cos_sin, phasor_gram
from explorer.encodings.learned import LearnedTable
from explorer.jobs import schemes as J
from explorer.panels.schemes.formula import formula_html
from explorer.schemes.alibi import WINDOW_SHARE, alibi_bias, alibi_slopes, alibi_tab
from explorer.schemes.base import band_queries, content_vectors, pair_energy
from explorer.schemes.learned import model_tables_text
from explorer.schemes.query import Query
from explorer.state import SchemesState, StateError


def matrix(scheme: str, n: int, *, max_cells: int | None = None, **kw) -> J.MatrixResponse:
    kw.setdefault("head_dim", 16)
    return J.matrix_scores(J.MatrixRequest(scheme=scheme, l_eval=n, max_cells=max_cells or n, **kw))


def is_toeplitz(m: np.ndarray) -> bool:
    """m[i, j] depends on i − j only: every diagonal is constant."""
    return all(np.allclose(np.diagonal(m, k), np.diagonal(m, k)[0], rtol=0, atol=1e-12)
               for k in range(-m.shape[0] + 1, m.shape[0]))


# -- exact position-only scores (one cell per position) ---------------------------------------------
def test_rope_matrix_is_rotated_content_scores():
    d, n, base = 16, 40, 100.0
    c = content_vectors(d, "same", 3)[0]
    rotated = apply_rope(np.tile(c, (n, 1)), base=base)
    expected = (rotated @ rotated.T - c @ c) / math.sqrt(d)
    got = matrix("rope", n, head_dim=d, base=base, seed=3).matrix
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-11)


@pytest.mark.parametrize("kind", ["linear", "ntk", "yarn", "llama3"])
def test_scaled_rope_matrix_matches_encodings(kind):
    d, n, lt, s = 16, 48, 32, 3.0
    c = content_vectors(d, "same", 1)[0]
    sc = RopeScaling(kind, s, original_max_positions=lt)
    rotated = apply_rope(np.tile(c, (n, 1)), base=500.0, scaling=sc)  # YaRN: cos, sin × attention factor
    expected = (rotated @ rotated.T - c @ c) / math.sqrt(d)
    got = matrix("scaled_rope", n, head_dim=d, base=500.0, seed=1, l_train=lt, scaling=kind, factor=s).matrix
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-11)


def test_sinusoidal_and_learned_matrices_are_content_plus_position_minus_content():
    d, n, lt = 16, 30, 20
    c = content_vectors(d, "same", 5)[0]
    p = sinusoidal(n, d, 10000.0)
    expected = ((c + p) @ (c + p).T - c @ c) / math.sqrt(d)
    np.testing.assert_allclose(matrix("sinusoidal", n, head_dim=d, seed=5).matrix, expected, atol=1e-12)
    table = LearnedTable(lt, d, seed=5).lookup(lt)
    expected = ((c + table) @ (c + table).T - c @ c) / math.sqrt(d)
    got = matrix("learned", n, head_dim=d, seed=5, l_train=lt).matrix
    np.testing.assert_allclose(got[:lt, :lt], expected, atol=1e-12)


def test_alibi_matrix_is_the_bias_with_the_future_masked_not_biased():
    n, heads = 12, 6
    for head in range(heads):
        got = matrix("alibi", n, heads=heads, alibi_head=head, causal=True).matrix
        bias = alibi_bias(heads, n, "causal")[head]
        np.testing.assert_array_equal(np.isnan(got), np.isneginf(bias))
        ok = np.isfinite(bias)
        np.testing.assert_allclose(got[ok], bias[ok], atol=1e-15)
        sym = matrix("alibi", n, heads=heads, alibi_head=head, causal=False).matrix
        np.testing.assert_allclose(sym, alibi_bias(heads, n, "symmetric")[head], atol=1e-15)


def test_nope_adds_nothing():
    m = matrix("nope", 50).matrix
    assert m.shape == (50, 50) and not m.any()


# -- relative or not ---------------------------------------------------------------------------------
def test_rope_and_alibi_depend_only_on_distance_learned_does_not():
    n = 48
    assert is_toeplitz(matrix("rope", n, base=50.0).matrix)
    assert is_toeplitz(matrix("scaled_rope", n, base=50.0, l_train=16, scaling="yarn", factor=4.0).matrix)
    assert is_toeplitz(matrix("alibi", n, heads=5, alibi_head=3, causal=False).matrix)
    causal = matrix("alibi", n, heads=5, alibi_head=3).matrix
    low = np.tril(np.ones((n, n), bool))
    assert is_toeplitz(np.where(low, causal, 0.0))
    assert not is_toeplitz(matrix("learned", n, l_train=n).matrix)
    # Sinusoidal with content is not relative either (c·P_i is absolute) …
    assert not is_toeplitz(matrix("sinusoidal", n).matrix)
    # … but its position-position part P_i·P_j = Σ cos((i − j)ω) is.
    p = sinusoidal(n, 16)
    assert is_toeplitz(p @ p.T)


def test_distance_curves_agree_with_the_matrix_diagonals():
    n = 40
    for scheme, kw in (("rope", {"base": 30.0}), ("alibi", {"heads": 3, "alibi_head": 1}),
                       ("scaled_rope", {"base": 30.0, "l_train": 10, "scaling": "linear", "factor": 2.0})):
        m = matrix(scheme, n, **kw).matrix
        r = J.distance_scores(J.DistanceRequest(scheme=scheme, l_eval=n, head_dim=16, **kw))
        assert r.relative and r.lo is None
        np.testing.assert_allclose(r.mean, [np.diagonal(m, -k)[0] for k in range(n)], atol=1e-11)


@pytest.mark.parametrize("scheme", ["sinusoidal", "learned"])
def test_absolute_distance_mean_is_the_mean_over_all_pairs_and_has_a_spread(scheme):
    n = 36
    m = matrix(scheme, n, l_train=n, base=60.0).matrix
    r = J.distance_scores(J.DistanceRequest(scheme=scheme, l_eval=n, head_dim=16, l_train=n, base=60.0))
    assert not r.relative
    np.testing.assert_allclose(r.mean, [np.diagonal(m, -k).mean() for k in range(n)], atol=1e-11)
    # The band is min–max over the chosen queries, read straight from the matrix.
    q = band_queries(n)
    for k, delta in enumerate(r.band_distance):
        vals = [m[i, i - delta] for i in q if i >= delta]
        assert r.lo[k] == pytest.approx(min(vals), abs=1e-11)
        assert r.hi[k] == pytest.approx(max(vals), abs=1e-11)
    assert np.nanmax(r.hi - r.lo) > 0.1  # not a function of Δ alone


def test_strided_distance_curve_samples_the_full_curve():
    n = 60
    full = J.distance_scores(J.DistanceRequest(scheme="sinusoidal", l_eval=n, head_dim=8, base=40.0))
    strided = J.distance_scores(J.DistanceRequest(scheme="sinusoidal", l_eval=n, head_dim=8, base=40.0,
                                                  max_points=16))
    assert strided.stride == 4
    np.testing.assert_allclose(strided.mean, full.mean[::4], atol=1e-12)


# -- display resolution: cells are exact block means ---------------------------------------------------
def block_mean(full: np.ndarray, bl: Blocks, *, visible=None) -> np.ndarray:
    out = np.empty((bl.n, bl.n))
    for a in range(bl.n):
        for b in range(bl.n):
            sa = slice(bl.starts[a], bl.starts[a] + bl.counts[a])
            sb = slice(bl.starts[b], bl.starts[b] + bl.counts[b])
            cell = full[sa, sb]
            if visible is not None:
                cell = cell[visible[sa, sb]]
            out[a, b] = cell.mean() if cell.size else np.nan
    return out


@pytest.mark.parametrize("scheme", ["rope", "scaled_rope", "sinusoidal", "learned", "alibi"])
def test_cells_are_exact_block_means_not_samples(scheme):
    n, cells = 41, 8  # blocks of 6, the last one of 5
    kw = {"base": 20.0, "l_train": 24, "scaling": "ntk", "factor": 2.0, "heads": 4, "alibi_head": 2,
          "content": "average", "seed": 2}
    full = matrix(scheme, n, **kw).matrix
    coarse = matrix(scheme, n, max_cells=cells, **kw)
    bl = blocks(n, cells)
    assert (coarse.block, coarse.cells, bl.counts[-1]) == (6, 7, 5)
    if scheme == "alibi":  # causal: mean over the visible cells j ≤ i; wholly future blocks masked
        expected = block_mean(np.nan_to_num(full), bl, visible=np.tril(np.ones((n, n), bool)))
    else:
        expected = block_mean(full, bl)
    if scheme == "learned":  # any position ≥ L_train in a block: the cell has no row
        valid = bl.starts + bl.counts <= 24
        expected[~valid, :] = np.nan
        expected[:, ~valid] = np.nan
    np.testing.assert_allclose(coarse.matrix, expected, atol=1e-11)


@settings(max_examples=25, deadline=None)
@given(n=hst.integers(2, 60), cells=hst.integers(1, 20), d=hst.sampled_from([2, 4, 8]),
       base=hst.floats(2.0, 1e5), seed=hst.integers(0, 5))
def test_rope_block_means_property(n, cells, d, base, seed):
    """For any size, every RoPE cell is the mean of the exact scores over its block."""
    full = matrix("rope", n, head_dim=d, base=base, seed=seed).matrix
    coarse = matrix("rope", n, max_cells=cells, head_dim=d, base=base, seed=seed)
    np.testing.assert_allclose(coarse.matrix, block_mean(full, blocks(n, cells)), atol=1e-10)
    # ΔS of RoPE never exceeds the content score in size: |R_i c·R_j c − c·c| ≤ 2|c|².
    c = content_vectors(d, "same", seed)[0]
    assert np.abs(full).max() <= 2 * c @ c / math.sqrt(d) + 1e-12


def test_dirichlet_kernel_block_phasors():
    theta = inv_freq(12, 50.0)
    bl = blocks(100, 7)
    c, s = block_cis(bl, theta)
    z = c + 1j * s
    for a in range(bl.n):
        p = np.arange(bl.starts[a], bl.starts[a] + bl.counts[a])
        np.testing.assert_allclose(z[a], np.exp(1j * np.outer(p, theta)).mean(axis=0), atol=1e-13)


def test_cos_sin_are_within_one_unit_in_the_last_place():
    """Against mpmath, angles up to the largest a block centre reaches (L_eval = 16 × 131 072 positions at θ = 1):
    within one unit in the last place, the bound of torch's kernels (on this machine they are within half a unit,
    as numpy's are; a float32 kernel is thousands of units off)."""
    from explorer.state.schemes import MAX_EXTENSION

    mp = pytest.importorskip("mpmath")
    top = MAX_EXTENSION * 131072
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(0, 4, 200), rng.uniform(0, 2e5, 200), rng.uniform(0, top, 200),
                        [0.0, 1e-300, np.pi, top - 0.5]])
    c, s = cos_sin(x)
    with mp.workdps(40):
        for got, f in ((c, mp.cos), (s, mp.sin)):
            for g, v in zip(got, x, strict=True):
                exact = f(mp.mpf(float(v)))
                ulp = np.spacing(abs(float(exact)))
                assert abs(mp.mpf(float(g)) - exact) <= ulp, (f.__name__, v, g)


@pytest.mark.parametrize("w", [np.array([0.5, 2.0, 1.25]), np.array([0.5, -2.0, 1.25]),
                               np.array([0.5 - 1j, 2.0 + 0.25j, -1j])])
def test_phasor_gram_is_the_real_part_of_the_complex_product(w):
    bl = blocks(50, 9)
    c, s = block_cis(bl, inv_freq(6, 30.0))
    z = c + 1j * s
    np.testing.assert_allclose(phasor_gram((c, s), w), np.real((z * w) @ z.conj().T), rtol=0, atol=1e-14)


# -- learned: no row ------------------------------------------------------------------------------------
def test_learned_table_refuses_positions_at_or_past_its_size():
    table = LearnedTable(8, 4, seed=0)
    assert table.lookup(np.arange(8)).shape == (8, 4)
    with pytest.raises(EncodingError, match="position 8 has no row.*only 8 rows"):
        table.lookup(np.array([3, 8]))
    with pytest.raises(EncodingError, match="no row"):
        table.lookup(9)


def test_learned_cells_past_l_train_are_empty_not_zero():
    r = matrix("learned", 64, l_train=40)
    m = r.matrix
    assert np.isnan(m[40:, :]).all() and np.isnan(m[:, 40:]).all()
    assert np.isfinite(m[:40, :40]).all()
    beyond = J.beyond(J.BeyondRequest(head_dim=16, base=1e4, l_train=40, l_eval=64))
    assert np.isnan(beyond.table[beyond.table_rows >= 40]).all()
    assert np.isfinite(beyond.table[beyond.table_rows < 40]).all()


def test_learned_table_too_large_for_the_live_view_says_so():
    r = matrix("learned", 2**14, l_train=2**14, head_dim=2048, max_cells=64)
    assert r.matrix is None and "lower L_train or d" in r.note


# -- the shared colour scale ------------------------------------------------------------------------------
def test_shared_levels_rule():
    assert J.shared_levels({"rope": 7.0, "alibi": 511.0, "nope": 0.0}) == (7.0, ("alibi",))
    assert J.shared_levels({"sinusoidal": 3.0, "learned": 9.0}) == (9.0, ())
    assert J.shared_levels({"alibi": 12.0, "nope": 0.0}) == (12.0, ())
    assert J.shared_levels({"nope": 0.0}) == (1.0, ())


# -- RoFormer's bound -------------------------------------------------------------------------------------
def test_roformer_bound_small_case_by_hand():
    # d = 4, base 10000: θ = (1, 0.01).  At Δ = 3: S₁ = e^{3i}, S₂ = e^{3i} + e^{0.03i}.
    r = J.distance_scores(J.DistanceRequest(scheme="rope", l_eval=5, head_dim=4, base=10000.0))
    s1 = abs(complex(math.cos(3), math.sin(3)))
    s2 = abs(complex(math.cos(3) + math.cos(0.03), math.sin(3) + math.sin(0.03)))
    assert r.bound[3] == pytest.approx((s1 + s2) / 2, abs=1e-14)
    assert r.bound[0] == pytest.approx((1 + 2) / 2)


def test_roformer_bound_really_bounds_the_rope_score():
    # |Σ_k h_k e^{iΔθ_k}| ≤ max_k |h_{k+1} − h_k| · Σ_j |S_j|   (h_{d/2} = 0; Su et al. 2021, §3.4.3)
    d = 32
    c = content_vectors(d, "same", 7)[0]
    h = pair_energy(c[None])
    r = J.distance_scores(J.DistanceRequest(scheme="rope", l_eval=2000, head_dim=d, seed=7))
    score = r.mean * math.sqrt(d) + h.sum()  # back to Σ_k h_k cos(Δθ_k)
    step = np.max(np.abs(np.diff(np.append(h, 0.0))))
    assert np.all(np.abs(score) <= step * r.bound * (d // 2) + 1e-9)


# -- scaled RoPE against the formulas ---------------------------------------------------------------------
def scaled(kind, s, d=64, base=10000.0, lt=512):
    return J.scaled(J.ScaledRequest(head_dim=d, base=base, l_train=lt, scaling=kind, factor=s))


def test_scaled_curves_equal_the_encodings():
    for kind in ("linear", "ntk", "yarn", "llama3"):
        r = scaled(kind, 4.0)
        theta, att = scaled_inv_freq(64, 10000.0, RopeScaling(kind, 4.0, 512))
        np.testing.assert_array_equal(r.theta_scaled, theta)
        np.testing.assert_array_equal(r.theta, inv_freq(64, 10000.0))
        np.testing.assert_allclose(r.wavelength_scaled, 2 * np.pi / theta)
        assert r.attention_factor == att


def test_linear_and_ntk_by_hand():
    d, s = 64, 4.0
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    r = scaled("linear", s)
    np.testing.assert_allclose(r.theta_scaled, theta / s, rtol=1e-15)
    assert np.allclose(r.weight, 1.0) and r.n_divided == d // 2
    r = scaled("ntk", s)
    base2 = 10000.0 * s ** (d / (d - 2))
    assert r.ntk_base == pytest.approx(base2, rel=1e-14)
    np.testing.assert_allclose(r.theta_scaled, base2 ** (-np.arange(0, d, 2) / d), rtol=1e-13)
    assert r.weight[0] == 0.0 and r.weight[-1] == pytest.approx(1.0, abs=1e-12)


def test_yarn_ramp_endpoints_and_attention_factor_by_hand():
    d, base, lt, s = 64, 10000.0, 512, 4.0
    r = scaled("yarn", s, d, base, lt)

    def dim(rot):  # HF find_correction_dim
        return d * math.log(lt / (rot * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(math.floor(dim(32)), 0), min(math.ceil(dim(1)), d - 1)
    assert r.correction_range == (low, high) == (3, 16)
    assert np.all(r.ramp[: low + 1] == 0.0) and np.all(r.ramp[high:] == 1.0)
    np.testing.assert_allclose(r.ramp, np.clip((np.arange(d // 2) - low) / (high - low), 0, 1))
    np.testing.assert_allclose(r.weight, r.ramp, atol=1e-12)  # the weight shown IS the ramp
    theta = base ** (-np.arange(0, d, 2) / d)
    np.testing.assert_allclose(r.theta_scaled, theta * ((1 - r.ramp) + r.ramp / s), rtol=1e-14)
    assert r.attention_factor == pytest.approx(0.1 * math.log(s) + 1, abs=1e-15)
    assert r.attention_factor == pytest.approx(1.1386294361, abs=1e-9)
    assert (r.n_kept, r.n_divided) == (low + 1, d // 2 - high)


def test_llama3_band_edges_by_hand():
    d, base, lt, s = 128, 500000.0, 8192, 8.0  # Llama 3.1's own numbers
    r = scaled("llama3", s, d, base, lt)
    assert r.band_edges == (lt / 4, lt / 1) == (2048.0, 8192.0)
    theta = base ** (-np.arange(0, d, 2) / d)
    lam = 2 * np.pi / theta
    short, long_ = lam < lt / 4, lam > lt
    np.testing.assert_allclose(r.theta_scaled[short], theta[short], rtol=0)
    np.testing.assert_allclose(r.theta_scaled[long_], theta[long_] / s, rtol=1e-15)
    mid = ~short & ~long_
    smooth = (lt / lam[mid] - 1) / (4 - 1)
    expected = (1 - smooth) * theta[mid] / s + smooth * theta[mid]
    np.testing.assert_allclose(r.theta_scaled[mid], expected, rtol=1e-13)
    np.testing.assert_allclose(r.weight[mid], 1 - smooth, atol=1e-12)
    assert r.n_kept == short.sum() and r.n_divided == long_.sum()


def test_factor_one_changes_nothing():
    for kind in ("linear", "ntk", "llama3"):
        r = scaled(kind, 1.0)
        np.testing.assert_array_equal(r.theta_scaled, r.theta)
        assert not r.weight.any()


# -- beyond training: full turns -------------------------------------------------------------------------
def test_full_turn_count_by_hand():
    # d = 64, base 10⁴, L = 512: pair k turns fully iff 511·θ_k ≥ 2π  ⇔  k ≤ 64·ln(511/2π)/(2 ln 10⁴) = 15.28
    r = J.beyond(J.BeyondRequest(head_dim=64, base=1e4, l_train=512, l_eval=1024))
    k_max = math.floor(64 * math.log(511 / (2 * math.pi)) / (2 * math.log(1e4)))
    assert k_max == 15 and r.n_full == 16
    assert r.full_turn[:16].all() and not r.full_turn[16:].any()
    # New angles up to L_eval: every pair that had not turned fully inside training.
    assert r.n_new == 16
    np.testing.assert_allclose(r.cover_eval, np.minimum(1, 1023 * r.theta / (2 * np.pi)))
    r2 = J.beyond(J.BeyondRequest(head_dim=64, base=1e4, l_train=512, l_eval=512))
    assert r2.n_new == 0


# -- ALiBi ---------------------------------------------------------------------------------------------------
def _alibi(heads: int, alibi_head: int, l_eval: int, causal: bool = True, **cells):
    """The ALiBi tab's numbers (its compute, as the panel's tab request runs it)."""
    q = Query("alibi", {"heads": heads, "alibi_head": alibi_head, "l_eval": l_eval, "causal": causal})
    return alibi_tab(q, **cells)


def test_alibi_slopes_for_non_powers_of_two_by_hand():
    r = _alibi(heads=6, alibi_head=0, l_eval=16)
    # 4 heads: 2^-2, 2^-4, 2^-6, 2^-8; then every other slope of 8 heads: 2^-1, 2^-3.
    np.testing.assert_allclose(r.slopes, [2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3], rtol=0)
    r8 = _alibi(heads=8, alibi_head=0, l_eval=16)
    np.testing.assert_allclose(r8.slopes, [2.0**-k for k in range(1, 9)], rtol=0)


def test_alibi_tiles_are_each_heads_bias():
    n, heads = 20, 5
    r = _alibi(heads=heads, alibi_head=0, l_eval=n, tile_cells=n)
    bias = alibi_bias(heads, n, "causal")
    np.testing.assert_array_equal(np.isnan(r.tiles), np.isneginf(bias))
    np.testing.assert_allclose(r.tiles[np.isfinite(bias)], bias[np.isfinite(bias)], atol=1e-15)


@pytest.mark.parametrize("causal", [True, False])
def test_alibi_attention_equals_torch_attention(causal):
    n, heads, head = 24, 3, 1
    r = _alibi(heads=heads, alibi_head=head, l_eval=n, causal=causal, attention_cells=n)
    c = content_vectors(8, "same", 0)
    q = np.tile(c, (n, 1))
    bias = alibi_bias(heads, n, "causal" if causal else "symmetric")[head]
    w = attention(q, q, q, causal=causal, bias=np.where(np.isfinite(bias), bias, 0.0)).weights
    got = np.nan_to_num(r.attention)
    np.testing.assert_allclose(got, w, atol=1e-12)
    if causal:
        assert np.isnan(r.attention[np.triu_indices(n, 1)]).all()


def test_alibi_attention_blocks_sum_the_exact_weights():
    n, cells = 50, 7
    r = _alibi(heads=4, alibi_head=2, l_eval=n, attention_cells=cells)
    m = alibi_slopes(4)[2]
    bl = blocks(n, cells)
    for row, i in enumerate(r.attention_queries):
        w = np.exp(-m * (i - np.arange(i + 1)))
        w /= w.sum()
        for b in range(bl.n):
            keys = np.arange(bl.starts[b], bl.starts[b] + bl.counts[b])
            keys = keys[keys <= i]
            if keys.size:
                assert r.attention[row, b] == pytest.approx(w[keys].sum(), abs=1e-13)
            else:
                assert np.isnan(r.attention[row, b])
        assert np.nansum(r.attention[row]) == pytest.approx(1.0, abs=1e-12)


def test_alibi_profiles_and_windows_by_brute_force():
    n = 300
    r = _alibi(heads=8, alibi_head=0, l_eval=n)
    for h, m in enumerate(r.slopes):
        w = np.exp(-m * np.arange(n))
        w /= w.sum()
        np.testing.assert_allclose(r.profiles[h], w, rtol=1e-12)
        k = int(np.argmax(np.cumsum(w) >= WINDOW_SHARE - 1e-12)) + 1
        assert r.windows[h] == k


# -- properties table --------------------------------------------------------------------------------------
def test_properties_parameters_and_sources():
    st = SchemesState(head_dim=128, l_train=4096, l_eval=8192)
    (req,) = J.build_requests(st, "properties")
    r = jobs.run(req)
    assert r.parameters == {"sinusoidal": 0, "learned": 4096 * 128, "rope": 0, "alibi": 0, "nope": 0,
                            "scaled_rope": 0}
    rows = {row[0].split(" (")[0]: row for row in r.rows}
    assert "4,096 × 128 = 524,288" in rows["Learned"][2]
    assert "no row for positions ≥ 4,096" in rows["Learned"][4]
    used = " ".join(row[5] for row in r.rows)
    for name in ("Transformer", "GPT-2", "BERT", "Llama", "Mistral", "BLOOM", "MPT"):
        assert name in used
    for row in r.rows:  # every "used by" cell cites a year
        assert any(str(y) in row[5] for y in range(2017, 2026))
    b = J.beyond(J.BeyondRequest(128, 10000.0, 4096, 8192))
    assert f"{b.n_full} of 64 pairs turn fully" in rows["RoPE"][4]
    windows = []
    for m in alibi_slopes(8):  # nearest keys holding 90% of the last query's weight, by brute force
        w = np.exp(-m * np.arange(8192))
        windows.append(int(np.argmax(np.cumsum(w / w.sum()) >= 0.9)) + 1)
    assert f"nearest {min(windows):,} … {max(windows):,} keys" in rows["ALiBi"][4]
    assert model_tables_text() == "GPT-2 1,024 × 768 = 786,432; BERT-base 512 × 768 = 393,216"


def test_properties_scaled_row_numbers():
    st = SchemesState(scaling="yarn", factor=8.0, head_dim=64, l_train=512)
    r = jobs.run(J.build_requests(st, "properties")[0])
    text = dict((row[0], row) for row in r.rows)["Scaled RoPE (YaRN)"][4]
    sr = scaled("yarn", 8.0)
    a = 0.1 * math.log(8) + 1
    assert f"{int(8 * 512):,}" in text and f"{sr.n_kept} of 32 pairs kept" in text
    assert f"attention factor {a:.3f}" in text and f"logits × {a * a:.3f}" in text


# -- requests: split per view and scheme -------------------------------------------------------------------
def keys_changed(st: SchemesState, which: str, **change) -> set:
    before = {r.key: r for r in J.build_requests(st, which)}
    after = {r.key: r for r in J.build_requests(st.clamped(**change), which)}
    return {k for k in after if before.get(k) != after[k]}


def test_dragging_s_recomputes_only_scaled_rope():
    st = SchemesState()
    assert keys_changed(st, "matrices", factor=5.0) == {"schemes.matrix.scaled_rope"}
    assert keys_changed(st, "distance", factor=5.0) == {"schemes.distance.scaled_rope"}
    assert keys_changed(st, "beyond", factor=5.0) == {"schemes.scaled"}
    assert keys_changed(st, "alibi", factor=5.0) == set()


def test_each_control_touches_only_what_depends_on_it():
    st = SchemesState()
    assert keys_changed(st, "matrices", alibi_head=3) == {"schemes.matrix.alibi"}
    assert keys_changed(st, "matrices", l_train=256) == {
        "schemes.matrix.learned", "schemes.matrix.scaled_rope"}
    assert keys_changed(st, "matrices", base=500000.0) == {
        "schemes.matrix.sinusoidal", "schemes.matrix.rope", "schemes.matrix.scaled_rope"}
    assert keys_changed(st, "matrices", causal=False) == {"schemes.matrix.alibi"}
    assert keys_changed(st, "distance", causal=False) == set()
    assert len(keys_changed(st, "matrices", l_eval=2048)) == 6
    assert keys_changed(st, "matrices", view="distance") == set()


def test_only_the_chosen_schemes_are_requested():
    st = SchemesState(schemes=("rope", "scaled_rope", "alibi"))
    assert [r.key for r in J.build_requests(st, "matrices")] == [
        "schemes.matrix.rope", "schemes.matrix.scaled_rope", "schemes.matrix.alibi"]


# -- state -------------------------------------------------------------------------------------------------
def test_state_limits_and_clamping():
    with pytest.raises(StateError, match="16 × l_train"):
        SchemesState(l_train=100, l_eval=1601)
    assert SchemesState(l_train=100, l_eval=1600).l_eval == 1600
    st = SchemesState(l_train=1024, l_eval=16384).clamped(l_train=512)
    assert st.l_eval == 8192
    assert SchemesState(heads=8, alibi_head=7).clamped(heads=3).alibi_head == 2
    assert SchemesState().clamped(head_dim=33).head_dim == 32
    with pytest.raises(StateError):
        SchemesState(heads=4, alibi_head=4)


def test_formula_text_numbers():
    st = SchemesState(head_dim=64, base=10000.0, scaling="yarn", factor=4.0, l_train=512)
    assert {"rope", "scaled_rope"} <= set(st.schemes)
    text = formula_html(st)
    assert "Re Σ" in text and "10000<sup>−2i/64</sup>" in text
    assert f"{10000 ** (-2 / 64):.4g}" in text  # θ_1 = 0.7499
    assert "from 0 at pair 3 to 1 at pair 16" in text and "1.1386" in text
    ntk = formula_html(st.clamped(scaling="ntk"))
    assert f"{10000 * 4 ** (64 / 62):,.0f}" in ntk
    ll = formula_html(st.clamped(scaling="llama3"))
    assert "λ &gt; 512" in ll and "λ &lt; 128" in ll


def test_the_formula_strip_shows_only_schemes_on_screen():
    """Scene 4 (learned vs sinusoidal, beyond training) used to show RoPE's and YaRN's formulas."""
    st = SchemesState(schemes=("sinusoidal", "learned"), view="beyond")
    text = formula_html(st)
    assert "Re Σ" not in text and "YaRN" not in text
    assert text  # still says something: the shown schemes' lines, else RoPE's as the panel's default
    alibi = formula_html(SchemesState(schemes=("rope",), view="alibi"))
    assert "ALiBi" in alibi and "Re Σ" in alibi


@pytest.mark.parametrize("scheme", ["rope", "scaled_rope", "partial_rope", "p_rope", "rope_nope", "transformer_xl",
                                    "sinusoidal"])
@pytest.mark.parametrize("head_dim", [32, 1024])
def test_a_drag_steps_float32_matrix_is_the_exact_one_to_a_millionth(scheme, head_dim):
    """A drag step's score matrix takes its block phasors in float32 (the angles reduced in float64 first): within
    10⁻⁶ of the largest |ΔS| (drawn as colours: 256 levels), the same cells undefined, and the exact matrix is the
    same before and after one was computed."""
    import dataclasses

    from explorer.encodings.blocks import _FLOAT32
    from explorer.jobs.schemes import MatrixRequest, matrix_scores

    req = MatrixRequest(scheme=scheme, l_eval=16384, head_dim=head_dim, l_train=1024, scaling="yarn", factor=16.0)
    exact = matrix_scores(req).matrix
    preview = matrix_scores(dataclasses.replace(req, preview=True)).matrix
    assert not _FLOAT32.get()  # the job's context ended with it
    np.testing.assert_array_equal(np.isnan(preview), np.isnan(exact))
    scale = np.nanmax(np.abs(exact))
    assert np.nanmax(np.abs(preview - exact)) <= 1e-6 * scale
    assert preview.dtype == np.float64
    np.testing.assert_array_equal(matrix_scores(req).matrix, exact)


def test_a_step_keeps_the_exact_request_of_every_matrix_it_does_not_change():
    import dataclasses

    from explorer.jobs.schemes import MatrixRequest, kept_exact

    exact = {"a": MatrixRequest("rope", 256, key="a"), "b": MatrixRequest("scaled_rope", 256, factor=2.0, key="b")}
    step = [dataclasses.replace(exact["a"], preview=True), dataclasses.replace(exact["b"], factor=3.0, preview=True),
            MatrixRequest("alibi", 256, preview=True, key="c")]
    kept = kept_exact(step, exact.get)
    assert kept[0] is exact["a"] and kept[1] is step[1] and kept[2] is step[2]
    assert kept_exact(step, lambda key: dataclasses.replace(exact[key], preview=True) if key in exact else None) == step
