"""Live checks on rotary schemes: the score depends only on i − j, and three ways past the training length
(plain RoPE's unseen angles, linear scaling, YaRN).

``rope_relative`` runs the rotation of the scheme it is given (its Token-swap hook, the same function the
Token-swap panel rotates with) and refuses a scheme that does not rotate q and k.  The stretching checks
compare the Schemes panel's own numbers (:func:`explorer.jobs.schemes.scaled`, the counts of
:func:`explorer.encodings.sinusoidal.completes_cycle`) with the published formulas written out here.
"""

from __future__ import annotations

import math

import numpy as np

from .checks import EPS, CheckError, Param, check, sci, yes_no

_HEAD = Param("int", 64, 4, 1024, "head size (even)")
_L = Param("int", 512, 2, 131072, "L_train")
_S = Param("float", 4.0, 1.0, 64.0, "factor s")
#: Queries and keys rope_relative scores (16 × 16 scores at each shift).
N_QK = 16


def _theta(d: int, base: float = 10000.0) -> np.ndarray:
    """θ_i = base^(−2i/d), written out (Su et al. 2021, eq. 15)."""
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)


def _even(d: int) -> int:
    if d % 2:
        raise CheckError(f"head_dim must be even, got {d}")
    return d


@check("rope_relative",
       "A rotary scheme rotates q and k inside attention by their positions, so the score depends only on "
       "i − j (the same scores after both positions move), nothing is added to the token vectors, and a "
       "rotation keeps their length.",
       ("shift_difference", "bound", "norm_change", "norm_bound", "adds_vector"),
       cost=lambda scheme, head_dim, shift, seed: 5 * (shift + N_QK) * head_dim,
       compare={"shift_difference": "bound", "norm_change": "norm_bound"},
       scheme=Param("scheme", help="a scheme that rotates q and k"), head_dim=Param("int", 64, 2, 1024),
       shift=Param("int", 1000, 1, 100000, "how far both positions move"),
       seed=Param("int", 0, 0, 2**31 - 1))
def rope_relative(scheme: str, head_dim: int, shift: int, seed: int):
    from .. import schemes as registry

    sch = registry.get(scheme)
    d = _even(head_dim)
    terms = sch.swap_terms(shift + N_QK, d, 1, seed, True) if sch.kind == "rotary" else None
    if terms is None or terms.rotate is None:
        raise CheckError(f"check rope_relative: {sch.title} does not rotate q and k (it is "
                         f"{'a scheme without a rotation the check can run' if terms else sch.kind + ' kind'})")
    rotate_k = terms.rotate_k or terms.rotate
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((N_QK, d)), rng.standard_normal((N_QK, d))

    def at_both(x, rotate):  # the same rows at positions 0 … 15 and shift … shift + 15, rotated by the scheme
        rows = np.zeros((shift + N_QK, d))
        rows[:N_QK] = x
        rows[shift:] = x
        out = rotate(rows)
        return out[:N_QK].copy(), out[shift:].copy()  # copies: the (shift + 16)-row array goes at once

    (q0, q1), (k0, k1) = at_both(q, terms.rotate), at_both(k, rotate_k)
    near, far = q0 @ k0.T, q1 @ k1.T
    diff = float(np.abs(near - far).max())
    scale = float(np.abs(q).max() * np.abs(k).max() * d)
    bound = 8.0 * (shift + N_QK) * EPS * scale
    norm = float(np.abs(np.linalg.norm(q1, axis=1) - np.linalg.norm(q, axis=1)).max())
    norm_bound = 8.0 * d * EPS * float(np.linalg.norm(q, axis=1).max())
    added = terms.added is not None
    values = {"shift_difference": diff, "bound": bound, "norm_change": norm, "norm_bound": norm_bound,
              "adds_vector": yes_no(added)}
    return values, diff <= bound and norm <= norm_bound and not added, (
        f"{sch.title}: scores of {N_QK} queries × {N_QK} keys, then both moved {shift:,} places: largest change "
        f"{sci(diff)} (rounding allows {sci(bound)}); length of a turned q changes by {sci(norm)} (allowed "
        f"{sci(norm_bound)}); vector added to the input: {yes_no(added)}")


