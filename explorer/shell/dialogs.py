"""Every question the main window asks (and every error box it shows), in one object tests replace.

The texts shown are plain text: a preset's title or a file's error can hold anything (``<img src=…>`` in a
rich-text box makes Qt read the "image").
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QWidget,
)

from ..presets import user_dir
from ..settings import home_folder
from ..widgets.plain import ask, warn

PRESET_FILTER = "PE Explorer preset (*.json)"
LESSON_FILTER = "PE Explorer lesson (*.json)"


class Dialogs:
    """The window's modal questions; each answer None (or False) means "cancelled"."""

    def __init__(self, parent: QWidget) -> None:
        self._parent = parent

    def show_error(self, title: str, message: str) -> None:
        warn(self._parent, title, message)  # the message names what a file held: as text

    def ask_open_path(self) -> str | None:
        """A preset file to open."""
        folder = user_dir() if user_dir().is_dir() else home_folder()
        path, _ = QFileDialog.getOpenFileName(self._parent, "Open preset", str(folder), PRESET_FILTER)
        return path or None

    def ask_save_path(self, default_name: str) -> str | None:
        """Where to save a preset file (".json" added when no extension is given)."""
        path, _ = QFileDialog.getSaveFileName(self._parent, "Save preset to file", str(home_folder() / default_name),
                                              PRESET_FILTER)
        if path and not Path(path).suffix:
            path += ".json"
        return path or None

    def ask_lesson_path(self) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self._parent, "Open lesson", str(home_folder()), LESSON_FILTER)
        return path or None

    def ask_overwrite(self, path: Path, title: str) -> bool:
        yes, no = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No
        text = f"A preset named “{title}” exists already ({path.name}). Replace it?"
        return ask(self._parent, "Replace preset?", text, yes | no, no) == yes

    def ask_preset_details(self, title: str = "") -> tuple[str, str] | None:
        """A name and notes for a preset to save (``title``: the name offered)."""
        dlg = QDialog(self._parent)
        dlg.setWindowTitle("Save preset")
        form = QFormLayout(dlg)
        name = QLineEdit(title)
        name.setPlaceholderText("e.g. Week 3 — RoPE at 32k")
        desc = QPlainTextEdit()
        desc.setPlaceholderText("What this set-up shows (optional; shown when it is loaded)")
        desc.setFixedHeight(90)
        form.addRow("Name", name)
        form.addRow("Notes", desc)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(dlg.accept)
        buttons.rejected.connect(dlg.reject)
        form.addRow(buttons)
        if dlg.exec() != QDialog.DialogCode.Accepted or not name.text().strip():
            return None
        return name.text().strip(), desc.toPlainText().strip()
