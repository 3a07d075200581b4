"""RoPE and its scaling methods against formulas, hand values and independent re-implementations."""

import math

import numpy as np
import pytest

from explorer.encodings import (
    EncodingError,
    RopeScaling,
    apply_rope,
    halves_to_interleaved,
    inv_freq,
    llama3_band_edges,
    roformer_bound,
    rope_scores,
    scaled_inv_freq,
    score_by_distance,
    yarn_attention_factor,
    yarn_correction_range,
)


def test_inv_freq_formula():
    d, base = 8, 10000.0
    np.testing.assert_allclose(inv_freq(d, base), [1.0, 10.0**-1, 10.0**-2, 10.0**-3], rtol=1e-15)


def test_interleaved_hand_rotation():
    x = np.array([[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0]])
    out = apply_rope(x, base=10000.0)
    # row 0 is position 0: unchanged
    np.testing.assert_allclose(out[0], x[0])
    # row 1, pair 0 rotated by 1 rad; pair 1 by 0.01 rad: (0,1) -> (-sin, cos)
    np.testing.assert_allclose(out[1], [math.cos(1), math.sin(1), -math.sin(0.01), math.cos(0.01)], atol=1e-15)


def test_halves_matches_hf_rotate_half():
    rng = np.random.default_rng(1)
    n, d = 7, 8
    x = rng.standard_normal((n, d))
    theta = inv_freq(d)
    ang = np.outer(np.arange(n), theta)
    emb = np.concatenate([ang, ang], axis=-1)  # HF: cat(freqs, freqs)
    rot_half = np.concatenate([-x[:, d // 2 :], x[:, : d // 2]], axis=-1)
    hf = x * np.cos(emb) + rot_half * np.sin(emb)
    np.testing.assert_allclose(apply_rope(x, convention="halves"), hf, atol=1e-14)


def test_conventions_give_same_scores_after_permutation():
    rng = np.random.default_rng(2)
    n, d = 12, 16
    q, k = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    perm = halves_to_interleaved(d)
    s_half = rope_scores(q, k, convention="halves")
    s_int = rope_scores(q[:, perm], k[:, perm], convention="interleaved")
    np.testing.assert_allclose(s_half, s_int, atol=1e-12)


def test_scores_depend_only_on_relative_position():
    rng = np.random.default_rng(3)
    d = 32
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    n = 40
    s = rope_scores(np.tile(q, (n, 1)), np.tile(k, (n, 1)))
    for delta in (-7, 0, 5, 30):
        diag = np.diagonal(s, offset=-delta)  # entries with m - n = delta
        np.testing.assert_allclose(diag, diag[0], atol=1e-10)
        assert score_by_distance([delta], q, k)[0] == pytest.approx(diag[0], abs=1e-10)


def test_rotation_preserves_norms():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((50, 64))
    np.testing.assert_allclose(np.linalg.norm(apply_rope(x, offset=1000), axis=1), np.linalg.norm(x, axis=1))


def test_offset_shifts_positions():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 8))
    a = apply_rope(x, offset=3)
    b = apply_rope(np.vstack([np.zeros((3, 8)), x]))[3:]
    np.testing.assert_allclose(a, b, atol=1e-13)


# -- scaling ---------------------------------------------------------------------------------------
def test_linear_is_position_interpolation():
    d, s = 16, 4.0
    f, att = scaled_inv_freq(d, 10000.0, RopeScaling("linear", s))
    np.testing.assert_allclose(f, inv_freq(d) / s)
    assert att == 1.0
    x = np.random.default_rng(0).standard_normal((9, d))
    a = apply_rope(x, positions=np.arange(9) * 4.0, scaling=RopeScaling("linear", s))
    b = apply_rope(x, positions=np.arange(9.0))
    np.testing.assert_allclose(a, b, atol=1e-13)


def test_ntk_changes_the_base():
    d, s, base = 64, 8.0, 10000.0
    f, _ = scaled_inv_freq(d, base, RopeScaling("ntk", s))
    np.testing.assert_allclose(f, inv_freq(d, base * s ** (d / (d - 2))), rtol=1e-14)
    # pair 0 untouched, the slowest pair slowed by exactly s
    assert f[0] == 1.0
    assert f[-1] == pytest.approx(inv_freq(d, base)[-1] / s, rel=1e-12)


def _hf_yarn(d, base, s, L, beta_fast=32, beta_slow=1):
    """Independent transcription of transformers' _compute_yarn_parameters (truncate=True)."""
    def corr_dim(rot):
        return (d * math.log(L / (rot * 2 * math.pi))) / (2 * math.log(base))
    low = max(math.floor(corr_dim(beta_fast)), 0)
    high = min(math.ceil(corr_dim(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    pos_freqs = base ** (np.arange(0, d, 2) / d)
    extrap = 1.0 / pos_freqs
    interp = 1.0 / (s * pos_freqs)
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    extrap_factor = 1 - ramp
    inv = interp * (1 - extrap_factor) + extrap * extrap_factor
    return inv, 0.1 * math.log(s) + 1.0, (low, high)


@pytest.mark.parametrize("d,base,s,L", [(128, 10000.0, 4.0, 4096), (64, 500000.0, 16.0, 8192),
                                        (32, 10000.0, 2.0, 2048)])
def test_yarn_matches_transformers(d, base, s, L):
    sc = RopeScaling("yarn", s, L)
    f, att = scaled_inv_freq(d, base, sc)
    ref, ref_att, (lo, hi) = _hf_yarn(d, base, s, L)
    np.testing.assert_allclose(f, ref, rtol=1e-14)
    assert att == pytest.approx(ref_att)
    assert yarn_correction_range(d, base, sc) == (float(lo), float(min(hi, d - 1)))
    # fast pairs kept (extrapolated), slow pairs interpolated by exactly s
    assert f[0] == 1.0
    assert f[-1] == pytest.approx(inv_freq(d, base)[-1] / s)


def test_yarn_attention_factor_multiplies_cos_and_sin():
    x = np.ones((3, 8))
    s = 8.0
    y = apply_rope(x, scaling=RopeScaling("yarn", s, 2048))
    np.testing.assert_allclose(np.linalg.norm(y, axis=1), np.linalg.norm(x, axis=1) * (0.1 * math.log(s) + 1))
    assert yarn_attention_factor(1.0) == 1.0


def _hf_llama3(d, base, s, L, lo=1.0, hi=4.0):
    inv = 1.0 / base ** (np.arange(0, d, 2) / d)
    low_wl, high_wl = L / lo, L / hi
    wl = 2 * math.pi / inv
    out = np.where(wl > low_wl, inv / s, inv)
    smooth = (L / wl - lo) / (hi - lo)
    smoothed = (1 - smooth) * out / s + smooth * out
    medium = ~(wl < high_wl) * ~(wl > low_wl)
    return np.where(medium, smoothed, out)


def test_llama3_matches_transformers():
    d, base, s, L = 128, 500000.0, 8.0, 8192
    sc = RopeScaling("llama3", s, L)
    f, att = scaled_inv_freq(d, base, sc)
    np.testing.assert_allclose(f, _hf_llama3(d, base, s, L), rtol=1e-14)
    assert att == 1.0
    assert llama3_band_edges(sc) == (2048.0, 8192.0)
    wl = 2 * math.pi / inv_freq(d, base)
    np.testing.assert_allclose(f[wl < 2048], inv_freq(d, base)[wl < 2048])
    np.testing.assert_allclose(f[wl > 8192], inv_freq(d, base)[wl > 8192] / s)


def test_roformer_bound_small_case_by_hand():
    d = 4
    theta = inv_freq(d)
    r = 3.0
    s1 = abs(np.exp(1j * r * theta[0]))
    s2 = abs(np.exp(1j * r * theta[0]) + np.exp(1j * r * theta[1]))
    assert roformer_bound([r], d)[0] == pytest.approx((s1 + s2) / 2)
    # at r = 0 every partial sum is j, so the bound is mean(1..d/2)
    assert roformer_bound([0.0], 128)[0] == pytest.approx(np.mean(np.arange(1, 65)))


def test_roformer_bound_decays():
    b = roformer_bound(np.array([0, 10, 100, 1000]), 128)
    assert b[0] > b[1] > b[2] > b[3]


@pytest.mark.parametrize("kwargs", [
    dict(kind="bogus"), dict(kind="linear", factor=0.5), dict(kind="yarn", factor=float("nan")),
    dict(kind="ntk", factor=float("inf")), dict(kind="llama3", low_freq_factor=4, high_freq_factor=1),
    dict(kind="yarn", original_max_positions=0),
])
def test_bad_scaling_raises(kwargs):
    with pytest.raises(EncodingError):
        RopeScaling(**kwargs)


def test_bad_inputs_raise():
    with pytest.raises(EncodingError):
        apply_rope(np.ones((3, 5)))  # odd width
    with pytest.raises(EncodingError):
        apply_rope(np.array([[np.nan, 1.0]]))
    with pytest.raises(EncodingError):
        apply_rope(np.ones((2, 4)), convention="sideways")
    with pytest.raises(EncodingError):
        inv_freq(8, base=0.5)
    with pytest.raises(EncodingError):
        scaled_inv_freq(2, 10000.0, RopeScaling("ntk", 2.0))


def test_the_roformer_bound_keeps_the_shape_of_its_distances():
    grid = np.arange(6.0).reshape(2, 3)
    assert roformer_bound(grid, 8).shape == (2, 3)
    np.testing.assert_array_equal(roformer_bound(grid, 8).ravel(), roformer_bound(grid.ravel(), 8))
    assert float(roformer_bound(5.0, 8)) == roformer_bound([5.0], 8)[0]
