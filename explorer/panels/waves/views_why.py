"""The Waves panel's "Why sinusoids?" tab: the candidates a student would try, scored side by side.

A table (candidate × property, each cell ✓ or ✗ with the number measured) and a growth plot (largest
‖PE(p)‖ over a token's norm as N grows to 131 072).  Every number comes from the ``waves.why`` job
(:mod:`explorer.jobs.why`, which calls :func:`explorer.encodings.candidates.scorecard`); this view only
draws it.  A self-contained view: the panel asks for :meth:`WhyView.request` once the tab is first shown
and hands the response to :meth:`WhyView.show_result`.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QSizePolicy, QTableWidget, QTableWidgetItem

from ...encodings.candidates import CANDIDATES
from ...jobs.why import ScorecardRequest, ScorecardResponse
from ...widgets.readable import ReadableSplitter
from ...widgets.theming import current_theme, theme_bus
from .common import Card, set_title, style_plot, waves_plot

#: One colour per candidate in the growth plot (raw p, p/N, binary, sinusoidal): distinct in print and for most
#: colour-blind viewers; the table's pass/fail colours are separate and never the only cue (✓ / ✗).
CANDIDATE_COLOURS = ("#d62728", "#9467bd", "#8c564b", "#1f77b4")
#: (background, text) of a passing and a failing cell, light and dark: pale fills with dark ink print well;
#: deep fills with light ink keep the contrast on a dark theme.
CELL_COLOURS = {
    (False, True): ("#d8efd3", "#123d1a"), (False, False): ("#f7d6cf", "#5e1509"),
    (True, True): ("#1e4a29", "#e3f4e6"), (True, False): ("#5a1f17", "#fde6e1"),
}
TABLE_PT = 12
#: The growth plot's lowest log10 value: well below every curve (binary's ratio, the lowest, stays above 0.1),
#: leaving a band at the bottom for the legend.
LEGEND_FLOOR = -7.0
#: Column and row names short enough for a 720-line projector (the full names are in each cell's tooltip).
SHORT = {"integer": "raw p", "fraction": "p/N", "binary": "binary", "sinusoidal": "sin/cos"}
SHORT_PROPERTY = {"bounded": "bounded", "consistent": "consistent", "unique": "unique", "smooth": "smooth",
                  "linear": "linear map"}


class _ScoreTable(QTableWidget):
    """The scorecard: it tells the splitter beside the growth plot how wide its numbers need it."""

    def readable_need(self, vertical: bool) -> float:
        """The width that shows every header and cell line whole (0 along the height: the rows stretch)."""
        if vertical or self.columnCount() == 0:
            return 0.0
        fm = QFontMetricsF(self.font())
        cols = 0.0
        for j in range(self.columnCount()):
            head = self.horizontalHeaderItem(j)
            texts = [head.text() if head is not None else ""]
            texts += [line for i in range(self.rowCount()) if (item := self.item(i, j)) is not None
                      for line in item.text().split("\n")]
            cols += max(fm.horizontalAdvance(t) for t in texts) + 10  # the cell's margins and grid line
        return cols + self.verticalHeader().width() + 2 * self.frameWidth() + 2


class WhyView(Card):
    """Scorecard table and growth plot for raw p, p/N, binary digits and sinusoids."""

    #: What the tab asks the job for (the full table; tests may ask for a smaller one).
    REQUEST = ScorecardRequest()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("wavesWhy")
        self.response: ScorecardResponse | None = None
        self.table = _ScoreTable(self)
        self.table.setObjectName("wavesWhyTable")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setWordWrap(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.table.setMinimumWidth(200)
        theme_bus().follow_font(self.table, TABLE_PT)
        self.plot = waves_plot()
        self.plot.setObjectName("wavesWhyGrowth")
        pi = style_plot(self.plot, "Growth with N", "N (positions, log)",
                        "‖PE‖ / ‖x‖ (log)")
        self.plot.setLogMode(x=True, y=True)
        # Bottom left, in a band kept free below every curve (see show_result's y range): raw p
        # climbs from bottom left to top right, so a legend in the top-left corner covered its climb.
        pi.addLegend(offset=(6, -6))
        self.curves = [self.plot.plot([], [], name=SHORT[k], pen=pg.mkPen(c, width=2.5), symbol="o", symbolSize=6,
                                      symbolBrush=c, symbolPen=None)
                       for k, c in zip(CANDIDATES, CANDIDATE_COLOURS, strict=True)]
        dashed = pg.mkPen("#444444", width=1.5, style=Qt.PenStyle.DashLine)
        self.token_line = pg.InfiniteLine(pos=0.0, angle=0, pen=dashed, label="‖PE‖ = ‖x‖",
                                          labelOpts={"position": 0.05, "color": "k", "anchors": [(0, 1), (0, 1)]})
        self.plot.addItem(self.token_line)
        self.caption = QLabel("Scoring the candidates…", self)
        self.caption.setObjectName("wavesWhyCaption")
        self.caption.setWordWrap(True)
        theme_bus().follow_font(self.caption, TABLE_PT)
        self.header.addWidget(self.caption, 1)
        # Side by side in a splitter that keeps the growth plot readable where the row allows it (a fixed 2 : 1
        # left it 134 px wide at 1280 × 720).
        self.row = ReadableSplitter(Qt.Orientation.Horizontal)
        self.row.setObjectName("wavesWhySplit")
        self.row.setChildrenCollapsible(False)
        self.row.addWidget(self.table)
        self.row.addWidget(self.plot)
        self.row.setSizes([540, 360])
        self.body.addWidget(self.row)
        self.readout.setText("The scorecard is computed when this tab is first shown (a few seconds).")
        theme_bus().themeChanged.connect(self._on_theme_changed)

    def request(self) -> ScorecardRequest:
        return self.REQUEST

    # -- drawing --------------------------------------------------------------------------------------
    def show_result(self, r: ScorecardResponse) -> None:
        self.response = r
        q = r.request
        self.table.clear()
        self.table.setRowCount(len(r.properties))
        self.table.setColumnCount(len(r.candidates))
        self.table.setHorizontalHeaderLabels([SHORT.get(k, k) for k in r.candidates])
        self.table.setVerticalHeaderLabels([SHORT_PROPERTY.get(p, p) for p in r.properties])
        for j, kind in enumerate(r.candidates):
            for i, prop in enumerate(r.properties):
                passed, number, detail = r.cells[kind][prop]
                item = QTableWidgetItem(f"{'✓' if passed else '✗'}\n{number}")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setToolTip(f"{r.titles[j]} — {r.property_titles[i]}: {'passes' if passed else 'fails'}; {detail}")
                item.setData(Qt.ItemDataRole.UserRole, passed)
                self.table.setItem(i, j, item)
        self._colour_cells()
        self.row.schedule()  # the numbers' widths are known now: the table and the plot share the row again
        for curve, kind in zip(self.curves, CANDIDATES, strict=True):
            ns, ratio, _ = r.growth[kind]
            curve.setData(ns, ratio)
        top = max(float(np.max(g[1])) for g in r.growth.values())
        self.plot.getPlotItem().setRange(xRange=(math.log10(min(q.n_values)), math.log10(max(q.n_values))),
                                         yRange=(LEGEND_FLOOR, math.log10(max(top, 10.0)) + 0.3), padding=0.02)
        set_title(self.plot, "Growth with N")
        # The sidebar's d_model and base do not reach this tab: say so in the caption, where a lecturer who has
        # just moved d_model to 128 would otherwise read "d = 64" as a bug.
        self.caption.setText(f"This tab's own fixed sizes, not the sliders': d = {q.d}, base {q.base:,.0f}, "
                             f"N ≤ {max(q.n_values):,}, k = {q.offset}. ✓ passes, ✗ fails (number measured).")
        self.readout.setText(
            f"Measured, not written: d = {q.d}, base {q.base:,.0f}, N = {min(q.n_values):,} … {max(q.n_values):,}, "
            f"offset k = {q.offset} fitted over {q.n_fit:,} positions (fixed sizes: the sliders do not change "
            f"this tab). ‖x‖ = √d, a token with unit-variance components. <b>consistent</b>: how far PE(p) moves "
            f"when N changes; <b>smooth</b>: longest over shortest step ‖PE(p+1) − PE(p)‖; <b>linear map</b>: "
            f"least-squares residual of one M<sub>k</sub> with PE(p+k) ≈ M<sub>k</sub>·PE(p). Only the "
            f"sinusoids pass every test.")

    def _colour_cells(self) -> None:
        dark = bool(current_theme().dark)
        for i in range(self.table.rowCount()):
            for j in range(self.table.columnCount()):
                item = self.table.item(i, j)
                if item is None:
                    continue
                bg, fg = CELL_COLOURS[(dark, bool(item.data(Qt.ItemDataRole.UserRole)))]
                item.setBackground(QBrush(QColor(bg)))
                item.setForeground(QBrush(QColor(fg)))

    def _on_theme_changed(self, _theme) -> None:
        self._colour_cells()

    # -- export ----------------------------------------------------------------------------------------
    def export_data(self, plot) -> dict | None:
        """The growth plot's exact numbers (float64): N, and per candidate the ratio and the largest |value|."""
        r = self.response
        if plot is not self.plot or r is None:
            return None
        out = {"N": r.growth[r.candidates[0]][0]}
        for kind, title in zip(r.candidates, r.titles, strict=True):
            _, ratio, biggest = r.growth[kind]
            out[f"{title}: max ‖PE(p)‖ / √d"] = ratio
            out[f"{title}: max |value|"] = biggest
        return out
