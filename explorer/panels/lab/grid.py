"""The Lab's results grid: every task run so far × its schemes, at each test length (as a multiple of L).

Rows: a title row per task (its name, L and the score shown), then one row per scheme, named in its
curves' colour; columns: L, 1.5×L, 2×L … (the union over the tasks, so tasks with different L line up).
A cell is the task's score in percent — exact match (the whole answer right) for the sequence tasks,
per-token accuracy for the rule — or, where the scheme has no encoding for that length, one merged
"cannot run" cell: never a number where there is none.  Only draws what it is given.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QProxyStyle,
    QSizePolicy,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
)

from ...lab import SCHEME_LABELS, fmt_percent
from ...lab.summary import cell_text
from ...theme import control_colours
from ...widgets.plain import plain_tip
from .common import scheme_colour

MUTED = "#777777"


def multiple_text(m: float) -> str:
    """A column's heading: the test length as a multiple of L (the title rows say "× L"); "1½", not "1.5",
    which did not fit the narrow columns of a 1280 × 720 presenter screen (quarters likewise: "1¼")."""
    part = {0.25: "¼", 0.5: "½", 0.75: "¾"}.get(m - int(m))
    if part is not None:
        return f"{int(m)}{part}" if m > 1 else part
    return f"{m:g}"


def _score(cfg, r):
    return r.exact if cfg.scored_by_exact_match else r.accuracy


class _GridLines(QProxyStyle):
    """The application's style, with the table's grid lines in ``colour``."""

    def __init__(self, colour: QColor) -> None:
        super().__init__()
        rgba = colour.rgba()
        self._grid = rgba - (1 << 32) if rgba >= (1 << 31) else rgba  # styleHint returns a signed int

    def styleHint(self, hint, option=None, widget=None, data=None):  # noqa: N802 - Qt override
        if hint == QStyle.StyleHint.SH_Table_GridLineColor:
            return self._grid
        return super().styleHint(hint, option, widget, data)


class ResultsGrid(QTableWidget):
    """Tasks × schemes × test lengths; ``show_runs([(config, scheme_results), …])`` redraws it.

    ``titles`` False leaves out the task title rows (a grid of the one task the plots show)."""

    def __init__(self, parent=None, *, titles: bool = True) -> None:
        super().__init__(parent)
        self.titles = titles
        self.setObjectName("labResultsGrid" if titles else "labResultsTable")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setWordWrap(False)
        # "100" is a few pixels wider than a narrow column's text margins allow at 720p presenter: drawn whole
        # into the margin (inside its cell) rather than cut to "1…".
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        # Columns share the width: the grid never scrolls sideways (it did at 1280 × 720 in presenter mode).
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.horizontalHeader().setMinimumSectionSize(8)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._theme = None
        self._grid_style: QProxyStyle | None = None
        self._runs: list = []
        #: (task, scheme) -> row; multiple -> column (for tests and screen readers).
        self._rows: dict[tuple[str, str], int] = {}
        self._cols: dict[float, int] = {}
        self._scheme_rows: list[tuple[int, str]] = []

    # -- look ----------------------------------------------------------------------------------------
    def set_theme(self, theme) -> None:
        """Scheme names in their curves' colours as ``theme`` draws them (NoPE's grey was dim on black)."""
        self._theme = theme
        self._colour_headers()
        # The style's grid is a shade off the dark base (">99>99>99" ran together): lines at ≥ 3:1 instead, the
        # sliders' track colour (explorer.theme.control_colours; tests/test_contrast.py measures them).
        # (Fusion draws the grid a shade darker than the window colour; a style sheet turned the dark table white.)
        if theme is not None:
            self._grid_style = _GridLines(QColor(control_colours(theme)["track"]))
            self.setStyle(self._grid_style)

    def _colour_headers(self) -> None:
        for row, s in self._scheme_rows:
            item = self.verticalHeaderItem(row)
            if item is not None:
                item.setForeground(scheme_colour(s, self._theme))

    def setFont(self, font) -> None:  # noqa: N802 - Qt override: headers, titles and row heights follow
        super().setFont(font)
        self._fit_rows()
        if self._runs:
            self.show_runs(self._runs)

    def _bold(self) -> QFont:
        f = QFont(self.font())
        f.setBold(True)
        return f

    def _fit_rows(self) -> None:
        h = QFontMetrics(self.font()).height() + 4
        self.verticalHeader().setDefaultSectionSize(h)
        # Scheme names in their colours, not bold: the narrow Lab cell needs the width for the numbers.
        self.verticalHeader().setFont(self.font())
        self.horizontalHeader().setFont(self._bold())

    # -- content -------------------------------------------------------------------------------------
    def show_runs(self, runs) -> None:
        """Draw ``runs``: (config, scheme results[, headline]) per task, in order; a scheme not finished is
        blank; a headline (what the run found) leads the task's title row."""
        self._runs = [tuple(r) if len(r) == 3 else (*r, "") for r in runs]
        mults = sorted({n / cfg.train_len for cfg, _, _ in self._runs for n in cfg.eval_lens})
        self._cols = {m: i for i, m in enumerate(mults)}
        self.clearSpans()
        self.clear()
        self._rows.clear()
        self._scheme_rows.clear()
        n_rows = sum(int(self.titles) + len(cfg.schemes) for cfg, _, _ in self._runs)
        self.setRowCount(n_rows)
        self.setColumnCount(len(mults))
        self.setHorizontalHeaderLabels([multiple_text(m) for m in mults])
        for i, m in enumerate(mults):
            if (header := self.horizontalHeaderItem(i)) is None:  # set just above: never None
                continue
            header.setToolTip(
                "Test length " + ("L (the training length)" if m == 1 else f"{m:g} × L") + ": "
                + ", ".join(f"{cfg.task_title}: {round(m * cfg.train_len)}" for cfg, _, _ in self._runs))
        self._fit_rows()
        row = 0
        for cfg, schemes, found in self._runs:
            if self.titles:
                self._title_row(row, cfg, found)
                row += 1
            done = {s.scheme: s for s in schemes}
            for scheme in cfg.schemes:
                self._scheme_row(row, cfg, scheme, done.get(scheme))
                row += 1
        self._colour_headers()

    def _title_row(self, row: int, cfg, found: str = "") -> None:
        metric = "exact match" if cfg.scored_by_exact_match else "accuracy"
        what = f"{metric} (%) at n × L, L = {cfg.train_len}"
        # The headline's first finding (the scheme that held longest) leads; all of it is in the tooltip.
        lead = found.split(";")[0].rstrip(".") if found else cfg.task_title
        item = QTableWidgetItem(f"{lead} · {what}")
        item.setFont(self._bold())
        item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        item.setToolTip((found + "\n" if found else "") + f"{cfg.task_title}: trained at L = {cfg.train_len} "
                        f"for {cfg.steps} steps; {what}")
        self.setVerticalHeaderItem(row, QTableWidgetItem(""))
        self.setItem(row, 0, item)
        if self.columnCount() > 1:
            self.setSpan(row, 0, 1, self.columnCount())

    def _scheme_row(self, row: int, cfg, scheme: str, res) -> None:
        head = QTableWidgetItem(SCHEME_LABELS[scheme])
        self.setVerticalHeaderItem(row, head)
        self._scheme_rows.append((row, scheme))
        self._rows[(cfg.task, scheme)] = row
        blocked: list[int] = []
        for n in cfg.eval_lens:
            col = self._cols[n / cfg.train_len]
            r = res.at(n) if res is not None and res.status == "done" else None
            if res is not None and res.status != "done":
                self.setItem(row, col, self._cell("cancelled", muted=True))
            elif r is None:
                self.setItem(row, col, self._cell(""))
            elif r.ran:
                v = _score(cfg, r)
                tip = (f"{SCHEME_LABELS[scheme]}, length {n}: "
                       + (f"exact match {fmt_percent(r.exact)}, per-token accuracy " if r.exact is not None
                          else "accuracy ") + f"{fmt_percent(r.accuracy)}, cross-entropy {r.loss:.3f} nats")
                self.setItem(row, col, self._cell(cell_text(v) if v is not None else "—", tip))
            else:
                blocked.append(col)
                self.setItem(row, col, self._cell("cannot run", r.reason, muted=True))
        # One "cannot run" across the lengths it cannot reach: readable in narrow columns.
        if len(blocked) > 1 and blocked == list(range(blocked[0], blocked[-1] + 1)):
            self.setSpan(row, blocked[0], 1, len(blocked))

    def _cell(self, text: str, tip: str = "", muted: bool = False) -> QTableWidgetItem:
        item = QTableWidgetItem(text)
        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        if tip:
            item.setToolTip(plain_tip(tip))  # a results file's reason: anyone's text
        if muted:
            f = QFont(self.font())
            f.setItalic(True)
            item.setFont(f)
            item.setForeground(QColor(MUTED))
        return item

    def prepare(self, schemes, lengths, train_len: int, task: str = "rule") -> None:
        """Empty rows for one run of ``task`` (``schemes`` × ``lengths``), before any result."""
        from ...lab import LabConfig

        self.show_runs([(LabConfig(task=task, schemes=tuple(schemes), train_len=train_len,
                                   eval_lens=tuple(lengths)), [])])

    def show_schemes(self, result_schemes) -> None:
        """Fill in finished schemes of the one run :meth:`prepare` (or the last :meth:`show_runs`) drew."""
        if not self._runs:
            return
        cfg, old, found = self._runs[-1]
        done = {s.scheme: s for s in old}
        done.update({s.scheme: s for s in result_schemes})
        self.show_runs([*self._runs[:-1], (cfg, list(done.values()), found)])

    # -- reading back --------------------------------------------------------------------------------
    def text_at(self, task: str, scheme: str, length: int) -> str:
        """What the cell shows for ``scheme`` on ``task`` at ``length`` (for tests and screen readers)."""
        cfg = next(c for c, _, _ in self._runs if c.task == task)
        item = self.item(self._rows[(task, scheme)], self._cols[length / cfg.train_len])
        return item.text() if item is not None else ""

    def title_rows(self) -> list[str]:
        """The task title rows' text, top to bottom."""
        out = []
        for r in range(self.rowCount()):
            head = self.verticalHeaderItem(r)
            if head is None or not head.text():
                item = self.item(r, 0)
                out.append(item.text() if item is not None else "")
        return out
