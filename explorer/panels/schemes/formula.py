"""The Schemes panel's formula strip: what the current view needs, with the current numbers.

The score views show each shown scheme's formula line (the view's own scheme first: ALiBi's on the ALiBi view,
scaled RoPE's beyond training); the strip shows the first :data:`STRIP_FORMULAS` and keeps the rest one click
(or a hover) away (see :class:`explorer.widgets.formula_strip.FormulaStrip`).  View 6, a model's RoPE, shows
that model's rule with its numbers (llama3's wavelength bands, YaRN's ramp and attention factor …).
"""

from __future__ import annotations

from ... import schemes as registry
from ...encodings import EncodingError
from ...encodings.rope import llama3_band_edges, yarn_correction_range
from ...encodings.rope_config import resolve
from ...jobs.model_rope import extended_length
from ...schemes import alibi, rope, scaled_rope
from ...schemes.base import num_html

#: When no shown scheme has a formula line: RoPE and its scaling (the panel's main slider is the factor s) …
FALLBACK = (rope.SCHEME.id, scaled_rope.SCHEME.id)
#: … and on the views about a particular scheme, that scheme's formula first, even when its column is hidden.
VIEW_SCHEMES = {"alibi": (alibi.SCHEME.id,), "beyond": (scaled_rope.SCHEME.id,)}
#: Formula lines the strip shows at most (the rest behind "more"): 1280 × 720 presenter keeps its plots.
STRIP_FORMULAS = 3


def formula_lines(st, table=None) -> list[str]:
    """The formula lines of the current view, in the order the strip shows them (``table``: the requests'
    TableSource, or None; see :func:`_line`)."""
    if st.view == "model":
        return [model_formula(st.model)]
    if st.view == "grid":  # the view's own schemes, shown or not
        from ...jobs.grid import grid_ids

        return [line for line in (registry.get(s).grid_formula(st) for s in grid_ids()) if line]
    own = [s for s in VIEW_SCHEMES.get(st.view, ()) if s in st.schemes or st.view == "alibi"]
    wanted = set(st.schemes) | set(own)
    if st.view != "beyond":  # the score views' strip is about scores: an input table's line waits for view 3
        wanted = {s for s in wanted if registry.get(s).kind != "input"}
    order = own + [s for s in registry.ids() if s in wanted and s not in own]
    lines = [line for line in (_line(registry.get(s), st, table) for s in order) if line]
    if not lines:
        lines = [line for line in (registry.get(s).formula_line(st) for s in FALLBACK) if line]
    return lines


def formula_html(st, table=None) -> str:
    """Rich text: :func:`formula_lines` one per line.  Never a formula for a scheme that is not on screen:
    scene 4 (learned vs sinusoidal) used to show RoPE's and YaRN's."""
    return "<br>".join(formula_lines(st, table))


def _line(sch, st, table) -> str:
    """A scheme's formula line; one that takes a real table and is drawn from one says that its numbers are the
    seeded table's and the plots show the real one (``table``: the request's TableSource, or None)."""
    line = sch.formula_line(st)
    if line and table is not None and sch.uses_table:
        line += " — <i>drawn here from the real table the Learned table panel shows: its own rows and M</i>"
    return line


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
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
