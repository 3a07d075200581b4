"""Schemes-panel jobs: position-only score matrices S[i, j] for each scheme, on one shared scale.

Content is removed: the same query and key vector q = k = c (a seeded random unit-variance vector)
at every position ("same"), or the average of S over several random (q, k) pairs ("average").
Additive schemes score ``(c + P_i)·(c + P_j)/√d`` minus the content-only term c·c/√d, so only
what position adds remains; RoPE scores ``R_i c · R_j c/√d``; ALiBi adds ``−m·|i−j|`` to c·c/√d (a
constant, subtracted); NoPE has nothing left, S = 0 — identical for every (i, j).
Learned: positions ≥ L_train have no row; their cells are NaN ("no row"), never zeros.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..encodings import alibi_slopes, scaled_inv_freq, sinusoidal
from ..encodings.learned import LearnedTable
from ..encodings.rope import RopeScaling, inv_freq
from ..state.schemes import SchemesState
from .waves import sample_indices
from . import job


@dataclass(frozen=True)
class SchemesRequest:
    state: SchemesState
    max_cells: int = 256
    key: str = "schemes"


@dataclass(frozen=True)
class SchemesResponse:
    request: SchemesRequest
    positions: np.ndarray  # sampled positions shown along both axes
    matrices: dict = field(default_factory=dict)  # scheme -> (n, n) float64 (NaN = no row)
    levels: tuple = (-1.0, 1.0)  # one colour scale shared by all schemes


def content_vectors(st: SchemesState, count: int) -> np.ndarray:
    """``count`` seeded content vectors of width head_dim (1 for "same", 16 for "average")."""
    rng = np.random.default_rng(st.seed)
    return rng.standard_normal((count, st.head_dim))


def rope_position_scores(pos: np.ndarray, c: np.ndarray, freq: np.ndarray, att: float) -> np.ndarray:
    """S[i, j] = R_i c · R_j c / √d for one content vector c (interleaved pairs), via complex pairs."""
    z = c[0::2] + 1j * c[1::2]
    rot = np.exp(1j * np.multiply.outer(pos, freq)) * att  # (n, d/2)
    zi = rot * z
    return np.real(zi @ np.conj(zi).T) / np.sqrt(c.size)


def position_scores(st: SchemesState, scheme: str, pos: np.ndarray) -> np.ndarray:
    """The position-only score matrix of ``scheme`` at positions ``pos``."""
    d = st.head_dim
    cs = content_vectors(st, 1 if st.content == "same" else 16)
    if scheme == "nope":
        return np.zeros((pos.size, pos.size))
    if scheme == "alibi":
        m = alibi_slopes(st.heads)[st.alibi_head]
        return -m * np.abs(pos[:, None] - pos[None, :])
    if scheme in ("sinusoidal", "learned"):
        if scheme == "sinusoidal":
            p = sinusoidal(pos, d, st.base)
            valid = np.ones(pos.size, bool)
        else:
            valid = pos < st.l_train
            p = np.full((pos.size, d), np.nan)
            if valid.any():
                p[valid] = LearnedTable(st.l_train, d, st.seed).lookup(pos[valid])
        out = np.zeros((pos.size, pos.size))
        for c in cs:
            # (c+P_i)·(c+P_j) − c·c = c·P_j + P_i·c + P_i·P_j
            cp = p @ c
            out += (cp[:, None] + cp[None, :] + p @ p.T) / np.sqrt(d)
        return out / len(cs)
    if scheme == "rope":
        freq, att = inv_freq(d, st.base), 1.0
    else:  # scaled_rope
        freq, att = scaled_inv_freq(
            d, st.base, RopeScaling(st.scaling, st.factor, original_max_positions=st.l_train)
        )
    return sum(rope_position_scores(pos, c, freq, att) for c in cs) / len(cs)


@job(SchemesRequest)
def compute(request: SchemesRequest) -> SchemesResponse:
    st = request.state
    pos = sample_indices(st.l_eval, request.max_cells).astype(np.float64)
    mats = {s: position_scores(st, s, pos) for s in st.schemes}
    finite = [np.abs(m[np.isfinite(m)]).max() for m in mats.values() if np.isfinite(m).any()]
    top = max([x for x in finite if x > 0], default=1.0)
    return SchemesResponse(request=request, positions=pos, matrices=mats, levels=(-top, top))
