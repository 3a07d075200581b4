"""Sinusoidal absolute positional encoding, in the three layouts students meet in real code.

Variants
--------
``paper`` (Vaswani et al. 2017, "Attention Is All You Need", §3.5)
    Interleaved: ``PE[p, 2i] = sin(p·ω_i)``, ``PE[p, 2i+1] = cos(p·ω_i)``, with
    ``ω_i = base^(-2i/d)``, i = 0 … d/2-1.
``halves``
    The same ω_i, columns ``[sin(p·ω_0) … sin(p·ω_{d/2-1}) | cos(p·ω_0) … cos(p·ω_{d/2-1})]``.
``t2t`` (tensor2tensor ``get_timing_signal_1d``)
    ``[sin | cos]`` halves with ``ω_i = base^(-i/(d/2-1))``, so the slowest frequency is exactly 1/base.
    fairseq's ``SinusoidalPositionalEmbedding`` has these frequencies but other rows: token p gets row
    p + padding_idx + 1, row padding_idx is zero, the base is fixed at 10000, the table is float32, and
    d = 2 raises ZeroDivisionError (it divides by d/2 − 1; tensor2tensor and this module by max(d/2 − 1, 1)).

In every variant pair i = 0 is the FASTEST (ω_0 = 1, wavelength 2π) and the
wavelengths ``2π/ω_i`` grow geometrically with i.
"""

from __future__ import annotations

import numpy as np

from .errors import EncodingError, as_positions, check_base, check_even, check_int, check_size

VARIANTS = ("paper", "halves", "t2t")


