"""The model view's plots for a model on one line of positions: θ′ and wavelength per pair and the score against
distance, against plain RoPE; for a model whose layers differ, one curve per layer type (its reach marked), a strip
of its layers (which rotate, which do not) and Llama 4's attention temperature against position."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ...schemes import rope, scaled_rope
from ...schemes.rope_model_tab import ModelRopeResponse
from ...widgets.log_ticks import use_si_log_ticks
from ...widgets.styler import mapped_colour
from ...widgets.theming import current_theme
from .items import beyond_line, make_plot, pen, scheme_colour

#: Plain RoPE in RoPE's colour, the model in scaled RoPE's (the same meaning as in every other view).
PLAIN, MODEL = rope.SCHEME.id, scaled_rope.SCHEME.id
#: Each layer type's colour (full attention keeps the model's pink); NoPE layers are grey.
TYPE_COLOURS = {"full_attention": scaled_rope.SCHEME.colour, "sliding_attention": "#0072B2",
                "chunked_attention": "#E69F00"}
NOPE_COLOUR = "#8C8C8C"
#: The short name of each layer type in keys and titles.
TYPE_NAMES = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "chunked"}


def _dotted(text: str, angle: int) -> pg.InfiniteLine:
    """A dotted line at the extended length, its label on the other side from L_orig's (they may be close)."""
    anchors = [(0, 1), (0, 1)] if angle == 0 else [(1, 0), (1, 0)]
    line = pg.InfiniteLine(0, angle=angle, pen=pg.mkPen("#444", width=1.4, style=Qt.PenStyle.DotLine),
                           label=text, labelOpts={"position": 0.08 if angle == 0 else 0.8, "color": (40, 40, 40),
                                                  "anchors": anchors})
    line.setZValue(25)
    return line


def type_pen(layer_type: str, width: float = 3.0, style=Qt.PenStyle.SolidLine) -> QPen:
    p = pg.mkPen(TYPE_COLOURS.get(layer_type, NOPE_COLOUR), width=width)
    p.setStyle(style)
    return p


class LayerStrip(QWidget):
    """One cell per layer, coloured by its type (grey: no rotation), with a key: which layers rotate how."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("modelLayerStrip")
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.types: tuple[str, ...] = ()
        self.rotates: tuple[bool, ...] = ()
        self.key: list[tuple[str, str]] = []  # (colour, text) per key entry
        self._theme = None

    def set_layers(self, types: tuple[str, ...], rotates: tuple[bool, ...], key: list[tuple[str, str]]) -> None:
        self.types, self.rotates, self.key = tuple(types), tuple(rotates), list(key)
        self.setToolTip(f"layers 1 … {len(types)}, left to right: " + "; ".join(t for _c, t in key))
        self.setFixedHeight(self.heightForWidth(max(self.width(), 200)))
        self.update()

    def key_text(self) -> str:
        """The key as plain text."""
        return "   ".join(t for _c, t in self.key)

    def set_theme(self, theme) -> None:
        self._theme = theme
        self.update()

    def colour(self, k: int) -> QColor:
        """Layer ``k``'s cell colour as the theme draws it."""
        c = TYPE_COLOURS.get(self.types[k], NOPE_COLOUR) if self.rotates[k] else NOPE_COLOUR
        return mapped_colour(c, self._theme or current_theme())

    def _key_lines(self, width: float) -> list[list[tuple[str, str, float]]]:
        """The key's entries, (colour, text, width), laid out in lines of at most ``width`` px."""
        fm = QFontMetrics(self.font())
        box = fm.height() * 0.7
        lines: list[list[tuple[str, str, float]]] = [[]]
        used = 0.0
        for colour, text in self.key:
            need = box + 4 + fm.horizontalAdvance(text) + 14
            if lines[-1] and used + need > width:
                lines.append([])
                used = 0.0
            lines[-1].append((colour, text, need))
            used += need
        return lines

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        fm = QFontMetrics(self.font())
        return (len(self._key_lines(width - 8)) + 1) * (fm.height() + 3) + 4

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(200, self.heightForWidth(max(self.width(), 200)))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self.height() != self.heightForWidth(self.width()):
            self.setFixedHeight(self.heightForWidth(self.width()))

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self.types:
            return
        p = QPainter(self)
        fm = QFontMetrics(self.font())
        theme = self._theme or current_theme()
        fg = QColor(theme.foreground)
        box, row = fm.height() * 0.7, fm.height() + 3
        lines = self._key_lines(self.width() - 8)
        for k, line in enumerate(lines):  # a swatch and its words per entry, wrapped to the width there is
            x, y = 4.0, k * row
            for colour, text, need in line:
                p.fillRect(QRectF(x, y + (fm.height() - box) / 2, box, box), mapped_colour(colour, theme))
                p.setPen(fg)
                p.drawText(QRectF(x + box + 4, y, need, fm.height()), Qt.AlignmentFlag.AlignLeft, text)
                x += need
        n = len(self.types)
        top, h = len(lines) * row, fm.height()
        cell = (self.width() - 8) / n
        for k in range(n):
            r = QRectF(4 + k * cell, top, max(cell - 1.0, 1.0), h)
            p.fillRect(r, self.colour(k))
            if not self.rotates[k] and cell >= fm.horizontalAdvance("N") + 2:
                p.drawText(r, Qt.AlignmentFlag.AlignCenter, "N")
        p.end()


