"""Schemes panel, view 6: a real model's RoPE, from its config — frequencies, wavelengths against its lengths, the
attention factor and the expected score against distance, next to plain RoPE at the same base and rotary dim."""

from __future__ import annotations

import json
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QComboBox, QGridLayout, QHBoxLayout, QPushButton, QWidget

from ..encodings import EncodingError
from ..encodings.rope_config import load_shipped, read_config, resolve, shipped
from ..jobs.model_rope import ModelRopeResponse
from ..schemes import rope, scaled_rope
from ..widgets.log_ticks import use_si_log_ticks
from ..widgets.notes import NotesLabel
from ..widgets.plain import esc
from .schemes_items import beyond_line, make_plot, pen, scheme_colour, theme_info_label
from .schemes_views import info_column

#: Plain RoPE in RoPE's colour, the model in scaled RoPE's (the same meaning as in every other view).
PLAIN, MODEL = rope.SCHEME.id, scaled_rope.SCHEME.id
#: The combo box's entry for a model opened from a file (its name follows).
OPENED = "opened: "
#: From this width (px) the three plots stand in one row.
WIDE = 1100


def _dotted(text: str, angle: int) -> pg.InfiniteLine:
    """A dotted line at the extended length, its label on the other side from L_orig's (they may be close)."""
    anchors = [(0, 1), (0, 1)] if angle == 0 else [(1, 0), (1, 0)]
    line = pg.InfiniteLine(0, angle=angle, pen=pg.mkPen("#444", width=1.4, style=Qt.PenStyle.DotLine),
                           label=text, labelOpts={"position": 0.08 if angle == 0 else 0.8, "color": (40, 40, 40),
                                                  "anchors": anchors})
    line.setZValue(25)
    return line


