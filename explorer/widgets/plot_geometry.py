"""A plot's data as scene geometry — curve segments, scatter points, bars and images — and whether a rectangle
covers any of it.  The legend placer (:mod:`explorer.widgets.legend_place`) puts legends where this finds no
data; the in-plot audit of the tests measures with it."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF


def visible(item) -> bool:
    return item is not None and item.isVisible() and item.scene() is not None


def _map(item, x, y):
    t = item.sceneTransform()
    return t.m11() * x + t.m21() * y + t.dx(), t.m12() * x + t.m22() * y + t.dy()


class PlotData:
    """The plot's data as scene geometry: curve segments, scatter points (with their radius), bar shapes and
    image rectangles."""

    def __init__(self, pi) -> None:
        self.segments: list[np.ndarray] = []  # (n, 4): x0, y0, x1, y1
        self.points: list[tuple[np.ndarray, np.ndarray, float]] = []
        self.bars: list = []
        self.images: list[QRectF] = []
        vb = pi.getViewBox()
        # The data's transform as the next paint draws it: a resize or a new range defers it to the paint, and a
        # place chosen on the old one (a label "inside" a view that has since shrunk) stayed where it no longer fit.
        vb.updateMatrix()
        view = vb.sceneBoundingRect()
        stack = list(vb.childGroup.childItems())
        while stack:
            item = stack.pop()
            if not visible(item):
                continue
            if isinstance(item, pg.PlotDataItem):
                stack += [item.curve, item.scatter]
            elif isinstance(item, pg.PlotCurveItem):
                self._curve(item)
            elif isinstance(item, pg.ScatterPlotItem):
                self._scatter(item)
            elif isinstance(item, pg.BarGraphItem):
                self.bars.append(item)
            elif isinstance(item, pg.ImageItem) and item.image is not None:
                r = item.sceneBoundingRect().intersected(view)
                if r.width() > 0 and r.height() > 0:
                    self.images.append(r)
            elif not isinstance(item, (pg.TextItem, pg.InfiniteLine, pg.LegendItem)):
                stack += list(item.childItems())

    def _curve(self, item) -> None:
        x, y = item.getData()
        if x is None or y is None or len(x) < 2:
            return
        x, y = np.asarray(x, float), np.asarray(y, float)
        if len(x) == len(y) + 1:  # a step curve (histogram): each value between two edges
            x, y = np.repeat(x, 2)[1:-1], np.repeat(y, 2)
        elif len(x) != len(y):
            return
        sx, sy = _map(item, x, y)
        seg = np.column_stack([sx[:-1], sy[:-1], sx[1:], sy[1:]])
        connect = item.opts.get("connect", "all")
        if isinstance(connect, str) and connect == "pairs":
            seg = seg[::2]
        elif isinstance(connect, np.ndarray) and len(connect) == len(sx):
            seg = seg[connect[:-1].astype(bool)]
        seg = seg[np.isfinite(seg).all(axis=1)]
        if len(seg):
            self.segments.append(seg)

    def _scatter(self, item) -> None:
        x, y = item.getData()
        if x is None or len(x) == 0:
            return
        sx, sy = _map(item, np.asarray(x, float), np.asarray(y, float))
        ok = np.isfinite(sx) & np.isfinite(sy)
        size = item.opts.get("size", 7)
        radius = float(np.max(size)) / 2 if np.size(size) else 3.5
        self.points.append((sx[ok], sy[ok], radius))

    def signature(self) -> tuple:
        """A cheap summary that changes when the data's geometry does."""
        seg = tuple((len(s), round(float(s.sum()), 1)) for s in self.segments)
        pts = tuple((len(x), round(float(x.sum() + y.sum()), 1)) for x, y, _r in self.points)
        bars = tuple(b.sceneBoundingRect().getRect() for b in self.bars)
        return seg, pts, bars, tuple(r.getRect() for r in self.images)

    def covered(self, rect: QRectF, *, images: bool = True) -> str:
        """What of the data ``rect`` (scene) covers: "" for nothing."""
        x0, y0, x1, y1 = rect.left(), rect.top(), rect.right(), rect.bottom()
        if x1 <= x0 or y1 <= y0:
            return ""
        n = sum(int(_segments_in(s, x0, y0, x1, y1).sum()) for s in self.segments)
        if n:
            return f"{n} curve segments"
        for sx, sy, r in self.points:
            k = int(((sx + r > x0) & (sx - r < x1) & (sy + r > y0) & (sy - r < y1)).sum())
            if k:
                return f"{k} points"
        for bar in self.bars:
            if bar.shape().intersects(bar.mapRectFromScene(rect)):
                return "bars"
        if images and any(img.intersects(rect) for img in self.images):
            return "the image"
        return ""


def _segments_in(seg: np.ndarray, x0, y0, x1, y1) -> np.ndarray:
    """Which segments meet the rectangle (Liang–Barsky, vectorised)."""
    px, py = seg[:, 0], seg[:, 1]
    dx, dy = seg[:, 2] - px, seg[:, 3] - py
    lo, hi = np.zeros(len(seg)), np.ones(len(seg))
    ok = np.ones(len(seg), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, px - x0), (dx, x1 - px), (-dy, py - y0), (dy, y1 - py)):
            par = p == 0
            ok &= ~(par & (q < 0))
            t = q / np.where(par, 1, p)
            lo = np.where(~par & (p < 0), np.maximum(lo, t), lo)
            hi = np.where(~par & (p > 0), np.minimum(hi, t), hi)
    return ok & (lo <= hi)
