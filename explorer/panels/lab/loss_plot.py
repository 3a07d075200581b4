"""The Lab panel's live plot: each scheme's training loss per step, faint, and a trailing mean, bold."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from ...lab import SCHEME_LABELS, moving_average
from ...widgets.plots import make_plot
from .common import hint, key_when_exported, legend_under, ref_line, scheme_pen


class LossPlot:
    """Training loss per step for each scheme: each step faint, a trailing mean bold.

    ``.plot`` is the widget (as for every view here).
    """

    def __init__(self, parent=None) -> None:
        self.plot = make_plot("Training loss (live)", x="training step", y="loss (nats)",
                              parent=parent)
        self.plot.setObjectName("labLossPlot")
        self.pi = self.plot.getPlotItem()
        self.legend, self.placer = legend_under(self.plot)
        self.floor = ref_line(0.0, 0, "", Qt.PenStyle.DashLine, label_pos=0.03, anchors=[(0, 0), (0, 0)])
        self.pi.addItem(self.floor)
        self.hint = hint("Press Start: one model per scheme\ntrains here, live.")
        self.pi.addItem(self.hint)
        self.raw: dict[str, pg.PlotDataItem] = {}
        self.smooth: dict[str, pg.PlotDataItem] = {}
        self.losses: dict[str, np.ndarray] = {}
        self._steps = 1
        self._range: tuple[float, float] | None = None  # the floor and the top of the loss axis
        self.pi.getViewBox().sigResized.connect(self._fit_floor_room)
        key_when_exported(self.plot, self.placer, self.smooth)

    def prepare(self, schemes, steps: int, floor: float, top: float) -> None:
        """Empty curves for ``schemes``; axes from 0 to ``steps`` and from the floor to ``top``."""
        for item in list(self.raw.values()) + list(self.smooth.values()):
            self.pi.removeItem(item)  # and its legend row
        self.raw.clear()
        self.smooth.clear()
        self.losses = {s: np.empty(0) for s in schemes}
        self._steps = max(1, int(steps))
        for s in schemes:
            raw = pg.PlotDataItem(pen=scheme_pen(s, 1.0, alpha=70),
                                  name=f"{SCHEME_LABELS[s]} (each step)")
            smooth = pg.PlotDataItem(pen=scheme_pen(s, 3.0), name=SCHEME_LABELS[s])
            for item in (raw, smooth):
                item.setDownsampling(auto=True, method="peak")
                item.setClipToView(True)
            self.pi.addItem(raw, in_legend=False)  # one legend row per scheme: the bold curve
            self.pi.addItem(smooth)
            self.raw[s], self.smooth[s] = raw, smooth
        self.placer.place()  # its rows for these schemes (or none), now
        self.set_floor(floor)
        self.pi.setXRange(0, self._steps, padding=0.02)
        self._range = (floor, top)
        self._fit_floor_room()
        self.hint.setAnchor((0, 0.5))
        self.hint.setPos(0.04 * self._steps, floor + 0.3 * (top - floor))
        self.hint.setVisible(True)

    def _fit_floor_room(self, *_args) -> None:
        """Room under the floor for its label (hung below the line, where no curve goes), a line of the label's
        text at the plot's height now: a fixed share was 23 px at 720p presenter, under the label's 29."""
        if self._range is None:
            return
        floor, top = self._range
        text = self.floor.label.textItem.boundingRect().height() + 4
        height = max(self.pi.getViewBox().height(), 3 * text)
        span = (top - floor) * 1.02
        below = span * text / (height - text)
        self.pi.setYRange(floor - below, floor + span, padding=0)

    def set_floor(self, floor: float) -> None:
        self.floor.setValue(floor)
        # The rule's floor is the noise's entropy; a task with one right answer can reach 0.
        self.floor.label.setFormat(f"best possible {floor:.2f} (the noise)" if floor > 0 else "best possible 0")

    def append(self, scheme: str, first_step: int, losses) -> None:
        """Add the losses of steps ``first_step`` … (0-based) to ``scheme``'s curves."""
        if scheme not in self.losses or not len(losses):
            return
        cur = self.losses[scheme][:first_step]
        self.losses[scheme] = np.concatenate([cur, np.asarray(losses, dtype=np.float64)])
        self._draw(scheme)
        self.hint.setVisible(False)

    def set_losses(self, scheme: str, losses) -> None:
        if scheme in self.losses:
            self.losses[scheme] = np.asarray(losses, dtype=np.float64)
            self._draw(scheme)
            self.hint.setVisible(not any(v.size for v in self.losses.values()))

    def smoothed(self, scheme: str) -> np.ndarray:
        # A window of 1/40 of the run: smooth enough to compare, short enough to show the drop.
        return moving_average(self.losses[scheme], max(1, self._steps // 40))

    def _draw(self, scheme: str) -> None:
        y = self.losses[scheme]
        x = np.arange(1, y.size + 1, dtype=np.float64)
        self.raw[scheme].setData(x, y)
        self.smooth[scheme].setData(x, self.smoothed(scheme))
