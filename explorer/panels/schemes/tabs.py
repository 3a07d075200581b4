"""The Schemes panel's tab bar: full view titles where they fit, short ones where they do not.

At 1280 × 720 in presenter mode the six full titles hid "5 · Properties" and "6 · A model's RoPE" behind
scroll arrows; short titles ("6 · Model") keep every tab in sight, the full title in its tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QTabWidget


class FittedTabs(QTabWidget):
    """A tab widget whose tab ``i`` is titled ``titles[i]``, or ``short[i]`` while the full titles overflow."""

    def __init__(self, titles: list[str], short: list[str], parent=None) -> None:
        super().__init__(parent)
        self._titles, self._short = list(titles), list(short)
        self.short_titles = False

    def add_page(self, page, index: int) -> None:
        self.addTab(page, self._titles[index])
        self.setTabToolTip(index, self._titles[index])

    def _needed(self, titles: list[str]) -> int:
        bar = self.tabBar()
        fm = QFontMetrics(bar.font())
        total = 0
        for i in range(bar.count()):
            pad = bar.tabSizeHint(i).width() - fm.horizontalAdvance(bar.tabText(i))
            total += fm.horizontalAdvance(titles[i]) + pad
        return total

    def fit_titles(self) -> None:
        """Full titles if the bar holds them at the current width and font, else the short ones."""
        if self.tabBar().count() != len(self._titles):
            return
        short = self._needed(self._titles) > self.width() - 4
        self.short_titles = short
        for i, (full, brief) in enumerate(zip(self._titles, self._short, strict=True)):
            text = brief if short else full
            if self.tabText(i) != text:
                self.setTabText(i, text)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit_titles()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self.fit_titles()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.fit_titles()
