"""The Lab: train short, test long, one tiny transformer per ticked scheme.

:mod:`.panel` holds :class:`LabPanel` (task, schemes, lengths, the run's buttons); :mod:`.run` the training run
as a long job of the compute service; :mod:`.model` the Model group (layers, each scheme's own settings);
:mod:`.loss_plot` the live loss curves, :mod:`.accuracy_plots` the length and position plots, :mod:`.common`
what they share (colours, pens, hints, legends, the key) and :mod:`.grid` the results grid of every task run;
:mod:`.files` saving, opening and exporting results; :mod:`.table` the "View learned table" hand-over to the
Learned-table panel; :mod:`.text` the panel's words (no Qt).  The panel class loads on first use (see
:func:`explorer.panels.panel_on_demand`).
"""

from typing import TYPE_CHECKING

from .. import panel_on_demand

if TYPE_CHECKING:
    from .panel import LabPanel

__all__ = ["LabPanel"]
__getattr__ = panel_on_demand(__name__, "LabPanel")
