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


def _curve(cls, *, width=3.0, antialias=False, connect="all", binned=False):
    x = np.arange(256.0)
    y = np.sin(x).astype(np.float32)  # a Waves lane: pair 0, a period of 2π positions
    if binned:  # min/max strokes, as a held drag draws a binned lane
        y = np.repeat(np.array([-0.9, 0.8], np.float32)[None, :], 128, axis=0).ravel()
    pen = pg.mkPen((200, 60, 40), width=width)
    pen.setCapStyle(Qt.PenCapStyle.SquareCap)
    item = cls()
    item.setSegmentedLineMode("on")
    item.setPen(pen)
    item.setData(x, y, antialias=antialias, connect=connect)
    return item


def _painted(item, paint, widget) -> np.ndarray:
    """``paint(item, painter, widget)`` into a white picture under a view's transform (data → pixels, y down)."""
    out = QImage(*SIZE, QImage.Format.Format_ARGB32_Premultiplied)
    out.fill(0xFFFFFFFF)
    p = QPainter(out)
    t = QTransform()
    t.translate(3.5, SIZE[1] / 2)
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


@pytest.mark.parametrize("connect,binned", [("all", False), ("pairs", True)])
def test_a_drag_steps_lane_is_drawn_in_pixels_and_paints_pyqtgraphs_picture(qtbot, connect, binned):
    view = QWidget()
    qtbot.addWidget(view)
    item = _curve(LeanCurve, connect=connect, binned=binned)
    ours = _painted(item, _lean, view)
    assert item.device_paints == 1
    theirs = _painted(item, _pyqtgraphs, view)
    inked = (theirs != 255).any(axis=2)
    assert inked.sum() > 2000  # a lane drawn at all
    differ = (ours != theirs).any(axis=2)
    # Rounded to pixels by the two ways a few edge pixels apart; a segment mapped wrong is thousands.
    assert differ.sum() <= 0.02 * inked.sum(), (differ.sum(), inked.sum())


@pytest.mark.parametrize("case", ["antialiased", "thin pen", "dashed", "no view (an export)", "fill"])
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
    widget = None if case == "no view (an export)" else view
    ours = _painted(item, _lean, widget)
    assert item.device_paints == 0
    assert np.array_equal(ours, _painted(item, _pyqtgraphs, widget))


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
    pw = pg.PlotWidget()
    qtbot.addWidget(pw)
    pw.resize(400, 300)
    pw.show()
    qtbot.waitExposed(pw)
    dots = LeanScatter(size=11, pen=pg.mkPen("k", width=1))
    dots.setData([1.0, 4.0, 7.0], [0.2, 0.9, -0.4])
    pw.addItem(dots)
    pw.setRange(xRange=(0, 10), yRange=(-1, 1), padding=0)
    qtbot.wait(20)

    def pyqtgraphs() -> tuple:
        return pg.ScatterPlotItem.boundingRect(dots).getRect()

    before = dots.pixel_lookups
    rects = {dots.boundingRect().getRect() for _ in range(10)}
    assert dots.pixel_lookups - before <= 1
    assert rects == {pyqtgraphs()}
    pw.setRange(xRange=(0, 40), yRange=(-3, 3), padding=0)  # a pixel is four times longer in data units
    qtbot.wait(20)
    assert dots.boundingRect().getRect() == pyqtgraphs()
    pw.resize(200, 300)
    qtbot.wait(50)
    assert dots.boundingRect().getRect() == pyqtgraphs()
    dots.setSize(30)  # a larger symbol: a wider margin around the same points
    assert dots.boundingRect().getRect() == pyqtgraphs()
