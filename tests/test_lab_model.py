"""The Lab's tiny transformer: each positional scheme does exactly what explorer.encodings says (torch)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from explorer.encodings import apply_rope, inv_freq, sinusoidal  # noqa: E402
from explorer.encodings.rotary import pair_tables  # noqa: E402
from explorer.lab import SCHEMES, CannotRun, LabError  # noqa: E402
from explorer.lab.model import Block, TinyTransformer, rope_rotate  # noqa: E402
from explorer.schemes.alibi import alibi_bias  # noqa: E402


def _model(scheme, train_len=8, seed=0):
    torch.manual_seed(seed)
    return TinyTransformer(scheme, vocab=8, d_model=32, heads=4, layers=2, train_len=train_len).eval()


def test_rope_rotate_is_apply_rope_interleaved():
    x = np.random.default_rng(0).normal(size=(13, 16))
    cos, sin = pair_tables(inv_freq(16), 13, dtype=torch.float64)
    got = rope_rotate(torch.from_numpy(x), cos, sin).numpy()
    np.testing.assert_allclose(got, apply_rope(x, convention="interleaved"), rtol=0, atol=1e-12)


def test_rope_scores_depend_only_on_the_offset():
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=8), rng.normal(size=8)
    cos, sin = pair_tables(inv_freq(8), 40, dtype=torch.float64)
    qs = rope_rotate(torch.from_numpy(np.tile(q, (40, 1))), cos, sin)
    ks = rope_rotate(torch.from_numpy(np.tile(k, (40, 1))), cos, sin)
    s = (qs @ ks.T).numpy()
    for off in (0, 3, 17):
        diag = np.diagonal(s, offset=-off)  # query m, key m − off
        np.testing.assert_allclose(diag, diag[0], atol=1e-12)


def test_alibi_block_equals_softmax_with_the_encodings_bias():
    torch.manual_seed(0)
    blk = Block(16, 4).double().eval()
    x = torch.randn(2, 9, 16, dtype=torch.float64)
    bias = torch.from_numpy(alibi_bias(4, 9, "causal"))
    got = blk(x, None, bias)
    # By hand: scores/√d_head + bias, softmax, weighted values, projection, then the MLP.
    h = blk.ln1(x)
    q, k, v = blk.qkv(h).view(2, 9, 3, 4, 4).permute(2, 0, 3, 1, 4)
    w = torch.softmax(q @ k.transpose(-1, -2) / 2.0 + bias, dim=-1)
    assert torch.all(w.triu(1) == 0)  # the future gets no weight
    y = x + blk.proj((w @ v).transpose(1, 2).reshape(2, 9, 16))
    want = y + blk.mlp(blk.ln2(y))
    torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)


def test_the_model_uses_the_encodings_tables():
    m = _model("sinusoidal")
    m(torch.zeros(1, 10, dtype=torch.long))
    np.testing.assert_allclose(m.position._cache[("sin", 10, "cpu")].numpy(), sinusoidal(10, 32), atol=1e-6)
    m = _model("alibi")
    m(torch.zeros(1, 6, dtype=torch.long))
    np.testing.assert_array_equal(m.position._cache[("alibi", 6, "cpu")].numpy(), alibi_bias(4, 6).astype(np.float32))
    m = _model("learned", train_len=8)
    assert m.position.table.weight.shape == (8, 32)


def test_learned_cannot_run_past_its_table():
    m = _model("learned", train_len=8)
    m(torch.zeros(2, 8, dtype=torch.long))  # 8 positions: rows 0 … 7, fine
    with pytest.raises(CannotRun, match="only 8 rows"):
        m(torch.zeros(2, 9, dtype=torch.long))
    for scheme in ("nope", "sinusoidal", "rope", "alibi"):
        assert _model(scheme)(torch.zeros(1, 64, dtype=torch.long)).shape == (1, 64, 8)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_causal_prefix_invariance(scheme):
    """What the runner relies on: a prediction at t depends only on tokens 0 … t, so one pass at the
    longest length gives every shorter length's predictions."""
    m = _model(scheme, train_len=16)
    x = torch.randint(0, 8, (3, 16), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        full = m(x)
        for n in (2, 7, 12):
            torch.testing.assert_close(m(x[:, :n]), full[:, :n], rtol=1e-5, atol=1e-5)


def test_unknown_scheme():
    with pytest.raises(LabError, match="unknown scheme"):
        TinyTransformer("no_such_scheme", vocab=4, d_model=8, heads=1, layers=1, train_len=4)
