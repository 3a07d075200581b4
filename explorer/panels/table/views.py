"""Views of a learned position table (they only render what :mod:`explorer.jobs.table` computed)."""

from __future__ import annotations

import html
import math
from typing import TypeVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QVBoxLayout, QWidget

from ...jobs.table import TableResponse
from ...widgets.plots import SEQUENTIAL, Heatmap, make_plot
from ...widgets.qt_typed import layout_of
from ...widgets.styler import mapped_colour
from ...widgets.theming import theme_bus
from ..waves.common import readout_label

#: The table's own curves; the sinusoidal reference beside it; the rows' limit M.
TABLE_COLOUR = "#E69F00"
SINUS_COLOUR = "#0072B2"
LIMIT_COLOUR = "#D55E00"
NO_ROW_BRUSH = (213, 94, 0, 40)
#: The principal axes drawn in the 3-D view.
AXIS_COLOURS = ("#CC79A7", "#009E73", "#56B4E9")

W = TypeVar("W", bound=QWidget)


def _fit(widget: W) -> W:
    widget.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
    widget.setMinimumSize(170, 120)
    return widget


def every_row(a: dict) -> str:
    """" (every 512th row)" when the view used every s-th row of a long table, else ""."""
    s = int(a["every"][0]) if "every" in a else 1
    return f" (every {s:,}th row)" if s > 1 else ""


class View(QWidget):
    """One tab: plots in a row, a readout line under them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        col = QVBoxLayout(self)
        col.setContentsMargins(2, 2, 2, 2)
        self.row = QHBoxLayout()
        col.addLayout(self.row, 1)
        self.readout = readout_label(self)
        col.addWidget(self.readout)

    def add(self, widget: W, stretch: int = 1) -> W:
        self.row.addWidget(_fit(widget), stretch)
        return widget

    def show_result(self, r: TableResponse) -> None:
        raise NotImplementedError


class HeatmapTab(View):
    """Positions × dims, with a symmetric colour bar at the 99.5th percentile of |P|."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plot = self.add(Heatmap("The table P[p, i]", x="dimension i", y="position p"))
        self.plot.setObjectName("tableHeatmap")

    def show_result(self, r: TableResponse) -> None:
        a = r.arrays
        n, d = a["table"].shape
        s = int(a["stride"][0])
        lo, hi = (float(v) for v in a["levels"])
        self.plot.set_matrix(a["table"], rect=(0, 0, d, n * s), levels=(lo, hi))
        self.readout.setText(f"{r.info.positions:,} positions × {r.info.d_model:,} dims{every_row(a)}; colours span "
                             f"±{hi:.3g} (99.5 % of |P| lies inside)")


