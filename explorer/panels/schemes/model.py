"""Schemes panel, view 6: a real model's RoPE, from its config — frequencies, wavelengths against its lengths, the
attention factor and the expected score against distance, next to plain RoPE at the same base and rotary dim; per
layer type for a model whose layers differ (:mod:`.model_rope`), and the 3-D positions of a multimodal one
(:mod:`.model_mrope`)."""

from __future__ import annotations

import json

import numpy as np
from PySide6.QtWidgets import QComboBox, QFileDialog, QGridLayout, QHBoxLayout, QPushButton, QWidget

from ...encodings import EncodingError
from ...encodings.rope_config import load_shipped, read_config, resolve, shipped
from ...schemes.rope_model_tab import ModelRopeResponse
from ...snippets import NoSnippet
from ...snippets import schemes as snip
from ...widgets.notes import NotesLabel
from ...widgets.plain import esc
from .items import theme_info_label
from .model_mrope import MropePlots, axes_text
from .model_rope import MODEL, PLAIN, RopePlots
from .views import SchemesView, info_column

__all__ = ["MODEL", "PLAIN", "ModelView", "open_model_config"]

#: The combo box's entry for a model opened from a file (its name follows).
OPENED = "opened: "
#: From this width (px) the plots stand in one row.
WIDE = 1100


