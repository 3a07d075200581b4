"""The Schemes panel's formula strip: each shown scheme's formula line with the current numbers."""

from __future__ import annotations

from .. import schemes as registry
from ..schemes import alibi, rope, scaled_rope

#: When no shown scheme has a formula line: RoPE and its scaling (the panel's main slider is the factor s) …
FALLBACK = (rope.SCHEME.id, scaled_rope.SCHEME.id)
#: … and on the views about a particular scheme, that scheme's formula even when its column is hidden.
VIEW_SCHEMES = {"alibi": (alibi.SCHEME.id,)}


def formula_html(st, table=None) -> str:
    """Rich text: the formula lines of the shown schemes and the current view's (registry order; input
    tables such as sinusoidal and learned on the beyond-training view only, to keep the strip short); RoPE's
    and its scaling's when none of those has one.  Never a formula for a scheme that is not on screen:
    scene 4 (learned vs sinusoidal) used to show RoPE's and YaRN's."""
    wanted = set(st.schemes) | set(VIEW_SCHEMES.get(st.view, ()))
    if st.view != "beyond":  # the score views' strip is about scores: an input table's line waits for view 3
        wanted = {s for s in wanted if registry.get(s).kind != "input"}
    lines = [_line(registry.get(s), st, table) for s in registry.ids() if s in wanted]
    lines = [line for line in lines if line]
    if not lines:
        lines = [line for line in (registry.get(s).formula_line(st) for s in FALLBACK) if line]
    return "<br>".join(lines)


def _line(sch, st, table) -> str:
    """A scheme's formula line; one that takes a real table and is drawn from one says that its numbers are the
    seeded table's and the plots show the real one (``table``: the request's TableSource, or None)."""
    line = sch.formula_line(st)
    if line and table is not None and sch.uses_table:
        line += " — <i>drawn here from the real table the Learned table panel shows: its own rows and M</i>"
    return line
