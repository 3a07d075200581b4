"""An axis is kept as a picture of the view's pixels: what changes beside it does not paint it again, what changes
it does, and an export paints it afresh at the export's resolution."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QGraphicsItem

from explorer.export.images import plot_svg, render_widget
from explorer.widgets import axis as axis_mod
from explorer.widgets.axis import Axis, painted_afresh
from explorer.widgets.plots import make_plot


def _counting(monkeypatch) -> list:
    painted = []
    real = Axis.paint

    def paint(self, p, opt, widget):
        painted.append(self.orientation)
        return real(self, p, opt, widget)

    monkeypatch.setattr(axis_mod.Axis, "paint", paint)
    return painted


def _image_plot(qtbot):
    plot = make_plot(title="a map", x="key", y="query", grid=False)
    qtbot.addWidget(plot)
    plot.resize(360, 300)
    image = pg.ImageItem(np.zeros((8, 8), dtype=np.float32))
    plot.addItem(image)
    plot.setRange(xRange=(0, 8), yRange=(0, 8), padding=0)
    plot.show()
    qtbot.waitExposed(plot)
    qtbot.wait(100)
    return plot, image


def test_a_new_image_beside_the_axes_does_not_paint_them_again(qtbot, monkeypatch):
    """Token swap's maps: inward ticks reach over the image, so each new image painted every axis of the map again
    (14 axes a drag step, about 1 ms in all)."""
    painted = _counting(monkeypatch)  # (before the plot: Qt looks up a Python override once per object)
    plot, image = _image_plot(qtbot)
    rng = np.random.default_rng(0)
    axes = [plot.getPlotItem().getAxis(name) for name in ("left", "bottom")]

    def new_images() -> None:
        for _ in range(10):
            image.setImage(rng.random((8, 8)).astype(np.float32), autoLevels=False, levels=(0, 1))
            plot.viewport().repaint()
            QApplication.processEvents()

    for a in axes:  # the control: painted with every image when nothing is kept
        a.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    new_images()
    assert painted.count("left") >= 10 and painted.count("bottom") >= 10
    for a in axes:
        a.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    plot.viewport().repaint()
    QApplication.processEvents()
    painted.clear()
    new_images()
    assert painted == []
    plot.setRange(xRange=(0, 4), yRange=(0, 8), padding=0)  # new ticks along the bottom: painted again
    qtbot.waitUntil(lambda: "bottom" in painted, timeout=2000)


def test_a_gridded_axis_keeps_its_picture_too_and_the_cache_has_room_for_a_large_window(qtbot):
    """A grid makes the axis' rect the whole plot; Qt keeps item pictures in one cache, 10 MB by default, and a
    picture pushed out of it is drawn afresh at every paint."""
    from PySide6.QtGui import QPixmapCache

    from explorer.widgets.axis import PICTURES_KB

    plot = make_plot(title="lines", x="p", y="v")
    qtbot.addWidget(plot)
    axis = plot.getPlotItem().getAxis("bottom")
    assert axis.grid is not False and axis.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache
    assert QPixmapCache.cacheLimit() >= PICTURES_KB >= 3 * 2 * 4 * 1900 * 1000 // 1024  # 3 plots, 2 axes, 4K


def _pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.width(), 4).copy()


def test_an_export_at_twice_the_size_paints_the_axes_afresh_not_the_screens_picture_enlarged(qtbot):
    plot, _ = _image_plot(qtbot)
    axes = [plot.getPlotItem().getAxis(name) for name in ("left", "bottom")]
    assert all(a.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache for a in axes)
    exported = _pixels(render_widget(plot, scale=2))
    with painted_afresh([plot]):
        assert all(a.cacheMode() == QGraphicsItem.CacheMode.NoCache for a in axes)
    assert all(a.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache for a in axes)
    for a in axes:  # the reference: no picture kept at all
        a.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    reference = _pixels(render_widget(plot, scale=2))
    np.testing.assert_array_equal(exported, reference)


def test_the_kept_picture_holds_the_whole_axis_line_and_its_ticks_labels_are_unchanged(qtbot):
    """pyqtgraph strokes the axis line on the edge of the axis' rect (a colour bar's frame lost half its width when
    only the rect was kept), and draws no tick label the rect does not hold (a wider rect let one more in at an end,
    and fewer labels were drawn)."""
    plot, _ = _image_plot(qtbot)
    plot.getPlotItem().getAxis("bottom").setPen(pg.mkPen("k", width=4))
    plot.setRange(xRange=(-0.5, 63.5), yRange=(0, 8), padding=0)
    qtbot.wait(50)
    cached = _pixels(plot.grab().toImage())
    for name in ("left", "bottom"):
        plot.getPlotItem().getAxis(name).setCacheMode(QGraphicsItem.CacheMode.NoCache)
    qtbot.wait(50)
    np.testing.assert_array_equal(cached, _pixels(plot.grab().toImage()))


def _labels(axis) -> list[str]:
    from PySide6.QtGui import QPainter, QPicture

    picture = QPicture()
    painter = QPainter(picture)
    try:
        return [text for _, _, text in axis.generateDrawSpecs(painter)[2]]
    finally:
        painter.end()


def test_the_room_kept_for_the_axis_line_lets_no_more_tick_labels_in(qtbot, monkeypatch):
    """The spectrum's pair axis (−0.5 … 63.5): with "0" let in at the left end, pyqtgraph drew 20, 40, 60 and not
    10, 30, 50 as well."""
    plot, _ = _image_plot(qtbot)
    axis = plot.getPlotItem().getAxis("bottom")
    plot.setRange(xRange=(-0.5, 63.5), yRange=(0, 8), padding=0)
    shown = {}
    for width in range(240, 420, 4):
        plot.resize(width, 300)
        QApplication.processEvents()
        shown[width] = _labels(axis)
    monkeypatch.setattr(axis_mod.Axis, "boundingRect", pg.AxisItem.boundingRect)  # no room kept: as pyqtgraph
    for width in shown:
        plot.resize(width, 300)
        QApplication.processEvents()
        assert _labels(axis) == shown[width], width


def _texts(plot) -> list:
    pi = plot.getPlotItem()
    return [pi.titleLabel.item] + [pi.getAxis(name).label for name in ("left", "bottom")]


def test_titles_and_axis_labels_are_kept_as_pictures_and_an_export_paints_them_afresh(qtbot):
    """A title's and an axis label's text documents were laid out and drawn at every repaint of their plot (a tenth
    of a heatmap's repaint in a drag); kept as pictures like the axes, they are drawn afresh for an export."""
    plot, _ = _image_plot(qtbot)
    texts = _texts(plot)
    assert all(t.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache for t in texts)
    exported = _pixels(render_widget(plot, scale=2))
    assert all(t.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache for t in texts)  # kept again after
    # In an SVG a kept picture would be an image: the heatmap is the only one.
    assert plot_svg(plot).decode().count("<image") == 1
    for item in plot.scene().items():  # the reference: no picture kept at all
        item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    np.testing.assert_array_equal(exported, _pixels(render_widget(plot, scale=2)))


def test_the_right_click_menu_offers_the_apps_export_not_pyqtgraphs(qtbot):
    """pyqtgraph's "Export..." dialog painted the kept pictures of the axes and titles into its SVG, without the
    export's look: the plot's menu has the app's Export submenu only."""
    plot, _ = _image_plot(qtbot)
    vb = plot.getPlotItem().getViewBox()

    class Click:
        acceptedItem = vb

    menu = plot.scene().addParentContextMenus(vb, vb.getMenu(Click()), Click())
    texts = [a.text() for a in menu.actions()]
    assert "E&xport" in texts and not any(t.startswith("Export") for t in texts)


def test_a_new_title_or_axis_label_is_drawn_not_the_old_picture(qtbot):
    plot, _ = _image_plot(qtbot)

    def shown(title: str, label: str) -> np.ndarray:
        plot.set_title(title)
        plot.setLabel("bottom", label)
        QApplication.processEvents()
        qtbot.wait(50)
        return _pixels(plot.grab().toImage())

    first = shown("a map", "key")
    second = shown("a different map", "value")
    assert (first != second).any(axis=-1)[:40].sum() > 20  # the title's rows
    assert (first != second).any(axis=-1)[-40:].sum() > 20  # the bottom label's
    np.testing.assert_array_equal(shown("a map", "key"), first)


def test_an_axis_rect_follows_its_geometry_its_tick_length_and_its_grid(qtbot):
    """The axis' rect is kept while nothing it depends on changes (Qt asks for it about four times per repaint):
    a resized plot, longer ticks or a grid must give the rect pyqtgraph works out (plus the axis line's room)."""
    plot, _ = _image_plot(qtbot)
    axis = plot.getPlotItem().getAxis("left")
    room = axis_mod._STROKE_ROOM

    def worked_out():
        return pg.AxisItem.boundingRect(axis).adjusted(-room, -room, room, room)

    assert axis.boundingRect() == worked_out()
    g = axis.geometry()
    axis.setGeometry(g.adjusted(0, 0, 0, 40))  # (no repaint between: it would work the rect out anew anyway)
    assert axis.boundingRect() == worked_out() and axis.boundingRect().height() > g.height() + 40
    plot.resize(500, 420)
    QApplication.processEvents()
    qtbot.wait(50)
    assert axis.boundingRect() == worked_out() and axis.boundingRect().height() > 300
    axis.setStyle(tickLength=-25)
    assert axis.boundingRect() == worked_out()
    axis.setGrid(128)  # reaches over its view: the view's rect too
    assert axis.boundingRect() == worked_out()
    assert axis.boundingRect().width() > 300
