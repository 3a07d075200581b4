"""Token swap: does attention notice that two words changed places?

:mod:`.panel` holds :class:`SwapPanel` (the state, its requests, the token chips, the verdict and exports);
:mod:`.controls` the controls column; :mod:`.views` the token-labelled attention maps, query bars and output
maps, on :mod:`.axis` (the token axis), :mod:`.values` (the numbers in the cells) and :mod:`.scale` (the
difference map's colour scale), and :mod:`.cope` CoPE's count maps;
:mod:`.grid` lays the maps out at a readable size; :mod:`.headline` is the verdict line and :mod:`.formula`
the formula strip.  The panel class loads on first use (see :func:`explorer.panels.panel_on_demand`).
"""

from typing import TYPE_CHECKING

from .. import panel_on_demand

if TYPE_CHECKING:
    from .panel import SwapPanel

__all__ = ["SwapPanel"]
__getattr__ = panel_on_demand(__name__, "SwapPanel")
