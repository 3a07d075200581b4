"""A layout that places its items left to right and wraps them onto a new line when the width runs out.

Qt's Flow Layout example (https://doc.qt.io/qt-6/qtwidgets-layouts-flowlayout-example.html), in Python:
each item at its size hint; the height follows the width (``heightForWidth``), so a widget holding it can
ask how tall it must be at a given width.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QStyle, QWidget


class FlowLayout(QLayout):
    """Items in rows that wrap to the width; ``setHorizontalSpacing`` / ``setVerticalSpacing`` in pixels
    (-1: the style's spacing)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._h_space = -1
        self._v_space = -1

    # -- spacing -------------------------------------------------------------------------------------
    def setHorizontalSpacing(self, space: int) -> None:  # noqa: N802 - Qt naming
        self._h_space = space
        self.invalidate()

    def setVerticalSpacing(self, space: int) -> None:  # noqa: N802 - Qt naming
        self._v_space = space
        self.invalidate()

    def horizontalSpacing(self) -> int:  # noqa: N802 - Qt naming
        if self._h_space >= 0:
            return self._h_space
        return self._smart_spacing(QStyle.PixelMetric.PM_LayoutHorizontalSpacing)

    def verticalSpacing(self) -> int:  # noqa: N802 - Qt naming
        if self._v_space >= 0:
            return self._v_space
        return self._smart_spacing(QStyle.PixelMetric.PM_LayoutVerticalSpacing)

    # -- QLayout's interface ---------------------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt override
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt override
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt override
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt override
        # The holder may take the width it is given (more width, fewer lines); its height follows.
        return Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        return self._do_layout(QRect(0, 0, width, 0), test_only=True)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt override
        super().setGeometry(rect)
        self._do_layout(rect, test_only=False)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt override
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m: QMargins = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    # -- placing ---------------------------------------------------------------------------------------
    def _do_layout(self, rect: QRect, *, test_only: bool) -> int:
        """Place the items in ``rect`` (or only measure, with ``test_only``); returns the height used."""
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line_height = area.x(), area.y(), 0
        for item in self._items:
            widget = item.widget()
            space_x, space_y = self.horizontalSpacing(), self.verticalSpacing()
            if widget is not None and space_x == -1:
                space_x = widget.style().layoutSpacing(QSizePolicy.ControlType.PushButton,
                                                       QSizePolicy.ControlType.PushButton, Qt.Orientation.Horizontal)
            if widget is not None and space_y == -1:
                space_y = widget.style().layoutSpacing(QSizePolicy.ControlType.PushButton,
                                                       QSizePolicy.ControlType.PushButton, Qt.Orientation.Vertical)
            hint = item.sizeHint()
            next_x = x + hint.width() + space_x
            if next_x - space_x > area.right() and line_height > 0:  # full: a new line
                x = area.x()
                y += line_height + space_y
                next_x = x + hint.width() + space_x
                line_height = 0
            if not test_only:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x = next_x
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y() + m.bottom()

    def _smart_spacing(self, metric: QStyle.PixelMetric) -> int:
        parent = self.parent()
        if parent is None:
            return -1
        if isinstance(parent, QWidget):
            return parent.style().pixelMetric(metric, None, parent)
        if isinstance(parent, QLayout):
            return parent.spacing()
        return -1
