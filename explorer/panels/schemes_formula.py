"""The Schemes panel's formula strip: each shown scheme's formula line with the current numbers."""

from __future__ import annotations

from .. import schemes as registry
from ..schemes import alibi, rope, scaled_rope

#: Always in the strip: RoPE and its scaling (the panel's main slider is the factor s) …
ALWAYS = (rope.SCHEME.id, scaled_rope.SCHEME.id)
#: … and on the views about a particular scheme, that scheme's formula even when its column is hidden.
VIEW_SCHEMES = {"alibi": (alibi.SCHEME.id,)}


def formula_html(st) -> str:
    """Rich text: the formula lines of the shown schemes, the panel's own and the current view's (registry
    order)."""
    shown = set(st.schemes) if st.view in ("matrices", "distance") else set()
    wanted = shown | set(ALWAYS) | set(VIEW_SCHEMES.get(st.view, ()))
    lines = [registry.get(s).formula_line(st) for s in registry.ids() if s in wanted]
    return "<br>".join(line for line in lines if line)
