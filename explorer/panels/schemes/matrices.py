"""Schemes panel, view 1: each scheme's position-only score matrix ΔS, every one on the same colour scale."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout

from ... import schemes as registry
from ...jobs.schemes import MatrixResponse
from ...widgets.image import ImageItem
from ...widgets.plots import DIVERGING, ColourBar, Plot, colormap
from ...widgets.reflow import ReflowGrid
from ...widgets.theming import theme_bus
from ...widgets.titles import full_title
from .items import (
    FutureMask,
    HatchItem,
    beyond_line,
    fit_colour_bar,
    fit_note,
    label,
    make_plot,
    pen,
    refit_note,
    theme_info_label,
)
from .views import SchemesView, info_column


class MatrixView(SchemesView):
    """One heatmap per scheme, every one on the same colour scale (one shared colour bar)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        outer = info_column(self, "matrixInfo")
        row = QHBoxLayout()
        # Seven schemes: as many columns as fit at a readable size, the rest scrolls (never stamps).
        self.grid = ReflowGrid((200, 170), max_cols=4)
        row.addWidget(self.grid, 1)
        self.plots: dict[str, pg.PlotWidget] = {}
        self.images: dict[str, pg.ImageItem] = {}
        self.hatches: dict[str, HatchItem] = {}
        self.masks: dict[str, FutureMask] = {}
        self.lines: dict[str, tuple] = {}
        self.notes: dict[str, pg.TextItem] = {}
        self.diagonals: dict[str, list] = {}  # scheme -> its marked diagonals i − j = Δ (Shaw's ±k)
        self.responses: dict[str, MatrixResponse] = {}
        self.cbar = ColourBar(values=(-1.0, 1.0), colorMap=colormap(DIVERGING), interactive=False,
                              width=22, label="ΔS (logit units), one scale for all")
        font = QFont()
        font.setPointSize(11)
        self.cbar.axis.setTickFont(font)
        # A plot of its own, so that theming (colour maps included) and export reach it.
        self.cbar_widget = Plot(plot_item=self.cbar)
        self.cbar_widget.setObjectName("sharedColourBar")
        self.cbar_widget.setFixedWidth(108)
        theme_bus().themeChanged.connect(self._fit_colour_bar)
        row.addWidget(self.cbar_widget)
        outer.addLayout(row, 1)
        self._shown: tuple = ()
        self._geometry: tuple = ()
        self._state = None
        for sch in registry.all_schemes():
            self._ensure(sch.id)
        self._fit_colour_bar()  # built in presenter mode: its fonts are already large

    def _fit_colour_bar(self, *_args) -> None:
        """As wide as the bar's ticks and label need (presenter fonts), once the theme has styled it."""
        QTimer.singleShot(0, self, self._set_colour_bar_width)

    def _set_colour_bar_width(self) -> None:
        fit_colour_bar(self.cbar_widget, self.cbar, 108)

    def _ensure(self, s: str) -> None:
        """Build the plot of scheme ``s`` once (a scheme registered later gets its plot when first shown)."""
        if s in self.plots:
            return
        pw = self.grid.keep(make_plot(registry.get(s).title, x="key position j", y="query position i"))
        pi = pw.getPlotItem()
        pi.invertY(True)  # query 0 at the top, as matrices are written
        pi.showGrid(x=False, y=False)
        pi.setMenuEnabled(True)
        img = ImageItem(axisOrder="row-major")
        img.setAutoDownsample(True)  # pyqtgraph downsamples by averaging, like the cells themselves
        pi.addItem(img)
        mask = FutureMask()
        pi.addItem(mask, ignoreBounds=True)
        hatch = HatchItem()
        pi.addItem(hatch, ignoreBounds=True)
        vline, hline = beyond_line(0, 90), beyond_line(0, 0)
        pi.addItem(vline, ignoreBounds=True)
        pi.addItem(hline, ignoreBounds=True)
        note = label("", size=12, bold=True, anchor=(0, 0.5))
        note.setObjectName(f"noteLabel_{s}")
        note.setVisible(False)
        pi.addItem(note, ignoreBounds=True)
        self.plots[s], self.images[s], self.masks[s], self.hatches[s] = pw, img, mask, hatch
        self.lines[s] = (vline, hline)
        self.notes[s] = note
        # One colour bar drives every score image: the levels cannot differ between columns.
        self.cbar.setImageItem(list(self.images.values()))
        if self._geometry:
            self._geometry = ()
            if self._state is not None:
                self.set_geometry(self._state)

    # -- layout from the state (immediately, before any result) ---------------------------------
    def arrange(self, schemes: tuple) -> None:
        if schemes == self._shown:
            return
        for s in schemes:
            self._ensure(s)
        self.grid.set_cells([self.plots[s] for s in schemes])
        self._shown = schemes

    def set_geometry(self, st) -> None:
        """Hatch past L_train, veil the future when causal, frame 0 … L_eval (all from the state)."""
        self._state = st
        key = (st.l_eval, st.l_train, st.causal)
        if key == self._geometry:  # dragging s changes none of this: leave the six plots alone
            return
        self._geometry = key
        n, lt = st.l_eval, st.l_train
        past = n > lt
        for s in self.plots:
            pi = self.plots[s].getPlotItem()
            self.masks[s].set_size(n)
            self.masks[s].setVisible(st.causal)
            self.hatches[s].set_rects([(lt, 0, n - lt, n), (0, lt, n, n - lt)] if past else [])
            for line in self.lines[s]:
                line.setPos(lt)
                line.setVisible(past)
            pi.setRange(xRange=(0, n), yRange=(0, n), padding=0.0)
        for s in self.plots:
            self._place_note(s, st)

    def _place_note(self, s: str, st) -> None:
        """Say why cells are empty: the scheme could not draw at all, or it has no value past L_train."""
        n, lt = st.l_eval, st.l_train
        r, note = self.responses.get(s), self.notes[s]
        if r is not None and r.matrix is None:
            note.setText(r.note.replace("; ", ";\n"))
            note.setPos(0.03 * n, n / 2)
            note.wanted = False  # not refitted: the note says why there is no matrix at all
            note.self_placed = True
            note.setVisible(True)
            return
        note.self_placed = False
        text = r.missing if r is not None else ""  # the scheme's own words and limit (a real table's M)
        has_empty = bool(text) and r is not None and r.matrix is not None and bool(np.isnan(r.matrix).any())
        fit_note(note, self.plots[s], text)
        # Any cell with query i ≥ L_train has no row; near the left edge it is below the diagonal too
        # (visible when causal), and anchored at its left end it never runs off the plot.
        note.setPos(0.03 * n, max(0.72 * n, (lt + n) / 2))
        note.wanted = has_empty
        note.setVisible(has_empty and bool(note.toPlainText()))

    # -- results ----------------------------------------------------------------------------------
    def show_matrix(self, r: MatrixResponse, st) -> None:
        s = r.request.scheme
        self._ensure(s)
        self.responses[s] = r
        img = self.images[s]
        if r.matrix is None:
            img.clear()
        else:
            img.setImage(r.matrix.astype(np.float32), autoLevels=False, levels=self.cbar.levels())
            side = r.cells * r.block
            img.setRect(0, 0, side, side)
        self._show_diagonals(s, r.marks if r.matrix is not None else (), st.l_eval)
        title = r.title or registry.get(s).title
        pi = self.plots[s].getPlotItem()
        if full_title(pi) != title:  # a scheme may say more for this request (FIRE: whose weights)
            pi.setTitle(title)
        self._place_note(s, st)

    def _show_diagonals(self, s: str, marks: tuple, n: int) -> None:
        """Dotted diagonals i − j = Δ in the scheme's colour where it marks them (Shaw's clipping distance)."""
        lines = self.diagonals.setdefault(s, [])
        pi = self.plots[s].getPlotItem()
        while len(lines) < len(marks):
            line = pg.PlotDataItem(pen=pen(s, 2.0, Qt.PenStyle.DotLine))
            line.setZValue(22)
            pi.addItem(line, ignoreBounds=True)
            lines.append(line)
        for k, line in enumerate(lines):
            if k < len(marks):
                d, text = marks[k]
                j = np.array([max(0.0, -d), n - max(0.0, d)])
                line.setData(j + 0.5, j + d + 0.5)  # through the centres of the cells with i − j = Δ
                line.setToolTip(f"{registry.get(s).title}: {text}")
            line.setVisible(k < len(marks))

    def set_levels(self, k: float, now: tuple[str, ...] = ()) -> dict[str, Callable[[], None]]:
        """The one shared scale ±k: the colour bar and the images of schemes ``now`` (the ones just drawn) at once;
        returns, by scheme, what gives each other image the colour bar's scale, to be run a turn after (re-levelling
        redraws the image: the six at once were one 13–15 ms turn at L_eval = 16 384)."""
        levels = (-k, k)
        if tuple(self.cbar.levels()) != levels:
            self.cbar.setLevels(levels, update_items=False)
        later: dict[str, Callable[[], None]] = {}
        for s, img in self.images.items():
            if img.image is None or tuple(img.getLevels()) == levels:
                continue
            if s in now:
                img.setLevels(levels)
            else:
                later[s] = functools.partial(self._follow_bar, s)
        return later

    def _follow_bar(self, scheme: str) -> None:
        """Give ``scheme``'s image the colour bar's levels as they are when this runs (the scale may have moved on,
        or back, since it was asked for)."""
        img = self.images[scheme]
        levels = tuple(self.cbar.levels())
        if img.image is not None and tuple(img.getLevels()) != levels:
            img.setLevels(levels)

    def levels(self) -> dict[str, tuple[float, ...]]:
        """Each score image's (low, high) levels: the colour bar's, once the images asked to follow it have (a
        turn or a few after a new scale; see :meth:`set_levels`)."""
        return {s: tuple(float(v) for v in img.getLevels()) for s, img in self.images.items()
                if img.image is not None}

    def extents(self, schemes) -> dict[str, float]:
        return {s: self.responses[s].extent for s in schemes if s in self.responses}

    def plot_widgets(self) -> list:
        return [self.plots[s] for s in self._shown] + [self.cbar_widget]

    def refit_notes(self) -> None:
        """The notes on the score matrices, shortened (or left out) where a tile is too small for them."""
        for s, note in self.notes.items():
            if getattr(note, "wanted", False):
                refit_note(note, self.plots[s])
                note.setVisible(bool(note.toPlainText()))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        QTimer.singleShot(0, self.refit_notes)

    def apply_theme(self, theme) -> None:
        theme_info_label(self.info, theme)
        for h in self.hatches.values():
            h.set_colour(theme.foreground)
        for m in self.masks.values():
            m.set_theme(theme)
