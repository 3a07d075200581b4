"""Live checks on the schemes after RoPE: T5's buckets, Kerple's logarithmic bias, FIRE's progressive
normalisation, xPos's decay, and what the Lab measured for them.

Each check runs the scheme module's own function (the one its panels draw with) against the paper's formula
written out here, over every distance, head or query the step covers.
"""

from __future__ import annotations

import math

import numpy as np

from .check_schemes import lab_result, lengths_past_training
from .checks import EPS, CheckError, Param, check, percent, sci, yes_no


def _t5_bucket_by_hand(r: int, num_buckets: int, max_distance: int, causal: bool) -> int:
    """T5's bucket of relative position r = j − i (Raffel et al. 2020; mesh-tensorflow), one distance at a time."""
    nb, out = num_buckets, 0
    if causal:
        n = max(-r, 0)
    else:
        nb //= 2
        out = nb if r > 0 else 0
        n = abs(r)
    exact = nb // 2
    if n < exact:
        return out + n
    # The logarithm in float32, as T5 computes it (the bucket edges then match the reference exactly).
    scaled = (np.log(np.float32(n) / np.float32(exact)) / np.float32(math.log(max_distance / exact))
              * np.float32(nb - exact))
    return out + min(exact + int(scaled), nb - 1)


@check("t5_buckets",
       "T5 adds one learned number per head and distance bucket: the first buckets hold one distance each, the "
       "next ones ranges that widen logarithmically, and every distance from about max_distance on shares the "
       "last bucket, so T5 cannot tell distance 128 from 100,000.",
       ("exact_buckets", "last_from", "mismatches", "distances", "widest"),
       cost=lambda num_buckets, max_distance, distances: 8 * distances,
       num_buckets=Param("int", 32, 4, 1024), max_distance=Param("int", 128, 8, 100000),
       distances=Param("int", 100000, 16, 1000000, "distances 0 … this − 1, both directions"))
def t5_buckets(num_buckets: int, max_distance: int, distances: int):
    from ..schemes.t5 import relative_position_bucket

    if max_distance <= num_buckets // 2:
        raise CheckError(f"max_distance must exceed num_buckets/2 = {num_buckets // 2}")
    r = -np.arange(distances)  # a key r positions before its query (causal)
    app = np.asarray(relative_position_bucket(r, False, num_buckets, max_distance))
    probe = np.unique(np.concatenate([np.arange(min(distances, 4 * max_distance)),
                                      np.geomspace(1, distances - 1, 200).astype(int)]))
    mismatches = sum(int(app[n]) != _t5_bucket_by_hand(-int(n), num_buckets, max_distance, True) for n in probe)
    exact = num_buckets // 2
    one_each = bool(np.array_equal(app[:exact], np.arange(exact)))
    last = int(np.argmax(app == num_buckets - 1)) if np.any(app == num_buckets - 1) else distances
    widths = np.diff(np.flatnonzero(np.diff(app)) + 1)
    shares = bool(np.all(app[last:] == num_buckets - 1))
    values = {"exact_buckets": exact, "last_from": last, "mismatches": mismatches, "distances": distances,
              "widest": int(widths.max()) if widths.size else 1}
    ok = mismatches == 0 and one_each and shares and last <= max_distance
    return values, ok, (
        f"{num_buckets} buckets, max_distance {max_distance}: distances 0 … {exact - 1} one bucket each: "
        f"{yes_no(one_each)}; the widest bucket below it holds {values['widest']} distances; the last bucket "
        f"from distance {last} to {distances - 1:,}: {yes_no(shares)}; against the formula written out at "
        f"{probe.size} distances: {mismatches} differ")


@check("kerple_log_bias",
       "Kerple (log) adds −r₁·log(1 + r₂·|i − j|) per head: like ALiBi it falls at every distance, but "
       "logarithmically, so in every head 8 times farther costs less than the 8 times more ALiBi's straight line "
       "does (much less once r₂·distance is large).",
       ("max_difference", "bound", "kerple_ratio", "alibi_ratio", "heads"),
       cost=lambda heads, positions: 3 * heads * positions * positions,
       compare={"max_difference": "bound", "kerple_ratio": "alibi_ratio"},
       heads=Param("int", 8, 1, 64), positions=Param("int", 512, 16, 4096))