class SimilarityTab(View):
    """cos(P[i], P[j]) as a matrix, and its diagonals' mean against the offset j − i."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.matrix = self.add(Heatmap("cos(P[i], P[j])", x="position j", y="position i"))
        self.matrix.setObjectName("tableCosine")
        self.curve_plot = self.add(make_plot("Mean similarity by offset", x="offset k = j − i",
                                             y="mean cos(P[i], P[i+k])"))
        self.curve_plot.setObjectName("tableByOffset")
        self.curve = self.curve_plot.plot(pen=pg.mkPen(TABLE_COLOUR, width=2), name="this table")

    def show_result(self, r: TableResponse) -> None:
        a = r.arrays
        s, n = int(a["stride"][0]), a["cosine"].shape[0]
        self.matrix.set_matrix(a["cosine"], rect=(0, 0, n * s, n * s), levels=(-1.0, 1.0))
        self.curve.setData(a["offset"], a["mean"])
        k, m = a["offset"], a["mean"]
        below = np.nonzero(m < 0.5)[0]
        half = f"first below 0.5 at k = {int(k[below[0]]):,}" if below.size else "never below 0.5"
        self.readout.setText(f"neighbours: mean cos at k = {int(k[1]):,} is {m[1]:.3f}; {half}{every_row(a)}"
                             if m.size > 1 else "one row")


class PcaTab(View):
    """The rows' first principal components: 2-D, and 3-D turned by the sidebar's angles."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.flat = self.add(make_plot("Rows on PC1 and PC2", x="PC1", y="PC2"))
        self.flat.setObjectName("tablePca2")
        self.solid = self.add(make_plot("Rows in 3-D (PC1–PC3), turned", x="", y=""))
        self.solid.setObjectName("tablePca3")
        self.solid.setAspectLocked(True)
        self.solid.getPlotItem().hideAxis("bottom")
        self.solid.getPlotItem().hideAxis("left")
        self.flat.setAspectLocked(True)
        self.path2 = self.flat.plot(pen=pg.mkPen("#999999", width=1))
        self.dots2 = pg.ScatterPlotItem(size=6, pen=None)
        self.flat.addItem(self.dots2)
        self.path3 = self.solid.plot(pen=pg.mkPen("#999999", width=1))
        self.dots3 = pg.ScatterPlotItem(size=6, pen=None)
        self.solid.addItem(self.dots3)
        self.axes3 = [self.solid.plot(pen=pg.mkPen(c, width=2)) for c in AXIS_COLOURS]
        # The title names the turned axes in their colours: labels at their tips lay on the helix's path.
        theme_bus().themeChanged.connect(self._retitle)  # a bound slot: gone with the view
        self._retitle()
        self._coords: np.ndarray | None = None
        self._angles = (35.0, 20.0)
        self._cmap = pg.colormap.get(SEQUENTIAL)

    def _retitle(self, theme=None) -> None:
        key = " ".join(f"<span style='color:{mapped_colour(c, theme or theme_bus().theme).name()}'>━&nbsp;PC{i + 1}"
                       "</span>" for i, c in enumerate(AXIS_COLOURS))
        self.solid.getPlotItem().setTitle(f"Rows in 3-D, turned: {key}")

    def set_angles(self, yaw: float, pitch: float) -> None:
        self._angles = (float(yaw), float(pitch))
        self._draw3()

    def show_result(self, r: TableResponse) -> None:
        a = r.arrays
        c = a["coords"]
        self._coords = c
        n = c.shape[0]
        brushes = self._cmap.map(np.linspace(0, 1, n), mode="qcolor") if n > 1 else ["#444444"]
        self._brushes = brushes
        self.path2.setData(c[:, 0], c[:, 1])
        self.dots2.setData(c[:, 0], c[:, 1], brush=brushes)
        self._draw3()
        sh = a["share"]
        last = int(a["position"][-1]) if len(a["position"]) else 0
        self.readout.setText(f"variance explained: PC1 {sh[0]:.1%}, PC2 {sh[1]:.1%}, PC3 {sh[2]:.1%}; "
                             f"colour runs from position 0 (dark) to {last:,} (light){every_row(a)}")

    def projection(self) -> np.ndarray:
        """The 3-D coordinates turned by (yaw about PC3, then pitch about the screen's x), shown as x, y."""
        yaw, pitch = (math.radians(v) for v in self._angles)
        rz = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
        rx = np.array([[1, 0, 0], [0, math.cos(pitch), -math.sin(pitch)], [0, math.sin(pitch), math.cos(pitch)]])
        return rx @ rz

    def _draw3(self) -> None:
        if self._coords is None:
            return
        rot = self.projection()
        xyz = self._coords @ rot.T
        self.path3.setData(xyz[:, 0], xyz[:, 2])
        self.dots3.setData(xyz[:, 0], xyz[:, 2], brush=self._brushes)
        size = float(np.max(np.abs(self._coords))) or 1.0
        for i, item in enumerate(self.axes3):  # the PC axes, turned the same way
            tip = rot[:, i] * size * 0.3
            item.setData([0, tip[0]], [0, tip[2]])


def spectrum_top(freq: np.ndarray, log_share: np.ndarray, dominant: np.ndarray, above: float = 10.0) -> float:
    """The frequency axis's default top: the highest frequency whose power (averaged over dims) stands ``above``
    times over the noise floor (the median), or any dim's peak, with a margin; the Nyquist 0.5 (``freq[-1]``)
    when nothing stands out (a random table)."""
    if freq.size < 2:
        return 1.0
    mean = np.mean(10.0 ** np.asarray(log_share, dtype=float), axis=1)
    strong = np.flatnonzero(mean > above * np.median(mean))
    if strong.size == 0:
        return float(freq[-1])
    peak = float(np.max(dominant)) if np.size(dominant) else 0.0
    return float(min(freq[-1], max(float(freq[strong[-1]]), peak) * 1.2 + (freq[1] - freq[0])))


