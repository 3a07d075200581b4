"""The Waves panel's formula strip: the encoding's formula with the current numbers substituted."""

from __future__ import annotations

from ...jobs.waves import formula_numbers
from ...state import WavesState


def formula_html(st: WavesState) -> str:
    """Rich text for the strip: the column layout, ω_i, and PE at the picked p and pair."""
    nums = formula_numbers(st)
    d, i, p = st.d_model, st.pair, st.position
    b = f"{st.base:.0f}" if st.base == int(st.base) else f"{st.base:g}"
    if st.variant == "t2t":
        omega = f"ω<sub>i</sub> = {b}<sup>−i/{d // 2 - 1}</sup>"
    else:
        omega = f"ω<sub>i</sub> = {b}<sup>−2i/{d}</sup>"
    if st.variant == "paper":
        cols = "PE[p, 2i] = sin(p·ω<sub>i</sub>), PE[p, 2i+1] = cos(p·ω<sub>i</sub>)"
    else:
        cols = f"PE[p, i] = sin(p·ω<sub>i</sub>), PE[p, i+{d // 2}] = cos(p·ω<sub>i</sub>)"
    # No size of its own: the strip's style sheet sizes it (and grows it in presenter mode).
    return (f"{cols}, {omega}; "
            f"p = {p:,}, i = {i}: ω<sub>{i}</sub> = {nums['omega']:.6g}, "
            f"λ<sub>{i}</sub> = 2π/ω<sub>{i}</sub> = "
            f"{nums['wavelength']:.6g}; PE[{p}, {nums['sin_col']}] = sin({nums['angle']:.6g}) = "
            f"{nums['sin']:+.5f}, PE[{p}, {nums['cos_col']}] = cos({nums['angle']:.6g}) = "
            f"{nums['cos']:+.5f}; R(k)·PE(p) = PE(p+k) exactly in ℝ, in float64 up to "
            f"≈ (N−1+|k|)·ω<sub>{i}</sub>·ε = {nums['rounding']:.1e}")
