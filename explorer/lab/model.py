"""A tiny causal transformer with a pluggable positional scheme (torch; imported lazily by the runner).

Pre-LayerNorm decoder blocks (attention, then a 4×-wide GELU MLP, each with a residual), a final
LayerNorm and a linear read-out.  Position enters in exactly one place per scheme:

``nope``        nothing — only the causal mask (Kazemnejad et al. 2023; Haviv et al. 2022 show a causal
                model can still infer position from it).
``sinusoidal``  PE(p) (Vaswani et al. 2017, §3.5, the "paper" layout from
                :func:`explorer.encodings.sinusoidal`) added to the token embedding.
``learned``     a trained ``nn.Embedding(L_train, d)`` added to the token embedding: there is no row for a
                position ≥ L_train, so longer inputs raise :class:`~explorer.lab.results.CannotRun`.
``rope``        each head's q and k rotated by m·θ_i, θ_i = 10000^(−2i/d_head), interleaved pairs (Su et
                al. 2021) — the same maths as :func:`explorer.encodings.apply_rope`, in float32 torch.
``alibi``       −m_h·(i − j) added to head h's scaled scores (Press et al. 2022), slopes and bias from
                :func:`explorer.encodings.alibi_bias`.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..encodings.alibi import alibi_bias
from ..encodings.learned import check_rows
from ..encodings.rope import inv_freq
from ..encodings.sinusoidal import sinusoidal
from .results import SCHEMES, CannotRun, LabError

ROPE_BASE = 10000.0


def rope_rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate interleaved pairs of the last axis: (a, b) → (a cos − b sin, a sin + b cos).

    ``x`` is (..., L, d_head); ``cos``/``sin`` are (L, d_head/2) of the angles m·θ_i.  This is
    :func:`explorer.encodings.rope.apply_rope` with ``convention="interleaved"`` (tested against it).
    """
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)


def rope_tables(length: int, head_dim: int, device=None,
                dtype=torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of m·θ_i for m = 0 … length−1, each (length, head_dim/2), computed in float64."""
    ang = np.multiply.outer(np.arange(length, dtype=np.float64), inv_freq(head_dim, ROPE_BASE))
    return (torch.tensor(np.cos(ang), dtype=dtype, device=device),
            torch.tensor(np.sin(ang), dtype=dtype, device=device))


class Block(nn.Module):
    """Pre-LN decoder block: x + Attn(LN(x)), then x + MLP(LN(x))."""

    def __init__(self, d_model: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x: torch.Tensor, rope=None, bias: torch.Tensor | None = None) -> torch.Tensor:
        b, n, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
        if rope is not None:
            q, k = rope_rotate(q, *rope), rope_rotate(k, *rope)
        if bias is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            # bias already holds −inf above the diagonal (causal) — SDPA adds it to q·k/√d_head.
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        x = x + self.proj(y.transpose(1, 2).reshape(b, n, d))
        return x + self.mlp(self.ln2(x))


class TinyTransformer(nn.Module):
    """Token embedding (+ positional scheme), ``layers`` causal blocks, LayerNorm, linear read-out."""

    def __init__(self, scheme: str, *, vocab: int, d_model: int, heads: int, layers: int,
                 train_len: int) -> None:
        super().__init__()
        if scheme not in SCHEMES:
            raise LabError(f"unknown scheme {scheme!r}; valid: {', '.join(SCHEMES)}")
        self.scheme = scheme
        self.d_model = d_model
        self.heads = heads
        self.train_len = train_len
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(train_len, d_model) if scheme == "learned" else None
        self.blocks = nn.ModuleList(Block(d_model, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)
        # Position tables depend only on the length: built once per length, not every step.
        self._cache: dict[tuple, object] = {}

    def _cached(self, kind: str, n: int, device, build):
        key = (kind, n, str(device))
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def check_length(self, n: int) -> None:
        """Raise :class:`CannotRun` if this model has no encoding for some position < n."""
        if self.scheme == "learned" and n > self.train_len:
            try:
                check_rows(np.array([n - 1]), self.train_len)
            except ValueError as exc:
                raise CannotRun(str(exc)) from None

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Logits (batch, L, vocab) for tokens ``idx`` (batch, L); row t predicts token t + 1."""
        n = idx.shape[1]
        self.check_length(n)
        dev = idx.device
        x = self.embed(idx)
        rope = bias = None
        if self.scheme == "sinusoidal":
            x = x + self._cached("sin", n, dev, lambda: torch.tensor(sinusoidal(n, self.d_model),
                                                                      dtype=x.dtype, device=dev))
        elif self.scheme == "learned":
            x = x + self.pos(torch.arange(n, device=dev))
        elif self.scheme == "rope":
            hd = self.d_model // self.heads
            rope = self._cached("rope", n, dev, lambda: rope_tables(n, hd, dev, x.dtype))
        elif self.scheme == "alibi":
            bias = self._cached("alibi", n, dev, lambda: torch.tensor(alibi_bias(self.heads, n, "causal"),
                                                                       dtype=x.dtype, device=dev))
        for blk in self.blocks:
            x = blk(x, rope, bias)
        return self.head(self.ln(x))