class SpectrumTab(View):
    """Each dim's power along positions (dims sorted by their peak), and the peaks beside sinusoidal ones."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.power = self.add(Heatmap("Power per dim (log₁₀ share)", x="dims, sorted by peak frequency",
                                      y="frequency (cycles / position)", levels=(-4.0, 0.0), cmap=SEQUENTIAL))
        self.power.setObjectName("tableSpectrum")
        self.power.getPlotItem().invertY(False)
        self.peaks = self.add(make_plot("Peak frequency of each dim", x="dims, sorted", y="cycles / position"))
        self.peaks.setObjectName("tablePeaks")
        self.peaks.setLogMode(False, True)
        self.peaks.addLegend(offset=(10, 10))
        self.mine = self.peaks.plot(pen=pg.mkPen(TABLE_COLOUR, width=2), name="this table")
        self.sinus = self.peaks.plot(pen=pg.mkPen(SINUS_COLOUR, width=2, style=pg.QtCore.Qt.PenStyle.DashLine),
                                     name="sinusoidal, same n and d")

    def show_result(self, r: TableResponse) -> None:
        a = r.arrays
        f, p = a["freq"], a["power"]
        d = p.shape[1]
        top = float(f[-1]) if f.size > 1 else 1.0
        self.power.set_matrix(p, rect=(0, 0, d, top), levels=(-4.0, 0.0))
        # Up to where the power stands out of the noise (a trained table's waves are slow: below 0.06 of the 0.5
        # cycles a position can hold, a thin strip at the bottom); zooming out still reaches 0.5 (the limits).
        shown = spectrum_top(f, p, a["dominant"])
        vb = self.power.getPlotItem().getViewBox()
        vb.setLimits(yMin=0.0, yMax=top)
        vb.setYRange(0.0, shown, padding=0)
        n = r.info.positions
        floor = 1.0 / max(n, 1)
        mine = np.maximum(a["dominant"], floor)  # a constant dim (no peak) sits at the lowest frequency
        sin = np.maximum(a["sinusoidal"], floor)
        self.mine.setData(np.arange(mine.size), mine)
        self.sinus.setData(np.arange(sin.size), sin)
        slow = int(np.sum(a["dominant"] <= 2.0 / max(n, 1)))
        self.readout.setText(f"{slow} of {d} dims peak at ≤ 2 cycles over all {n:,} positions{every_row(a)} "
                             f"(sinusoidal: {int(np.sum(a['sinusoidal'] <= 2.0 / max(n, 1)))}); frequencies "
                             f"shown to {shown:.2g} of {top:.2g} (above: noise; zoom out)")


class NormsTab(View):
    """|P[p]| by position, and the positions with no row (asking for one is refused)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plot = self.add(make_plot("Row norms |P[p]|", x="position p", y="|P[p]|"))
        self.plot.setObjectName("tableNorms")
        self.curve = self.plot.plot(pen=pg.mkPen(TABLE_COLOUR, width=2))
        self.none = pg.LinearRegionItem(orientation="vertical", movable=False, brush=pg.mkBrush(*NO_ROW_BRUSH),
                                        pen=pg.mkPen(None))
        self.plot.addItem(self.none)
        self.edge = pg.InfiniteLine(angle=90, pen=pg.mkPen(LIMIT_COLOUR, width=2, style=pg.QtCore.Qt.PenStyle.DashLine),
                                    label="M: no row past here", labelOpts={"position": 0.9, "color": LIMIT_COLOUR})
        self.plot.addItem(self.edge)
        self.probe = readout_label(self)  # sized with the theme, like the readout above it
        self.probe.setObjectName("tableProbe")
        layout_of(self).addWidget(self.probe)

    def show_result(self, r: TableResponse) -> None:
        a = r.arrays
        m = int(a["limit"][0])
        self.curve.setData(a["position"], a["norm"])
        self.none.setRegion((m, m * 1.25))
        self.edge.setValue(m)
        self.plot.setXRange(0, m * 1.25, padding=0.01)
        cfg = r.info.config_max
        said = f"; config.json says {cfg:,}" if cfg is not None and r.info.kind == "file" else ""
        self.readout.setText(f"M = {m:,} rows: positions 0 … {m - 1:,}{said}. "
                             f"Mean |P[p]| = {float(np.mean(a['norm'])):.4g}{every_row(a)}")
        text = html.escape(r.note)
        refused = r.note.startswith("refused")
        self.probe.setText(f"<b style='color:{LIMIT_COLOUR}'>{text}</b>" if refused else text)


def table_export(plot_name: str, a: dict) -> dict:
    """name -> array behind the plot ``plot_name`` (ASCII names; full resolution where the job gave it)."""
    if plot_name == "tableHeatmap":
        return {"table": a["table"]}
    if plot_name == "tableCosine":
        return {"cosine": a["cosine"]}
    if plot_name == "tableByOffset":
        return {"offset k": a["offset"], "mean cosine": a["mean"]}
    if plot_name in ("tablePca2", "tablePca3"):
        c = a["coords"]
        return {"position": a["position"], "PC1": c[:, 0], "PC2": c[:, 1], "PC3": c[:, 2]}
    if plot_name == "tableSpectrum":
        return {"log10 share of power": a["power"]}
    if plot_name == "tablePeaks":
        return {"dim rank": np.arange(a["dominant"].size), "this table": a["dominant"],
                "sinusoidal": a["sinusoidal"]}
    if plot_name == "tableNorms":
        return {"position": a["position"], "norm": a["norm"]}
    return {}
