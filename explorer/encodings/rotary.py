"""RoPE with any per-pair frequencies θ_k: the maths every rotary scheme shares (RoPE itself, partial RoPE,
p-RoPE, xPos, the NoPE/RoPE hybrid, the Lab's rotary layers).

Pairs are interleaved, (x_{2k}, x_{2k+1}), as in :func:`explorer.encodings.apply_rope`; a model that pairs
(i, i + r/2) instead (GPT-NeoX's ``rotate_half``) is the same up to a permutation of the dimensions.  A pair with
θ_k = 0 does not turn: it carries content and no position.

No Qt; torch only inside :func:`pair_tables`.
"""

from __future__ import annotations

import math

import numpy as np

from .blocks import chunks
from .errors import EncodingError, check_finite_array


def rotate_pairs(x, theta: np.ndarray, positions=None, scale: np.ndarray | None = None) -> np.ndarray:
    """Rotate pair k of row p of ``x`` (n, d) by p·θ_k, times ``scale[p, k]`` when given (float64).

    (a, b) → s·(a cos φ − b sin φ, a sin φ + b cos φ) with φ = p·θ_k; θ_k = 0 leaves the pair as it is.
    """
    arr = check_finite_array("input", x)
    if arr.ndim != 2 or arr.shape[1] != 2 * np.size(theta):
        raise EncodingError(f"input must be (positions × {2 * np.size(theta)}), got shape {arr.shape}")
    pos = np.arange(arr.shape[0], dtype=np.float64) if positions is None else np.asarray(positions, float)
    ang = np.multiply.outer(pos, np.asarray(theta, dtype=np.float64))
    cos, sin = np.cos(ang), np.sin(ang)
    if scale is not None:
        cos, sin = cos * scale, sin * scale
    a, b = arr[:, 0::2], arr[:, 1::2]
    out = np.empty_like(arr)
    out[:, 0::2] = a * cos - b * sin
    out[:, 1::2] = a * sin + b * cos
    return out



def pair_tables(theta: np.ndarray, length: int, device=None, dtype=None, scale: np.ndarray | None = None):
    """cos and sin of p·θ_k (× ``scale[p, k]``) for p = 0 … length − 1 as torch tensors, computed in float64."""
    import torch

    ang = np.multiply.outer(np.arange(length, dtype=np.float64), np.asarray(theta, dtype=np.float64))
    cos, sin = np.cos(ang), np.sin(ang)
    if scale is not None:
        cos, sin = cos * scale, sin * scale
    dtype = dtype or torch.float32
    return (torch.tensor(cos, dtype=dtype, device=device), torch.tensor(sin, dtype=dtype, device=device))



def rotary_bound(dist: np.ndarray, theta: np.ndarray, log_decay: np.ndarray | None = None) -> np.ndarray:
    """RoFormer's long-term-decay bound (Su et al. 2021, §3.4.3) for any per-pair frequencies:
    (1/(d/2))·Σ_j |S_j(Δ)|, S_j = Σ_{k<j} e^{iΔθ_k}·e^{Δ·log_decay_k} (xPos: log_decay = ln ζ_k / scale_base).

    The Abel-summation argument behind it holds for any θ, so a pair that does not turn (θ = 0) adds 1 to
    every partial sum after it.
    """
    r = np.asarray(dist, dtype=np.float64)
    rate = 1j * np.asarray(theta, dtype=np.float64)
    if log_decay is not None:
        rate = rate + log_decay
    out = np.empty(r.size)
    for sl in chunks(r.size):
        partial = np.cumsum(np.exp(np.multiply.outer(r[sl], rate)), axis=-1)
        out[sl] = np.abs(partial).sum(axis=-1) / rate.size
    return out


def rope_curve(dist: np.ndarray, h: np.ndarray, freq: np.ndarray, att: float, d: int) -> np.ndarray:
    """ΔS(Δ) = (a²·Σ_k h_k cos(Δθ_k) − Σ_k h_k)/√d, exact at every Δ given."""
    out = np.empty(dist.size)
    for sl in chunks(dist.size):
        out[sl] = np.cos(np.multiply.outer(dist[sl].astype(np.float64), freq)) @ h
    return (att**2 * out - h.sum()) / math.sqrt(d)
