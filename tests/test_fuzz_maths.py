"""Property-based tests over every scheme's parameters, extremes included (issue 10).

Every call either returns finite numbers of the documented shape or raises EncodingError with
a message — never NaN, never another exception type.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.encodings import (
    EncodingError,
    RopeScaling,
    apply_rope,
    frequencies,
    roformer_bound,
    scaled_inv_freq,
    sinusoidal,
    wavelengths,
)
from explorer.schemes.alibi import alibi_bias, alibi_slopes

SETTINGS = settings(max_examples=int(__import__("os").environ.get("PE_FUZZ_EXAMPLES", "150")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

weird_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1.0, 1.0000001, 1.5, 10.0, 1e4, 5e5, 1e7, 1e9, 0.0, -1.0, math.nan, math.inf]),
)
dims = st.one_of(st.integers(-4, 4100), st.sampled_from([2, 4, 4096, 4097, 0, -2]))
counts = st.one_of(st.integers(-3, 3000), st.sampled_from([1, 131072, 10**9]))


def finite_or_error(fn, *args, **kwargs):
    try:
        out = fn(*args, **kwargs)
    except EncodingError as exc:
        assert str(exc), "error without a message"
        return None
    arr = np.asarray(out[0] if isinstance(out, tuple) else out)
    return arr


@SETTINGS
@given(d=dims, base=weird_floats, variant=st.sampled_from(["paper", "halves", "t2t", "x"]))
def test_frequencies(d, base, variant):
    arr = finite_or_error(frequencies, d, base, variant)
    if arr is not None:
        assert arr.shape == (d // 2,)
        assert np.all(np.isfinite(arr)) and np.all(arr > 0) and arr[0] == 1.0
        lam = wavelengths(d, base, variant)
        assert np.all(np.diff(lam) >= 0)


@SETTINGS
@given(n=st.integers(-2, 400), d=st.one_of(st.integers(-2, 64), st.just(4096)), base=weird_floats,
       variant=st.sampled_from(["paper", "halves", "t2t"]))
def test_sinusoidal(n, d, base, variant):
    arr = finite_or_error(sinusoidal, n, d, base, variant)
    if arr is not None:
        assert arr.shape == (n, d)
        assert np.all(np.isfinite(arr)) and np.abs(arr).max() <= 1.0


@SETTINGS
@given(n=counts, d=dims)
def test_sinusoidal_size_limits_refuse_before_allocating(n, d):
    if n * max(d, 0) > 2**27 and n >= 1 and d >= 2 and d % 2 == 0:
        with pytest.raises(EncodingError, match="too large"):
            sinusoidal(n, d)


@SETTINGS
@given(kind=st.sampled_from(["none", "linear", "ntk", "yarn", "llama3"]),
       s=st.one_of(weird_floats, st.sampled_from([1.0, 64.0, 1.0001])),
       d=st.one_of(st.integers(-2, 300), st.sampled_from([2, 4096])), base=weird_floats,
       L=st.one_of(st.integers(-1, 10**6), st.just(1)))
def test_scaled_rope_frequencies(kind, s, d, base, L):
    try:
        sc = RopeScaling(kind, s, L)
    except EncodingError:
        return
    arr = finite_or_error(scaled_inv_freq, d, base, sc)
    if arr is not None:
        assert arr.shape == (d // 2,)
        assert np.all(np.isfinite(arr)) and np.all(arr > 0)
        f, att = scaled_inv_freq(d, base, sc)
        assert math.isfinite(att) and att >= 1.0
        # scaling never speeds a pair up, and slows none by more than s
        f0, _ = scaled_inv_freq(d, base, RopeScaling())
        assert np.all(f <= f0 * (1 + 1e-12)) and np.all(f >= f0 / sc.factor * (1 - 1e-12))


@SETTINGS
@given(n=st.integers(1, 20), d=st.sampled_from([2, 4, 6, 64]), offset=st.one_of(weird_floats, st.just(1e6)),
       kind=st.sampled_from(["none", "linear", "ntk", "yarn", "llama3"]), s=st.sampled_from([1.0, 4.0, 64.0]),
       conv=st.sampled_from(["interleaved", "halves"]))
def test_apply_rope(n, d, offset, kind, s, conv):
    x = np.random.default_rng(n).standard_normal((n, d))
    try:
        sc = RopeScaling(kind, s, 64)
        out = apply_rope(x, base=1e4, convention=conv, scaling=sc, offset=offset)
    except EncodingError:
        return
    assert out.shape == x.shape and np.all(np.isfinite(out))
    _, att = scaled_inv_freq(d, 1e4, sc)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), att * np.linalg.norm(x, axis=1), rtol=1e-9)


@SETTINGS
@given(h=st.one_of(st.integers(-1, 300), st.just(4096), st.just(4097)))
def test_alibi_slopes(h):
    arr = finite_or_error(alibi_slopes, h)
    if arr is not None:
        assert arr.shape == (h,)
        assert np.all(arr > 0) and np.all(arr < 1) and len(set(arr.tolist())) == h


@SETTINGS
@given(h=st.integers(-1, 12), n=st.integers(-1, 40), mode=st.sampled_from(["causal", "symmetric", "bad"]))
def test_alibi_bias(h, n, mode):
    arr = finite_or_error(alibi_bias, h, n, mode)
    if arr is not None:
        assert arr.shape == (h, n, n)
        assert not np.isnan(arr).any()
        lower = np.tril(np.ones((n, n), bool))
        assert np.all(np.isfinite(arr[:, lower]))
        if mode == "causal":
            assert np.all(arr[:, ~lower] == -np.inf)


@SETTINGS
@given(d=st.sampled_from([2, 4, 128, 4096]), r=st.lists(st.floats(0, 1e6), min_size=1, max_size=5))
def test_roformer_bound(d, r):
    b = roformer_bound(np.array(r), d)
    assert np.all(np.isfinite(b)) and np.all(b >= 0) and np.all(b <= (d // 2 + 1) / 2 + 1e-9)