class RopePlots:
    """θ′, wavelength and score plots (and, for layered models, the strip and the temperature plot)."""

    def __init__(self) -> None:
        dots = {"symbol": "o", "symbolPen": None}
        self.freq = make_plot("θ′ per pair", x="pair i (0 = fastest)", y="θ′ (rad per position)")
        self.waves = make_plot("Wavelength 2π/θ′ per pair", x="pair i", y="wavelength (positions)")
        self.score = make_plot("Score vs distance", x="distance Δ (positions)", y="score ÷ |q|² (q = k)")
        self.temp = make_plot("NoPE layers' τ(p)", x="query position p", y="temperature τ (queries × τ)")
        self.temp.setObjectName("modelTemperature")
        self.strip = LayerStrip()
        self.curves: dict[str, pg.PlotDataItem] = {}
        # One legend, where no data are: θ′ falls to the right, so the θ′ plot's bottom-left corner is empty.
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
        # The lines' labels stand at different places along them: lines close together never stack their words.
        self.l_ext.label.setPosition(0.38)
        self.window = _dotted("window", 0)
        self.window.label.setPosition(0.36)
        self.window.setVisible(False)  # until a model with a window or chunk is shown
        for item in (self.l_orig, self.l_ext, self.window):
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
        self.curves["score_nope"] = spi.plot(pen=pg.mkPen(NOPE_COLOUR, width=2.5, style=Qt.PenStyle.DotLine),
                                             name="NoPE layers")
        self.score_orig = beyond_line(0, 90, "L_orig")
        # Both labels left of their lines (the extended length is at the right edge), L_orig's above the other's.
        self.score_orig.label.setPosition(0.95)
        self.score_orig.label.anchors = [(1, 0), (1, 0)]
        self.score_ext = _dotted("ext.", 90)
        for item in (self.score_orig, self.score_ext):
            spi.addItem(item, ignoreBounds=True)
        tpi = self.temp.getPlotItem()
        tpi.setLogMode(x=True, y=False)
        use_si_log_ticks(tpi)
        self.curves["temperature"] = tpi.plot(pen=pg.mkPen(NOPE_COLOUR, width=3.0), stepMode=None)
        self.layer_items: dict[str, pg.PlotDataItem] = {}
        self.layered = False
        self.has_temperature = False

    def retitle(self, wide: bool) -> None:
        """Plain titles that fit their plot: narrow, a layered model's three plots share one row."""
        short = self.layered and not wide
        self.waves.getPlotItem().setTitle("Wavelengths" if short else "Wavelength 2π/θ′ per pair")
        self.temp.getPlotItem().setTitle("τ(p), NoPE" if short else "NoPE layers' τ(p)")
        # The L_orig label below the NoPE layers' line at 1 (a layered model's score plot has one).
        self.score_orig.label.setPosition(0.72 if self.layered else 0.95)

    def plot_widgets(self, wide: bool = True) -> list:
        """The plots this model shows; narrow, a model whose layers differ leaves out θ′ (its wavelengths say the
        same, against the window and the context)."""
        first = [self.freq, self.waves] if wide or not self.layered else [self.waves]
        return first + [self.score] + ([self.temp] if self.has_temperature else [])

    # -- per layer type ----------------------------------------------------------------------------
    def _layer_curve(self, key: str, plot: pg.PlotWidget, layer_type: str, width: float = 3.0) -> pg.PlotDataItem:
        if key not in self.layer_items:
            dots = {"symbol": "o", "symbolPen": None, "symbolSize": 6,
                    "symbolBrush": TYPE_COLOURS.get(layer_type, NOPE_COLOUR)} if not key.startswith("score") else {}
            item = plot.getPlotItem().plot(pen=type_pen(layer_type, width), connect="finite", **dots)
            self.layer_items[key] = item
        return self.layer_items[key]

    def _show_layers(self, r: ModelRopeResponse) -> None:
        live = set()
        for c in r.layer_curves:
            if not c.layers:
                continue  # every layer of this type is NoPE: no frequencies to draw
            k = np.arange(c.theta.size)
            for name, plot, y in (("freq", self.freq, c.theta), ("waves", self.waves, 2 * np.pi / c.theta),
                                  ("score", self.score, c.score[0])):
                key = f"{name}_{c.layer_type}"
                x = r.distance if name == "score" else k
                self._layer_curve(key, plot, c.layer_type).setData(x, y)
                live.add(key)
        for key, item in self.layer_items.items():
            item.setVisible(key in live)
        nope = [c for c in r.layer_curves if c.nope_layers]
        self.curves["score_nope"].setData(r.distance, np.full(r.distance.size, r.softmax_scale) if nope else [])
        windows = [(c.reach + 1, c.layer_type) for c in r.layer_curves if c.reach is not None and c.layers]
        self.window.setVisible(bool(windows))
        if windows:
            w, t = windows[0]
            what = "chunk" if t == "chunked_attention" else "window"
            self.window.setPos(math.log10(w))
            self.window.label.setFormat(f"{what} {w:,}")
            if w == r.l_orig:  # Llama 4: its chunk is its trained length, one line with both names (the strip
                self.window.setVisible(False)  # gives the number)
                self.l_orig.label.setFormat(f"L_orig = {what}")
        self.strip.set_layers(r.layer_types, r.rotates, layer_key(r))
        self.has_temperature = r.temperature is not None
        if r.temperature is not None:
            p, tau = r.temperature
            self.curves["temperature"].setData(p + 1.0, tau)  # log x: position p + 1 (p = 0 is the first)
            self.temp.getPlotItem().setXRange(0.0, math.log10(p[-1] + 1.0), padding=0.02)

    # -- results ---------------------------------------------------------------------------------------
    def show(self, r: ModelRopeResponse) -> None:
        self.layered = bool(r.layer_curves)
        k = np.arange(r.theta.size)
        self.curves["freq_plain"].setData(k, r.theta_plain)
        self.curves["waves_plain"].setData(k, 2 * np.pi / r.theta_plain)
        for name, y in (("freq_model", r.theta), ("waves_model", 2 * np.pi / r.theta)):
            self.curves[name].setData(k, y) if not self.layered else self.curves[name].setData([], [])
        self.l_orig.setPos(math.log10(r.l_orig))
        self.l_ext.setPos(math.log10(r.l_ext))
        self.l_ext.setVisible(r.l_ext != r.l_orig)
        # Short labels (at 1280 × 720 "extended 131,072" was cut at the plot's top edge).
        self.l_orig.label.setFormat(f"L_orig {r.l_orig:,}" if r.l_ext != r.l_orig else f"L = {r.l_orig:,}")
        self.l_ext.label.setFormat(f"ext. {r.l_ext:,}" if r.l_ext < 10**6 else f"ext. {r.l_ext / 1e6:.3g}M")
        widest = max([r.theta.size] + [c.theta.size for c in r.layer_curves])
        for pw in (self.freq, self.waves):
            pw.getPlotItem().setXRange(-0.5, widest - 0.5, padding=0.02)
        mean_p, _lo_p, _hi_p = r.plain
        mean_m, lo_m, hi_m = r.scaled
        self.curves["score_plain"].setData(r.distance, mean_p)
        for item, y in ((self.curves["score_model"], mean_m), (self.band_lo, lo_m), (self.band_hi, hi_m)):
            item.setData(r.distance, y) if not self.layered else item.setData([], [])
        self.band.setVisible(not self.layered)
        self.score_orig.setPos(math.log10(r.l_orig))
        self.score_ext.setPos(math.log10(r.l_ext))
        self.score_ext.setVisible(r.l_ext != r.l_orig and r.l_ext <= r.shown_to)
        self.score_orig.setVisible(r.l_orig <= r.shown_to)
        if self.layered:
            self._show_layers(r)
        else:
            for item in self.layer_items.values():
                item.setVisible(False)
            self.curves["score_nope"].setData([], [])
            self.window.setVisible(False)
            self.has_temperature = False
        self.score.getPlotItem().setXRange(0.0, math.log10(r.shown_to), padding=0.02)

    def score_title(self, r: ModelRopeResponse | None, wide: bool, theme=None) -> str:
        """The score plot's title: its key when the legend has no room (narrow) or the colours are layer types."""
        if r is None:
            return "Score vs distance"
        if r.layer_curves:  # the strip above the plots names the layer types' colours
            return "Score vs Δ" if not wide else "Score vs distance"
        att = f" · attention factor {r.attention_factor:.4g}"
        if r.softmax_scale != 1.0:  # DeepSeek: cos and sin carry 1, the logits mscale² (the summary has both)
            att = f" · logits × {r.softmax_scale:.4g}"
        if wide:
            return f"Score vs distance{att}"
        plain = mapped_colour(scheme_colour(PLAIN), theme).name()
        model = mapped_colour(scheme_colour(MODEL), theme).name()
        return (f"Score vs distance: <span style='color:{plain}'>- - plain RoPE</span> "
                f"<span style='color:{model}'>━ model</span>{att}")


