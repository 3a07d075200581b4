"""Live checks on the sinusoidal table: the formula, its frequencies, bounds, uniqueness, rotations, resolution.

The table is :func:`explorer.encodings.sinusoidal` (the Waves panel's); the design properties come from
:mod:`explorer.encodings.candidates` (the "Why sinusoids?" scorecard).
"""

from __future__ import annotations

import math

import numpy as np

from .checks import Param, check

_D = Param("int", 128, 2, 4096, "d_model (even)")
_BASE = Param("float", 10000.0, 2.0, 1e9, "base")
EPS = float(np.finfo(np.float64).eps)
#: Rows over which rotation_identity also checks every pair at once (the chosen pair is checked over all N).
ALL_PAIRS_ROWS = 8192


def _even(d: int) -> int:
    if d % 2:
        from .checks import CheckError

        raise CheckError(f"d_model must be even, got {d}")
    return d


@check("sinusoid_formula",
       "PE(p, 2i) = sin(p / base^(2i/d)) and PE(p, 2i+1) = cos(p / base^(2i/d)): the app's table is this "
       "formula, written out here independently (p·ω and p/base^(2i/d) round differently: they agree to "
       "about N·ε).",
       ("max_difference", "bound", "pe_1_0", "pe_1_1"),
       d_model=_D, base=_BASE, positions=Param("int", 512, 1, 65536, "rows compared"))
def sinusoid_formula(d_model: int, base: float, positions: int):
    from ..encodings import sinusoidal

    d = _even(d_model)
    table = sinusoidal(positions, d, base, "paper")
    p = np.arange(positions, dtype=np.float64)[:, None]
    two_i = np.arange(0, d, 2, dtype=np.float64)[None, :]
    hand = np.empty((positions, d))
    hand[:, 0::2] = np.sin(p / base ** (two_i / d))
    hand[:, 1::2] = np.cos(p / base ** (two_i / d))
    diff = float(np.abs(table - hand).max())
    bound = 4.0 * positions * EPS + 4 * EPS
    values = {"max_difference": diff, "bound": bound, "pe_1_0": float(table[1, 0]) if positions > 1 else 0.0,
              "pe_1_1": float(table[1, 1]) if positions > 1 else 1.0}
    return values, diff <= bound, (f"{positions:,} rows × {d} columns against the written-out formula: largest "
                                   f"difference {diff:.1e} (rounding: ≤ 4·N·ε = {bound:.1e})")


@check("fastest_pair",
       "Pair 0 (i = 0) turns fastest: ω_i = base^(−2i/d) falls with i, so pair 0 has the shortest "
       "wavelength, 2π ≈ 6.28 positions, and the last pair the longest.",
       ("fastest_index", "wavelength_first", "wavelength_last"),
       d_model=_D, base=_BASE)
def fastest_pair(d_model: int, base: float):
    from ..encodings import frequencies, wavelengths

    d = _even(d_model)
    omega = frequencies(d, base, "paper")
    lam = wavelengths(d, base, "paper")
    fastest = int(np.argmax(omega))
    values = {"fastest_index": fastest, "wavelength_first": float(lam[0]), "wavelength_last": float(lam[-1])}
    ok = fastest == 0 and bool(np.all(np.diff(omega) < 0)) and abs(lam[0] - 2 * math.pi) < 1e-12
    return values, ok, (f"fastest pair: i = {fastest}, wavelength {lam[0]:.4f}; slowest: i = {d // 2 - 1}, "
                        f"wavelength {lam[-1]:,.1f}")


@check("largest_wavelength",
       "The longest wavelength is 2π·base^((d−2)/d), the last pair's: below 2π·base, the figure some "
       "texts give for the top of the range.",
       ("largest", "claimed", "shortfall_percent"),
       d_model=_D, base=_BASE)
def largest_wavelength(d_model: int, base: float):
    from ..encodings import wavelengths

    d = _even(d_model)
    largest = float(wavelengths(d, base, "paper").max())
    exact = 2 * math.pi * base ** ((d - 2) / d)
    claimed = 2 * math.pi * base
    short = 100.0 * (1.0 - largest / claimed)
    values = {"largest": largest, "claimed": claimed, "shortfall_percent": short}
    return values, abs(largest - exact) <= 1e-9 * exact and largest < claimed, (
        f"largest wavelength at d = {d}: {largest:,.0f} (2π·base^((d−2)/d) = {exact:,.0f}); 2π·base = "
        f"{claimed:,.0f}, {short:.1f} % higher than the truth")


