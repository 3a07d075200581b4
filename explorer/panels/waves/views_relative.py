"""What PE does between positions: rotation, similarity, beyond training, same token.  Render only."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontMetricsF

from ...jobs.waves import CurvesResponse, MatrixResponse, PickResponse
from ...state import WavesState
from ...theme import TICK_PT as THEME_TICK_PT
from ...widgets.plots import Heatmap
from ...widgets.readable import ReadableSplitter
from ...widgets.symbols import marker_room, range_with_room
from .common import (
    P_COLOUR,
    PK_COLOUR,
    TRAIN_BRUSH,
    Card,
    click_in,
    grow_curves,
    lane_pen,
    num,
    pair_colour,
    sci,
    set_lane,
    set_title,
    style_plot,
    waves_plot,
)


def _circle_xy(a0: float, a1: float, r: float, n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    t = np.linspace(a0, a1, n)
    return r * np.cos(t), r * np.sin(t)


class RotationView(Card):
    """The picked pair's 2-vector at p and p+k on the unit circle, and the rotation R(k) between them."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plot = waves_plot()
        self.plot.setObjectName("wavesRotation")
        style_plot(self.plot, "Relative position is a rotation", "cos(p·ωᵢ)", "sin(p·ωᵢ)")
        self.plot.setAspectLocked(True)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setRange(xRange=(-1.4, 1.4), yRange=(-1.4, 1.4), padding=0)
        self.body.addWidget(self.plot)
        cx, cy = _circle_xy(0, 2 * math.pi, 1.0, 241)
        self.plot.addItem(pg.PlotCurveItem(cx, cy, pen=pg.mkPen("#888", width=1.5)))
        for angle in (0, 90):
            self.plot.addItem(pg.InfiniteLine(pos=0, angle=angle, pen=pg.mkPen("#ccc", width=1)))
        self.vec_p = pg.PlotCurveItem(pen=pg.mkPen(P_COLOUR, width=4))
        self.vec_pk = pg.PlotCurveItem(pen=pg.mkPen(PK_COLOUR, width=4))
        self.arc = pg.PlotCurveItem(pen=pg.mkPen("k", width=2))
        self.arrow = pg.ArrowItem(headLen=14, tipAngle=35, brush="k", pen=None)
        self.tips = pg.ScatterPlotItem(size=14, pen=None)
        self.label_p = pg.TextItem("PE(p)", color=P_COLOUR, anchor=(0.5, 0.5))
        self.label_pk = pg.TextItem("PE(p+k)", color=PK_COLOUR, anchor=(0.5, 0.5))
        self.label_arc = pg.TextItem("k·ωᵢ", color="k", anchor=(0.5, 0.5))
        for t in (self.label_p, self.label_pk, self.label_arc):  # before they are added: the plot scales it
            f = t.textItem.font()
            f.setPointSize(12)
            f.setBold(True)
            t.setFont(f)
        for item in (self.vec_p, self.vec_pk, self.arc, self.arrow, self.tips, self.label_p, self.label_pk,
                     self.label_arc):
            self.plot.addItem(item)

    def show_pick(self, r: PickResponse) -> None:
        req, rot = r.request, r.rotation
        (sp, cp), (spk, cpk) = r.pair_p, r.pair_pk
        self.vec_p.setData([0, cp], [0, sp], antialias=self.aa())
        self.vec_pk.setData([0, cpk], [0, spk], antialias=self.aa())
        self.tips.setData([cp, cpk], [sp, spk], brush=[P_COLOUR, PK_COLOUR])
        self.label_p.setPos(1.2 * cp, 1.2 * sp)
        self.label_pk.setPos(1.2 * cpk, 1.2 * spk)
        a0 = math.atan2(sp, cp)
        turn = rot["angle_mod"]
        radius = 0.38
        ax, ay = _circle_xy(a0, a0 + turn, radius)
        self.arc.setData(ax, ay, antialias=self.aa())
        end = a0 + turn
        self.arrow.setVisible(abs(turn) > 0.05)
        self.arrow.setPos(radius * math.cos(end), radius * math.sin(end))
        # ArrowItem points left at angle 0 and turns clockwise on screen; the tangent at the arc's end
        # points along the direction of travel.
        tangent = math.degrees(end + math.copysign(math.pi / 2, turn if turn else 1.0))
        self.arrow.setStyle(angle=180 - tangent)
        mid = a0 + turn / 2
        self.label_arc.setPos(0.62 * math.cos(mid), 0.62 * math.sin(mid))
        self.label_arc.setText(f"k·ω{_sub(req.pair)}")
        i, k = req.pair, req.offset
        R = rot["R"]
        set_title(self.plot, f"Rotation by k·ω: pair {i}, p = {req.position:,}, k = {k:,}")
        self.readout.setText(
            f"Pair i = {i}: ω<sub>{i}</sub> = {num(rot['omega'], 5)}, "
            f"λ<sub>{i}</sub> = {num(rot['wavelength'], 5)} "
            f"positions. Angle from PE(p) to PE(p+k): k·ω<sub>{i}</sub> = {k:,} × {num(rot['omega'], 5)} = "
            f"{num(rot['angle'], 5)} rad ≡ <b>{turn:+.4f} rad ({math.degrees(turn):+.1f}°)</b> mod 2π.<br>"
            f"R(k) = [[cos kω, sin kω], [−sin kω, cos kω]] = [[{R[0, 0]:+.4f}, {R[0, 1]:+.4f}], "
            f"[{R[1, 0]:+.4f}, {R[1, 1]:+.4f}]] acting on [sin, cos]: built from k and ω<sub>{i}</sub> only, "
            f"<b>no p in it</b>.<br>" + _check_text(rot, req.n_positions))