def _angle_gaps(theta: float, l_train: int, l_eval: int) -> float:
    """Largest distance (radians, on the circle) from an angle p·θ, L ≤ p < l_eval, to the nearest p'·θ, p' < L."""
    seen = np.sort(np.mod(np.arange(l_train) * theta, 2 * math.pi))
    new = np.mod(np.arange(l_train, l_eval) * theta, 2 * math.pi)
    ring = np.concatenate([seen - 2 * math.pi, seen, seen + 2 * math.pi])
    at = np.searchsorted(ring, new)
    return float(np.minimum(np.abs(new - ring[at - 1]), np.abs(ring[at] - new)).max())


@check("rope_unseen_pairs",
       "Trained to L positions, a RoPE pair whose angle (L−1)·θ_i stays below 2π never completes a turn; past L "
       "it meets angles it never saw (farther than half a step from every trained angle), while every pair "
       "that turned fully has already seen each angle to within half a step.",
       ("unseen_pairs", "pairs", "unseen_by_hand", "new_gap", "seen_gap"),
       cost=lambda head_dim, l_train, factor: 8 * head_dim * int(factor * l_train + l_train),
       compare={"new_gap": "seen_gap"},
       head_dim=_HEAD, l_train=_L, factor=_S)
def rope_unseen_pairs(head_dim: int, l_train: int, factor: float):
    from ..encodings.rope import inv_freq
    from ..encodings.sinusoidal import completes_cycle

    d = _even(head_dim)
    theta = inv_freq(d, 10000.0)  # the Schemes panel's θ; its count uses the one rule completes_cycle
    unseen = int(np.count_nonzero(~completes_cycle(2 * math.pi / theta, l_train)))
    hand = _theta(d)
    by_hand = int(np.sum((l_train - 1) * hand < 2 * math.pi))
    l_eval = max(l_train + 1, int(round(factor * l_train)))
    ratio = np.array([_angle_gaps(t, l_train, l_eval) / (t / 2) for t in hand])  # 1 = half a step
    turned = (l_train - 1) * hand >= 2 * math.pi
    seen_gap = float(ratio[turned].max()) if turned.any() else 0.0
    new_gap = float(ratio[~turned].max()) if (~turned).any() else 0.0
    values = {"unseen_pairs": unseen, "pairs": d // 2, "unseen_by_hand": by_hand, "new_gap": new_gap,
              "seen_gap": seen_gap}
    ok = unseen == by_hand and seen_gap <= 1.0 + 1e-9 and (unseen == 0 or new_gap > 1.0)
    return values, ok, (
        f"head_dim {d}, L = {l_train:,}: {unseen} of {d // 2} pairs never complete a turn ((L−1)·θ_i < 2π "
        f"written out: {by_hand}); positions L … {l_eval - 1:,}: those pairs reach {new_gap:,.1f} half-steps "
        f"from every trained angle, the others at most {seen_gap:.3f}")


@check("rope_linear_scaling",
       "Linear scaling (position interpolation) divides every angle by s: position s·p gets exactly the angles "
       "position p had in training, every position up to s·(L−1) stays inside the trained angles, and "
       "neighbours come s times closer in angle.",
       ("linear_gap", "bound", "max_angle_share", "closer"),
       cost=lambda head_dim, l_train, factor: 4 * head_dim * int(factor * l_train + 1),
       compare={"linear_gap": "bound"},
       head_dim=_HEAD, l_train=_L, factor=_S)
