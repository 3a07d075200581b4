"""What the hall sees of the lecturer's pointer: a large readout beside the cursor, a crosshair, a laser dot.

The readout under a plot is sized for the person at the screen; from the back of a hall it is a grey line.
:class:`PointerReadout` puts the same numbers, short and large, next to the cursor, with a crosshair through
the point, in presenter mode (or always, if asked).  Pressing and holding the left button still for a moment
turns the cursor into a laser-pointer dot until the button is released (moving while holding then points
instead of panning, and the release is not a click).

A panel's hover code keeps computing its own text; it calls :meth:`PointerReadout.show_at` with the scene
position and a short rich text, and :meth:`PointerReadout.hide` when the cursor is off the data.  One per plot,
made by the plot (:class:`explorer.widgets.plots.Plot`); a plot without hover code of its own shows what
:func:`reading` finds under the cursor.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsEllipseItem, QLabel

from ..theme import Theme
from .theming import theme_bus

#: Readout text at zoom 1 in a normal theme (presenter multiplies it: 13 pt becomes 19.5 pt).
POINTER_PT = 13.0
#: How long the button must be held still before the laser dot appears (ms), and how far it may drift (px).
HOLD_MS = 350
HOLD_SLOP = 5
LASER_COLOUR = QColor(230, 0, 30)


class PointerReadout(QObject):
    """A large readout next to the cursor and a crosshair on ``plot`` (a PlotWidget); a laser dot on hold.

    Parameters
    ----------
    plot : pyqtgraph.PlotWidget
        The plot whose data the cursor points at (its first view box).
    always : bool
        Show the readout and crosshair in every theme, not only in presenter mode.
    """

    def __init__(self, plot: pg.PlotWidget, *, always: bool = False) -> None:
        super().__init__(plot)
        self.plot = plot
        self.always = always
        self.vb = plot.getPlotItem().getViewBox()
        self.label = QLabel(plot)  # moves onto the window when first shown
        self.label.setObjectName("pointerReadout")
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.label.hide()
        theme_bus().follow_font(self.label, POINTER_PT)
        dash = pg.mkPen("#303030", width=1.0, style=Qt.PenStyle.DashLine)
        self.lines = (pg.InfiniteLine(angle=90, pen=dash, movable=False),
                      pg.InfiniteLine(angle=0, pen=dash, movable=False))
        for line in self.lines:
            line.setVisible(False)
            line.setZValue(900)
            self.vb.addItem(line, ignoreBounds=True)
            plot.styler.adopt(line)  # drawn in the theme's colours, like every line of the plot
        self.laser = QGraphicsEllipseItem(-14, -14, 28, 28)
        glow = QColor(LASER_COLOUR)
        glow.setAlpha(150)
        self.laser.setBrush(QBrush(glow))
        self.laser.setPen(QPen(LASER_COLOUR, 3))
        self.laser.setZValue(1e6)
        self.laser.setVisible(False)
        plot.scene().addItem(self.laser)
        self._hold = QTimer(self)
        self._hold.setSingleShot(True)
        self._hold.setInterval(HOLD_MS)
        self._hold.timeout.connect(self._on_hold)
        self._press: QPoint | None = None
        self._last: QPoint | None = None
        plot.viewport().installEventFilter(self)
        theme_bus().themeChanged.connect(self._on_theme_changed)
        self._on_theme_changed(theme_bus().theme)

    # -- what panels call -----------------------------------------------------------------------------
    def active(self) -> bool:
        """Shown now?  In presenter mode (a high-contrast theme), or always when asked."""
        return self.always or theme_bus().theme.high_contrast

    def show_at(self, scene_pos, text: str) -> None:
        """Point at ``scene_pos`` (scene coordinates, as ``sigMouseMoved`` gives them) and say ``text``."""
        if not self.active() or not text or not shiboken6.isValid(self.label):
            self.hide()
            return
        pt = self.vb.mapSceneToView(QPointF(scene_pos))
        self.lines[0].setPos(pt.x())
        self.lines[1].setPos(pt.y())
        for line in self.lines:
            line.setVisible(True)
        top = self.plot.window()
        if self.label.parentWidget() is not top:
            # On the window, not the plot: a small plot must not cut the readout (nor hide under it).
            self.label.setParent(top)
        if self.label.text() != text:
            self.label.setText(text)
        self.label.setWordWrap(False)
        self.label.setMinimumWidth(0)
        self.label.setMaximumWidth(16777215)
        self.label.adjustSize()
        widest = max(160, top.width() // 2)
        if self.label.width() > widest:  # wrap rather than run across the window
            self.label.setWordWrap(True)
            self.label.setFixedWidth(widest)
            self.label.adjustSize()
        self._place(self.plot.mapTo(top, self.plot.mapFromScene(QPointF(scene_pos))), top)
        self.label.show()
        self.label.raise_()

    def hide(self) -> None:
        if not shiboken6.isValid(self.label):
            return
        self.label.hide()
        for line in self.lines:
            line.setVisible(False)

    @property
    def laser_on(self) -> bool:
        return self.laser.isVisible()

    # -- placing --------------------------------------------------------------------------------------
    def _place(self, at: QPoint, top) -> None:
        """Beside the cursor (``at``, in ``top``'s coordinates), below and to the right; on the other side
        near an edge of the window."""
        gap = 18
        w, h = self.label.width(), self.label.height()
        x, y = at.x() + gap, at.y() + gap
        if x + w > top.width():
            x = at.x() - gap - w
        if y + h > top.height():
            y = at.y() - gap - h
        self.label.move(max(0, x), max(0, y))

    def _on_theme_changed(self, theme: Theme) -> None:
        if not shiboken6.isValid(self.label):
            return
        bg = QColor(theme.background)
        fill = f"rgba({bg.red()}, {bg.green()}, {bg.blue()}, 235)"
        self.label.setStyleSheet(
            f"QLabel#pointerReadout {{ color: {theme.foreground}; background: {fill};"
            f" border: 2px solid {theme.foreground}; border-radius: 4px; padding: 4px 8px; }}")
        if not self.active():
            self.hide()

    # -- the laser ------------------------------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if "label" not in self.__dict__ or not shiboken6.isValid(self):
            # A plot torn down while its events are still delivered: the readout's attributes may be cleared
            # by the garbage collector first (a Hide event then raised inside Qt, under load: issue 25).
            return False
        t = event.type()
        if t in (QEvent.Type.Leave, QEvent.Type.Hide):  # off the plot, or its tab or panel put away
            self.hide()
            self._laser_off()
        elif t == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            self._press = self._last = event.position().toPoint()
            self._hold.start()
        elif t == QEvent.Type.MouseMove:
            pos = event.position().toPoint()
            self._last = pos
            if self.laser_on:
                self._move_laser(pos)
                return True  # pointing, not panning
            if self._press is not None and (pos - self._press).manhattanLength() > HOLD_SLOP:
                self._hold.stop()
                self._press = None
        elif t == QEvent.Type.MouseButtonRelease and event.button() == Qt.MouseButton.LeftButton:
            self._hold.stop()
            self._press = None
            if self.laser_on:
                self._laser_off()
        return False

    def _on_hold(self) -> None:
        if self._press is None or not shiboken6.isValid(self.plot):
            return
        if not self.active() or self.plot.scene().mouseGrabberItem() is not None:
            return  # a movable line took the press: it is being dragged
        scene = self.plot.scene()
        # The release must not be a click (it would pick a cell): forget the press pyqtgraph holds.
        scene.clickEvents = [e for e in scene.clickEvents if e.button() != Qt.MouseButton.LeftButton]
        self.hide()
        self._move_laser(self._last or self._press)
        self.laser.setVisible(True)

    def _move_laser(self, pos: QPoint) -> None:
        self.laser.setPos(self.plot.mapToScene(pos))

    def _laser_off(self) -> None:
        if shiboken6.isValid(self.laser):
            self.laser.setVisible(False)


def pointer_for(plot) -> PointerReadout:
    """``plot``'s pointer readout (an app :class:`~explorer.widgets.plots.Plot`), made on first use, for a
    view's hover code: from then on the plot's default readout leaves the plot to it."""
    return plot.own_pointer()


def two_lines(text: str, prefix: str = "") -> str:
    """A plain readout line as the pointer shows it: without ``prefix``, escaped, the value after the
    last ": " bold on a line of its own ("query “dog” (0) → key “man” (2): weight 0.4848")."""
    if prefix and text.startswith(prefix):
        text = text[len(prefix):]
    head, sep, value = text.rpartition(": ")
    if not sep:
        return html.escape(text)
    return f"{html.escape(head)}<br><b>{html.escape(value)}</b>"


#: How near (px) the cursor must be to a curve's point for the readout to name it.
SNAP_PX = 30


def _fmt(v: float) -> str:
    return f"{v:.4g}".replace("-", "−")


def reading(plot: pg.PlotWidget, scene_pos: QPointF) -> tuple[str, QPointF]:
    """What the cursor at ``scene_pos`` points at on ``plot``: (rich text, scene point to mark), or ("", …).

    The nearest point (within :data:`SNAP_PX`) of a visible curve, in the axes' own units (log axes
    undone); else the value of the visible image's cell under the cursor."""
    pi = plot.getPlotItem()
    vb = pi.getViewBox()
    if not vb.sceneBoundingRect().contains(scene_pos):
        return "", scene_pos
    log_x, log_y = (bool(v) for v in vb.state.get("logMode", [False, False]))
    best = None
    for item in pi.listDataItems():
        if not item.isVisible():
            continue
        x, y = item.getData()
        if x is None or y is None or len(x) == 0:
            continue
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        ok = np.isfinite(x) & np.isfinite(y)
        if not ok.any():
            continue
        x, y = x[ok], y[ok]
        view = vb.mapSceneToView(scene_pos)
        px = vb.viewPixelSize()
        d = np.hypot((x - view.x()) / max(px[0], 1e-300), (y - view.y()) / max(px[1], 1e-300))
        k = int(np.argmin(d))
        if d[k] <= SNAP_PX and (best is None or d[k] < best[0]):
            best = (float(d[k]), item, float(x[k]), float(y[k]))
    if best is not None:
        _d, item, x, y = best
        name = item.name() or ""
        xs = _fmt(10 ** x if log_x else x)
        ys = _fmt(10 ** y if log_y else y)
        head = f"{html.escape(name)}<br>" if name else ""
        return f"{head}x = {xs}<br><b>y = {ys}</b>", vb.mapViewToScene(QPointF(x, y))
    for item in vb.addedItems:
        if isinstance(item, pg.ImageItem) and item.isVisible() and item.image is not None:
            local = item.mapFromScene(scene_pos)
            r, c = int(np.floor(local.y())), int(np.floor(local.x()))
            img = item.image
            if 0 <= r < img.shape[0] and 0 <= c < img.shape[1] and img.ndim == 2:
                return f"row {r}, column {c}<br><b>{_fmt(float(img[r, c]))}</b>", scene_pos
    return "", scene_pos
