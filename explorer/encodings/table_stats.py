"""What a learned position table holds: similarity, principal components, spectra and norms (numpy only).

``P`` is a table with one row per position (``P[p]`` is position p's vector, shape ``(n, d)``).
"""

from __future__ import annotations

import numpy as np

from .errors import EncodingError
from .sinusoidal import sinusoidal


def _check(table) -> np.ndarray:
    P = np.asarray(table, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] < 1 or P.shape[1] < 1:
        raise EncodingError(f"a position table is a non-empty positions × dims array, got shape {P.shape}")
    if not np.all(np.isfinite(P)):
        raise EncodingError("the position table holds NaN or infinite values")
    return P


def unit_rows(table) -> np.ndarray:
    """Rows scaled to length 1 (a zero row stays zero)."""
    P = _check(table)
    norm = np.linalg.norm(P, axis=1, keepdims=True)
    return np.divide(P, norm, out=np.zeros_like(P), where=norm > 0)


def cosine_matrix(table) -> np.ndarray:
    """``C[i, j] = P[i]·P[j] / (|P[i]| |P[j]|)``, shape ``(n, n)``."""
    U = unit_rows(table)
    return U @ U.T


def similarity_by_offset(table) -> tuple[np.ndarray, np.ndarray]:
    """(k = 0 … n−1, mean over i of cos(P[i], P[i+k])): the diagonals of :func:`cosine_matrix`, averaged.

    Computed as the rows' autocorrelation along positions (FFT, O(n·d·log n)), so it never builds the
    n × n matrix; equal to ``np.mean(np.diag(C, k))``.
    """
    U = unit_rows(table)
    n = U.shape[0]
    f = np.fft.rfft(U, n=2 * n, axis=0)
    auto = np.fft.irfft((f * f.conj()).real.sum(axis=1), n=2 * n)[:n]  # Σ_i U_i·U_{i+k}
    k = np.arange(n)
    return k, auto / (n - k)


def pca(table, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """(coordinates ``(n, k)`` of the centred rows on the first k principal axes, share of variance of each).

    The signs are fixed so that each axis's largest coordinate is positive (SVD leaves them free).
    """
    P = _check(table)
    X = P - P.mean(axis=0)
    _, s, vt = np.linalg.svd(X, full_matrices=False)
    want = max(1, int(k))
    k = min(want, vt.shape[0])
    coords = X @ vt[:k].T
    flip = np.sign(coords[np.argmax(np.abs(coords), axis=0), np.arange(k)])
    coords = coords * np.where(flip == 0, 1.0, flip)
    total = float(np.sum(s**2))
    share = (s[:k] ** 2 / total) if total > 0 else np.zeros(k)
    if k < want:  # fewer components than asked (a table of one row or one dim)
        pad = want - k
        coords = np.hstack([coords, np.zeros((coords.shape[0], pad))])
        share = np.concatenate([share, np.zeros(pad)])
    return coords, share


def column_power(table) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies in cycles per position, power ``(f, d)`` of each centred column along positions).

    ``power[j, c] = |Σ_p (P[p, c] − mean_c) e^{−2πi f_j p}|² / n``: how much of dimension c waves with
    frequency f_j (f_j = j / n, 0 … 1/2).
    """
    P = _check(table)
    n = P.shape[0]
    X = P - P.mean(axis=0)
    power = np.abs(np.fft.rfft(X, axis=0)) ** 2 / n
    return np.fft.rfftfreq(n), power


def dominant_frequencies(table) -> np.ndarray:
    """Each dimension's strongest non-zero frequency (cycles per position), sorted from low to high."""
    freqs, power = column_power(table)
    if power.shape[0] < 2:
        return np.zeros(power.shape[1])
    return np.sort(freqs[1:][np.argmax(power[1:], axis=0)])


def sinusoidal_like(table, base: float = 10000.0, positions=None) -> np.ndarray:
    """The sinusoidal table with the same positions and (even) width, to set beside a learned one.

    ``positions``: the positions ``table``'s rows stand for (default 0 … n−1; every s-th row of a longer
    table stands for 0, s, 2s, …)."""
    P = _check(table)
    d = max(2, P.shape[1] - P.shape[1] % 2)
    return sinusoidal(P.shape[0] if positions is None else positions, d, base)


def row_norms(table) -> np.ndarray:
    """``|P[p]|`` for every position p."""
    return np.linalg.norm(_check(table), axis=1)


def fit_width(table, n: int, d: int) -> np.ndarray:
    """Rows 0 … n−1 of ``table`` in d dimensions: as they are when the table is d wide, else their
    coordinates on the table's first d principal directions (zeros past the table's own width).

    Raises :class:`EncodingError` (from :func:`explorer.encodings.learned.check_rows`) when the table has
    fewer than n rows: there is no row for those positions.
    """
    from .learned import check_rows

    P = _check(table)
    check_rows(np.array([max(int(n) - 1, 0)]), P.shape[0])
    if P.shape[1] == d:
        return P[:n].copy()
    _, _, vt = np.linalg.svd(P - P.mean(axis=0), full_matrices=False)
    k = min(d, vt.shape[0])
    out = np.zeros((int(n), int(d)))
    out[:, :k] = P[:n] @ vt[:k].T
    return out
