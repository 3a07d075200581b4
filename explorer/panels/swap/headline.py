"""The Token-swap panel's verdict headline: big, coloured by the verdict, on one line where it can be."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QLabel, QSizePolicy

from ...widgets.text_pin import LiveLabel

#: Headline colours per verdict: (text, background, border), on light and on dark themes.
VERDICT_STYLE = {
    "equivariant": ("#0f5323", "#d9f2df", "#2e8b47"),
    "order-visible": ("#7a2e06", "#ffe3cc", "#d9631e"),
    "no-swap": ("#333333", "#ececec", "#9a9a9a"),
}
VERDICT_STYLE_DARK = {
    "equivariant": ("#a8f0bb", "#123a20", "#3fbf63"),
    "order-visible": ("#ffd0ad", "#45200a", "#f07a32"),
    "no-swap": ("#e0e0e0", "#2b2f36", "#7d8590"),
}


class Headline(LiveLabel):
    """The verdict, big: green when attention is permutation-equivariant, warm when order is visible.

    Its size steps down from ``point_size`` (not below ``least``) to keep the verdict on one line: a second line of
    verdict took the height a 720-line projector needs for the maps; where even ``least`` needs two, it wraps.
    A live label: its numbers ("changed by up to 0.475") change at every step of an α drag, and while a slider is
    held it keeps its size and shows a new verdict at most every 100 ms (each one fitted its font and laid the
    panel, its dock and the window out again)."""

    _PAD = 2 * (10 + 2)  # the sheet's padding and border at both ends

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)  # it may quote the typed words
        self.setWordWrap(True)
        self.setObjectName("swapHeadline")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict = "no-swap"
        self._wanted = "no-swap"  # the verdict of the newest text (shown with it)
        self.dark = False
        self.point_size = 19.0
        self.least = 19.0
        self.tight = False
        self._shown_pt = 0.0
        self.set_verdict("no-swap", "")

    def set_look(self, *, dark: bool, point_size: float, least: float | None = None, tight: bool = False) -> None:
        """Colours for a light or dark theme, and the text size (it follows zoom and presenter mode): ``point_size``
        where the verdict fits one line, smaller down to ``least`` (default: no smaller) where it does not;
        ``tight``: less padding above and below (a short panel)."""
        self.dark, self.point_size, self.tight = dark, point_size, tight
        self.least = min(point_size, point_size if least is None else least)
        self._restyle(force=True)

    def set_verdict(self, verdict: str, text: str) -> None:
        mark = {"equivariant": "✓ ", "order-visible": "⚠ ", "no-swap": ""}[verdict]
        self._wanted = verdict
        self.setText(mark + text)  # now, or while a slider is held when its turn comes (show_text)

    def show_text(self, text: str) -> None:
        if text == self.text() and self._wanted == self.verdict and self.styleSheet():
            return  # the same verdict again: nothing to fit (its font sizes, 0.13 ms a step)
        QLabel.setText(self, text)
        force = self._wanted != self.verdict or not self.styleSheet()
        self.verdict = self._wanted
        self._restyle(force=force)

    def fitted_size(self) -> float:
        """The size the verdict is drawn at: the largest from ``point_size`` down to ``least`` (in half points)
        that keeps it to one line at the label's width; ``least`` where none does."""
        room = self.width() - self._PAD
        font = QFont(self.font())
        font.setWeight(QFont.Weight.Bold)
        pt = self.point_size
        while pt > self.least:
            font.setPointSizeF(pt)
            metrics = QFontMetricsF(font)
            # Two spaces to spare: a line measured to fit within a pixel or two still wrapped.
            if metrics.horizontalAdvance(self.text() + "  ") <= room:
                return pt
            pt = max(self.least, pt - 0.5)
        return self.least

    def _restyle(self, force: bool = False) -> None:
        pt = self.fitted_size()
        if not force and pt == self._shown_pt:
            return
        self._shown_pt = pt
        fg, bg, border = (VERDICT_STYLE_DARK if self.dark else VERDICT_STYLE)[self.verdict]
        self.setStyleSheet(
            f"QLabel#swapHeadline {{ font-size: {pt:g}pt; font-weight: 700; color: {fg};"
            f" background: {bg}; border: 2px solid {border}; border-radius: 6px;"
            f" padding: {2 if self.tight else 6}px 10px; }}"
        )

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._restyle()
