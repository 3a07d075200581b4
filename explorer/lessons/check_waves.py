"""Live checks on the sinusoidal table: the formula, its frequencies, its longest wavelength, bounds,
uniqueness, one token at two positions, and consistency across lengths.

The table is :func:`explorer.encodings.sinusoidal.sinusoidal` (the Waves panel's); the design properties come
from :mod:`explorer.encodings.candidates` (the "Why sinusoids?" scorecard) and the token readout from
:mod:`explorer.jobs.waves`.  Each check compares what those functions compute with the formula written out
here, over every row, pair or size the step lets the student choose.
"""

from __future__ import annotations

import math

import numpy as np

from .checks import EPS, CheckError, Param, check, sci, yes_no

_D = Param("int", 128, 2, 4096, "d_model (even)")
_BASE = Param("float", 10000.0, 2.0, 1e9, "base")
#: Rows a check computes at a time (what it holds stays small at any N).
CHUNK = 2**14


def even(d: int) -> int:
    if d % 2:
        raise CheckError(f"d_model must be even, got {d}")
    return d


def omega_by_hand(d: int, base: float) -> np.ndarray:
    """ω_i = 1/base^(2i/d), i = 0 … d/2 − 1, written out (Vaswani et al. 2017, §3.5)."""
    return 1.0 / base ** (np.arange(0, d, 2, dtype=np.float64) / d)


@check("sinusoid_formula",
       "PE(p, 2i) = sin(p / base^(2i/d)) and PE(p, 2i+1) = cos(p / base^(2i/d)): the app's table is this "
       "formula, written out here independently, at every row and column (p·ω and p/base^(2i/d) round "
       "differently: they agree to about N·ε).",
       ("max_difference", "bound", "pe_1_0", "pe_1_1"),
       cost=lambda d_model, base, positions: 4 * min(positions, CHUNK) * d_model,
       compare={"max_difference": "bound"},
       d_model=_D, base=_BASE, positions=Param("int", 512, 2, 65536, "rows compared"))
def sinusoid_formula(d_model: int, base: float, positions: int):
    from ..encodings.sinusoidal import sinusoidal

    d = even(d_model)
    two_i = np.arange(0, d, 2, dtype=np.float64)[None, :]
    diff = 0.0
    for start in range(0, positions, CHUNK):  # the app's table for these rows, against the formula by hand
        p = np.arange(start, min(start + CHUNK, positions), dtype=np.float64)
        table = sinusoidal(p, d, base, "paper")
        hand = np.empty_like(table)
        hand[:, 0::2] = np.sin(p[:, None] / base ** (two_i / d))
        hand[:, 1::2] = np.cos(p[:, None] / base ** (two_i / d))
        diff = max(diff, float(np.abs(table - hand).max()))
    first = sinusoidal(np.array([1.0]), d, base, "paper")[0]
    bound = 4.0 * positions * EPS + 4 * EPS
    values = {"max_difference": diff, "bound": bound, "pe_1_0": float(first[0]), "pe_1_1": float(first[1])}
    return values, diff <= bound, (f"{positions:,} rows × {d} columns against the written-out formula: largest "
                                   f"difference {sci(diff)} (rounding allows 4·N·ε = {sci(bound)})")


@check("fastest_pair",
       "Pair 0 (i = 0) turns fastest: in the app's table each pair moves less from one position to the next "
       "than the pair before it, pair 0 repeats every 2π ≈ 6.28 positions and the last pair the slowest.",
       ("fastest_index", "wavelength_first", "wavelength_last"),
       cost=lambda d_model, base: 128 * d_model,
       d_model=_D, base=_BASE)
def fastest_pair(d_model: int, base: float):
    from ..encodings.sinusoidal import sinusoidal, wavelengths

    d = even(d_model)
    table = sinusoidal(64, d, base, "paper")
    # How far each pair moves per step, averaged over 63 steps: larger for a faster pair.
    step = np.hypot(np.diff(table[:, 0::2], axis=0), np.diff(table[:, 1::2], axis=0)).mean(axis=0)
    fastest = int(np.argmax(step))
    lam = wavelengths(d, base, "paper")
    want = 2 * math.pi / omega_by_hand(d, base)
    values = {"fastest_index": fastest, "wavelength_first": float(lam[0]), "wavelength_last": float(lam[-1])}
    ok = (fastest == 0 and bool(np.all(np.diff(step) < 0)) and abs(lam[0] - 2 * math.pi) < 1e-12
          and bool(np.allclose(lam, want, rtol=1e-12, atol=0)))
    falling = yes_no(bool(np.all(np.diff(step) < 0)))
    return values, ok, (f"per-step move of each pair in the table, largest at pair {fastest}, falling at every "
                        f"pair after it: {falling}; wavelengths {lam[0]:.4f} (pair 0) … {lam[-1]:,.1f} "
                        f"(pair {d // 2 - 1})")