@check("same_token_two_positions",
       "One token at two positions gives two different input vectors: x + PE(p1) ≠ x + PE(p2).",
       ("cos_inputs", "distance", "norm_token"),
       d_model=_D, p1=Param("int", 3, 0, 100000), p2=Param("int", 40, 0, 100000),
       seed=Param("int", 0, 0, 2**31 - 1, "seed of the token vector"))
def same_token_two_positions(d_model: int, p1: int, p2: int, seed: int):
    from ..jobs.waves import token_readout

    r = token_readout(_even(d_model), 10000.0, "paper", 1.0, seed, p1, p2)
    dist = float(np.linalg.norm(r["v1"] - r["v2"]))
    values = {"cos_inputs": r["cos_tokens"], "distance": dist, "norm_token": r["norm_x"]}
    return values, p1 != p2 and dist > 1e-9, (
        f"the same token at positions {p1} and {p2}: cosine {r['cos_tokens']:.4f}, distance {dist:.3f} "
        f"(the token vector itself has norm {r['norm_x']:.2f})")


@check("unique_rows",
       "Every position gets its own combination of sines and cosines: no two rows of the table are equal.",
       ("distinct", "rows", "min_distance"),
       d_model=Param("int", 64, 2, 512), positions=Param("int", 2048, 2, 4096))
def unique_rows(d_model: int, positions: int):
    from ..encodings import sinusoidal
    from ..encodings.candidates import distinct_rows

    table = sinusoidal(positions, _even(d_model), 10000.0, "paper")
    distinct = distinct_rows(table)
    sq = (table * table).sum(1)
    gram = sq[:, None] + sq[None, :] - 2.0 * (table @ table.T)
    np.fill_diagonal(gram, np.inf)
    closest = float(math.sqrt(max(float(gram.min()), 0.0)))
    values = {"distinct": distinct, "rows": positions, "min_distance": closest}
    return values, distinct == positions and closest > 1e-6, (
        f"{distinct:,} distinct rows of {positions:,}; the two closest rows are {closest:.3f} apart")


def _bounds(kind: str, d: int, n: int) -> tuple[float, float]:
    """Largest |value| and largest ‖row‖/√d of candidate ``kind`` over p < n (the scorecard's "bounded")."""
    from ..encodings.candidates import encode

    table = encode(kind, np.arange(n), n, d)
    return float(np.abs(table).max()), float(np.linalg.norm(table, axis=1).max() / math.sqrt(d))


@check("bounded_values",
       "Sinusoidal values stay in [−1, 1] however long the sequence, so the encoding never swamps the token "
       "vector; the raw position p grows without bound.",
       ("max_abs", "max_abs_integer", "norm_ratio", "norm_ratio_integer"),
       d_model=Param("int", 64, 2, 256), positions=Param("int", 131072, 2, 131072))
def bounded_values(d_model: int, positions: int):
    d = _even(d_model)
    top, ratio = _bounds("sinusoidal", d, positions)
    top_raw, ratio_raw = _bounds("integer", d, positions)
    values = {"max_abs": top, "max_abs_integer": top_raw, "norm_ratio": ratio, "norm_ratio_integer": ratio_raw}
    return values, top <= 1.0 and top_raw > 1.0, (
        f"N = {positions:,}: largest |PE| {top:.3f}, ‖PE‖/√d {ratio:.3f}; raw integer: largest "
        f"{top_raw:,.0f}, {ratio_raw:,.0f}× √d")


@check("consistent_encoding",
       "The sinusoidal vector of a position does not depend on the sequence length; p/N does, so the same "
       "position means something else in a longer text.",
       ("change", "change_fraction", "smallest_n", "largest_n"),
       d_model=Param("int", 64, 2, 256))
