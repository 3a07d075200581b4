"""Exact block means and extrema for display resolution: long contexts shown as b × b blocks of positions.

Every cell of a score matrix shown at display resolution is the exact *mean* of the score over its block
of (query, key) positions, never a point sample (which would alias RoPE's fast pairs: pair 0 turns once
every 2π positions).  The means are closed forms:

* the block mean of e^{ipθ} over p = a … a+n−1 is the Dirichlet kernel
  e^{iθ(a+(n−1)/2)}·sin(nθ/2)/(n sin(θ/2)) (:func:`block_cis`);
* a score bilinear in per-position vectors has block means equal to the same bilinear form of the block
  means of those vectors (:func:`additive_block_means`);
* a score that depends on the offset j − i alone, f(j − i), has block sums Σ_δ w(δ)·f(δ) with integer
  weights w, the cells at each offset (:func:`relative_block_means`);
* ALiBi's linear bias has arithmetic block means (:func:`alibi_block_means`).

No Qt; float64 throughout, but for a drag step's phasors inside :func:`float32_phasors`.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

#: True inside :func:`float32_phasors` (a drag step's score matrix).
_FLOAT32: contextvars.ContextVar[bool] = contextvars.ContextVar("float32_phasors", default=False)


@contextlib.contextmanager
def float32_phasors(on: bool = True) -> Iterator[None]:
    """Inside, :func:`block_cis` and :func:`phasor_gram` work in float32: a drag step's score matrix (the angles
    reduced to [−π, π] in float64 first; the product of its Gram matrix and the cosines and sines are about three
    and two and a half times faster here, 0.9 against 2.8 ms and 0.7 against 1.8 at 256 blocks × 512 pairs).  Its
    cells are drawn as colours; letting go computes them in float64 again."""
    token = _FLOAT32.set(bool(on))
    try:
        yield
    finally:
        _FLOAT32.reset(token)


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


def cos_sin(angle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of float64 ``angle`` (float32 stays float32: a drag step's, see :func:`float32_phasors`) from
    torch's vectorised kernels, within one unit in the last place against
    mpmath (``tests/test_schemes_maths.py``; half a unit on the machine of docs/performance.md, as numpy's): numpy's
    float64 sine and cosine are not vectorised on an x86 without AVX-512, 4.4 ms against 0.2 for 131 072 of each.
    Only the score-matrix jobs call it: torch is imported in the compute process (or a script or test), never on
    the window's path."""
    import torch

    angle = np.asarray(angle)
    t = torch.from_numpy(np.ascontiguousarray(angle, dtype=np.float32 if angle.dtype == np.float32 else np.float64))
    return torch.cos(t).numpy(), torch.sin(t).numpy()


