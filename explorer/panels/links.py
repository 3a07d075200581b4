"""The one channel between panels: what one panel shows or made that another panel uses.

The window makes one :class:`PanelLinks` and hands it to every panel it builds (a panel made on its own gets a
channel of its own).  Three things cross it:

* the table the Learned-table panel shows (:meth:`PanelLinks.set_table_shown`), which Token swap and Schemes
  may use in place of their seeded stand-in ("Real learned rows");
* the trained weights of this session's finished Lab runs (:meth:`PanelLinks.remember_weights`), which the
  Schemes panel draws for schemes with ``uses_lab_weights`` (FIRE);
* a table a panel asks to be shown in the Learned-table panel (:meth:`PanelLinks.show_table`: the Lab's
  "View learned table"), which the window answers by bringing that panel forward.

Session-only: nothing is written to disk, and a new window starts with nothing shared.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QMetaMethod, QObject, Signal


class PanelLinks(QObject):
    """What panels share, each with a signal when it changes."""

    #: The table the Learned-table panel shows changed (the new ``TableSource``, or None: none shown yet).
    tableShownChanged = Signal(object)
    #: A finished Lab run left new trained weights (:meth:`trained_weights`).
    weightsChanged = Signal()
    #: A panel asks for ``table`` (positions × dims) to be shown in the Learned-table panel under ``label``.
    tableWanted = Signal(object, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._table_shown = None
        self._weights: dict[str, tuple] = {}

    # -- the Learned-table panel's table -------------------------------------------------------------
    def table_shown(self):
        """The ``TableSource`` the Learned-table panel shows, or None."""
        return self._table_shown

    def set_table_shown(self, source) -> None:
        if source != self._table_shown:
            self._table_shown = source
            self.tableShownChanged.emit(source)

    # -- the Lab's trained weights -------------------------------------------------------------------
    def trained_weights(self) -> dict[str, tuple]:
        """scheme id → the weights of its latest finished run in this session."""
        return dict(self._weights)

    def remember_weights(self, result) -> None:
        """Keep the weights of every scheme of ``result`` (a ``LabResult``) that finished training and has some."""
        new = {s.scheme: s.weights for s in result.schemes if s.status == "done" and s.weights}
        if new:
            self._weights.update(new)
            self.weightsChanged.emit()

    # -- showing a table -----------------------------------------------------------------------------
    def show_table(self, table: np.ndarray, label: str) -> bool:
        """Ask for ``table`` in the Learned-table panel; False when nothing answers (a panel on its own)."""
        if not self.isSignalConnected(QMetaMethod.fromSignal(self.tableWanted)):
            return False
        self.tableWanted.emit(table, label)
        return True
