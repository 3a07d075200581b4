"""Exact block means and extrema for display resolution: long contexts shown as b × b blocks of positions.

Every cell of a score matrix shown at display resolution is the exact *mean* of the score over its block
of (query, key) positions, never a point sample (which would alias RoPE's fast pairs: pair 0 turns once
every 2π positions).  The means are closed forms:

* the block mean of e^{ipθ} over p = a … a+n−1 is the Dirichlet kernel
  e^{iθ(a+(n−1)/2)}·sin(nθ/2)/(n sin(θ/2)) (:func:`block_phasors`);
* a score bilinear in per-position vectors has block means equal to the same bilinear form of the block
  means of those vectors (:func:`additive_block_means`);
* a score that depends on the offset j − i alone, f(j − i), has block sums given by second-order prefix
  sums of f (:func:`relative_block_means`);
* ALiBi's linear bias has arithmetic block means (:func:`alibi_block_means`).

No Qt; float64 throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Blocks:
    """Consecutive blocks of ``size`` positions covering 0 … length − 1 (the last may be shorter)."""

    length: int
    size: int
    starts: np.ndarray
    counts: np.ndarray

    @property
    def n(self) -> int:
        return int(self.starts.size)

    @property
    def centres(self) -> np.ndarray:
        return self.starts + (self.counts - 1) / 2.0


def blocks(length: int, max_cells: int) -> Blocks:
    """At most ``max_cells`` equal blocks (size ⌈length/max_cells⌉) over positions 0 … length − 1."""
    size = max(1, -(-int(length) // int(max_cells)))
    starts = np.arange(0, length, size, dtype=np.int64)
    counts = np.minimum(size, length - starts)
    return Blocks(int(length), size, starts, counts)


def block_phasors(bl: Blocks, theta: np.ndarray) -> np.ndarray:
    """Block means of e^{ipθ_k}: (n_blocks, K) complex, the Dirichlet kernel in closed form.

    mean_{p=a}^{a+n−1} e^{ipθ} = e^{iθ(a + (n−1)/2)} · sin(nθ/2) / (n·sin(θ/2)).
    """
    th = np.asarray(theta, dtype=np.float64)[None, :]
    n = bl.counts[:, None].astype(np.float64)
    # 0 < θ ≤ 1 for every RoPE/sinusoidal frequency, so sin(θ/2) > 0; for n = 1 the ratio is exactly 1.
    ratio = np.sin(n * th / 2.0) / (n * np.sin(th / 2.0))
    ratio[bl.counts == 1] = 1.0
    return np.exp(1j * bl.centres[:, None] * th) * ratio


def additive_block_means(pbar: np.ndarray, cbar: np.ndarray, d: int) -> np.ndarray:
    """Block means of ((c + P_i)·(c + P_j) − c·c)/√d from the block means ``pbar`` of the rows P and c̄."""
    u = pbar @ cbar
    return (u[:, None] + u[None, :] + pbar @ pbar.T) / math.sqrt(d)


def sinusoidal_block_rows(bl: Blocks, theta: np.ndarray) -> np.ndarray:
    """Block means of paper-layout sinusoidal rows (sin(pθ_k) in column 2k, cos in 2k + 1)."""
    z = block_phasors(bl, theta)
    out = np.empty((bl.n, 2 * z.shape[1]))
    out[:, 0::2] = z.imag
    out[:, 1::2] = z.real
    return out


def alibi_block_means(slope: float, bl: Blocks, causal: bool) -> np.ndarray:
    """Block means of ALiBi's bias: −m(ī − j̄) off the diagonal; −m(n−1)/3 on a causal diagonal block
    (mean of i − j over its n(n+1)/2 visible cells), −m(n²−1)/(3n) on a symmetric one; NaN = future."""
    ci = bl.centres
    diff = ci[:, None] - ci[None, :]
    n = bl.counts.astype(np.float64)
    if causal:
        out = -slope * diff
        out[diff < 0] = np.nan
        np.fill_diagonal(out, -slope * (n - 1) / 3.0)
    else:
        out = -slope * np.abs(diff)
        np.fill_diagonal(out, -slope * (n * n - 1) / (3.0 * n))
    return out + 0.0  # no "-0.0"


def relative_block_means(values: np.ndarray, bl: Blocks, causal: bool) -> np.ndarray:
    """Exact block means of a score f(j − i) that depends on the offset alone.

    ``values[L − 1 + δ]`` is f(δ) for δ = j − i = −(L − 1) … L − 1 (L = ``bl.length``).  The sum of f over
    queries I = [a, a + n) and keys J = [c, c + m) is Σ_{i∈I} (F(c+m−1−i) − F(c−1−i)) with F the prefix
    sum of f, and Σ_{i∈I} F(x − i) = G(x − a) − G(x − a − n) with G the prefix sum of F: four look-ups a
    block.  Causal: only keys j ≤ i count (f(δ > 0) = 0 and the cells counted the same way); a block
    wholly in the future is NaN.
    """
    length = bl.length
    f = np.asarray(values, dtype=np.float64)
    if f.shape != (2 * length - 1,):
        raise ValueError(f"values must hold f(δ) for δ = −{length - 1} … {length - 1}")
    ones = np.ones_like(f)
    if causal:
        f = np.where(np.arange(f.size) > length - 1, 0.0, f)
        ones[length:] = 0.0

    def block_sums(g: np.ndarray) -> np.ndarray:
        # F(y) = Σ_{δ ≤ y} g(δ) = P[y + L] for y = −L … L − 1 (every y a block needs), and
        # Σ_{y=lo}^{hi} F(y) = Q[hi + L + 1] − Q[lo + L] with Q the prefix sum of P.
        p = np.concatenate([[0.0], np.cumsum(g)])
        q = np.concatenate([[0.0], np.cumsum(p)])
        a = bl.starts[:, None]
        n = bl.counts[:, None]
        c = bl.starts[None, :]
        m = bl.counts[None, :]

        def s(x):  # Σ_{i=a}^{a+n−1} F(x − i)
            return q[x - a + length + 1] - q[x - a - n + 1 + length]

        return s(c + m - 1) - s(c - 1)

    sums = block_sums(f)
    counts = block_sums(ones)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = sums / counts
    out[counts <= 0.5] = np.nan
    return out + 0.0


def sample_indices(n: int, max_count: int) -> np.ndarray:
    """At most ``max_count`` evenly spaced indices of 0 … n − 1 (all of them when n ≤ max_count)."""
    if n <= max_count:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, max_count).round().astype(np.int64))


def distance_grid(n: int, max_points: int) -> tuple[np.ndarray, int]:
    """Every distance 0 … n−1, or every ``stride``-th one when there are more than ``max_points``."""
    stride = max(1, -(-n // max_points))
    return np.arange(0, n, stride, dtype=np.int64), stride


def chunks(n: int, size: int = 4096):
    """Slices of at most ``size`` covering 0 … n − 1 (to bound the memory of outer products)."""
    for a in range(0, n, size):
        yield slice(a, min(n, a + size))


def extent(m: np.ndarray | None) -> float:
    """max |finite value| of ``m`` (0 when it has none)."""
    if m is None:
        return 0.0
    finite = m[np.isfinite(m)]
    return float(np.abs(finite).max()) if finite.size else 0.0
