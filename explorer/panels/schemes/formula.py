"""The Schemes panel's formula strip: what the current view needs, with the current numbers.

The score views show each shown scheme's formula line (the view's own scheme first: ALiBi's on the ALiBi view,
scaled RoPE's beyond training); the strip shows the first :data:`STRIP_FORMULAS` and keeps the rest one click
(or a hover) away (see :class:`explorer.widgets.formula_strip.FormulaStrip`).  View 6, a model's RoPE, shows
that model's rule with its numbers (llama3's wavelength bands, YaRN's ramp and attention factor …): a tab a
scheme adds gives its own line (``SchemeTab.formula``) or puts its scheme's first.
"""

from __future__ import annotations

from ... import schemes as registry
from ...schemes import rope, scaled_rope

#: When no shown scheme has a formula line: RoPE and its scaling (the panel's main slider is the factor s) …
FALLBACK = (rope.SCHEME.id, scaled_rope.SCHEME.id)
#: … and on the views about a particular scheme, that scheme's formula first, even when its column is hidden (a tab a
#: scheme adds is about that scheme).
VIEW_SCHEMES = {"beyond": (scaled_rope.SCHEME.id,)}
#: Formula lines the strip shows at most (the rest behind "more"): 1280 × 720 presenter keeps its plots.
STRIP_FORMULAS = 3


def formula_lines(st, table=None) -> list[str]:
    """The formula lines of the current view, in the order the strip shows them (``table``: the requests'
    TableSource, or None; see :func:`_line`)."""
    tab = registry.tab(st.view)
    if tab is not None and tab[0].formula is not None:  # a tab with a line of its own (a model's rule)
        return [tab[0].formula(st)]
    if st.view == "grid":  # the view's own schemes, shown or not
        from ...jobs.grid import grid_ids

        return [line for line in (registry.get(s).grid_formula(st) for s in grid_ids()) if line]
    own = [tab[1].id] if tab is not None else [s for s in VIEW_SCHEMES.get(st.view, ()) if s in st.schemes]
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
