"""p-RoPE: keep RoPE's fastest fraction p of the frequencies, set the slowest to 0 (Barbero et al. 2024).

Barbero et al. ("Round and Round We Go! What makes Rotary Positional Encodings useful?", ICLR 2025) find
that Gemma 7B uses RoPE's highest frequencies for sharp positional heads and its lowest ones as
"semantic channels" that barely turn over the context — and are not robust over long ones.  p-RoPE
removes the lowest frequencies: with d/2 pairs ordered fastest first,

    θ_i = base^(−2i/d)  for i < ⌊p·d/2⌋  (unchanged: the exponent still runs over all d),
    θ_i = 0             for the rest (those pairs carry content and no position),

so 0-RoPE is NoPE and 1-RoPE is RoPE.  This is Hugging Face's rope_type "proportional"
(``_compute_proportional_rope_parameters``, used by Gemma 4's global layers with p = 0.25), which the
tests check against.  Compare partial RoPE, which rotates a share of the dimensions but spreads the whole
frequency range over them (its exponent runs over the rotated dimensions only).
"""

from __future__ import annotations

import numpy as np

from ..encodings import inv_freq
from ..encodings.errors import check_even, check_real
from ._rotary import FrequencyRoPE
from .base import Parameter, Source, num_html
from .query import SchemesSetup, SwapSetup
from .rope import RoPE


def kept_pairs(head_dim: int, p: float) -> int:
    """⌊p·d/2⌋: the fastest pairs p-RoPE keeps (Hugging Face: ``int(p * head_dim // 2)``)."""
    d = check_even("head_dim", head_dim)
    return int(check_real("p", p, at_least=0.0, at_most=1.0) * d // 2)


def p_rope_inv_freq(head_dim: int, base: float, p: float) -> np.ndarray:
    """RoPE's θ_i = base^(−2i/d) on the fastest ⌊p·d/2⌋ pairs, 0 on the slower rest."""
    theta = inv_freq(head_dim, base)
    theta[kept_pairs(head_dim, p):] = 0.0
    return theta


class PRoPE(FrequencyRoPE):
    id = "p_rope"
    title = "p-RoPE"
    colour = "#008A8A"  # RoPE's green towards teal, dash-dotted
    symbol = "t2"
    line = "dashdot"
    order = 44
    description = ("RoPE with only its fastest fraction p of frequencies; the slowest pairs stop turning "
                   "and carry content only.")
    sources = (
        Source("Barbero et al. 2024, “Round and Round We Go! What makes Rotary Positional Encodings "
               "useful?”, ICLR 2025", 2024, "https://arxiv.org/abs/2410.06205"),
    )
    parameters = RoPE.parameters + (
        Parameter("p", 0.25, 0.0, 1.0, "kept fraction p", integer=False,
                  help="share of RoPE's frequencies kept, the fastest first (0: NoPE, 1: RoPE; Gemma 4: 0.25)"),
    )
    used_by = ("Gemma 4's global-attention layers (p = 0.25, Hugging Face rope_type “proportional”); "
               "proposed and tested on Gemma 2B models by Barbero et al. 2024")
    where = "rotates q and k by RoPE's fastest pairs only; the slowest fraction 1 − p does not turn"
    relation = "relative: qₘ·kₙ depends on m − n only"
    swap_label = "p-RoPE (fastest ¼ of θ)"
    swap_note = ("RoPE with only its fastest quarter of frequencies; the slow pairs do not turn "
                 "(Barbero et al. 2024).")
    in_lab = True
    lab_note = "RoPE's fastest quarter of frequencies only; the slow pairs do not turn (Barbero et al. 2024)"

    value_symbol = "p"

    def theta(self, head_dim, base, value):
        return p_rope_inv_freq(head_dim, base, value)

    def formula_line(self, st: SchemesSetup) -> str:
        d, p = st.head_dim, self.value(st)
        k = kept_pairs(d, p)
        if k == 0:
            return f"<b>p-RoPE</b>, p = {p:g}: ⌊p·{d // 2}⌋ = 0 pairs kept — this is NoPE"
        th = inv_freq(d, st.base)
        return (f"<b>p-RoPE</b>, p = {p:g}: the fastest {k} of {d // 2} pairs keep θ<sub>i</sub> = "
                f"{st.base:g}<sup>−2i/{d}</sup> = {num_html(th[0])} … {num_html(th[k - 1])}; "
                f"pairs {k} … {d // 2 - 1} get θ = 0 (slowest {num_html(th[k])} … {num_html(th[-1])} removed)"
                if k < d // 2 else
                f"<b>p-RoPE</b>, p = {p:g}: every pair kept — this is RoPE")

    def swap_reason(self, st: SwapSetup) -> str:
        return ("p-RoPE rotates queries and keys by RoPE's fastest frequencies, so q·k depends on the offset "
                "between two tokens, and the swap changed the offsets of the swapped words.")

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        k = kept_pairs(dh, self.own_parameters()[0].default)
        return {"score": f"(R<sub>i</sub>q<sub>i</sub>)ᵀ(R<sub>j</sub>k<sub>j</sub>)/√{dh}",
                "notes": [f"R<sub>p</sub> turns pairs 0 … {k - 1} by θ<sub>i</sub> = 10000<sup>−2i/{dh}</sup>; "
                          f"pairs {k} … {dh // 2 - 1} do not turn"]}


SCHEME = PRoPE()