def check_variant(variant: str) -> str:
    """Return ``variant`` if it is one of :data:`VARIANTS`."""
    if variant not in VARIANTS:
        raise EncodingError(f"variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    return variant


def frequencies(d_model: int, base: float = 10000.0, variant: str = "paper") -> np.ndarray:
    """Angular frequency ω_i of each sin/cos pair, shape ``(d_model/2,)``.

    ``paper``/``halves``: ω_i = base^(-2i/d).  ``t2t``: ω_i = base^(-i/(d/2-1)) (for d = 2,
    where d/2-1 = 0, tensor2tensor divides by max(d/2-1, 1): ω_0 = 1).
    """
    d = check_even("d_model", d_model)
    b = check_base(base)
    check_variant(variant)
    i = np.arange(d // 2, dtype=np.float64)
    if variant == "t2t":
        return b ** (-i / max(d // 2 - 1, 1))
    return b ** (-2.0 * i / d)


def wavelengths(d_model: int, base: float = 10000.0, variant: str = "paper") -> np.ndarray:
    """Wavelength 2π/ω_i of each pair (in positions), shape ``(d_model/2,)``; increasing in i."""
    return 2.0 * np.pi / frequencies(d_model, base, variant)


def completes_cycle(wavelength, n_positions: int) -> np.ndarray:
    """For each wavelength λ: does a wave of that wavelength turn through a full cycle inside positions 0 … N−1?

    Positions 0 … N−1 span N − 1 steps, so the largest angle a pair meets is (N − 1)·ω and the pair
    completes a cycle iff (N − 1)·ω ≥ 2π, i.e. **λ ≤ N − 1** (not λ ≤ N: at d = 64, base 10⁴,
    N = 63, λ₄₀ ≈ 62.8 > 62 has not come back to its start at position 62).  The one rule for every
    count of "slow" pairs (Waves' spectrum and beyond-training readouts, Schemes' RoPE pairs that turn
    fully inside L_train).  Boolean array shaped like ``wavelength``.
    """
    n = check_int("positions", n_positions, minimum=1)
    return np.asarray(wavelength, dtype=np.float64) <= n - 1


def column_pair(d_model: int, variant: str = "paper") -> tuple[np.ndarray, np.ndarray]:
    """For each column c of PE: its pair index i and whether it is a cos (True) or sin (False)."""
    d = check_even("d_model", d_model)
    check_variant(variant)
    c = np.arange(d)
    if variant == "paper":
        return c // 2, (c % 2).astype(bool)
    half = d // 2
    return c % half, c >= half


def pair_columns(i: int, d_model: int, variant: str = "paper") -> tuple[int, int]:
    """Columns (sin, cos) that hold pair ``i``."""
    d = check_even("d_model", d_model)
    check_variant(variant)
    i = check_int("pair", i, minimum=0, maximum=d // 2 - 1)
    if variant == "paper":
        return 2 * i, 2 * i + 1
    return i, i + d // 2


def sinusoidal(positions, d_model: int, base: float = 10000.0, variant: str = "paper") -> np.ndarray:
    """The sinusoidal encoding table, float64, shape ``(N, d_model)``.

    Parameters
    ----------
    positions : int or array
        N (meaning positions 0 … N-1) or an explicit 1-D array of non-negative positions.
    d_model : int
        Even model width.
    base : float
        Frequency base (10000 in the paper), > 1.
    variant : {"paper", "halves", "t2t"}
        Column layout and frequency spacing, see the module docstring.
    """
    d = check_even("d_model", d_model)
    omega = frequencies(d, base, variant)
    if isinstance(positions, (int, np.integer)) and not isinstance(positions, bool):
        check_size(int(positions), d, what="sinusoidal table")
    p = as_positions(positions)
    check_size(p.size, d, what="sinusoidal table")
    angles = np.multiply.outer(p, omega)
    out = np.empty((p.size, d), dtype=np.float64)
    if variant == "paper":
        out[:, 0::2] = np.sin(angles)
        out[:, 1::2] = np.cos(angles)
    else:
        out[:, : d // 2] = np.sin(angles)
        out[:, d // 2 :] = np.cos(angles)
    return out


def rotation(k: float, omega: float) -> np.ndarray:
    """The 2×2 matrix R(k) with ``R(k) @ [sin(pω), cos(pω)] = [sin((p+k)ω), cos((p+k)ω)]`` for every p.

    R(k) = [[cos kω,  sin kω], [-sin kω, cos kω]] — it depends on the offset k only, never on p,
    which is why a linear layer can attend by relative position (Vaswani et al. 2017, §3.5).
    """
    a = float(k) * float(omega)
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, s], [-s, c]], dtype=np.float64)


def rotation_error(k: int, d_model: int, positions, base: float = 10000.0, variant: str = "paper") -> float:
    """max over p and pairs of |R(k)·PE(p) − PE(p+k)| — zero up to float64 rounding of the angles, which grows
    like (N + k)·ω·ε (see :func:`rotation_rounding`): ~1e-16 only when every angle is exact."""
    d = check_even("d_model", d_model)
    p = as_positions(positions)
    shift = float(k)
    omega = frequencies(d, base, variant)
    a = np.multiply.outer(p, omega)
    b = np.multiply.outer(p + shift, omega)
    s, c = np.sin(a), np.cos(a)
    ck, sk = np.cos(shift * omega), np.sin(shift * omega)
    rs = ck * s + sk * c
    rc = -sk * s + ck * c
    return float(max(np.abs(rs - np.sin(b)).max(), np.abs(rc - np.cos(b)).max()))


def rotation_rounding(n_positions: int, k: float, omega: float) -> float:
    """The float64 rounding scale of the rotation check over positions 0 … N−1: (N − 1 + |k|)·ω·ε.

    R(k)·PE(p) = PE(p+k) is exact in real numbers, but the computer rounds the angle p·ω to within
    about p·ω·ε (ε = 2.2e-16, float64's machine epsilon), so |R(k)·PE(p) − PE(p+k)| reaches roughly
    the largest angle times ε: 4.3e-14 at N = 256, k = 8, pair 2 of d = 128 (measured 2.2e-14) and
    2.5e-11 at N = 131 072, pair 1 (measured 1.1e-11).  Only pair 0 (ω = 1: whole-number angles,
    nothing rounded) stays at sin/cos's own ~1e-16.  "≈ 10⁻¹⁶" for every pair is wrong.
    """
    n = check_int("positions", n_positions, minimum=1)
    eps = float(np.finfo(np.float64).eps)
    if float(omega) == 1.0 and float(k) == round(float(k)):
        return eps  # whole-number angles: nothing to round but sin and cos themselves
    return float((n - 1 + abs(float(k))) * abs(float(omega)) * eps)


def dot_by_offset(offsets, d_model: int, base: float = 10000.0, variant: str = "paper") -> np.ndarray:
    """PE(p)·PE(p+Δ) = Σ_i cos(Δ·ω_i), for each offset Δ — independent of p and symmetric in Δ."""
    omega = frequencies(d_model, base, variant)
    delta = np.asarray(offsets, dtype=np.float64)
    check_size(delta.size, omega.size, what="similarity curve")
    return np.cos(np.multiply.outer(delta, omega)).sum(axis=-1)