@check("largest_wavelength",
       "In the paper's interleaved layout the longest wavelength is 2π·base^((d−2)/d), the last pair's, at every "
       "even d: below 2π·base. The paper's own sentence (§3.5) “from 2π to 10000·2π” is exact for the "
       "tensor2tensor layout, whose slowest frequency is exactly 1/base.",
       ("largest", "claimed", "excess_percent", "below_percent", "largest_t2t"),
       cost=lambda d_model, base: d_model * d_model,
       compare={"excess_percent": "largest", "below_percent": "claimed"},
       d_model=_D, base=_BASE)
def largest_wavelength(d_model: int, base: float):
    from ..encodings.sinusoidal import wavelengths

    d = even(d_model)
    claimed = 2 * math.pi * base
    worst = 0.0
    for dd in range(4, d + 1, 2):  # every width the student may set, up to this one
        exact = 2 * math.pi * base ** ((dd - 2) / dd)
        worst = max(worst, abs(float(wavelengths(dd, base, "paper").max()) - exact) / exact)
    largest = float(wavelengths(d, base, "paper").max())
    t2t = float(wavelengths(d, base, "t2t").max()) if d >= 4 else claimed
    values = {"largest": largest, "claimed": claimed, "excess_percent": 100.0 * (claimed / largest - 1.0),
              "below_percent": 100.0 * (1.0 - largest / claimed), "largest_t2t": t2t}
    ok = worst <= 1e-12 and largest < claimed and abs(t2t - claimed) <= 1e-12 * claimed
    return values, ok, (
        f"largest wavelength at d = {d}: {largest:,.0f} = 2π·base^((d−2)/d) (every even d ≤ {d}: to "
        f"{sci(worst)} relative); 2π·base = {claimed:,.0f} is {values['excess_percent']:.1f} % more than it; the "
        f"tensor2tensor layout's longest is {t2t:,.0f}")


@check("bounded_values",
       "Every value of the sinusoidal table stays in [−1, 1] and every row has the same length √(d/2), however "
       "far the position (a token vector of N(0, 1) entries has length about √d); the raw position p grows "
       "without bound.",
       ("max_abs", "norm_exact", "norm_spread", "norm_bound", "max_abs_integer", "token_norm"),
       cost=lambda d_model, positions: 3 * min(positions, CHUNK) * d_model + 2 * positions,
       compare={"norm_spread": "norm_bound", "max_abs_integer": "token_norm"},
       d_model=Param("int", 64, 2, 256), positions=Param("int", 131072, 2, 131072))
def bounded_values(d_model: int, positions: int):
    from ..encodings.candidates import encode

    d = even(d_model)
    exact = math.sqrt(d / 2)
    top = spread = raw = 0.0
    for start in range(0, positions, CHUNK):  # the scorecard's own rows, a chunk at a time
        p = np.arange(start, min(start + CHUNK, positions))
        table = encode("sinusoidal", p, positions, d)
        top = max(top, float(np.abs(table).max()))
        spread = max(spread, float(np.abs(np.linalg.norm(table, axis=1) - exact).max()))
        raw = max(raw, float(np.abs(encode("integer", p, positions, d)).max()))
    bound = 8.0 * d * EPS * exact
    values = {"max_abs": top, "norm_exact": exact, "norm_spread": spread, "norm_bound": bound,
              "max_abs_integer": raw, "token_norm": math.sqrt(d)}
    ok = top <= 1.0 + 4 * EPS and spread <= bound and raw >= positions - 1
    return values, ok, (f"N = {positions:,}: largest |PE| {top:.3f}; every row's length √(d/2) = {exact:.3f} to "
                        f"{sci(spread)} (rounding allows {sci(bound)}); raw integer: up to {raw:,.0f} (a token "
                        f"vector's length ≈ √d = {math.sqrt(d):.1f})")


@check("unique_rows",
       "Every position gets its own combination of sines and cosines: no two rows of the table are equal, and "
       "even the two closest are far apart compared with a row's length.",
       ("distinct", "rows", "min_distance", "row_length"),
       cost=lambda d_model, positions: 2 * positions * positions + positions * d_model,
       compare={"min_distance": "row_length"},
       d_model=Param("int", 64, 2, 512), positions=Param("int", 2048, 2, 2048))
