"""The formula strip under a panel: its font steps down (to 70 % at most) so the formula keeps to two lines
(or to its own lines, where it has several).  Its right-click menu copies the selection, or the formula's
numbers as a numpy program (**Copy as Python**, from the panel's ``formula_snippet``).

At 1280 × 720 in presenter mode the Schemes strip took four lines of the screen's height; a slightly
smaller font keeps it to two wherever that is enough, and never shrinks it below normal mode's size.
A strip of many formulas (one per line; the Schemes panel's, one per shown scheme) shows the first
:attr:`FormulaStrip.max_formulas` and a "▸ k more" link that unfolds the rest (and folds them back); all
of them are in its tooltip and copied by Copy.  Uncapped, fifteen formulas took 250 px of a 720 px screen.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication, QTextDocument
from PySide6.QtWidgets import QLabel, QMenu

from .text_pin import LiveLabel

MAX_LINES = 2
SHRINK = 0.7  # the smallest share of the theme's size the strip may take


_PART_END = re.compile(r"&[#\w]+;|;\s+")


def _parts(html: str) -> list[str]:
    """``html`` split at each "; " that ends a part of the formula (an entity's ";", as in "&nbsp; ", does not)."""
    parts, start = [], 0
    for m in _PART_END.finditer(html):
        if m.group().startswith(";"):
            parts.append(html[start:m.start()])
            start = m.end()
    return [re.sub(r"^(?:&nbsp;|\s)+", "", p) for p in (*parts, html[start:])]


def lines_at(html: str, font: QFont, width: float) -> float:
    """How many lines ``html`` wraps to at ``width`` px in ``font``."""
    doc = QTextDocument()
    doc.setDefaultFont(font)
    doc.setDocumentMargin(0)
    doc.setHtml(html)
    doc.setTextWidth(max(1.0, width))
    from PySide6.QtGui import QFontMetricsF

    return doc.size().height() / max(1.0, QFontMetricsF(font).lineSpacing())


class FormulaStrip(LiveLabel):
    """A rich-text label styled by :func:`explorer.theme.formula_sheet`, fitted to :data:`MAX_LINES`."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._sheet: tuple[Callable[[float], str], float, float] | None = None  # (pt -> sheet, wanted pt, least)
        self._pt = 0.0
        #: Returns the formula's Copy-as-Python snippet (``.code``) or why there is none (``.reason``).
        self.snippet: Callable[[], object] | None = None
        #: Formula lines shown at most (None: all); the rest behind "▸ k more".
        self.max_formulas: int | None = None
        self._full = ""
        self._expanded = False
        #: Presenter mode: one line (the leading parts that fit), the rest in the tooltip and behind "▸ more".
        self.one_line = False
        self._inputs: object = None  # what the formula shown was made from (see show_for)
        self.linkActivated.connect(self._on_link)

    def show_for(self, inputs: object, text: Callable[[], str]) -> None:
        """Show ``text()``, the formula made from ``inputs``, unless it is the one shown already."""
        if self._inputs is not None and inputs == self._inputs:
            return
        self._inputs = inputs
        self.setText(text())

    def context_menu(self) -> QMenu:
        """Copy (the selection, else the formula as plain text) and Copy as Python."""
        menu = QMenu(self)
        menu.setToolTipsVisible(True)
        menu.addAction("Copy").triggered.connect(self._copy_text)
        act = menu.addAction("Copy as Python")
        made = self.snippet() if self.snippet is not None else None
        code = getattr(made, "code", None)
        if code is None:
            act.setEnabled(False)
            act.setToolTip(f"No Python snippet: {getattr(made, 'reason', 'none for this formula')}")
        else:
            act.setToolTip("A numpy program that reproduces this formula's numbers, for a notebook")
            act.setData(code)
            act.triggered.connect(self._copy_python)
        return menu

    def contextMenuEvent(self, event) -> None:  # noqa: N802 - Qt override
        menu = self.context_menu()
        menu.exec(event.globalPos())
        menu.deleteLater()

    def _copy_text(self) -> None:
        doc = QTextDocument()
        doc.setHtml(self.text())
        QGuiApplication.clipboard().setText(self.selectedText() or doc.toPlainText())

    def _copy_python(self) -> None:
        made = self.snippet() if self.snippet is not None else None
        code = getattr(made, "code", None)
        if code is not None:
            QGuiApplication.clipboard().setText(code)

    def set_look(self, sheet, point_size: float, floor_pt: float) -> None:
        """Style with ``sheet(pt)``, at ``point_size`` where two lines hold the text, smaller (not below
        ``floor_pt`` nor 70 % of it) where they do not."""
        self._sheet = (sheet, float(point_size), max(float(floor_pt), SHRINK * float(point_size)))
        self._pt = 0.0
        if self.max_formulas is not None and self._full:
            self.show_text(self._full)  # the "more" link in the new theme's colour
        self._fit()

    def set_max_formulas(self, n: int | None) -> None:
        """Show at most ``n`` formula lines (``<br>``-separated), the rest behind a "▸ k more" link."""
        self.max_formulas = n
        self.setTextInteractionFlags(self.textInteractionFlags() | Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.show_text(self._full or super().text())

    def set_one_line(self, on: bool) -> None:
        """Keep the strip to one line (presenter mode): the formula's leading parts that fit, then "▸ more", which
        unfolds the whole text (its numbers); the whole text is in the tooltip too."""
        if bool(on) == self.one_line:
            return
        self.one_line = bool(on)
        self._expanded = False
        self.setTextInteractionFlags(self.textInteractionFlags() | Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.show_text(self._full or super().text())

    def text(self) -> str:  # noqa: D401 - QLabel override
        """Every formula, folded away or not (what Copy copies; :meth:`shown_text` is what is on screen)."""
        return self._full if self.max_formulas is not None or self.one_line else super().text()

    def shown_text(self) -> str:
        """The rich text on screen (the first formulas and the "▸ k more" link, when some are folded away)."""
        return super().text()

    def hidden_count(self) -> int:
        """How many formula lines are folded away now."""
        n = self._full.count("<br>") + 1 if self._full else 0
        return 0 if self.max_formulas is None or self._expanded else max(0, n - self.max_formulas)

    def show_text(self, text: str) -> None:
        self._full = text
        lines = text.split("<br>")
        cap = self.max_formulas
        if self.one_line:  # shortened by _fit, once the strip's width is known
            shown, tip = (text + f" &nbsp; {self._link('less', '▴ less')}" if self._expanded else text), ""
        elif cap is None or len(lines) <= cap:
            shown, tip = text, ""
        elif self._expanded:
            shown, tip = text + f" &nbsp; {self._link('less', '▴ fewer')}", ""
        else:
            rest = len(lines) - cap
            # The link ends the last line shown (a line of its own cost a fifth of the strip).
            shown = "<br>".join(lines[:cap]) + f" &nbsp; {self._link('more', f'▸ {rest} more')}"
            tip = "<qt>" + text + "</qt>"
        self.setToolTip(tip)
        QLabel.setText(self, shown)
        self._fit()

    @staticmethod
    def _link(href: str, text: str) -> str:
        """A link in the theme's text colour, underlined (Qt's default blue was unreadable on the dark theme)."""
        from .theming import current_theme

        colour = current_theme().foreground
        return f"<a href='{href}' style='color:{colour}; text-decoration: underline'>{text}</a>"

    def _one_line_text(self, text: str, font: QFont, width: float) -> str | None:
        """The leading parts of ``text`` (split at "; ", or each formula's first part where there are several)
        that fit one line, and the "▸ more" link; None when the whole text fits one line."""
        if not text or lines_at(text, font, width) <= 1.2:
            return None
        lines = text.split("<br>")
        units = _parts(lines[0]) if len(lines) == 1 else [_parts(line)[0] for line in lines]
        join = "; " if len(lines) == 1 else " &nbsp;·&nbsp; "
        link = f" &nbsp; {self._link('more', '▸ more')}"
        shown = units[0]
        for unit in units[1:]:
            if lines_at(shown + join + unit + link, font, width) > 1.2:
                break
            shown += join + unit
        return shown + link

    def _on_link(self, link: str) -> None:
        self._expanded = link == "more"
        self.show_text(self._full)

    def point_size(self) -> float:
        return self._pt

    def _fit(self) -> None:
        if self._sheet is None:
            return
        sheet, wanted, floor = self._sheet
        m = self.contentsMargins()
        width = self.width() - m.left() - m.right() - 16  # the sheet's padding
        pt = wanted
        if self.one_line and not self._expanded:
            self._fit_one_line(sheet, wanted, width)
            return
        # Hidden (a background dock never laid out), its width means nothing: fitted when it is shown.
        shown = self.shown_text()
        if self.isVisible() and shown and width > 50:
            font = QFont(self.font())
            # A formula per line (the Schemes panel's, one per scheme) keeps its own lines, unwrapped.
            target = max(MAX_LINES, shown.count("<br") + 1)
            while pt > floor:
                font.setPointSizeF(pt)
                if lines_at(shown, font, width) <= target + 0.5:
                    break
                pt = max(floor, round(pt - 1.0, 1))
        if pt != self._pt:
            self._pt = pt
            self.setStyleSheet(sheet(pt))

    def _fit_one_line(self, sheet, pt: float, width: float) -> None:
        if pt != self._pt:
            self._pt = pt
            self.setStyleSheet(sheet(pt))
        if not (self.isVisible() and self._full and width > 50):
            return
        font = QFont(self.font())
        font.setPointSizeF(pt)
        short = self._one_line_text(self._full, font, width)
        shown = self._full if short is None else short
        if shown != super().text():
            self.setToolTip("" if short is None else "<qt>" + self._full + "</qt>")
            QLabel.setText(self, shown)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._fit()
