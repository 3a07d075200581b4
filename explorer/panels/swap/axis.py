"""Token swap's token axis: a tick per token at its cell's centre, shortened to the cell rather than dropped."""

from __future__ import annotations

import math
import re

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontMetricsF

from ...widgets.axis import Axis
from ...widgets.token_chips import short_word

_NOTE = re.compile(r" ?\(?every \w+ labelled\)?")
_BRACKET = re.compile(r"\s*\([^)]*\)")
#: Token tick labels are shortened above this many letters (the whole word is in its chip's tooltip).
TICK_WORD = 10
_TICK_PT = 11


def _tick_font() -> QFont:
    f = QFont()
    f.setPointSize(_TICK_PT)
    return f


class TokenAxis(Axis):
    """An axis whose ticks are tokens at cell centres (k + 0.5): every token keeps its label where the cells
    leave room, shortened to its cell's width ("bi…") rather than dropped; only where a cell is too small even
    for that are the labels thinned (every 2nd, 3rd … token), and the axis's title then says so.

    ``extra`` adds fixed ticks (e.g. "Σ" over the row-sum column).  The step between labelled
    tokens follows the axis length in pixels, so a 64-token sentence stays legible when the plot is
    small and shows every word when it is big.
    """

    def __init__(self, orientation: str, **kwargs) -> None:
        self._title = ""
        self._step = 1
        self._cell_px = 0.0
        self._labels: list[str] = []
        self._given: list[str] = []  # the labels as set_labels was given them
        self._extra: dict[float, str] = {}
        super().__init__(orientation, **kwargs)
        self.setTickFont(_tick_font())

    def set_labels(self, labels: list[str], extra: dict[float, str] | None = None) -> None:
        """Show ``labels`` (and ``extra``); the same ones again (a slider drag) leave the drawn axis as it is."""
        if list(labels) == self._given and dict(extra or {}) == self._extra:
            return  # (the words as given: shortening 64 of them again, five axes a drag step, was the check's cost)
        self._given = list(labels)
        self._labels = [short_word(s, TICK_WORD) for s in labels]  # one 500-letter word must not eat the plot
        self._extra = dict(extra or {})
        self.picture = None
        self.update()

    def labels(self) -> list[str]:
        return list(self._labels)

    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(self.style.get("tickFont") or _tick_font())

    def pitch(self) -> float:
        """The least pixels a token's cell needs for every token to keep its label."""
        if not self._labels:
            return 0.0
        fm = self._metrics()
        if self.orientation in ("left", "right"):
            return fm.height() * 0.8 + 4
        # a word shortened to two letters and "…" is still a label
        need = min(max(fm.horizontalAdvance(s) for s in self._labels), fm.horizontalAdvance("mm…"))
        return need + fm.horizontalAdvance("  ")

    def label_step(self, size_px: float, span: float) -> int:
        """Every how many tokens a label fits into ``size_px`` pixels showing ``span`` cells."""
        n = len(self._labels)
        if n == 0 or size_px <= 0:
            return 1
        per_cell = size_px / max(span, 1e-9)
        return max(1, math.ceil(self.pitch() / per_cell))

    def hidden_note(self) -> str:
        """What the axis's title says when labels are thinned ("" when every token has its label)."""
        if self._step <= 1:
            return ""
        nth = {2: "2nd", 3: "3rd"}.get(self._step, f"{self._step}th")
        return f"every {nth} labelled"

    def label_forms(self, text: str, font, room: float) -> list[str]:
        """Where the title does not fit, the note on which tokens are labelled is what it keeps, whole."""
        note = self.hidden_note()
        return [note] if note and note != text else super().label_forms(text, font, room)

    def setLabel(self, text=None, units=None, unitPrefix=None, **kwargs) -> None:  # noqa: N802,N803 - pyqtgraph
        self._title = _NOTE.sub("", text or "")  # the theme sets the shown title again, note and all
        self._show_title(units, unitPrefix, **kwargs)

    def _show_title(self, units=None, unit_prefix=None, **kwargs) -> None:
        super().setLabel(self._title_text(), units, unit_prefix, **kwargs)

    def _title_text(self) -> str:
        """The title with the note of which tokens are labelled; where that is longer than the axis, the title
        without its own bracket ("key (original order)" → "key"): the note must stay, it says what is missing."""
        note = self.hidden_note()
        if not note or not self._title:
            return note or self._title
        text = f"{self._title} ({note})"
        bare = _BRACKET.sub("", self._title).strip()
        if bare and bare != self._title and self._label_width(text) > self._length() - 8:
            return f"{bare} ({note})"
        return text

    def _length(self) -> float:
        return self.size().height() if self.orientation in ("left", "right") else self.size().width()

    def _label_width(self, text: str) -> float:
        font = QFont(self.label.font())
        size = str(self.labelStyle.get("font-size", ""))
        if size.endswith("pt"):
            font.setPointSizeF(float(size[:-2]))
        return QFontMetricsF(font).horizontalAdvance(text)

    def _update_title(self) -> None:
        """The step and title for the axis' present length and range, at once: a resized map kept its old note
        ("every 2nd labelled") until its next paint."""
        if self._labels:
            lo, hi = self.range
            self._step = self.label_step(self._length(), abs(hi - lo))
        if self._title and self.label.toPlainText().strip() != self._title_text():
            self._show_title()

    def setRange(self, mn: float, mx: float) -> None:  # noqa: N802 - pyqtgraph API
        super().setRange(mn, mx)
        self._update_title()

    def resizeEvent(self, ev=None) -> None:  # noqa: N802 - Qt override
        self._update_title()
        super().resizeEvent(ev)

    def tickValues(self, minVal: float, maxVal: float, size: float):  # noqa: N802,N803 - pyqtgraph API
        n = len(self._labels)
        if n == 0:
            return []
        span = abs(maxVal - minVal)
        step = self.label_step(size, span)
        self._cell_px = size / max(span, 1e-9)
        if step != self._step:  # the title says which are labelled (not while the axis is being drawn)
            self._step = step
            QTimer.singleShot(0, self._show_title)
        values = [k + 0.5 for k in range(0, n, step)] + list(self._extra)
        return [(float(step), values)]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph API
        fm = self._metrics()
        room = self._cell_px * self._step - fm.horizontalAdvance("  ")
        out = []
        for v in values:
            if v in self._extra:
                out.append(self._extra[v])
                continue
            k = int(math.floor(v))
            word = self._labels[k] if 0 <= k < len(self._labels) else ""
            if self.orientation in ("top", "bottom") and room > 0 and fm.horizontalAdvance(word) > room:
                word = fm.elidedText(word, Qt.TextElideMode.ElideRight, room)
            out.append(word)
        return out
