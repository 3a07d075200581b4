"""Schemes panel, view 7: positions on an image's grid of patches — one patch's score with every patch, per scheme
that has a picture there (2-D axial RoPE, RoPE-Mixed, and plain RoPE on the raster order), on one colour scale,
and the scores along the query's row, column and diagonal against the distance.  Click a patch to make it the query.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy

from ... import schemes as registry
from ...jobs.grid import GridResponse, grid_ids
from ...widgets.image import ImageItem
from ...widgets.notes import NotesLabel
from ...widgets.plots import DIVERGING, ColourBar, Plot, colormap
from ...widgets.reflow import ReflowGrid
from ...widgets.styler import mapped_colour
from ...widgets.theming import theme_bus
from ...widgets.value_box import SpinBox
from .items import fit_colour_bar, make_plot, pen, scheme_colour, theme_info_label
from .model_mrope import clicked_at
from .views import SchemesView, info_column

#: How each cut is drawn (every cut in its scheme's colour).
CUT_STYLES = {"row": Qt.PenStyle.SolidLine, "column": Qt.PenStyle.DashLine, "diagonal": Qt.PenStyle.DotLine}
CUT_GLYPHS = {"row": "━", "column": "╍", "diagonal": "┅"}


#: The least size of a heatmap of the grid at normal text size (presenter scales the width with its text).
MIN_CELL = (190, 170)


class GridView(SchemesView):
    """One heatmap per grid scheme on a shared colour bar, and the row / column / diagonal cuts."""

    #: A patch was clicked (its raster index): make it the query.
    queryPicked = Signal(int)
    #: The patches-per-side box changed.
    sideChanged = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        outer = info_column(self, "gridInfo")
        top = QHBoxLayout()
        top.setContentsMargins(4, 2, 4, 2)
        self.side_spin = SpinBox(minimum=2, maximum=64)
        self.side_spin.setObjectName("gridSide")
        self.side_spin.setKeyboardTracking(False)
        self.side_spin.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.side_spin.setToolTip("patches per side of the image (a 224-px ViT with 16-px patches has 14)")
        self.side_spin.valueChanged.connect(self.sideChanged)
        # Elided where the row is short (160 % text on a 1280-px projector), all of it in the tooltip.
        self.hint = NotesLabel()
        self.hint.setObjectName("gridHint")
        self.hint.set_notes("click a patch: it becomes the query")
        self.hint.setProperty("hintLine", True)  # hidden in presenter mode
        top.addWidget(QLabel("side"))
        top.addWidget(self.side_spin)
        top.addWidget(self.hint, 1)
        top.addStretch(0)  # the hint's room when presenter mode hides it: the box stays beside its label
        outer.addLayout(top)
        row = QHBoxLayout()
        self.grid = ReflowGrid(MIN_CELL, max_cols=4)
        row.addWidget(self.grid, 1)
        self.cbar = ColourBar(values=(-1.0, 1.0), colorMap=colormap(DIVERGING), interactive=False, width=22,
                              label="score ÷ |q|²")
        font = QFont()
        font.setPointSize(11)
        self.cbar.axis.setTickFont(font)
        self.cbar_widget = Plot(plot_item=self.cbar)
        self.cbar_widget.setObjectName("gridColourBar")
        self.cbar_widget.setFixedWidth(104)
        theme_bus().themeChanged.connect(self._on_theme_changed)  # a bound slot: gone with the view
        row.addWidget(self.cbar_widget)
        outer.addLayout(row, 1)
        self.plots: dict[str, pg.PlotWidget] = {}
        self.images: dict[str, pg.ImageItem] = {}
        self.marks: dict[str, pg.ScatterPlotItem] = {}
        self.responses: dict[str, GridResponse] = {}
        self.cut_curves: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.cuts = make_plot("Row, column, diagonal", x="distance √(Δx² + Δy²) (patches)", y="score ÷ |q|²")
        self.cuts.setObjectName("gridCuts")
        for s in grid_ids():
            self._ensure(s)
        self.grid.set_cells([self.plots[s] for s in grid_ids()] + [self.cuts])
        self._theme = None
        self.info.setText(
            "<b>Patch grid</b>: an image cut into patches; the colour of each patch is the expected score q·k/|q|² "
            "of the query patch (boxed) with it, for q = k ~ N(0, I). <b>2-D axial</b> turns half the pairs with "
            "the column and half with the row: the score is a function of Δx plus one of Δy, a cross — the row and "
            "column fall slowly, the diagonal faster. <b>2-D mixed</b> (RoPE-Mixed at initialisation) turns each "
            "head's pairs along its own direction; averaged over the heads the crosses point every way and the "
            "three cuts lie close. <b>1-D RoPE, raster order</b> numbers the patches row by row: the patch below is "
            "a whole row of positions away. Click a patch to make it the query.")
        self._retitle()
        self._on_theme_changed()  # the cells and the bar for the look it is built in (presenter's larger fonts)

    def _on_theme_changed(self, *_args) -> None:
        QTimer.singleShot(0, self, self._fit_bar)  # once the theme has styled the bar
        self._fit_cells()

    def _fit_cells(self) -> None:
        """Cells wide enough for their titles at the current text size: presenter's larger titles take fewer,
        larger plots per row (four in a row at 1280 × 720 cut every title)."""
        self.grid.set_min_cell(round(MIN_CELL[0] * theme_bus().text_scale), MIN_CELL[1])

    def _fit_bar(self) -> None:
        fit_colour_bar(self.cbar_widget, self.cbar, 104)

    def _ensure(self, s: str) -> None:
        if s in self.plots:
            return
        pw = make_plot(registry.get(s).grid_title, x="column x", y="row y")
        pw.setObjectName(f"grid_{s}")
        pi = pw.getPlotItem()
        pi.invertY(True)
        pi.setAspectLocked(True)
        pi.showGrid(x=False, y=False)
        img = ImageItem(axisOrder="row-major")
        pi.addItem(img)
        mark = pg.ScatterPlotItem(symbol="s", size=12, brush=None, pen=pg.mkPen("#202020", width=2.5))
        pi.addItem(mark)
        pw.scene().sigMouseClicked.connect(lambda ev, p=pw: self._on_clicked(p, ev))
        self.plots[s], self.images[s], self.marks[s] = pw, img, mark
        self.cbar.setImageItem(list(self.images.values()))
        cpi = self.cuts.getPlotItem()
        for cut, style in CUT_STYLES.items():
            self.cut_curves[(s, cut)] = cpi.plot(pen=pen(s, 2.6, style), name=f"{registry.get(s).grid_title} · {cut}")

    def set_geometry(self, st) -> None:
        """The patches-per-side box follows the state."""
        was = self.side_spin.blockSignals(True)
        self.side_spin.setValue(st.grid_side)
        self.side_spin.blockSignals(was)

    def show_grid(self, r: GridResponse) -> None:
        s = r.request.scheme
        self._ensure(s)
        self.responses[s] = r
        img, mark = self.images[s], self.marks[s]
        side = r.request.grid_side
        if r.scores is None:
            img.clear()
            mark.setData([], [])
            for cut in CUT_STYLES:
                self.cut_curves[(s, cut)].setData([], [])
            self.plots[s].getPlotItem().setTitle(f"{r.title}: {r.note}")
            return
        img.setImage(r.scores.astype(np.float32), autoLevels=False, levels=self.cbar.levels())
        img.setRect(0, 0, side, side)
        qy, qx = divmod(r.query, side)
        mark.setData([qx + 0.5], [qy + 0.5])
        self.plots[s].getPlotItem().setRange(xRange=(0, side), yRange=(0, side), padding=0.02)
        for name, dist, values in r.cuts:
            self.cut_curves[(s, name)].setData(dist, values)
        self._retitle()

    def _retitle(self) -> None:
        """The cuts plot's title is its key to the line styles; each heatmap's title is in its scheme's colour."""
        self.cuts.getPlotItem().setTitle(" ".join(f"{CUT_GLYPHS[c]} {c}" for c in CUT_STYLES))
        for s, pw in self.plots.items():
            r = self.responses.get(s)
            if r is not None and r.scores is None:
                continue
            colour = mapped_colour(scheme_colour(s), self._theme).name()
            pw.getPlotItem().setTitle(f"<span style='color:{colour}'>{registry.get(s).grid_title}</span>")

    def _on_clicked(self, pw, event) -> None:
        pt = clicked_at(pw, event)
        if pt is None:
            return
        side = self.side_spin.value()
        x, y = int(np.floor(pt.x())), int(np.floor(pt.y()))
        if 0 <= x < side and 0 <= y < side:
            self.queryPicked.emit(y * side + x)

    def plot_widgets(self) -> list:
        return [self.plots[s] for s in grid_ids()] + [self.cuts, self.cbar_widget]

    def export_basename(self, st) -> str:
        """``schemes_grid_14x14_d64`` (patches per side, head dim)."""
        return f"schemes_grid_{st.grid_side}x{st.grid_side}_d{st.head_dim}"

    def apply_theme(self, theme) -> None:
        self._theme = theme
        theme_info_label(self.info, theme)
        self._retitle()
