"""2-D RoPE for images: positions are patches (x, y) on a grid, and each rotary pair turns with a direction.

Heo et al. 2024 ("Rotary Position Embedding for Vision Transformer", ECCV 2024; reference code naver-ai/rope-vit)
rotate pair k of a query or key at patch (x, y) by the angle

    φ_k(x, y) = x·f^x_k + y·f^y_k,

so q·k between patches depends on (Δx, Δy) only.  The patches are numbered in raster order, n = y·W + x (rope-vit's
``init_t_xy``: t_x = n mod W, t_y = ⌊n / W⌋); the pairs are interleaved (2k, 2k + 1), as its ``view_as_complex``.

- **Axial** (rope-vit ``compute_axial_cis``, θ = 100): the first d/4 pairs turn with x only, the last d/4 with y
  only, both with magnitudes m_j = θ^(−4j/d), j = 0 … d/4 − 1.  The score is a sum of a function of Δx and one of Δy,
  so a patch's row and column look alike and its diagonals are lower: a cross.
- **Mixed** (RoPE-Mixed, ``init_random_2d_freqs``, θ = 10): every pair has its own direction, learned in training;
  at initialisation head h takes an angle α_h ~ U(0, 2π) and pair j of the first half turns along (cos α_h, sin α_h)
  with m_j, pair j of the second half along the perpendicular (cos(α_h + π/2), sin(α_h + π/2)).  One head is the
  axial cross turned by α_h; averaged over heads the crosses point every way, so rows, columns and diagonals no
  longer differ much.  Before training those are the frequencies the Schemes panel draws.

The expected score of q = k ~ N(0, I) at patches a and b, over |q|², is the mean over pairs of cos(φ_k(a) − φ_k(b))
(the same measure as the model view's score curve).
"""

from __future__ import annotations

import numpy as np

from .errors import EncodingError, check_base, check_int, check_size

#: Largest grid side (patches) the panel draws; a ViT at 224 px with 16 px patches has 14.
MAX_SIDE = 256


def check_head_dim(head_dim: int) -> int:
    """A head dim that 2-D RoPE splits into x and y halves of pairs: a multiple of 4."""
    d = check_int("head_dim", head_dim, minimum=4, maximum=65536)
    if d % 4:
        raise EncodingError(f"2-D RoPE needs head_dim a multiple of 4 (half its pairs for x, half for y), got {d}")
    return d


