"""The Schemes › Properties table reads at 1280×720 without sideways scrolling (issue 27): six columns needed ~1,150 px
of a 605-px table beside the controls (1,566 of 1,224 in presenter mode), and capped rows cut their text.  Where the
columns do not fit, a card per scheme; at every size, normal and presenter, no sideways scroll bar and no cell, header
or scheme name cut (font metrics against the column widths and row heights)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QStyle, QTableWidget, QTableWidgetItem
from window_fixture import module_window, put_on_screen, settle

SIZES = [(1280, 720), (1920, 1080)]


@pytest.fixture(scope="module")
def window(tmp_path_factory):
    yield from module_window(tmp_path_factory.mktemp("pe-properties-home"))


def cut_cells(table: QTableWidget) -> list[str]:
    """Every cell (and header) whose text does not fit its width and row height wrapped at word boundaries."""
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    out = []
    for i in range(table.rowCount()):
        for j in range(table.columnCount()):
            item = table.item(i, j)
            if item is None or not item.text():
                continue
            span = table.columnSpan(i, j)
            width = sum(table.columnWidth(k) for k in range(j, j + span)) - margin
            font = item.data(Qt.ItemDataRole.FontRole)
            fm = QFontMetrics(font if isinstance(font, QFont) else table.font())
            text = item.text()
            need = fm.boundingRect(QRect(0, 0, width, 10**6), int(Qt.TextFlag.TextWordWrap), text)
            widest = max(fm.horizontalAdvance(word) for word in text.split())
            if widest > width or need.height() > table.rowHeight(i):
                out.append(f"({i}, {j}) {text[:40]!r}: needs {max(widest, need.width())}×{need.height()} px, "
                           f"has {width}×{table.rowHeight(i)}")
    if table.horizontalHeader().isVisible():
        hfm = QFontMetrics(table.horizontalHeader().font())
        for j in range(table.columnCount()):
            header = table.horizontalHeaderItem(j)
            lines = header.text().split("\n") if header is not None else []
            if lines and max(hfm.horizontalAdvance(s) for s in lines) > table.columnWidth(j) - margin:
                out.append(f"header {header.text()!r} wider than its column ({table.columnWidth(j)} px)")
    return out


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_properties_read_without_sideways_scrolling(qtbot, window, size, presenter):
    win = window
    put_on_screen(win, size, presenter)
    win.show_panel("schemes")
    panel = win.panels["schemes"]
    panel.set_state(panel.state.clamped(view="properties"))
    view = panel.properties_view
    qtbot.waitUntil(lambda: len(view.schemes()) == len(panel.state.schemes), timeout=30000)
    settle(100)
    table = view.table
    assert table.isVisible() and table.width() > 0
    bar = table.horizontalScrollBar()
    assert bar.maximum() == 0 and not bar.isVisible(), (size, presenter, view.cards, bar.maximum())
    columns = sum(table.columnWidth(j) for j in range(table.columnCount()))
    assert columns <= table.viewport().width(), (columns, table.viewport().width())
    assert not cut_cells(table), "\n".join(cut_cells(table))
    # Every scheme shown, its name in bold: a row of the table or the top of its card.
    names = [table.item(i, 0) for i in range(table.rowCount())]
    named = [it.data(Qt.ItemDataRole.UserRole) for it in names if it is not None
             and it.data(Qt.ItemDataRole.UserRole) is not None]
    assert named == list(panel.state.schemes)
    if size == (1280, 720):
        assert view.cards  # six columns do not fit beside the controls at 720p
    win.look.set_presenter(False)


def test_the_cut_check_can_fail(qtbot):
    table = QTableWidget(1, 2)
    qtbot.addWidget(table)
    table.setItem(0, 0, QTableWidgetItem(
        "a sentence long enough to need several lines in a narrow column"))
    table.setColumnWidth(0, 120)
    table.setRowHeight(0, 24)
    assert cut_cells(table)
    table.resizeRowsToContents()
    table.setWordWrap(True)
    table.resizeRowsToContents()
    assert not cut_cells(table)
