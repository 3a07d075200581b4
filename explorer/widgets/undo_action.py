"""The Undo and Redo actions: a ``QUndoStack``'s, named after what they undo, renamed at most ten times a second.

Qt's ``QUndoStack.createUndoAction`` renames its action at every change of the stack's text.  A held slider's
steps merge into one command whose text names the value reached, so that action was renamed at every drag step,
and each rename (its text, and its tooltip set as plain text) updated the Edit menu and the toolbar's button: two
``ActionChanged`` events, 0.3–0.45 ms each, in every step of a drag's input.  Here the name follows at once,
then at most every :data:`~explorer.widgets.text_pin.EVERY_MS` (the newest waits), as the live labels do.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QUndoStack

from .plain import plain_tip
from .text_pin import EVERY_MS
from .throttle import Throttle


class UndoAction(QAction):
    """``stack``'s Undo action (``redo``: its Redo action), titled "&Undo" (or "&Redo") and what it undoes."""

    def __init__(self, stack: QUndoStack, parent: QObject, *, redo: bool = False) -> None:
        super().__init__(parent)
        self.word = "Redo" if redo else "Undo"
        self._every = Throttle(EVERY_MS, parent=self)
        can, can_changed = (stack.canRedo, stack.canRedoChanged) if redo else (stack.canUndo, stack.canUndoChanged)
        text, text_changed = (stack.redoText, stack.redoTextChanged) if redo else (stack.undoText,
                                                                                   stack.undoTextChanged)
        self.setEnabled(can())
        can_changed.connect(self.setEnabled)
        self.triggered.connect(stack.redo if redo else stack.undo)
        text_changed.connect(self._follow)
        self._show(text())

    def _follow(self, text: str) -> None:
        if shiboken6.isValid(self):  # the stack may speak while the window is torn down
            self._every.offer("text", text, self._show)

    def _show(self, text: str) -> None:
        if not shiboken6.isValid(self):
            return
        # What it undoes is a preset's name or a typed sentence: an "&" in it is shown, not a mnemonic, and the
        # tooltip is plain text (Qt would show the action's text there, read as HTML).
        self.setText(f"&{self.word} {text.replace('&', '&&')}" if text else f"&{self.word}")
        self.setToolTip(plain_tip(f"{self.word} {text}".strip()))
