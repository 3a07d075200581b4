"""Token swap's maps grid: every map keeps a readable data area, whatever the stage leaves the panel.

A map's data area should be at least :data:`DATA_LINES` lines of the body text tall and twice that wide (the in-plot
audit's rule: a smaller one cannot show its tokens a line apart).  Its cell spends more than that on its title, axes,
colour bar and legend, and how much depends on the words and the text size, so the grid measures it on the maps
themselves and asks every cell for that much more: it then takes as many columns as keep the data areas readable
(three on a wide stage, two beside the Lesson pane: three there left 126-px stamps) and scrolls when the rows do not
fit.  In two columns the attention maps come first, then what the swap changed, then the outputs.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QTimer, Signal
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QWidget

from ...widgets.reflow import ReflowGrid
from .axis import TokenAxis

#: The least height of a map's data area, in lines of the window's body text (twice that is its least width).
DATA_LINES = 5
#: Lines added to what a cell is measured to spend around its data (across, down): an axis title drawn smaller to fit
#: a short axis is thinner than on a cell of the readable size (the left axis' titles are the long ones).  Down, a
#: quarter line: two rows of maps just fit beside the Lesson pane at 1280 × 720 in presenter mode.
SLACK_LINES = (0.5, 0.25)
#: A map is made taller than :data:`DATA_LINES` to label every token of its left axis, up to this many lines (a
#: thinned axis must say so in its title, which a short axis has no room for); longer sentences are thinned.
LABELLED_LINES = 7
#: The cell size asked for before the maps have been measured (px).
FIRST_CELL = (220, 170)


class MapsGrid(ReflowGrid):
    """A :class:`~explorer.widgets.reflow.ReflowGrid` of plots whose cells are as large as a readable data area
    needs (see the module)."""

    #: The cells' least size changed (the maps were measured again).
    cellsFitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(FIRST_CELL, max_cols=3, parent=parent)
        #: The cells in their reading order at two columns (cells it does not name follow them).
        self.two_column_order: list[QWidget] = []
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(0)
        self._fit_timer.timeout.connect(self.fit_cells)

    def ordered(self, cols: int) -> list[QWidget]:
        cells = super().ordered(cols)
        if cols != 2:
            return cells
        named = [w for w in self.two_column_order if w in cells]
        return named + [w for w in cells if w not in named]

    def set_cells(self, cells: list[QWidget]) -> None:
        super().set_cells(cells)
        self.schedule_fit()

    def schedule_fit(self) -> None:
        """Measure the maps again once the event loop has laid them out (new words, a new text size)."""
        self._fit_timer.start()

    def line_px(self) -> float:
        """The height of a line of the window's body text."""
        return QFontMetricsF(self.window().font()).height()

    def needed_cell(self) -> tuple[int, int] | None:
        """The least cell (width, height) that gives every map shown a readable data area; None while no map is
        laid out to be measured."""
        spent_w = spent_h = tokens_h = 0.0
        for cell in self.cells():
            item = getattr(cell, "getPlotItem", None)
            if item is None or not cell.isVisible() or cell.property("inFocus"):
                continue
            vb = item().getViewBox()
            data = vb.sceneBoundingRect()
            if data.width() <= 0 or data.height() <= 0:
                return None
            spent_w = max(spent_w, cell.width() - data.width())
            spent_h = max(spent_h, cell.height() - data.height())
            axis = getattr(cell, "y_axis", None)
            if isinstance(axis, TokenAxis):
                low, high = vb.viewRange()[1]
                tokens_h = max(tokens_h, axis.pitch() * (high - low))
        if spent_w <= 0 and spent_h <= 0:
            return None
        line = self.line_px()
        width = spent_w + (2 * DATA_LINES + SLACK_LINES[0]) * line
        around = spent_h + SLACK_LINES[1] * line  # what a cell spends besides its data, down
        least = DATA_LINES * line
        room = self._row_share(width, around + least) - around  # the data height a row gets in the view
        data_h = max(least, min(LABELLED_LINES * line, tokens_h, room))
        return math.ceil(width), math.ceil(around + data_h)

    def _row_share(self, cell_w: float, cell_h: float) -> float:
        """The height a row gets when as many rows as fit at cells of ``cell_w`` × ``cell_h`` share the view (the
        maps grow to label every token only where that makes no row scroll away)."""
        gap = self.grid.spacing()
        cols = min(self._max_cols, max(1, len(self.cells())),
                   max(1, int((self.viewport().width() + gap) // (cell_w + gap))))
        rows = math.ceil(len(self.cells()) / cols)
        view = self.viewport().height()
        shown = min(rows, max(1, int((view + gap) // (cell_h + gap))))
        return (view - (shown - 1) * gap) / shown

    def fit_cells(self) -> None:
        """Ask every cell for :meth:`needed_cell` (a change of a pixel or two is left alone: no see-saw)."""
        need = self.needed_cell()
        if need is None:
            return
        now = self._min_cell
        if abs(need[0] - now.width()) > 2 or abs(need[1] - now.height()) > 2:
            top = self.top_cell()
            self.set_min_cell(*need)
            self.scroll_to_row_of(top)
            self.cellsFitted.emit()

    def holds_all(self, width: int) -> bool:
        """Whether ``width`` px (and the grid's present height) show every cell at its readable size, unscrolled."""
        cell, gap = self._min_cell, self.grid.spacing()
        cols = min(self._max_cols, len(self.cells()), max(1, (width + gap) // (cell.width() + gap)))
        rows = math.ceil(len(self.cells()) / max(1, cols))
        return width >= cell.width() and rows * (cell.height() + gap) - gap <= self.viewport().height()

    def top_cell(self) -> QWidget | None:
        """A cell of the topmost row whose top is in view (None when the grid is scrolled to its top)."""
        value = self.verticalScrollBar().value()
        if value <= 0:
            return None
        return min((w for w in self.cells() if w.geometry().top() >= value - 2), key=lambda w: w.geometry().top(),
                   default=None)

    def scroll_to_row_of(self, cell: QWidget | None) -> None:
        """Scroll so that ``cell``'s row is the top one (rows that change height keep the same row in view, whole,
        not a cut strip of the row above over a cut row below)."""
        if cell is not None:
            self.grid.activate()  # the cells where the new arrangement puts them
            self.verticalScrollBar().setValue(cell.geometry().top())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        top = self.top_cell()
        super().resizeEvent(event)
        self.scroll_to_row_of(top)
        self.schedule_fit()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.schedule_fit()
        return super().eventFilter(obj, event)

