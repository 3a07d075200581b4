"""The Schemes panel's properties table, fitted to its width: a table with one row per scheme where its six columns
fit at a readable width, else one card per scheme (its name across the top, then a row per property).

At 1280 × 720 the six columns needed sideways scrolling (605 px of table for ~1,150 px of columns beside the
controls and the explanation; in presenter mode 1,224 px for 1,566) and a capped row cut its text.  A card per
scheme has two columns, the property's name and its value, wrapped to the width there is: nothing scrolls
sideways and nothing is cut.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

#: A text column is at least this many average characters wide (a wrapped line of ~22 characters reads well).
MIN_CHARS = 22
#: The scheme column at most this many (longer titles wrap).
NAME_CHARS = 16
#: A table row is at most this many lines tall (the whole text is in each cell's tooltip); a card's rows are whole.
MAX_ROW_LINES = 7
#: A card's property-name column takes at most this share of the width (a longer name wraps).
LABEL_SHARE = 0.38


def two_lines(header: str) -> str:
    """``header`` split at the space nearest its middle ("Where position\\nenters"); one word stays as it is."""
    spaces = [i for i, ch in enumerate(header) if ch == " "]
    if not spaces or len(header) <= 10:
        return header
    cut = min(spaces, key=lambda i: abs(i - len(header) / 2))
    return header[:cut] + "\n" + header[cut + 1:]


def _pad(fm: QFontMetrics) -> int:
    return 2 * fm.averageCharWidth() + 8


def table_widths(table: QTableWidget, columns, rows) -> list[int]:
    """The least readable width of each column of the one-row-per-scheme table in the table's current font: the
    scheme's name (at most :data:`NAME_CHARS` characters), then each column as wide as its two-line header and
    :data:`MIN_CHARS` characters."""
    fm = QFontMetrics(table.font())
    hfm = QFontMetrics(table.horizontalHeader().font())
    pad = _pad(fm)

    def header(text: str) -> int:
        return max(hfm.horizontalAdvance(line) for line in two_lines(text).split("\n")) + pad

    bold = QFont(table.font())
    bold.setBold(True)
    name = max([header(columns[0])] + [QFontMetrics(bold).horizontalAdvance(r[0]) + pad for r in rows])
    name = min(name, NAME_CHARS * fm.averageCharWidth() + pad)
    return [name] + [max(header(c), MIN_CHARS * fm.averageCharWidth() + pad) for c in columns[1:]]


def room(table: QTableWidget) -> int:
    """The width the columns may fill without a sideways scroll bar, a vertical one included."""
    return table.width() - 2 * table.frameWidth() - table.verticalScrollBar().sizeHint().width()


def fill(table: QTableWidget, columns, rows, schemes, *, cards: bool) -> None:
    """Put ``rows`` (one tuple of texts per scheme, in the order of ``columns``) in ``table``: one row per scheme,
    or with ``cards`` a card per scheme.  A scheme's name cell is bold and carries its id (``Qt.UserRole``)."""
    table.clearSpans()
    table.clearContents()
    if cards:
        table.setColumnCount(2)
        table.setRowCount(len(rows) * len(columns))
        table.horizontalHeader().setVisible(False)
        for k, (row, scheme) in enumerate(zip(rows, schemes, strict=True)):
            top = k * len(columns)
            table.setSpan(top, 0, 1, 2)
            table.setItem(top, 0, _name_item(row[0], scheme))
            for j in range(1, len(columns)):
                label = _item(columns[j])
                label.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(top + j, 0, label)
                table.setItem(top + j, 1, _item(row[j]))
        return
    table.setColumnCount(len(columns))
    table.horizontalHeader().setVisible(True)
    table.setHorizontalHeaderLabels([two_lines(h) for h in columns])
    for j, h in enumerate(columns):
        header = table.horizontalHeaderItem(j)
        if header is not None:
            header.setToolTip(h)
    table.setRowCount(len(rows))
    for i, (row, scheme) in enumerate(zip(rows, schemes, strict=True)):
        table.setItem(i, 0, _name_item(row[0], scheme))
        for j, text in enumerate(row[1:], start=1):
            table.setItem(i, j, _item(text))


def _item(text: str) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setToolTip(text)
    return item


def _name_item(text: str, scheme: str) -> QTableWidgetItem:
    item = _item(text)
    f = item.font()
    f.setBold(True)
    item.setFont(f)
    item.setData(Qt.ItemDataRole.UserRole, scheme)
    return item


def fit_table(table: QTableWidget, widths: list[int]) -> None:
    """The one-row-per-scheme table: each column at least its readable width, all sharing the rest."""
    hh = table.horizontalHeader()
    table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    for j, w in enumerate(widths):
        table.setColumnWidth(j, w)
    if sum(widths) <= room(table):
        for j in range(1, len(widths)):
            hh.setSectionResizeMode(j, QHeaderView.ResizeMode.Stretch)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    table.resizeRowsToContents()
    cap = MAX_ROW_LINES * QFontMetrics(table.font()).lineSpacing() + 8
    for i in range(table.rowCount()):
        if table.rowHeight(i) > cap:
            table.setRowHeight(i, cap)


def fit_cards(table: QTableWidget, columns) -> None:
    """The cards: the property names as wide as the longest (at most :data:`LABEL_SHARE` of the width, else
    wrapped), the values across the rest, every row as tall as its wrapped text."""
    fm = QFontMetrics(table.font())
    hh = table.horizontalHeader()
    label = max(fm.horizontalAdvance(c) for c in columns[1:]) + _pad(fm)
    hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    table.setColumnWidth(0, min(label, int(LABEL_SHARE * room(table))))
    hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    table.resizeRowsToContents()
