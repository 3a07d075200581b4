"""The Lab panel's views: live loss curves, the score against test length, accuracy by position
(the results grid is in :mod:`.grid`).

They only draw what they are given (a :class:`~explorer.lab.LabResult` or the losses so far); every
number comes from :mod:`explorer.lab`.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF

from ... import schemes as registry
from ...lab import SCHEME_LABELS, centred_average, fmt_percent, moving_average
from ...widgets.log_ticks import thinned, use_si_log_ticks
from ...widgets.plots import make_plot
from ...widgets.readable import readable_size
from ...widgets.styling import mapped_colour
from ..schemes.items import line_style


class _Record(dict):
    """scheme id -> one field of its record (colour, marker), read from the registry on each use."""

    def __init__(self, attr: str) -> None:
        super().__init__()
        self._attr = attr

    def __getitem__(self, key: str) -> str:
        return getattr(registry.get(key), self._attr)

    def __contains__(self, key) -> bool:
        return key in registry.ids()


#: One colour per scheme, the same as the Schemes panel's (Okabe–Ito, safe for colour-vision deficiency),
#: and one marker each, so curves stay apart in grey-scale print.
SCHEME_COLOURS = _Record("colour")
SCHEME_SYMBOLS = _Record("symbol")
NEUTRAL = "#555555"


def _pen(colour: str, width: float = 2.5, style=Qt.PenStyle.SolidLine, alpha: int = 255) -> pg.QtGui.QPen:
    c = QColor(colour)
    c.setAlpha(alpha)
    pen = pg.mkPen(c, width=width)
    pen.setStyle(style)
    return pen


def _scheme_pen(scheme: str, width: float, alpha: int = 255) -> pg.QtGui.QPen:
    """``scheme``'s pen: its colour in its line style (a variant that shares a colour is dashed)."""
    return _pen(SCHEME_COLOURS[scheme], width, line_style(scheme), alpha)


class _Hint(pg.TextItem):
    """A "Press Start…" placeholder inside an empty plot, shown only where it fits: at 1280 × 720 in
    presenter mode it ran over the legend and the reference lines' labels."""

    #: The share of the plot's width and height the hint may take (by default).
    ROOM = (0.8, 0.45)
    #: It shows and hides itself (the plot's annotation placer leaves it be).
    self_placed = True

    def __init__(self, text: str, color: str = NEUTRAL, anchor=(0.5, 0.5), room: tuple | None = None) -> None:
        super().__init__(text, color=color, anchor=anchor)
        self._wanted = True
        self._view = None
        self._room = room or self.ROOM

    def fits(self) -> bool:
        view = self.getViewBox()
        if view is None:
            return True
        if view is not self._view:  # added to a plot: follow its size from now on
            self._view = view
            view.sigResized.connect(self._refit)  # a bound method: no lambda holding the item in a cycle
        room, text = view.boundingRect(), self.textItem.boundingRect()
        return text.width() <= self._room[0] * room.width() and text.height() <= self._room[1] * room.height()

    def _refit(self, *_args) -> None:
        self.setVisible(self._wanted)

    def setVisible(self, on: bool) -> None:  # noqa: N802 - Qt's name
        self._wanted = bool(on)
        super().setVisible(self._wanted and self.fits())


def _hint(text: str) -> pg.TextItem:
    item = _Hint(text)
    f = QFont()
    f.setPointSizeF(12)
    item.setFont(f)
    return item


class _FitLegend(pg.LegendItem):
    """A legend under the x axis that is shown only where it fits (at most :attr:`ROOM` of its plot's
    height): at 1280 × 720 in presenter mode five entries in two columns took the whole plot."""

    ROOM = 0.3

    def __init__(self) -> None:
        super().__init__(colCount=5, labelTextSize="11pt", pen=None, brush=None)
        self.wanted = False
        self.fits = True

    def setVisible(self, on: bool) -> None:  # noqa: N802 - Qt's name
        self.wanted = bool(on)
        shown = self.wanted and self.fits
        super().setVisible(shown)
        # A hidden item keeps its room in a graphics layout: none while hidden, its own when shown.
        self.setMinimumHeight(-1 if shown else 0)
        self.setMaximumHeight(-1 if shown else 0)

    def hidden_for_room(self) -> bool:
        """Wanted (it has curves) but left out: the plot is too small for it."""
        return self.wanted and not self.fits


#: A legend's height over its rows' (its margins and spacing), at least.
LEGEND_PAD = 12


