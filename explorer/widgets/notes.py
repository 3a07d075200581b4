"""A label for notes that must not take the screen: one elided line, the whole text on click or hover."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QLabel, QSizePolicy

from .plain import plain_tip, shorten


class NotesLabel(QLabel):
    """Collapsed: the notes' first line, elided to the width ("…"), the whole text in the tooltip.
    Expanded: the whole text, wrapped.  A click switches between the two (``toggled`` says which).

    It never asks for more width than a short line, so a long note cannot push the window wider than
    the screen, and collapsed it is one line tall, so it cannot push it taller either.
    """

    toggled = Signal(bool)
    #: The most lines the expanded notes take (the tooltip has the rest).
    MAX_LINES = 4

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._full = ""
        self._expanded = False
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setMinimumWidth(80)

    # -- text ----------------------------------------------------------------------------------
    def set_notes(self, text: str) -> None:
        """Show ``text`` (plain text: a preset's notes, a model's summary, shown as the characters they hold)."""
        self._full = shorten(text).strip()
        hint = f"<p><i>Click to {'fold' if self._expanded else 'read'} the notes</i></p>"
        self.setToolTip(plain_tip(self._full) + hint if self._full else "")
        self._show()

    def notes(self) -> str:
        return self._full

    @property
    def expanded(self) -> bool:
        return self._expanded

    def set_expanded(self, on: bool) -> None:
        if on != self._expanded:
            self._expanded = on
            self.set_notes(self._full)
            self.toggled.emit(on)

    def _show(self) -> None:
        self.setWordWrap(self._expanded)
        if self._expanded:
            super().setText(self._full)
            # Its own height for its width, at most MAX_LINES lines (a wrapped label in a tool bar asked
            # for the height of a narrow column: a window twice the screen's height).
            room = max(80, self.contentsRect().width())
            need = self.fontMetrics().boundingRect(0, 0, room, 100000, Qt.TextFlag.TextWordWrap, self._full).height()
            m = self.contentsMargins()
            self.setFixedHeight(min(need, self.MAX_LINES * self.fontMetrics().lineSpacing()) + m.top() + m.bottom())
        else:
            self.setMinimumHeight(0)
            self.setMaximumHeight(16777215)
            first = self._full.split("\n", 1)[0]
            room = max(10, self.contentsRect().width())
            super().setText(self.fontMetrics().elidedText(first, Qt.TextElideMode.ElideRight, room))
        self.updateGeometry()

    # -- Qt --------------------------------------------------------------------------------------
    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().sizeHint()
        return QSize(min(hint.width(), 480), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(80, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if not self._expanded or event.size().width() != event.oldSize().width():
            self._show()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self._show()

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton and self._full:
            self.set_expanded(not self._expanded)
        super().mouseReleaseEvent(event)
