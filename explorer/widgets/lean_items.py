"""Curves and scatters that cost less per repaint than pyqtgraph's own, for the items a drag changes every frame.

* :class:`LeanCurve` draws its segments in device pixels where it can: a ``PlotCurveItem`` drawn as segments
  hands Qt the segments in data coordinates with the view's transform on the painter, and software raster strokes
  a wide line under a scaling transform about three to four times slower than the same segments already mapped to
  pixels (the Waves lanes in the drag look: 1.3–1.4 ms a repaint for four lanes, 0.8 mapped; see
  docs/performance.md).  Only where the result is the same picture: segments of an opaque, solid, cosmetic pen
  (whose width is in pixels either way), without antialiasing (a drag step's look), painted for a view (the app's
  own pictures of a plot included) by the raster engine under a transform that only scales and moves.
  Antialiased curves, pyqtgraph's exporters (export mode), SVG and other engines, fills, shadows, steps and
  composition modes are pyqtgraph's own paint.  The two ways round a segment's end to a pixel differently at a
  curve's edges (0.4–1.1 % of its pixels for 1.5–3 px pens): a drag step's look, drawn again antialiased when the
  slider is let go.
* Both work out how long a pixel is in their data units once per change of their view, not at every
  ``boundingRect`` call: pyqtgraph's items map the view's transform again each time (its curve at every change of
  data, its scatter at every call, several in each turn that draws and repaints it).  What may change the pixel's
  length without a change of view — the item's own transform, its parent or its scene — forgets it too; a scaled
  item between the view box and these is not supported (the app has none).
"""

from __future__ import annotations

import logging

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.PlotCurveItem import arrayToLineSegments
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPaintEngine, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsItem

_log = logging.getLogger(__name__)

#: Transforms under which a line mapped to pixels is the same line: none, a move, a scale (no rotation or shear).
_SCALES = (QTransform.TransformationType.TxNone, QTransform.TransformationType.TxTranslate,
           QTransform.TransformationType.TxScale)
#: Item changes after which a pixel's length in the item's units must be worked out again.
_MOVED = (QGraphicsItem.GraphicsItemChange.ItemTransformHasChanged,
          QGraphicsItem.GraphicsItemChange.ItemParentHasChanged,
          QGraphicsItem.GraphicsItemChange.ItemSceneHasChanged)


def _device_pen(pen) -> bool:
    """Whether segments of ``pen`` look the same drawn in device pixels: cosmetic (its width is in pixels), solid
    and opaque (the segments' overlaps at their joins do not show)."""
    return (pen is not None and pen.isCosmetic() and pen.style() == Qt.PenStyle.SolidLine and pen.isSolid()
            and pen.color().alphaF() == 1.0)


def _segmented(mode: str, pen) -> bool:
    """Whether pyqtgraph draws a curve of ``pen`` (opaque, solid, not antialiased) as separate segments."""
    return mode == "on" or (mode == "auto" and pen.widthF() > 1.0)


def _length(vector) -> float:
    if vector is None:
        return 0.0
    try:
        return float(vector.length())
    except OverflowError:
        return 0.0


class _KeepsPixel:
    """A pixel's length along x and y in the item's units, kept until its view (or its place in it) changes."""

    _pixel: tuple[float, float] | None = None
    #: How often the pixel's length was worked out (a test reads it).
    pixel_lookups = 0

    def viewTransformChanged(self):  # noqa: N802 - pyqtgraph's API
        self._pixel = None
        super().viewTransformChanged()  # type: ignore[misc]

    def itemChange(self, change, value):  # noqa: N802 - Qt's API
        if change in _MOVED:
            self._pixel = None
        return super().itemChange(change, value)  # type: ignore[misc]

    def _pixel_lengths(self) -> tuple[float, float]:
        if self._pixel is None:
            self.pixel_lookups += 1
            px, py = self.pixelVectors()  # type: ignore[attr-defined]
            self._pixel = (_length(px), _length(py))
        return self._pixel

    def _padded(self, xmn: float, xmx: float, ymn: float, ymx: float) -> QRectF:
        """The data's rect grown by the item's padding in pixels, as pyqtgraph's ``boundingRect`` does."""
        px = py = 0.0
        pad = self.pixelPadding()  # type: ignore[attr-defined]
        if pad > 0:
            px, py = self._pixel_lengths()
            px, py = px * pad, py * pad
        return QRectF(xmn - px, ymn - py, 2 * px + xmx - xmn, 2 * py + ymx - ymn)


