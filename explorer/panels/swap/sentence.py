"""The Token-swap panel's sentence rows: the typed sentence, its words as chips to swap, and the sentence after."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton

from ...widgets.token_chips import TokenChipsArea

if TYPE_CHECKING:
    from .panel import SwapPanel


def build_sentence_rows(panel: SwapPanel) -> None:
    """Add the rows above the maps to ``panel``'s body: the sentence box, the chips with Swap and Undo, and the
    sentence after the swap (``panel.sentence_edit``, ``count_label``, ``chips_area``, ``chips``, ``swap_button``,
    ``undo_button``, ``after_label``)."""
    row = QHBoxLayout()
    panel.sentence_edit = QLineEdit(panel)
    panel.sentence_edit.setPlaceholderText("Type a sentence; words are separated by spaces (at most 64)")
    panel.sentence_edit.setToolTip("Press Enter to use the sentence. "
                                   "Each whitespace-separated word is a token.")
    f = panel.sentence_edit.font()
    f.setPointSizeF(max(f.pointSizeF(), 9.0) * 1.25)
    panel.sentence_edit.setFont(f)
    panel.count_label = QLabel(panel)
    row.addWidget(QLabel("Sentence", panel))
    row.addWidget(panel.sentence_edit, 1)
    row.addWidget(panel.count_label)
    panel.body.addLayout(row)

    chips_row = QHBoxLayout()
    before = QLabel("<b>Before</b>", panel)
    before.setToolTip("The sentence as typed. Drag a word onto another to swap the two.")
    panel.chips_area = TokenChipsArea(panel)
    panel.chips_area.setProperty("slideShown", True)  # a slide keeps the sentence before the swap
    panel.chips = panel.chips_area.chips
    panel.chips.setToolTip("Drag one word onto another to swap them; or click two words and press Swap.")
    panel.swap_button = QPushButton("Swap ⇄", panel)
    panel.swap_button.setToolTip("Swap the two selected words (click two chips first)")
    panel.undo_button = QPushButton("&Undo", panel)
    panel.undo_button.setToolTip("Go back to the previous sentence and swap")
    before.setMinimumWidth(52)
    chips_row.addWidget(before, 0, Qt.AlignmentFlag.AlignVCenter)
    chips_row.addWidget(panel.chips_area, 1)
    chips_row.addWidget(panel.swap_button, 0, Qt.AlignmentFlag.AlignTop)
    chips_row.addWidget(panel.undo_button, 0, Qt.AlignmentFlag.AlignTop)
    panel.body.addLayout(chips_row)

    after_row = QHBoxLayout()
    after = QLabel("<b>After</b>", panel)
    after.setMinimumWidth(52)
    after.setToolTip("The sentence with the two marked words swapped")
    after_row.addWidget(after, 0, Qt.AlignmentFlag.AlignVCenter)
    panel.after_label = QLabel(panel)
    panel.after_label.setObjectName("swapAfter")
    panel.after_label.setWordWrap(True)
    panel.after_label.setTextFormat(Qt.TextFormat.RichText)
    after_row.addWidget(panel.after_label, 1)
    panel.body.addLayout(after_row)