def kerple_log_bias(heads: int, positions: int):
    from .. import schemes as registry
    from ..schemes.kerple import swap_rates

    bias = np.asarray(registry.get("kerple").swap_terms(positions, 2 * heads, heads, 0, True).bias)
    r1, r2 = swap_rates(heads, 0)
    dist = np.abs(np.subtract.outer(np.arange(positions), np.arange(positions))).astype(np.float64)
    want = -r1[:, None, None] * np.log(1.0 + r2[:, None, None] * dist[None])
    diff = float(np.abs(bias - want).max())
    bound = 8.0 * EPS * float(np.abs(want).max() + 1.0)
    row = bias[:, -1, ::-1]  # the last query's bias at distance 0 … positions − 1
    falls = bool(np.all(np.diff(row, axis=1) < 0))
    near, far = positions // 8, positions - 1
    kerple_ratio = float((row[:, far] / row[:, near]).max())
    values = {"max_difference": diff, "bound": bound, "kerple_ratio": kerple_ratio,
              "alibi_ratio": far / near, "heads": heads}
    return values, diff <= bound and falls and kerple_ratio < (1 - 1e-9) * far / near, (
        f"{heads} heads, {positions} positions: the bias against −r₁·log(1 + r₂·|i − j|) written out: {sci(diff)} "
        f"(rounding allows {sci(bound)}); falls at every distance: {yes_no(falls)}; from distance {near} to {far} it "
        f"grows at most {kerple_ratio:.2f}× (ALiBi's: {far / near:.2f}×)")


@check("fire_normalised",
       "FIRE feeds its MLP ψ(i − j)/ψ(max(L, i)), ψ(x) = log(c·x + 1): dividing by the query's own position "
       "keeps every input in [0, 1), so a query far past training sees the inputs it was trained on; divided "
       "by ψ(L) alone they would grow past 1.",
       ("max_input", "trained_max", "unnormalised_max", "max_difference", "bound"),
       cost=lambda l_train, factor: 4 * int(factor * l_train) ** 2,
       compare={"max_difference": "bound", "unnormalised_max": "trained_max"},
       l_train=Param("int", 128, 2, 4096, "L (FIRE's threshold)"), factor=Param("float", 8.0, 1.0, 64.0))
def fire_normalised(l_train: int, factor: float):
    from ..schemes.fire import INIT_C, normalised_distance

    n = int(round(factor * l_train))
    i = np.arange(n, dtype=np.float64)[:, None]
    j = np.arange(n, dtype=np.float64)[None, :]
    past = np.broadcast_to(j <= i, (n, n))
    app = np.asarray(normalised_distance(i, j, INIT_C, float(l_train)))[past]
    psi_d = np.log(INIT_C * np.abs(i - j) + 1.0)
    want = (psi_d / (np.log(INIT_C * np.maximum(float(l_train), i) + 1.0) + 1e-6))[past]
    unnorm = float((psi_d / np.log(INIT_C * l_train + 1.0))[past].max())
    trained = np.broadcast_to(i < l_train, (n, n))[past]
    values = {"max_input": float(app.max()), "trained_max": float(app[trained].max()),
              "unnormalised_max": unnorm, "max_difference": float(np.abs(app - want).max()), "bound": 16 * EPS}
    ok = values["max_difference"] <= values["bound"] and values["max_input"] < 1.0 and (factor == 1 or unnorm > 1)
    return values, ok, (
        f"L = {l_train}, queries up to {n - 1:,}: every input in [0, 1): largest {values['max_input']:.7f} (in "
        f"training {values['trained_max']:.7f}); against the formula written out: {sci(values['max_difference'])}; "
        f"divided by ψ(L) alone the inputs would reach {unnorm:.3f}")


@check("xpos_decay",
       "xPos is RoPE whose pairs also shrink with distance: pair k of a query–key pair Δ apart is scaled by "
       "ζ_k^(Δ/512), ζ_k = (2k/d + 0.4)/1.4 < 1, so the fast pairs fade within a few hundred positions and the "
       "slowest hardly at all.",
       ("scale_error", "bound", "fast_scale", "slow_scale", "distance"),
       cost=lambda head_dim, distance: 8 * (distance + 1) * head_dim,
       compare={"scale_error": "bound"},
       head_dim=Param("int", 64, 4, 1024), distance=Param("int", 1024, 1, 100000))