class ModelView(SchemesView):
    """One model's RoPE: its θ′ and wavelengths per pair, its lengths, its attention factor, its score curve."""

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
        self.open_button.clicked.connect(self._on_open)
        self.rope = RopePlots()
        self.mrope = MropePlots()
        # The one-rope plots, by the names the panel, the export and the tests use.
        self.freq, self.waves, self.score = self.rope.freq, self.rope.waves, self.rope.score
        self.curves, self.legend = self.rope.curves, self.rope.legend
        self.mrope.queryPicked.connect(lambda t: self.changeRequested.emit({"model_query": t}))

        outer.addWidget(self.rope.strip)
        plots = QWidget()
        plots.setObjectName("modelPlots")
        self.layout_grid = QGridLayout(plots)
        self.layout_grid.setContentsMargins(0, 0, 0, 0)
        self.layout_grid.setSpacing(4)
        outer.addWidget(plots, 1)
        for w in (*self.rope.plot_widgets(), self.rope.temp, *self.mrope.plot_widgets()):
            w.setParent(plots)  # the plots of the other modes wait hidden, never as windows of their own
            w.hide()
        self._wide: bool | None = None
        from ...widgets.theming import theme_bus

        theme_bus().themeChanged.connect(self._on_look)  # a bound slot: gone with the view
        self._mode = "rope"  # "rope" (one line of positions, per layer type or not) or "mrope"
        self.response: ModelRopeResponse | None = None
        self._arrange(True)

    def _arrange(self, wide: bool, force: bool = False) -> None:
        """Wide: the plots in one row.  Narrow (a 1280×720 projector): θ′ and wavelengths side by side, the score
        curve under them at full width; a model whose layers differ shows its wavelengths (their reach against
        the window), scores (and temperature) in one row, under its strip; M-RoPE two and two at every width."""
        if wide == self._wide and not force:
            return
        self._wide = wide
        every = self.rope.plot_widgets(True) + [self.rope.temp] + self.mrope.plot_widgets()
        for w in dict.fromkeys(every):
            self.layout_grid.removeWidget(w)
            w.setVisible(False)
        shown = self._shown_plots()
        one_row = self._mode == "rope" and (wide or self.rope.layered)
        for k, w in enumerate(shown):
            if one_row:
                self.layout_grid.addWidget(w, 0, k)
            elif len(shown) == 3 and k == 2:
                self.layout_grid.addWidget(w, 1, 0, 1, 2)
            else:
                self.layout_grid.addWidget(w, k // 2, k % 2)
            w.setVisible(True)
        for row in (0, 1):
            self.layout_grid.setRowStretch(row, 1 if row == 0 or not one_row else 0)
        for col in range(4):  # the plots of a row share its width equally
            self.layout_grid.setColumnStretch(col, 1 if col < (len(shown) if one_row else 2) else 0)
        # Narrow, the θ′ plot is too small for a legend: the full-width score plot's title names the colours; a
        # model whose layers differ names its colours in the strip above the plots.
        self.rope.legend.setVisible(wide and self._mode == "rope" and not self.rope.layered)
        self.rope.strip.setVisible(self._mode == "rope" and self.rope.layered)
        self._retitle()

    def _shown_plots(self) -> list:
        if self._mode == "mrope":
            return self.mrope.plot_widgets()
        return self.rope.plot_widgets(bool(self._wide))

    def _retitle(self) -> None:
        from ...widgets.theming import current_theme

        self.score.getPlotItem().setTitle(self.rope.score_title(self.response, bool(self._wide), current_theme()))
        self.rope.retitle(bool(self._wide))
        self.mrope.retitle(current_theme())

    def plot_widgets(self) -> list:
        """The plots of the model shown (the stage, export and theming act on them)."""
        return self._shown_plots()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._arrange(self._is_wide(event.size().width()))
        super().resizeEvent(event)

    def _on_look(self, *_args) -> None:
        self._arrange(self._is_wide(self.width()))

    @staticmethod
    def _is_wide(width: int) -> bool:
        """Wide enough for every plot in one row at the current text size (presenter's larger titles and ticks
        need more: at 1280 × 720 with the controls in their drawer, four plots in a row cut their titles)."""
        from ...widgets.theming import theme_bus

        return width >= WIDE * theme_bus().text_scale

    # -- the model choice ---------------------------------------------------------------------------
    def _on_combo_activated(self, index: int) -> None:
        cid = self.combo.itemData(index)
        if cid:
            self.changeRequested.emit({"model": cid, "model_query": -1})

    def ask_config_path(self) -> str:
        """The config.json to open ("" if none; the GUI monkey and the tests answer this themselves)."""
        return QFileDialog.getOpenFileName(self, "Open model config", "", "Model config (*.json);;All files (*)")[0]

    def _on_open(self) -> None:
        spec, error = open_model_config(self.ask_config_path())
        if error:
            self.failed.emit(error)
        elif spec:
            self.changeRequested.emit({"model": spec, "model_query": -1})

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
    def show_response(self, r: ModelRopeResponse) -> None:
        self.response = r
        m = r.model
        mode = "mrope" if r.mrope is not None else "rope"
        self.rope.show(r)
        if r.mrope is not None:
            self.mrope.show(r.mrope, r.theta)
        layout = (mode, self.rope.layered, self.rope.has_temperature)
        if layout != getattr(self, "_layout_key", None):
            self._layout_key = layout
            self._mode = mode
            self._arrange(bool(self._wide), force=True)
        self._retitle()
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
        scale = ("" if r.softmax_scale == 1.0 else f" Its attention multiplies the softmax scale 1/√d by "
                 f"{r.softmax_scale:.4g} (transformers' yarn_apply_mscale), so the curve does too.")
        source = f"<br><i>Source: {esc(m.source)}</i>" if m.source else ""
        name = esc(m.name or "Model", 120)  # a config's _name is anyone's text
        if r.mrope is not None:
            return (f"<b>{name}</b>: M-RoPE — each token has a position (t, h, w); pairs turn with one axis each "
                    f"({axes_text(r.mrope)}{', dealt out in turn' if m.mrope and m.mrope.interleaved else ''}). "
                    "Text tokens have t = h = w; an image's patches share t and count rows and columns from where "
                    "the image starts; the next text resumes after max(rows, columns). Click a token or a patch to "
                    "make it the query." + source)
        if r.layer_curves:
            return (f"<b>{name}</b>: {esc(r.summary)}. One curve per layer type; a sliding (or chunked) "
                    "layer's score stops at its window, past which its keys are masked; NoPE layers (N) do not "
                    "rotate at all (the dotted line)."
                    + (" Llama 4 multiplies their queries at position p by τ(p) = a·ln(1 + ⌊(p + 1)/F⌋) + 1."
                       if r.temperature is not None else "") + scale + source)
        return (f"<b>{name}</b> ({m.rope_type}): {rotate}; {moved}. cos and sin × attention factor "
                f"a = {r.attention_factor:.4g}.{scale} Score: mean of q·R(Δ)q/|q|² over q ~ N(0, I), exact block "
                f"means (line) and min–max (band) over log-spaced blocks of distances.{clip}" + source)

    # -- Save numbers, Copy as Python, file names -----------------------------------------------------------
    def _which(self, plot) -> str:
        """"freq", "waves" or "score" for the one-rope plots ("" for another)."""
        return {id(self.freq): "freq", id(self.waves): "waves", id(self.score): "score"}.get(id(plot), "")

    def export_data(self, plot) -> dict | None:
        """Exact: θ′ and wavelengths per pair, the score curve's block statistics (per layer type for a model whose
        layers differ); the temperature; an M-RoPE model's ids, axes and scores."""
        r = self.response
        if r is None:
            return None
        if r.temperature is not None and plot is self.rope.temp:
            return {"query position p": r.temperature[0], "τ(p)": r.temperature[1]}
        if r.mrope is not None and (found := self._mrope_data(plot)) is not None:
            return found
        which = self._which(plot)
        if not which:
            return None
        k = np.arange(r.theta.size, dtype=np.float64)
        if which == "freq":
            out = {"pair i": k, "plain RoPE θ": r.theta_plain, "model θ′": r.theta}
        elif which == "waves":
            out = {"pair i": k, "plain RoPE wavelength": 2 * np.pi / r.theta_plain,
                   "model wavelength": 2 * np.pi / r.theta}
        else:
            out = {"distance Δ (block centre)": r.distance}
            for who, stats in (("plain RoPE", r.plain), ("model", r.scaled)):
                out.update({f"{who} {what}": v for what, v in zip(("mean", "min", "max"), stats, strict=True)})
        for c in r.layer_curves:  # a model whose layers differ: each layer type's own
            if which == "score":
                out.update({f"{c.layer_type} {what}": v for what, v in zip(("mean", "min", "max"), c.score,
                                                                             strict=True)})
            else:
                out[f"{c.layer_type} θ′" if which == "freq" else f"{c.layer_type} wavelength"] = (
                    c.theta if which == "freq" else 2 * np.pi / c.theta)
        return out

    def _mrope_data(self, plot) -> dict | None:
        r = self.response
        assert r is not None and r.mrope is not None
        mr, mp = r.mrope, self.mrope
        if plot is mp.ids:
            return {"token": np.arange(mr.ids.shape[1], dtype=np.float64),
                    **{f"{a} id": mr.ids[k].astype(np.float64) for k, a in enumerate("thw")}}
        if plot is mp.axes:
            return {"pair i": np.arange(r.theta.size, dtype=np.float64), "θ": r.theta,
                    "axis (0 t, 1 h, 2 w)": mr.axes.astype(np.float64)}
        if plot is mp.tokens:
            return {"token": np.arange(mr.scores.size, dtype=np.float64), f"score from token {mr.query}": mr.scores}
        if plot is mp.image:
            return {f"score from token {mr.query} on the image (rows, columns)": mr.image_scores}
        return None

    def export_snippet(self, plot, title: str):
        which = self._which(plot)
        if which:
            return NoSnippet("the plot has not drawn yet") if self.response is None else snip.model_plot(
                self.response, which, title)
        if plot in (self.rope.temp, *self.mrope.plot_widgets()):
            return NoSnippet("no program: `pe-explorer data rope-frequencies --config …` (per layer type, with the "
                             "temperature) or `data mrope-positions`; Export → Save numbers writes the plot")
        return None

    def export_basename(self, st) -> str:
        """``schemes_model_<id>``, or ``schemes_model_opened`` for a config opened from a file."""
        return f"schemes_model_{'opened' if st.model.lstrip().startswith('{') else st.model}"

    def apply_theme(self, theme) -> None:
        theme_info_label(self.info, theme)
        self.rope.strip.set_theme(theme)
        self._retitle()
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
