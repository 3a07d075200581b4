"""Learned table: what a trained position table holds (a real checkpoint's, the Lab's, or a stand-in).

:mod:`.panel` holds :class:`TablePanel` (the table source, the state, its requests) and :mod:`.views` its tabs
(heatmap, norms, similarity, PCA, spectrum).  :mod:`.link` is the "Real learned rows" option that Token swap and
Schemes mix in to use the table shown here.  The panel class loads on first use (see
:func:`explorer.panels.panel_on_demand`).
"""

from typing import TYPE_CHECKING

from .. import panel_on_demand

if TYPE_CHECKING:
    from .panel import TablePanel

__all__ = ["TablePanel"]
__getattr__ = panel_on_demand(__name__, "TablePanel")
