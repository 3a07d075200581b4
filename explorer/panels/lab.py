"""Lab panel: train short, test long — run the experiment of Press et al. 2022 in a minute on a laptop.

One tiny transformer per ticked scheme learns the two-back language (see :mod:`explorer.lab.task`) at
training length L, then is tested on streams up to 8 × L.  Training runs as a long job of the compute
service (:class:`~explorer.panels.lab_run.LabRunner`), on a service-owned worker that is not the
interactive one, so every other panel keeps updating; progress reaches the UI thread through the job's
callbacks.  The panel draws what it is sent.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from .. import schemes as registry
from ..fileio import OutputError, atomic_write_text
from ..lab import (
    SCHEME_LABELS,
    LabConfig,
    LabError,
    LabResult,
    Progress,
    fmt_percent,
    headline,
    rule_facts,
    run_experiment,
)
from ..state import StateError
from ..state.lab import MAX_EVAL_LENS, MAX_TRAIN_LEN, LabState
from ..widgets.notes import NotesLabel
from ..widgets.reflow import ReflowGrid
from ..widgets.value_box import SpinBox, clip_text, feedback, route_undo
from .base import Panel
from .lab_run import LabRunControl, LabRunner, _eta
from .lab_table import LearnedTableButton
from .lab_views import SCHEME_COLOURS, LengthPlot, LossPlot, PositionPlot, ResultsTable, show_key
from .schemes_items import line_style


def _swatch(colour: str, style=Qt.PenStyle.SolidLine) -> QIcon:
    """A square of the scheme's colour; a scheme drawn dashed or dotted (it shares a colour) gets a line sample."""
    pm = QPixmap(14, 14)
    if style == Qt.PenStyle.SolidLine:
        pm.fill(QColor(colour))
        return QIcon(pm)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    pen = QPen(QColor(colour), 3)
    pen.setStyle(style)
    p.setPen(pen)
    for y in (3, 7, 11):
        p.drawLine(0, y, 14, y)
    p.end()
    return QIcon(pm)


def _padded(values, n: int) -> np.ndarray:
    out = np.full(n, np.nan)
    v = np.asarray(values, dtype=np.float64)[:n]
    out[: v.size] = v
    return out


