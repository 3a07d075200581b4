"""The Lab panel's files and exports: Save/Open results (one run or a tasks grid, as JSON) and the exact
numbers behind each plot.  A mixin of :class:`~explorer.panels.lab.LabPanel`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtWidgets import QFileDialog

from ... import schemes as registry
from ...fileio import OutputError, atomic_write_text
from ...lab import SCHEME_LABELS, LabError, LabGrid, LabResult, SequenceTask
from ...state import StateError
from ...state.lab import LabState

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel

    from ...lab import LabConfig, SchemeResult
    from ..base import Panel as _PanelBase
    from .accuracy_plots import LengthPlot, PositionPlot
    from .loss_plot import LossPlot
else:
    _PanelBase = object


def _padded(values, n: int) -> np.ndarray:
    out = np.full(n, np.nan)
    v = np.asarray(values, dtype=np.float64)[:n]
    out[: v.size] = v
    return out


class LabFiles(_PanelBase):
    """Save/Open and the exports of the Lab panel (which holds ``result``, ``results`` and the views)."""

    # What the Lab panel builds and this mixin uses.
    result: LabResult | None
    results: dict[str, LabResult]
    _partial: list[SchemeResult]
    _run_config: LabConfig | None
    loss_view: LossPlot
    length_view: LengthPlot
    position_view: PositionPlot
    status: QLabel
    finished_runs: Callable[[], list[LabResult]]
    show_lab_result: Callable[..., None]

    def export_basename(self) -> str:
        st = self.state
        return f"lab_{'twoback' if st.task == 'rule' else st.task}_L{st.train_len}_s{st.seed}"

    def export_data(self, plot) -> dict:
        """Exact numbers behind each plot, from the result (not the screen): NaN where a scheme cannot run."""
        done = [s for s in self._partial if s.status == "done"]
        cfg = self._run_config
        if plot is self.loss_view.plot:
            n = max((v.size for v in self.loss_view.losses.values()), default=0)
            out = {"step": np.arange(1, n + 1, dtype=np.float64)}
            for sid, v in self.loss_view.losses.items():
                if v.size:
                    out[f"{SCHEME_LABELS[sid]} loss"] = _padded(v, n)
                    out[f"{SCHEME_LABELS[sid]} trailing mean"] = _padded(self.loss_view.smoothed(sid), n)
            return out
        if plot is self.length_view.plot and cfg is not None:
            lens = cfg.eval_lens
            out = {"test length": np.asarray(lens, dtype=np.float64)}
            fields = (("exact", "exact match"), ("accuracy", "per-token accuracy")) if cfg.scored_by_exact_match \
                else (("accuracy", "accuracy"),)
            for s in done:
                for attr, name in fields:
                    out[f"{SCHEME_LABELS[s.scheme]} {name} (%)"] = np.array(
                        [100 * getattr(r, attr) if (r := s.at(n)) is not None and r.ran else np.nan for n in lens])
            return out
        if plot is self.position_view.plot and cfg is not None:
            if cfg.scored_by_exact_match:
                n, key = SequenceTask(cfg.task, cfg.vocab, cfg.reverse_answer).answer_len(cfg.max_eval_len), \
                    "answer token"
            else:
                n, key = cfg.max_eval_len - 1, "row" if cfg.task == "grid" else "position"
            out = {key: np.arange(1, n + 1, dtype=np.float64)}
            for s in done:
                acc = 100 * np.asarray(s.position_accuracy)
                out[f"{SCHEME_LABELS[s.scheme]} accuracy (%)"] = _padded(acc, n)
            return out
        return super().export_data(plot)

    # -- files ------------------------------------------------------------------------------------
    def save_results(self, path: str) -> None:
        """Write the run shown as JSON (atomically), or every task's run when there are several (a grid);
        raise OutputError/LabError."""
        if self.result is None:
            raise LabError("nothing to save yet: run the experiment first")
        runs = self.finished_runs()
        text = self.result.to_json() if len(runs) <= 1 else LabGrid(tuple(runs)).to_json()
        atomic_write_text(path, text)

    def load_results(self, path: str) -> LabResult:
        """Read a result or grid file and show it; raise LabError (with the reason) if it cannot be read.

        Every task in the file joins the grid; the last one is shown in the plots."""
        grid = LabGrid.from_file(path)
        for r in grid.results:
            self.results[r.config.task] = r
        result = grid.results[-1]
        self.result = result
        # Show its settings too, so Start repeats it and the formula strip matches (when the panel's
        # limits allow them: a file may come from a CLI run with other sizes).
        cfg = result.config
        try:
            self.set_state(LabState(task=cfg.task, reverse_answer=cfg.reverse_answer,
                                    schemes=tuple(s for s in cfg.schemes if s in registry.lab_ids()),
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
