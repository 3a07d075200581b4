"""Value boxes a hall can see: a proxy of the app's style that outlines spin boxes and line edits.

Fusion outlines them in a shade darker than the window, which on a dark window is no outline at all.  A
style sheet would fix the colour but replaces the boxes' arrows and stops fonts from propagating, so the
outline is drawn here instead, in the theme's control colours (:func:`explorer.theme.control_colours`):
at least 3:1 against the window, and the focus colour, two pixels wide, on the box that has focus.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QProxyStyle, QStyle

from ..theme import Theme, control_colours, screen_theme


class ControlStyle(QProxyStyle):
    """The app's own style, with value boxes outlined in the current theme's control colours."""

    def __init__(self, base: str) -> None:
        super().__init__(base)
        self._colours = control_colours(screen_theme())

    def set_theme(self, theme: Theme) -> None:
        self._colours = control_colours(theme)

    def _outline(self, option, painter: QPainter) -> None:
        focus = bool(option.state & QStyle.StateFlag.State_HasFocus)
        width = 2.0 if focus else 1.0
        pen = QPen(QColor(self._colours["focus" if focus else "border"]), width)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(pen)
        painter.setBrush(QColor(0, 0, 0, 0))
        r = QRectF(option.rect).adjusted(width / 2, width / 2, -width / 2, -width / 2)
        painter.drawRect(r)
        painter.restore()

    def drawComplexControl(self, control, option, painter, widget=None) -> None:  # noqa: N802 - Qt override
        super().drawComplexControl(control, option, painter, widget)
        if control == QStyle.ComplexControl.CC_SpinBox and option.frame:
            self._outline(option, painter)

    def _indicator(self, element, option, painter: QPainter) -> None:
        """A check box's square (a radio button's circle) outlined at 3:1: Fusion draws it in the
        field colour with a border a shade off the window, which on a dark window is no square at all."""
        focus = bool(option.state & QStyle.StateFlag.State_HasFocus)
        width = 2.0 if focus else 1.0
        radio = element == QStyle.PrimitiveElement.PE_IndicatorRadioButton
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, radio)
        painter.setPen(QPen(QColor(self._colours["focus" if focus else "border"]), width))
        painter.setBrush(QColor(0, 0, 0, 0))
        r = QRectF(option.rect).adjusted(width / 2, width / 2, -width / 2, -width / 2)
        if radio:
            painter.drawEllipse(r)
        else:
            painter.drawRect(r)
        painter.restore()

    def drawPrimitive(self, element, option, painter, widget=None) -> None:  # noqa: N802 - Qt override
        super().drawPrimitive(element, option, painter, widget)
        if element in (QStyle.PrimitiveElement.PE_IndicatorCheckBox, QStyle.PrimitiveElement.PE_IndicatorRadioButton):
            self._indicator(element, option, painter)
            return
        # A line edit of its own (the one inside a spin box or combo box is outlined by its owner).
        if element == QStyle.PrimitiveElement.PE_PanelLineEdit and option.lineWidth > 0 and widget is not None \
                and not isinstance(widget.parentWidget(), (QAbstractSpinBox, QComboBox)):
            self._outline(option, painter)


def install(theme: Theme) -> None:
    """Make :class:`ControlStyle` the app's style (once) and give it ``theme``'s colours."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):  # none (or one without widgets): no controls to style
        return
    style = app.style()
    if not isinstance(style, ControlStyle):
        style = ControlStyle(style.name())
        app.setStyle(style)
    style.set_theme(theme)
