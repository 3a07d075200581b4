"""ALiBi slopes and biases, the learned table, NoPE and attention."""

import numpy as np
import pytest

from explorer.encodings import EncodingError
from explorer.encodings.attention import attention
from explorer.encodings.learned import LearnedTable, learned_table
from explorer.schemes.alibi import alibi_bias, alibi_slopes
from explorer.schemes.nope import nope


def test_alibi_slopes_eight_heads():
    np.testing.assert_array_equal(alibi_slopes(8), [1 / 2**k for k in range(1, 9)])


def test_alibi_slopes_power_of_two_formula():
    for n in (1, 2, 4, 16, 32):
        np.testing.assert_allclose(alibi_slopes(n), [2 ** (-8 * k / n) for k in range(1, n + 1)])


def _paper_get_slopes(n):
    # The ALiBi paper's reference implementation (Press et al. 2022, get_slopes).
    import math

    def pow2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return pow2(n)
    closest = 2 ** math.floor(math.log2(n))
    return pow2(closest) + _paper_get_slopes(2 * closest)[0::2][: n - closest]


@pytest.mark.parametrize("n", [3, 5, 6, 7, 12, 20, 24, 40])
def test_alibi_slopes_non_powers_of_two_follow_the_paper(n):
    np.testing.assert_allclose(alibi_slopes(n), _paper_get_slopes(n), rtol=1e-15)


def test_alibi_six_heads_is_not_first_six_of_eight():
    assert not np.allclose(alibi_slopes(6), alibi_slopes(8)[:6])
    np.testing.assert_allclose(alibi_slopes(6), [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8])


def test_alibi_bias_causal_and_symmetric():
    b = alibi_bias(2, 4)
    m = alibi_slopes(2)
    assert b.shape == (2, 4, 4)
    for h in range(2):
        for i in range(4):
            for j in range(4):
                if j <= i:
                    assert b[h, i, j] == -m[h] * (i - j)
                else:
                    assert b[h, i, j] == -np.inf
    s = alibi_bias(2, 4, "symmetric")
    np.testing.assert_allclose(s, np.transpose(s, (0, 2, 1)))
    assert np.isfinite(s).all()
    # relative: depends only on i - j
    assert s[0, 3, 1] == s[0, 2, 0]


def test_alibi_errors():
    with pytest.raises(EncodingError):
        alibi_slopes(0)
    with pytest.raises(EncodingError):
        alibi_bias(2, 4, "future")
    with pytest.raises(EncodingError, match="too large"):
        alibi_bias(64, 100000)


def test_learned_table_is_an_embedding_and_reproducible():
    t1 = LearnedTable(16, 8, seed=3)
    t2 = LearnedTable(16, 8, seed=3)
    import torch

    assert isinstance(t1.embedding, torch.nn.Embedding)
    assert t1.embedding.weight.shape == (16, 8)
    np.testing.assert_array_equal(t1.lookup(16), t2.lookup(16))
    assert not np.array_equal(t1.lookup(4), LearnedTable(16, 8, seed=4).lookup(4))
    np.testing.assert_array_equal(t1.lookup([5, 2]), t1.embedding.weight.detach().numpy()[[5, 2]])


def test_learned_table_refuses_missing_rows_naming_the_limit():
    with pytest.raises(EncodingError, match="only 16 rows"):
        LearnedTable(16, 8).lookup([3, 16])
    with pytest.raises(EncodingError, match="only 4 rows"):
        learned_table(4, 5, 8)


def test_nope_adds_nothing():
    assert not nope(5, 4).any()
    assert nope(5, 4).shape == (5, 4)


def test_attention_matches_formula():
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((5, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 3))
    res = attention(q, k, v)
    s = q @ k.T / 2.0
    w = np.exp(s - s.max(1, keepdims=True))
    w /= w.sum(1, keepdims=True)
    np.testing.assert_allclose(res.weights, w, atol=1e-14)
    np.testing.assert_allclose(res.outputs, w @ v, atol=1e-14)


def test_attention_matches_torch_sdpa():
    import torch

    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((2, 6, 8)) for _ in range(3))
    bias = alibi_bias(2, 6)
    ours = attention(q, k, v, bias=bias)
    ref = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(x) for x in (q, k, v)), attn_mask=torch.from_numpy(bias))
    np.testing.assert_allclose(ours.outputs, ref.numpy(), atol=1e-12)
    ours_c = attention(q, k, v, causal=True)
    ref_c = torch.nn.functional.scaled_dot_product_attention(*(torch.from_numpy(x) for x in (q, k, v)), is_causal=True)
    np.testing.assert_allclose(ours_c.outputs, ref_c.numpy(), atol=1e-12)


def test_mask_before_and_after_softmax_row_sums():
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((6, 4)) for _ in range(3))
    good = attention(q, k, v, causal=True)
    np.testing.assert_allclose(good.weights.sum(-1), 1.0)
    assert np.all(np.triu(good.weights, 1) == 0)
    bad = attention(q, k, v, causal=True, mask_after_softmax=True)
    sums = bad.weights.sum(-1)
    assert np.all(sums[:-1] < 1 - 1e-6) and sums[-1] == pytest.approx(1.0)


def test_attention_errors():
    with pytest.raises(EncodingError):
        attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 3)))
    with pytest.raises(EncodingError):
        attention(np.full((2, 2), np.nan), np.ones((2, 2)), np.ones((2, 2)))


def test_attention_refuses_what_has_no_weights():
    q = np.ones((3, 2))
    masked = np.zeros((3, 3))
    masked[1] = -np.inf  # every key of query 1 masked
    with pytest.raises(EncodingError, match="fully masked"):
        attention(q, q, q, bias=masked)
    with pytest.raises(EncodingError, match="fully masked"):  # scores past float64: ±inf, then NaN
        attention(np.full((2, 2), 1e200), np.full((2, 2), 1e200), np.ones((2, 2)))
    with pytest.raises(EncodingError, match="at least one key"):
        attention(q, np.zeros((0, 2)), np.zeros((0, 2)))
    partly = np.zeros((3, 3))
    partly[1, :2] = -np.inf  # one key left: all its weight goes there
    np.testing.assert_array_equal(attention(q, q, q, bias=partly).weights[1], [0.0, 0.0, 1.0])
