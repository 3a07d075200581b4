"""The why-sinusoids scorecard: each number against its closed form or an independent construction."""

import math

import numpy as np
import pytest

from explorer.encodings import candidates as c
from explorer.encodings.errors import EncodingError
from explorer.encodings.sinusoidal import sinusoidal


@pytest.fixture(scope="module")
def card():
    return c.scorecard(d=64, n_values=(64, 1024, 131072), offset=8)


def test_sinusoidal_candidate_is_the_papers_table():
    p = np.arange(300)
    np.testing.assert_array_equal(c.encode("sinusoidal", p, 300, 32), sinusoidal(p, 32, 10000.0, "paper"))


def test_binary_digits_least_significant_first():
    rows = c.encode("binary", [0, 1, 6, 2**40 + 3], 8, 8)
    assert rows[1].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    assert rows[2].tolist() == [0, 1, 1, 0, 0, 0, 0, 0]
    assert c.encode("binary", [2**40 + 3], 8, 64)[0, [0, 1, 2, 40, 41]].tolist() == [1, 1, 0, 1, 0]


def test_bounded(card):
    integer, fraction, binary, sin = (card.row(k) for k in c.CANDIDATES)
    assert integer.bounded_max == {64: 63.0, 1024: 1023.0, 131072: 131071.0}
    assert integer.bounded_ratio[131072] == pytest.approx(131071.0)  # (N−1)·√d / √d
    assert fraction.bounded_max[64] == 63 / 64
    assert sin.bounded_max == {64: 1.0, 1024: 1.0, 131072: 1.0}
    # every pair has sin² + cos² = 1, so ‖PE(p)‖ = √(d/2) at every p: ratio 1/√2 whatever N
    assert all(v == pytest.approx(1 / math.sqrt(2), abs=1e-12) for v in sin.bounded_ratio.values())
    # binary: the most ones below 131072 is 17 (p = 131071): √17 / 8
    assert binary.bounded_ratio[131072] == pytest.approx(math.sqrt(17) / 8)
    assert [card.passes(k)["bounded"] for k in c.CANDIDATES] == [False, True, True, True]


def test_consistent(card):
    # p/N for p = 63 changes from 63/64 to 63/131072: the largest change over p < 64
    assert card.row("fraction").consistent == pytest.approx(63 / 64 - 63 / 131072)
    assert [card.passes(k)["consistent"] for k in c.CANDIDATES] == [True, False, True, True]


def test_unique(card):
    assert all(card.row(k).unique == 131072 for k in c.CANDIDATES)
    # 16 binary digits tell apart only 2^16 of the 131072 positions
    small = c.scorecard(d=16, n_values=(64, 131072))
    assert small.row("binary").unique == 65536 and not small.passes("binary")["unique"]
    assert small.passes("sinusoidal")["unique"]


def test_smooth(card):
    # 65535 → 65536 flips 17 digits: a step of √17 against the one-digit steps
    assert card.row("binary").smooth == pytest.approx(math.sqrt(17))
    for k in ("integer", "fraction", "sinusoidal"):  # every step has the same length
        assert card.row(k).smooth == pytest.approx(1.0, abs=1e-9)
    assert [card.passes(k)["smooth"] for k in c.CANDIDATES] == [True, True, False, True]


def test_linear_map(card):
    assert card.row("sinusoidal").linear_residual < 1e-12
    for k in ("integer", "fraction", "binary"):
        assert card.row(k).linear_residual > 1e-3
    assert [card.passes(k)["linear"] for k in c.CANDIDATES] == [False, False, False, True]


def test_linear_map_is_the_rotation_per_pair():
    """The fitted M_k does what the explicit block rotation does (an independent construction)."""
    d, k, n = 16, 5, 400
    pe = c.encode("sinusoidal", np.arange(n), n, d)
    omega = 10000.0 ** (-2.0 * np.arange(d // 2) / d)
    rot = np.zeros((d, d))
    for i, w in enumerate(omega):  # [sin(a+b), cos(a+b)] = [[cos b, sin b], [−sin b, cos b]] · [sin a, cos a]
        rot[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[math.cos(k * w), math.sin(k * w)],
                                                 [-math.sin(k * w), math.cos(k * w)]]
    np.testing.assert_allclose(pe[:-k] @ rot.T, pe[k:], atol=1e-12)
    assert c.linear_map_residual(pe, k) < 1e-13


def test_integer_residual_matches_the_closed_form():
    """Fitting p + k by c·p (all components equal) leaves the least-squares residual of a line through 0."""
    n, k = 200, 8
    p = np.arange(n - k, dtype=float)
    y = p + k
    coef = (p @ y) / (p @ p)
    expect = np.linalg.norm(coef * p - y) / np.linalg.norm(y)
    got = c.linear_map_residual(c.encode("integer", np.arange(n), n, 4), k)
    assert got == pytest.approx(expect, rel=1e-9)


def test_as_dict_is_json_ready(card):
    import json

    doc = json.loads(json.dumps(card.as_dict()))
    assert [r["kind"] for r in doc["rows"]] == list(c.CANDIDATES)
    assert doc["rows"][3]["passes"] == {p: True for p in c.PROPERTIES}


@pytest.mark.parametrize("kwargs", [
    dict(d=63), dict(d=0), dict(d=-4), dict(n_values=()), dict(n_values=(1,)), dict(base=float("nan")),
    dict(d=4096, n_values=(10**6,)), dict(n_values=(10**400,)), dict(offset=0), dict(offset=10**6),
])
def test_bad_input_is_one_clear_error(kwargs):
    with pytest.raises(EncodingError):
        c.scorecard(**kwargs)


def test_unknown_candidate():
    with pytest.raises(EncodingError, match="candidate must be one of"):
        c.encode("unary", [0], 4, 4)
