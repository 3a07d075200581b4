"""Partial RoPE: only the first share of each head's dimensions rotates, the rest pass through (GPT-NeoX).

GPT-NeoX (Black et al. 2022) and Pythia (Biderman et al. 2023, ``rotary_pct`` 0.25) rotate the first
r = ⌊f·d⌋ dimensions of each head and leave the other d − r as they are.  Inside the rotated part the pairs
are (i, i + r/2) (Hugging Face's ``rotate_half``) with

    θ_i = base^(−2i/r),   i = 0 … r/2 − 1,

so the exponent runs over the r rotated dimensions: the r/2 turning pairs span the whole range from
θ = 1 down to base^(−(r−2)/r), only more coarsely than full RoPE's d/2.  In our interleaved layout that
is RoPE with those θ on pairs 0 … r/2 − 1 and θ = 0 on the rest — the same scores after a permutation of
the dimensions (tested against ``transformers.models.gpt_neox``).  An odd f·d is rounded down to even
(Hugging Face's rotary table would not fit it).  f = 0 is NoPE, f = 1 is RoPE.
"""

from __future__ import annotations

import numpy as np

from ..encodings import inv_freq
from ..encodings.errors import check_even, check_real
from ._rotary import FrequencyRoPE
from .base import Parameter, Source, num_html
from .query import SchemesSetup, SwapSetup
from .rope import RoPE


def rotary_dims(head_dim: int, fraction: float) -> int:
    """r = ⌊f·d⌋ rounded down to even: the dimensions of each head that rotate."""
    d = check_even("head_dim", head_dim)
    f = check_real("fraction", fraction, at_least=0.0, at_most=1.0)
    r = int(d * f)
    return r - r % 2


def partial_inv_freq(head_dim: int, base: float, fraction: float) -> np.ndarray:
    """Per-pair θ (interleaved layout): base^(−2i/r) for the r/2 rotated pairs, then 0 for the rest."""
    r = rotary_dims(head_dim, fraction)
    out = np.zeros(head_dim // 2)
    if r:
        out[: r // 2] = inv_freq(r, base)
    return out


def neox_to_interleaved(head_dim: int, fraction: float) -> np.ndarray:
    """Permutation P with ``x_ours = x_neox[..., P]``: our pair i ← (i, i + r/2) inside the rotated part,
    then the pass-through dimensions in order."""
    r = rotary_dims(head_dim, fraction)
    if r == 0:
        return np.arange(head_dim)
    perm = np.arange(head_dim)
    perm[0:r:2] = np.arange(r // 2)
    perm[1:r:2] = np.arange(r // 2) + r // 2
    return perm


class PartialRoPE(FrequencyRoPE):
    id = "partial_rope"
    title = "Partial RoPE"
    colour = "#29A347"  # RoPE's green towards yellow, dashed (its hue and saturation survive the dark clamp)
    symbol = "t1"
    line = "dash"
    order = 42
    description = ("RoPE on the first share f of each head's dimensions only (θ spread over those r = f·d); "
                   "the rest carry content and no position.")
    sources = (
        Source("Black et al. 2022, “GPT-NeoX-20B: An Open-Source Autoregressive Language Model”", 2022,
               "https://arxiv.org/abs/2204.06745"),
        Source("Biderman et al. 2023, “Pythia: A Suite for Analyzing Large Language Models Across Training "
               "and Scaling”, ICML", 2023, "https://arxiv.org/abs/2304.01373"),
    )
    parameters = RoPE.parameters + (
        Parameter("fraction", 0.25, 0.0, 1.0, "rotary fraction f", integer=False,
                  help="share of each head's dimensions that rotate (GPT-NeoX and Pythia 0.25, Phi-2 0.4)"),
    )
    used_by = ("GPT-NeoX-20B and Pythia (f = 0.25; Black et al. 2022, Biderman et al. 2023), GPT-J (64 of 256 "
               "dimensions), Phi-1.5 (0.5) and Phi-2 (0.4)")
    where = "rotates q and k on the first f·d dimensions of each head; the rest pass through"
    relation = "relative: qₘ·kₙ depends on m − n only"
    swap_label = "Partial RoPE (¼ rotates)"
    swap_note = ("The first quarter of each head's dimensions rotated by position (GPT-NeoX, Pythia); "
                 "the rest see no position.")
    in_lab = True
    lab_note = "a quarter of each head's dimensions rotated, as GPT-NeoX and Pythia (rotary_pct 0.25)"

    value_symbol = "f"

    def theta(self, head_dim, base, value):
        return partial_inv_freq(head_dim, base, value)

    def formula_line(self, st: SchemesSetup) -> str:
        d, f = st.head_dim, self.value(st)
        r = rotary_dims(d, f)
        if r == 0:
            return f"<b>Partial RoPE</b>, f = {f:g}: ⌊f·{d}⌋ rounds to 0 rotated dimensions — this is NoPE"
        th = inv_freq(r, st.base)
        return (f"<b>Partial RoPE</b>, f = {f:g}: r = {r} of {d} dimensions rotate, θ<sub>i</sub> = "
                f"{st.base:g}<sup>−2i/{r}</sup> = {num_html(th[0])} … {num_html(th[-1])} (i = 0 … {r // 2 - 1}); "
                f"{d - r} pass through (θ = 0)")

    def swap_reason(self, st: SwapSetup) -> str:
        return ("Partial RoPE rotates a quarter of each query and key by its position, so q·k depends on the "
                "offset between two tokens, and the swap changed the offsets of the swapped words.")

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        r = rotary_dims(dh, self.own_parameters()[0].default)
        return {"score": f"(R<sub>i</sub>q<sub>i</sub>)ᵀ(R<sub>j</sub>k<sub>j</sub>)/√{dh}",
                "notes": [f"R<sub>p</sub> rotates the first {r} of {dh} dimensions, θ<sub>i</sub> = "
                          f"10000<sup>−2i/{r}</sup>; the other {dh - r} pass through"]}


SCHEME = PartialRoPE()
