"""The Lab's "View learned table": the position table a learned-PE model trained, in the Learned-table panel."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtWidgets import QPushButton

from ...lab import SCHEME_LABELS

if TYPE_CHECKING:
    from ..base import Panel as _PanelBase
else:
    _PanelBase = object


def first_trained_table(schemes) -> tuple[np.ndarray, str] | None:
    """(positions × d table, label) of the first result that trained a position table, or None."""
    for s in schemes:
        if s.position_table:
            return np.array(s.position_table, dtype=np.float64), f"Lab: {SCHEME_LABELS[s.scheme]}, trained"
    return None


class LearnedTableButton(_PanelBase):
    """Mixed into the Lab panel: a button that shows the trained table in the Learned-table panel (through the
    panels' channel, :meth:`~explorer.panels.links.PanelLinks.show_table`)."""

    def add_table_button(self, layout) -> None:
        self.table_button = QPushButton("View learned table", self)
        self.table_button.setObjectName("labViewTable")
        self.table_button.setToolTip("Show the position table the learned-table model trained "
                                     "(heatmap, similarity, PCA, spectra, norms) in the Learned table panel")
        self.table_button.setEnabled(False)
        self.table_button.clicked.connect(self.view_learned_table)
        layout.addWidget(self.table_button)

    def enable_table_button(self, schemes) -> None:
        self.table_button.setEnabled(first_trained_table(schemes) is not None)

    def view_learned_table(self) -> bool:
        """Open the trained table in the window's Learned-table panel; False when there is none to show."""
        found = first_trained_table(getattr(self, "_partial", ()))
        return found is not None and self.links.show_table(*found)
