"""The Token-swap panel's formula strip: attention with the current scheme's term and numbers."""

from __future__ import annotations

import math

from ..encodings import alibi_slopes
from ..state.swap import SwapState


def slope_text(m: float) -> str:
    """An ALiBi slope as a fraction when it is 1/2^k (all of them for power-of-two head counts)."""
    k = -math.log2(m)
    if abs(k - round(k)) < 1e-12:
        return f"1/{2 ** round(k)}"
    return f"{m:.3g}"


def formula_html(st: SwapState) -> str:
    """Rich text: ``out = softmax(Q Kᵀ/√d_h + scheme term + mask) V`` with d_h, α, slopes substituted.

    Sources: Vaswani et al. 2017 eq. 1 (attention), §3.5 (sinusoidal); Su et al. 2021 (RoPE);
    Press et al. 2022 (ALiBi, −m·|i−j|).
    """
    dh = st.d_model // st.heads
    scale = f"/√{dh}"
    if st.scheme == "rope":
        score = f"(R<sub>i</sub>q<sub>i</sub>)ᵀ(R<sub>j</sub>k<sub>j</sub>){scale}"
    else:
        score = f"QKᵀ{scale}"
    if st.scheme == "alibi":
        score += " − m·|i−j|"
    causal_before = st.causal and not st.mask_after_softmax
    causal_after = st.causal and st.mask_after_softmax
    if causal_before:
        score += " + M"
    core = f"softmax({score})"
    if causal_after:
        core = f"(softmax({score}) ⊙ 1[j ≤ i])"
    parts = [f"<b>out = {core} V</b>"]
    if st.scheme == "sinusoidal":
        parts.append(f"Q, K, V = X·W<sub>Q</sub>, X·W<sub>K</sub>, X·W<sub>V</sub> with "
                     f"X = E + {st.alpha:.2f}·PE(pos), "
                     f"PE(p)<sub>2i</sub> = sin(p·10000<sup>−2i/{st.d_model}</sup>), "
                     "PE(p)<sub>2i+1</sub> = cos(…)")
    elif st.scheme == "learned":
        parts.append(f"Q, K, V = X·W<sub>Q</sub>, X·W<sub>K</sub>, X·W<sub>V</sub> with "
                     f"X = E + {st.alpha:.2f}·P[pos] (a learned table)")
    else:
        parts.append("Q, K, V = E·W<sub>Q</sub>, E·W<sub>K</sub>, E·W<sub>V</sub> "
                     "(E: word embeddings, no position)")
    if st.scheme == "rope":
        parts.append(f"R<sub>p</sub> rotates pair i by p·θ<sub>i</sub>, "
                     f"θ<sub>i</sub> = 10000<sup>−2i/{dh}</sup>, so the score depends on j − i")
    if st.scheme == "alibi":
        slopes = ", ".join(slope_text(m) for m in alibi_slopes(st.heads))
        parts.append(f"m = {slopes}" + (" (one per head)" if st.heads > 1 else ""))
    if causal_before:
        parts.append("M<sub>ij</sub> = −∞ for j &gt; i (causal mask, before the softmax: rows sum to 1)")
    if causal_after:
        parts.append("future zeroed <i>after</i> the softmax: rows sum to less than 1")
    if st.heads > 1:
        parts.append(f"{st.heads} heads of d<sub>h</sub> = {dh}")
    else:
        parts.append(f"1 head, d<sub>h</sub> = d = {dh}")
    # No font size here: the window's style sheet sizes the strip (zoom, presenter mode).
    return ";&nbsp;&nbsp; ".join(parts)