class _LegendFitter(QObject):
    """Keeps a legend under the x axis as wide as its plot (as many entries per row as fit) and shows it
    only where it leaves the plot a readable data area (:mod:`explorer.widgets.readable`) and takes at most
    :attr:`_FitLegend.ROOM` of it; ``changed`` when it appears or goes.

    A fixed five-column row would be wider than a narrow plot and push its right edge out of view.
    """

    changed = Signal()

    def __init__(self, view: pg.PlotWidget, legend: _FitLegend) -> None:
        super().__init__(view)
        self.view, self.legend = view, legend
        view.installEventFilter(self)
        # The data area also changes with the fonts (presenter mode) and the axes' tick labels.
        view.getPlotItem().getViewBox().sigResized.connect(self._refit)
        self._pending = False

    def _refit(self, *_args) -> None:
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self._refit_now)

    def _refit_now(self) -> None:
        self._pending = False
        if shiboken6.isValid(self.view):
            self.fit()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def fit(self) -> None:
        legend = self.legend
        # Intrinsic widths (the text itself), not the cells the layout has stretched them to.
        entries = [s.boundingRect().width() + lb.item.boundingRect().width() + 24 for s, lb in legend.items]
        avail = self.view.width() - 90  # the left axis and margins
        n = max(1, len(entries))
        while n > 1 and max(sum(entries[i:i + n]) for i in range(0, len(entries), n)) > avail:
            n -= 1
        if n != legend.columnCount:
            legend.setColumnCount(n)
        rows = math.ceil(len(entries) / n) if entries else 0
        row_h = max((lb.item.boundingRect().height() for _s, lb in legend.items), default=0.0)
        # The data area it would leave: what the view has now, with the legend's row given back if it is shown.
        vb = self.view.getPlotItem().getViewBox()
        free = vb.height() + (legend.geometry().height() if legend.isVisible() else 0.0)
        height = max(rows * row_h + LEGEND_PAD, legend.layout.preferredHeight())  # its rows, margins and spacing
        fits = rows * row_h <= legend.ROOM * self.view.height() and free - height >= readable_size(self.view)[1]
        if fits != legend.fits:
            legend.fits = fits
            legend.setVisible(legend.wanted)
            self.changed.emit()


def scheme_colour(scheme: str, theme=None) -> QColor:
    """``scheme``'s colour as ``theme`` draws its curves (the plots' theming maps each pen the same way)."""
    return mapped_colour(SCHEME_COLOURS[scheme], theme)


def scheme_key(schemes, theme=None) -> str:
    """One line naming ``schemes`` in their curves' colours (the key shown when the plots' legends are not)."""
    return " &nbsp; ".join(f"<span style='color:{scheme_colour(s, theme).name()}; font-weight:700'>"
                           f"{KEY_GLYPHS.get(registry.get(s).line, '━━')}</span> {SCHEME_LABELS[s]}" for s in schemes)


#: The key's sample of each line style (a scheme that shares a colour is told apart by it).
KEY_GLYPHS = {"solid": "━━", "dash": "╍╍", "dot": "┅┅", "dashdot": "━┅", "dashdotdot": "━┉"}


def show_key(key, views, theme=None) -> None:
    """Show ``key`` (a QLabel) naming the run's schemes while any of ``views``' legends is left out."""
    schemes = list(views[0].smooth)
    if not schemes or not any(v.legend.hidden_for_room() for v in views):
        key.setVisible(False)
        return
    key.setText(scheme_key(schemes, theme))
    key.setVisible(True)


def _key_when_exported(view: pg.PlotWidget, legend: _FitLegend, schemes) -> None:
    """A plot exported alone names its curves (``export_key``, drawn under it) while its own legend is left out
    for room: the shared key above the plots does not go with it."""
    view.export_key = lambda: scheme_key(list(schemes)) if legend.hidden_for_room() and schemes else ""


def _bottom_legend(view: pg.PlotWidget) -> _FitLegend:
    """A legend under the x axis, in the plot's own layout: it never covers a curve."""
    pi = view.getPlotItem()
    legend = _FitLegend()
    pi.layout.addItem(legend, 4, 1)
    pi.layout.setRowStretchFactor(4, 0)
    legend.fitter = _LegendFitter(view, legend)
    # Put in the plot's layout by hand, not by addLegend: the plot's styler must be told, or entries added
    # later (while presenter mode is on) keep the normal size until the next theme change.
    view.styler.adopt(legend)
    return legend


def _ref_line(pos: float, angle: int, label: str, style=Qt.PenStyle.DashLine, label_pos: float = 0.95,
              anchors=None) -> pg.InfiniteLine:
    line = pg.InfiniteLine(pos=pos, angle=angle, pen=_pen(NEUTRAL, 1.6, style),
                           label=label, labelOpts={"position": label_pos, "color": NEUTRAL,
                                                   "anchors": anchors or [(0, 1), (0, 1)]})
    line.setZValue(-5)
    return line


