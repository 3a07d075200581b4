"""Help: the keyboard shortcuts table, the user guide (docs/, offline, inside the app), About.

:class:`HelpMixin` is the part of :class:`explorer.main_window.MainWindow` behind the Help menu.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from .widgets.guide import GuideDialog, docs_dir

#: Keys that work inside the panels (not window actions); listed in Help → Keyboard shortcuts.
PANEL_KEYS = (
    ("Panels", "Move to the next / previous control", "Tab / Shift+Tab"),
    ("Panels", "Step the focused slider or spin box by one", "Left / Right or Up / Down"),
    ("Panels", "Step the focused slider by a page", "PgUp / PgDown"),
    ("Panels", "Jump the focused slider to its minimum / maximum", "Home / End"),
    ("Panels", "Open a plot's menu (export, zoom)", "right-click the plot"),
)


class HelpMixin:
    """Keyboard shortcuts, the user guide and About (needs the menus and actions)."""

    def shortcut_rows(self) -> list[tuple[str, str, str]]:
        """(group, what, keys) for every shortcut: the window's actions and the keys inside panels."""
        groups = {}
        for menu, name in (
            (self.file_menu, "File"),
            (self.edit_menu, "Edit"),
            (self.view_menu, "View"),
            (self.presets_menu, "Presets"),
            (self.export_menu, "Export"),
            (self.help_menu, "Help"),
        ):
            for act in menu.actions():
                groups.setdefault(id(act), name)
        rows = []
        for act in self.all_shortcut_actions():
            keys = " or ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in act.shortcuts())
            text = act.text().replace("&", "").rstrip("…").strip()
            if act is self.act_undo:
                text = "Undo the last parameter change"
            elif act is self.act_redo:
                text = "Redo"
            elif act.parent() in self.docks.values():
                text = f"Show / hide the {text} panel"
            rows.append((groups.get(id(act), "Window"), text, keys))
        order = ["File", "Edit", "View", "Presets", "Export", "Help", "Window"]
        rows.sort(key=lambda r: (order.index(r[0]) if r[0] in order else len(order), r[1]))
        return rows + list(PANEL_KEYS)

    def show_shortcuts(self) -> QDialog:
        dlg = QDialog(self)
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
        dlg.setFont(self.font())
        dlg.resize(720, 620)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.shortcuts_dialog = dlg
        table.setObjectName("shortcutsTable")
        dlg.show()
        return dlg

    def about_text(self) -> str:
        import pyqtgraph
        import PySide6

        from . import __version__  # importlib.metadata: off the start-up path, read when asked

        return (
            f"<h3>PE Explorer {__version__}</h3>"
            "<p>See, live, how transformers learn word order: sinusoidal waves, the token-swap "
            "experiment, and every positional scheme side by side.</p>"
            f"<p>Qt for Python {PySide6.__version__}, pyqtgraph {pyqtgraph.__version__}.</p>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self, "About PE Explorer", self.about_text())

    def show_guide(self, page: str = "index.md") -> GuideDialog:
        """Open the user guide (docs/ beside the package, or shipped in it) in a window of its own."""
        dlg = GuideDialog(docs_dir(), page, self)
        dlg.setObjectName("guideDialog")
        dlg.setFont(self.font())
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.guide_dialog = dlg
        dlg.show()
        return dlg

