"""A tiny causal transformer with a pluggable positional scheme (torch; imported lazily by the runner).

Pre-LayerNorm decoder blocks (attention, then a 4×-wide GELU MLP, each with a residual), a final
LayerNorm and a linear read-out.  Position enters where the scheme's Lab module puts it (see
:meth:`explorer.schemes.Scheme.lab_module`): added to the token embedding (sinusoidal, learned), rotating
each head's q and k (RoPE, interleaved pairs, the same maths as :func:`explorer.encodings.apply_rope` in
float32 torch), a bias on the scaled scores (ALiBi, T5, Kerple; per layer: FIRE), a term of the queries
and keys inside the score (Shaw, Transformer-XL; Shaw also adds to the values, so its attention weights
are computed explicitly), or nowhere (NoPE: only the causal mask; Kazemnejad et al. 2023; Haviv et al.
2022 show a causal model can still infer position from it).
A scheme with no encoding for some position (the learned table past its last row) raises
:class:`~explorer.lab.results.CannotRun`.

On the grid task the tokens are the cells of a grid ``width`` wide in raster order: a scheme's module that has
``grid_rotary(n, width, head_dim, device, dtype)`` (the 2-D rotary schemes) places them by (x, y); every other
scheme sees the flattened index, as a ViT with 1-D positions over its patches does.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .. import schemes as registry
from ..encodings.errors import EncodingError
from ..schemes import NoEncoding
from .results import CannotRun, LabError, LengthResult


def rope_rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate interleaved pairs of the last axis: (a, b) → (a cos − b sin, a sin + b cos).

    ``x`` is (..., L, d_head); ``cos``/``sin`` are (L, d_head/2) of the angles m·θ_i.  This is
    :func:`explorer.encodings.rope.apply_rope` with ``convention="interleaved"`` (tested against it).
    """
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)


def _causal_mask(n: int, device, dtype) -> torch.Tensor:
    """(n, n): 0 on and below the diagonal, −inf above (a key after its query)."""
    return torch.full((n, n), float("-inf"), device=device, dtype=dtype).triu(1)


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

    def forward(self, x: torch.Tensor, rope=None, bias: torch.Tensor | None = None, position=None,
                layer: int = 0) -> torch.Tensor:
        b, n, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
        if rope is not None:  # (cos, sin), or (cos_q, sin_q, cos_k, sin_k) when keys turn differently (xPos)
            q, k = rope_rotate(q, *rope[:2]), rope_rotate(k, *rope[-2:])
        # A relative key term of the scheme (Shaw's a^K, Transformer-XL's (b)–(d)): added to the scaled scores.
        extra = None if position is None else position.score_extra(layer, q, k)
        if extra is not None:
            bias = extra + (bias if bias is not None else _causal_mask(n, x.device, x.dtype))
        if position is not None and position.needs_weights:
            scores = q @ k.transpose(-1, -2) / hd**0.5 + (bias if bias is not None
                                                           else _causal_mask(n, x.device, x.dtype))
            w = torch.softmax(scores, dim=-1)
            y = w @ v
            add = position.value_extra(layer, w)
            if add is not None:
                y = y + add
        elif bias is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            # bias already holds −inf above the diagonal (causal) — SDPA adds it to q·k/√d_head.
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        x = x + self.proj(y.transpose(1, 2).reshape(b, n, d))
        return x + self.mlp(self.ln2(x))


class TinyTransformer(nn.Module):
    """Token embedding (+ positional scheme), ``layers`` causal blocks, LayerNorm, linear read-out.

    ``params``: the scheme's :attr:`~explorer.schemes.Scheme.lab_parameters` for this run (name → value).
    """

    def __init__(self, scheme: str, *, vocab: int, d_model: int, heads: int, layers: int,
                 train_len: int, params=()) -> None:
        super().__init__()
        if scheme not in registry.lab_ids():
            raise LabError(f"unknown scheme {scheme!r}; valid: {', '.join(registry.lab_ids())}")
        self.scheme = scheme
        self.d_model = d_model
        self.heads = heads
        self.train_len = train_len
        self.embed = nn.Embedding(vocab, d_model)
        # The scheme's own module (a learned table, T5's bucket biases …): trained with the rest.
        try:
            self.position = registry.get(scheme).lab_module(d_model, heads, train_len)
        except EncodingError as exc:  # e.g. a 2-D scheme's head width that is not a multiple of 4
            raise LabError(f"{scheme}: {exc}") from None
        self.position.configure(params)  # the scheme's Lab parameters (a hybrid's NoPE interval); most have none
        self.position.setup_layers(layers)  # per-layer parameters (Kerple, FIRE, Shaw …); most have none
        self.blocks = nn.ModuleList(Block(d_model, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def check_length(self, n: int) -> None:
        """Raise :class:`CannotRun` if this model has no encoding for some position < n."""
        try:
            self.position.check_length(n)
        except NoEncoding as exc:
            raise CannotRun(str(exc)) from None

    def not_run(self, length: int, tokens: int, limit: int) -> LengthResult:
        """The "cannot run" result at test length ``length`` (``tokens`` tokens), past the run limit ``limit``."""
        try:
            self.check_length(tokens)
            reason = f"not evaluated past length {limit}"  # pragma: no cover - only learned stops early
        except CannotRun as exc:
            reason = str(exc)
        return LengthResult(length, "cannot run", None, None, reason)

    def forward(self, idx: torch.Tensor, width: int | None = None) -> torch.Tensor:
        """Logits (batch, L, vocab) for tokens ``idx`` (batch, L); row t predicts token t + 1.

        ``width``: the tokens are the cells of a grid this wide, in raster order (the grid task); None: a line.
        """
        n = idx.shape[1]
        self.check_length(n)
        dev = idx.device
        x = self.position.add(self.embed(idx))
        grid = getattr(self.position, "grid_rotary", None) if width is not None else None
        rope = (grid(n, width, self.d_model // self.heads, dev, x.dtype) if grid is not None
                else self.position.rotary(n, self.d_model // self.heads, dev, x.dtype))
        bias = self.position.bias(n, dev, x.dtype)
        for i, blk in enumerate(self.blocks):
            layer_rope, layer_bias = self.position.layer(i, rope, bias)  # a hybrid leaves RoPE out of some blocks
            x = blk(x, layer_rope, self.position.layer_bias(i, n, dev, x.dtype, layer_bias), self.position, i)
        return self.head(self.ln(x))
