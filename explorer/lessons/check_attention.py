"""Live checks on one attention layer: order blindness, the causal mask's leak, masking before the softmax,
and position entering through the vectors.

Every number comes from the Token-swap panel's own job (:mod:`explorer.jobs.swap`): the same embeddings,
projections and attention the panel draws.  A claim about "swapping two words" is checked for every pair
of different words of the sentence, not only the pair the step starts with.
"""

from __future__ import annotations

import itertools

import numpy as np

from .checks import EPS, CheckError, Param, check, sci

_SENTENCE = Param("text", "the dog saw a cat", help="the words (whitespace-separated, at most 6)")
_I = Param("int", 0, 0, 5, "the first token to swap (the scene's)")
_J = Param("int", 3, 0, 5, "the second token to swap (the scene's)")
_D = Param("int", 16, 4, 64, "d_model")
_SEED = Param("int", 0, 0, 2**31 - 1, "seed of W_Q, W_K, W_V")
#: Words a sentence of these checks may have: every pair of them is swapped (15 pairs, 30 forward passes at
#: most, three times over for position_in_the_vectors: about a second).
MAX_WORDS = 6
#: Above CHANGED a difference is a real change (outputs are of size ~1).
CHANGED = 1e-3


def _cost(sentence: str, d_model: int, **_ignored) -> int:
    """Values the swaps hold; a sentence too long to swap every pair of is refused here, before anything runs."""
    n = _words(sentence)
    return n * n * (n * n + 3 * n * d_model + 3 * d_model * d_model) // 2


def _words(sentence: str) -> int:
    n = len(sentence.split())
    if n > MAX_WORDS:
        raise CheckError(f"the sentence has {n} words; these checks swap every pair of at most {MAX_WORDS}")
    return n


def _state(sentence: str, i: int, j: int, d_model: int, seed: int, **changes):
    from ..state.swap import SwapState

    _words(sentence)
    return SwapState(sentence=sentence, swap_i=i, swap_j=j, d_model=d_model, seed=seed, **changes)


def _pairs(tokens: list[str]) -> list[tuple[int, int]]:
    """Every pair of positions holding different words (swapping equal words changes nothing)."""
    return [(a, b) for a, b in itertools.combinations(range(len(tokens)), 2) if tokens[a] != tokens[b]]


def _swaps(base, **changes):
    """The Token-swap job's response for every pair of different words, with ``changes`` to the state."""
    from ..jobs.swap import SwapRequest, compute
    from ..state import to_dict
    from ..state.swap import SwapState

    fields = {**to_dict(base), **changes}
    pairs = _pairs(base.tokens)
    if not pairs:
        raise CheckError("the sentence needs two different words to swap")
    return [(a, b, compute(SwapRequest(SwapState(**{**fields, "swap_i": a, "swap_j": b})))) for a, b in pairs]


def _rounding(r) -> float:
    """What float64 rounding allows a relabelled output to differ by: ε times the layer's size."""
    n, d = r.before.outputs.shape
    return 64.0 * n * d * EPS * max(1.0, float(np.abs(r.before.outputs).max()))


def _nope() -> str:
    from ..state.swap import default_scheme

    return default_scheme()


@check("swap_equivariance",
       "With no positions and no mask, swapping any two words only moves their outputs with them: attention "
       "is permutation-equivariant. It is not invariant: the output at each place does change.",
       ("relabel_error", "bound", "place_change", "pooled_change", "swaps"),
       cost=_cost, compare={"relabel_error": "bound", "pooled_change": "bound"},
       sentence=_SENTENCE, i=_I, j=_J, d_model=_D, seed=_SEED)
def swap_equivariance(sentence: str, i: int, j: int, d_model: int, seed: int):
    base = _state(sentence, i, j, d_model, seed, scheme=_nope(), causal=False)
    runs = _swaps(base)
    relabel = max(r.max_relabel_error for *_ab, r in runs)
    bound = max(_rounding(r) for *_ab, r in runs)
    place = min(float(np.abs(r.after.outputs - r.before.outputs).max()) for *_ab, r in runs)
    pooled = max(float(np.abs(r.after.outputs.mean(0) - r.before.outputs.mean(0)).max()) for *_ab, r in runs)
    values = {"relabel_error": relabel, "bound": bound, "place_change": place, "pooled_change": pooled,
              "swaps": len(runs)}
    ok = relabel <= bound and place > CHANGED and pooled <= bound
    return values, ok, (f"all {len(runs)} swaps of two different words: outputs moved back to their words differ "
                        f"by at most {sci(relabel)} (rounding allows {sci(bound)}); outputs at the same place "
                        f"change by at least {place:.3g}; their mean (a pooled summary) by at most {sci(pooled)}")


@check("swap_causal_leak",
       "A causal mask alone leaks order: with no positional encoding at all, every swap of two different words "
       "changes the outputs, including those of words between them that did not move; words after both see "
       "the same set of words and keep their outputs.",
       ("relabel_error", "between_change", "after_change", "bound", "swaps"),
       cost=_cost, compare={"after_change": "bound"},
       sentence=_SENTENCE, i=_I, j=_J, d_model=_D, seed=_SEED)