def xpos_decay(head_dim: int, distance: int):
    from .. import schemes as registry

    d = head_dim - head_dim % 2
    terms = registry.get("xpos").swap_terms(distance + 1, d, 1, 0, True)
    if terms.rotate is None:
        raise CheckError("check xpos_decay: xPos has no rotation the check can run")
    # One unit vector per pair at the key (position 0) and the query (position Δ): the product of their scales.
    q = terms.rotate(_pairs_at(distance + 1, d, distance))[distance]
    rotate_k = terms.rotate_k or terms.rotate
    k = rotate_k(_pairs_at(distance + 1, d, 0))[0]
    scale = np.hypot(q[0::2], q[1::2]) * np.hypot(k[0::2], k[1::2])
    zeta = (np.arange(0, d, 2) / d + 0.4) / 1.4
    want = zeta ** (distance / 512.0)
    err = float(np.abs(scale - want).max())
    bound = 16.0 * (distance + 1) * EPS
    values = {"scale_error": err, "bound": bound, "fast_scale": float(scale[0]), "slow_scale": float(scale[-1]),
              "distance": distance}
    fades = bool(np.all(np.diff(scale) > 0)) and scale[-1] <= 1.0
    return values, err <= bound and fades, (
        f"head_dim {d}, Δ = {distance:,}: each pair's scale against ζ_k^(Δ/512) written out: {sci(err)} (rounding "
        f"allows {sci(bound)}); pair 0 keeps {scale[0]:.3g} of its size, the last pair {scale[-1]:.3f}; slower "
        f"pairs keep more: {yes_no(fades)}")


def _title(sid: str) -> str:
    from .. import schemes as registry

    return registry.get(sid).title if sid in registry.ids() else sid


def _pairs_at(n: int, d: int, row: int) -> np.ndarray:
    """An (n, d) array that is 1 in the first column of every pair at ``row`` (a unit vector per pair)."""
    out = np.zeros((n, d))
    out[row, 0::2] = 1.0
    return out


@check("lab_holds_past_training",
       "Trained short and tested long in a saved Lab run, the schemes listed as holding keep their accuracy past "
       "the training length (within 5 points of it at every test length), and those listed as falling drop by "
       "more than 5 points at some test length.",
       ("train_len", "longest", "held", "dropped", "chance", "last_symbol", "rope_longest", "best_longest",
        "accuracies"),
       slow=True, cost=lambda result, holds, drops: 0,
       compare={"rope_longest": "last_symbol", "best_longest": "chance"},
       result=Param("name", "lab_after_rope.json", help="a saved Lab result in resources/lessons/data"),
       holds=Param("text", help="schemes expected to hold (comma-separated ids)"),
       drops=Param("text", help="schemes expected to fall (comma-separated ids)"))
def lab_holds_past_training(result: str, holds: str, drops: str):
    res = lab_result(result)
    cfg = res.config
    longer = lengths_past_training(res, result)

    def accuracy(sid: str, n: int) -> float:
        s = res.scheme(sid)
        r = s.at(n) if s is not None else None
        if r is None or not r.ran:
            raise CheckError(f"{result} has no accuracy of {sid} at {n}")
        return float(r.accuracy or 0.0)

    def ids(text: str) -> list[str]:
        return [x.strip() for x in text.split(",") if x.strip()]

    held = [s for s in ids(holds) if all(accuracy(s, n) >= accuracy(s, cfg.train_len) - 0.05 for n in longer)]
    dropped = [s for s in ids(drops) if any(accuracy(s, n) < accuracy(s, cfg.train_len) - 0.05 for n in longer)]
    longest = max(longer)
    best = max(ids(holds), key=lambda s: accuracy(s, longest))
    shown = "; ".join(f"{_title(s)} {percent(accuracy(s, cfg.train_len))} → {percent(accuracy(s, longest))}"
                      for s in ids(holds) + ids(drops))
    values = {"train_len": cfg.train_len, "longest": longest, "held": ", ".join(map(_title, held)) or "none",
              "dropped": ", ".join(map(_title, dropped)) or "none", "chance": res.chance,
              "last_symbol": res.last_symbol_baseline, "rope_longest": accuracy(ids(drops)[0], longest),
              "best_longest": accuracy(best, longest), "accuracies": shown}
    ok = len(held) == len(ids(holds)) and len(dropped) == len(ids(drops))
    return values, ok, (
        f"trained at {cfg.train_len}, tested to {longest}: {shown} (chance {percent(res.chance)}, the last symbol "
        f"alone {percent(res.last_symbol_baseline)}); within 5 points at every length: {values['held']}; fell: "
        f"{values['dropped']}")
