"""The plots' image item draws the pixels pyqtgraph's does, from a picture the raster engine draws directly."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter, QTransform

from explorer.widgets.image import DIRECT, ImageItem


def _painted(item: pg.ImageItem, size=(257, 131)) -> bytes:
    """``item`` painted, scaled up and not evenly, into a white premultiplied ARGB32 picture: its bytes."""
    out = QImage(*size, QImage.Format.Format_ARGB32_Premultiplied)
    out.fill(0xFFFFFFFF)
    p = QPainter(out)
    h, w = item.image.shape[:2]
    p.setTransform(QTransform.fromScale(size[0] / w, size[1] / h))
    item.paint(p)
    p.end()
    return bytes(out.constBits())


def _cases():
    rng = np.random.default_rng(3)
    grey = rng.normal(size=(23, 37))
    with_nan = grey.copy()
    with_nan[3, 5] = with_nan[10, 0] = np.nan
    rgba = rng.integers(0, 256, size=(19, 29, 4), dtype=np.uint8)
    rgb = rng.integers(0, 256, size=(19, 29, 3), dtype=np.uint8)
    lut = pg.colormap.get("viridis").getLookupTable(nPts=256, alpha=False)
    return {
        "colour-mapped": (grey, {"levels": (-2.0, 2.0), "lut": lut}),
        "colour-mapped with NaN": (with_nan, {"levels": (-2.0, 2.0), "lut": lut}),
        "RGBA": (rgba, {"levels": None}),
        "RGB": (rgb, {"levels": None}),
    }


@pytest.mark.parametrize("name", list(_cases()))
def test_the_same_pixels_from_a_picture_drawn_directly(qapp, name):
    data, opts = _cases()[name]
    ours, theirs = ImageItem(axisOrder="row-major"), pg.ImageItem(axisOrder="row-major")
    for item in (ours, theirs):
        item.setImage(data, autoLevels=False, **opts)
        item.render()
    assert theirs.qimage.format() not in DIRECT, "pyqtgraph now renders this case directly: the item is not needed"
    assert ours.qimage.format() in DIRECT
    assert _painted(ours) == _painted(theirs)


def test_a_new_image_is_converted_again(qapp):
    item = ImageItem(axisOrder="row-major")
    lut = pg.colormap.get("viridis").getLookupTable(nPts=256, alpha=False)
    item.setImage(np.zeros((4, 4)), levels=(-1.0, 1.0), lut=lut)
    item.render()
    first = item.qimage.pixel(0, 0)
    item.setImage(np.ones((4, 4)), levels=(-1.0, 1.0))
    item.render()
    assert item.qimage.format() in DIRECT
    assert item.qimage.pixel(0, 0) != first


def _mapped_cases():
    """Colour-mapped images the item maps itself: values inside, outside and on the levels, in float32 and float64,
    tables of 256, 17 and 2 colours, with an opaque alpha column or none, levels reversed or equal."""
    rng = np.random.default_rng(11)
    viridis = pg.colormap.get("viridis")
    lut256 = viridis.getLookupTable(nPts=256, alpha=False)
    lut17 = viridis.getLookupTable(nPts=17, alpha=True)  # four columns, every alpha 255
    edges = np.array([[-1.0, -0.5, 0.0, 0.5, 1.0, np.nextafter(1.0, 2.0), -3.0, 3.0]])
    for k in range(2, 257):  # every step boundary of a 256-colour table over [-1, 1]
        edges = np.append(edges, -1.0 + 2.0 * k / 256)
    edges = edges.reshape(1, -1)
    edges32 = edges.astype(np.float32)
    edges32 = np.concatenate([edges32, np.nextafter(edges32, np.float32(-np.inf))])  # where float32 rounds up
    return {
        "float32, 256 colours": (rng.normal(size=(64, 64)).astype(np.float32), (-1.0, 1.0), lut256),
        "float64 on every step's edge": (edges, (-1.0, 1.0), lut256),
        "float32 on every step's edge": (edges32, (-1.0, 1.0), lut256),
        "17 colours with alpha": (rng.uniform(-2, 2, size=(9, 33)), (-1.5, 0.7), lut17),
        "2 colours": (rng.uniform(0, 1, size=(5, 7)).astype(np.float32), (0.25, 0.75), lut256[[0, -1]]),
        "levels reversed": (rng.normal(size=(12, 10)), (1.0, -1.0), lut256),
        "levels equal": (rng.normal(size=(12, 10)), (0.0, 0.0), lut256),
        "numpy levels": (rng.normal(size=(12, 10)).astype(np.float32), np.array([-0.3, 0.9]), lut256),
    }


def _argb(q: QImage) -> np.ndarray:
    q = q.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
    return np.frombuffer(bytes(q.constBits()), np.uint32).reshape(q.height(), q.bytesPerLine() // 4)[:, :q.width()]


@pytest.mark.parametrize("order", ["row-major", "col-major"])
@pytest.mark.parametrize("name", list(_mapped_cases()))
def test_a_colour_mapped_image_is_mapped_here_to_pyqtgraphs_pixels(qapp, monkeypatch, name, order):
    data, levels, lut = _mapped_cases()[name]
    ours, theirs = ImageItem(axisOrder=order), pg.ImageItem(axisOrder=order)
    for item in (theirs, ours):
        item.setImage(data, levels=levels, lut=lut, autoLevels=False)
    theirs.render()
    rendered = []
    monkeypatch.setattr(pg.ImageItem, "render", lambda self: rendered.append(self))
    ours.render()
    assert rendered == [], "pyqtgraph rendered a case the item maps itself"
    assert ours.qimage.format() == QImage.Format.Format_ARGB32_Premultiplied
    assert np.array_equal(_argb(ours.qimage), _argb(theirs.qimage))
    monkeypatch.undo()
    # Painted as the item painted pyqtgraph's picture before: converted (the raster engine scales an Indexed8
    # picture a little differently in places, see the first test).
    theirs.qimage = theirs.qimage.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
    assert _painted(ours) == _painted(theirs)


def _translucent_lut():
    lut = pg.colormap.get("viridis").getLookupTable(nPts=64, alpha=True)
    lut[::3, 3] = 100
    return lut


@pytest.mark.parametrize("name, data, opts", [
    ("NaN", np.array([[0.1, np.nan], [0.3, -0.2]]), {}),
    ("integers", np.arange(12).reshape(3, 4), {"levels": (0, 11)}),
    ("translucent colours", np.linspace(-1, 1, 12).reshape(3, 4), {"lut": _translucent_lut()}),
    ("a table of 300 colours", np.linspace(-1, 1, 12).reshape(3, 4),
     {"lut": pg.colormap.get("viridis").getLookupTable(nPts=300, alpha=False)}),
])
def test_what_the_item_does_not_map_goes_to_pyqtgraph(qapp, monkeypatch, name, data, opts):
    options = {"levels": (-1.0, 1.0), "lut": pg.colormap.get("viridis").getLookupTable(nPts=256, alpha=False)}
    options.update(opts)
    ours, theirs = ImageItem(axisOrder="row-major"), pg.ImageItem(axisOrder="row-major")
    for item in (theirs, ours):
        item.setImage(data, autoLevels=False, **options)
    theirs.render()
    calls = []
    real = pg.ImageItem.render
    monkeypatch.setattr(pg.ImageItem, "render", lambda self: (calls.append(self), real(self)))
    ours.render()
    assert calls == [ours]
    assert ours.qimage.format() in DIRECT
    assert _painted(ours) == _painted(theirs)


def test_a_new_colour_map_or_a_table_changed_in_place_is_used(qapp):
    item = ImageItem(axisOrder="row-major")
    lut = pg.colormap.get("viridis").getLookupTable(nPts=256, alpha=False)
    item.setImage(np.full((2, 2), -1.0), levels=(-1.0, 1.0), lut=lut)
    item.render()
    assert item.qimage.pixel(0, 0) == pg.mkColor(*lut[0]).rgb()
    item.setColorMap(pg.colormap.get("CET-D1"))
    item.render()
    first = pg.colormap.get("CET-D1").getLookupTable(nPts=256)[0]
    assert item.qimage.pixel(0, 0) == pg.mkColor(*first[:3]).rgb()
    item.lut[0] = (1, 2, 3)  # the same array, changed
    item.setImage(np.full((2, 2), -1.0))
    item.render()
    assert item.qimage.pixel(0, 0) == pg.mkColor(1, 2, 3).rgb()


@pytest.mark.parametrize("cells, pyqtgraphs", [(16, False), (600, True)])
def test_a_downsampled_image_goes_to_pyqtgraph(qtbot, monkeypatch, cells, pyqtgraphs):
    """In a 200-pixel view a 16 × 16 image's cells are 12 pixels wide: mapped here; a 600 × 600 one's are a third of
    a pixel, and pyqtgraph downsamples it."""
    view = pg.PlotWidget()
    qtbot.addWidget(view)
    view.resize(200, 200)
    item = ImageItem(axisOrder="row-major")
    item.setAutoDownsample(True)
    view.addItem(item)
    view.getPlotItem().hideAxis("left")
    view.getPlotItem().hideAxis("bottom")
    view.show()
    qtbot.waitExposed(view)
    lut = pg.colormap.get("viridis").getLookupTable(nPts=256, alpha=False)
    item.setImage(np.linspace(-1, 1, cells * cells).reshape(cells, cells), levels=(-1.0, 1.0), lut=lut)
    vb = view.getPlotItem().getViewBox()
    vb.autoRange(padding=0)
    qtbot.wait(20)
    vb.updateMatrix()  # the view's new range in the item's transform now, not at the next paint
    calls = []
    real = pg.ImageItem.render
    monkeypatch.setattr(pg.ImageItem, "render", lambda self: (calls.append(self), real(self)))
    item.render()
    assert (calls == [item]) is pyqtgraphs
    assert item.qimage.width() == (cells if not pyqtgraphs else cells // 3)