class ModelView(QWidget):
    """One model's RoPE: its θ′ and wavelengths per pair, its lengths, its attention factor, its score curve."""

    #: A shipped config was chosen (its id).
    modelPicked = Signal(str)
    #: "Open model config…" was clicked.
    openRequested = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        outer = info_column(self, "modelInfo")
        top = QHBoxLayout()
        top.setContentsMargins(4, 2, 4, 2)
        self.combo = QComboBox()
        self.combo.setObjectName("modelCombo")
        self.combo.setToolTip("a well-known model's RoPE (only the rotary fields of its config.json are shipped)")
        for cid in shipped():
            self.combo.addItem(load_shipped(cid).name, cid)
        # Not as wide as its longest name: the row must fit a 1024-wide projector in presenter mode.
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(12)
        self.open_button = QPushButton("Open model config…")
        self.open_button.setObjectName("modelOpen")
        self.open_button.setToolTip("read rope_theta, head_dim, rope_scaling … from a model's config.json")
        # The summary line is long: it never widens the window (1280×720 presenter): elided, all of it in the
        # tooltip (and on a click).
        self.summary = NotesLabel()
        self.summary.setObjectName("modelSummary")
        top.addWidget(self.combo)
        top.addWidget(self.open_button)
        top.addWidget(self.summary, 1)
        outer.addLayout(top)
        self.combo.activated.connect(self._on_combo_activated)
        self.open_button.clicked.connect(self.openRequested)

        plots = QWidget()
        plots.setObjectName("modelPlots")
        self.layout_grid = QGridLayout(plots)
        self.layout_grid.setContentsMargins(0, 0, 0, 0)
        self.layout_grid.setSpacing(4)
        outer.addWidget(plots, 1)
        self._wide: bool | None = None
        dots = {"symbol": "o", "symbolPen": None}
        self.freq = make_plot("θ′ per pair", x="pair i (0 = fastest)", y="θ′ (rad per position)")
        self.waves = make_plot("Wavelength 2π/θ′ per pair", x="pair i", y="wavelength (positions)")
        self.score = make_plot("Score vs distance", x="distance Δ (positions)", y="score ÷ |q|² (q = k)")
        self.curves: dict[str, pg.PlotDataItem] = {}
        # One legend, where no data are: θ′ falls to the right, so the θ′ plot's bottom-left corner is empty.
        # (The colours mean the same in every view: RoPE's green, scaled RoPE's pink.)
        self.legend = self.freq.getPlotItem().addLegend(offset=(5, -5), labelTextSize="10pt")
        for name, pw in (("freq", self.freq), ("waves", self.waves)):
            pi = pw.getPlotItem()
            pi.setLogMode(x=False, y=True)
            use_si_log_ticks(pi)
            self.curves[f"{name}_plain"] = pi.plot(pen=pen(PLAIN, 2.0, Qt.PenStyle.DashLine), symbolSize=5,
                                                   symbolBrush=scheme_colour(PLAIN), name="plain RoPE", **dots)
            self.curves[f"{name}_model"] = pi.plot(pen=pen(MODEL, 3.0), symbolSize=7,
                                                   symbolBrush=scheme_colour(MODEL), name="model", **dots)
        wpi = self.waves.getPlotItem()
        self.l_orig = beyond_line(0, 0, "L_orig")
        self.l_ext = _dotted("extended", 0)
        for item in (self.l_orig, self.l_ext):
            wpi.addItem(item, ignoreBounds=True)

        spi = self.score.getPlotItem()
        spi.setLogMode(x=True, y=False)
        use_si_log_ticks(spi)
        band = QColor(scheme_colour(MODEL))
        band.setAlpha(70)
        self.band_lo = pg.PlotDataItem(pen=pg.mkPen(band, width=1), name="model (block min)")
        self.band_hi = pg.PlotDataItem(pen=pg.mkPen(band, width=1), name="model (block max)")
        self.band = pg.FillBetweenItem(self.band_lo, self.band_hi, brush=pg.mkBrush(band))
        for item in (self.band_lo, self.band_hi, self.band):
            spi.addItem(item)
        self.curves["score_plain"] = spi.plot(pen=pen(PLAIN, 2.0, Qt.PenStyle.DashLine), name="plain RoPE (block mean)")
        self.curves["score_model"] = spi.plot(pen=pen(MODEL, 3.0), name="model (block mean)")
        self.score_orig = beyond_line(0, 90, "L_orig")
        # Both labels left of their lines (the extended length is at the right edge), L_orig's above the other's.
        self.score_orig.label.setPosition(0.95)
        self.score_orig.label.anchors = [(1, 0), (1, 0)]
        self.score_ext = _dotted("ext.", 90)
        for item in (self.score_orig, self.score_ext):
            spi.addItem(item, ignoreBounds=True)
        self.response: ModelRopeResponse | None = None
        self._arrange(True)

    def _arrange(self, wide: bool) -> None:
        """Wide: the three plots in a row.  Narrow (a 1280×720 projector): θ′ and wavelengths side by side, the
        score curve under them at full width."""
        if wide == self._wide:
            return
        self._wide = wide
        for w in (self.freq, self.waves, self.score):
            self.layout_grid.removeWidget(w)
        if wide:
            for k, w in enumerate((self.freq, self.waves, self.score)):
                self.layout_grid.addWidget(w, 0, k)
            self.layout_grid.setRowStretch(1, 0)
        else:
            self.layout_grid.addWidget(self.freq, 0, 0)
            self.layout_grid.addWidget(self.waves, 0, 1)
            self.layout_grid.addWidget(self.score, 1, 0, 1, 2)
            self.layout_grid.setRowStretch(1, 1)
        self.layout_grid.setRowStretch(0, 1)
        # Narrow, the θ′ plot is too small for a legend: the full-width score plot's title names the colours.
        self.legend.setVisible(wide)
        self._retitle()

    def _retitle(self) -> None:
        att = "" if self.response is None else f" · attention factor {self.response.attention_factor:.4g}"
        key = "" if self._wide else (f": <span style='color:{scheme_colour(PLAIN)}'>- - plain RoPE</span> "
                                     f"<span style='color:{scheme_colour(MODEL)}'>━ model</span>")
        self.score.getPlotItem().setTitle(f"Score vs distance{key}{att}")

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._arrange(event.size().width() >= WIDE)
        super().resizeEvent(event)

    # -- the model choice ---------------------------------------------------------------------------
    def _on_combo_activated(self, index: int) -> None:
        cid = self.combo.itemData(index)
        if cid:
            self.modelPicked.emit(cid)

    def set_geometry(self, st) -> None:
        """Show the state's model in the combo box (an opened model gets an entry of its own)."""
        was = self.combo.blockSignals(True)
        idx = self.combo.findData(st.model)
        opened = self.combo.findData("")
        if idx >= 0:
            if opened >= 0:
                self.combo.removeItem(opened)
            self.combo.setCurrentIndex(idx)
        else:
            name = resolve(st.model).name or "model"
            if opened < 0:
                self.combo.addItem("", "")
                opened = self.combo.count() - 1
            self.combo.setItemText(opened, OPENED + name)
            self.combo.setCurrentIndex(opened)
        self.combo.blockSignals(was)

    # -- results --------------------------------------------------------------------------------------
    def show_model(self, r: ModelRopeResponse) -> None:
        self.response = r
        m = r.model
        k = np.arange(r.theta.size)
        self.curves["freq_plain"].setData(k, r.theta_plain)
        self.curves["freq_model"].setData(k, r.theta)
        self.curves["waves_plain"].setData(k, 2 * np.pi / r.theta_plain)
        self.curves["waves_model"].setData(k, 2 * np.pi / r.theta)
        self.l_orig.setPos(math.log10(r.l_orig))
        self.l_ext.setPos(math.log10(r.l_ext))
        self.l_ext.setVisible(r.l_ext != r.l_orig)
        # Short labels (at 1280 × 720 "extended 131,072" was cut at the plot's top edge).
        self.l_orig.label.setFormat(f"L_orig {r.l_orig:,}" if r.l_ext != r.l_orig else f"L = {r.l_orig:,}")
        self.l_ext.label.setFormat(f"ext. {r.l_ext:,}")
        for pw in (self.freq, self.waves):
            pw.getPlotItem().setXRange(-0.5, r.theta.size - 0.5, padding=0.02)
        mean_p, _lo_p, _hi_p = r.plain
        mean_m, lo_m, hi_m = r.scaled
        self.curves["score_plain"].setData(r.distance, mean_p)
        self.curves["score_model"].setData(r.distance, mean_m)
        self.band_lo.setData(r.distance, lo_m)
        self.band_hi.setData(r.distance, hi_m)
        self.score_orig.setPos(math.log10(r.l_orig))
        self.score_ext.setPos(math.log10(r.l_ext))
        self.score_ext.setVisible(r.l_ext != r.l_orig and r.l_ext <= r.shown_to)
        self.score_orig.setVisible(r.l_orig <= r.shown_to)
        self._retitle()
        self.score.getPlotItem().setXRange(0.0, math.log10(r.shown_to), padding=0.02)
        self.summary.set_notes(r.summary + (f"\n{m.source}" if m.source else ""))
        self.info.setText(self._info(r))

    def _info(self, r: ModelRopeResponse) -> str:
        m = r.model
        pairs = r.theta.size
        rotate = ("every dimension rotates" if m.rotary_dim == m.head_dim else
                  f"{m.rotary_dim} of its {m.head_dim} dimensions rotate, the other {m.head_dim - m.rotary_dim} "
                  "pass through")
        if m.rope_type == "default":
            moved = "no scaling: θ′ = plain RoPE's θ"
        else:
            moved = (f"{r.kept} of {pairs} pairs keep plain RoPE's θ, {r.divided} are divided by s = "
                     f"{m.scaling.factor:g}, the rest in between")
            if m.rope_type in ("dynamic", "longrope"):
                moved += f" (at the current length {r.l_ext:,})"
        clip = "" if r.shown_to >= r.l_ext else f" The curve stops at Δ = {r.shown_to:,}."
        name = esc(m.name or "Model", 120)  # a config's _name is anyone's text
        return (f"<b>{name}</b> ({m.rope_type}): {rotate}; {moved}. cos and sin × attention factor "
                f"a = {r.attention_factor:.4g}. Score: mean of q·R(Δ)q/|q|² over q ~ N(0, I), exact block means "
                f"(line) and min–max (band) over log-spaced blocks of distances.{clip}"
                + (f"<br><i>Source: {esc(m.source)}</i>" if m.source else ""))

    def plot_widgets(self) -> list:
        return [self.freq, self.waves, self.score]

    def apply_theme(self, theme) -> None:
        theme_info_label(self.info, theme)
        font = self.summary.font()
        font.setPointSizeF(11 * theme.font_scale)
        self.summary.setFont(font)


def open_model_config(path: str | None) -> tuple[str, str]:
    """(the state's ``model`` text for the config.json at ``path``, "") or ("", the one-line reason it cannot be
    read).  The state keeps the config's rotary fields as JSON, never the path (presets and sessions stay safe)."""
    if not path:
        return "", ""
    try:
        model = read_config(path)
    except EncodingError as exc:
        return "", str(exc)
    return json.dumps(model.fields(), ensure_ascii=False), ""