def consistent_encoding(d_model: int):
    from ..encodings.candidates import encode
    from ..jobs.why import GROWTH_N  # the lengths the "Why sinusoids?" tab compares: the same number as its cell

    d, first_n = _even(d_model), min(GROWTH_N)
    small = np.arange(first_n)

    def change(kind: str) -> float:
        first = encode(kind, small, first_n, d)
        return max(float(np.abs(encode(kind, small, n, d) - first).max()) for n in GROWTH_N)

    values = {"change": change("sinusoidal"), "change_fraction": change("fraction"), "smallest_n": first_n,
              "largest_n": max(GROWTH_N)}
    return values, values["change"] <= 1e-12 and values["change_fraction"] > 1e-3, (
        f"PE(p), p < {first_n}, for N = {first_n} … {max(GROWTH_N):,}: changes by {values['change']:.1e}; p/N "
        f"changes by {values['change_fraction']:.3f}")


@check("rotation_identity",
       "PE(p+k) is PE(p) turned by a fixed rotation R(k) in every pair, the same for every p. Measured "
       "in float64 the error is not zero: it grows like N·ω·ε (ε = 2.2e-16).",
       ("error", "error_all_pairs", "bound", "linear_residual"),
       positions=Param("int", 256, 2, 131072, "N: p = 0 … N−1"), k=Param("int", 8, 1, 100000, "offset"),
       pair=Param("int", 2, 0, 2047), d_model=_D, base=_BASE)
def rotation_identity(positions: int, k: int, pair: int, d_model: int, base: float):
    from ..encodings import frequencies, rotation_error, sinusoidal
    from ..encodings.candidates import linear_map_residual
    from ..jobs.waves import rotation_readout

    d = _even(d_model)
    omega = frequencies(d, base, "paper")
    if pair >= omega.size:
        from .checks import CheckError

        raise CheckError(f"pair must be below d_model/2 = {omega.size}, got {pair}")
    err = float(rotation_readout(float(omega[pair]), k, positions)["error"])
    every = rotation_error(k, d, min(positions, ALL_PAIRS_ROWS), base, "paper")
    bound = 4.0 * (positions + k) * float(omega[pair]) * EPS + 4 * EPS
    fit = min(positions, 1024)
    resid = linear_map_residual(sinusoidal(fit, d, base, "paper"), min(k, fit - 2)) if fit >= 3 else 0.0
    values = {"error": err, "error_all_pairs": every, "bound": bound, "linear_residual": resid}
    return values, err <= bound and every < 1e-9 and resid < 1e-9, (
        f"max over p < {positions:,} of |R({k})·PE(p) − PE(p+{k})|, pair {pair}: {err:.1e} (≤ 4(N+k)·ω·ε = "
        f"{bound:.1e}); all pairs, p < {min(positions, ALL_PAIRS_ROWS):,}: {every:.1e}; one least-squares "
        f"matrix M_k: residual {resid:.1e}")


@check("multi_resolution",
       "Fast pairs tell neighbours apart; slow pairs tell distant positions apart (a fast pair comes back "
       "to almost where it was).",
       ("fast_near", "slow_near", "fast_far", "slow_far"),
       near=Param("int", 1, 1, 1000), far=Param("int", 710, 2, 1000000), d_model=_D, base=_BASE)
def multi_resolution(near: int, far: int, d_model: int, base: float):
    from ..encodings import frequencies

    omega = frequencies(_even(d_model), base, "paper")

    def chord(delta: int, w: float) -> float:  # |PE_i(p+Δ) − PE_i(p)| = 2|sin(Δω/2)|, any p
        return 2.0 * abs(math.sin(delta * w / 2.0))

    fast, slow = float(omega[0]), float(omega[-1])
    values = {"fast_near": chord(near, fast), "slow_near": chord(near, slow),
              "fast_far": chord(far, fast), "slow_far": chord(far, slow)}
    ok = values["fast_near"] > values["slow_near"] and values["slow_far"] > values["fast_far"]
    return values, ok, (
        f"offset {near}: fast pair moves {values['fast_near']:.3f}, slow pair {values['slow_near']:.1e}; "
        f"offset {far:,}: fast pair {values['fast_far']:.1e}, slow pair {values['slow_far']:.3f}")
