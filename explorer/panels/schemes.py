"""Schemes panel (first version; issue 5 completes it)."""

from __future__ import annotations

from PySide6.QtWidgets import QGridLayout

from ..jobs.schemes import SchemesRequest, SchemesResponse
from ..state import SchemesState
from ..state.schemes import SCHEME_NAMES
from ..widgets.plots import Heatmap
from .base import Panel

TITLES = {"sinusoidal": "Sinusoidal", "learned": "Learned", "rope": "RoPE", "alibi": "ALiBi", "nope": "NoPE",
          "scaled_rope": "Scaled RoPE"}


class SchemesPanel(Panel):
    panel_id = "schemes"
    state_cls = SchemesState

    def __init__(self, service, state=None, parent=None) -> None:
        super().__init__(service, state, parent)
        grid = QGridLayout()
        self.maps = {}
        for n, name in enumerate(SCHEME_NAMES):
            hm = Heatmap(TITLES[name], x="key position j", y="query position i")
            grid.addWidget(hm, n // 3, n % 3)
            self.maps[name] = hm
        self.body.addLayout(grid, 1)
        self.set_state(self.state)

    def requests(self, st):
        return [SchemesRequest(st)]

    def show_result(self, r: SchemesResponse) -> None:
        n = r.request.state.l_eval
        for name, hm in self.maps.items():
            m = r.matrices.get(name)
            hm.setVisible(m is not None)
            if m is not None:
                hm.set_matrix(m, rect=(0, 0, n, n), levels=r.levels)
