"""The scene strip under the toolbar: the lecture scene's (or preset's, or lesson step's) title and notes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolBar, QWidget

from .notes import NotesLabel


class SceneBar(QToolBar):
    """A strip with a title and notes that are one line unless clicked (their whole text at 1280 × 720 in presenter
    mode took four lines and pushed the window past the screen); ✕ hides it.  Both are plain text: a title comes
    from a preset or lesson file."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Lecture scene", parent)
        self.setObjectName("sceneToolBar")
        self.setMovable(False)
        frame = QFrame(self)
        frame.setObjectName("sceneBar")
        lay = QHBoxLayout(frame)
        lay.setContentsMargins(8, 4, 8, 4)
        self.title = QLabel(frame)
        self.title.setObjectName("sceneTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.notes = NotesLabel(frame)
        self.notes.setObjectName("sceneText")
        lay.addWidget(self.title)
        lay.addWidget(self.notes, 1)
        self.addWidget(frame)
        close = self.addAction("✕")
        close.setToolTip("Hide the scene notes")
        close.triggered.connect(self.hide)

    def show_scene(self, title: str, notes: str) -> None:
        """Show ``title`` and ``notes`` (collapsed to one line)."""
        self.title.setText(title)
        self.notes.set_notes(notes)
        self.notes.set_expanded(False)
        self.show()
