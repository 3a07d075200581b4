"""The Schemes panel's patch-grid view: one patch's expected score with every patch of an image's grid, per scheme
that has a picture on a grid (:meth:`~explorer.schemes.Scheme.grid_scores`: the 2-D rotary schemes, and plain
RoPE on the raster order), and the scores along the query's row, column and diagonal against the distance
√(Δx² + Δy²) — where axial 2-D RoPE's diagonal falls away from its row and column and RoPE-Mixed's does not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import schemes as registry
from ..encodings.errors import EncodingError
from ..encodings.rope2d import cuts
from . import job


@dataclass(frozen=True)
class GridRequest:
    scheme: str
    head_dim: int
    base: float
    heads: int
    seed: int
    grid_side: int
    grid_query: int
    params: tuple = ()
    key: str = "schemes.grid"


@dataclass(frozen=True)
class GridResponse:
    request: GridRequest
    scores: np.ndarray | None  # (side, side); None when the scheme cannot draw this set-up (``note`` says why)
    query: int  # the query patch, raster order
    cuts: tuple  # (name, distances √(Δx² + Δy²), scores) along the row, the column and the diagonal (one side)
    title: str
    note: str = ""


def grid_ids() -> tuple[str, ...]:
    """The schemes the patch-grid view draws, in registry order: those whose own class names a ``grid_title`` (a
    subclass does not inherit its parent's picture: scaled RoPE is not plain RoPE on the raster)."""
    return tuple(s.id for s in registry.all_schemes() if vars(type(s)).get("grid_title"))


def grid(req: GridRequest) -> GridResponse:
    sch = registry.get(req.scheme)
    side = req.grid_side
    query = (side // 2) * side + side // 2 if req.grid_query < 0 else min(req.grid_query, side * side - 1)
    try:
        scores = sch.grid_scores(sch.query(req, "grid"))
    except EncodingError as exc:
        return GridResponse(req, None, query, (), sch.grid_title, str(exc))
    if scores is None:
        return GridResponse(req, None, query, (), sch.grid_title, f"{sch.title} has no picture on a grid")
    out = []
    for name, (offset, values) in cuts(scores, query).items():
        scale = np.sqrt(2.0) if name == "diagonal" else 1.0
        # One side of the query, the longer (a patch's two sides are mirror images for these schemes).
        side_ = offset >= 0 if np.sum(offset >= 0) >= np.sum(offset <= 0) else offset <= 0
        order = np.argsort(np.abs(offset[side_]))
        out.append((name, np.abs(offset[side_])[order] * scale, values[side_][order]))
    return GridResponse(req, scores, query, tuple(out), sch.grid_title)


@job(GridRequest)
def compute_grid(request: GridRequest) -> GridResponse:
    return grid(request)
