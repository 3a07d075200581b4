"""The Token-swap panel's formula strip: attention with the current scheme's term and numbers."""

from __future__ import annotations

from ... import schemes as registry
from ...state.swap import SwapState


def formula_html(st: SwapState) -> str:
    """Rich text: ``out = softmax(Q Kᵀ/√d_h + scheme term + mask) V`` with d_h, α, slopes substituted.

    Sources: Vaswani et al. 2017 eq. 1 (attention); each scheme's own term comes from its module
    (:meth:`explorer.schemes.Scheme.swap_formula`).
    """
    dh = st.d_model // st.heads
    pieces = registry.get(st.scheme).swap_formula(st, dh)
    score = pieces.get("score", f"QKᵀ/√{dh}") + pieces.get("extra", "")
    causal_before = st.causal and not st.mask_after_softmax
    causal_after = st.causal and st.mask_after_softmax
    if causal_before:
        score += " + M"
    core = f"softmax({score})"
    if causal_after:
        core = f"(softmax({score}) ⊙ 1[j ≤ i])"
    parts = [f"<b>out = {core} V</b>"]
    parts.append(pieces.get("input", "Q, K, V = E·W<sub>Q</sub>, E·W<sub>K</sub>, E·W<sub>V</sub> "
                                     "(E: word embeddings, no position)"))
    parts.extend(pieces.get("notes", ()))
    if causal_before:
        parts.append("M<sub>ij</sub> = −∞ for j &gt; i (causal mask, before the softmax: rows sum to 1)")
    if causal_after:
        parts.append("future zeroed <i>after</i> the softmax: rows sum to less than 1")
    if st.heads > 1:
        parts.append(f"{st.heads} heads of d<sub>h</sub> = {dh}")
    else:
        parts.append(f"1 head, d<sub>h</sub> = d = {dh}")
    # No font size here: the window's style sheet sizes the strip (zoom, presenter mode).  Parts end in "; " (the
    # strip's one presenter line keeps the leading parts that fit and splits there, never at an entity's ";").
    return "; &nbsp;".join(parts)