def layer_key(r: ModelRopeResponse) -> list[tuple[str, str]]:
    """The strip's key, (colour, words) per entry: each layer type's count, base and reach; NoPE; plain RoPE."""
    parts = []
    for c in r.layer_curves:
        name = TYPE_NAMES.get(c.layer_type, c.layer_type)
        if c.layers:
            reach = "" if c.reach is None else f", {'chunk' if name == 'chunked' else 'window'} {c.reach + 1:,}"
            rope_ = r.model.layers.rope(c.layer_type) if r.model.layers is not None else r.model
            scaled = "" if rope_.rope_type == "default" else f", {rope_.rope_type} {rope_.scaling.factor:g}"
            parts.append((TYPE_COLOURS.get(c.layer_type, NOPE_COLOUR),
                          f"{name} ×{len(c.layers)} (base {c_base(r, c)}{scaled}{reach})"))
        if c.nope_layers:
            parts.append((NOPE_COLOUR, f"N = NoPE ×{len(c.nope_layers)}"))
    return parts + [(scheme_colour(PLAIN), "plain RoPE (dashed)")]


def c_base(r: ModelRopeResponse, c) -> str:
    """The base of layer type ``c``, short (10k, 500k, 1M)."""
    rope_ = r.model.layers.rope(c.layer_type) if r.model.layers is not None else r.model
    return short_number(rope_.base)


def short_number(v: float) -> str:
    """10000 → "10k", 1000000 → "1M", 500000 → "500k"; others as :g."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div and (v / div) == round(v / div, 1):
            return f"{v / div:g}{unit}"
    return f"{v:g}"
