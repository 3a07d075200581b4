"""An in-plot audit (not a test module): inside one plot, is every title whole, every legend off the data, every
line label inside its view and apart from the others?  Measured from the items' scene geometry."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from explorer.widgets.titles import full_title


def _visible(item) -> bool:
    return item is not None and item.isVisible() and item.scene() is not None


def _data_points(pi) -> list:
    """Scene positions of the finite points of the plot's visible curves and scatters."""
    vb = pi.getViewBox()
    out = []
    for item in pi.listDataItems():
        if not _visible(item):
            continue
        x, y = item.getData()
        if x is None or y is None or len(x) == 0:
            continue
        x, y = np.asarray(x, float), np.asarray(y, float)
        ok = np.isfinite(x) & np.isfinite(y)
        for a, b in zip(x[ok][:: max(1, ok.sum() // 400)], y[ok][:: max(1, ok.sum() // 400)], strict=False):
            out.append(vb.mapViewToScene(pg.Point(float(a), float(b))))
    return out


def audit(plot: pg.PlotWidget, name: str = "") -> list[str]:
    """The problems inside ``plot`` (empty when there are none)."""
    pi = plot.getPlotItem()
    where = name or full_title(pi) or plot.objectName()
    problems = []
    shown, full = pi.titleLabel.text or "", full_title(pi)
    if full and shown != full:
        problems.append(f"{where}: title elided to {shown!r}")
    legend = pi.legend
    if _visible(legend) and legend.items:
        box = legend.sceneBoundingRect()
        inside = [p for p in _data_points(pi) if box.contains(p)]
        if inside:
            problems.append(f"{where}: the legend covers {len(inside)} data points")
    vb = pi.getViewBox()
    view = vb.sceneBoundingRect().adjusted(-2, -2, 2, 2)
    labels = []
    for item in vb.childGroup.childItems():  # every item of the view (addedItems leaves out ignoreBounds ones)
        if isinstance(item, pg.InfiniteLine) and _visible(item) and _visible(getattr(item, "label", None)):
            rect = item.label.sceneBoundingRect()
            text = item.label.toPlainText()
            if text and not view.contains(rect):
                problems.append(f"{where}: line label {text!r} runs outside the plot")
            labels.append((text, rect))
        elif isinstance(item, pg.TextItem) and _visible(item) and item.toPlainText():
            labels.append((item.toPlainText(), item.sceneBoundingRect()))
    for i, (a, ra) in enumerate(labels):
        for b, rb in labels[i + 1:]:
            if ra.intersects(rb):
                problems.append(f"{where}: labels {a!r} and {b!r} overlap")
    return problems
