"""The hall sees what is pointed at: a large readout beside the cursor with a crosshair (presenter mode), and a
laser dot on click-and-hold that points instead of panning or picking."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from explorer.theme import LIGHT, PRESENTER_DARK, PRESENTER_LIGHT
from explorer.widgets.pointer import HOLD_MS, POINTER_PT, pointer_for
from explorer.widgets.theming import theme_bus


def _mouse(widget, kind, pos: QPoint, buttons=Qt.MouseButton.LeftButton) -> None:
    button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove else Qt.MouseButton.LeftButton
    held = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseButtonRelease else buttons
    ev = QMouseEvent(kind, QPointF(pos), QPointF(widget.mapToGlobal(pos)), button, held,
                     Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, ev)


@pytest.fixture
def waves(qtbot, main_window):
    qtbot.waitUntil(lambda: main_window.all_drawn, timeout=60000)
    main_window.show_panel("waves")
    view = main_window.panels["waves"].heatmap
    qtbot.waitUntil(lambda: view.plot.isVisible(), timeout=5000)
    return main_window, view


def _centre(view):
    vb = view.plot.getPlotItem().getViewBox()
    return vb.sceneBoundingRect().center(), vb


def test_large_readout_and_crosshair_follow_the_cursor_in_presenter_mode(qtbot, waves):
    win, view = waves
    scene_pos, vb = _centre(view)
    view._on_mouse_moved((scene_pos,))
    pointer = pointer_for(view.plot)
    assert not pointer.label.isVisible()  # normal mode: the readout under the plot is enough
    win.look.set_presenter(True)
    qtbot.wait(100)  # the bigger fonts lay the plot out again
    scene_pos, vb = _centre(view)
    view._on_mouse_moved((scene_pos,))
    assert pointer.label.isVisible()
    assert "PE = " in pointer.label.text()
    assert pointer.label.font().pointSizeF() == PRESENTER_LIGHT.point_size(POINTER_PT)
    at = view.plot.mapTo(win, view.plot.mapFromScene(scene_pos))
    assert pointer.label.parentWidget() is win
    g = pointer.label.geometry()
    assert win.rect().contains(g), "inside the window"
    assert not g.contains(at), "beside the cursor, not under it"
    assert (g.center() - at).manhattanLength() < 60 + g.width() + g.height()
    pt = vb.mapSceneToView(scene_pos)
    vline, hline = pointer.lines
    assert vline.isVisible() and hline.isVisible()
    assert vline.value() == pytest.approx(pt.x()) and hline.value() == pytest.approx(pt.y())
    assert vline.pen.widthF() == pytest.approx(PRESENTER_LIGHT.line_scale)  # themed like every line
    # Another tab shown: the readout (on the window) goes with its plot.
    tabs = win.panels["waves"].tabs
    tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: not view.plot.isVisible(), timeout=5000)
    assert not pointer.label.isVisible()
    tabs.setCurrentIndex(0)
    qtbot.waitUntil(lambda: view.plot.isVisible(), timeout=5000)
    qtbot.wait(50)
    scene_pos, vb = _centre(view)
    view._on_mouse_moved((scene_pos,))
    assert pointer.label.isVisible()
    # Off the data: gone.
    view._on_mouse_moved((vb.sceneBoundingRect().topLeft() - QPointF(5, 5),))
    assert not pointer.label.isVisible() and not vline.isVisible()
    win.look.set_presenter(False)
    assert pointer.label.font().pointSizeF() == LIGHT.point_size(POINTER_PT)


def test_click_and_hold_is_a_laser_pointer_not_a_pan_or_a_pick(qtbot, waves):
    win, view = waves
    win.look.set_presenter(True)
    state = view.panel_state() if hasattr(view, "panel_state") else win.panels["waves"].state
    scene_pos, vb = _centre(view)
    port = view.plot.viewport()
    at = view.plot.mapFromScene(scene_pos)
    pointer = pointer_for(view.plot)
    before = vb.viewRange()
    _mouse(port, QEvent.Type.MouseMove, at, Qt.MouseButton.NoButton)
    _mouse(port, QEvent.Type.MouseButtonPress, at)
    qtbot.wait(HOLD_MS + 150)
    assert pointer.laser_on
    for dx in (20, 40, 60):
        _mouse(port, QEvent.Type.MouseMove, at + QPoint(dx, 0))
    assert pointer.laser.pos() == view.plot.mapToScene(at + QPoint(60, 0))
    _mouse(port, QEvent.Type.MouseButtonRelease, at + QPoint(60, 0))
    assert not pointer.laser_on
    assert vb.viewRange() == before, "holding still then moving points; it does not pan"
    qtbot.wait(50)
    assert win.panels["waves"].state == state, "the release is not a click that picks a cell"


def test_a_short_click_is_still_a_click(qtbot):
    from explorer.widgets.plots import Plot

    theme_bus().set_look(PRESENTER_DARK)
    plot = Plot()
    qtbot.addWidget(plot)
    plot.resize(300, 200)
    plot.show()
    qtbot.waitExposed(plot)
    pointer = pointer_for(plot)
    clicks = []
    plot.scene().sigMouseClicked.connect(clicks.append)
    at = QPoint(150, 100)
    _mouse(plot.viewport(), QEvent.Type.MouseButtonPress, at)
    _mouse(plot.viewport(), QEvent.Type.MouseButtonRelease, at)
    qtbot.wait(HOLD_MS + 100)
    assert not pointer.laser_on
    assert len(clicks) == 1
    assert PRESENTER_DARK.foreground in pointer.label.styleSheet()


def test_every_plot_has_a_presenter_readout_of_the_point_under_the_cursor(qtbot):
    """A plot with no hover code of its own (here a bare curve and a bare image) still tells the hall the
    value pointed at in presenter mode: the nearest curve point in the axes' units (log undone), or the
    image cell; nothing in a normal theme or far from the data."""
    import numpy as np

    from explorer.widgets.plots import make_plot
    from explorer.widgets.pointer import reading

    plot = make_plot("curve", x="x", y="y")
    qtbot.addWidget(plot)
    plot.resize(500, 400)
    plot.show()
    qtbot.waitExposed(plot)
    pi = plot.getPlotItem()
    pi.addItem(pg.PlotDataItem([1.0, 10.0, 100.0], [2.0, 3.0, 4.0], name="RoPE"))
    pi.setLogMode(x=True, y=False)
    pi.setXRange(0, 2, padding=0.1)
    pi.setYRange(2, 4, padding=0.1)
    QApplication.processEvents()
    vb = pi.getViewBox()
    near = vb.mapViewToScene(QPointF(1.0, 3.0)) + QPointF(6, 4)  # a few px off the point (10, 3)
    text, at = reading(plot, near)
    assert "RoPE" in text and "x = 10<" in text and "y = 3</b>" in text
    assert (at - vb.mapViewToScene(QPointF(1.0, 3.0))).manhattanLength() < 1
    assert reading(plot, vb.mapViewToScene(QPointF(0.2, 3.9)))[0] == ""  # far from every point
    bus = theme_bus()
    try:
        bus.set_look(LIGHT)
        plot.scene().sigMouseMoved.emit(near)
        assert plot.pointer is None  # quiet outside presenter mode
        bus.set_look(PRESENTER_LIGHT)
        plot.scene().sigMouseMoved.emit(near)
        pointer = plot.pointer
        assert pointer.label.isVisible() and "y = 3" in pointer.label.text()
        plot.scene().sigMouseMoved.emit(vb.mapViewToScene(QPointF(0.2, 3.9)))
        assert not pointer.label.isVisible()
    finally:
        bus.set_look(LIGHT)

    img_plot = make_plot("image")
    qtbot.addWidget(img_plot)
    img_plot.resize(400, 400)
    img_plot.show()
    qtbot.waitExposed(img_plot)
    img = pg.ImageItem(np.arange(12.0).reshape(3, 4), axisOrder="row-major")
    img_plot.getPlotItem().addItem(img)
    img_plot.getPlotItem().setRange(xRange=(0, 4), yRange=(0, 3), padding=0)
    QApplication.processEvents()
    text, _at = reading(img_plot, img.mapToScene(QPointF(2.5, 1.5)))
    assert text == "row 1, column 2<br><b>6</b>"
    own = make_plot("own")
    qtbot.addWidget(own)
    pointer_for(own)  # the panel's hover code points here: the default readout stays out of its way
    assert own.hover_owned
