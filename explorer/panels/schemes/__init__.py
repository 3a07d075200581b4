"""Schemes: every positional scheme side by side, including RoPE's context-extension methods.

:mod:`.panel` holds :class:`SchemesPanel` (the shared controls, the state and one request per plot) and
:mod:`.tabs` its tab bar.  The seven views: :mod:`.views` (score matrices, ΔS against distance), :mod:`.beyond`
(past the training length), :mod:`.alibi` (ALiBi and the properties table, fitted by :mod:`.table`),
:mod:`.model` (a real model's RoPE, drawn by :mod:`.model_rope` or :mod:`.model_mrope`) and :mod:`.grid`
(an image's grid of patches); :mod:`.items` has the small graphics pieces they share.  The words:
:mod:`.formula` (the strip), :mod:`.info` (the lines under the plots), :mod:`.snippets` (Copy as Python).
The panel class loads on first use (see :func:`explorer.panels.panel_on_demand`).
"""

from typing import TYPE_CHECKING

from .. import panel_on_demand

if TYPE_CHECKING:
    from .panel import SchemesPanel

__all__ = ["SchemesPanel"]
__getattr__ = panel_on_demand(__name__, "SchemesPanel")
