"""Views of the table itself: heatmap, waves, spectrum, position vector.  They only render."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QLabel

from ...jobs.waves import CurvesResponse, PickResponse
from ...state import WavesState
from ...widgets.lean_items import LeanCurve, LeanScatter
from ...widgets.log_ticks import use_si_log_ticks
from ...widgets.styler import mapped_colour
from ...widgets.symbols import Markers, marker_room, range_with_room, steady_brush, steady_pen
from ...widgets.text_pin import EVERY_MS
from ...widgets.theming import current_theme, theme_bus
from ...widgets.throttle import Throttle
from ...widgets.titles import declutter
from .common import (
    P_COLOUR,
    PK_COLOUR,
    Card,
    click_in,
    grow_curves,
    lane_pen,
    num,
    pair_colour,
    pair_cols,
    set_lane,
    set_title,
    style_plot,
    waves_plot,
)


def ratio_text(state: WavesState) -> str:
    """How much slower each pair is than the one before: base^(2/d), or base^(1/(d/2−1)) for t2t."""
    half = state.d_model // 2
    if state.variant == "t2t":
        return f"base<sup>1/(d/2−1)</sup> = {num(state.base ** (1 / max(half - 1, 1)), 4)}"
    return f"base<sup>2/d</sup> = {num(state.base ** (2 / state.d_model), 4)}"


class WavesView(Card):
    """The chosen pairs' sin columns across positions, one lane each, fastest on top."""

    rangeEdited = Signal()
    LANE = 2.6  # vertical distance between lanes (each wave spans [−1, 1])
    _fast = False

    def __init__(self, parent=None) -> None:
        # While a slider is held the lanes' labels (each pair's λ, which a base step changes) follow at most
        # every EVERY_MS, like the live labels: each new set lays the axis out and paints it again.  (Made first:
        # Card's __init__ sets ``fast``.)
        self._every = Throttle(EVERY_MS)
        super().__init__(parent)
        self.state = WavesState()
        self.lanes: tuple[int, ...] = ()
        self.plot = waves_plot()
        self.plot.setObjectName("wavesWaves")
        # The direction cue on the lane axis itself (rotated text reads bottom to top).
        style_plot(self.plot, "", "position p", "slower  ◀  pair i  ▶  FASTER")
        self.vb = self.plot.getViewBox()
        self.vb.setMouseEnabled(x=True, y=False)
        self.body.addWidget(self.plot)
        self.curves: list[pg.PlotCurveItem] = []
        self.markers = LeanScatter(size=11, pen=pg.mkPen("k", width=1))
        self.p_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(P_COLOUR, width=2))
        self.pk_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(PK_COLOUR, width=2, style=Qt.PenStyle.DashLine))
        for item in (self.p_line, self.pk_line):
            self.plot.addItem(item)
        self.plot.addItem(self.markers)
        self.markers.setZValue(10)
        self.plot.getPlotItem().getAxis("left").setWidth(140)
        self.plot.scene().sigMouseClicked.connect(self._on_clicked)
        self.vb.sigRangeChangedManually.connect(lambda *_: self.rangeEdited.emit())
        self._last = 1  # the last position shown by the full range, and that range once set
        self._full: list[float] | None = None
        self.vb.sigResized.connect(self._on_resized)
        self.lane_labels: list[str] = []
        # (lanes, picked pair, antialiased) the pens and range were made for
        self._styled: tuple = (None, None, True)

    @property
    def fast(self) -> bool:
        return self._fast

    @fast.setter
    def fast(self, on: bool) -> None:
        self._fast = bool(on)
        if not on:  # let go: the labels of the last step, now
            self._every.flush()

    def set_full_range(self, n: int) -> None:
        self._last = max(n - 1, 1)
        self.vb.setLimits(minXRange=min(self._last, 4))
        self._fit_full()

    def _fit_full(self) -> None:
        """Every position, with room for the markers at p = 0 or N − 1 (else cut in half by the plot's edge)."""
        self._full = range_with_room(self.vb, marker_room(self.markers), (0, self._last))[0]

    def _on_resized(self, *_args) -> None:
        # Not zoomed or panned since (x only: the lanes' count sets y).
        if self._full is not None and self.vb.targetRange()[0] == self._full:
            self._fit_full()

    def visible(self) -> tuple[int, int]:
        (x0, x1), _ = self.vb.viewRange()
        n = self.state.n_positions
        a = min(max(0, math.floor(x0)), n - 1)
        return a, min(n, max(a + 1, math.ceil(x1) + 1))

    def pixels(self) -> int:
        return max(64, int(self.vb.size().width() * self.plot.devicePixelRatioF()) // 16 * 16)

    def show_state(self, st: WavesState, wavelengths: np.ndarray | None) -> None:
        self.state = st
        lanes = tuple(sorted(set(st.pairs) | {st.pair}))
        self.lanes = lanes
        self.p_line.setPos(st.position)
        pk = st.position + st.offset
        self.pk_line.setPos(pk)
        self.pk_line.setVisible(st.overlay and 0 <= pk < st.n_positions)
        if (lanes, st.pair) != self._styled[:2]:
            self._style_lanes(lanes, st.pair, self._styled[2])
        # Only the labels follow the wavelengths (a base drag): the axis is re-laid out only when
        # their text changes, never the pens or the range.
        labels = self._lane_labels(lanes, st.pair, wavelengths)
        if labels == self._every.due("labels", self.lane_labels):
            return
        if not self.fast:
            self._every.drop("labels")
            self._set_ticks(labels)
        elif len(labels) != len(self.lane_labels):  # other lanes: their labels at once
            self._every.now("labels", labels, self._set_ticks)
        else:
            self._every.offer("labels", labels, self._set_ticks)

    def _style_lanes(self, lanes: tuple, pair: int, aa: bool) -> None:
        """Pens, lane count and range: they change with the chosen pairs (and the pens' caps with
        antialiasing), not with the data."""
        self._styled = (lanes, pair, aa)
        grow_curves(self.plot, self.curves, len(lanes))
        for j, c in enumerate(self.curves):
            c.setVisible(j < len(lanes))
            if j < len(lanes):
                self.plot.styler.set_pen(c, lane_pen(pair_colour(j), 3 if lanes[j] == pair else 2, aa))
        self.vb.setYRange(-self.LANE * (len(lanes) - 1) - 1.3, 1.3, padding=0)
        set_title(self.plot, "Waves: pair 0 is the FASTEST")

    @staticmethod
    def _lane_labels(lanes: tuple, pair: int, wavelengths: np.ndarray | None) -> list[str]:
        labels = []
        for i in lanes:
            lam = wavelengths[i] if wavelengths is not None and i < len(wavelengths) else float("nan")
            text = f"i = {i} · λ {num(lam, 3)}" if i else "i = 0 · λ 2π"
            labels.append("▶ " + text if i == pair else text)
        return labels

    def _set_ticks(self, labels: list[str]) -> None:
        self.lane_labels = labels
        ticks = [(-self.LANE * j, text) for j, text in enumerate(labels)]
        self.plot.getPlotItem().getAxis("left").setTicks([ticks, []])

    def show_curves(self, r: CurvesResponse) -> None:
        # Min/max strokes fill a band: antialiasing them costs much and shows nothing.
        aa = self.aa(r.waves_bin > 1)
        if aa != self._styled[2] and self._styled[0] is not None:
            self._style_lanes(self._styled[0], self._styled[1], aa)
        for j, i in enumerate(self.lanes):
            if i in r.waves:
                x, y = r.waves[i]
                set_lane(self.curves[j], x, y - np.float32(self.LANE * j), r.waves_bin > 1, self.fast, aa)
        st = self.state
        lam = r.wavelengths
        last = lam.size - 1
        text = (f"λ<sub>i</sub> = 2π/ω<sub>i</sub> grows geometrically with i: each pair is {ratio_text(st)} "
                f"times slower than the one before. <b>Low index = high frequency</b>: pair 0 repeats every "
                f"2π ≈ 6.28 positions, pair {last} only every {num(lam[-1], 4)}.")
        if r.waves_bin > 1:
            text += f" (Each vertical stroke spans {r.waves_bin:,} positions, drawn from min to max.)"
        self.readout.setText(text)

    def show_pick(self, r: PickResponse) -> None:
        st = self.state
        if r.request.d_model != st.d_model or r.request.variant != st.variant:
            return
        pts = []
        for j, i in enumerate(self.lanes):
            sc, _ = pair_cols(st, i)
            y = float(r.pe_p[sc]) - self.LANE * j
            pts.append({"pos": (r.request.position, y), "brush": steady_brush(pair_colour(j))})
        self.markers.setData(pts)

    def _on_clicked(self, ev) -> None:
        xy = click_in(self.vb, ev)
        if xy is not None and not ev.double():
            p = int(round(xy[0]))
            self.picked.emit({"position": min(max(p, 0), self.state.n_positions - 1)})


class SpectrumView(Card):
    """Wavelength per pair on a log axis, between the bounds 2π and 2π·base, with N and L_train marked."""

    #: Above this many pairs the curve is drawn without a symbol per pair: at d = 1024 the 512 symbols
    #: cost ~7 ms a repaint and touch each other anyway (the chosen pairs keep their large markers).
    SYMBOLS_MAX = 128

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.state = WavesState()
        self.plot = waves_plot()
        self.plot.setObjectName("wavesSpectrum")
        style_plot(self.plot, "Spectrum: wavelength of each pair", "pair i", "λᵢ (positions, log)")
        self.plot.setLogMode(y=True)
        use_si_log_ticks(self.plot.getPlotItem())
        # As wide as the widest λ label from the start (2π·base reaches 6.3·10⁷): a drag that first shows "100k"
        # does not lay the plot out again.
        self.plot.getPlotItem().getAxis("left").reserve_tick_text("100M", "500k")
        self.vb = self.plot.getViewBox()
        self.body.addWidget(self.plot)
        self.beyond_n = pg.LinearRegionItem(orientation="horizontal", movable=False,
                                            brush=(200, 200, 200, 70), pen=pg.mkPen(None))
        self.plot.addItem(self.beyond_n)
        # A curve and markers of their own (not PlotDataItems with symbols): each drag step moves all of them.
        self.curve = LeanCurve(pen=pg.mkPen("#555", width=1.5))
        self.dots = Markers(size=4, brush=steady_brush("#555"), pen=steady_pen(None))
        self.lane_points = Markers(size=11, pen=steady_pen((200, 200, 200)))
        self.pick_point = Markers(size=20, brush=steady_brush(None), pen=pg.mkPen("k", width=2.5))
        for item in (self.curve, self.dots, self.lane_points, self.pick_point):
            self.plot.addItem(item)
        opts = {"position": 0.03, "color": "k", "fill": (255, 255, 255, 200), "anchors": [(0, 1), (0, 1)]}
        # The bounds in neutral ink (dash styles and labels tell them apart): the pairs' markers own the colours.
        # Label placement: the curve rises from 2π at the left, so the lower bound's label sits right of the
        # middle (at the left it hid the first pairs' markers); N's label above its line and L_train's below
        # theirs, so the two never meet when N and L_train are close (the L_train line struck "N = 256").
        self.low = pg.InfiniteLine(angle=0, pen=pg.mkPen("#444444", width=2, style=Qt.PenStyle.DashLine),
                                   label="2π: lower bound (pair 0, fastest)", labelOpts={**opts, "position": 0.55})
        self.high = pg.InfiniteLine(angle=0, pen=pg.mkPen("#444444", width=2, style=Qt.PenStyle.DashDotLine),
                                    label="2π·base: upper bound",
                                    labelOpts={**opts, "anchors": [(0, 0), (0, 0)]})
        self.n_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("k", width=2), label="N − 1",
                                      labelOpts={**opts, "position": 0.6})
        dotted = pg.mkPen("#e66100", width=1.5, style=Qt.PenStyle.DotLine)
        self.train_line = pg.InfiniteLine(angle=0, pen=dotted,
                                          label="L_train", labelOpts={**opts, "position": 0.45,
                                                                       "anchors": [(0, 0), (0, 0)]})
        for item in (self.low, self.high, self.n_line, self.train_line):
            self.plot.addItem(item)
        self.plot.scene().sigMouseClicked.connect(self._on_clicked)
        # On a short plot (a 720p projector) two labels can meet: the less telling one gives way.
        self._declutter_timer = QTimer(self)
        self._declutter_timer.setSingleShot(True)
        self._declutter_timer.setInterval(0)
        self._declutter_timer.timeout.connect(self._declutter)
        self.vb.sigResized.connect(self._schedule_declutter)
        self.vb.sigResized.connect(self._on_resized)
        self.vb.sigRangeChanged.connect(self._schedule_declutter)
        # A zoom or pan by hand lasts until the next result, which sets the range again (as it always did).
        self.vb.sigRangeChangedManually.connect(self._on_range_by_hand)

    def _schedule_declutter(self, *_args) -> None:
        self._declutter_timer.start()

    def _on_resized(self, *_args) -> None:
        if "range" in self._shown:  # the range the result set (one zoomed by hand is left as it is)
            self._fit_range()

    def _fit_range(self) -> None:
        """Every pair, 2π·base's line and the top: pair 0 sits on the plot's left edge and on the lower bound, so the
        range leaves room for its largest marker, the picked pair's ring, at the plot's size (a 1280 × 720
        projector's presenter mode cut it in half)."""
        size, lo, top = self._shown["range"]
        range_with_room(self.vb, marker_room(self.pick_point), (0, size - 1), (math.log10(lo), top),
                        least=(0.5, 0.25), below_only=True)

    def _on_range_by_hand(self, *_args) -> None:
        self.forget("range")

    def _declutter(self) -> None:
        declutter([line.label for line in (self.train_line, self.n_line, self.high, self.low)])

    def show_state(self, st: WavesState) -> None:
        self.state = st

    def show_curves(self, r: CurvesResponse, st: WavesState) -> None:
        lanes = tuple(sorted(set(st.pairs) | {st.pair}))
        # The request names the data exactly (equal requests, equal arrays).
        if not self.layout_changed(r.request, lanes, st.pair, st.n_positions, st.l_train, self.fast):
            return
        lam = r.wavelengths
        i = np.arange(lam.size, dtype=float)
        # The plot's y axis is in log mode: these items are given log10(λ) (a PlotDataItem took the log itself).
        y = np.log10(lam)
        aa = self.aa()
        self.curve.setData(i, y, antialias=aa, skipFiniteCheck=True)
        dots = lam.size <= self.SYMBOLS_MAX
        self.dots.setVisible(dots)
        if dots:
            self.dots.setData(i, y, antialias=aa)
        marked = [j for j in lanes if j < lam.size]
        brushes = [steady_brush(pair_colour(j)) for j in range(len(marked))]  # steady: each symbol drawn once
        self.lane_points.setData(np.array(marked, float), y[marked], brush=brushes, antialias=aa)
        if st.pair < lam.size:
            self.pick_point.setData([float(st.pair)], [y[st.pair]], antialias=aa)
        lo, hi = r.bounds
        n, lt = st.n_positions, st.l_train
        # The top in quarter decades (0.35 to 0.6 above the highest line): a base drag moves 2π·base's line,
        # and the range, its axis and the labels on the lines follow only when it crosses a quarter.
        top = math.ceil((math.log10(max(hi, n, lt)) + 0.35) * 4) / 4
        shown = self._shown.get("range")
        if self.fast and shown is not None and shown[:2] == (lam.size, lo):
            # While a slider is held the top is kept while the lines stay under it and within 2¼ decades of it,
            # and grows by most of a decade when they pass it: its axis, its grid and the lines' labels are laid
            # out again then, not at every quarter decade they cross.  Let go, the top fits again.
            top = shown[2] if top <= shown[2] <= top + 2.25 else top + (0.75 if top > shown[2] else 0.0)
        self.low.setPos(math.log10(lo))
        self.high.setPos(math.log10(hi))
        # The line a pair's λ must stay under to complete a cycle: positions 0 … N−1 span N − 1 steps.
        self.n_line.setPos(math.log10(max(n - 1, 1)))
        self.train_line.setPos(math.log10(max(lt, 1)))
        if self.changed("line labels", n, lt):
            self.n_line.label.setFormat(f"N−1 = {n - 1:,}")
            self.train_line.label.setFormat(f"L_train = {lt:,}")
        self.beyond_n.setRegion((math.log10(max(n - 1, 1)), top))
        if self.changed("range", lam.size, lo, top):
            self._fit_range()
        self.plot.prepare_paint()  # a new range, and the lines' labels with it, now: not at the paint (a second one)
        last = lam.size - 1
        end = "= 2π·base exactly (t2t spacing)" if st.variant == "t2t" else "&lt; 2π·base"
        slow = r.slow_pairs
        text = (f"λ<sub>i</sub> runs from 2π ≈ 6.28 (pair 0, <b>fastest</b>) up to λ<sub>{last}</sub> = "
                f"{num(lam[-1], 4)} {end} = {num(hi, 4)}. ")
        if slow:
            text += (f"<b>{slow} of {lam.size}</b> pairs (i ≥ {lam.size - slow}) have λ &gt; N − 1 = {n - 1:,}: "
                     f"they never complete one cycle inside positions 0 … {n - 1:,}.")
        else:
            text += f"Every pair completes at least one cycle within positions 0 … {n - 1:,}."
        text += " Click a pair to pick it; Ctrl+click adds or removes it from the waves."
        self.readout.setText(text)

    def _on_clicked(self, ev) -> None:
        xy = click_in(self.vb, ev)
        if xy is None or ev.double():
            return
        i = int(round(xy[0]))
        i = min(max(i, 0), self.state.d_model // 2 - 1)
        mods = ev.modifiers()
        if mods & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier):
            self.picked.emit({"toggle_pair": i})
        else:
            self.picked.emit({"pair": i})


