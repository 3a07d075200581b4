"""The plots' image item: pyqtgraph's, its picture kept in the format the raster engine draws directly."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QImage

#: The formats QPainter's raster engine scales and draws without converting each pixel first.
DIRECT = (QImage.Format.Format_ARGB32_Premultiplied, QImage.Format.Format_RGB32)


class ImageItem(pg.ImageItem):
    """A ``pg.ImageItem`` whose rendered picture is converted once to premultiplied ARGB32.

    pyqtgraph renders a colour-mapped image as ``Indexed8`` (its colour table) and an RGBA one as ``RGBA8888``;
    the raster engine converts either, pixel by pixel, at *every* paint before scaling it: a 64 × 64 map drawn
    into 300 × 250 pixels is 0.2 ms as ``Indexed8`` and 0.03 as premultiplied ARGB32, and the conversion, once
    per new image, 0.004 ms.  The pixels drawn are the same (``tests/test_image_item.py``)."""

    def render(self) -> None:
        super().render()
        q: QImage | None = self.qimage  # type: ignore[has-type]  # pyqtgraph leaves it untyped
        if q is not None and q.format() not in DIRECT:
            self.qimage = q.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
