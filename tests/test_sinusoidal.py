"""Sinusoidal encoding against the formulas, hand-computed values and identities (no Qt)."""

import math

import numpy as np
import pytest

from explorer.encodings import EncodingError, frequencies, rotation, rotation_error, sinusoidal, wavelengths
from explorer.encodings.sinusoidal import column_pair, dot_by_offset, pair_columns


def test_paper_hand_values():
    pe = sinusoidal(3, 4)
    # ω = [1, 10000^(-1/2) = 0.01]
    expected = np.array([
        [0.0, 1.0, 0.0, 1.0],
        [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)],
        [math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)],
    ])
    np.testing.assert_allclose(pe, expected, rtol=0, atol=1e-15)


def test_paper_formula_elementwise():
    d, base = 16, 10000.0
    pe = sinusoidal(50, d, base)
    for p in (0, 7, 49):
        for i in range(d // 2):
            w = base ** (-2 * i / d)
            assert pe[p, 2 * i] == pytest.approx(math.sin(p * w), abs=1e-15)
            assert pe[p, 2 * i + 1] == pytest.approx(math.cos(p * w), abs=1e-15)


def test_halves_is_paper_with_columns_regrouped():
    d = 12
    paper, halves = sinusoidal(40, d, variant="paper"), sinusoidal(40, d, variant="halves")
    np.testing.assert_array_equal(halves[:, : d // 2], paper[:, 0::2])
    np.testing.assert_array_equal(halves[:, d // 2 :], paper[:, 1::2])


def test_t2t_frequencies_end_exactly_at_one_over_base():
    d, base = 64, 10000.0
    w = frequencies(d, base, "t2t")
    assert w[0] == 1.0
    assert w[-1] == pytest.approx(1 / base, rel=1e-14)
    np.testing.assert_allclose(w, base ** (-np.arange(d // 2) / (d // 2 - 1)), rtol=1e-15)
    pe = sinusoidal(10, d, base, "t2t")
    np.testing.assert_allclose(pe[:, : d // 2], np.sin(np.outer(np.arange(10), w)), atol=1e-15)
    np.testing.assert_allclose(pe[:, d // 2 :], np.cos(np.outer(np.arange(10), w)), atol=1e-15)


def test_t2t_differs_from_paper_slowest_frequency():
    # paper: slowest is base^(-(d-2)/d), not 1/base
    assert frequencies(64, 1e4, "paper")[-1] == pytest.approx(1e4 ** (-62 / 64))
    assert frequencies(64, 1e4, "paper")[-1] != pytest.approx(1e-4)


@pytest.mark.parametrize("variant", ["paper", "halves", "t2t"])
def test_pair_zero_is_the_fastest(variant):
    """The direction claim: pair 0 has wavelength 2π; wavelengths grow with i."""
    lam = wavelengths(128, 10000.0, variant)
    assert lam[0] == pytest.approx(2 * math.pi)
    assert np.all(np.diff(lam) > 0)


def test_paper_wavelength_bounds():
    d, base = 128, 10000.0
    lam = wavelengths(d, base)
    assert lam[-1] == pytest.approx(2 * math.pi * base ** ((d - 2) / d))
    ratios = lam[1:] / lam[:-1]
    np.testing.assert_allclose(ratios, base ** (2 / d))


def test_column_pair_mapping():
    pair, is_cos = column_pair(6, "paper")
    assert pair.tolist() == [0, 0, 1, 1, 2, 2]
    assert is_cos.tolist() == [False, True] * 3
    pair, is_cos = column_pair(6, "halves")
    assert pair.tolist() == [0, 1, 2, 0, 1, 2]
    assert pair_columns(1, 6, "halves") == (1, 4)
    assert pair_columns(1, 6, "paper") == (2, 3)


def test_relative_position_is_a_rotation_independent_of_p():
    d = 32
    omega = frequencies(d)
    pe = sinusoidal(200, d)
    k = 13
    for i in (0, 3, 15):
        R = rotation(k, omega[i])
        for p in (0, 50, 186):
            v = pe[p, 2 * i : 2 * i + 2]
            w = pe[p + k, 2 * i : 2 * i + 2]
            np.testing.assert_allclose(R @ v, w, atol=1e-13)
    assert rotation_error(k, d, 200) < 1e-12


def test_dot_product_depends_only_on_offset():
    d = 64
    pe = sinusoidal(300, d)
    g = pe @ pe.T
    for delta in (0, 1, 17, 100):
        diag = np.diagonal(g, offset=delta)
        np.testing.assert_allclose(diag, dot_by_offset([delta], d)[0], atol=1e-10)
    np.testing.assert_allclose(g, g.T)
    assert dot_by_offset([0], d)[0] == pytest.approx(d / 2)


@pytest.mark.parametrize("kwargs", [
    dict(positions=4, d_model=3),
    dict(positions=4, d_model=0),
    dict(positions=0, d_model=4),
    dict(positions=-1, d_model=4),
    dict(positions=4, d_model=4, base=1.0),
    dict(positions=4, d_model=4, base=float("nan")),
    dict(positions=4, d_model=4, base=float("inf")),
    dict(positions=4, d_model=4, variant="bogus"),
    dict(positions=[0, float("nan")], d_model=4),
    dict(positions=10**9, d_model=4096),
])
def test_bad_parameters_raise_encoding_error(kwargs):
    with pytest.raises(EncodingError):
        sinusoidal(**kwargs)


@pytest.mark.parametrize("d,base,l_train,l_eval",
                         [(64, 10000.0, 512, 2048), (16, 500.0, 100, 37), (128, 5e5, 4096, 32768)])
def test_the_beyond_plot_is_the_dot_product_of_table_rows(d, base, l_train, l_eval):
    """The Schemes panel's sinusoidal "beyond training" curve: PE(p)·PE(p+Δ)/(d/2) from the table itself,
    the same at every p, at every distance it draws (up to the larger of L_train and L_eval)."""
    from explorer.jobs.schemes import DistanceRequest
    from explorer.schemes import get

    req = DistanceRequest(scheme="sinusoidal", l_eval=l_eval, head_dim=d, base=base, l_train=l_train)
    spec = get("sinusoidal").beyond_plot(req)
    n = max(l_train, l_eval)
    assert spec.x[0] == 1 and spec.x[-1] <= n - 1 and np.all(np.diff(spec.x) > 0)
    assert spec.marks == ((float(l_train), "L_train"),)
    table = sinusoidal(n + 8, d, base)
    dist = spec.x.astype(int)
    for p in (0, 5):
        ok = dist + p < table.shape[0]
        direct = (table[p] * table[p + dist[ok]]).sum(axis=1) / (d / 2)
        np.testing.assert_allclose(spec.y[ok], direct, atol=1e-9)
