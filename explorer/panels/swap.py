"""Token-swap panel (first version; issue 4 completes it)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit

from ..jobs.swap import SwapRequest, SwapResponse
from ..state import StateError, SwapState
from ..widgets.plots import Heatmap
from .base import Panel


class SwapPanel(Panel):
    panel_id = "swap"
    state_cls = SwapState

    def __init__(self, service, state=None, parent=None) -> None:
        super().__init__(service, state, parent)
        controls = QHBoxLayout()
        self.sentence_edit = QLineEdit()
        self.scheme_combo = QComboBox()
        self.scheme_combo.addItems(["none", "sinusoidal", "learned", "rope", "alibi"])
        controls.addWidget(QLabel("Sentence"))
        controls.addWidget(self.sentence_edit, 1)
        controls.addWidget(QLabel("Scheme"))
        controls.addWidget(self.scheme_combo)
        self.body.addLayout(controls)
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.headline.setStyleSheet("font-size: 15pt; font-weight: 600;")
        self.body.addWidget(self.headline)
        maps = QHBoxLayout()
        self.before = Heatmap("Attention before the swap", x="key", y="query", levels=(0, 1), cmap="viridis")
        self.after = Heatmap("Attention after the swap", x="key", y="query", levels=(0, 1), cmap="viridis")
        maps.addWidget(self.before)
        maps.addWidget(self.after)
        self.body.addLayout(maps, 1)
        self.sentence_edit.editingFinished.connect(self._on_sentence_edited)
        self.scheme_combo.currentTextChanged.connect(lambda v: self.set_state(self.state.clamped(scheme=v)))
        self.set_state(self.state)

    def _on_sentence_edited(self) -> None:
        try:
            self.set_state(self.state.clamped(sentence=self.sentence_edit.text()))
        except StateError as exc:
            self.banner.show_error(str(exc))

    def sync_widgets(self, st: SwapState) -> None:
        self.sentence_edit.setText(st.sentence)
        self.scheme_combo.setCurrentText(st.scheme)

    def requests(self, st):
        return [SwapRequest(st)]

    def show_result(self, r: SwapResponse) -> None:
        self.headline.setText(r.headline)
        self.before.set_matrix(r.before.weights[0])
        self.after.set_matrix(r.after.weights[0])
