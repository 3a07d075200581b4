"""Schemes panel, view 3: beyond the training length — missing rows, new angles, moved frequencies."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from ...jobs.schemes import METHOD_TITLES, BeyondResponse, ScaledResponse
from ...schemes import learned, rope, scaled_rope
from ...widgets.image import ImageItem
from ...widgets.legend_place import LegendKey
from ...widgets.log_ticks import use_si_log_ticks
from ...widgets.plot_data import set_image
from ...widgets.plots import DIVERGING
from ...widgets.reflow import ReflowGrid
from ...widgets.titles import full_title
from .items import (
    HatchItem,
    beyond_line,
    fit_note,
    label,
    make_plot,
    pen,
    scheme_colour,
    theme_info_label,
)
from .spec_plots import SpecPlot
from .views import SchemesView, info_column

#: The schemes the fixed plots of this view are about (any other scheme brings its own plot).
LEARNED, ROPE, SCALED = learned.SCHEME.id, rope.SCHEME.id, scaled_rope.SCHEME.id

#: "Seen in training" and "new past L_train" in every plot of this view.
SEEN = "#0072B2"
NEW = "#D55E00"


def _span(idx: np.ndarray) -> str:
    """'0–15' for a run of pair indices ('none' when empty)."""
    if idx.size == 0:
        return "none"
    return f"{idx[0]}" if idx.size == 1 else f"{idx[0]}–{idx[-1]}"


class BeyondView(SchemesView):
    """Learned: no row.  RoPE: which pairs turn fully inside L_train.  Scaled RoPE: how s moves θ_k."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        outer = info_column(self, "beyondInfo")
        # As many columns (at most 3) as fit at a readable size (the Learned table's colour bar and axis take
        # 100 px of its cell), larger with presenter's text; rows scroll on a small screen.
        grid = ReflowGrid((230, 160), max_cols=3, grow_with_text=True)
        # What the legends say, above the grid, for the plots too small to hold theirs (at 1280 × 720 a legend
        # under each plot took half its height, one inside covered its bars).
        self.key = LegendKey()
        self.key.setObjectName("beyondKey")
        outer.addWidget(self.key)
        outer.addWidget(grid, 1)

        # Learned table: rows exist for p < L_train only.
        self.table = make_plot("Learned table P[p, :]", x="dimension", y="position p")
        tpi = self.table.getPlotItem()
        tpi.invertY(True)
        self.table_img = ImageItem(axisOrder="row-major")
        tpi.addItem(self.table_img)
        self.table_bar = self.table.add_colour_bar(self.table_img, (-3.0, 3.0), DIVERGING, width=14)
        self.table_hatch = HatchItem()
        tpi.addItem(self.table_hatch, ignoreBounds=True)
        self.table_line = beyond_line(0, 0, "L_train")
        tpi.addItem(self.table_line, ignoreBounds=True)
        self.no_row = label("", size=13, bold=True)
        self.no_row.setObjectName("tableNoRow")
        tpi.addItem(self.no_row, ignoreBounds=True)

        # RoPE: wavelength of each pair against L_train.
        self.waves = make_plot("RoPE: wavelength 2π/θₖ of each pair", x="pair k (0 = fastest)",
                               y="wavelength (positions)")
        wpi = self.waves.getPlotItem()
        wpi.setLogMode(x=False, y=True)
        use_si_log_ticks(wpi)
        dots = {"pen": None, "symbol": "o", "symbolSize": 9, "symbolPen": None}
        self.waves_seen = pg.PlotDataItem(symbolBrush=SEEN, name="full turn inside L_train", **dots)
        self.waves_new = pg.PlotDataItem(symbolBrush=NEW, name="no full turn inside L_train", **dots)
        wpi.addLegend(offset=(10, 10), labelTextSize="10pt")
        wpi.addItem(self.waves_seen)
        wpi.addItem(self.waves_new)
        self.waves_train = beyond_line(0, 0, "L_train")
        dotted = pg.mkPen("#444", width=1.2, style=Qt.PenStyle.DotLine)
        self.waves_eval = pg.InfiniteLine(0, angle=0, pen=dotted, label="L_eval",
                                          labelOpts={"position": 0.3, "color": (40, 40, 40)})
        wpi.addItem(self.waves_train, ignoreBounds=True)
        wpi.addItem(self.waves_eval, ignoreBounds=True)

        # RoPE: share of the circle each pair reaches inside L_train, and the new share up to L_eval.
        self.cover = make_plot("Share of a full turn reached", x="pair k",
                               y="share of 2π reached")
        cpi = self.cover.getPlotItem()
        self.cover_seen = pg.BarGraphItem(x=[0], height=[0], width=0.8, brush=SEEN, pen=None)
        self.cover_new = pg.BarGraphItem(x=[0], height=[0], width=0.8, brush=NEW, pen=None)
        cpi.addItem(self.cover_seen)
        cpi.addItem(self.cover_new)
        cpi.setYRange(0, 1.45, padding=0)  # head-room for the legend above the full bars
        cpi.getAxis("left").setTicks([[(v, f"{v:g}") for v in (0, 0.25, 0.5, 0.75, 1.0)]])
        leg = cpi.addLegend(offset=(-10, 10), labelTextSize="10pt")
        leg.addItem(self.cover_seen, "inside L_train")
        leg.addItem(self.cover_new, "new, L_train … L_eval")

        # Scaled RoPE: wavelengths before and after.
        self.scaled = make_plot("Scaled RoPE: wavelength of each pair, before and after",
                                x="pair k", y="wavelength (positions)")
        spi = self.scaled.getPlotItem()
        spi.setLogMode(x=False, y=True)
        use_si_log_ticks(spi)
        spi.addLegend(offset=(10, 10), labelTextSize="10pt")
        self.before = pg.PlotDataItem(pen=pen(ROPE, 2.0, Qt.PenStyle.DashLine), symbol="o", symbolSize=5,
                                      symbolBrush=scheme_colour(ROPE), symbolPen=None,
                                      name="RoPE θₖ (before)")
        self.after = pg.PlotDataItem(pen=pen(SCALED, 3.0), symbol="o", symbolSize=6,
                                     symbolBrush=scheme_colour(SCALED), symbolPen=None,
                                     name="scaled θ′ₖ")
        spi.addItem(self.before)
        spi.addItem(self.after)
        self.scaled_train = beyond_line(0, 0, "L_train")
        self.scaled_target = pg.InfiniteLine(0, angle=0, pen=dotted, label="s·L_train",
                                             labelOpts={"position": 0.08, "color": (40, 40, 40)})
        spi.addItem(self.scaled_train, ignoreBounds=True)
        spi.addItem(self.scaled_target, ignoreBounds=True)
        edge_pen = pg.mkPen("#7a3b00", width=1.8, style=Qt.PenStyle.DashDotLine)
        self.edges = [pg.InfiniteLine(0, angle=0, pen=edge_pen, label=t,
                                      labelOpts={"position": 0.55, "color": (122, 59, 0)})
                      for t in ("high-freq edge L/4", "low-freq edge L/1")]
        ramp_pen = pg.mkPen("#7a3b00", width=1.8, style=Qt.PenStyle.DashDotLine)
        self.corr_scaled = [pg.InfiniteLine(0, angle=90, pen=ramp_pen) for _ in range(2)]
        for item in (*self.edges, *self.corr_scaled):
            spi.addItem(item, ignoreBounds=True)

        # Interpolation weight (YaRN: its ramp).
        self.weight = make_plot("Interpolation weight per pair", x="pair k", y="0 = θₖ kept · 1 = θₖ/s")
        gpi = self.weight.getPlotItem()
        self.weight_curve = pg.PlotDataItem(pen=pen(SCALED, 3.0), symbol="o", symbolSize=6,
                                            symbolBrush=scheme_colour(SCALED), symbolPen=None)
        gpi.addItem(self.weight_curve)
        gpi.setYRange(-0.05, 1.08, padding=0)
        self.corr_weight = [pg.InfiniteLine(0, angle=90, pen=ramp_pen, label=t,
                                            labelOpts={"position": 0.9, "color": (122, 59, 0)})
                            for t in ("low", "high")]
        for item in self.corr_weight:
            gpi.addItem(item, ignoreBounds=True)
        self.att_note = label("", anchor=(1, 1), size=11)
        gpi.addItem(self.att_note, ignoreBounds=True)

        self.key.follow([("Wavelength", self.waves), ("Share of a turn", self.cover), ("Scaled", self.scaled)])
        self.grid = grid
        for w in (self.table, self.waves, self.cover, self.scaled, self.weight):
            grid.keep(w)  # shown by arrange() with the schemes they belong to
        self._texts = {"rope": "", "learned": "", "scaled": ""}
        #: scheme id -> its plot: the plots schemes bring with their ``beyond_plot`` hook.
        self.extras: dict[str, SpecPlot] = {}
        self._shown: tuple = ()
        self.response: BeyondResponse | None = None
        self.scaled_response: ScaledResponse | None = None  # the one drawn, for exports

    def arrange(self, schemes: tuple) -> None:
        self._shown = schemes
        cells = [self.table] if LEARNED in schemes else []
        if ROPE in schemes:
            cells += [self.waves, self.cover]
        if SCALED in schemes:
            cells += [self.scaled, self.weight]
        cells += [p.widget for s, p in self.extras.items() if s in schemes]
        self.grid.set_cells(cells)
        self.key.update_key()
        self._update_info()

    def _extra(self, s: str, spec) -> SpecPlot:
        if s not in self.extras:
            plot = SpecPlot(s, spec, f"beyondExtra_{s}")
            self.grid.keep(plot.widget)  # shown by arrange()
            self.extras[s] = plot
            self.arrange(self._shown)
        return self.extras[s]

    def show_extras(self, r: BeyondResponse) -> None:
        """Each shown scheme's own beyond-training plot (T5's buckets, …)."""
        for s, spec in r.extras.items():
            plot = self._extra(s, spec)
            plot.draw(spec)
            plot.widget.setVisible(s in self._shown)

    def _update_info(self) -> None:
        """Only about the schemes shown: scene 4 (learned vs sinusoidal) used to read about RoPE and YaRN."""
        shown = self._shown
        parts = [self._texts["rope"] if ROPE in shown else "", self._texts["learned"] if LEARNED in shown else "",
                 self._texts["scaled"] if SCALED in shown else ""]
        self.info.setText("<br>".join(t for t in parts if t))

    def show_beyond(self, r: BeyondResponse) -> None:
        self.response = r  # what the plots show, for exports
        self.show_extras(r)
        q = r.request
        lt, le = q.l_train, q.l_eval
        k = np.arange(r.theta.size)
        full = r.full_turn
        self.waves_seen.setData(k[full], r.wavelength[full])
        self.waves_new.setData(k[~full], r.wavelength[~full])
        self.waves_train.setPos(math.log10(lt))
        self.waves_eval.setPos(math.log10(le))
        self.cover_seen.setOpts(x=k, height=r.cover_train, width=0.8)
        self.cover_new.setOpts(x=k, y0=r.cover_train, height=np.maximum(0.0, r.cover_eval - r.cover_train),
                               width=0.8)
        self.cover.getPlotItem().setXRange(-0.6, r.theta.size - 0.4, padding=0)
        # The learned table: rows past its last (L_train, or a real table's M) are empty (NaN), hatched and
        # labelled, never zeros.
        m = r.table_limit or lt
        tpi = self.table.getPlotItem()
        title = f"Learned table P[p, :] · {r.table_title}" if r.table_title else "Learned table P[p, :]"
        if full_title(tpi) != title:
            tpi.setTitle(title)
        if getattr(self.table_line, "label", None) is not None:
            self.table_line.label.setFormat("L_train" if m == lt else "M")
        if r.table is None:
            self.table_img.clear()
            self.no_row.setText(r.table_note)
            self.no_row.setPos(q.head_dim / 2, le / 2)
        else:
            set_image(self.table_img, r.table, autoLevels=False)
            self.table_img.setRect(0, 0, q.head_dim, le)
            # Centred: the first line alone where the whole is wider than the plot (1280 × 720 presenter).
            fit_note(self.no_row, self.table, f"no row\nfor p ≥ {m:,}" if le > m else "")
            self.no_row.setPos(q.head_dim / 2, (m + le) / 2)
        self.no_row.setVisible(bool(self.no_row.toPlainText()))
        self.table_hatch.set_rects([(0, m, q.head_dim, le - m)] if le > m else [])
        self.table_line.setPos(m)
        self.table_line.setVisible(le > m)
        tpi.setRange(xRange=(0, q.head_dim), yRange=(0, le), padding=0)
        step = "" if r.table_rows is None or r.table_rows.size == le else (
            f" (every ≈{le / r.table_rows.size:.0f}th row shown)")
        real = q.table is not None  # a real table's rows (the panel's "Real learned rows")
        how = f", {r.table_note}" if real and r.table is not None and r.table_note else ""
        seen_idx, new_idx = k[full], k[(r.cover_eval > r.cover_train)]
        if le > lt:
            new = (f"<span style='color:{NEW}'>Pairs {_span(new_idx)} ({r.n_new} of {r.theta.size}) meet "
                   f"angles never seen</span> at distances {lt:,} … {le - 1:,}.")
            self._texts["learned"] = f"<b>Learned</b>: rows 0 … {lt - 1:,} only{step}; there is no row for p ≥ {lt:,}."
        else:
            new = f"L_eval = {le:,} ≤ L_train: nothing lies beyond training yet — raise L_eval."
            self._texts["learned"] = f"<b>Learned</b>: L_eval = {le:,} ≤ L_train: every position has its row."
        if real:
            self._texts["learned"] = (
                f"<b>Learned · {r.table_title}</b>{how}: rows 0 … {m - 1:,} only{step}; there is no row for "
                f"p ≥ M = {m:,}." if le > m else
                f"<b>Learned · {r.table_title}</b>{how}: L_eval = {le:,} ≤ M = {m:,}: every position has its row.")
        self._texts["rope"] = (
            f"<b>RoPE</b> (d = {q.head_dim}, base {q.base:g}): pairs {_span(seen_idx)} turn fully inside "
            f"L_train = {lt:,} (wavelength ≤ {lt - 1:,}): every angle they meet later was seen in training. "
            + new
        )
        self._update_info()

    def _name_after(self, name: str) -> None:
        """The legend names the scaling method: the plot exported (or put in focus) alone still says which."""
        legend = self.scaled.getPlotItem().legend
        for sample, entry in legend.items if legend is not None else ():
            if sample.item is self.after and entry.text != name:
                entry.setText(name)

    def show_scaled(self, r: ScaledResponse) -> None:
        self.scaled_response = r
        q = r.request
        k = np.arange(r.theta.size)
        self.before.setData(k, r.wavelength)
        self.after.setData(k, r.wavelength_scaled)
        self.weight_curve.setData(k, r.weight)
        self.scaled_train.setPos(math.log10(q.l_train))
        self.scaled_target.setPos(math.log10(q.factor * q.l_train))
        self.scaled_target.setVisible(q.factor > 1)
        method = METHOD_TITLES[q.scaling]
        self._name_after(f"{method.split(' (')[0]} θ′ₖ (after)")
        for line, value in zip(self.edges, r.band_edges or (1.0, 1.0), strict=True):
            line.setPos(math.log10(value))
            line.setVisible(r.band_edges is not None)
        for lines in (self.corr_scaled, self.corr_weight):
            for line, value in zip(lines, r.correction_range or (0.0, 0.0), strict=True):
                line.setPos(value)
                line.setVisible(r.correction_range is not None)
        title = "YaRN ramp rₖ" if q.scaling == "yarn" else "Interpolation weight"
        self.weight.getPlotItem().setTitle(title, size="13pt")
        self.weight.getPlotItem().setXRange(-0.5, r.theta.size - 0.5, padding=0.02)
        a = r.attention_factor
        yarn = "\n= 0.1·ln s + 1" if q.scaling == "yarn" else ""
        self.att_note.setText(f"attention factor {a:.4f}{yarn}")
        self.att_note.setPos(r.theta.size - 1, 0.03)
        extra = ""
        if r.correction_range is not None:
            lo, hi = r.correction_range
            extra = (f"; the ramp runs over pairs {lo:g} … {hi:g} (β_fast 32, β_slow 1); cos and sin × "
                     f"{a:.4f} = 0.1·ln {q.factor:g} + 1")
        elif r.band_edges is not None:
            hw, lw = r.band_edges
            extra = (f"; wavelengths below L/4 = {hw:g} are kept, above L/1 = {lw:g} divided by s, "
                     "smoothly blended between")
        elif r.ntk_base is not None:
            extra = f"; base′ = base·s^(d/(d−2)) = {r.ntk_base:,.6g}"
        self._texts["scaled"] = (
            f"<b>Scaled RoPE, {method}, s = {q.factor:g}</b> (L_orig = L_train = {q.l_train:,}): "
            f"{r.n_kept} of {r.theta.size} pairs kept, {r.n_divided} divided by s, the rest in "
            f"between{extra}."
        )
        self._update_info()

    def plot_widgets(self) -> list:
        return [w for w in (self.table, self.waves, self.cover, self.scaled, self.weight) if not w.isHidden()]

    def apply_theme(self, theme) -> None:
        theme_info_label(self.info, theme)
        theme_info_label(self.key, theme)
        self.table_hatch.set_colour(theme.foreground)