class LeanCurve(_KeepsPixel, pg.PlotCurveItem):
    """A ``PlotCurveItem`` that draws its segments already mapped to pixels where that paints the same picture
    (see the module); everywhere else pyqtgraph's paint."""

    _exporting = False
    _device_segments = None  # the segments in pixels, reused between paints (pyqtgraph's array type)
    _told = False  # a failed paint in pixels was logged (once a process)
    #: Paints done in device pixels (a test reads it).
    device_paints = 0

    def setExportMode(self, export, opts=None):  # noqa: N802 - pyqtgraph's API
        self._exporting = bool(export)
        return super().setExportMode(export, opts)

    def boundingRect(self):  # noqa: N802 - Qt's API
        # pyqtgraph's PlotCurveItem.boundingRect (its data bounds are kept until the data change), the pixel kept.
        xmn, xmx = self.dataBounds(ax=0)
        ymn, ymx = self.dataBounds(ax=1)
        if xmn is None or xmx is None or ymn is None or ymx is None:
            return QRectF()
        return self._padded(xmn, xmx, ymn, ymx)

    def _in_pixels(self, p: QPainter, widget) -> QTransform | None:
        """The painter's transform if this paint may draw in device pixels, else None."""
        o = self.opts
        x, _ = self.getData()
        if (widget is None or self._exporting or o["antialias"] or x is None or len(x) < 2
                or o["fillLevel"] is not None or o["shadowPen"] is not None or o["stepMode"]
                or o["compositionMode"] is not None or not isinstance(o["connect"], str)
                or o["connect"] not in ("all", "pairs", "finite") or not _device_pen(o["pen"])
                or not _segmented(o["segmentedLineMode"], o["pen"])
                or p.paintEngine().type() != QPaintEngine.Type.Raster):
            return None
        t = p.transform()
        return t if t.type() in _SCALES else None

    def paint(self, p, opt, widget=None):
        # (An exception out of this paint took the process down here: pyqtgraph wraps its own paint for that.)
        try:
            t = self._in_pixels(p, widget)
            if t is not None:
                self._paint_in_pixels(p, t)
                return
        except Exception:  # noqa: BLE001 - drawn the usual way instead, and said once
            if not LeanCurve._told:
                LeanCurve._told = True
                _log.warning("a curve could not be drawn in pixels; drawing curves the usual way", exc_info=True)
        super().paint(p, opt, widget)

    def _paint_in_pixels(self, p: QPainter, t: QTransform) -> None:
        x, y = self.getData()
        self._device_segments = arrayToLineSegments(
            np.asarray(x, dtype=np.float64) * t.m11() + t.dx(), np.asarray(y, dtype=np.float64) * t.m22() + t.dy(),
            connect=self.opts["connect"],
            finiteCheck=not self.opts["skipFiniteCheck"], out=self._device_segments)
        p.save()
        try:
            p.setTransform(QTransform())
            p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            p.setPen(self.opts["pen"])
            p.drawLines(*self._device_segments.drawargs())
        finally:
            p.restore()
        self.device_paints += 1


class LeanScatter(_KeepsPixel, pg.ScatterPlotItem):
    """A ``ScatterPlotItem`` whose bounding rect maps its view's transform once per change of it (see the module)."""

    def boundingRect(self):  # noqa: N802 - Qt's API
        # pyqtgraph's ScatterPlotItem.boundingRect, the pixel kept.
        xmn, xmx = self.dataBounds(ax=0)
        ymn, ymx = self.dataBounds(ax=1)
        if xmn is None or xmx is None:
            xmn = xmx = 0
        if ymn is None or ymx is None:
            ymn = ymx = 0
        return self._padded(xmn, xmx, ymn, ymx)
