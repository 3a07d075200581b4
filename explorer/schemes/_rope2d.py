"""What the 2-D rotary schemes share (axial and mixed, Heo et al. 2024): not a scheme itself.

Their positions are patches on a grid, not places on a line: the Schemes panel's 1-D views say so instead of
drawing them, and the patch-grid view draws one patch's score against every patch (:meth:`grid_scores`).  The
maths is :mod:`explorer.encodings.rope2d`.
"""

from __future__ import annotations

import numpy as np

from ..encodings.blocks import Blocks
from ..encodings.rope2d import check_head_dim
from .base import Curve, NoSnippet, NotShown, Parameter, Scheme, Source

HEO_2024 = Source("Heo et al. 2024, “Rotary Position Embedding for Vision Transformer”, ECCV 2024", 2024,
                  "https://arxiv.org/abs/2403.13298")

#: What the 1-D views say about a 2-D scheme.
NOT_ON_A_LINE = "a 2-D scheme: its positions are patches on a grid, not places on a line — see the patch-grid view"


def parameters(theta: float, who: str, *extra: Parameter) -> tuple[Parameter, ...]:
    """The head dim (a multiple of 4), ``extra`` shared controls, and the scheme's own θ (rope-vit's ``who``)."""
    return (Parameter("head_dim", 64, 4, 1024, "head dim d", field="head_dim"), *extra,
            Parameter("theta", theta, 2.0, 1e6, "θ (base)", integer=False,
                      help=f"m_j = θ^(−4j/d); rope-vit uses {theta:g} for {who}"))


def grid_query(req) -> tuple[int, int]:
    """(side, the query patch): ``req.grid_query`` −1 is the centre, a patch past the grid its last one."""
    side = int(req.grid_side)
    q = int(req.grid_query)
    return side, (side // 2) * side + side // 2 if q < 0 else min(q, side * side - 1)


class Rope2D(Scheme):
    """A rotary scheme over (x, y) patches; subclasses give :meth:`frequencies` (f^x, f^y)."""

    kind = "rotary"
    relative = True
    bounded = True
    on_a_line = False
    shown_by_default = False
    swap_label = None
    in_lab = False
    sources = (HEO_2024,)
    relation = "relative in 2-D: q·k depends on (Δx, Δy) only"
    depends_on = ("head_dim", "params")  # its 1-D views only say why they are empty; the grid view asks itself

    def check_setup(self, st) -> str:
        if self.id in st.schemes:
            try:
                check_head_dim(st.head_dim)
            except ValueError as exc:
                return f"{self.title}: {exc}"
        return ""

    def frequencies(self, req) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def score_blocks(self, req, bl: Blocks) -> np.ndarray:
        raise NotShown(NOT_ON_A_LINE)

    def distance_values(self, req, dist: np.ndarray) -> Curve:
        return Curve(dist, np.full(dist.size, np.nan), note=NOT_ON_A_LINE)

    def past_training(self, req) -> str:
        return "a ViT trained at one resolution runs at another by taking more patches: no new rule, new (Δx, Δy)"

    def score_snippet(self, req):
        return NoSnippet(NOT_ON_A_LINE)
