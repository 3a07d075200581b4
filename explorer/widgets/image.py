"""The plots' image item: pyqtgraph's, its picture made in the format the raster engine draws directly."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QImage

#: The formats QPainter's raster engine scales and draws without converting each pixel first.
DIRECT = (QImage.Format.Format_ARGB32_Premultiplied, QImage.Format.Format_RGB32)

_OPAQUE = np.uint32(0xFF000000)


class ImageItem(pg.ImageItem):
    """A ``pg.ImageItem`` whose rendered picture is premultiplied ARGB32.

    pyqtgraph renders a colour-mapped image as ``Indexed8`` (its colour table) and an RGBA one as ``RGBA8888``;
    the raster engine converts either, pixel by pixel, at *every* paint before scaling it: a 64 × 64 map drawn
    into 300 × 250 pixels is 0.2 ms as ``Indexed8`` and 0.03 as premultiplied ARGB32, and the conversion, once
    per new image, 0.004 ms.

    A colour-mapped image (one channel of floats, no NaN, levels and an opaque table of at most 256 colours) is
    made here at once: pyqtgraph's levels to the table's indices, then each index to its colour from a table of
    32-bit colours kept while the table is the same.  pyqtgraph makes the ``Indexed8`` picture's colour table again
    at every render, 256 ``qRgb`` calls (0.1 ms; Token swap renders seven images a drag step); this is 0.01 ms.
    Anything else goes through pyqtgraph and is converted.  The pixels are the same either way
    (``tests/test_image_item.py``)."""

    _colours: tuple[tuple, np.ndarray] | None = None

    def render(self) -> None:
        picture = self._mapped_picture()
        if picture is not None:
            self.qimage = picture
            # What pyqtgraph's own render leaves once it has made the picture (its paint renders while the first two
            # say so; a change of view renders again when its downsampling differs from the last).
            self._renderRequired = False
            self._unrenderable = False
            if self.autoDownsample:
                self._lastDownsample = (1, 1)
            return
        super().render()
        q: QImage | None = self.qimage
        if q is not None and q.format() not in DIRECT:
            self.qimage = q.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)

    def _mapped_picture(self) -> QImage | None:
        """The colour-mapped picture, made as pyqtgraph maps levels to its table's indices; None where this is not
        a case it handles (pyqtgraph renders it)."""
        image, levels, table = self.image, self.levels, self._colour_table()
        if (table is None or image is None or image.ndim != 2 or image.dtype.kind != "f" or image.size == 0
                or levels is None or np.ndim(levels) != 1 or len(levels) != 2 or not self._drawn_whole()):
            return None
        if np.isnan(image.min()):  # pyqtgraph makes NaN cells transparent
            return None
        if self.axisOrder == "col-major":
            image = image.T
        # pyqtgraph's rescale (functions.rescaleData): (x − low) · n / (high − low) in float32 where the data
        # allows, clipped to [0, n − 1] and truncated to the index.
        low, high = levels
        span = high - low
        span = 1 if span == 0 else span
        work = np.float32 if np.can_cast(image, np.float32) else np.float64
        scaled = image.astype(work)
        scaled -= float(low)
        scaled *= float(len(table) / span)
        np.clip(scaled, 0, len(table) - 1, out=scaled)
        argb = np.ascontiguousarray(table[scaled.astype(np.uint8)])
        return pg.functions.ndarray_to_qimage(argb, QImage.Format.Format_ARGB32_Premultiplied)

    def _drawn_whole(self) -> bool:
        """Whether pyqtgraph would draw every cell (no downsampling): its downsample factors, reckoned as it does,
        are 1 where a cell is more than half a device pixel wide and high."""
        if not self.autoDownsample:
            return True
        t = self.deviceTransform_()  # pyqtgraph's: None where the item is in no shown view yet
        if t is None:
            return True  # not in a view yet: pyqtgraph does not downsample either
        w, h = math.hypot(t.m11(), t.m12()), math.hypot(t.m21(), t.m22())  # a cell's sides in device pixels
        return w == 0 or h == 0 or (w > 0.5 and h > 0.5)

    def _colour_table(self) -> np.ndarray | None:
        """The lookup table as 32-bit opaque colours (``0xAARRGGBB``), kept while it is the same; None where the
        table is not one pyqtgraph draws as an opaque colour table of at most 256 entries."""
        lut = self.lut
        if (not isinstance(lut, np.ndarray) or lut.dtype != np.uint8 or lut.ndim != 2 or lut.shape[1] not in (3, 4)
                or not 0 < lut.shape[0] <= 256):
            return None
        key = (lut.shape, lut.tobytes())
        if self._colours is None or self._colours[0] != key:
            if lut.shape[1] == 4 and (lut[:, 3] != 255).any():
                return None  # premultiplied translucent colours: pyqtgraph and Qt's conversion make them
            rgb = lut[:, :3].astype(np.uint32)
            self._colours = key, _OPAQUE | (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
        return self._colours[1]
