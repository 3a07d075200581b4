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
