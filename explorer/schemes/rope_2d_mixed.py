"""RoPE-Mixed (Heo et al. 2024): 2-D RoPE whose pairs turn along learned directions that mix the row and the column.

Pair k at patch (x, y) turns by x·f^x_k + y·f^y_k, both frequencies learned per layer and head.  rope-vit
(``init_random_2d_freqs``, θ = 10) starts head h at an angle α_h ~ U(0, 2π): its first d/4 pairs turn along
(cos α_h, sin α_h) with m_j = θ^(−4j/d), the last d/4 along the perpendicular.  One head is the axial cross turned by
α_h; the view averages the ``heads`` heads (seeded angles), whose crosses point every way, so a patch's rows, columns
and diagonals are seen alike — what the paper reports helps at higher resolutions.  The Schemes panel draws these
initial frequencies (training moves them); the maths is :mod:`explorer.encodings.rope2d`.
"""

from __future__ import annotations

import numpy as np

from ..encodings.rope2d import grid_scores, mixed_angles, mixed_frequencies
from ._rope2d import Rope2D, grid_position_class, grid_query, parameters
from .base import Parameter
from .query import Query, SchemesSetup


class Rope2DMixed(Rope2D):
    id = "rope_2d_mixed"
    title = "2-D RoPE (mixed)"
    grid_title = "2-D mixed"
    colour = "#E7298A"
    symbol = "h"
    line = "dash"
    order = 48
    description = "RoPE over image patches with directions that mix row and column, learned per head (RoPE-Mixed)."
    parameters = parameters(10.0, "mixed", Parameter("heads", 8, 1, 64, "heads", field="heads"))
    used_by = "RoPE-Mixed ViTs and Swin (Heo et al. 2024, naver-ai/rope-vit); the idea behind LieRE and ComRoPE (2025)"
    where = "rotates q and k: each pair along a direction (f^x, f^y) of its own, learned"
    lab_note = "each pair turns along a learned mix of column and row, per layer and head (RoPE-Mixed, θ = 10)"
    lab_theta = 10.0

    def frequencies(self, req) -> tuple[np.ndarray, np.ndarray]:
        """(f^x, f^y), each (heads, d/2), at rope-vit's initialisation with seeded angles."""
        return mixed_frequencies(int(req.head_dim), float(self.param(req, "theta")),
                                 mixed_angles(int(req.heads), int(req.seed)))

    def grid_formula(self, st: SchemesSetup) -> str:
        d, theta = st.head_dim, dict(st.params_of(self.id))["theta"]
        return (f"<b>2-D mixed</b>: pair k turns by x·f<sup>x</sup><sub>k</sub> + y·f<sup>y</sup><sub>k</sub>, at "
                f"initialisation m<sub>j</sub>(cos α<sub>h</sub>, sin α<sub>h</sub>) and its perpendicular, "
                f"m<sub>j</sub> = {theta:g}<sup>−4j/{d}</sup>, α<sub>h</sub> ~ U(0, 2π) for each of {st.heads} heads "
                f"(seed {st.seed}), averaged")

    def grid_scores(self, req: Query) -> np.ndarray:
        side, q = grid_query(req)
        fx, fy = self.frequencies(req)
        return grid_scores(fx, fy, side, side, q)

    def parameters_added(self, req: Query) -> int:
        return int(req.heads) * int(req.head_dim)  # f^x and f^y per pair and head, per layer

    def lab_module(self, d_model, heads, train_len):
        import torch
        from torch import nn

        fx, fy = mixed_frequencies(d_model // heads, self.lab_theta, mixed_angles(heads, 0))  # (heads, d/2)

        class MixedPosition(grid_position_class()):  # type: ignore[misc]
            """f^x and f^y trained per layer and head, started at rope-vit's random directions (seed 0)."""

            def setup_layers(self, layers: int) -> None:
                self.fx = nn.Parameter(torch.tensor(np.stack([fx] * layers), dtype=torch.float32))
                self.fy = nn.Parameter(torch.tensor(np.stack([fy] * layers), dtype=torch.float32))

            def tables(self, index, x, y):
                return x[None, :, None] * self.fx[index][:, None] + y[None, :, None] * self.fy[index][:, None]

        return MixedPosition(self, d_model, heads, train_len)


SCHEME = Rope2DMixed()
