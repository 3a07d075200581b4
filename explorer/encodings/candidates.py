"""Why sinusoids? The encodings a student would try first, scored against what a lesson demands.

Candidates (``encode(kind, positions, n, d)``; every one is a ``(len(positions), d)`` float64 array):

``integer``
    The raw position number in every component: ``PE(p) = p·1``.
``fraction``
    The position as a fraction of the sequence length: ``PE(p) = p/N · 1`` (0 … (N−1)/N).
``binary``
    The binary digits of p, least significant first: ``PE(p)[j] = bit j of p`` (0 or 1); ``d`` bits
    tell apart ``2^d`` positions.
``sinusoidal``
    Vaswani et al. 2017, interleaved: ``PE(p)[2i] = sin(p·ω_i)``, ``PE(p)[2i+1] = cos(p·ω_i)``,
    ``ω_i = base^(−2i/d)``.

Properties (:func:`scorecard` computes each one, nothing is written by hand):

``bounded``
    The largest ``|value|`` over positions ``0 … N−1`` for each N; passes when it is at most 1 at every N.
    ``bounded_ratio`` is the largest ``‖PE(p)‖`` divided by a token embedding's norm, taken as ``√d``
    (unit-variance components, which is what the paper's ``√d_model`` scaling of the embeddings gives):
    an encoding whose ratio grows with N swamps the token it is added to.
``consistent``
    The vector of a position must not depend on how long the sequence is: the largest change of
    ``PE(p)`` (p below the smallest N) between the N values. Passes when it is 0 (to 1e-12).
``unique``
    Distinct rows among positions ``0 … N−1`` at the largest N (exact comparison of the float64 rows).
``smooth``
    Nearby positions get nearby vectors: the ratio of the largest to the smallest step
    ``‖PE(p+1) − PE(p)‖`` over ``p < N``, at the largest N. 1 means every step is the same size (passes
    up to 1.01); binary's carries (0111 → 1000) make some steps far longer than others.
``linear``
    Relative offsets are a linear map: one matrix ``M_k`` fitted by least squares so that
    ``PE(p+k) ≈ M_k·PE(p)`` over ``p = 0 … n_fit−k−1``; the relative residual
    ``‖PE·M_kᵀ − PE_k‖_F / ‖PE_k‖_F``. About 1e-15 for sinusoids (``M_k`` is a rotation per pair);
    passes below 1e-9. The raw integer is affine (``p + k``), not linear, and binary is neither.
    The sinusoids' residual is rounding, and it grows with the positions fitted (about ``n_fit·ε``:
    8e-15 at 256 positions, 8e-14 at 1024, 2e-13 at 16384 for d = 64), because ``sin(p·ω)`` is
    computed from a rounded ``p·ω``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import EncodingError, as_positions, check_base, check_even, check_int, check_size
from .sinusoidal import sinusoidal

CANDIDATES = ("integer", "fraction", "binary", "sinusoidal")

TITLES = {
    "integer": "raw integer p",
    "fraction": "fraction p/N",
    "binary": "binary digits of p",
    "sinusoidal": "sinusoidal",
}

PROPERTIES = ("bounded", "consistent", "unique", "smooth", "linear")

PROPERTY_TITLES = {
    "bounded": "bounded",
    "consistent": "consistent across N",
    "unique": "unique rows",
    "smooth": "smooth",
    "linear": "offset = linear map",
}

#: Pass thresholds (see the module docstring).
CONSISTENT_TOL = 1e-12
SMOOTH_MAX_RATIO = 1.01
LINEAR_MAX_RESIDUAL = 1e-9

#: Largest table the scorecard builds (positions × d), so a hostile request cannot take the machine.
MAX_CELLS = 64 * 131072 * 2


def check_kind(kind: str) -> str:
    if kind not in CANDIDATES:
        raise EncodingError(f"candidate must be one of {', '.join(CANDIDATES)}; got {kind!r}")
    return kind


def encode(kind: str, positions, n: int, d: int, base: float = 10000.0) -> np.ndarray:
    """Rows ``PE(p)`` of candidate ``kind`` for ``positions`` in a sequence of ``n`` positions, width ``d``."""
    check_kind(kind)
    n = check_int("n", n)
    d = check_even("d", d)
    b = check_base(base)
    p = as_positions(positions).astype(np.float64)
    check_size(p.size, d)
    if kind == "integer":
        return np.repeat(p[:, None], d, axis=1)
    if kind == "fraction":
        return np.repeat((p / n)[:, None], d, axis=1)
    if kind == "binary":
        pi = p.astype(np.int64)
        bits = np.arange(d)
        out = np.zeros((p.size, d))
        ok = bits < 63  # bit j ≥ 63 of a position below 2^63 is 0
        out[:, ok] = (pi[:, None] >> bits[ok][None, :]) & 1
        return out
    return sinusoidal(p, d, b, "paper")


@dataclass(frozen=True)
class ScoreRow:
    """One candidate's measured properties (see the module docstring for each definition)."""

    kind: str
    title: str
    bounded_max: dict  # N -> largest |value| over p < N
    bounded_ratio: dict  # N -> largest ‖PE(p)‖ / √d
    consistent: float  # largest |PE_N(p) − PE_N'(p)| over p < min N
    unique: int  # distinct rows at the largest N
    n_rows: int  # rows compared (the largest N)
    smooth: float  # largest / smallest step ‖PE(p+1) − PE(p)‖ at the largest N
    linear_residual: float  # relative least-squares residual of one M_k

    def passes(self) -> dict:
        """Property -> bool, by the thresholds in the module docstring."""
        return {
            "bounded": all(v <= 1.0 for v in self.bounded_max.values()),
            "consistent": self.consistent <= CONSISTENT_TOL,
            "unique": self.unique == self.n_rows,
            "smooth": self.smooth <= SMOOTH_MAX_RATIO,
            "linear": self.linear_residual < LINEAR_MAX_RESIDUAL,
        }

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "title": self.title,
            "bounded_max": {str(k): v for k, v in self.bounded_max.items()},
            "bounded_ratio": {str(k): v for k, v in self.bounded_ratio.items()},
            "consistent": self.consistent,
            "unique": self.unique,
            "n_rows": self.n_rows,
            "smooth": self.smooth,
            "linear_residual": self.linear_residual,
            "passes": self.passes(),
        }