def block_cis(bl: Blocks, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Block means of cos(pθ_k) and sin(pθ_k): two (n_blocks, K) arrays, the Dirichlet kernel in closed form.

    mean_{p=a}^{a+n−1} e^{ipθ} = e^{iθ(a + (n−1)/2)} · sin(nθ/2) / (n·sin(θ/2)).
    """
    th = np.asarray(theta, dtype=np.float64)[None, :]
    # 0 < θ ≤ 1 for every RoPE/sinusoidal frequency, so sin(θ/2) > 0; for n = 1 the ratio is exactly 1.  The
    # blocks have at most two sizes (the last may be shorter): the ratio once per size, not per block.
    sizes, which = np.unique(bl.counts, return_inverse=True)
    n = sizes[:, None].astype(np.float64)
    ratio = np.sin(n * th / 2.0) / (n * np.sin(th / 2.0))
    ratio[sizes == 1] = 1.0
    angle = bl.centres[:, None] * th
    if _FLOAT32.get():
        angle = (angle - (2 * math.pi) * np.round(angle / (2 * math.pi))).astype(np.float32)
        ratio = ratio.astype(np.float32)
    c, s = cos_sin(angle)
    r = ratio[which.reshape(-1)]
    c *= r
    s *= r
    return c, s


def phasor_gram(cis: tuple[np.ndarray, np.ndarray], w: np.ndarray) -> np.ndarray:
    """Re Σ_k w_k z_ik z̄_jk for z = c + i·s (:func:`block_cis`) and real or complex w = a + i·b: Σ_k a_k (c_ik c_jk +
    s_ik s_jk) + b_k (c_ik s_jk − s_ik c_jk), one real product of (n, 2K) by (2K, n) instead of a complex one (half
    the multiplications), and for weights w ≥ 0 a matrix by its own transpose (BLAS's symmetric product)."""
    c, s = cis
    a, b = np.real(w).astype(c.dtype), np.imag(w).astype(c.dtype)  # float32 phasors stay float32 (a drag step)
    if not np.any(b) and np.all(a >= 0):  # RoPE's pair energies: G·Gᵀ with G = [c·√a, s·√a], half the work again
        root = np.sqrt(a)
        g = np.concatenate([c * root, s * root], axis=1)
        return (g @ g.T).astype(np.float64, copy=False)
    left = np.concatenate([c * a - s * b, c * b + s * a], axis=1)
    return (left @ np.concatenate([c, s], axis=1).T).astype(np.float64, copy=False)


def additive_block_means(pbar: np.ndarray, cbar: np.ndarray, d: int) -> np.ndarray:
    """Block means of ((c + P_i)·(c + P_j) − c·c)/√d from the block means ``pbar`` of the rows P and c̄."""
    u = pbar @ cbar
    return (u[:, None] + u[None, :] + pbar @ pbar.T) / math.sqrt(d)


def sinusoidal_block_rows(bl: Blocks, theta: np.ndarray) -> np.ndarray:
    """Block means of paper-layout sinusoidal rows (sin(pθ_k) in column 2k, cos in 2k + 1)."""
    c, s = block_cis(bl, theta)
    out = np.empty((bl.n, 2 * c.shape[1]))
    out[:, 0::2] = s
    out[:, 1::2] = c
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

    ``values[L − 1 + δ]`` is f(δ) for δ = j − i = −(L − 1) … L − 1 (L = ``bl.length``).  Queries I = [a, a + n)
    and keys J = [c, c + m) meet at the offsets δ = (c − a) + s, s = −(n − 1) … m − 1, the offset δ in
    w(s) = min(n, m − s) − max(0, −s) cells; so the block sum is Σ_s w(s)·f(c − a + s), and it depends only on
    c − a and the two block sizes.  The weights are exact integers and each sum has at most n + m − 1 terms, so
    the mean is as accurate as summing the cells (second-order prefix sums, used before, lost digits as the
    sums grew like L²: 2·10⁻¹¹ at L = 2048).  Causal: only keys j ≤ i count; a block wholly in the future is NaN.
    """
    length = bl.length
    f = np.asarray(values, dtype=np.float64)
    if f.shape != (2 * length - 1,):
        raise ValueError(f"values must hold f(δ) for δ = −{length - 1} … {length - 1}")
    ones = np.ones_like(f)
    if causal:
        f = np.where(np.arange(f.size) > length - 1, 0.0, f)
        ones[length:] = 0.0
    sums = np.empty((bl.n, bl.n))
    counts = np.empty((bl.n, bl.n))
    gap = bl.starts[None, :] - bl.starts[:, None]  # c − a for every (query block, key block)
    rows_n, cols_m = np.broadcast_arrays(bl.counts[:, None], bl.counts[None, :])
    for n in np.unique(bl.counts):
        for m in np.unique(bl.counts):
            sel = (rows_n == n) & (cols_m == m)
            s = np.arange(-(n - 1), m, dtype=np.int64)
            w = (np.minimum(n, m - s) - np.maximum(0, -s)).astype(np.float64)
            if not sel.any():
                continue
            gaps, back = np.unique(gap[sel], return_inverse=True)  # about 2·(blocks) distinct gaps
            idx = gaps[:, None] + s[None, :] + length - 1
            sums[sel] = (f[idx] @ w)[back]
            counts[sel] = (ones[idx] @ w)[back]
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
