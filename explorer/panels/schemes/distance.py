"""Schemes panel, view 2: ΔS against relative distance for every scheme on one plot, RoFormer's long-term-decay
bound under it, and beside that any scheme's score terms drawn apart."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy

from ... import schemes as registry
from ...jobs.schemes import DistanceResponse
from .items import (
    TERM_STYLES,
    HatchItem,
    beyond_line,
    line_style,
    make_plot,
    pen,
    scheme_key,
    theme_info_label,
)
from .views import SchemesView, info_column


class DistanceView(SchemesView):
    """ΔS against Δ = i − j for every scheme on one plot; below it, RoFormer's long-term-decay bound."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setProperty("focusUnit", True)  # a plot in focus keeps the key that names its curves
        outer = info_column(self)
        self.top = make_plot("Position-only score ΔS against relative distance",
                             x="distance Δ = i − j (key before query)", y="ΔS (logit units)")
        self.bottom = make_plot("RoPE's long-term decay (RoFormer's bound, Su et al. 2021 §3.4.3)",
                                x="distance Δ = i − j", y="bound")
        # Not x-linked to the top: pyqtgraph links by screen position, and these sit side by side below it.
        # The key above the plot, wrapped: a legend of fifteen entries was cut (ALiBi, Kerple, T5, FIRE missing
        # even at 1920 × 1080) and covered the curves past Δ ≈ 900.
        self.key = QLabel()
        self.key.setObjectName("distanceKey")
        self.key.setWordWrap(True)
        self.key.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._theme = None
        outer.addWidget(self.key)
        outer.addWidget(self.top, 3)
        self.top.export_key = self.key.text  # the plot exported alone names its curves too
        # Below: RoFormer's bound and, beside it, any scheme's score terms (one row, so the top keeps its height).
        self.lower_row = QHBoxLayout()
        self.lower_row.setContentsMargins(0, 0, 0, 0)
        self.lower_row.addWidget(self.bottom, 1)
        outer.addLayout(self.lower_row, 2)
        self.legend = self.top.getPlotItem().addLegend(offset=(-12, 10), labelTextSize="11pt")
        self.legend.setVisible(False)  # the key above names the curves
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.bands: dict[str, tuple] = {}
        self.bounds: dict[str, pg.PlotDataItem] = {}
        self.responses: dict[str, DistanceResponse] = {}
        self.marks: dict[str, list] = {}
        self.bottom_legend = self.bottom.getPlotItem().addLegend(offset=(-12, 10), labelTextSize="11pt")
        self.hatch_top, self.hatch_bottom = HatchItem(), HatchItem()
        self.top.addItem(self.hatch_top, ignoreBounds=True)
        self.bottom.addItem(self.hatch_bottom, ignoreBounds=True)
        self.line_top = beyond_line(0, 90, "L_train")
        self.line_bottom = beyond_line(0, 90)
        self.top.addItem(self.line_top, ignoreBounds=True)
        self.bottom.addItem(self.line_bottom, ignoreBounds=True)
        #: scheme -> (plot, its term curves): the score's parts drawn apart (a scheme's ``Curve.terms``).
        self.term_plots: dict[str, tuple] = {}
        #: Which curve leaves the plot's range and how far, said under the key (inside the plot it lay on the
        #: curves at 720p presenter): "" when every curve stays inside.
        self.clip_note = ""
        self._shown: tuple = ()
        self._geometry: tuple = ()
        self._k = 0.0
        for sch in registry.all_schemes():
            self._ensure(sch.id)

    def _ensure(self, s: str) -> None:
        """Build scheme ``s``'s curve (with a band if it is absolute, a bound if it rotates q and k)."""
        if s in self.curves:
            return
        sch = registry.get(s)
        style = line_style(s)
        c = pg.PlotDataItem(pen=pen(s, 2.5, style), name=sch.title)
        c.setDownsampling(auto=True, method="peak")  # peaks keep RoPE's fast oscillation honest
        c.setClipToView(True)
        self.top.addItem(c)
        self.curves[s] = c
        if not sch.relative and sch.kind != "none":
            edge = pg.mkColor(sch.colour)
            edge.setAlpha(110)
            # The band's edges need a pen: FillBetweenItem fills between the curves' drawn paths.
            lo = pg.PlotDataItem(pen=pg.mkPen(edge, width=0.8))
            hi = pg.PlotDataItem(pen=pg.mkPen(edge, width=0.8))
            colour = pg.mkColor(sch.colour)
            colour.setAlpha(60)
            fill = pg.FillBetweenItem(lo, hi, brush=pg.mkBrush(colour))
            self.top.addItem(fill)
            self.bands[s] = (lo, hi, fill)
        if sch.kind == "rotary" and sch.on_a_line:  # RoFormer's bound is of positions on a line
            b = pg.PlotDataItem(pen=pen(s, 2.5, style), name=sch.title)
            b.setDownsampling(auto=True, method="peak")
            b.setClipToView(True)
            self.bottom.addItem(b)
            self.bounds[s] = b
        self.marks[s] = []
        for item in (c, *self.bands.get(s, ()), self.bounds.get(s)):
            if item is not None:
                item.setVisible(False)

    def arrange(self, schemes: tuple) -> None:
        if schemes == self._shown:  # rebuilding both legends (and restyling them) on every sync costs ~40 ms
            return
        self._shown = schemes
        for s in schemes:
            self._ensure(s)
        for s in self.curves:
            on = s in schemes
            self.curves[s].setVisible(on)
            if s in self.bands:
                for item in self.bands[s]:
                    item.setVisible(on)
            if s in self.bounds:
                self.bounds[s].setVisible(on)
            for line in self.marks[s]:
                line.setVisible(on)
        # Only shown schemes in the legends.
        self.legend.clear()
        self.bottom_legend.clear()
        for s in schemes:
            if registry.get(s).on_a_line:  # a 2-D scheme has no curve here (the view's note says why)
                self.legend.addItem(self.curves[s], registry.get(s).title)
            if s in self.bounds:
                self.bottom_legend.addItem(self.bounds[s], registry.get(s).title)
        self._show_key()
        self.bottom.setVisible(any(s in schemes for s in self.bounds))
        for s, (pw, _curves) in self.term_plots.items():
            pw.setVisible(s in schemes)

    def set_geometry(self, st) -> None:
        if (st.l_eval, st.l_train) == self._geometry:  # keep the user's zoom while other controls move
            return
        self._geometry = (st.l_eval, st.l_train)
        n, lt = st.l_eval, st.l_train
        rects = [(lt, -1e9, max(0, n - lt), 2e9)] if n > lt else []
        self.hatch_top.set_rects(rects)
        self.hatch_bottom.set_rects(rects)
        for line in (self.line_top, self.line_bottom):
            line.setPos(lt)
            line.setVisible(n > lt)
        for pw in (self.top, self.bottom, *(p for p, _c in self.term_plots.values())):
            pw.setXRange(0, n, padding=0.01)

    def show_distance(self, r: DistanceResponse) -> None:
        s = r.request.scheme
        self._ensure(s)
        self.responses[s] = r
        self._show_marks(s, r.marks)
        self.curves[s].setData(r.distance, r.mean)
        if s in self.bands:
            lo, hi, _ = self.bands[s]
            if r.lo is not None:
                lo.setData(r.band_distance, r.lo)
                hi.setData(r.band_distance, r.hi)
            else:
                lo.setData([], [])
                hi.setData([], [])
        if s in self.bounds and r.bound is not None:
            self.bounds[s].setData(r.distance, r.bound)
        if r.terms:
            self._show_terms(s, r)

    def _show_terms(self, s: str, r: DistanceResponse) -> None:
        """A plot of the scheme's score terms against Δ (Transformer-XL's four), one line style each."""
        if s not in self.term_plots:
            title = registry.get(s).title
            pw = make_plot(f"{title}: its score's terms", x="distance Δ = i − j", y="term (logit units)")
            pw.setObjectName(f"scoreTerms_{s}")
            pw.getPlotItem().addLegend(offset=(-12, 10), labelTextSize="10pt", colCount=2)
            if self._geometry:
                pw.setXRange(0, self._geometry[0], padding=0.01)
            self.lower_row.addWidget(pw, 1)
            self.term_plots[s] = (pw, [])
            QTimer.singleShot(0, self.declutter)
        pw, curves = self.term_plots[s]
        colours = registry.get(s).term_colours
        while len(curves) < len(r.terms):
            i = len(curves)
            p = pen(s, 2.5, TERM_STYLES[i % len(TERM_STYLES)])
            if colours:  # a pen of its own per term: line style alone is lost on a projector
                p.setColor(pg.mkColor(colours[i % len(colours)]))
            c = pg.PlotDataItem(pen=p, name=r.terms[i][0])
            c.setClipToView(True)
            pw.addItem(c)
            curves.append(c)
        for c, (name, values) in zip(curves, r.terms, strict=False):
            c.setData(r.distance, values)
            c.opts["name"] = name
        pw.setVisible(s in self._shown)

    def _show_marks(self, s: str, marks: tuple) -> None:
        """Thin dotted lines in the scheme's colour where it asks for them (bucket edges, clipping …)."""
        lines = self.marks[s]
        while len(lines) < len(marks):
            line = pg.InfiniteLine(0, angle=90, movable=False,
                                   pen=pen(s, 1.0, Qt.PenStyle.DotLine))
            line.setZValue(5)
            self.top.addItem(line, ignoreBounds=True)
            lines.append(line)
        on = s in self._shown
        for k, line in enumerate(lines):
            if k < len(marks):
                line.setPos(marks[k][0])
                line.setToolTip(f"{registry.get(s).title}: {marks[k][1]} at Δ = {marks[k][0]:g}")
            line.setVisible(on and k < len(marks))

    def set_range(self, k: float, clipped: tuple, st) -> None:
        """y-range ±k (the same rule as the matrices' shared scale); say which curves leave it."""
        if k != self._k:  # only on a change, so a zoom survives a drag that leaves the range alone
            self._k = k
            self.top.setYRange(-1.06 * k, 1.06 * k, padding=0)
        out = [s for s in clipped if s in self.responses and self.responses[s].mean.size]
        note = ""
        if out:
            r = self.responses[out[0]]
            worst = int(np.nanargmax(np.abs(r.mean)))
            note = (f"{registry.get(out[0]).title} leaves the plot: ΔS reaches {r.mean[worst]:,.1f} at "
                    f"Δ = {int(r.distance[worst]):,}")
        if note != self.clip_note:
            self.clip_note = note
            self._show_key()

    def extents(self, schemes) -> dict[str, float]:
        return {s: self.responses[s].extent for s in schemes if s in self.responses}

    def plot_widgets(self) -> list:
        return [self.top, self.bottom] + [pw for s, (pw, _c) in self.term_plots.items() if s in self._shown]

    #: Below this height (px) the lower plots drop their legends (at 1280 × 720 presenter six entries covered
    #: a 70 px tall plot); the key above names the same pens.
    LEGEND_ROOM = 240

    def declutter(self) -> None:
        """The lower plots' legends only where the plot has room for them."""
        for pw, legend in [(self.bottom, self.bottom_legend)] + [
                (pw, pw.getPlotItem().legend) for pw, _c in self.term_plots.values()]:
            if legend is not None:
                legend.setVisible(pw.height() >= self.LEGEND_ROOM)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        QTimer.singleShot(0, self.declutter)

    def _show_key(self) -> None:
        key = scheme_key([s for s in self._shown if registry.get(s).on_a_line], self._theme)
        if self.clip_note:
            key += f"<br>{html.escape(self.clip_note)}"
        self.key.setText(key)

    def apply_theme(self, theme) -> None:
        theme_info_label(self.info, theme)
        # A size smaller than the info's: fifteen names take two lines, not four, at 1280 × 720 presenter.
        self.key.setStyleSheet(f"QLabel {{ font-size: {round(9.5 * theme.font_scale, 1):g}pt; padding: 0 4px; "
                               f"color: {theme.foreground}; }}")
        self._theme = theme
        self._show_key()
        for h in (self.hatch_top, self.hatch_bottom):
            h.set_colour(theme.foreground)
