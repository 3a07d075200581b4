"""The Schemes panel's "A model's RoPE" view: one real model's rotary embedding, from its config, against plain RoPE.

The request carries the model as the panel state keeps it (a shipped config id, or the rotary fields as JSON),
never a path.  The response holds, per rotated pair, the model's θ′_i and wavelength 2π/θ′_i next to plain
RoPE's at the same base and rotary dim, the attention factor a, and the expected score against distance:

    S(Δ) = (a²·Σ_i 2 cos(Δ·θ′_i) + (d − r)) / d,

the mean of q·R(Δ)q / |q|² over q ~ N(0, I_d) (pairs rotate, the d − r unrotated dimensions add 1 each; plain
RoPE has a = 1).  S is computed at every integer distance and shown as exact block means, minima and maxima
over log-spaced blocks (a curve sampled every k-th distance aliases).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..encodings.blocks import chunks
from ..encodings.rope_config import ModelRope, resolve
from . import job

#: Blocks of the score-vs-distance curve (log-spaced from Δ = 1).
CURVE_BLOCKS = 120
#: Distances × pairs evaluated for the curve at most (past it the curve stops, and says where).
CURVE_BUDGET = 2**24


@dataclass(frozen=True)
class ModelRopeRequest:
    model: str
    blocks: int = CURVE_BLOCKS
    key: str = "schemes.model"


@dataclass(frozen=True)
class ModelRopeResponse:
    request: ModelRopeRequest
    model: ModelRope
    l_orig: int  # the trained context (L_orig)
    l_ext: int  # the context it is extended to (max_position_embeddings, or s·L_orig when that is larger)
    theta_plain: np.ndarray  # plain RoPE at the same base and rotary dim
    theta: np.ndarray  # the model's, at the current length l_ext
    attention_factor: float
    kept: int  # pairs with θ′ = θ (to 1e-12)
    divided: int  # pairs with θ′ = θ/s
    distance: np.ndarray  # block centres (geometric), Δ ≥ 1
    plain: tuple  # (mean, min, max) per block
    scaled: tuple
    shown_to: int  # the largest distance evaluated
    summary: str


def extended_length(m: ModelRope) -> int:
    """The context the model is meant to reach: max_position_embeddings, or s·L_orig when that is larger."""
    if m.rope_type == "default":
        return m.max_positions
    base = m.original_max_positions if m.rope_type in ("yarn", "llama3", "longrope") else m.max_positions
    return max(m.max_positions, int(round(m.scaling.factor * base)))


def expected_score(dist: np.ndarray, theta: np.ndarray, att: float, head_dim: int) -> np.ndarray:
    """S(Δ) = (a²·Σ_i 2cos(Δθ_i) + (d − r))/d for every Δ in ``dist`` (see the module docstring)."""
    out = np.empty(dist.size)
    for sl in chunks(dist.size):
        out[sl] = np.cos(np.multiply.outer(dist[sl].astype(np.float64), theta)).sum(axis=1)
    rotated = 2 * theta.size
    return (att**2 * 2 * out + (head_dim - rotated)) / head_dim


def log_blocks(stop: int, n: int) -> np.ndarray:
    """Block starts 1 = e_0 < e_1 < … < e_k = stop + 1, about geometric, each block at least one distance."""
    edges = np.unique(np.round(np.geomspace(1, stop + 1, n + 1)).astype(np.int64))
    edges[0], edges[-1] = 1, stop + 1
    return edges


def block_stats(values: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact (mean, min, max) of ``values[Δ − 1]`` over each block [e_k, e_{k+1})."""
    starts = edges[:-1] - 1
    counts = np.diff(edges)
    return (np.add.reduceat(values, starts) / counts, np.minimum.reduceat(values, starts),
            np.maximum.reduceat(values, starts))


def model_rope(req: ModelRopeRequest) -> ModelRopeResponse:
    m = resolve(req.model)
    l_orig, l_ext = m.original_max_positions, extended_length(m)
    theta_plain = m.plain()
    theta, att = m.frequencies(l_ext)
    s = m.scaling.factor
    kept = int(np.sum(np.abs(theta / theta_plain - 1.0) <= 1e-12))
    divided = int(np.sum(np.abs(theta * s / theta_plain - 1.0) <= 1e-12)) if s > 1 else 0
    shown_to = int(min(l_ext, max(64, CURVE_BUDGET // theta.size)))
    dist = np.arange(1, shown_to + 1, dtype=np.float64)
    edges = log_blocks(shown_to, req.blocks)
    centres = np.sqrt(edges[:-1] * np.maximum(edges[1:] - 1, edges[:-1]).astype(np.float64))
    plain = block_stats(expected_score(dist, theta_plain, 1.0, m.head_dim), edges)
    scaled = block_stats(expected_score(dist, theta, att, m.head_dim), edges)
    return ModelRopeResponse(req, m, l_orig, l_ext, theta_plain, theta, float(att), kept, divided, centres,
                             plain, scaled, shown_to, summary_text(m, l_orig, l_ext, float(att)))


def summary_text(m: ModelRope, l_orig: int, l_ext: int, att: float) -> str:
    """One line: type and factor, dims, base, lengths, attention factor (the model's name is beside it)."""
    kind = m.rope_type if m.rope_type == "default" else f"{m.rope_type}, s = {m.scaling.factor:g}"
    dims = f"d = {m.head_dim}" + ("" if m.rotary_dim == m.head_dim else f" ({m.rotary_dim} rotate)")
    lengths = f"L = {l_orig:,}" if l_ext == l_orig else f"L_orig = {l_orig:,} → {l_ext:,}"
    base = f"{m.base:,.0f}" if float(m.base).is_integer() and m.base < 1e12 else f"{m.base:g}"
    return f"{kind} · {dims} · base {base} · {lengths} · attention factor {att:.4g}"


@job(ModelRopeRequest)
def compute_model_rope(request: ModelRopeRequest) -> ModelRopeResponse:
    return model_rope(request)