def _check_text(rot: dict, n: int) -> str:
    """The p-independence check over every position (computed when a drag ends, not per drag step)."""
    if rot.get("error") is None:
        return f"(The check over all {n:,} positions runs when you let go.)"
    return (f"max over p = 0…{n - 1:,} of |R(k)·PE(p) − PE(p+k)| = <b>{sci(rot['error'])}</b>; "
            f"the angle measured from PE(p) to PE(p+k) at all {n:,} positions differs from k·ω by "
            f"at most {sci(rot['angle_spread'])} rad: <b>the same rotation for every p</b>. "
            f"Exact in real numbers; float64 rounds the angle p·ω, so the error grows like "
            f"(N−1+|k|)·ω·ε ≈ {sci(rot['rounding'])} (near 10⁻¹⁶ only for pair 0).")


def _sub(i: int) -> str:
    return "".join("₀₁₂₃₄₅₆₇₈₉"[int(c)] for c in str(i))


class SimilarityView(Card):
    """PE(p)·PE(p+Δ) against Δ: the formula's curve and direct dot products from the picked p."""

    rangeEdited = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.state = WavesState()
        self.plot = waves_plot()
        self.plot.setObjectName("wavesSimilarity")
        style_plot(self.plot, "Similarity against the offset Δ = q − p", "offset Δ = q − p", "PE(p)·PE(q)")
        self.vb = self.plot.getViewBox()
        self.vb.setMouseEnabled(x=True, y=False)
        self.body.addWidget(self.plot)
        self.curve = pg.PlotDataItem(pen=pg.mkPen("#333", width=1.5))
        self.curve.setClipToView(True)
        self.curve.setDownsampling(auto=True, method="peak")
        self.dots = pg.ScatterPlotItem(size=7, brush=P_COLOUR, pen=None)
        self.k_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(PK_COLOUR, width=2, style=Qt.PenStyle.DashLine))
        for item in (self.curve, self.dots, self.k_line):
            self.plot.addItem(item)
        # One row, bottom left, in a band below the curve (set_full_range): at 720p a two-row legend at the top
        # right covered half the curve, and Δ = 0's peak.
        self.plot.addLegend(offset=(6, -4), brush=(255, 255, 255, 215), colCount=2)
        self.plot.getPlotItem().legend.addItem(self.curve, "Σᵢ cos(Δ·ωᵢ)")
        self.plot.getPlotItem().legend.addItem(self.dots, "PE(p)·PE(q)")  # the formula's curve vs the direct dots
        self.plot.scene().sigMouseClicked.connect(self._on_clicked)
        self.vb.sigRangeChangedManually.connect(lambda *_: self.rangeEdited.emit())
        self._curve_text = self._pick_text = ""

    def set_full_range(self, n: int, d: int) -> None:
        span = max(n - 1, 1)
        self.vb.setLimits(xMin=-span, xMax=span, minXRange=min(2 * span, 8))
        self.vb.setRange(xRange=(-span, span), yRange=(-0.8 * d / 2 - 1, d / 2 * 1.08 + 1), padding=0)

    def visible(self) -> tuple[int, int]:
        (x0, x1), _ = self.vb.viewRange()
        n = self.state.n_positions
        lo = max(-(n - 1), math.floor(x0))
        return lo, min(n - 1, max(lo, math.ceil(x1)))

    def pixels(self) -> int:
        return max(64, int(self.vb.size().width() * self.plot.devicePixelRatioF()) // 16 * 16)

    def show_state(self, st: WavesState) -> None:
        self.state = st
        self.k_line.setPos(st.offset)

    def show_curves(self, r: CurvesResponse) -> None:
        # Min/max strokes fill a band: antialiasing them costs much and shows nothing.
        self.curve.setData(r.sim_x, r.sim_y, antialias=self.aa(r.sim_bin > 1))
        d = r.request.d_model
        self._curve_text = (f"f(Δ) = Σ<sub>i</sub> cos(Δ·ω<sub>i</sub>): even in Δ (f(−Δ) = f(Δ): "
                            f"symmetric) and largest at Δ = 0, where it is d/2 = {d // 2}.")
        if r.sim_bin > 1:
            self._curve_text += f" (Each stroke spans {r.sim_bin:,} offsets, min to max.)"
        self._update_text()

    def show_pick(self, r: PickResponse) -> None:
        p = r.request.position
        self.dots.setData((r.marker_q - p).astype(float), r.marker_dot)
        if not r.marker_q.size:  # a drag step's, sent while this view was hidden: the next one has them
            self._pick_text = ""
            self._update_text()
            return
        q0, q1 = int(r.marker_q[0]), int(r.marker_q[-1])
        self._pick_text = (f"Dots: PE(p)·PE(q) computed directly from the table rows for p = {p:,}, "
                           f"q = {q0:,}…{q1:,}: they lie on the curve (max deviation "
                           f"{sci(r.marker_error)}), whatever p is. At Δ = k = {r.request.offset:,}: "
                           f"<b>{r.dot:.4f}</b>. Click to pick k.")
        self._update_text()

    def _update_text(self) -> None:
        self.readout.setText(self._curve_text + "<br>" + self._pick_text)

    def _on_clicked(self, ev) -> None:
        xy = click_in(self.vb, ev)
        if xy is not None and not ev.double():
            n = self.state.n_positions
            self.picked.emit({"offset": min(max(int(round(xy[0])), -(n - 1)), n - 1)})


class MatrixView(Card):
    """The N×N matrix PE(p)·PE(q), computed directly, for positions 0 … size-1."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.state = WavesState()
        self.response: MatrixResponse | None = None
        self.plot = Heatmap("", x="q", y="p", levels=(-64, 64))
        self.plot.setObjectName("wavesMatrix")
        style_plot(self.plot, "PE(p)·PE(q) for every pair of positions", "position q", "position p")
        self.plot.setAspectLocked(True)
        self.vb = self.plot.getViewBox()
        self.body.addWidget(self.plot)
        self.mark = pg.ScatterPlotItem(size=16, brush=None, pen=pg.mkPen(PK_COLOUR, width=3))
        self.plot.addItem(self.mark)
        self.plot.scene().sigMouseClicked.connect(self._on_clicked)
        self._full: list | None = None  # the range the result set (refitted on a resize unless moved since)
        self.vb.sigResized.connect(self._on_resized)

    def show_state(self, st: WavesState) -> None:
        self.state = st
        size = self.response.size if self.response is not None else st.n_positions
        p, q = st.position, st.position + st.offset
        inside = 0 <= p < size and 0 <= q < size
        if not self.layout_changed(size, p, q):
            return
        self.mark.setData([q + 0.5] if inside else [], [p + 0.5] if inside else [])

    def show_result(self, r: MatrixResponse) -> None:
        self.response = r
        s, half = r.size, r.peak
        self.plot.set_matrix(r.matrix, rect=(0, 0, s, s), levels=(-half, half))
        self._fit()
        n = r.request.n_positions
        text = (f"M[p, q] = PE(p)·PE(q) computed directly from the table rows. "
                f"Symmetric: max |M − Mᵀ| = <b>{sci(r.asymmetry)}</b>. Depends only on q − p: max "
                f"|M[p, q] − M[0, q − p]| = <b>{sci(r.toeplitz_spread)}</b> (constant along every diagonal); "
                f"max |M − Σ cos((q − p)ω<sub>i</sub>)| = {sci(r.formula_error)}.")
        if s < n:
            text += (f"<br><b>Showing positions 0–{s - 1:,} of N = {n:,}</b>: the full matrix "
                     f"({num(float(n) * n, 3)} numbers) is off to stay live; since M depends only on q − p, "
                     f"this block already shows every offset up to ±{s - 1:,}.")
        else:
            text += f" All N = {n:,} positions shown."
        self.readout.setText(text)
        self.show_state(self.state)

    def _fit(self) -> None:
        """The whole matrix, with room for the ring on a cell at its edge.  No limits: with the aspect locked they
        would fight the range and crop the square."""
        s = self.response.size if self.response is not None else 1
        self._full = range_with_room(self.vb, marker_room(self.mark), (0, s), (0, s), limits=False)

    def _on_resized(self, *_args) -> None:
        if self._full is not None and self.vb.targetRange() == self._full:
            self._fit()

    def _on_clicked(self, ev) -> None:
        xy = click_in(self.vb, ev)
        if xy is None or ev.double() or self.response is None:
            return
        q, p = int(math.floor(xy[0])), int(math.floor(xy[1]))
        s = self.response.size
        if 0 <= p < s and 0 <= q < s:
            self.picked.emit({"position": p, "offset": q - p})


class BeyondView(Card):
    """The chosen waves over the whole sequence with the positions past L_train shaded."""

    LANE = 2.6

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.state = WavesState()
        self.lanes: tuple[int, ...] = ()
        self.plot = waves_plot()
        self.plot.setObjectName("wavesBeyond")
        style_plot(self.plot, "Beyond training: positions past L_train", "position p", "")
        self.plot.setMouseEnabled(x=False, y=False)
        self.vb = self.plot.getViewBox()
        self.body.addWidget(self.plot)
        self.region = pg.LinearRegionItem(movable=False, brush=TRAIN_BRUSH, pen=pg.mkPen(None))
        self.plot.addItem(self.region)
        self.l_line = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen(PK_COLOUR, width=3),
                                      hoverPen=pg.mkPen(PK_COLOUR, width=5), label="L_train",
                                      # Hung from the top, left of the line, in the band over the lanes (the note
                                      # is right of it); centred at 0.96 it stuck out of the view in presenter mode.
                                      labelOpts={"position": 1.0, "color": PK_COLOUR, "anchors": [(1, 0), (1, 0)],
                                                 "fill": (255, 255, 255, 220)})
        self.l_line.setZValue(20)
        self.plot.addItem(self.l_line)
        self.p_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(P_COLOUR, width=1.5))
        self.plot.addItem(self.p_line)
        self.note = pg.TextItem("", color="#8a3b00", anchor=(0, 0))
        f = self.note.textItem.font()
        f.setPointSize(11)
        self.note.setFont(f)
        self.plot.addItem(self.note)
        self.curves: list[pg.PlotCurveItem] = []
        self.plot.getPlotItem().getAxis("left").setWidth(60)
        self.l_line.sigPositionChanged.connect(self._on_line_moved)
        self.vb.sigResized.connect(self._fit_band)
        self.plot.scene().sigMouseClicked.connect(self._on_clicked)
        self.dragging = False
        self.l_line.sigPositionChangeFinished.connect(lambda *_: setattr(self, "dragging", False))

    def pixels(self) -> int:
        return max(64, int(self.vb.size().width() * self.plot.devicePixelRatioF()) // 16 * 16)

    def _band_top(self, bottom: float) -> float:
        """The view's top: a band over the lanes one text line tall (and a little) at the plot's height now, for
        the L_train label and the note, side by side (a fixed 1.2 lanes' units was 16 px at 720p, under the text's
        22)."""
        top = 1.3  # the first lane's wave reaches 1
        text = max(item.textItem.boundingRect().height() for item in (self.note, self.l_line.label)) + 6
        height = max(self.vb.height(), 3 * text)
        return top + (top - bottom) * text / (height - text)

    def _fit_band(self) -> None:
        if self.lanes:
            (x0, x1), (bottom, _top) = self.vb.viewRange()
            self.vb.setRange(xRange=(x0, x1), yRange=(bottom, self._band_top(bottom)), padding=0)
            self.note.setPos(self.note.pos().x(), self._band_top(bottom))

    def show_state(self, st: WavesState) -> None:
        self.state = st
        self.p_line.setPos(st.position)
        n = st.n_positions
        lanes = tuple(sorted(set(st.pairs) | {st.pair}))
        self.lanes = lanes
        if not self.layout_changed(lanes, n, st.l_train):
            return
        grow_curves(self.plot, self.curves, len(lanes))
        for j, c in enumerate(self.curves):
            c.setVisible(j < len(lanes))
            if j < len(lanes):
                self.plot.styler.set_pen(c, lane_pen(pair_colour(j), 1.4))
        bottom = -self.LANE * (len(lanes) - 1) - 1.3
        right = max(n - 1, 1)
        self.vb.setRange(xRange=(0, right), yRange=(bottom, self._band_top(bottom)), padding=0)
        self.plot.getPlotItem().getAxis("left").setTicks([[(-self.LANE * j, f"i = {i}") for j, i in
                                                           enumerate(lanes)], []])
        lt = st.l_train
        if not self.l_line.moving:
            blocked = self.l_line.blockSignals(True)
            self.l_line.setPos(min(lt, right))
            self.l_line.blockSignals(blocked)
        self.l_line.setBounds((1, right))
        self.l_line.label.setFormat(f"L_train = {lt:,} (drag)")
        self.region.setRegion((min(lt, right), right))
        self.region.setVisible(lt < n)
        self.note.setPos(min(lt, right), self._band_top(bottom))
        # Short enough for the band right of the line; the readout says what the formula does there.
        self.note.setText("beyond training →" if lt < n else "")

    def show_curves(self, r: CurvesResponse) -> None:
        for j, i in enumerate(self.lanes):
            if i in r.beyond:
                x, y = r.beyond[i]
                set_lane(self.curves[j], x, y - np.float32(self.LANE * j), r.beyond_bin > 1, self.fast,
                         self.aa(r.beyond_bin > 1))
        st = self.state
        n, lt, h = r.request.n_positions, r.request.l_train, r.wavelengths.size
        if lt >= n:
            text = (f"N = {n:,} ≤ L_train = {lt:,}: every position was seen in training. Raise N above "
                    f"L_train (or drag the orange line left) to see extrapolation.")
        else:
            text = (f"Past L_train = {lt:,} the formula keeps producing values for every position up to "
                    f"N − 1 = {n - 1:,}; a learned table has <b>no rows</b> there (see the Schemes panel). ")
            u = r.unseen_pairs
            if u:
                text += (f"<b>{u} of {h}</b> pairs have λ &gt; L_train − 1: past position {lt - 1:,} they reach "
                         f"angles (and sin/cos combinations) the model never saw in training.")
            else:
                text += "Every pair completed a full cycle within L_train, so no angle past it is new."
        if r.beyond_bin > 1:
            text += f" (Each stroke spans {r.beyond_bin:,} positions, min to max.)"
        self.readout.setText(text)
        _ = st

    def _on_line_moved(self) -> None:
        self.dragging = True
        value = int(round(self.l_line.value()))
        if value != self.state.l_train:
            self.picked.emit({"l_train": max(1, value)})

    def _on_clicked(self, ev) -> None:
        xy = click_in(self.vb, ev)
        if xy is not None and not ev.double():
            p = min(max(int(round(xy[0])), 0), self.state.n_positions - 1)
            self.picked.emit({"position": p})


class TokenView(Card):
    """One token vector x at two positions: x + PE(p1) and x + PE(p2), their cosine and the norms."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plots = []
        self.x_items, self.v_items, self.bands = [], [], []
        # Side by side in a splitter that gives each plot a readable size where the row allows it (the norms'
        # names need their room: beside the docked Lesson pane a fixed 3 : 3 : 2 left the bars 100 px).
        self.row = ReadableSplitter(Qt.Orientation.Horizontal)
        self.row.setObjectName("wavesTokenSplit")
        self.row.setChildrenCollapsible(False)
        self.body.addWidget(self.row)
        for colour in (P_COLOUR, PK_COLOUR):
            w = waves_plot()
            style_plot(w, "", "column", "value")
            w.setMouseEnabled(x=False, y=False)
            band = pg.LinearRegionItem(values=(-1, 1), orientation="horizontal", movable=False,
                                       brush=(26, 152, 80, 45), pen=pg.mkPen(None))
            xi = pg.PlotDataItem(stepMode="center", fillLevel=0, brush=(150, 150, 150, 110),
                                 pen=pg.mkPen("#999", width=1))
            vi = pg.PlotDataItem(stepMode="center", pen=pg.mkPen(colour, width=2))
            for item in (band, xi, vi):
                w.addItem(item)
            w.setMinimumWidth(170)  # a readable size, never a stamp
            self.row.addWidget(w)
            self.plots.append(w)
            self.x_items.append(xi)
            self.v_items.append(vi)
            self.bands.append(band)
        self.plots[0].setObjectName("wavesTokenP1")
        self.plots[1].setObjectName("wavesTokenP2")
        self.plots[1].setYLink(self.plots[0])
        leg = self.plots[0].addLegend(offset=(10, 10), brush=(255, 255, 255, 215))
        leg.addItem(self.x_items[0], "token x")
        # A legend sample for the band (a LinearRegionItem has no sample of its own).
        self._band_sample = pg.PlotDataItem(pen=None, symbol="s", symbolSize=12,
                                            symbolBrush=(26, 152, 80, 90), symbolPen=None)
        leg.addItem(self._band_sample, "PE's range ±1")  # short: under a narrow plot it was cut
        self.norms = waves_plot()
        self.norms.setObjectName("wavesTokenNorms")
        self.norms.setMinimumWidth(180)  # four bars with their names: never a stamp
        style_plot(self.norms, "Norms", "", "")
        self.norms.setMouseEnabled(x=False, y=False)
        # Horizontal bars, so the four names fit as ticks on the left axis.
        self.norm_bars = pg.BarGraphItem(x0=0, y=[3, 2, 1, 0], width=[0, 0, 0, 0], height=0.7,
                                         brushes=["#999", "#1a9850", P_COLOUR, PK_COLOUR])
        self.norms.addItem(self.norm_bars)
        # Short names (PE₁ is PE(p1), in p1's colour; ‖PE(p)‖ is the same for every p): beside the docked Lesson
        # pane or the explain pane the three plots share some 600 px.
        names = ["‖x‖", "‖PE‖", "‖x+PE₁‖", "‖x+PE₂‖"]
        axis = self.norms.getPlotItem().getAxis("left")
        axis.setTicks([[(3 - k, name) for k, name in enumerate(names)], []])
        # Room for the longest name at the normal tick size (the axis grows it with the text): left to the axis,
        # the width it had reserved before the bars were named dropped three of the four names at 1280 × 720.
        tick = QFont()
        tick.setPointSizeF(THEME_TICK_PT)
        axis.setWidth(int(math.ceil(max(QFontMetricsF(tick).horizontalAdvance(n) for n in names))) + 12)
        self.row.addWidget(self.norms)
        self.row.setSizes([300, 300, 200])

    def show_pick(self, r: PickResponse) -> None:
        t, req = r.token, r.request
        d = t["x"].size
        edges = np.arange(d + 1, dtype=float) - 0.5
        rows = zip(self.plots, self.x_items, self.v_items, (t["v1"], t["v2"]), (req.p1, req.p2), strict=True)
        for w, xi, vi, v, p in rows:
            xi.setData(edges, t["x"], antialias=self.aa())
            vi.setData(edges, v, antialias=self.aa())
            set_title(w, f"x + PE({p:,})")
            w.getViewBox().setLimits(xMin=-0.5, xMax=d - 0.5)
            w.setXRange(-0.5, d - 0.5, padding=0)
        top = max(1.25, 1.08 * max(float(np.max(np.abs(t["v1"]))), float(np.max(np.abs(t["v2"])))))
        self.plots[0].setYRange(-top, top, padding=0)
        heights = [t["norm_x"], t["norm_pe"], t["norm_v1"], t["norm_v2"]]
        self.norm_bars.setOpts(width=heights)
        self.norms.setRange(yRange=(-0.6, 3.6), xRange=(0, max(heights) * 1.12 + 1e-9), padding=0)
        alpha = req.token_scale
        if t["cos_tokens"] > 0.95:
            lesson = "the token dominates: the two positions look almost alike."
        elif abs(t["cos_tokens"] - t["cos_pe"]) < 0.05:
            lesson = "position dominates: the similarity is almost that of the two PE vectors."
        else:
            lesson = "token and position both matter."
        self.readout.setText(
            f"cos(x + PE({req.p1:,}), x + PE({req.p2:,})) = <b>{t['cos_tokens']:.4f}</b>, against "
            f"cos(PE({req.p1:,}), PE({req.p2:,})) = {t['cos_pe']:.4f} for the encodings alone: {lesson}<br>"
            f"x = α·z with z ~ N(0, 1)<sup>d</sup>, α = {num(alpha, 3)}: ‖x‖ = <b>{t['norm_x']:.3f}</b> "
            f"(≈ α√d = {alpha * math.sqrt(d):.3f}), largest |x<sub>j</sub>| = {t['max_abs_x']:.3f}; "
            f"‖PE(p)‖ = √(d/2) = <b>{t['norm_pe_exact']:.3f}</b> for every p, each entry in [−1, 1]. "
            f"(The original Transformer multiplies embeddings by √d before adding PE.)")
