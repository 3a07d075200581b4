"""Live checks on one attention layer: order blindness, the causal mask's leak, masking before the softmax.

Every number comes from the Token-swap panel's own job (:mod:`explorer.jobs.swap`): the same embeddings,
projections and attention the panel draws.
"""

from __future__ import annotations

import numpy as np

from .checks import Param, check

_SENTENCE = Param("text", "the dog saw a cat", help="the words (whitespace-separated)")
_I = Param("int", 0, 0, 63, "the first token to swap")
_J = Param("int", 3, 0, 63, "the second token to swap")
_D = Param("int", 16, 4, 256, "d_model")
_SEED = Param("int", 0, 0, 2**31 - 1, "seed of W_Q, W_K, W_V")
#: Below this a difference is rounding (float64 attention gives ~1e-16); above CHANGED it is a real change.
SAME, CHANGED = 1e-9, 1e-3


def _swap(sentence: str, i: int, j: int, d_model: int, seed: int, **changes):
    from ..jobs.swap import SwapRequest, compute
    from ..state.swap import SwapState

    st = SwapState(sentence=sentence, swap_i=i, swap_j=j, d_model=d_model, seed=seed, **changes)
    if st.tokens[i] == st.tokens[j]:
        from .checks import CheckError

        raise CheckError(f"tokens {i} and {j} are both {st.tokens[i]!r}: swapping them changes nothing")
    return compute(SwapRequest(st))


def _nope() -> str:
    from ..state.swap import default_scheme

    return default_scheme()


@check("swap_equivariance",
       "With no positions and no mask, swapping two tokens only moves their outputs with them: attention "
       "is permutation-equivariant. It is not invariant: the output at each place does change.",
       ("relabel_error", "place_change", "pooled_change"),
       sentence=_SENTENCE, i=_I, j=_J, d_model=_D, seed=_SEED)
def swap_equivariance(sentence: str, i: int, j: int, d_model: int, seed: int):
    r = _swap(sentence, i, j, d_model, seed, scheme=_nope(), causal=False)
    place = float(np.abs(r.after.outputs - r.before.outputs).max())
    pooled = float(np.abs(r.after.outputs.mean(0) - r.before.outputs.mean(0)).max())
    values = {"relabel_error": r.max_relabel_error, "place_change": place, "pooled_change": pooled}
    ok = r.max_relabel_error < SAME and place > CHANGED and pooled < SAME
    return values, ok, (f"outputs moved back to their tokens differ by {r.max_relabel_error:.1e}; "
                        f"outputs at the same place differ by {place:.3g}; their mean (a pooled summary) "
                        f"by {pooled:.1e}")


@check("swap_causal_leak",
       "A causal mask alone leaks order: with no positional encoding at all, swapping two tokens changes "
       "the outputs, including those of tokens between them that were not moved.",
       ("relabel_error", "between_change", "after_change"),
       sentence=_SENTENCE, i=_I, j=_J, d_model=_D, seed=_SEED)
def swap_causal_leak(sentence: str, i: int, j: int, d_model: int, seed: int):
    r = _swap(sentence, i, j, d_model, seed, scheme=_nope(), causal=True)
    lo, hi = sorted((i, j))
    n = len(r.before.tokens)
    diff = np.abs(r.difference).max(axis=1)
    between = float(diff[lo + 1:hi].max()) if hi - lo > 1 else 0.0
    after = float(diff[hi + 1:].max()) if hi + 1 < n else 0.0
    values = {"relabel_error": r.max_relabel_error, "between_change": between, "after_change": after}
    ok = r.max_relabel_error > CHANGED and (hi - lo == 1 or between > CHANGED)
    return values, ok, (f"NoPE with a causal mask: outputs change by up to {r.max_relabel_error:.3g}; "
                        f"a token between the two moves by {between:.3g}, a token after both by {after:.1e}")


@check("mask_before_softmax",
       "Mask the raw scores (set them to −∞) before the softmax: every row of weights sums to 1. Zeroing "
       "weights after the softmax leaves rows that sum to less than 1.",
       ("row_error_before", "min_row_sum_after"),
       sentence=_SENTENCE, d_model=_D, seed=_SEED)
def mask_before_softmax(sentence: str, d_model: int, seed: int):
    from ..jobs.swap import forward
    from ..state.swap import SwapState

    base = SwapState(sentence=sentence, swap_i=0, swap_j=1, d_model=d_model, seed=seed, scheme=_nope(),
                     causal=True)
    early = forward(base.tokens, base)
    late = forward(base.tokens, SwapState(**{**_fields(base), "mask_after_softmax": True}))
    err = float(np.abs(early.row_sums - 1.0).max())
    low = float(late.row_sums.min())
    values = {"row_error_before": err, "min_row_sum_after": low}
    return values, err < 1e-12 and low < 1.0 - 1e-6, (
        f"masked before the softmax every row sums to 1 (largest error {err:.1e}); masked after it the "
        f"smallest row sum is {low:.3f}")


@check("position_in_the_vectors",
       "Attention sees position only through the vectors that make Q, K and V: add an encoding to the "
       "input and the swap shows; take it away (α = 0) and attention is blind again.",
       ("relabel_error", "relabel_error_off"),
       scheme=Param("scheme", help="a scheme added to the input (kind input)"),
       sentence=_SENTENCE, i=_I, j=_J, d_model=_D, seed=_SEED)
def position_in_the_vectors(scheme: str, sentence: str, i: int, j: int, d_model: int, seed: int):
    from .. import schemes as registry
    from .checks import CheckError

    if registry.get(scheme).kind != "input":
        raise CheckError(f"check position_in_the_vectors: {scheme} is not added to the input")
    on = _swap(sentence, i, j, d_model, seed, scheme=scheme, causal=False)
    off = _swap(sentence, i, j, d_model, seed, scheme=scheme, causal=False, alpha=0.0)
    values = {"relabel_error": on.max_relabel_error, "relabel_error_off": off.max_relabel_error}
    return values, on.max_relabel_error > CHANGED and off.max_relabel_error < SAME, (
        f"{registry.get(scheme).title} added (α = 1): the swap changes outputs by {on.max_relabel_error:.3g}; "
        f"α = 0: by {off.max_relabel_error:.1e}")


def _fields(state) -> dict:
    from ..state import to_dict

    return to_dict(state)
