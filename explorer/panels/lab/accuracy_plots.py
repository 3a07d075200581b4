"""The Lab panel's result plots: the score against test length, and accuracy at each position of the longest
test streams (the results grid is in :mod:`.grid`).

They only draw what they are given (a :class:`~explorer.lab.LabResult`'s schemes); every number comes from
:mod:`explorer.lab`.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF

from ...lab import SCHEME_LABELS, centred_average, fmt_percent
from ...widgets.log_ticks import thinned, tick_font, use_si_log_ticks
from ...widgets.plots import make_plot
from .common import (
    NEUTRAL,
    SCHEME_COLOURS,
    SCHEME_SYMBOLS,
    Hint,
    hint,
    key_when_exported,
    legend_under,
    pen,
    ref_line,
    scheme_pen,
)

#: The accuracy-by-length plot's top: above 100 % by a marker's half height at 720p (104 cut the markers).
ACCURACY_TOP = 110


class LengthPlot:
    """The task's score at each test length (log-scale x), L_train marked, baselines dashed: accuracy against
    the rule, or exact match (the whole answer right) for the sequence tasks."""

    def __init__(self, parent=None) -> None:
        self.plot = make_plot("Accuracy against test length", x="test length L (log scale)", y="accuracy (%)",
                              parent=parent)
        self.plot.setObjectName("labLengthPlot")
        self.pi = self.plot.getPlotItem()
        self._ticks: list[tuple[float, str]] = []
        self._keep: tuple[str, ...] = ()
        self._shown_ticks: list[tuple[float, str]] | None = None
        # Fewer tick labels where the plot is narrow (bound methods: no lambda holding the items).
        self.pi.vb.sigResized.connect(self._fit_ticks)
        self.pi.vb.sigXRangeChanged.connect(self._fit_ticks)
        self.pi.setLogMode(x=True, y=False)
        use_si_log_ticks(self.pi)
        self.pi.setYRange(0, ACCURACY_TOP, padding=0)
        self.legend, self.placer = legend_under(self.plot)
        self.train_line = pg.InfiniteLine(pos=0.0, angle=90, pen=pen(NEUTRAL, 1.6, Qt.PenStyle.DashLine))
        self.train_line.setZValue(-5)
        # Their labels at the right end, clear of the L_train line and its label on the left.
        self.chance_line = ref_line(0.0, 0, "", Qt.PenStyle.DotLine, label_pos=0.98,
                                     anchors=[(1, 1), (1, 1)])
        # The baseline's label at the left, under its line: there the curves are still high (at the right end,
        # where the schemes fall to it, they covered it); short enough to end before they come down.
        self.baseline_line = ref_line(0.0, 0, "", Qt.PenStyle.DashLine, label_pos=0.02,
                                       anchors=[(0, 0), (0, 0)])
        for item in (self.train_line, self.chance_line, self.baseline_line):
            self.pi.addItem(item)
        self.hint = hint("After each model has trained, its accuracy\nat every test length appears here.")
        self.pi.addItem(self.hint)
        self.curves: dict[str, pg.PlotDataItem] = {}
        key_when_exported(self.plot, self.placer, self.curves)
        #: scheme -> its "cannot run" label (only the learned table has one).
        self.notes: dict[str, pg.TextItem] = {}
        #: The LengthResult field drawn: "accuracy" (the rule) or "exact" (the sequence tasks).
        self.metric = "accuracy"

    def _fit_ticks(self, *_args) -> None:
        """The test lengths as tick labels, as many as fit side by side (L_train's first, then the ends)."""
        axis, vb = self.pi.getAxis("bottom"), self.pi.vb
        (x0, x1), px = vb.viewRange()[0], vb.width()
        if not self._ticks or px <= 0 or x1 <= x0:
            return
        metrics = QFontMetricsF(tick_font(axis))
        shown = thinned(self._ticks, lambda v: (v - x0) / (x1 - x0) * px, metrics.horizontalAdvance, self._keep)
        if shown != self._shown_ticks:
            self._shown_ticks = shown
            axis.setTicks([shown])

    def prepare(self, lengths, train_len: int, chance: float, baseline: float, metric: str = "accuracy",
                grid: bool = False) -> None:
        """Empty axes for a run; ``metric`` "exact" draws exact match (no chance or baseline line: a
        whole answer is right by chance almost never); ``grid``: the lengths are grid sides."""
        self.pi.setLabel("bottom", "test grid side (log scale)" if grid else "test length L (log scale)")
        if metric != self.metric:
            self.metric = metric
            exact = metric == "exact"
            self.pi.setTitle("Exact match against test length" if exact else "Accuracy against test length")
            self.pi.setLabel("left", "exact match (%)" if exact else "accuracy (%)")
        for item in self.curves.values():
            self.pi.removeItem(item)  # and its legend row
        for item in self.notes.values():
            self.pi.removeItem(item)
        self.curves.clear()
        self.notes.clear()
        self.placer.place()  # no entries: it goes
        lengths = sorted(lengths)
        lo, hi = math.log10(min(lengths + [train_len])), math.log10(max(lengths + [train_len]))
        span = max(hi - lo, 0.3)
        self.pi.setXRange(lo - 0.06 * span, hi + 0.06 * span, padding=0)
        # The training length is named on the axis itself: a label inside the plot would sit on the curves.
        self._ticks = [(math.log10(n), f"L = {n}" if n == train_len else str(n)) for n in lengths]
        self._keep = (f"L = {train_len}",)
        self._fit_ticks()
        self.train_line.setValue(math.log10(train_len))
        rule = metric == "accuracy"
        self.chance_line.setValue(100 * chance)
        self.chance_line.label.setFormat(f"chance {fmt_percent(chance)}")
        self.chance_line.setVisible(rule)
        self.baseline_line.setVisible(rule and math.isfinite(baseline))
        if math.isfinite(baseline):
            self.baseline_line.setValue(100 * baseline)
            self.baseline_line.label.setFormat(f"last symbol only {fmt_percent(baseline)}")
            self.baseline_line.label.setToolTip("the best accuracy knowing only the last symbol")
        self.hint.setPos((lo + hi) / 2, 60)
        self.hint.setVisible(True)

    def show_schemes(self, result_schemes, train_len: int) -> None:
        """Draw every finished scheme; lengths it cannot run at are labelled, not plotted."""
        for s in result_schemes:
            if s.status != "done":
                continue
            ran = [r for r in s.lengths if r.ran]
            if s.scheme not in self.curves:
                c = SCHEME_COLOURS[s.scheme]
                curve = pg.PlotDataItem(pen=scheme_pen(s.scheme, 3.0), symbol=SCHEME_SYMBOLS[s.scheme],
                                        symbolSize=11,
                                        symbolBrush=pg.mkBrush(c), symbolPen=pg.mkPen("w", width=1),
                                        name=SCHEME_LABELS[s.scheme])
                self.pi.addItem(curve)  # and its legend row, by its name
                self.curves[s.scheme] = curve
            self.curves[s.scheme].setData([r.length for r in ran], [100 * getattr(r, self.metric) for r in ran])
            blocked = [r for r in s.lengths if not r.ran]
            if blocked and s.scheme not in self.notes:
                first = min(r.length for r in blocked)
                # Only where it fits under the baseline's label (the table says "cannot run" too).
                note = Hint(f"{SCHEME_LABELS[s.scheme]}: cannot run at L ≥ {first}\n"
                             "(no table row past the training length)", color=SCHEME_COLOURS[s.scheme],
                             anchor=(0, 1), room=(0.6, 0.2))
                f = QFont()
                f.setPointSizeF(11)
                f.setBold(True)
                note.setFont(f)
                note.setPos(math.log10(first), 22)
                self.pi.addItem(note)
                note.setVisible(True)
                self.notes[s.scheme] = note
        self.hint.setVisible(not self.curves and not self.notes)
        self.placer.place()


class PositionPlot:
    """Accuracy at each position of the longest test streams: where, exactly, a scheme stops working."""

    def __init__(self, parent=None) -> None:
        self.plot = make_plot("Accuracy at each position", x="position t in the test stream",
                              y="accuracy (%)", parent=parent)
        self.plot.setObjectName("labPositionPlot")
        self.pi = self.plot.getPlotItem()
        self.pi.setYRange(0, 104, padding=0)
        self.train_line = ref_line(0.0, 90, "", Qt.PenStyle.DashLine, label_pos=0.12,
                                    anchors=[(0, 0), (0, 0)])
        self.pi.addItem(self.train_line)
        self.legend, self.placer = legend_under(self.plot)
        self.hint = hint("Accuracy position by position,\non the longest test streams.")
        self.pi.addItem(self.hint)
        self.curves: dict[str, pg.PlotDataItem] = {}
        key_when_exported(self.plot, self.placer, self.curves)
        self.window = 1

    def prepare(self, max_len: int, train_len: int, answer: int | None = None, grid: bool = False) -> None:
        """Empty axes for the positions of a length-``max_len`` stream, or, given ``answer`` (the answer's
        tokens at the longest length), for the tokens of the answer (the sequence tasks); ``grid``: for the rows
        of a grid of side ``max_len`` (the grid task)."""
        for item in self.curves.values():
            self.pi.removeItem(item)  # and its legend row
        self.curves.clear()
        self.placer.place()  # no entries: it goes
        top = max_len if answer is None else answer
        self.window = max(1, top // 64)
        extra = f", mean of {self.window}" if self.window > 1 else ""
        if grid:
            self.pi.setTitle(f"Accuracy by row (side {max_len}{extra})")
            self.pi.setLabel("bottom", "row y of the largest test grid")
        elif answer is None:
            self.pi.setTitle(f"Accuracy by position (length {max_len}{extra})")
            self.pi.setLabel("bottom", "position t in the test stream")
        else:
            # The length on the axis: in the title it was cut at 1280 × 720 in presenter mode.
            self.pi.setTitle("Accuracy by answer token" + (f" (mean of {self.window})" if self.window > 1 else ""))
            self.pi.setLabel("bottom", f"answer token, n = {max_len} (1 = written first)")
        # One answer token (counting markers): one point per scheme, centred, with no "longest trained" line on it.
        self.pi.setXRange(*((0.5, 1.5) if top == 1 else (0, top)), padding=0.02)
        self.train_line.setVisible(top != 1)
        self.pi.getAxis("bottom").setTicks([[(1, "1")]] if top == 1 else None)
        # The longest answer seen in training (an L-symbol prompt's), or L itself for the rule.
        self.train_line.setValue(train_len)
        self.train_line.label.setFormat(f" L = {train_len}" if answer is None else " longest trained")
        # Where the curves are not: past L the rule's stay high (label at the bottom, resting on the axis),
        # the sequence tasks' fall low (label at the top, hanging from it).
        # On the grid the 1-D schemes' rows sit near chance at the bottom: the label hangs from the top.
        low = answer is None and not grid
        label = self.train_line.label
        label.anchors = [(0, 1), (0, 1)] if low else [(0, 0), (0, 0)]
        label.setPosition(0.03 if low else 0.97)
        self.hint.setPos(max_len / 2, 60)
        self.hint.setVisible(True)

    def show_schemes(self, result_schemes) -> None:
        for s in result_schemes:
            if s.status != "done" or not s.position_accuracy:
                continue
            if s.scheme not in self.curves:
                curve = pg.PlotDataItem(pen=scheme_pen(s.scheme, 2.5), name=SCHEME_LABELS[s.scheme])
                self.pi.addItem(curve)  # and its legend row, by its name
                self.curves[s.scheme] = curve
            acc = np.asarray(s.position_accuracy)
            t = np.arange(1, acc.size + 1)  # position_accuracy[0] is position t = 1
            one = acc.size == 1  # a one-token answer (counting markers): a point, which a line would not show
            self.curves[s.scheme].setSymbol(SCHEME_SYMBOLS[s.scheme] if one else None)
            if one:
                self.curves[s.scheme].setSymbolBrush(pg.mkBrush(SCHEME_COLOURS[s.scheme]))
                self.curves[s.scheme].setSymbolSize(11)
            self.curves[s.scheme].setData(t, 100 * centred_average(acc, self.window))
        self.hint.setVisible(not self.curves)
        self.placer.place()
