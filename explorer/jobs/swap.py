"""The token-swap experiment: attention before and after swapping two tokens.

Set-up (all deterministic): each word gets the same embedding vector wherever it appears
(a generator seeded from the word's CRC-32), W_Q, W_K, W_V come from ``seed``; one or
more heads (width d_model / heads), no output projection.  The positional scheme enters as
in real models: added to the embeddings (sinusoidal, learned), rotating Q and K (RoPE), or
a bias on the scores (ALiBi).

The identity being tested: with no positions and no mask, attention is permutation-
equivariant, so after the swap every token's output is exactly its old output moved to its
new place; ``max_relabel_error`` measures how far from that we are.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from ..encodings import alibi_slopes, apply_rope, sinusoidal
from ..encodings.attention import attention
from ..encodings.learned import LearnedTable
from ..state.swap import MAX_TOKENS, SwapState
from . import job

#: Below this max |difference| the outputs are "the same up to rounding" (float64 maths).
EQUIVARIANCE_TOL = 1e-9


def token_embedding(word: str, d_model: int) -> np.ndarray:
    """The word's vector: N(0, 1) entries from a generator seeded by CRC-32 of the word (UTF-8)."""
    rng = np.random.default_rng(zlib.crc32(word.encode("utf-8")))
    return rng.standard_normal(d_model)


def projections(d_model: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W_Q, W_K, W_V with N(0, 1/d) entries from ``seed``."""
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(d_model)
    return tuple(rng.standard_normal((d_model, d_model)) * scale for _ in range(3))  # type: ignore[return-value]


def swapped(tokens: list[str], i: int, j: int) -> list[str]:
    out = list(tokens)
    out[i], out[j] = out[j], out[i]
    return out


@dataclass(frozen=True)
class SwapRequest:
    state: SwapState
    key: str = "swap"


@dataclass(frozen=True)
class AttentionRun:
    """One forward pass: weights (heads, n, n), outputs (n, d), row sums (heads, n)."""

    tokens: list
    weights: np.ndarray
    outputs: np.ndarray
    row_sums: np.ndarray


@dataclass(frozen=True)
class SwapResponse:
    request: SwapRequest
    before: AttentionRun
    after: AttentionRun
    permutation: np.ndarray  # new place of the token that was at position t
    max_relabel_error: float
    equivariant: bool
    headline: str
    explanation: str


def forward(tokens: list[str], st: SwapState) -> AttentionRun:
    """Attention over ``tokens`` with the scheme and mask of ``st``."""
    n, d, h = len(tokens), st.d_model, st.heads
    x = np.stack([token_embedding(t, d) for t in tokens])
    if st.scheme == "sinusoidal":
        x = x + st.alpha * sinusoidal(n, d)
    elif st.scheme == "learned":
        x = x + st.alpha * LearnedTable(MAX_TOKENS, d, st.seed).lookup(n)
    wq, wk, wv = projections(d, st.seed)
    dh = d // h
    q = (x @ wq).reshape(n, h, dh).transpose(1, 0, 2)
    k = (x @ wk).reshape(n, h, dh).transpose(1, 0, 2)
    v = (x @ wv).reshape(n, h, dh).transpose(1, 0, 2)
    if st.scheme == "rope":
        q = np.stack([apply_rope(q[a]) for a in range(h)])
        k = np.stack([apply_rope(k[a]) for a in range(h)])
    bias = None
    if st.scheme == "alibi":
        pos = np.arange(n, dtype=np.float64)
        dist = np.abs(pos[:, None] - pos[None, :])
        # Symmetric |i-j| distance; with the causal mask the future is masked anyway, so this
        # equals the causal ALiBi bias on every visible cell.
        bias = -alibi_slopes(h)[:, None, None] * dist[None]
    res = attention(q, k, v, causal=st.causal, bias=bias, mask_after_softmax=st.mask_after_softmax)
    outputs = res.outputs.transpose(1, 0, 2).reshape(n, d)
    return AttentionRun(tokens=list(tokens), weights=res.weights, outputs=outputs, row_sums=res.weights.sum(-1))


def explain(st: SwapState, err: float, equivariant: bool) -> tuple[str, str]:
    """Headline and explanation for the verdict, from the measured number."""
    mirrored_alibi = equivariant and st.scheme == "alibi" and not st.causal
    if equivariant and not mirrored_alibi:
        return (
            f"Attention is permutation-equivariant — order is invisible (max difference {err:.1e})",
            "With no positional information and no mask, swapping two tokens only moves their "
            "outputs: every token gets exactly the output it had, at its new place.",
        )
    if mirrored_alibi:
        return (
            f"ALiBi cannot see this swap — it mirrors the sentence (max difference {err:.1e})",
            "Without the causal mask ALiBi adds −m·|i−j|, which depends only on the distance between "
            "two tokens. This swap keeps every distance between tokens (here: it mirrors the sentence), so "
            "the outputs are just relabelled. Swap two other tokens, or turn on the causal mask "
            "(ALiBi's real setting), and the difference becomes large.",
        )
    if st.scheme == "none" and st.causal:
        why = (
            "NoPE, but the causal mask itself leaks order: each token sees only the tokens before it, "
            "so moving a token changes what it (and others) can see (Haviv et al. 2022; Kazemnejad et al. 2023)."
        )
    elif st.scheme == "none":
        why = "Something other than position broke the identity."
    else:
        how = {
            "sinusoidal": "is added to the embeddings",
            "learned": "is added to the embeddings",
            "rope": "rotates Q and K by position",
            "alibi": "adds a distance bias to the scores",
        }[st.scheme]
        why = f"The {st.scheme} encoding {how}, so the same word at another place gets a different output."
    if st.causal and st.mask_after_softmax:
        why += " Masking after the softmax also leaves rows that no longer sum to 1."
    return f"Order is visible: outputs changed by up to {err:.3g} after the swap", why


@job(SwapRequest)
def compute(request: SwapRequest) -> SwapResponse:
    st = request.state
    tokens = st.tokens
    n = len(tokens)
    i, j = st.swap_i, st.swap_j
    before = forward(tokens, st)
    after = forward(swapped(tokens, i, j), st)
    perm = np.arange(n)
    perm[i], perm[j] = j, i
    err = float(np.abs(after.outputs[perm] - before.outputs).max()) if n else 0.0
    equivariant = err < EQUIVARIANCE_TOL
    if n > 1 and tokens[i] == tokens[j]:
        headline = f"Both chosen tokens are {tokens[i]!r}: the swap changes nothing (max difference {err:.1e})"
        explanation = "Swapping a word with an identical word leaves the sentence as it was; pick two different words."
    else:
        headline, explanation = explain(st, err, equivariant)
    return SwapResponse(
        request=request,
        before=before,
        after=after,
        permutation=perm,
        max_relabel_error=err,
        equivariant=equivariant,
        headline=headline,
        explanation=explanation,
    )
