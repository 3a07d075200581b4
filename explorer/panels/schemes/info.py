"""The Schemes panel's info lines under the score matrices and the distance curves (rich text, from the
state and the responses drawn)."""

from __future__ import annotations

import numpy as np

from ... import schemes as registry
from ...schemes.base import BAND_QUERIES
from ...state import SchemesState
from ...theme import mask_word

#: What the shaded band of the distance curves is (an absolute scheme's scores vary with i, not only Δ).
BAND_TEXT = (f"shaded: min–max over {BAND_QUERIES} query positions i (absolute schemes are not a function of "
             "Δ alone)")


def fmt_positions(n: int) -> str:
    """A position count with thousands separated."""
    return f"{n:,}"


def content_text(st: SchemesState) -> str:
    """What stands in for the content vectors (the same one, or an average of 16)."""
    if st.content == "same":
        return (f"content removed: the <b>same</b> query and key vector q = k = c at every position "
                f"(c ~ N(0, I<sub>{st.head_dim}</sub>), seed {st.seed})")
    return (f"content removed: <b>averaged</b> over 16 random q = k = c ~ "
            f"N(0, I<sub>{st.head_dim}</sub>) (seed {st.seed})")


def matrix_info(st: SchemesState, k: float, clipped: tuple, responses: dict, theme, exact: float | None = None) -> str:
    """The line under the score matrices: units, the shared colour scale ±k, the cells, what is hatched; ``exact``:
    the scale is held while a slider is, and ``exact`` is the largest |ΔS| now."""
    block = max((r.block for s, r in responses.items() if s in st.schemes), default=1)
    cells = -(-st.l_eval // block)
    res = (f"Cells: one per position pair ({cells} × {cells})" if block == 1 else
           f"Cells: exact means over {block} × {block} blocks of positions ({cells} × {cells}; "
           f"RoPE terms faster than {block} positions average out)")
    clip = ""
    if clipped:
        worst = ", ".join(f"{registry.get(s).title} clipped (reaches {_matrix_min(responses, s):,.1f})"
                          for s in clipped)
        clip = f"; <span style='color:#c03000'>{worst}</span>"
    masked = f"; {mask_word(theme)}: the future, masked (causal)" if st.causal else ""
    scale = (" = the largest |ΔS| of the bounded schemes" if exact is None else
             f", held while the slider moves (the largest |ΔS| of the bounded schemes: {exact:.3g})")
    return (f"ΔS[i, j] = attention logit with position − without (units of q·k/√d); "
            f"{content_text(st)}. "
            f"<b>One colour scale for all columns: ±{k:.3g}</b>{scale}"
            f"{clip}. {res}. Hatched: past L_train = {fmt_positions(st.l_train)}"
            f"{masked}.{table_text(st, responses)}")


def table_text(st: SchemesState, responses: dict) -> str:
    """' Learned: the rows of GPT-2 (checkpoint), M = 1,024, …' for each shown column drawn from a real table."""
    notes = [r.table_note for s, r in responses.items() if s in st.schemes and r.table_note]
    return "".join(f" <b>{n}</b>." for n in notes)


def _matrix_min(responses: dict, s: str) -> float:
    m = responses[s].matrix
    return float(np.nanmin(m)) if m is not None else 0.0


def distance_info(st: SchemesState, responses: dict) -> str:
    """The line under the distance curves: what a curve is, the band, what is hatched, the bound below."""
    strides = [r.stride for s, r in responses.items() if s in st.schemes]
    step = "" if max(strides, default=1) == 1 else f" Every {max(strides)}th distance is drawn."
    rel = [registry.get(s).title for s in st.schemes if registry.get(s).relative or
           registry.get(s).kind == "none"]
    single = (f" {', '.join(rel)} depend on i − j only (a single curve);" if rel else "")
    return (f"{content_text(st)}; curves: the exact mean of ΔS over all pairs at distance Δ."
            f"{single} {BAND_TEXT}. Hatched: "
            f"distances never seen in training (Δ ≥ L_train = {fmt_positions(st.l_train)}).{step}"
            f"{_terms_text(st, responses)}{table_text(st, responses)}"
            " Below: RoFormer's long-term-decay bound (1/(d/2))·Σ<sub>j</sub> |S<sub>j</sub>(Δ)|, "
            "S<sub>j</sub> = Σ<sub>k&lt;j</sub> e<sup>iΔθ<sub>k</sub></sup> (Su et al. 2021, §3.4.3).")


def _terms_text(st: SchemesState, responses: dict) -> str:
    """Which shown schemes have their score's terms drawn apart (Transformer-XL's (a)–(d)), beside the bound."""
    shown = [registry.get(s).title for s, r in responses.items() if s in st.schemes and r.terms]
    if not shown:
        return ""
    return (f" Bottom right: the score of {', '.join(shown)} split into the terms of its formula (formula strip),"
            " each drawn apart; ΔS is their sum less the plain content score qᵀk/√d.")
