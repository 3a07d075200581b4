"""Token swap's maps for a scheme that counts positions from the content (CoPE): the position p_ij each query i
gives each key j (its count of gated keys, written in the cells), before the swap and after it, moved back to the
original order; hovering a cell reads its gate and position."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Signal

from ...widgets.plots import SEQUENTIAL, Heatmap
from ...widgets.token_chips import short_word
from .axis import TokenAxis
from .values import ValueText
from .views import _LABEL_STYLE, _TITLE_SIZE, OutputMap, _style_plot


class PositionMap(Heatmap):
    """Contextual positions p[query, key] with the tokens on both axes and the numbers in the cells."""

    hovered = Signal(str)

    def __init__(self, title: str, parent=None) -> None:
        super().__init__(title, x="key", y="query", levels=(0.0, 1.0), cmap=SEQUENTIAL, parent=parent)
        pi = self.getPlotItem()
        self.x_axis, self.y_axis = TokenAxis("bottom"), TokenAxis("left")
        pi.setAxisItems({"bottom": self.x_axis, "left": self.y_axis})
        pi.setLabel("bottom", "key", **_LABEL_STYLE)
        pi.setLabel("left", "query", **_LABEL_STYLE)
        pi.setTitle(title, size=_TITLE_SIZE)
        self._full_title = title
        self.values = ValueText(fmt=lambda v: f"{v:.1f}")
        pi.addItem(self.values, ignoreBounds=True)
        _style_plot(self, zoom=True)
        self._positions = np.zeros((0, 0))
        self._gates = np.zeros((0, 0))
        self._tokens: list[str] = []
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)

    def set_data(self, positions: np.ndarray, gates: np.ndarray, tokens: list[str], top: float, title: str) -> None:
        """Draw ``positions`` (n, n) on a scale 0 … ``top`` (the same for before and after)."""
        n = len(tokens)
        self._positions, self._gates, self._tokens = np.asarray(positions, float), np.asarray(gates, float), tokens
        self.set_matrix(self._positions, rect=(0, 0, n, n), levels=(0.0, max(top, 1e-9)))
        self.x_axis.set_labels(tokens)
        self.y_axis.set_labels(tokens)
        rows, cols = np.indices((n, n))
        self.values.set_items(cols + 0.5, rows + 0.5, self._positions)
        self._full_title = title
        self.set_title(title)
        vb = self.getPlotItem().getViewBox()
        vb.setRange(xRange=(0, n), yRange=(0, n), padding=0.02)

    def cell_text(self, x: float, y: float) -> str:
        n = len(self._tokens)
        r, c = int(math.floor(y)), int(math.floor(x))
        if not (0 <= r < n and 0 <= c < n):
            return ""
        return (f"{self._full_title}: query “{short_word(self._tokens[r])}” ({r}) → key “{short_word(self._tokens[c])}”"
                f" ({c}): gate {self._gates[r, c]:.3f}, position {self._positions[r, c]:.3f}")

    #: The readout and the pointer, as the output maps do it (from :meth:`cell_text`).
    _on_mouse_moved = OutputMap._on_mouse_moved


class CountMaps:
    """The two position maps of a contextual scheme (CoPE), made the first time one counts and shown in the panel's
    grid only while its result has counts."""

    def __init__(self, grid, hovered) -> None:
        self.grid, self.hovered = grid, hovered
        self.maps: list[PositionMap] = []
        self._cells: list = []

    def named(self) -> dict:
        """Export names of the maps (once made; a hidden one exports nothing and says why it has no program)."""
        return dict(zip(("counts_before", "counts_after"), self.maps, strict=False))

    def _place(self, shown: bool) -> None:
        if shown and not self.maps:
            self.maps = [PositionMap("Counts before", self.grid), PositionMap("Counts after, moved back", self.grid)]
            for m in self.maps:
                m.hovered.connect(self.hovered)
        cells = [w for w in self.grid.cells() if w not in self.maps]
        wanted = cells + (self.maps if shown else [])
        if wanted != self.grid.cells():
            for m in self.maps:
                m.setVisible(shown)
            self.grid.set_cells(wanted)

    @staticmethod
    def counts(r, h: int):
        """(positions before, gates before, positions after, gates after) of head ``h``, the "after" ones moved
        back to the original order; None when the scheme counts nothing."""
        if r.before.positions is None or r.after.positions is None:
            return None
        perm = r.permutation
        return (r.before.positions[h], r.before.gates[h], r.after.positions[h][perm][:, perm],
                r.after.gates[h][perm][:, perm])

    @classmethod
    def arrays(cls, r, h: int, which: str) -> dict:
        """The exact counts and gates of head ``h``, ``which`` = "before" or "after" (moved back)."""
        c = cls.counts(r, h)
        if c is None:
            return {}
        if which == "before":
            return {"positions before [query, key]": c[0], "gates before [query, key]": c[1]}
        return {"positions after, moved back [query, key]": c[2], "gates after, moved back [query, key]": c[3]}

    def show(self, r, h: int) -> None:
        """Draw head ``h``'s counts before and after (on one scale), or take the maps away."""
        c = self.counts(r, h)
        self._place(c is not None)
        if c is None:
            return
        top = float(max(c[0].max(), c[2].max()))
        self.maps[0].set_data(c[0], c[1], r.before.tokens, top, "Counts before")
        self.maps[1].set_data(c[2], c[3], r.before.tokens, top, "Counts after, moved back")
