"""The Schemes panel's properties table, fitted to its width: headers on two lines, columns wide enough to read,
rows no taller than :data:`MAX_ROW_LINES` lines (the whole text is in each cell's tooltip).

At 1280 × 720 in presenter mode six stretched columns were each a word wide: the headers were cut ("ameters",
"e position e") and NoPE's row filled the view.  Where the columns do not fit at a readable width, the table
scrolls sideways, every header whole.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget

#: A text column is at least this many average characters wide (a wrapped line of ~22 characters reads well).
MIN_CHARS = 22
#: The scheme column at most this many (longer titles wrap).
NAME_CHARS = 16
#: A row is at most this many lines tall.
MAX_ROW_LINES = 7


def two_lines(header: str) -> str:
    """``header`` split at the space nearest its middle ("Where position\\nenters"); one word stays as it is."""
    spaces = [i for i, ch in enumerate(header) if ch == " "]
    if not spaces or len(header) <= 10:
        return header
    cut = min(spaces, key=lambda i: abs(i - len(header) / 2))
    return header[:cut] + "\n" + header[cut + 1:]


def fit_table(table: QTableWidget) -> None:
    """Column widths, scrolling and row heights for the table's current width and font."""
    n = table.columnCount()
    if n == 0:
        return
    hh = table.horizontalHeader()
    fm = QFontMetrics(table.font())
    hfm = QFontMetrics(hh.font())
    pad = 2 * fm.averageCharWidth() + 8

    def header_width(j: int) -> int:
        item = table.horizontalHeaderItem(j)
        text = item.text() if item is not None else ""
        return max((hfm.horizontalAdvance(line) for line in text.split("\n")), default=0) + pad

    name = max([header_width(0)] + [fm.horizontalAdvance(item.text()) + pad
                                    for i in range(table.rowCount()) if (item := table.item(i, 0)) is not None])
    name = min(name, NAME_CHARS * fm.averageCharWidth() + pad)
    mins = [max(header_width(j), MIN_CHARS * fm.averageCharWidth() + pad) for j in range(1, n)]
    room = table.viewport().width()
    spare = room - name - sum(mins)
    table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    table.setColumnWidth(0, name)
    for j, w in enumerate(mins, start=1):
        table.setColumnWidth(j, w)
    if spare >= 0:  # room for all at a readable width: they share the rest (no sideways scrolling)
        for j in range(1, n):
            hh.setSectionResizeMode(j, QHeaderView.ResizeMode.Stretch)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    table.resizeRowsToContents()
    cap = MAX_ROW_LINES * fm.lineSpacing() + 8
    for i in range(table.rowCount()):
        if table.rowHeight(i) > cap:
            table.setRowHeight(i, cap)


def wrap_headers(table: QTableWidget, headers) -> None:
    """Set ``headers`` on two lines each (the full header in its tooltip)."""
    table.setHorizontalHeaderLabels([two_lines(h) for h in headers])
    for j, h in enumerate(headers):
        item = table.horizontalHeaderItem(j)
        if item is not None:
            item.setToolTip(h)
