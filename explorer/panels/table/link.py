"""A panel option to use the real position table the Learned-table panel shows (a checkpoint's or the Lab's).

Mixed into a panel whose schemes may take a table (:attr:`explorer.schemes.Scheme.uses_table`): a check
box, enabled while a real table is open, and :meth:`table_for_request` for the panel's requests.  The table
shown comes over the panels' channel (:class:`~explorer.panels.links.PanelLinks`); the choice is not part of
the panel's state, like the checkpoint itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QCheckBox

if TYPE_CHECKING:
    from ..base import Panel as _PanelBase
else:
    _PanelBase = object

NO_TABLE_TIP = "Open a checkpoint (File → Open checkpoint…) or view the Lab's learned table first"


class RealTableOption(_PanelBase):
    """A "Real learned rows" check box; the panel passes :meth:`table_for_request` in its requests."""

    def add_table_option(self, form, parent) -> None:
        self._table_source = None
        self.table_check = QCheckBox("Real learned rows", parent)
        self.table_check.setObjectName("realTableCheck")
        self.table_check.setEnabled(False)
        self.table_check.setToolTip(NO_TABLE_TIP)
        self.table_check.toggled.connect(self._on_table_check_toggled)
        form.addRow(self.table_check)
        self.links.tableShownChanged.connect(self.set_table_source)
        self.set_table_source(self.links.table_shown())

    def set_table_source(self, source) -> None:
        """The table the Learned-table panel shows (None or the seeded stand-in: no real table)."""
        real = source if source is not None and source.kind != "random" else None
        changed = real != self._table_source
        self._table_source = real
        self.table_check.setEnabled(real is not None)
        self.table_check.setToolTip(
            NO_TABLE_TIP if real is None else
            f"Use the rows of the table shown in the Learned table panel ({real.label or real.path}) for the "
            "learned scheme, in place of its seeded random table")
        if changed and self.table_check.isChecked():
            self.request_update()

    def table_for_request(self):
        """The real table to send with a request, or None (not ticked, or none open)."""
        check = getattr(self, "table_check", None)  # None while the panel is being built
        return self._table_source if check is not None and check.isChecked() else None

    def formula_inputs(self, state):
        """The formula strip is redrawn when the table in use changes too (a panel's strip may say so)."""
        return (super().formula_inputs(state), self.table_for_request())

    def _on_table_check_toggled(self, _on: bool) -> None:
        self.request_update()
