"""The formula strip's line on RoPE's "A model's RoPE" tab: the model's rule with its numbers (no Qt)."""

from __future__ import annotations

import html

from ..encodings import EncodingError
from ..encodings.rope import llama3_band_edges, yarn_correction_range
from ..encodings.rope_config import resolve
from .query import SchemesSetup
from .rope_model_tab import extended_length
from .text import num_html


def model_line(st: SchemesSetup) -> str:
    """The tab's formula line: the panel's model (:func:`model_formula`)."""
    return model_formula(st.model)


def model_formula(spec: str) -> str:
    """The rule of the model ``spec`` (a shipped id or config JSON) with its numbers, as one line of rich text; a
    model whose layers differ gets each layer type's rule, an M-RoPE model the axis of each block of pairs."""
    try:
        m = resolve(spec)
    except (EncodingError, ValueError, KeyError, OSError) as exc:
        return f"<b>Model</b>: {_esc(str(exc))}"
    if m.layers is not None:
        plan, parts = m.layers, []
        for layer_type, rope_ in plan.ropes:
            if not plan.layers_of(layer_type, rotating=True):
                continue
            reach = plan.reach(layer_type)
            where = "" if reach is None else f" (keys ≤ {reach:,} back)"
            kind = rope_.rope_type + ("" if rope_.rope_type == "default" else f", s = {rope_.scaling.factor:g}")
            rule = _rope_rule(rope_).split("</b>: ", 1)[1]
            parts.append(f"<i>{layer_type.split('_')[0]}, {kind}</i>{where}: {rule}")
        nope = plan.rotates.count(False)
        if nope:
            tau = "" if plan.temperature is None else (
                f", queries × τ(p) = {plan.temperature[1]:g}·ln(1 + ⌊(p + 1)/{plan.temperature[0]:,.0f}⌋) + 1")
            parts.append(f"<i>NoPE</i> ({nope} layers): no rotation{tau}")
        return f"<b>{_esc(m.name or 'Model')}</b>: " + "; ".join(parts)
    line = _rope_rule(m)
    if m.softmax_scale != 1.0:
        line += f"; logits × {m.softmax_scale:.4g} (its softmax scale 1/√d × mscale², as transformers computes it)"
    if m.mrope is not None:
        t, h, w = m.mrope.section
        how = "dealt out t, h, w, t, h, w, …" if m.mrope.interleaved else f"pairs 0–{t - 1} t, {t}–{t + h - 1} h, " \
            f"{t + h}–{t + h + w - 1} w"
        line += f"; M-RoPE: pair i turns by p<sub>axis(i)</sub>·θ<sub>i</sub>, {how}"
    return line


def _rope_rule(m) -> str:
    """One rope's rule with its numbers."""
    r, sc = m.rotary_dim, m.scaling
    base = f"{m.base:,.0f}" if float(m.base).is_integer() and m.base < 1e12 else f"{m.base:g}"
    theta = f"θ<sub>i</sub> = {base}<sup>−2i/{r}</sup>"
    dims = "" if r == m.head_dim else f" ({r} of its {m.head_dim} dimensions rotate)"
    head = f"<b>{_esc(m.name or 'Model')}, {m.rope_type}" + ("" if m.rope_type == "default" else f", s = {sc.factor:g}")
    s = f"{sc.factor:g}"
    if m.rope_type == "default":
        rule = f"{theta}{dims}, plain RoPE up to L = {m.max_positions:,}"
    elif m.rope_type == "linear":
        rule = f"θ′<sub>i</sub> = θ<sub>i</sub>/{s}, {theta}{dims} (positions ÷ {s})"
    elif m.rope_type == "dynamic":
        lo = m.original_max_positions
        rule = (f"at length L &gt; {lo:,}: base′ = {base}·({s}·L/{lo:,} − {sc.factor - 1:g})<sup>{r}/{r - 2}</sup>, "
                f"θ′<sub>i</sub> = base′<sup>−2i/{r}</sup>{dims}")
    elif m.rope_type == "yarn":
        lo, hi = yarn_correction_range(r, m.base, sc)
        att = m.frequencies(extended_length(m))[1]
        rule = (f"θ′<sub>i</sub> = θ<sub>i</sub>·((1 − r<sub>i</sub>) + r<sub>i</sub>/{s}), "
                f"ramp r<sub>i</sub> from 0 at pair {lo:g} to 1 at pair {hi:g} (β<sub>fast</sub> {sc.beta_fast:g}, "
                f"β<sub>slow</sub> "
                f"{sc.beta_slow:g}, L<sub>orig</sub> = {m.original_max_positions:,}); cos, sin × attention factor "
                f"{att:.4g}; {theta}{dims}")
    elif m.rope_type == "llama3":
        hi_w, lo_w = llama3_band_edges(sc)
        if sc.high_freq_factor == sc.low_freq_factor:  # Llama 4 Scout: one edge, no blend
            rule = (f"wavelength λ<sub>i</sub> = 2π/θ<sub>i</sub>: λ &gt; {_length(lo_w)} → θ<sub>i</sub>/{s}, "
                    f"shorter ones kept (both frequency factors {sc.low_freq_factor:g}: no blend); {theta}{dims}")
        else:
            rule = (f"wavelength λ<sub>i</sub> = 2π/θ<sub>i</sub>: λ &gt; {_length(lo_w)} → θ<sub>i</sub>/{s}; "
                    f"λ &lt; {_length(hi_w)} → θ<sub>i</sub> kept; between: θ′ = (1 − g)θ/{s} + gθ, "
                    f"g = ({m.original_max_positions:,}/λ − {sc.low_freq_factor:g})/({sc.high_freq_factor:g} − "
                    f"{sc.low_freq_factor:g}); {theta}{dims}")
    else:  # longrope
        att = m.frequencies(extended_length(m))[1]
        rule = (f"θ′<sub>i</sub> = θ<sub>i</sub>/f<sub>i</sub>, f = long_factor past L<sub>orig</sub> = "
                f"{m.original_max_positions:,} (short_factor up to it, one per pair); cos, sin × attention factor "
                f"{att:.4g}; {theta}{dims}")
    return f"{head}</b>: {rule}"


def _length(x: float) -> str:
    """A wavelength in positions: whole ones with thousands separated (as L_orig is), others as num_html."""
    return f"{x:,.0f}" if float(x).is_integer() else num_html(x)


def _esc(text: str) -> str:
    return html.escape(text, quote=False)