#: The accuracy-by-length plot's top: above 100 % by a marker's half height at 720p (104 cut the markers).
ACCURACY_TOP = 110


class LossPlot:
    """Training loss per step for each scheme: each step faint, a trailing mean bold.

    ``.plot`` is the widget (as for every view here).
    """

    def __init__(self, parent=None) -> None:
        self.plot = make_plot("Training loss (live)", x="training step", y="loss (nats)",
                              parent=parent)
        self.plot.setObjectName("labLossPlot")
        self.pi = self.plot.getPlotItem()
        self.legend = _bottom_legend(self.plot)
        self.legend.setVisible(False)
        self.floor = _ref_line(0.0, 0, "", Qt.PenStyle.DashLine, label_pos=0.03, anchors=[(0, 0), (0, 0)])
        self.pi.addItem(self.floor)
        self.hint = _hint("Press Start: one model per scheme\ntrains here, live.")
        self.pi.addItem(self.hint)
        self.raw: dict[str, pg.PlotDataItem] = {}
        self.smooth: dict[str, pg.PlotDataItem] = {}
        self.losses: dict[str, np.ndarray] = {}
        self._steps = 1
        self._range: tuple[float, float] | None = None  # the floor and the top of the loss axis
        self.pi.getViewBox().sigResized.connect(self._fit_floor_room)
        _key_when_exported(self.plot, self.legend, self.smooth)

    def prepare(self, schemes, steps: int, floor: float, top: float) -> None:
        """Empty curves for ``schemes``; axes from 0 to ``steps`` and from the floor to ``top``."""
        for item in list(self.raw.values()) + list(self.smooth.values()):
            self.pi.removeItem(item)
            self.legend.removeItem(item)
        self.raw.clear()
        self.smooth.clear()
        self.losses = {s: np.empty(0) for s in schemes}
        self._steps = max(1, int(steps))
        for s in schemes:
            raw = pg.PlotDataItem(pen=_scheme_pen(s, 1.0, alpha=70),
                                  name=f"{SCHEME_LABELS[s]} (each step)")
            smooth = pg.PlotDataItem(pen=_scheme_pen(s, 3.0), name=SCHEME_LABELS[s])
            for item in (raw, smooth):
                item.setDownsampling(auto=True, method="peak")
                item.setClipToView(True)
            self.pi.addItem(raw)
            self.pi.addItem(smooth)
            self.legend.addItem(smooth, SCHEME_LABELS[s])  # one legend row per scheme: the bold curve
            self.raw[s], self.smooth[s] = raw, smooth
        self.legend.fitter.fit()
        self.legend.setVisible(bool(schemes))
        self.set_floor(floor)
        self.pi.setXRange(0, self._steps, padding=0.02)
        self._range = (floor, top)
        self._fit_floor_room()
        self.hint.setAnchor((0, 0.5))
        self.hint.setPos(0.04 * self._steps, floor + 0.3 * (top - floor))
        self.hint.setVisible(True)

    def _fit_floor_room(self, *_args) -> None:
        """Room under the floor for its label (hung below the line, where no curve goes), a line of the label's
        text at the plot's height now: a fixed share was 23 px at 720p presenter, under the label's 29."""
        if self._range is None:
            return
        floor, top = self._range
        text = self.floor.label.textItem.boundingRect().height() + 4
        height = max(self.pi.getViewBox().height(), 3 * text)
        span = (top - floor) * 1.02
        below = span * text / (height - text)
        self.pi.setYRange(floor - below, floor + span, padding=0)

    def set_floor(self, floor: float) -> None:
        self.floor.setValue(floor)
        # The rule's floor is the noise's entropy; a task with one right answer can reach 0.
        self.floor.label.setFormat(f"best possible {floor:.2f} (the noise)" if floor > 0 else "best possible 0")

    def append(self, scheme: str, first_step: int, losses) -> None:
        """Add the losses of steps ``first_step`` … (0-based) to ``scheme``'s curves."""
        if scheme not in self.losses or not len(losses):
            return
        cur = self.losses[scheme][:first_step]
        self.losses[scheme] = np.concatenate([cur, np.asarray(losses, dtype=np.float64)])
        self._draw(scheme)
        self.hint.setVisible(False)

    def set_losses(self, scheme: str, losses) -> None:
        if scheme in self.losses:
            self.losses[scheme] = np.asarray(losses, dtype=np.float64)
            self._draw(scheme)
            self.hint.setVisible(not any(v.size for v in self.losses.values()))

    def smoothed(self, scheme: str) -> np.ndarray:
        # A window of 1/40 of the run: smooth enough to compare, short enough to show the drop.
        return moving_average(self.losses[scheme], max(1, self._steps // 40))

    def _draw(self, scheme: str) -> None:
        y = self.losses[scheme]
        x = np.arange(1, y.size + 1, dtype=np.float64)
        self.raw[scheme].setData(x, y)
        self.smooth[scheme].setData(x, self.smoothed(scheme))


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
        self.legend = _bottom_legend(self.plot)
        self.train_line = pg.InfiniteLine(pos=0.0, angle=90, pen=_pen(NEUTRAL, 1.6, Qt.PenStyle.DashLine))
        self.train_line.setZValue(-5)
        # Their labels at the right end, clear of the L_train line and its label on the left.
        self.chance_line = _ref_line(0.0, 0, "", Qt.PenStyle.DotLine, label_pos=0.98,
                                     anchors=[(1, 1), (1, 1)])
        # The baseline's label at the left, under its line: there the curves are still high (at the right end,
        # where the schemes fall to it, they covered it); short enough to end before they come down.
        self.baseline_line = _ref_line(0.0, 0, "", Qt.PenStyle.DashLine, label_pos=0.02,
                                       anchors=[(0, 0), (0, 0)])
        for item in (self.train_line, self.chance_line, self.baseline_line):
            self.pi.addItem(item)
        self.hint = _hint("After each model has trained, its accuracy\nat every test length appears here.")
        self.pi.addItem(self.hint)
        self.curves: dict[str, pg.PlotDataItem] = {}
        _key_when_exported(self.plot, self.legend, self.curves)
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
        metrics = QFontMetricsF(axis.style.get("tickFont") or axis.font())
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
            self.pi.removeItem(item)
            self.legend.removeItem(item)
        for item in self.notes.values():
            self.pi.removeItem(item)
        self.curves.clear()
        self.notes.clear()
        self.legend.setVisible(False)
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
                curve = pg.PlotDataItem(pen=_scheme_pen(s.scheme, 3.0), symbol=SCHEME_SYMBOLS[s.scheme],
                                        symbolSize=11,
                                        symbolBrush=pg.mkBrush(c), symbolPen=pg.mkPen("w", width=1),
                                        name=SCHEME_LABELS[s.scheme])
                self.pi.addItem(curve)
                self.legend.addItem(curve, SCHEME_LABELS[s.scheme])
                self.legend.fitter.fit()
                self.curves[s.scheme] = curve
            self.curves[s.scheme].setData([r.length for r in ran], [100 * getattr(r, self.metric) for r in ran])
            blocked = [r for r in s.lengths if not r.ran]
            if blocked and s.scheme not in self.notes:
                first = min(r.length for r in blocked)
                # Only where it fits under the baseline's label (the table says "cannot run" too).
                note = _Hint(f"{SCHEME_LABELS[s.scheme]}: cannot run at L ≥ {first}\n"
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
        self.legend.setVisible(bool(self.curves))


class PositionPlot:
    """Accuracy at each position of the longest test streams: where, exactly, a scheme stops working."""

    def __init__(self, parent=None) -> None:
        self.plot = make_plot("Accuracy at each position", x="position t in the test stream",
                              y="accuracy (%)", parent=parent)
        self.plot.setObjectName("labPositionPlot")
        self.pi = self.plot.getPlotItem()
        self.pi.setYRange(0, 104, padding=0)
        self.train_line = _ref_line(0.0, 90, "", Qt.PenStyle.DashLine, label_pos=0.12,
                                    anchors=[(0, 0), (0, 0)])
        self.pi.addItem(self.train_line)
        self.legend = _bottom_legend(self.plot)
        self.hint = _hint("Accuracy position by position,\non the longest test streams.")
        self.pi.addItem(self.hint)
        self.curves: dict[str, pg.PlotDataItem] = {}
        _key_when_exported(self.plot, self.legend, self.curves)
        self.window = 1

    def prepare(self, max_len: int, train_len: int, answer: int | None = None, grid: bool = False) -> None:
        """Empty axes for the positions of a length-``max_len`` stream, or, given ``answer`` (the answer's
        tokens at the longest length), for the tokens of the answer (the sequence tasks); ``grid``: for the rows
        of a grid of side ``max_len`` (the grid task)."""
        for item in self.curves.values():
            self.pi.removeItem(item)
            self.legend.removeItem(item)
        self.curves.clear()
        self.legend.setVisible(False)
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
                curve = pg.PlotDataItem(pen=_scheme_pen(s.scheme, 2.5), name=SCHEME_LABELS[s.scheme])
                self.pi.addItem(curve)
                self.legend.addItem(curve, SCHEME_LABELS[s.scheme])
                self.legend.fitter.fit()
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
        self.legend.setVisible(bool(self.curves))
