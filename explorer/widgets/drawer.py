"""A panel's control sidebar as a drawer (presenter mode): a thin handle at the plots' edge, the controls opened
over the plots on a click (or Ctrl+B) and closed again, so the plots keep their width whether it is open or not.

:class:`Drawer` takes the sidebar out of its place (the handle holds it) and lays it over the panel, beside the
handle, as tall as the handle; :meth:`Drawer.restore` puts it back in the very place it came from.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QFrame, QSizePolicy, QToolButton, QWidget

#: The handle's width in px: a strip the audience barely sees and a presenter can still hit.
HANDLE_WIDTH = 18


class DrawerHandle(QToolButton):
    """The strip that stands where the controls were: "controls" written upwards along it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("drawerHandle")
        self.setCheckable(True)
        self.setAutoRaise(True)
        self.setFixedWidth(HANDLE_WIDTH)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
        self.setToolTip("The controls (Ctrl+B): click to open them over the plots, again to close them")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(HANDLE_WIDTH, 40)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(HANDLE_WIDTH, 20)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().paintEvent(event)
        p = QPainter(self)
        font = self.font()
        font.setPointSizeF(max(7.0, min(font.pointSizeF(), 9.0)))
        p.setFont(font)
        p.setPen(self.palette().color(self.foregroundRole()))
        p.translate(self.width() / 2 + p.fontMetrics().ascent() / 2 - 1, self.height() / 2)
        p.rotate(-90)
        text = "◂ controls" if self.isChecked() else "controls ▸"
        p.drawText(QRect(-self.height() // 2, -p.fontMetrics().ascent(), self.height(), p.fontMetrics().height()),
                   Qt.AlignmentFlag.AlignCenter, text)
        p.end()


class Drawer(QObject):
    """``sidebar`` of ``panel`` as a drawer (see the module's docstring); ``toggle()`` is called by the handle."""

    def __init__(self, sidebar: QWidget, panel: QWidget, toggle) -> None:
        super().__init__(panel)
        self.sidebar = sidebar
        self._panel = panel
        self._parent = sidebar.parentWidget()
        self.handle = DrawerHandle(self._parent)
        self.handle.clicked.connect(lambda _checked=False: toggle())
        layout = self._parent.layout() if self._parent is not None else None
        if layout is not None:
            item = layout.replaceWidget(sidebar, self.handle)
            del item
        self._visible_before = not sidebar.isHidden()
        sidebar.setParent(panel)
        self._fill = sidebar.autoFillBackground()
        sidebar.setAutoFillBackground(True)
        if isinstance(sidebar, QFrame):
            self._shape = sidebar.frameShape()
            sidebar.setFrameShape(QFrame.Shape.StyledPanel)
        sidebar.hide()
        self.handle.show()
        panel.installEventFilter(self)
        self.handle.installEventFilter(self)

    @property
    def is_open(self) -> bool:
        return not self.sidebar.isHidden()

    def set_open(self, on: bool) -> None:
        self.handle.setChecked(bool(on))
        if on:
            self._place()
            self.sidebar.show()
            self.sidebar.raise_()
        else:
            self.sidebar.hide()

    def _place(self) -> None:
        top_left = self.handle.mapTo(self._panel, QPoint(self.handle.width(), 0))
        width = self.sidebar.width() if self.sidebar.width() > 40 else self.sidebar.sizeHint().width()
        self.sidebar.setGeometry(QRect(top_left, QSize(width, max(self.handle.height(), 60))))

    def restore(self) -> None:
        """The sidebar back in its place (shown as it was before), the handle gone."""
        self._panel.removeEventFilter(self)
        self.handle.removeEventFilter(self)
        self.sidebar.hide()
        self.sidebar.setParent(self._parent)
        self.sidebar.setAutoFillBackground(self._fill)
        if isinstance(self.sidebar, QFrame):
            self.sidebar.setFrameShape(self._shape)
        layout = self._parent.layout() if self._parent is not None else None
        if layout is not None:
            item = layout.replaceWidget(self.handle, self.sidebar)
            del item
        self.sidebar.setVisible(self._visible_before)
        self.handle.hide()
        self.handle.setParent(None)
        self.handle.deleteLater()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Move) and self.is_open:
            self._place()
        return False
