"""Lab panel: train short, test long — the experiments of Press et al. 2022 and Kazemnejad et al. 2023 in
minutes on a laptop.

One tiny transformer per ticked scheme learns the chosen task (the two-back language, copy, reverse,
addition, sorting, counting markers or the grid; see :mod:`explorer.lab.task`) at training length L, then is
tested at longer lengths (up to 8 × L; larger grids for the grid).
Every task run in this session stays in the results grid (tasks × schemes × lengths).  Training runs
as a long job of the compute service (:class:`~explorer.panels.lab.run.LabRunner`), on a service-owned
worker that is not the interactive one, so every other panel keeps updating; progress reaches the UI
thread through the job's callbacks.  The panel draws what it is sent.
"""

from __future__ import annotations

import dataclasses
import math
import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ... import schemes as registry
from ...lab import (
    SCHEME_LABELS,
    TASK_IDS,
    TASK_TITLES,
    TASK_WHY,
    LabConfig,
    LabError,
    LabResult,
    Progress,
    SequenceTask,
    headline,
    run_experiment,
    task_facts,
)
from ...state import StateError
from ...state.lab import MAX_EVAL_LENS, MAX_TRAIN_LEN, LabState
from ...widgets.notes import NotesLabel
from ...widgets.plain import plain_label
from ...widgets.reflow import ReflowGrid
from ...widgets.value_box import SpinBox, clip_text, feedback, route_undo
from ..base import Panel
from ..schemes.items import line_style
from .accuracy_plots import LengthPlot, PositionPlot
from .common import SCHEME_COLOURS, scheme_colour, show_key
from .files import LabFiles
from .grid import ResultsGrid
from .loss_plot import LossPlot
from .model import LabModelBox
from .run import LabRunControl, LabRunner, _eta
from .table import LearnedTableButton
from .text import formula_text, model_text, task_text


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


