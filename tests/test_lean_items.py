"""The lean curve draws a drag step's segments in pixels and the picture pyqtgraph draws; the lean scatter works out
its pixel once per view.  Counts and pictures, never times (docs/performance.md has the times)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPainter, QTransform
from PySide6.QtWidgets import QWidget

from explorer.widgets.lean_items import LeanCurve, LeanScatter

SIZE = (404, 211)


def _curve(cls, *, width=3.0, antialias=False, connect="all", binned=False, gaps=False):
    x = np.arange(256.0)
    y = np.sin(x).astype(np.float32)  # a Waves lane: pair 0, a period of 2π positions
    if binned:  # min/max strokes, as a held drag draws a binned lane
        y = np.repeat(np.array([-0.9, 0.8], np.float32)[None, :], 128, axis=0).ravel()
    if gaps:  # points that are not numbers break the line
        y[[10, 11, 100]] = np.nan
    pen = pg.mkPen((200, 60, 40), width=width)
    pen.setCapStyle(Qt.PenCapStyle.SquareCap)
    item = cls()
    item.setSegmentedLineMode("on")
    item.setPen(pen)
    item.setData(x, y, antialias=antialias, connect=connect)
    return item


def _painted(item, paint, widget, *, turn: float = 0.0) -> np.ndarray:
    """``paint(item, painter, widget)`` into a white picture under a view's transform (data → pixels, y down),
    turned by ``turn`` degrees."""
    out = QImage(*SIZE, QImage.Format.Format_ARGB32_Premultiplied)
    out.fill(0xFFFFFFFF)
    p = QPainter(out)
    t = QTransform()
    t.translate(3.5, SIZE[1] / 2)
    t.rotate(turn)
    t.scale(SIZE[0] / 257, -SIZE[1] / 2.6)
    p.setTransform(t)
    paint(item, p, widget)
    p.end()
    return np.frombuffer(bytes(out.constBits()), np.uint8).reshape(SIZE[1], -1)[:, :SIZE[0] * 4].reshape(
        SIZE[1], SIZE[0], 4)


def _lean(item, p, widget):
    item.paint(p, None, widget)


def _pyqtgraphs(item, p, widget):
    pg.PlotCurveItem.paint(item, p, None, widget)


def _shown_plot(qtbot) -> pg.PlotWidget:
    """A plot on screen, 400 × 300 px."""
    pw = pg.PlotWidget()
    qtbot.addWidget(pw)
    pw.resize(400, 300)
    pw.show()
    qtbot.waitExposed(pw)
    return pw


@pytest.mark.parametrize("connect,binned,gaps", [("all", False, False), ("pairs", True, False),
                                                 ("finite", False, True), ("all", False, True)])
def test_a_drag_steps_lane_is_drawn_in_pixels_and_paints_pyqtgraphs_picture(qtbot, connect, binned, gaps):
    view = QWidget()
    qtbot.addWidget(view)
    item = _curve(LeanCurve, connect=connect, binned=binned, gaps=gaps)
    ours = _painted(item, _lean, view)
    assert item.device_paints == 1
    theirs = _painted(item, _pyqtgraphs, view)
    inked = (theirs != 255).any(axis=2)
    assert inked.sum() > 2000  # a lane drawn at all
    differ = (ours != theirs).any(axis=2)
    # Rounded to pixels by the two ways a few edge pixels apart; a segment mapped wrong is thousands.
    assert differ.sum() <= 0.02 * inked.sum(), (differ.sum(), inked.sum())


@pytest.mark.parametrize("case", ["antialiased", "thin pen", "dashed", "no view (an export)", "fill", "turned",
                                  "steps", "shadow", "composition"])
def test_what_pixels_would_change_is_pyqtgraphs_own_paint(qtbot, case):
    view = QWidget()
    qtbot.addWidget(view)
    item = _curve(LeanCurve, antialias=case == "antialiased", width=1.0 if case == "thin pen" else 3.0)
    item.setSegmentedLineMode("auto")
    if case == "dashed":
        item.setPen(pg.mkPen((200, 60, 40), width=3, style=Qt.PenStyle.DashLine))
    if case == "fill":
        item.setFillLevel(0.0)
        item.setBrush((0, 0, 200, 80))
    if case == "steps":
        x, y = item.getData()
        item.setData(np.append(x, 256.0), y, stepMode="center")
    if case == "shadow":
        item.setShadowPen(pg.mkPen((0, 0, 0), width=5))
    if case == "composition":
        item.setCompositionMode(QPainter.CompositionMode.CompositionMode_Multiply)
    widget = None if case == "no view (an export)" else view
    turn = 30.0 if case == "turned" else 0.0
    ours = _painted(item, _lean, widget, turn=turn)
    assert item.device_paints == 0
    assert np.array_equal(ours, _painted(item, _pyqtgraphs, widget, turn=turn))


def test_an_exported_lean_curve_is_pyqtgraphs_paint(qtbot):
    view = QWidget()
    qtbot.addWidget(view)
    item = _curve(LeanCurve)
    item.setExportMode(True, {"antialias": False})
    _painted(item, _lean, view)
    item.setExportMode(False)
    _painted(item, _lean, view)
    assert item.device_paints == 1


def test_a_lean_scatter_works_out_its_pixel_once_per_view_and_again_when_the_view_changes(qtbot):
    pw = _shown_plot(qtbot)
    dots = LeanScatter(size=11, pen=pg.mkPen("k", width=1))
    dots.setData([1.0, 4.0, 7.0], [0.2, 0.9, -0.4])
    pw.addItem(dots)
    pw.setRange(xRange=(0, 10), yRange=(-1, 1), padding=0)
    qtbot.wait(20)

    def pyqtgraphs() -> tuple:
        return pg.ScatterPlotItem.boundingRect(dots).getRect()

    lookups = _count_lookups(dots)
    rects = {dots.boundingRect().getRect() for _ in range(10)}
    assert len(lookups) <= 1
    assert rects == {pyqtgraphs()}
    pw.setRange(xRange=(0, 40), yRange=(-3, 3), padding=0)  # a pixel is four times longer in data units
    qtbot.wait(20)
    assert dots.boundingRect().getRect() == pyqtgraphs()
    pw.resize(200, 300)
    qtbot.wait(50)
    assert dots.boundingRect().getRect() == pyqtgraphs()
    dots.setSize(30)  # a larger symbol: a wider margin around the same points
    assert dots.boundingRect().getRect() == pyqtgraphs()


def _count_lookups(item) -> list:
    """Count the item's own look-ups of its pixel (pyqtgraph's ``pixelVectors``) from now on."""
    calls: list = []
    own = item.pixelVectors

    def counted(*args, **kwargs):
        calls.append(args)
        return own(*args, **kwargs)

    item.pixelVectors = counted
    return calls


def test_a_lean_curve_keeps_its_pixel_and_its_rect_is_pyqtgraphs(qtbot):
    pw = _shown_plot(qtbot)
    curve = _curve(LeanCurve)
    pw.addItem(curve)
    pw.setRange(xRange=(0, 255), yRange=(-1.3, 1.3), padding=0)
    qtbot.wait(20)

    def pyqtgraphs() -> tuple:
        curve.invalidateBounds()  # (pyqtgraph keeps its own rect until then)
        return pg.PlotCurveItem.boundingRect(curve).getRect()

    lookups = _count_lookups(curve)
    x, _ = curve.getData()
    for k in range(8):  # a drag's steps: new data every time, the same view
        curve.setData(x, np.sin(x / (1 + k)), antialias=False)
        curve.boundingRect()
    assert len(lookups) <= 1
    assert curve.boundingRect().getRect() == pyqtgraphs()
    pw.setRange(xRange=(0, 64), yRange=(-3, 3), padding=0)
    qtbot.wait(20)
    assert curve.boundingRect().getRect() == pyqtgraphs()


@pytest.mark.parametrize("cls", [LeanCurve, LeanScatter])
def test_an_item_moved_or_scaled_in_its_view_works_its_pixel_out_again(qtbot, cls):
    pw = _shown_plot(qtbot)
    item = _curve(LeanCurve) if cls is LeanCurve else LeanScatter(size=11, pen=pg.mkPen("k", width=1))
    if cls is LeanScatter:
        item.setData([1.0, 4.0, 7.0], [0.2, 0.9, -0.4])
    pw.addItem(item)
    pw.setRange(xRange=(0, 10), yRange=(-1, 1), padding=0)
    qtbot.wait(20)
    item.boundingRect()
    item.setTransform(QTransform.fromScale(2, 2))  # one pixel is half as many of the item's own units
    if cls is LeanCurve:
        item.invalidateBounds()
    truth = cls.__mro__[2].boundingRect(item).getRect()  # pyqtgraph's own, worked out afresh
    assert item.boundingRect().getRect() == truth
