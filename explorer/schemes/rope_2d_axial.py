"""Axial 2-D RoPE (Heo et al. 2024, "RoPE-Axial"): half the rotary pairs turn with a patch's column x, half with its
row y.

Pair k of a query or key at patch (x, y) turns by x·m_k for the first d/4 pairs and by y·m_{k − d/4} for the last
d/4, m_j = θ^(−4j/d) with θ = 100 (naver-ai/rope-vit ``compute_axial_cis``).  The score is a function of Δx plus a
function of Δy: a patch sees its own row and column alike and its diagonals less — a cross on the grid.  Used by
rope-vit's RoPE-Axial DeiT and Swin models; Qwen2-VL's vision encoder (transformers'
``Qwen2VLVisionRotaryEmbedding``) and FLUX's image tokens rotate axially too.  The maths is
:mod:`explorer.encodings.rope2d`.
"""

from __future__ import annotations

import numpy as np

from ..encodings.rope2d import axial_frequencies, grid_scores
from ._rope2d import Rope2D, grid_position_class, grid_query, parameters
from .query import Query, SchemesSetup


class Rope2DAxial(Rope2D):
    id = "rope_2d_axial"
    title = "2-D RoPE (axial)"
    grid_title = "2-D axial"
    colour = "#9400D3"
    symbol = "star"
    order = 47
    description = "RoPE over image patches: half the pairs turn with the column, half with the row."
    parameters = parameters(100.0, "axial")
    used_by = ("RoPE-Axial ViTs (Heo et al. 2024, naver-ai/rope-vit); Qwen2-VL's vision encoder; FLUX image tokens "
               "(axial over t, h, w)")
    where = "rotates q and k: d/4 pairs by the column x, d/4 by the row y"
    lab_note = "half the pairs turn with the cell's column, half with its row (θ = 100)"

    def frequencies(self, req) -> tuple[np.ndarray, np.ndarray]:
        return axial_frequencies(int(req.head_dim), float(self.param(req, "theta")))

    def grid_formula(self, st: SchemesSetup) -> str:
        d, theta = st.head_dim, dict(st.params_of(self.id))["theta"]
        return (f"<b>2-D axial</b>: pair k turns by x·m<sub>k</sub> (k &lt; {d // 4}) or y·m<sub>k−{d // 4}</sub> "
                f"(k ≥ {d // 4}), m<sub>j</sub> = {theta:g}<sup>−4j/{d}</sup>: score = f(Δx) + g(Δy)")

    def grid_scores(self, req: Query) -> np.ndarray:
        side, q = grid_query(req)
        fx, fy = self.frequencies(req)
        return grid_scores(fx, fy, side, side, q)

    def lab_module(self, d_model, heads, train_len):
        import torch

        fx, fy = axial_frequencies(d_model // heads, self.lab_theta)  # refuses a head width not a multiple of 4

        class AxialPosition(grid_position_class()):  # type: ignore[misc]
            """The same rotation in every block: angles x·f^x + y·f^y with rope-vit's axial frequencies."""

            def tables(self, index, x, y):
                f = (torch.as_tensor(fx, dtype=x.dtype, device=x.device),
                     torch.as_tensor(fy, dtype=x.dtype, device=x.device))
                return x[:, None] * f[0] + y[:, None] * f[1]  # (n, d/2)

        return AxialPosition(self, d_model, heads, train_len)


SCHEME = Rope2DAxial()
