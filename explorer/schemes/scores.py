"""What the schemes' position-only scores share: the content vectors, the shaded band, the causal mask (maths only;
the text helpers are in :mod:`explorer.schemes.text`).

Re-exported by :mod:`explorer.schemes.base`, where the schemes import them from.
"""

from __future__ import annotations

import numpy as np

#: Random content vectors averaged when the Schemes panel's ``content`` is ``"average"``.
AVERAGE_VECTORS = 16
#: Query positions whose spread (min–max) is shaded for the absolute schemes.
BAND_QUERIES = 8


def content_vectors(head_dim: int, content: str, seed: int) -> np.ndarray:
    """The seeded content vectors c ~ N(0, I_d): one for ``"same"``, 16 for ``"average"``."""
    count = 1 if content == "same" else AVERAGE_VECTORS
    return np.random.default_rng(seed).standard_normal((count, head_dim))


def pair_energy(c: np.ndarray) -> np.ndarray:
    """h_k = mean over content vectors of |z_k|², z_k = c_{2k} + i c_{2k+1}; Σ_k h_k = mean |c|²."""
    return np.mean(c[:, 0::2] ** 2 + c[:, 1::2] ** 2, axis=0)


def band_queries(n: int) -> np.ndarray:
    """The query positions whose spread is shaded: evenly spaced over the second half … n − 1."""
    return np.unique(np.linspace(n // 2, n - 1, BAND_QUERIES).round().astype(np.int64))


def band(dist: np.ndarray, queries: np.ndarray, score) -> tuple[np.ndarray, np.ndarray]:
    """min and max over the queries q ≥ Δ of ``score(q, q − Δ)`` at each Δ."""
    lo = np.full(dist.size, np.inf)
    hi = np.full(dist.size, -np.inf)
    for q in queries:
        ok = dist <= q
        v = score(int(q), q - dist[ok])
        lo[ok] = np.minimum(lo[ok], v)
        hi[ok] = np.maximum(hi[ok], v)
    lo[~np.isfinite(lo)] = np.nan
    hi[~np.isfinite(hi)] = np.nan
    return lo, hi


def future_mask(n: int) -> np.ndarray:
    """(n, n) additive causal mask: 0 on and below the diagonal, −inf above (key after query)."""
    out = np.zeros((n, n))
    out[np.triu_indices(n, 1)] = -np.inf
    return out
