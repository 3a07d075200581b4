"""An event filter that says when the widgets it watches are shown or hidden."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Signal


class ShownOrHidden(QObject):
    """An event filter that says when a widget it watches is shown or hidden (and lets every event by).

    It keeps nothing of its own in Python: a panel being collected may have its wrappers' attributes cleared while
    Qt still sends its views' Hide events here, so it only emits."""

    happened = Signal()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() in (QEvent.Type.Show, QEvent.Type.Hide):
            self.happened.emit()
        return False
