"""What the 2-D rotary schemes share (axial and mixed, Heo et al. 2024): not a scheme itself.

Their positions are patches on a grid, not places on a line: the Schemes panel's 1-D views say so instead of
drawing them, and the patch-grid view draws one patch's score against every patch (:meth:`grid_scores`).  The
maths is :mod:`explorer.encodings.rope2d`.
"""

from __future__ import annotations

import numpy as np

from ..encodings.blocks import Blocks
from ..encodings.rope2d import check_head_dim
from .base import Curve, NoSnippet, NotShown, Parameter, Scheme, Source, lab_position_class
from .query import Query, SchemesSetup

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
    in_lab = True
    lab_by_default = False
    #: The frequencies' base θ in the Lab (rope-vit's: 100 axial, 10 mixed).
    lab_theta = 100.0
    sources = (HEO_2024,)
    relation = "relative in 2-D: q·k depends on (Δx, Δy) only"
    depends_on = ("head_dim", "params")  # its 1-D views only say why they are empty; the grid view asks itself

    def check_setup(self, st: SchemesSetup) -> str:
        if self.id in st.schemes:
            try:
                check_head_dim(st.head_dim)
            except ValueError as exc:
                return f"{self.title}: {exc}"
        return ""

    def frequencies(self, req) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def score_blocks(self, req: Query, bl: Blocks) -> np.ndarray:
        raise NotShown(NOT_ON_A_LINE)

    def distance_values(self, req: Query, dist: np.ndarray) -> Curve:
        return Curve(dist, np.full(dist.size, np.nan), note=NOT_ON_A_LINE)

    def past_training(self, req: Query) -> str:
        return "a ViT trained at one resolution runs at another by taking more patches: no new rule, new (Δx, Δy)"

    def score_snippet(self, req: Query):
        return NoSnippet(NOT_ON_A_LINE)


def grid_xy(n: int, width: int, device):
    """(x, y) of the first n cells of a grid ``width`` wide, in raster order (float tensors): x = i mod W, y = ⌊i/W⌋."""
    import torch

    i = torch.arange(n, device=device)
    return (i % width).float(), torch.div(i, width, rounding_mode="floor").float()


def grid_position_class():
    """The Lab module of a 2-D rotary scheme: positions are the cells (x, y) of the task's grid (raster order); on a
    1-D task the sequence is one row, (i, 0).  Subclasses give :meth:`tables` for a layer."""

    class GridPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
        def rotary(self, n, head_dim, device, dtype):
            return self.grid_rotary(n, n, head_dim, device, dtype)  # a line is one row of a grid

        def grid_rotary(self, n, width, head_dim, device, dtype):
            """What :meth:`layer` turns into each block's (cos, sin): the cells' (x, y)."""
            return self.cached(f"xy{width}", n, device, lambda: grid_xy(n, width, device))

        def layer(self, index, rotary, bias):
            x, y = rotary
            angles = self.tables(index, x, y)
            return (angles.cos(), angles.sin()), bias

    return GridPosition