class LabPanel(LearnedTableButton, LabModelBox, LabRunControl, LabFiles, Panel):
    no_snippet = "trained by a run: not reproducible without it; Export → Save numbers gives the data"  # no program
    panel_id = "lab"
    state_cls = LabState

    def __init__(self, service, state=None, parent=None, *, links=None) -> None:
        super().__init__(service, state, parent, links=links)
        self.runner = LabRunner(service, self)
        self.result: LabResult | None = None
        #: The last finished (or opened) run of each task: the results grid.
        self.results: dict[str, LabResult] = {}
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
        # This run's task beside the plots (schemes × lengths: it never scrolls sideways); every task run so
        # far on a tab of its own, large enough to read from the back of a lecture hall.
        self.table = ResultsGrid(titles=False)
        self.grid = ResultsGrid()
        grid = ReflowGrid((260, 190), max_cols=2)
        grid.setObjectName("labGrid")
        grid.set_cells([self.loss_view.plot, self.length_view.plot, self.position_view.plot, self.table])
        self.tabs = QTabWidget()
        self.tabs.setObjectName("labTabs")
        self.tabs.addTab(grid, "This run")
        self.tabs.addTab(self.grid, "Results grid: tasks × schemes")
        right.addWidget(self.tabs, 1)
        row.addLayout(right, 1)
        self.body.addLayout(row)
        for view in (self.loss_view, self.length_view, self.position_view):
            view.placer.changed.connect(self._update_key)
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
        self.task_box = QGroupBox("Task")
        tl = QVBoxLayout(self.task_box)
        self.task_combo = QComboBox()
        self.task_combo.setObjectName("labTaskChoice")
        for t in TASK_IDS:
            self.task_combo.addItem(TASK_TITLES[t], t)
        self.task_combo.setToolTip("What the models learn; each task has its own default L and steps")
        self.task_combo.currentIndexChanged.connect(self._on_task_chosen)
        self.task_why = QLabel()
        self.task_why.setObjectName("labTaskWhy")
        self.task_why.setWordWrap(True)
        self.reverse_check = QCheckBox("Answer reversed")
        self.reverse_check.setObjectName("labReverseAnswer")
        self.reverse_check.setToolTip("Write the sum least significant digit first, so the carry flows in "
                                      "the order the digits are written")
        self.reverse_check.toggled.connect(self._on_reverse_toggled)
        for w in (self.task_combo, self.task_why, self.reverse_check):
            tl.addWidget(w)
        col.addWidget(self.task_box)
        self.scheme_box = QGroupBox("Schemes to train")
        sl = QGridLayout(self.scheme_box)  # two columns, read down: 14 schemes in 7 rows, nothing hidden
        sl.setHorizontalSpacing(4)
        ids = registry.lab_ids()
        self.scheme_checks: dict[str, QCheckBox] = {}
        for i, s in enumerate(ids):
            cb = QCheckBox(SCHEME_LABELS[s])
            cb.setObjectName(f"labScheme_{s}")
            cb.setIcon(_swatch(SCHEME_COLOURS[s], line_style(s)))
            cb.setToolTip(registry.get(s).lab_note)
            cb.toggled.connect(lambda on, s=s: self._change(**{f"scheme_{s}": on}))
            rows = (len(ids) + 1) // 2
            sl.addWidget(cb, i % rows, i // rows)
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
        col.addWidget(self.build_model_box())  # layers, and the schemes' own settings (the hybrid's NoPE layers)
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
        self.status = plain_label("Ready. A default run takes one to three minutes on a laptop CPU.")  # file names
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

    def _on_task_chosen(self, index: int) -> None:
        self._change(task=self.task_combo.itemData(index))

    def _on_reverse_toggled(self, on: bool) -> None:
        self._change(reverse_answer=on)

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
        self.task_combo.setCurrentIndex(TASK_IDS.index(st.task))
        self.task_why.setText(TASK_WHY[st.task])
        self.reverse_check.setChecked(st.reverse_answer)
        self.reverse_check.setVisible(st.task == "addition")
        for s, cb in self.scheme_checks.items():
            cb.setChecked(st.trains(s))
        self.train_len_spin.setValue(st.train_len)
        self.eval_edit.setText(", ".join(map(str, st.eval_lens)))
        self.steps_spin.setValue(st.steps)
        self.seed_spin.setValue(st.seed)
        self.sync_model_box(st)
        self.formula.setText(self.formula_text(st))
        if self.runner.running:
            return
        if self.result is not None and self.result.config.task != st.task:
            # Another task: its last run if there is one, else its empty, labelled views.
            stored = self.results.get(st.task)
            if stored is not None:
                self.show_lab_result(stored)
                return
            self.result = None
        if self.result is None:
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
        return formula_text(self._config(st))

    # -- views -----------------------------------------------------------------------------------
    def _config(self, st: LabState | None = None) -> LabConfig:
        return LabConfig.from_state(st or self.state)

    def _show_empty(self, st: LabState) -> None:
        cfg = self._config(st)
        self._prepare_views(cfg)
        self._set_headline("")

    def _prepare_views(self, cfg: LabConfig, facts=None) -> None:
        facts = facts or task_facts(cfg)
        if cfg.scored_by_exact_match:
            seq = SequenceTask(cfg.task, cfg.vocab, cfg.reverse_answer)
            tokens = seq.n_tokens
            self.position_view.prepare(cfg.max_eval_len, seq.answer_len(cfg.train_len),
                                       answer=seq.answer_len(cfg.max_eval_len))
        else:
            tokens = cfg.vocab
            self.position_view.prepare(cfg.max_eval_len, cfg.train_len, grid=cfg.task == "grid")
        self.loss_view.prepare(cfg.schemes, cfg.steps, facts.loss_floor, 1.25 * math.log(tokens))
        self.length_view.prepare(list(cfg.eval_lens), cfg.train_len, facts.chance, facts.last_symbol_baseline,
                                 "exact" if cfg.scored_by_exact_match else "accuracy", grid=cfg.task == "grid")
        self._show_grid(cfg, [])
        self.task_label.setText(task_text(cfg, facts))
        self.model_label.setText(model_text(cfg))
        self._update_key()

    def finished_runs(self) -> list[LabResult]:
        """The grid's finished runs, in task order."""
        return [self.results[t] for t in TASK_IDS if t in self.results]

    def _show_grid(self, cfg: LabConfig, schemes) -> None:
        """The grid: every task's last run, with ``cfg``'s task showing ``schemes`` (the run in progress)."""
        runs = [(r.config, list(r.schemes), headline(r)) for r in self.finished_runs() if r.config.task != cfg.task]
        mine = self.results.get(cfg.task)
        runs.append((cfg, list(schemes), headline(mine) if mine is not None and mine.config == cfg and
                     list(mine.schemes) == list(schemes) else ""))
        runs.sort(key=lambda run: TASK_IDS.index(run[0].task))
        self.grid.show_runs(runs)
        self.table.show_runs([(cfg, list(schemes))])

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
        # The run's table shares a plot's cell: smaller, so "100" is not cut to "…" at 720p presenter.
        for table, pt in ((self.table, 10), (self.grid, 12)):
            f = table.font()
            f.setPointSizeF(pt * scale)
            table.setFont(f)

    def apply_theme(self, theme) -> None:
        self._theme = theme
        self._apply_fonts(theme.font_scale, theme.foreground)
        for s, cb in getattr(self, "scheme_checks", {}).items():
            cb.setIcon(_swatch(scheme_colour(s, theme).name(), line_style(s)))  # as the plots draw it
        if hasattr(self, "loss_view"):  # built (the base class may restyle before the views exist)
            self.table.set_theme(theme)
            self.grid.set_theme(theme)
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
        assert cfg is not None, "a run's results come after the run (or the file) set its config"
        self.length_view.show_schemes(schemes, cfg.train_len)
        self.position_view.show_schemes(schemes)
        self._show_grid(cfg, schemes)
        self._update_key()  # the run's schemes, which the key names while a legend is left out
        self.drawn.emit("lab")

    def show_lab_result(self, result: LabResult, *, redraw_losses: bool = True) -> None:
        """Draw a whole result (a finished run, or one opened from a file)."""
        self.result = result
        if result.status == "done" or result.config.task not in self.results:
            self.results[result.config.task] = result
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