class LabPanel(LearnedTableButton, LabRunControl, Panel):
    no_snippet = "trained by a run: not reproducible without it; Export → Save numbers gives the data"  # no program
    panel_id = "lab"
    state_cls = LabState

    def __init__(self, service, state=None, parent=None) -> None:
        super().__init__(service, state, parent)
        self.runner = LabRunner(service, self)
        self.result: LabResult | None = None
        self._partial: list = []
        self._run_config: LabConfig | None = None
        self._t_start = 0.0
        self._initial_drawn = False
        self._shut_down = False
        row = QHBoxLayout()
        row.addWidget(self.make_sidebar(self._build_controls()))
        right = QVBoxLayout()
        self.task_label = QLabel()
        self.task_label.setObjectName("labTask")
        self.task_label.setWordWrap(True)
        self.task_label.setTextFormat(Qt.TextFormat.RichText)
        self.task_label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.explain.adopt(self.task_label)  # the task, in "What am I looking at?"
        # One line over the plots (click for all of it): three wrapped lines took a 720p screen's plots.
        self.headline = NotesLabel()
        self.headline.setObjectName("labHeadline")
        right.addWidget(self.headline)
        # One key for the three plots, shown where a plot is too small for its own legend.
        self.key = QLabel()
        self.key.setObjectName("labKey")
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setWordWrap(True)  # two rows on a 1024-px presenter screen
        self.key.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Maximum)
        self.key.setVisible(False)
        right.addWidget(self.key)
        self.loss_view = LossPlot()
        self.length_view = LengthPlot()
        self.position_view = PositionPlot()
        self.table = ResultsTable()
        # Two columns where they fit at a readable size, one (scrolling) where not.
        grid = ReflowGrid((260, 190), max_cols=2)
        grid.setObjectName("labGrid")
        grid.set_cells([self.loss_view.plot, self.length_view.plot, self.position_view.plot, self.table])
        right.addWidget(grid, 1)
        row.addLayout(right, 1)
        self.body.addLayout(row)
        for view in (self.loss_view, self.length_view, self.position_view):
            view.legend.fitter.changed.connect(self._update_key)
        self.runner.progressed.connect(self._on_runner_progressed)
        self.runner.finished.connect(self._on_runner_finished)
        self.runner.failed.connect(self._on_runner_failed)
        self._apply_fonts(1.0)
        self.set_state(self.state)
        self._set_running(False)
        self._initial_drawn = True
        # Tell the window (theme, export menus, "all drawn") once the event loop runs.
        QTimer.singleShot(0, self, lambda: self.drawn.emit("lab"))

    # -- controls --------------------------------------------------------------------------------
    def _build_controls(self) -> QWidget:
        box = QWidget()
        box.setObjectName("labControls")
        box.setMinimumWidth(300)
        col = QVBoxLayout(box)
        col.setContentsMargins(0, 0, 6, 0)
        self.scheme_box = QGroupBox("Schemes to train")
        sl = QVBoxLayout(self.scheme_box)
        self.scheme_checks: dict[str, QCheckBox] = {}
        for s in registry.lab_ids():
            cb = QCheckBox(SCHEME_LABELS[s])
            cb.setObjectName(f"labScheme_{s}")
            cb.setIcon(_swatch(SCHEME_COLOURS[s], line_style(s)))
            cb.setToolTip(registry.get(s).lab_note)
            cb.toggled.connect(lambda on, s=s: self._change(**{f"scheme_{s}": on}))
            sl.addWidget(cb)
            self.scheme_checks[s] = cb
        col.addWidget(self.scheme_box)
        self.settings_box = QGroupBox("Experiment")
        form = QFormLayout(self.settings_box)
        self.train_len_spin = SpinBox(minimum=8, maximum=MAX_TRAIN_LEN, singleStep=8)
        self.train_len_spin.setToolTip("Length of every training stream; the learned table gets this many "
                                       "rows")
        self.eval_edit = QLineEdit()
        self.eval_edit.setToolTip(f"Up to {MAX_EVAL_LENS} lengths, comma-separated, each at most 8 × L")
        route_undo(self.eval_edit)
        self.steps_spin = SpinBox(minimum=10, maximum=20000, singleStep=100)
        self.steps_spin.setToolTip("Optimiser steps per scheme (batches of 32 streams)")
        self.seed_spin = SpinBox(minimum=0, maximum=2**31 - 1)
        self.seed_spin.setToolTip("Seeds the rule table, the data and the initial weights: same seed, "
                                  "same run")
        form.addRow("Train length L", self.train_len_spin)
        form.addRow("Test lengths", self.eval_edit)
        form.addRow("Training steps", self.steps_spin)
        form.addRow("Seed", self.seed_spin)
        col.addWidget(self.settings_box)
        self.train_len_spin.valueChanged.connect(lambda v: self._change(train_len=v))
        self.eval_edit.editingFinished.connect(self._on_eval_edited)
        self.steps_spin.valueChanged.connect(lambda v: self._change(steps=v))
        self.seed_spin.valueChanged.connect(lambda v: self._change(seed=v))

        buttons = QHBoxLayout()
        self.start_button = QPushButton("Start")
        self.start_button.setObjectName("labStart")
        self.start_button.setDefault(True)
        self.pause_button = QPushButton("Pause")
        self.pause_button.setObjectName("labPause")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("labCancel")
        for b in (self.start_button, self.pause_button, self.cancel_button):
            buttons.addWidget(b)
        col.addLayout(buttons)
        self.start_button.clicked.connect(self.start)
        self.pause_button.clicked.connect(self._on_pause_clicked)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.progress.setFormat("%p %")
        col.addWidget(self.progress)
        self.status = QLabel("Ready. The default run takes about a minute on a laptop CPU.")
        self.status.setObjectName("labStatus")
        self.status.setWordWrap(True)
        col.addWidget(self.status)
        files = QHBoxLayout()
        self.open_button = QPushButton("Open results…")
        self.open_button.setToolTip("Show a run saved earlier (e.g. a longer one from `pe-explorer lab`)")
        self.save_button = QPushButton("Save results…")
        self.save_button.setToolTip("Save this run (settings, losses, accuracies) as JSON")
        files.addWidget(self.open_button)
        files.addWidget(self.save_button)
        col.addLayout(files)
        self.add_table_button(col)
        self.open_button.clicked.connect(self._on_open_clicked)
        self.save_button.clicked.connect(self._on_save_clicked)
        self.model_label = QLabel()
        self.model_label.setObjectName("labModel")
        self.model_label.setWordWrap(True)
        col.addWidget(self.model_label)
        col.addStretch(1)
        return box

    def _change(self, **changes) -> None:
        try:
            self.set_state(self.state.clamped(**changes))
        except StateError as exc:
            self.banner.show_error(str(exc))
            self._block_and_sync()
        else:
            self.banner.clear_error()

    def _on_eval_edited(self) -> None:
        if not self.eval_edit.isModified():
            return  # focus left a box nobody typed in
        typed = self.eval_edit.text()
        text = typed.replace(";", ",").replace(" ", ",")
        parts = [p for p in text.split(",") if p.strip()]
        lens = tuple(int(p) for p in parts) if all(p.strip().isascii() and p.strip().isdigit()
                                                   and len(p.strip()) < 10 for p in parts) else None
        problem = "test lengths must be whole numbers separated by commas" if lens is None else None
        if lens is not None:
            try:
                self.set_state(dataclasses.replace(self.state, eval_lens=lens))
            except StateError as exc:
                problem = str(exc)
        if problem is not None:  # the reason under the box; the lengths in use shown again
            feedback(self.eval_edit).refuse(problem, f"Test lengths: “{clip_text(typed, 24)}” refused; kept "
                                                     f"{', '.join(map(str, self.state.eval_lens))}")
            self._block_and_sync()
        else:
            feedback(self.eval_edit).clear()
            self.banner.clear_error()
        self.eval_edit.setModified(False)

    def sync_widgets(self, st: LabState) -> None:
        for s, cb in self.scheme_checks.items():
            cb.setChecked(st.trains(s))
        self.train_len_spin.setValue(st.train_len)
        self.eval_edit.setText(", ".join(map(str, st.eval_lens)))
        self.steps_spin.setValue(st.steps)
        self.seed_spin.setValue(st.seed)
        self.formula.setText(self.formula_text(st))
        if not self.runner.running and self.result is None:
            self._show_empty(st)

    # -- the Panel contract: no service requests; the runner does the work --------------------------
    def requests(self, state) -> list:
        return []

    def show_result(self, response) -> None:  # pragma: no cover - the Lab never asks the service
        pass

    @property
    def has_drawn(self) -> bool:
        # The labelled, explained empty view counts: a screenshot must not wait for a training run.
        return self._initial_drawn

    def formula_text(self, st) -> str:
        cfg = self._config(st)
        top = cfg.max_eval_len
        return (
            f"x<sub>t+1</sub> = T[x<sub>t−1</sub>, x<sub>t</sub>] (1 time in {round(1 / cfg.noise)}: random) · "
            "accuracy(L): top guess = T[x<sub>t−1</sub>, x<sub>t</sub>] at t = 1 … L−1 · "
            f"trained at L = {cfg.train_len} for {cfg.steps} steps, tested up to {top} "
            f"= {top / cfg.train_len:g} × L · {cfg.layers} layers, d = {cfg.d_model}, {cfg.heads} heads, "
            f"seed {cfg.seed}"
        )

    def export_basename(self) -> str:
        st = self.state
        return f"lab_twoback_L{st.train_len}_s{st.seed}"

    def export_data(self, plot) -> dict:
        """Exact numbers behind each plot, from the result (not the screen): NaN where a scheme cannot run."""
        done = [s for s in self._partial if s.status == "done"]
        if plot is self.loss_view.plot:
            n = max((v.size for v in self.loss_view.losses.values()), default=0)
            out = {"step": np.arange(1, n + 1, dtype=np.float64)}
            for s, v in self.loss_view.losses.items():
                if v.size:
                    out[f"{SCHEME_LABELS[s]} loss"] = _padded(v, n)
                    out[f"{SCHEME_LABELS[s]} trailing mean"] = _padded(self.loss_view.smoothed(s), n)
            return out
        if plot is self.length_view.plot and self._run_config is not None:
            lens = self._run_config.eval_lens
            out = {"test length": np.asarray(lens, dtype=np.float64)}
            for s in done:
                out[f"{SCHEME_LABELS[s.scheme]} accuracy (%)"] = np.array(
                    [100 * r.accuracy if (r := s.at(n)) is not None and r.ran else np.nan for n in lens])
            return out
        if plot is self.position_view.plot and self._run_config is not None:
            n = self._run_config.max_eval_len - 1
            out = {"position": np.arange(1, n + 1, dtype=np.float64)}
            for s in done:
                acc = 100 * np.asarray(s.position_accuracy)
                out[f"{SCHEME_LABELS[s.scheme]} accuracy (%)"] = _padded(acc, n)
            return out
        return super().export_data(plot)

    # -- views -----------------------------------------------------------------------------------
    def _config(self, st: LabState | None = None) -> LabConfig:
        return LabConfig.from_state(st or self.state)

    def _show_empty(self, st: LabState) -> None:
        cfg = self._config(st)
        self._prepare_views(cfg)
        self._set_headline("")

    def _prepare_views(self, cfg: LabConfig, facts=None) -> None:
        facts = facts or rule_facts(cfg.vocab, cfg.noise, cfg.seed, cfg.eval_batch, cfg.max_eval_len)
        self.loss_view.prepare(cfg.schemes, cfg.steps, facts.loss_floor, 1.25 * math.log(cfg.vocab))
        self.length_view.prepare(list(cfg.eval_lens), cfg.train_len, facts.chance, facts.last_symbol_baseline)
        self.position_view.prepare(cfg.max_eval_len, cfg.train_len)
        self.table.prepare(cfg.schemes, cfg.eval_lens, cfg.train_len)
        self.task_label.setText(self._task_text(cfg, facts))
        self.model_label.setText(
            f"Model: {cfg.layers} layers, d = {cfg.d_model}, {cfg.heads} heads, causal; AdamW, peak learning "
            f"rate {cfg.lr:g}, batches of {cfg.batch}; tested on {cfg.eval_batch} streams per length.")

    def _task_text(self, cfg: LabConfig, facts) -> str:
        return (
            "<b>Task: predict the next symbol.</b> Each symbol is set by the two before it, "
            "<i>in order</i>: x<sub>t+1</sub> = T[x<sub>t−1</sub>, x<sub>t</sub>] "
            f"(a random {cfg.vocab} × {cfg.vocab} table; 1 symbol in {round(1 / cfg.noise)} is noise, "
            "so streams never repeat). Swapping the two changes the answer for "
            f"<b>{fmt_percent(facts.order_sensitive_fraction)}</b> of pairs. The rule is the same at "
            "every position, so “look one back” works at any length — “at position 17, look at 16” "
            f"does not. <b>Train at L = {cfg.train_len}, test up to {cfg.max_eval_len}.</b>"
        )

    def _set_headline(self, text: str) -> None:
        self.headline.set_notes(text)
        self.headline.setVisible(bool(text))

    def _update_key(self) -> None:
        """The shared key: the run's schemes in their colours, while any plot's own legend is left out."""
        show_key(self.key, (self.loss_view, self.length_view, self.position_view), getattr(self, "_theme", None))

    def _apply_fonts(self, scale: float, colour: str | None = None) -> None:
        fg = f" color: {colour};" if colour else ""
        self.task_label.setStyleSheet(f"QLabel#labTask {{ font-size: {12 * scale:g}pt;{fg} }}")
        self.headline.setStyleSheet(
            f"QLabel#labHeadline {{ font-size: {13 * scale:g}pt; font-weight: 600;{fg} }}")
        self.key.setStyleSheet(f"QLabel#labKey {{ font-size: {12 * scale:g}pt;{fg} }}")
        f = self.table.font()
        f.setPointSizeF(12 * scale)
        self.table.setFont(f)

    def apply_theme(self, theme) -> None:
        self._theme = theme
        self._apply_fonts(theme.font_scale, theme.foreground)
        if hasattr(self, "loss_view"):  # built (the base class may restyle before the views exist)
            self.table.set_theme(theme)
            self._update_key()

    # -- running (pause, cancel and a run's end: LabRunControl) -------------------------------------
    def start(self) -> None:
        """Train one model per ticked scheme with the panel's settings, as a long job of the service."""
        if self.runner.running:
            return
        try:
            cfg = self._config()
        except LabError as exc:
            self.banner.show_error(str(exc))
            return
        self.banner.clear_error()
        self.result = None
        self._partial = []
        self._run_config = cfg
        self._prepare_views(cfg)
        self._set_headline("")
        self.progress.setValue(0)
        self.status.setText("Starting (loading torch the first time)…")
        self._t_start = time.monotonic()
        self.runner.start(cfg, run_experiment)  # looked up now: a test may stand in for it
        self._set_running(True)
        self.drawn.emit("lab")  # new curves: let the window theme them and add export menus

    def _on_runner_progressed(self, p: Progress) -> None:
        if p.new_losses:
            self.loss_view.append(p.scheme, p.first_step, p.new_losses)
        self.progress.setValue(int(round(1000 * p.fraction)))
        if p.scheme_result is not None:
            self._partial.append(p.scheme_result)
            self._show_results(self._partial)
        if p.phase == "done" or self.runner.paused:
            return
        name = SCHEME_LABELS[p.scheme]
        what = (f"Training {name} ({p.scheme_index + 1} of {p.n_schemes}) · step {p.step} of {p.steps}"
                if p.phase == "train" else f"Testing {name} ({p.scheme_index + 1} of {p.n_schemes})")
        loss = self.loss_view.losses.get(p.scheme)
        if p.phase == "train" and loss is not None and loss.size:
            what += f" · loss {loss[-20:].mean():.2f}"
        self.status.setText(f"{what}\nElapsed {_eta(p.elapsed_s)} · ETA {_eta(p.eta_s)} · {p.device.upper()}")

    def _show_results(self, schemes) -> None:
        self.enable_table_button(schemes)
        cfg = self._run_config
        self.length_view.show_schemes(schemes, cfg.train_len)
        self.position_view.show_schemes(schemes)
        self.table.show_schemes(schemes)
        self.drawn.emit("lab")

    def show_lab_result(self, result: LabResult, *, redraw_losses: bool = True) -> None:
        """Draw a whole result (a finished run, or one opened from a file)."""
        self.result = result
        self._run_config = result.config
        if redraw_losses:
            self._prepare_views(result.config, result.facts)
            for s in result.schemes:
                self.loss_view.set_losses(s.scheme, s.losses)
        self._partial = list(result.schemes)
        self._show_results(result.schemes)
        self._set_headline(headline(result))
        self.progress.setValue(1000 if result.status == "done" else self.progress.value())
        self._set_running(False)

    # -- files ------------------------------------------------------------------------------------
    def save_results(self, path: str) -> None:
        """Write the current result as JSON (atomically); raise OutputError/LabError."""
        if self.result is None:
            raise LabError("nothing to save yet: run the experiment first")
        atomic_write_text(path, self.result.to_json())

    def load_results(self, path: str) -> LabResult:
        """Read a result file and show it; raise LabError (with the reason) if it cannot be read."""
        result = LabResult.from_file(path)
        self.result = result
        # Show its settings too, so Start repeats it and the formula strip matches (when the panel's
        # limits allow them: a file may come from a CLI run with other sizes).
        cfg = result.config
        try:
            self.set_state(LabState(schemes=tuple(s for s in cfg.schemes if s in registry.lab_ids()),
                                    train_len=cfg.train_len, eval_lens=cfg.eval_lens, steps=cfg.steps,
                                    seed=cfg.seed))
        except StateError:
            pass
        self.show_lab_result(result)
        self.status.setText(f"Showing {path}")
        return result

    def _on_save_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save Lab results", f"{self.export_basename()}.json",
                                              "Lab results (*.json)")
        if not path:
            return
        try:
            self.save_results(path)
        except (OutputError, LabError) as exc:
            self.banner.show_error(str(exc))
        else:
            self.status.setText(f"Saved {path}")

    def _on_open_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open Lab results", "", "Lab results (*.json)")
        if not path:
            return
        try:
            self.load_results(path)
        except LabError as exc:
            self.banner.show_error(str(exc))