def unique_rows(d_model: int, positions: int):
    from ..encodings.candidates import distinct_rows
    from ..encodings.sinusoidal import sinusoidal

    d = even(d_model)
    table = sinusoidal(positions, d, 10000.0, "paper")
    distinct = distinct_rows(table)
    sq = (table * table).sum(1)
    gram = sq[:, None] + sq[None, :] - 2.0 * (table @ table.T)
    np.fill_diagonal(gram, np.inf)
    closest = float(math.sqrt(max(float(gram.min()), 0.0)))
    length = math.sqrt(d / 2)
    values = {"distinct": distinct, "rows": positions, "min_distance": closest, "row_length": length}
    return values, distinct == positions and closest > 1e-6 * length, (
        f"{distinct:,} distinct rows of {positions:,}; the two closest rows are {closest:.3f} apart (a row's "
        f"length is {length:.2f})")


@check("same_token_two_positions",
       "One token at two positions gives two different input vectors: x + PE(p1) − (x + PE(p2)) = PE(p1) − "
       "PE(p2), whose length 2·√(Σᵢ sin²((p2 − p1)·ωᵢ/2)) is above 0 for every offset.",
       ("cos_inputs", "distance", "distance_formula", "difference", "bound", "norm_token"),
       cost=lambda d_model, p1, p2, seed: 8 * d_model,
       compare={"difference": "bound", "distance": "norm_token"},
       d_model=_D, p1=Param("int", 3, 0, 100000), p2=Param("int", 40, 0, 100000),
       seed=Param("int", 0, 0, 2**31 - 1, "seed of the token vector"))
def same_token_two_positions(d_model: int, p1: int, p2: int, seed: int):
    from ..jobs.waves_pick import token_readout

    d = even(d_model)
    if p1 == p2:
        raise CheckError(f"p1 and p2 must differ, both are {p1}")
    r = token_readout(d, 10000.0, "paper", 1.0, seed, p1, p2)
    dist = float(np.linalg.norm(r["v1"] - r["v2"]))
    want = 2.0 * math.sqrt(float(np.sum(np.sin((p2 - p1) * omega_by_hand(d, 10000.0) / 2.0) ** 2)))
    bound = 4.0 * (max(p1, p2) + 1) * d * EPS
    values = {"cos_inputs": r["cos_tokens"], "distance": dist, "distance_formula": want,
              "difference": abs(dist - want), "bound": bound, "norm_token": r["norm_x"]}
    return values, abs(dist - want) <= bound and want > 0, (
        f"the same token at positions {p1} and {p2}: cosine {r['cos_tokens']:.4f}, distance {dist:.3f} (the "
        f"formula: {want:.3f}, apart by {sci(abs(dist - want))}, rounding allows {sci(bound)}; the token vector "
        f"has length {r['norm_x']:.2f})")


@check("consistent_encoding",
       "The sinusoidal vector of a position does not depend on the sequence length: at every length the "
       "scorecard compares, the first rows are the same numbers, and they are the formula's; p/N changes with "
       "N, so the same position means something else in a longer text.",
       ("change", "formula_difference", "bound", "change_fraction", "smallest_n", "largest_n"),
       cost=lambda d_model: 64 * d_model,
       compare={"change": "bound", "formula_difference": "bound"},
       d_model=Param("int", 64, 2, 256))
def consistent_encoding(d_model: int):
    from ..encodings.candidates import encode
    from ..jobs.why import GROWTH_N  # the lengths the "Why sinusoids?" tab compares: the same number as its cell

    d, first_n = even(d_model), min(GROWTH_N)
    small = np.arange(first_n)
    hand = np.empty((first_n, d))
    angles = np.multiply.outer(small.astype(np.float64), omega_by_hand(d, 10000.0))
    hand[:, 0::2], hand[:, 1::2] = np.sin(angles), np.cos(angles)

    def change(kind: str) -> float:
        first = encode(kind, small, first_n, d)
        return max(float(np.abs(encode(kind, small, n, d) - first).max()) for n in GROWTH_N)

    formula = max(float(np.abs(encode("sinusoidal", small, n, d) - hand).max()) for n in GROWTH_N)
    bound = 4.0 * first_n * EPS
    values = {"change": change("sinusoidal"), "formula_difference": formula, "bound": bound,
              "change_fraction": change("fraction"), "smallest_n": first_n, "largest_n": max(GROWTH_N)}
    ok = values["change"] <= bound and formula <= bound and values["change_fraction"] > 1e-3
    return values, ok, (
        f"PE(p), p < {first_n}, for N = {first_n} … {max(GROWTH_N):,}: changes by {sci(values['change'])} and "
        f"differs from the formula by {sci(formula)} (rounding allows {sci(bound)}); p/N changes by "
        f"{values['change_fraction']:.3f}")
