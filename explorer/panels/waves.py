"""Waves panel: the sinusoidal encoding as a heatmap (first version; issue 3 completes it)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QSpinBox

from ..jobs.waves import WavesRequest, WavesResponse
from ..state import WavesState
from ..widgets.plots import Heatmap
from .base import Panel


class WavesPanel(Panel):
    panel_id = "waves"
    state_cls = WavesState

    def __init__(self, service, state=None, parent=None) -> None:
        super().__init__(service, state, parent)
        row = QHBoxLayout()
        form = QFormLayout()
        self.n_spin = QSpinBox(minimum=1, maximum=131072)
        self.d_spin = QSpinBox(minimum=2, maximum=4096, singleStep=2)
        self.base_spin = QDoubleSpinBox(minimum=10, maximum=1e7, decimals=0)
        self.variant_combo = QComboBox()
        self.variant_combo.addItems(["paper", "halves", "t2t"])
        form.addRow("Positions N", self.n_spin)
        form.addRow("d_model", self.d_spin)
        form.addRow("base", self.base_spin)
        form.addRow("variant", self.variant_combo)
        row.addLayout(form)
        self.heatmap = Heatmap("PE[position, column]", x="column (pair i = column // 2)", y="position p")
        row.addWidget(self.heatmap, 1)
        self.body.addLayout(row)
        self.n_spin.valueChanged.connect(lambda v: self.set_state(self.state.clamped(n_positions=v)))
        self.d_spin.valueChanged.connect(lambda v: self.set_state(self.state.clamped(d_model=v - v % 2 or 2)))
        self.base_spin.valueChanged.connect(lambda v: self.set_state(self.state.clamped(base=v)))
        self.variant_combo.currentTextChanged.connect(lambda v: self.set_state(self.state.clamped(variant=v)))
        self.set_state(self.state)

    def sync_widgets(self, st: WavesState) -> None:
        self.n_spin.setValue(st.n_positions)
        self.d_spin.setValue(st.d_model)
        self.base_spin.setValue(st.base)
        self.variant_combo.setCurrentText(st.variant)

    def requests(self, st):
        return [WavesRequest(st)]

    def show_result(self, r: WavesResponse) -> None:
        st = r.request.state
        self.heatmap.set_matrix(r.heatmap, rect=(0, 0, st.d_model, st.n_positions))
