"""A grid of plots that reflows instead of shrinking them to stamps.

As many columns as fit at the cell's minimum width (at most ``max_cols``); the rows share the height
when they fit and scroll when they do not, so each plot keeps a readable size on a small projector
and the grid never forces the window past the screen.
"""

from __future__ import annotations

import math
import weakref
from typing import TypeVar

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QScrollArea, QSizePolicy, QWidget

from .theming import theme_bus

W = TypeVar("W", bound=QWidget)


class ReflowGrid(QScrollArea):
    """Cells (widgets) in rows of as many columns as fit; scrolls vertically when the rows do not fit."""

    def __init__(self, min_cell: tuple[int, int], max_cols: int = 3, parent: QWidget | None = None, *,
                 grow_with_text: bool = False) -> None:
        """``min_cell``: a cell's least (width, height) in px; ``grow_with_text``: that size is at normal text
        size and grows with the theme's text (presenter mode's larger titles and axes need larger cells)."""
        super().__init__(parent)
        self.setObjectName("reflowGrid")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._min_cell = QSize(*min_cell)
        self._base_cell = QSize(*min_cell)
        self._max_cols = max(1, max_cols)
        self._refs: list[weakref.ref] = []
        self._cols = 0
        inner = QWidget()
        inner.setObjectName("reflowCells")
        self.grid = QGridLayout(inner)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(4)
        self.setWidget(inner)
        if grow_with_text:
            theme_bus().themeChanged.connect(self._grow_with_text)  # a bound slot: gone with the grid
            self._grow_with_text()

    # -- cells ----------------------------------------------------------------------------------
    def keep(self, widget: W) -> W:
        """Own ``widget``, hidden, until :meth:`set_cells` shows it: a cell made before it is first shown is never a
        window of its own (one left so outlived its panel, and Qt's teardown at exit crashed in its scene)."""
        widget.setParent(self.widget())
        widget.setVisible(False)
        return widget

    def set_cells(self, cells: list[QWidget]) -> None:
        """Show ``cells`` (in order); other widgets placed before are hidden, not deleted."""
        for w in self.cells():
            if w not in cells:
                self.grid.removeWidget(w)
                w.setVisible(False)
        # Weak references: the grid's layout owns the cells (strong Python ones made wrapper cycles).
        self._refs = [weakref.ref(w) for w in cells]
        for w in self._cells:
            w.setMinimumSize(self._min_cell)
            w.setVisible(True)
            w.removeEventFilter(self)
            w.installEventFilter(self)
        self._cols = 0
        self._arrange()

    @property
    def _cells(self) -> list[QWidget]:
        return [w for w in (r() for r in self._refs) if w is not None]

    def cells(self) -> list[QWidget]:
        return self._cells

    def set_min_cell(self, width: int, height: int) -> None:
        """A new minimum cell size (e.g. larger fonts in presenter mode)."""
        self._min_cell = QSize(int(width), int(height))
        for w in self._cells:
            w.setMinimumSize(self._min_cell)
        self._cols = 0
        self._arrange()

    def _grow_with_text(self, *_args) -> None:
        scale = theme_bus().text_scale
        self.set_min_cell(round(self._base_cell.width() * scale), round(self._base_cell.height() * scale))

    def columns(self) -> int:
        return self._cols

    def ordered(self, cols: int) -> list[QWidget]:
        """The cells in reading order for ``cols`` columns (as given; a grid whose cells pair up differently at
        another width overrides this)."""
        return self._cells

    def _fit_columns(self) -> int:
        n = len(self._cells)
        if n == 0:
            return 1
        width = max(1, self.viewport().width())
        fit = max(1, (width + self.grid.spacing()) // (self._min_cell.width() + self.grid.spacing()))
        cols = min(self._max_cols, n, fit)
        # Balanced rows: 7 cells in 3 columns read better as 3 + 2 + 2 than 3 + 3 + 1.
        rows = math.ceil(n / cols)
        return math.ceil(n / rows)

    def _arrange(self) -> None:
        cols = self._fit_columns()
        if cols == self._cols:
            return
        if any(w.property("inFocus") for w in self._cells):
            return  # a cell is on the stage by itself (explorer/shell/focus.py): re-adding it would take it back
        self._cols = cols
        for w in self._cells:
            self.grid.removeWidget(w)
        for r in range(self.grid.rowCount()):
            self.grid.setRowStretch(r, 0)
        for c in range(self.grid.columnCount()):
            self.grid.setColumnStretch(c, 0)
        for k, w in enumerate(self.ordered(cols)):
            self.grid.addWidget(w, k // cols, k % cols)
        for r in range(math.ceil(len(self._cells) / cols)):
            self.grid.setRowStretch(r, 1)
        for c in range(cols):
            self.grid.setColumnStretch(c, 1)
        # The cells' widget sized for the new rows now (setWidgetResizable sizes it at once): a resize had sized it for
        # the old arrangement, and rows taller than it had room for overlapped, cutting each other's bottoms.
        self.setWidgetResizable(True)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if (event.type() == QEvent.Type.DynamicPropertyChange and bytes(event.propertyName().data()) == b"inFocus"
                and not obj.property("inFocus")):
            self._cols = 0  # a cell back from the stage: arranged with the others again
            self._arrange()
        return False

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._arrange()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(self._min_cell.width() + self.verticalScrollBar().sizeHint().width(), self._min_cell.height())

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        cols = min(self._max_cols, max(1, len(self._cells)))
        rows = math.ceil(max(1, len(self._cells)) / cols)
        return QSize(cols * self._min_cell.width(), rows * self._min_cell.height())
