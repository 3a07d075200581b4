"""Small line plots a scheme describes as data (:class:`~explorer.schemes.parts.PlotSpec`), drawn in place.

The Beyond-training view draws each scheme's ``beyond_plot`` with :class:`SpecPlot`; a tab a scheme adds without a
widget of its own (:class:`~explorer.schemes.tabs.SchemeTab` with ``widget=""``) is a grid of them
(:class:`~explorer.panels.schemes.spec_tab.SpecTabView`).  Updates go to the existing curve and mark lines:
nothing is rebuilt while a control is dragged.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg

from ...widgets.log_ticks import use_si_log_ticks
from .items import beyond_line, make_plot, pen


class SpecPlot:
    """One plot, its curve in the scheme's colour, and its mark lines, drawn from successive PlotSpecs."""

    def __init__(self, scheme: str, spec, name: str) -> None:
        self.widget = make_plot(spec.title, x=spec.x_label, y=spec.y_label)
        self.widget.setObjectName(name)
        self.curve = pg.PlotDataItem(pen=pen(scheme, 3.0), stepMode=None)
        self.widget.getPlotItem().addItem(self.curve)
        self.marks: list = []
        self.spec = spec

    def draw(self, spec) -> None:
        self.spec = spec
        pi = self.widget.getPlotItem()
        pi.setTitle(spec.title)
        pi.setLogMode(x=spec.log_x, y=spec.log_y)  # the curve takes data values; lines take view values
        use_si_log_ticks(pi)
        keep = spec.x > 0 if spec.log_x else np.ones(spec.x.size, dtype=bool)  # no 0 on a log axis
        if spec.log_y:
            keep &= spec.y > 0
        x, y = spec.x[keep], spec.y[keep]
        if spec.step:  # hold each value until the next x: buckets are steps, not slopes
            xs, ys = np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1]
        else:
            xs, ys = x, y
        self.curve.setData(xs, ys)
        if spec.x_range is not None:  # e.g. every pair, also those whose θ = 0 is not drawn
            pi.setXRange(*spec.x_range, padding=0.02)
        else:
            pi.enableAutoRange(x=True)
        while len(self.marks) < len(spec.marks):
            k = len(self.marks)
            line = beyond_line(0, 90, spec.marks[k][1], position=0.85 - 0.15 * k, size=None)
            pi.addItem(line, ignoreBounds=True)
            self.marks.append(line)
        for k, line in enumerate(self.marks):
            if k < len(spec.marks):
                pos, text = spec.marks[k]
                line.setPos(math.log10(max(pos, 1.0)) if spec.log_x else pos)
                line.setToolTip(text)
                line.label.setFormat(text)
            line.setVisible(k < len(spec.marks))

    def numbers(self) -> dict:
        """The plot's data, exact and named by its axes (Save numbers)."""
        return {self.spec.x_label: np.asarray(self.spec.x, dtype=np.float64),
                self.spec.y_label: np.asarray(self.spec.y, dtype=np.float64)}