def rope_linear_scaling(head_dim: int, l_train: int, factor: float):
    from ..jobs.schemes import ScaledRequest, scaled

    d = _even(head_dim)
    r = scaled(ScaledRequest(head_dim=d, base=10000.0, l_train=l_train, scaling="linear", factor=factor))
    theta, lin = _theta(d), np.asarray(r.theta_scaled)
    q = np.arange(l_train, dtype=np.float64)
    gap = float(np.abs(np.multiply.outer(factor * q, lin) - np.multiply.outer(q, theta)).max())
    bound = 8.0 * factor * l_train * EPS
    p = np.arange(int(math.floor(factor * (l_train - 1))) + 1, dtype=np.float64)
    share = float((np.multiply.outer(p, lin) / ((l_train - 1) * theta)).max()) if l_train > 1 else 0.0
    values = {"linear_gap": gap, "bound": bound, "max_angle_share": share, "closer": float(theta[0] / lin[0])}
    ok = gap <= bound and share <= 1.0 + 1e-12 and abs(values["closer"] - factor) <= 1e-12 * factor
    return values, ok, (
        f"head_dim {d}, L = {l_train:,}, s = {factor:g}: angles at s·p against the trained angles at p, every "
        f"p < L: differ by {sci(gap)} (rounding allows {sci(bound)}); positions up to s·(L−1) reach "
        f"{share:.6f} of the largest trained angle; neighbours {values['closer']:g}× closer in angle")


@check("rope_yarn",
       "YaRN (Peng et al. 2023) keeps the pairs that turn at least β_fast = 32 times inside L, divides those "
       "that turn at most β_slow = 1 time by s, blends the pairs between on a ramp, and multiplies cos and sin "
       "by the attention factor 0.1·ln s + 1.",
       ("yarn_kept", "yarn_divided", "pairs", "attention_factor", "logit_scale", "theta_difference", "bound"),
       cost=lambda head_dim, l_train, factor: 16 * head_dim,
       compare={"theta_difference": "bound"},
       head_dim=_HEAD, l_train=_L, factor=_S)
def rope_yarn(head_dim: int, l_train: int, factor: float):
    from ..jobs.schemes import ScaledRequest, scaled

    d = _even(head_dim)
    r = scaled(ScaledRequest(head_dim=d, base=10000.0, l_train=l_train, scaling="yarn", factor=factor))
    theta = _theta(d)

    def pair_for(turns: float) -> float:  # the pair index that turns `turns` times in L (Peng et al., eq. 21)
        return d * math.log(l_train / (turns * 2 * math.pi)) / (2 * math.log(10000.0))

    low, high = float(max(math.floor(pair_for(32.0)), 0)), float(min(math.ceil(pair_for(1.0)), d - 1))
    high = high + 0.001 if high == low else high
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)
    want = theta * (1.0 - ramp) + theta / factor * ramp
    att = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    diff = float(np.abs(np.asarray(r.theta_scaled) - want).max())
    bound = 4.0 * EPS
    turns = l_train * theta / (2 * math.pi)
    kept, divided = np.asarray(r.weight) <= 1e-12, np.abs(np.asarray(r.weight) - 1.0) <= 1e-12
    by_turns = bool(np.all(turns[kept] >= 32.0)) and (factor == 1 or bool(np.all(turns[divided] <= 1.0)))
    values = {"yarn_kept": r.n_kept, "yarn_divided": r.n_divided, "pairs": d // 2,
              "attention_factor": r.attention_factor, "logit_scale": r.attention_factor**2,
              "theta_difference": diff, "bound": bound}
    ok = diff <= bound and abs(r.attention_factor - att) <= 1e-12 and by_turns
    return values, ok, (
        f"head_dim {d}, L = {l_train:,}, s = {factor:g}: YaRN keeps {r.n_kept} pairs (each turns ≥ 32 times in "
        f"L: {yes_no(bool(np.all(turns[kept] >= 32.0)))}), divides {r.n_divided} by s, blends the rest; θ′ against the "
        f"formula: {sci(diff)} (rounding allows {sci(bound)}); cos and sin × {r.attention_factor:.4f} (0.1·ln s "
        f"+ 1 = {att:.4f}), so the logits × {r.attention_factor ** 2:.3f}")
