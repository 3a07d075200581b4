"""The token-swap experiment: attention before and after swapping two tokens.

Set-up (all deterministic): each word gets the same embedding vector wherever it appears
(a generator seeded from the word's CRC-32), W_Q, W_K, W_V come from ``seed``; one or
more heads (width d_model / heads), no output projection.  The positional scheme enters as
in real models: added to the embeddings (sinusoidal, learned; scaled by α), rotating Q and K
(RoPE), or a bias on the scores (ALiBi).

The identity being tested: with no positions and no mask, self-attention is
permutation-equivariant, ``Attn(P X) = P Attn(X)`` for every permutation matrix P, because
``softmax(P Q Kᵀ Pᵀ) P V = P softmax(Q Kᵀ) V`` (the softmax acts row by row and a column
permutation of a row only reorders its terms).  So after the swap every token's output is
exactly its old output moved to its new place; ``max_relabel_error`` measures how far from that
we are.  Any positional scheme, and the causal mask, break it (Haviv et al. 2022,
"Transformer Language Models without Positional Encodings Still Learn Positional Information";
Kazemnejad et al. 2023, "The Impact of Positional Encoding on Length Generalization in
Transformers").
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from .. import schemes as registry
from ..encodings.attention import attention
from ..state.swap import SwapState
from . import job

#: Below this max |difference| the outputs are "the same up to rounding" (float64 maths gives ~1e-16).
EQUIVARIANCE_TOL = 1e-9

#: The verdicts a response can carry (the panel colours its headline by them).
VERDICTS = ("equivariant", "order-visible", "no-swap")

_CAUSAL_LEAK = (
    "the causal mask itself leaks order: each token sees only itself and the tokens before it, so "
    "moving a word changes what it, and every word between the two swapped places, can see "
    "(Haviv et al. 2022; Kazemnejad et al. 2023)"
)


def token_embedding(word: str, d_model: int) -> np.ndarray:
    """The word's vector: ``d_model`` N(0, 1) entries from a generator seeded by CRC-32 of the word (UTF-8).

    The same word gets the same vector in every sentence, at every place, in every run: the
    embedding knows *what* the word is, never *where* it is.
    """
    rng = np.random.default_rng(zlib.crc32(word.encode("utf-8")))
    return rng.standard_normal(d_model)


@lru_cache(maxsize=2048)
def _kept_embedding(word: str, d_model: int) -> np.ndarray:
    """:func:`token_embedding`, made once per (word, width) and read-only: a drag step embeds the same words again,
    and a generator per word was most of the job (1.2 of 1.3 ms for 64 tokens)."""
    v = token_embedding(word, d_model)
    v.flags.writeable = False
    return v


def embed(tokens: list[str], d_model: int) -> np.ndarray:
    """The embedding matrix ``E``, shape ``(n, d_model)``: one :func:`token_embedding` row per token."""
    return np.stack([_kept_embedding(t, d_model) for t in tokens])


@lru_cache(maxsize=8)
def _kept_matrix(tokens: tuple[str, ...], d_model: int) -> np.ndarray:
    """:func:`embed`, read-only and made once per sentence and width: each step of a drag embeds the sentence and its
    swapped copy again (stacking 64 rows was a sixth of a step's job)."""
    e = embed(list(tokens), d_model)
    e.flags.writeable = False
    return e


@lru_cache(maxsize=16)
def projections(d_model: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W_Q, W_K, W_V, each ``(d_model, d_model)`` with N(0, 1/d_model) entries from ``seed``; read-only, made once
    per (width, seed): at d_model = 256 drawing them was 3.5 of a drag step's 4.6 ms.

    The 1/d variance keeps ``x W`` at the size of ``x`` (Glorot-like), so the scores stay in the
    range where the softmax is neither flat nor one-hot.
    """
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(d_model)
    out = tuple(rng.standard_normal((d_model, d_model)) * scale for _ in range(3))
    for w in out:
        w.flags.writeable = False
    return out


def swapped(tokens: list[str], i: int, j: int) -> list[str]:
    """``tokens`` with the entries at ``i`` and ``j`` exchanged (a new list)."""
    out = list(tokens)
    out[i], out[j] = out[j], out[i]
    return out


def swap_permutation(n: int, i: int, j: int, tokens: list[str] | None = None) -> np.ndarray:
    """``perm[t]`` = the new place of the token that was at place ``t`` (the transposition (i j)).

    When ``tokens[i] == tokens[j]`` the swap leaves the sentence as it was, so the relabelling is
    the identity: mapping "after" back through (i j) would compare each of the two words with the
    *other* place's output, which differs whenever position or the mask matters (0.80 for
    "the dog saw the cat", swap 0 ↔ 3, causal), and call that the swap's effect.
    """
    perm = np.arange(n)
    if tokens is not None and tokens[i] == tokens[j]:
        return perm
    perm[i], perm[j] = j, i
    return perm


def keeps_distances(perm: np.ndarray) -> bool:
    """True if the permutation keeps every distance ``|p − q|`` between places.

    Only the identity and the mirror ``p -> n−1−p`` do that; a single swap is a mirror only for
    n = 2 or for the two ends of a 3-token sentence.  Symmetric ALiBi (bias −m·|i−j|) cannot see
    such a swap.
    """
    pos = np.arange(len(perm))
    return bool(np.array_equal(np.abs(pos[:, None] - pos[None, :]), np.abs(perm[:, None] - perm[None, :])))


@dataclass(frozen=True)
class SwapRequest:
    state: SwapState
    key: str = "swap"
    #: A real position table for schemes that take one (:attr:`Scheme.uses_table`); None: their own.
    table: Any = None


@dataclass(frozen=True)
class AttentionRun:
    """One forward pass: weights (heads, n, n), outputs (n, d), row sums (heads, n); for a scheme that counts
    positions from the content (CoPE), its gates and positions (heads, n, n) [query, key]."""

    tokens: list
    weights: np.ndarray
    outputs: np.ndarray
    row_sums: np.ndarray
    gates: np.ndarray | None = None
    positions: np.ndarray | None = None


@dataclass(frozen=True)
class SwapResponse:
    """Both passes, the same "after" numbers moved back to each token's old place, and the verdict.

    ``weights_after_relabelled[h, t, u] = after.weights[h, perm[t], perm[u]]`` and
    ``outputs_after_relabelled[t] = after.outputs[perm[t]]``: row ``t`` is token ``t`` of the
    *original* sentence, wherever it went.  With NoPE and no mask they equal the "before" arrays.

    Those two and :attr:`difference` are made from ``after`` where they are first read, not sent from the compute
    process: they were a third of a 64-token reply's bytes, pickled, copied and unpickled at every drag step.
    """

    request: SwapRequest
    before: AttentionRun
    after: AttentionRun
    permutation: np.ndarray  # new place of the token that was at position t
    max_relabel_error: float
    max_weight_error: float
    output_rms: float
    min_row_sum: float
    keeps_distances: bool
    equivariant: bool
    verdict: str
    headline: str
    explanation: str

    @cached_property
    def weights_after_relabelled(self) -> np.ndarray:
        perm = self.permutation
        return self.after.weights[:, perm][:, :, perm]

    @cached_property
    def outputs_after_relabelled(self) -> np.ndarray:
        return self.after.outputs[self.permutation]

    @cached_property
    def difference(self) -> np.ndarray:
        """``outputs_after_relabelled − before.outputs``, (n, d)."""
        return self.outputs_after_relabelled - self.before.outputs


def forward(tokens: list[str], st: SwapState, table: np.ndarray | None = None) -> AttentionRun:
    """Attention over ``tokens`` with the scheme, heads and mask of ``st``.

    ``X = E + α·P`` (schemes added to the input) or ``X = E``; ``Q, K, V = X W_Q, X W_K, X W_V`` split into
    heads; a rotary scheme rotates each head's q and k by their positions (RoPE: interleaved pairs, base
    10000); a bias scheme adds its (H, n, n) bias to the scores (ALiBi: ``−m_h·|i − j|``, which with the
    causal mask equals the causal ALiBi bias on every visible cell).  Weights and outputs come from
    :func:`explorer.encodings.attention.attention`.
    """
    n, d, h = len(tokens), st.d_model, st.heads
    x = _kept_matrix(tuple(tokens), d)
    terms = registry.get(st.scheme).swap_terms_with_table(table, n, d, h, st.seed, st.causal)
    if terms.added is not None:
        x = x + st.alpha * terms.added
    wq, wk, wv = projections(d, st.seed)
    dh = d // h
    q = (x @ wq).reshape(n, h, dh).transpose(1, 0, 2)
    k = (x @ wk).reshape(n, h, dh).transpose(1, 0, 2)
    v = (x @ wv).reshape(n, h, dh).transpose(1, 0, 2)
    if terms.rotate is not None:
        rotate_k = terms.rotate_k or terms.rotate  # xPos scales keys by the inverse of the queries' factor
        q = np.stack([terms.rotate(q[a]) for a in range(h)])
        k = np.stack([rotate_k(k[a]) for a in range(h)])
    bias = terms.bias
    if terms.score is not None:  # a relative key term (Shaw, Transformer-XL): it depends on q and k
        bias = terms.score(q, k) + (0.0 if bias is None else bias)
    counted = terms.contextual(q, k) if terms.contextual is not None else (None, None)
    res = attention(q, k, v, causal=st.causal, bias=bias, mask_after_softmax=st.mask_after_softmax)
    out = res.outputs if terms.value is None else res.outputs + terms.value(res.weights)
    outputs = out.transpose(1, 0, 2).reshape(n, d)
    return AttentionRun(tokens=list(tokens), weights=res.weights, outputs=outputs,
                        row_sums=res.weights.sum(-1), gates=counted[0], positions=counted[1])


def explain(st: SwapState, r: dict) -> tuple[str, str, str]:
    """Verdict, headline and explanation, built from the measured numbers in ``r``.

    ``r`` holds ``err`` (max relabel error), ``equivariant``, ``keeps_distances``, ``rms``
    (typical output size), ``min_row_sum``, ``n``, ``identical`` (the two words are the same).
    """
    err = r["err"]
    sch = registry.get(st.scheme)
    name = sch.title
    if r["n"] < 2:
        return ("no-swap", "One word: nothing to swap — type a sentence with at least two words",
                "The experiment swaps two tokens and compares attention before and after.")
    if r["identical"]:
        word = st.tokens[st.swap_i]
        return (
            "no-swap",
            f"Both chosen tokens are “{word}”: the swap changes nothing (max difference {err:.1e})",
            "Swapping a word with an identical word leaves the sentence as it was; drag two different "
            "words onto each other.",
        )
    late = ""
    if st.causal and st.mask_after_softmax:
        late = (
            f" Masking after the softmax (the common mistake) leaves rows that sum to less than 1 "
            f"(smallest {r['min_row_sum']:.3f}, see Σ): the weight went to keys that were then zeroed. "
            "Mask before the softmax (scores → −∞)."
        )
    if r["equivariant"]:
        if sch.kind == "input" and st.alpha == 0.0:
            return (
                "equivariant",
                f"α = 0 switches the {name} encoding off — attention is permutation-equivariant, "
                f"order is invisible (max difference {err:.1e})",
                "With strength 0 nothing positional is added, so this is NoPE: swapping two tokens "
                "only moves their outputs. Raise α to let position in.",
            )
        blind = sch.swap_invisible(st, r["keeps_distances"])
        if blind is not None:
            return "equivariant", f"{blind[0]} (max difference {err:.1e})", blind[1]
        if sch.kind == "none" and not st.causal:
            before, after = " ".join(st.tokens), " ".join(st.swapped_tokens)
            same = f" “{before}” and “{after}” look the same to this layer." if len(before) <= 60 else ""
            return (
                "equivariant",
                f"Attention is permutation-equivariant — order is invisible (max difference {err:.1e})",
                "With no positional information and no mask, swapping two tokens only moves their "
                "outputs: every token gets exactly the output it had, at its new place, and the "
                "attention map is the old one with rows and columns swapped." + same,
            )
        return (
            "equivariant",
            f"This swap is invisible to the model (max difference {err:.1e})",
            "The outputs after the swap are the old outputs moved to their new places.",
        )
    barely = r["rms"] > 0 and err < 0.05 * r["rms"]
    big = f"Order is {'barely ' if barely else ''}visible: outputs changed by up to {err:.3g} after the swap"
    if sch.kind == "none":
        why = (f"{name} adds nothing positional, yet " + _CAUSAL_LEAK + ".") if st.causal else (
            "Something other than position broke the identity.")
    else:
        why = sch.swap_reason_with_table(st, r["table"]) if r.get("table") else sch.swap_reason(st)
        if st.causal:
            why += (" The causal mask alone would already leak order "
                    "(Haviv et al. 2022; Kazemnejad et al. 2023).")
    if r["rms"] > 0:
        why += f" Largest change: {err / r['rms']:.2g}× the typical output size ({r['rms']:.2g})."
    return "order-visible", big, why + late


@job(SwapRequest)
def compute(request: SwapRequest) -> SwapResponse:
    """Run attention on the sentence and on its swapped copy; measure how far from equivariance."""
    st = request.state
    tokens = st.tokens
    n = len(tokens)
    i, j = st.swap_i, st.swap_j
    table, table_name = None, ""
    if request.table is not None and registry.get(st.scheme).uses_table:
        from .table import load

        loaded = load(request.table)
        table, table_name = loaded.table, loaded.name
    before = forward(tokens, st, table)
    after = forward(swapped(tokens, i, j), st, table)
    perm = swap_permutation(n, i, j, tokens)
    w_rel = after.weights[:, perm][:, :, perm]
    diff = after.outputs[perm] - before.outputs  # (the response makes both again where they are read)
    err = float(np.abs(diff).max())
    measured: dict[str, Any] = {
        "err": err,
        "equivariant": err < EQUIVARIANCE_TOL,
        "keeps_distances": keeps_distances(perm),
        "rms": float(np.sqrt(np.mean(before.outputs**2))),
        "min_row_sum": float(min(before.row_sums.min(), after.row_sums.min())),
        "n": n,
        "identical": n > 1 and tokens[i] == tokens[j],
        "table": table_name,
    }
    verdict, headline, explanation = explain(st, measured)
    return SwapResponse(
        request=request,
        before=before,
        after=after,
        permutation=perm,
        max_relabel_error=err,
        max_weight_error=float(np.abs(w_rel - before.weights).max()),
        output_rms=measured["rms"],
        min_row_sum=measured["min_row_sum"],
        keeps_distances=measured["keeps_distances"],
        equivariant=measured["equivariant"],
        verdict=verdict,
        headline=headline,
        explanation=explanation,
    )