@dataclass(frozen=True)
class Scorecard:
    d: int
    n_values: tuple
    offset: int
    n_fit: int
    base: float
    rows: tuple = field(default_factory=tuple)

    def row(self, kind: str) -> ScoreRow:
        check_kind(kind)
        return next(r for r in self.rows if r.kind == kind)

    def passes(self, kind: str) -> dict:
        return self.row(kind).passes()

    def as_dict(self) -> dict:
        return {
            "d": self.d,
            "n_values": list(self.n_values),
            "offset": self.offset,
            "n_fit": self.n_fit,
            "base": self.base,
            "rows": [r.as_dict() for r in self.rows],
        }


def linear_map_residual(table: np.ndarray, k: int) -> float:
    """Relative residual of the best single matrix M with ``table[p+k] ≈ M·table[p]`` (least squares)."""
    x, y = table[:-k], table[k:]
    m, *_ = np.linalg.lstsq(x, y, rcond=None)
    norm = float(np.linalg.norm(y))
    return float(np.linalg.norm(x @ m - y) / norm) if norm > 0 else 0.0


def distinct_rows(table: np.ndarray) -> int:
    """How many rows differ (bit for bit) from every other row."""
    rows = np.ascontiguousarray(table, dtype=np.float64) + 0.0  # + 0.0: −0.0 and 0.0 are one value
    # A set of the rows' bytes: the same comparison as np.unique on a void view, without sorting 131 072
    # rows of 512 bytes (the scorecard tab's first show waits for it).
    return len(set(map(bytes, rows)))


def step_ratio(table: np.ndarray) -> float:
    """Largest over smallest ``‖row(p+1) − row(p)‖``; inf when two neighbours are equal."""
    steps = np.linalg.norm(np.diff(table, axis=0), axis=1)
    lo = float(steps.min())
    return float(steps.max() / lo) if lo > 0 else float("inf")


def _score(kind: str, d: int, n_values: tuple, offset: int, n_fit: int, base: float) -> ScoreRow:
    big = max(n_values)
    table = encode(kind, np.arange(big), big, d, base)
    bounded_max, bounded_ratio = {}, {}
    # Largest |value| and row norm over positions 0 … n−1 for every n at once: running maxima over the rows
    # (p/N is the one candidate whose rows change with N, so it is encoded again for each N).
    peak = np.maximum.accumulate(np.abs(table).max(axis=1))
    norm = np.maximum.accumulate(np.linalg.norm(table, axis=1))
    for n in n_values:
        if kind == "fraction":
            rows = encode(kind, np.arange(n), n, d, base)
            bounded_max[n] = float(np.abs(rows).max())
            bounded_ratio[n] = float(np.linalg.norm(rows, axis=1).max() / np.sqrt(d))
        else:
            bounded_max[n] = float(peak[n - 1])
            bounded_ratio[n] = float(norm[n - 1] / np.sqrt(d))
    small = np.arange(min(n_values))
    first = encode(kind, small, n_values[0], d, base)
    consistent = max(float(np.abs(encode(kind, small, n, d, base) - first).max()) for n in n_values)
    unique = distinct_rows(table)
    fit = encode(kind, np.arange(n_fit), n_fit, d, base)
    return ScoreRow(kind, TITLES[kind], bounded_max, bounded_ratio, consistent, unique, big,
                    step_ratio(table), linear_map_residual(fit, offset))


def scorecard(d: int = 64, n_values=(64, 1024, 131072), offset: int = 8, base: float = 10000.0,
              n_fit: int = 1024) -> Scorecard:
    """Every candidate scored at width ``d`` over the sequence lengths ``n_values`` (see the docstring)."""
    d = check_even("d", d)
    b = check_base(base)
    ns = tuple(sorted({check_int("N", n, minimum=2) for n in n_values}))
    if not ns:
        raise EncodingError("n_values must name at least one sequence length")
    check_size(ns[-1], d, what="scorecard table")
    if ns[-1] * d > MAX_CELLS:
        raise EncodingError(f"scorecard table {ns[-1]} × {d} is too large (at most {MAX_CELLS:,} cells)")
    n_fit = check_int("n_fit", n_fit, minimum=3, maximum=ns[-1] if ns[-1] >= 3 else 3)
    k = check_int("offset", offset, minimum=1, maximum=n_fit - 2)
    rows = tuple(_score(kind, d, ns, k, n_fit, b) for kind in CANDIDATES)
    return Scorecard(d, ns, k, n_fit, b, rows)
