"""Waves-panel jobs: the sinusoidal table at display resolution and the numbers behind each view."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..encodings.sinusoidal import column_pair, frequencies
from ..state.waves import WavesState
from . import job


@dataclass(frozen=True)
class WavesRequest:
    """Compute the Waves panel's views for ``state``; ``max_rows``/``max_cols`` bound the heatmap."""

    state: WavesState
    max_rows: int = 1024
    max_cols: int = 1024
    key: str = "waves"


@dataclass(frozen=True)
class WavesResponse:
    request: WavesRequest
    heatmap: np.ndarray  # (rows, cols) float32, rows = sampled positions
    heat_positions: np.ndarray  # position of each heatmap row
    heat_columns: np.ndarray  # column of each heatmap column
    omega: np.ndarray  # (d/2,)
    wavelengths: np.ndarray  # (d/2,)


def sample_indices(n: int, max_count: int) -> np.ndarray:
    """At most ``max_count`` evenly spaced indices of 0 … n-1 (all of them when n ≤ max_count)."""
    if n <= max_count:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, max_count).round().astype(np.int64))


@job(WavesRequest)
def compute(request: WavesRequest) -> WavesResponse:
    st = request.state
    rows = sample_indices(st.n_positions, request.max_rows)
    cols = sample_indices(st.d_model, request.max_cols)
    omega = frequencies(st.d_model, st.base, st.variant)
    pair, is_cos = column_pair(st.d_model, st.variant)
    ang = np.multiply.outer(rows.astype(np.float64), omega[pair[cols]])
    heat = np.where(is_cos[cols], np.cos(ang), np.sin(ang)).astype(np.float32)
    return WavesResponse(
        request=request,
        heatmap=heat,
        heat_positions=rows,
        heat_columns=cols,
        omega=omega,
        wavelengths=2 * np.pi / omega,
    )