def magnitudes(head_dim: int, base: float) -> np.ndarray:
    """m_j = base^(−4j/d), j = 0 … d/4 − 1 (rope-vit: ``1 / theta ** (arange(0, dim, 4)[:dim // 4] / dim)``)."""
    d = check_head_dim(head_dim)
    return 1.0 / check_base(base) ** (np.arange(0, d, 4, dtype=np.float64)[: d // 4] / d)


def axial_frequencies(head_dim: int, base: float = 100.0) -> tuple[np.ndarray, np.ndarray]:
    """(f^x, f^y), each (d/2,): the first d/4 pairs turn with x, the last d/4 with y."""
    m = magnitudes(head_dim, base)
    zero = np.zeros_like(m)
    return np.concatenate([m, zero]), np.concatenate([zero, m])


def mixed_angles(heads: int, seed: int) -> np.ndarray:
    """One angle α_h ~ U(0, 2π) per head from a generator seeded with ``seed`` (rope-vit draws torch.rand)."""
    h = check_int("heads", heads, minimum=1, maximum=1024)
    return np.random.default_rng([check_int("seed", seed, minimum=0), 0x2D]).uniform(0.0, 2.0 * np.pi, h)


def mixed_frequencies(head_dim: int, base: float, angles) -> tuple[np.ndarray, np.ndarray]:
    """(f^x, f^y), each (heads, d/2): RoPE-Mixed's initial frequencies for the given per-head angles α_h."""
    m = magnitudes(head_dim, base)
    a = np.atleast_1d(np.asarray(angles, dtype=np.float64))[:, None]
    fx = np.concatenate([m * np.cos(a), m * np.cos(np.pi / 2 + a)], axis=1)
    fy = np.concatenate([m * np.sin(a), m * np.sin(np.pi / 2 + a)], axis=1)
    return fx, fy


def grid_positions(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of every patch in raster order: patch n = y·cols + x."""
    r = check_int("rows", rows, minimum=1, maximum=MAX_SIDE)
    c = check_int("cols", cols, minimum=1, maximum=MAX_SIDE)
    n = np.arange(r * c)
    return (n % c).astype(np.float64), (n // c).astype(np.float64)


def angles(fx: np.ndarray, fy: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(N, pairs) angles φ_k = x·f^x_k + y·f^y_k for one head's (pairs,) frequencies."""
    return np.multiply.outer(np.asarray(x, float), fx) + np.multiply.outer(np.asarray(y, float), fy)


def rotate(v: np.ndarray, fx: np.ndarray, fy: np.ndarray, x, y) -> np.ndarray:
    """Rows of ``v`` (N, d) rotated at patches (x, y): pair k = dims (2k, 2k + 1) turns by φ_k."""
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != 2 * fx.size:
        raise EncodingError(f"input of shape {v.shape} does not match {fx.size} pairs")
    phi = angles(fx, fy, x, y)
    cos, sin = np.cos(phi), np.sin(phi)
    out = np.empty_like(v)
    a, b = v[:, 0::2], v[:, 1::2]
    out[:, 0::2] = a * cos - b * sin
    out[:, 1::2] = a * sin + b * cos
    return out


def grid_scores(fx: np.ndarray, fy: np.ndarray, rows: int, cols: int, query: int) -> np.ndarray:
    """(rows, cols): the expected score of the query patch with every patch, mean over pairs (and over heads when
    ``fx`` is (heads, pairs)) of cos(Δx·f^x_k + Δy·f^y_k)."""
    x, y = grid_positions(rows, cols)
    if not 0 <= query < x.size:
        raise EncodingError(f"the query patch {query} is outside the {rows} × {cols} grid")
    fx2, fy2 = np.atleast_2d(fx), np.atleast_2d(fy)
    check_size(x.size, fx2.shape[1], what="grid of scores")
    dx, dy = x - x[query], y - y[query]
    total = np.zeros(x.size)
    for hx, hy in zip(fx2, fy2, strict=True):  # one head at a time: (N, pairs), never (N, heads, pairs)
        total += np.cos(np.multiply.outer(dx, hx) + np.multiply.outer(dy, hy)).mean(axis=1)
    return (total / fx2.shape[0]).reshape(rows, cols)


def raster_scores(theta: np.ndarray, rows: int, cols: int, query: int) -> np.ndarray:
    """(rows, cols): 1-D RoPE over the raster order (patch n at position n), the same measure: mean cos(Δn·θ_k).
    A row neighbour is 1 position away, the patch below it ``cols`` positions."""
    x, y = grid_positions(rows, cols)
    n = y * cols + x
    if not 0 <= query < n.size:
        raise EncodingError(f"the query patch {query} is outside the {rows} × {cols} grid")
    return np.cos(np.multiply.outer(n - n[query], theta)).mean(axis=1).reshape(rows, cols)


def cuts(scores: np.ndarray, query: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The scores along the query patch's row, column and main diagonal: name -> (offset, values)."""
    rows, cols = scores.shape
    qr, qc = divmod(query, cols)
    out = {"row": (np.arange(cols) - qc, scores[qr, :]), "column": (np.arange(rows) - qr, scores[:, qc])}
    lo, hi = -min(qr, qc), min(rows - 1 - qr, cols - 1 - qc)
    k = np.arange(lo, hi + 1)
    out["diagonal"] = (k, scores[qr + k, qc + k])
    return out
