"""The Waves panel's heatmap of the whole table PE[p, column], with an overview of long tables and its zoom."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QToolButton

from ...jobs.colours import LUT_SIZE, SPREAD_GREY  # noqa: F401 - SPREAD_GREY: part of this module's interface
from ...jobs.colours import overview_rgba as _overview_rgba
from ...jobs.waves import HeatmapResponse, cell_info
from ...state import WavesState
from ...widgets.image import ImageItem
from ...widgets.plots import DIVERGING, Heatmap, colormap
from ...widgets.pointer import pointer_for
from ...widgets.text_pin import LiveLabel
from .common import P_COLOUR, PK_COLOUR, Card, num, pair_cols, style_plot, wavelength_text


def overview_rgba(mins: np.ndarray, maxs: np.ndarray, cmap: pg.ColorMap) -> np.ndarray:
    """RGBA (uint8) for overview cells in ``cmap`` (see :func:`explorer.jobs.colours.overview_rgba`).

    The job makes this image itself (``HeatmapResponse.rgba``); the view recolours here only when the
    theme's colour map changed after the response was made.
    """
    return _overview_rgba(mins, maxs, cmap.getLookupTable(0.0, 1.0, LUT_SIZE, alpha=False))


class HeatmapView(Card):
    """PE[p, column] with a fixed [−1, 1] diverging colour bar; hover reads a cell, a click picks p and i."""

    rangeEdited = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.state = WavesState()
        self.response: HeatmapResponse | None = None
        #: The colour map of the overview image (an RGBA image the theme pass cannot re-map itself).
        self.cmap_name = DIVERGING
        self.plot = Heatmap("", x="column  (pair i, sin/cos)", y="position p")
        style_plot(self.plot, "PE[p, column]: the whole table", "column", "position p")
        self.plot.setObjectName("wavesHeatmap")
        self.vb = self.plot.getViewBox()
        # A live label: its counts change at every drag step of a long table, and each change laid out the
        # explanations pane it is shown in (about 3 ms); held, it keeps its size and follows at 10 Hz.
        self.note = LiveLabel(self)
        self.note.setWordWrap(True)
        self.note.setObjectName("heatmapNote")
        self.full_button = QToolButton(self)
        self.full_button.setText("Whole table")
        self.full_button.setToolTip("Zoom out to every position and column (or double-click the heatmap)")
        self.header.addWidget(self.note, 1)
        self.header.addWidget(self.full_button)
        self.body.addWidget(self.plot)
        self.overview_item = ImageItem(axisOrder="row-major")
        self.overview_item.setVisible(False)
        self.plot.addItem(self.overview_item)
        self.p_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(P_COLOUR, width=2))
        self.pk_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(PK_COLOUR, width=2, style=Qt.PenStyle.DashLine))
        self.pair_outline = pg.PlotCurveItem(pen=pg.mkPen("k", width=2), connect="pairs")
        for item in (self.p_line, self.pk_line, self.pair_outline):
            self.plot.addItem(item)
        self.readout.setText("Hover over the table for a cell's values; click to pick p and the pair.")
        self._proxy = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=60, slot=self._on_mouse_moved)
        self.plot.scene().sigMouseClicked.connect(self._on_clicked)
        self.vb.sigRangeChangedManually.connect(lambda *_: self.rangeEdited.emit())
        self.full_button.clicked.connect(self._on_full_clicked)
        self.hover_text = ""

    # -- range -------------------------------------------------------------------------------------
    def set_full_range(self, n: int, d: int) -> None:
        self.vb.setLimits(xMin=0, xMax=d, yMin=0, yMax=n, minXRange=min(d, 2), minYRange=min(n, 4))
        self.vb.setRange(xRange=(0, d), yRange=(0, n), padding=0)

    def visible(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """(rows, cols) visible, as integer half-open ranges clipped to the table."""
        (x0, x1), (y0, y1) = self.vb.viewRange()
        n, d = self.state.n_positions, self.state.d_model
        r0 = min(max(0, math.floor(y0)), n - 1)
        c0 = min(max(0, math.floor(x0)), d - 1)
        return (r0, min(n, max(r0 + 1, math.ceil(y1)))), (c0, min(d, max(c0 + 1, math.ceil(x1))))

    def pixels(self) -> tuple[int, int]:
        """Device pixels of the image area (rows, columns): the overview never has more cells."""
        size = self.vb.size()
        dpr = self.plot.devicePixelRatioF()
        return max(64, int(size.height() * dpr) // 16 * 16), max(64, int(size.width() * dpr) // 16 * 16)

    # -- drawing -----------------------------------------------------------------------------------
    def show_state(self, st: WavesState) -> None:
        """Highlights that follow the state at once (no job needed)."""
        self.state = st
        self.p_line.setPos(st.position + 0.5)
        pk = st.position + st.offset
        self.pk_line.setVisible(0 <= pk < st.n_positions and st.overlay)
        self.pk_line.setPos(pk + 0.5)
        if not self.layout_changed(st.pair, st.n_positions, st.d_model, st.variant):
            return
        sc, cc = pair_cols(st, st.pair)
        # One box round the pair where its columns touch (the paper's interleaved layout): a line between them
        # too, at a few pixels a column, covered the very values it marks (a black bar at pair 0).
        boxes = [(sc, cc + 1)] if cc == sc + 1 else [(sc, sc + 1), (cc, cc + 1)]
        xs, ys = [], []
        for a, b in boxes:
            xs += [a, a, b, b, a, b, a, b]
            ys += [0, st.n_positions, 0, st.n_positions, 0, 0, st.n_positions, st.n_positions]
        self.pair_outline.setData(np.array(xs, float), np.array(ys, float))

    def show_result(self, r: HeatmapResponse) -> None:
        self.response = r
        # The job coloured the image (the view only uploads it), unless the theme changed the map since.
        rgba = r.rgba if r.rgba is not None and r.request.cmap == self.cmap_name else None
        if rgba is None and r.overview:
            # One image cell per block: its colour is the block's mid-range, blended towards grey by
            # its spread (max − min)/2.  Interleaving min and max rows instead would beat against
            # the screen's pixel rows (moiré lines); this stays stable at any size.
            rgba = overview_rgba(r.mins, r.maxs, colormap(self.cmap_name))
        if rgba is not None:
            self.overview_item.setImage(rgba, autoLevels=False)
            self.overview_item.setRect(*r.rect)
        else:
            self.plot.set_matrix(r.image, rect=r.rect)  # full resolution in a map the job did not use
        self.overview_item.setVisible(rgba is not None)
        self.plot.image.setVisible(rgba is None)
        if r.overview:
            what = []
            if r.row_bin > 1:
                what.append(f"{r.row_bin:,} positions")
            if r.col_bin > 1:
                what.append(f"{r.col_bin} columns")
            span = " × ".join(what) or "1 position"
            text = (f"<b>Overview</b> (min/max-preserving): each cell spans {span}. Colour: the middle of "
                    "the block's range; <b>grey</b>: how far its values spread (full grey = the pair runs "
                    "through [−1, 1] inside the block). Hover for min and max; scroll to zoom in.")
            if r.request.preview and (r.approx_columns or r.skipped_columns):
                parts = [f"{r.approx_columns} fast columns drawn as [−1, 1]"] if r.approx_columns else []
                if r.skipped_columns:
                    parts.append(f"{r.skipped_columns:,} columns left out of their cells")
                text += f" While you drag: {', '.join(parts)}; letting go draws every column exactly."
            elif r.approx_columns:
                text += (f" {r.approx_columns} very fast columns (≥ 8 cycles per block) are drawn as their "
                         "full range [−1, 1].")
        else:
            (r0, r1), (c0, c1) = r.rows, r.cols
            text = (f"<b>Full resolution</b>: positions {r0:,}–{r1 - 1:,}, columns {c0}–{c1 - 1}, "
                    "one cell per table entry. Scroll to zoom, drag to pan.")
        self.note.setText(text)

    # -- interaction -------------------------------------------------------------------------------
    def describe(self, position: int, column: int) -> str:
        """The hover readout for one cell (uses the exact value, and the block in an overview)."""
        info = cell_info(self.state, position, column)
        i = info["pair"]
        text = (f"p = <b>{position:,}</b>, column <b>{column}</b> = pair i = <b>{i}</b> ({info['kind']}): "
                f"PE = <b>{info['value']:+.4f}</b> · ω<sub>{i}</sub> = {num(info['omega'], 5)} · "
                f"λ<sub>{i}</sub> = {wavelength_text(info['wavelength'])} positions")
        r = self.response
        inside = r is not None and r.rows[0] <= position < r.rows[1] and r.cols[0] <= column < r.cols[1]
        if inside and r is not None and r.overview:
            b = (position - r.rows[0]) // r.row_bin
            cb = (column - r.cols[0]) // r.col_bin
            first = r.rows[0] + b * r.row_bin
            last = min(first + r.row_bin, r.rows[1]) - 1
            text += (f"<br>this overview cell: positions {first:,}–{last:,}: min {r.mins[b, cb]:+.3f}, "
                     f"max {r.maxs[b, cb]:+.3f}")
        return text

    def _cell_at(self, scene_pos) -> tuple[int, int] | None:
        if not self.vb.sceneBoundingRect().contains(scene_pos):
            return None
        pt = self.vb.mapSceneToView(scene_pos)
        column, position = int(math.floor(pt.x())), int(math.floor(pt.y()))
        if 0 <= column < self.state.d_model and 0 <= position < self.state.n_positions:
            return position, column
        return None

    def _on_mouse_moved(self, args) -> None:
        cell = self._cell_at(args[0])
        if cell is None:
            pointer_for(self.plot).hide()
            return
        self.hover_text = self.describe(*cell)
        self.readout.setText(self.hover_text)
        position, column = cell
        info = cell_info(self.state, position, column)
        # Short and large beside the cursor, for the hall (presenter mode); the full line stays below.
        pointer_for(self.plot).show_at(args[0], f"p = <b>{position:,}</b>, column <b>{column}</b> "
                                                f"(pair {info['pair']})<br>PE = <b>{info['value']:+.4f}</b>")

    def _on_clicked(self, ev) -> None:
        if ev.double():
            self._on_full_clicked()
            return
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        cell = self._cell_at(ev.scenePos())
        if cell is not None:
            position, column = cell
            pair = cell_info(self.state, position, column)["pair"]
            self.picked.emit({"position": position, "pair": pair})

    def set_colormap_name(self, name: str) -> bool:
        """Use colour map ``name`` for the overview (the theme's diverging map) and redraw it; True if it changed
        (the panel then asks for an overview coloured by the job in the new map)."""
        if not name or name == self.cmap_name:
            return False
        self.cmap_name = name
        if self.response is not None:
            self.show_result(self.response)
        return True

    def _on_full_clicked(self) -> None:
        self.set_full_range(self.state.n_positions, self.state.d_model)
        self.rangeEdited.emit()
