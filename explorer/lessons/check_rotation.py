"""Live checks on how the sinusoidal pairs turn: PE(p+k) as a fixed rotation of PE(p), and what fast and slow
pairs can tell apart.

The rotation readout is the Waves panel's own (:func:`explorer.jobs.waves_pick.rotation_readout`), the table
:func:`explorer.encodings.sinusoidal.sinusoidal`; both are checked at every position p the step covers.
"""

from __future__ import annotations

import math

import numpy as np

from .check_waves import even
from .checks import EPS, CheckError, Param, check, sci, yes_no

#: Rows over which rotation_identity also checks every pair at once (the chosen pair is checked over all N).
ALL_PAIRS_ROWS = 8192
#: Rows the least-squares fit of one matrix M_k uses.
FIT_ROWS = 1024


def _rotation_cost(positions: int, k: int, pair: int, d_model: int, base: float) -> int:
    return 10 * positions + 6 * min(positions, ALL_PAIRS_ROWS) * d_model + 3 * FIT_ROWS * d_model + d_model**2


@check("rotation_identity",
       "PE(p+k) is PE(p) turned by a fixed rotation R(k) in every pair, the same for every p. Measured "
       "in float64 the error is not zero: it grows like N·ω·ε (ε = 2.2e-16).",
       ("error", "bound", "error_all_pairs", "bound_all_pairs", "linear_residual", "residual_bound"),
       cost=_rotation_cost,
       compare={"error": "bound", "error_all_pairs": "bound_all_pairs", "linear_residual": "residual_bound"},
       positions=Param("int", 256, 2, 131072, "N: p = 0 … N−1"), k=Param("int", 8, 1, 100000, "offset"),
       pair=Param("int", 2, 0, 2047), d_model=Param("int", 128, 2, 4096, "d_model (even)"),
       base=Param("float", 10000.0, 2.0, 1e9, "base"))
def rotation_identity(positions: int, k: int, pair: int, d_model: int, base: float):
    from ..encodings.candidates import linear_map_residual
    from ..encodings.sinusoidal import frequencies, rotation_error, sinusoidal
    from ..jobs.waves_pick import rotation_readout

    d = even(d_model)
    omega = frequencies(d, base, "paper")
    if pair >= omega.size:
        raise CheckError(f"pair must be below d_model/2 = {omega.size}, got {pair}")
    err = float(rotation_readout(float(omega[pair]), k, positions)["error"])
    rows = min(positions, ALL_PAIRS_ROWS)
    every = rotation_error(k, d, rows, base, "paper")
    bound = 4.0 * (positions + k) * float(omega[pair]) * EPS + 4 * EPS
    bound_all = 4.0 * (rows + k) * float(omega.max()) * EPS + 4 * EPS
    fit = min(positions, FIT_ROWS)
    resid = linear_map_residual(sinusoidal(fit, d, base, "paper"), min(k, fit - 2)) if fit >= 3 else 0.0
    resid_bound = 64.0 * d * fit * EPS
    values = {"error": err, "bound": bound, "error_all_pairs": every, "bound_all_pairs": bound_all,
              "linear_residual": resid, "residual_bound": resid_bound}
    ok = err <= bound and every <= bound_all and resid <= resid_bound
    return values, ok, (
        f"max over p < {positions:,} of |R({k})·PE(p) − PE(p+{k})|, pair {pair}: {sci(err)} (rounding allows "
        f"4(N+k)·ω·ε = {sci(bound)}); all pairs, p < {rows:,}: {sci(every)} (allowed {sci(bound_all)}); one "
        f"least-squares matrix M_k: residual {sci(resid)} (allowed {sci(resid_bound)})")


@check("multi_resolution",
       "Fast pairs tell neighbours apart; slow pairs tell distances apart: at every offset up to 'near' pair 0 "
       "moves more than the last pair; up to 'far' the last pair's move grows with the offset at every step "
       "(one reading, one distance), while pair 0 goes round every 2π positions and keeps coming back near "
       "where it started.",
       ("fast_near", "slow_near", "fast_far", "slow_far", "fast_returns", "far"),
       cost=lambda near, far, d_model, base: 4 * (far + 2) * d_model,
       compare={"slow_near": "fast_near"},
       near=Param("int", 3, 1, 3, "offsets 1 … near (within half a turn of pair 0)"),
       far=Param("int", 5000, 2, 1000000, "offsets 1 … far"), d_model=Param("int", 128, 2, 4096),
       base=Param("float", 10000.0, 2.0, 1e9))
def multi_resolution(near: int, far: int, d_model: int, base: float):
    from ..encodings.sinusoidal import sinusoidal

    d = even(d_model)
    slowest = 2 * math.pi * base ** ((d - 2) / d)  # the last pair's wavelength, from the formula
    if far > slowest / 2:
        raise CheckError(f"far must be at most half the slowest wavelength ({slowest / 2:,.0f}) for d = {d}, "
                         f"got {far:,}")
    table = sinusoidal(far + 1, d, base, "paper")  # row Δ: PE(Δ); its move from PE(0) is the same from any p
    moved = np.hypot(table[:, 0::2] - table[0, 0::2], table[:, 1::2] - table[0, 1::2])
    fast, slow = moved[:, 0], moved[:, -1]
    near_ok = bool(np.all(fast[1:near + 1] > slow[1:near + 1]))
    slow_grows = bool(np.all(np.diff(slow[1:]) > 0))
    returns = int(np.sum(fast[2:] < fast[1]))  # offsets where pair 0 is nearer its start than after one step
    values = {"fast_near": float(fast[1]), "slow_near": float(slow[1]), "fast_far": float(fast[far]),
              "slow_far": float(slow[far]), "fast_returns": returns, "far": far}
    return values, near_ok and slow_grows and returns > 0, (
        f"offsets 1 … {near}: pair 0 moves more than the last pair at each ({fast[1]:.3f} against "
        f"{slow[1]:.1e} at 1); offsets 1 … {far:,}: the last pair's move grows at every step: {yes_no(slow_grows)} "
        f"(to {slow[far]:.3f}); pair 0 comes back nearer its start than one step away at {returns:,} offsets")
