"""Help: the keyboard shortcuts table, the user guide (docs/, offline, inside the app), About.

:class:`Help` is the part of the main window behind the Help menu; the shortcuts table is made from the
action records (:mod:`explorer.shell.actions`), like docs/keyboard.md.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..widgets.guide import GuideDialog, docs_dir
from .menus import keyboard_rows


class Help:
    """Keyboard shortcuts, the user guide and About, for the window ``parent``."""

    def __init__(self, parent: QWidget) -> None:
        self._parent = parent
        self.shortcuts_dialog: QDialog | None = None
        self.guide_dialog: GuideDialog | None = None

    @staticmethod
    def shortcut_rows() -> list[tuple[str, str, str]]:
        """(where, what, keys) for every key: the window's actions (from their records) and the keys in panels."""
        return [(where, what, keys) for where, keys, what in keyboard_rows()]

    def show_shortcuts(self) -> QDialog:
        dlg = QDialog(self._parent)
        dlg.setObjectName("shortcutsDialog")
        dlg.setWindowTitle("Keyboard shortcuts")
        lay = QVBoxLayout(dlg)
        rows = self.shortcut_rows()
        table = QTableWidget(len(rows), 3, dlg)
        table.setHorizontalHeaderLabels(["Where", "What", "Keys"])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                table.setItem(r, c, QTableWidgetItem(text))
        table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        table.resizeColumnsToContents()
        lay.addWidget(table)
        note = QLabel(
            "Every slider can be reached with Tab and moved with the arrow keys. "
            "Right-click any plot to export it."
        )
        note.setWordWrap(True)
        lay.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(dlg.reject)
        lay.addWidget(buttons)
        dlg.setFont(self._parent.font())
        dlg.resize(720, 620)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.shortcuts_dialog = dlg
        table.setObjectName("shortcutsTable")
        dlg.show()
        return dlg

    @staticmethod
    def about_text() -> str:
        import pyqtgraph
        import PySide6

        from .. import __version__  # importlib.metadata: off the start-up path, read when asked

        return (
            f"<h3>PE Explorer {__version__}</h3>"
            "<p>See, live, how transformers learn word order: sinusoidal waves, the token-swap "
            "experiment, and every positional scheme side by side.</p>"
            f"<p>Qt for Python {PySide6.__version__}, pyqtgraph {pyqtgraph.__version__}.</p>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self._parent, "About PE Explorer", self.about_text())

    def show_guide(self, page: str = "index.md") -> GuideDialog:
        """Open the user guide (docs/ beside the package, or shipped in it) in a window of its own."""
        dlg = GuideDialog(docs_dir(), page, self._parent)
        dlg.setObjectName("guideDialog")
        dlg.setFont(self._parent.font())
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.guide_dialog = dlg
        dlg.show()
        return dlg