def swap_causal_leak(sentence: str, i: int, j: int, d_model: int, seed: int):
    base = _state(sentence, i, j, d_model, seed, scheme=_nope(), causal=True)
    runs = _swaps(base)
    n = len(base.tokens)
    chosen = next(r for a, b, r in runs if (a, b) == tuple(sorted((i, j)))) if base.tokens[i] != base.tokens[j] \
        else runs[0][2]
    lo, hi = sorted((chosen.request.state.swap_i, chosen.request.state.swap_j))
    diff = np.abs(chosen.difference).max(axis=1)
    between = float(diff[lo + 1:hi].max()) if hi - lo > 1 else 0.0
    after = max((float(np.abs(r.difference)[max(a, b) + 1:].max()) for a, b, r in runs if max(a, b) + 1 < n),
                default=0.0)
    every_between = min((float(np.abs(r.difference)[a + 1:b].max(axis=1).min()) for a, b, r in runs if b - a > 1),
                        default=1.0)
    smallest = min(r.max_relabel_error for *_ab, r in runs)
    bound = max(_rounding(r) for *_ab, r in runs)
    values = {"relabel_error": chosen.max_relabel_error, "between_change": between, "after_change": after,
              "bound": bound, "swaps": len(runs)}
    ok = smallest > CHANGED and every_between > CHANGED and after <= bound
    return values, ok, (
        f"NoPE with a causal mask, all {len(runs)} swaps: every one changes the outputs (at least "
        f"{smallest:.3g}), every word between the two moves (at least {every_between:.3g}), every word after "
        f"both by at most {sci(after)} (rounding allows {sci(bound)}); words {lo} and {hi}: the word between "
        f"moves by {between:.3g}")


@check("mask_before_softmax",
       "Mask the raw scores (set them to −∞) before the softmax: every row of weights sums to 1. Zeroing "
       "weights after the softmax leaves rows that sum to less than 1 (the Token-swap panel's Σ column, before "
       "and after the swap).",
       ("row_error_before", "bound", "min_row_sum_after", "rows"),
       cost=_cost, compare={"row_error_before": "bound"},
       sentence=_SENTENCE, i=_I, j=_J, d_model=_D, seed=_SEED)
def mask_before_softmax(sentence: str, i: int, j: int, d_model: int, seed: int):
    from ..jobs.swap import SwapRequest, compute

    early = _state(sentence, i, j, d_model, seed, scheme=_nope(), causal=True, mask_after_softmax=False)
    late = _state(sentence, i, j, d_model, seed, scheme=_nope(), causal=True, mask_after_softmax=True)
    a, b = compute(SwapRequest(early)), compute(SwapRequest(late))
    sums = np.concatenate([a.before.row_sums.ravel(), a.after.row_sums.ravel()])
    err = float(np.abs(sums - 1.0).max())
    bound = 4.0 * len(early.tokens) * EPS
    low = b.min_row_sum  # the smallest Σ the panel shows, over the sentence before and after the swap
    values = {"row_error_before": err, "bound": bound, "min_row_sum_after": low, "rows": int(sums.size)}
    return values, err <= bound and low < 1.0 - 1e-6, (
        f"masked before the softmax all {sums.size} rows (before and after the swap) sum to 1 (largest error "
        f"{sci(err)}, rounding allows {sci(bound)}); masked after it the smallest row sum is {low:.3f}")


@check("position_in_the_vectors",
       "Attention sees position only through what it reads: add an encoding to the input and every swap "
       "shows; take it away (α = 0) without a mask and no swap does; with α = 0 and the causal mask, the mask "
       "is the one other way in.",
       ("relabel_error", "relabel_error_off", "bound", "relabel_error_causal", "swaps"),
       cost=_cost, compare={"relabel_error_off": "bound"},
       scheme=Param("scheme", help="a scheme added to the input (kind input)"),
       sentence=_SENTENCE, i=_I, j=_J, d_model=_D, seed=_SEED)
def position_in_the_vectors(scheme: str, sentence: str, i: int, j: int, d_model: int, seed: int):
    from .. import schemes as registry

    if registry.get(scheme).kind != "input":
        raise CheckError(f"check position_in_the_vectors: {scheme} is not added to the input")
    base = _state(sentence, i, j, d_model, seed, scheme=scheme, causal=False)
    on = min(r.max_relabel_error for *_ab, r in _swaps(base, alpha=1.0))
    off_runs = _swaps(base, alpha=0.0)
    off = max(r.max_relabel_error for *_ab, r in off_runs)
    bound = max(_rounding(r) for *_ab, r in off_runs)
    leak = min(r.max_relabel_error for *_ab, r in _swaps(base, alpha=0.0, causal=True))
    values = {"relabel_error": on, "relabel_error_off": off, "bound": bound, "relabel_error_causal": leak,
              "swaps": len(off_runs)}
    return values, on > CHANGED and off <= bound and leak > CHANGED, (
        f"{registry.get(scheme).title} added (α = 1): every one of {len(off_runs)} swaps changes outputs, by at "
        f"least {on:.3g}; α = 0, no mask: by at most {sci(off)} (rounding allows {sci(bound)}); α = 0 with the "
        f"causal mask: by at least {leak:.3g}")