class VectorView(Card):
    """Bars of PE(p) across the columns, PE(p+k) overlaid on demand."""

    overlayToggled = Signal(bool)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.state = WavesState()
        self._range_d = -1
        self.overlay_box = QCheckBox("overlay PE(p+k)", self)
        self.overlay_box.setObjectName("overlayCheck")
        self.header.addStretch(1)
        self.header.addWidget(self.overlay_box)
        self.plot = waves_plot()
        self.plot.setObjectName("wavesVector")
        style_plot(self.plot, "Position vector PE(p)", "column", "value")
        self.vb = self.plot.getViewBox()
        self.vb.setMouseEnabled(x=True, y=False)
        self.body.addWidget(self.plot)
        self.pair_band = [pg.LinearRegionItem(movable=False, brush=(255, 215, 0, 90), pen=pg.mkPen(None))
                          for _ in range(2)]
        for band in self.pair_band:
            self.plot.addItem(band)
        self.bars = pg.PlotDataItem(stepMode="center", fillLevel=0, brush=(31, 78, 156, 150),
                                    pen=pg.mkPen(P_COLOUR, width=1))
        self.overlay = pg.PlotDataItem(stepMode="center", pen=pg.mkPen(PK_COLOUR, width=2))
        self.plot.addItem(self.bars)
        self.plot.addItem(self.overlay)
        # The key sits in the header, beside the check box: at 720p the plot is ~70 px tall and a legend inside
        # it covered the bars and was cut ("PE(p+k)"); ticks at −1, 0, 1 only (five labels ran together).
        self.key = QLabel(self)
        self.key.setObjectName("vectorKey")
        self.header.insertWidget(0, self.key)
        self.plot.getPlotItem().getAxis("left").setTicks([[(v, f"{v:g}") for v in (-1, 0, 1)], []])
        theme_bus().themeChanged.connect(self._on_theme_changed)
        self._on_theme_changed(current_theme())
        self.overlay_box.toggled.connect(self.overlayToggled)
        self.plot.scene().sigMouseClicked.connect(self._on_clicked)

    def _on_theme_changed(self, theme) -> None:
        """The key's swatches in the colours the theme draws the bars and the overlay in."""
        def hexc(c: str) -> str:
            return mapped_colour(c, theme).name()

        self.key.setText(f'<span style="color:{hexc(P_COLOUR)}">■</span> PE(p) &nbsp; '
                         f'<span style="color:{hexc(PK_COLOUR)}">━</span> PE(p+k)')

    def show_state(self, st: WavesState) -> None:
        first = st.d_model != self._range_d
        self._range_d = st.d_model
        self.state = st
        self.overlay_box.setChecked(st.overlay)
        self.overlay.setVisible(st.overlay)
        for band, c in zip(self.pair_band, pair_cols(st, st.pair), strict=True):
            band.setRegion((c - 0.5, c + 0.5))
        if first:
            self.vb.setLimits(xMin=-0.5, xMax=st.d_model - 0.5)
            self.vb.setRange(xRange=(-0.5, st.d_model - 0.5), yRange=(-1.12, 1.12), padding=0)

    def show_pick(self, r: PickResponse) -> None:
        d = r.pe_p.size
        edges = np.arange(d + 1, dtype=float) - 0.5
        self.bars.setData(edges, r.pe_p, antialias=self.aa())
        self.overlay.setData(edges, r.pe_pk, antialias=self.aa())
        p, k = r.request.position, r.request.offset
        also = f" and PE({p + k:,})" if self.state.overlay else ""
        set_title(self.plot, f"Position vector PE({p:,}){also}")
        layout = ("columns alternate sin, cos (pair i in columns 2i, 2i+1)" if r.request.variant == "paper"
                  else f"sin in columns 0–{d // 2 - 1}, cos in columns {d // 2}–{d - 1}")
        self.readout.setText(
            f"‖PE(p)‖ = √(d/2) = {math.sqrt(d / 2):.4f} for every p (each pair adds sin² + cos² = 1); "
            f"PE(p)·PE(p+k) = <b>{r.dot:.4f}</b> = Σ<sub>i</sub> cos(k·ω<sub>i</sub>) = {r.dot_formula:.4f}. "
            f"Layout: {layout}. Highlighted: pair {r.request.pair}. Click a bar to pick its pair.")

    def _on_clicked(self, ev) -> None:
        xy = click_in(self.vb, ev)
        if xy is None or ev.double():
            return
        c = min(max(int(round(xy[0])), 0), self.state.d_model - 1)
        pair = c // 2 if self.state.variant == "paper" else c % (self.state.d_model // 2)
        self.picked.emit({"pair": pair})
