"""Contextual position encoding (CoPE; Golovneva, Wang, Weston & Sukhbaatar 2024, "Contextual Position Encoding:
Learning to Count What's Important", arXiv 2405.18719; reference code facebookresearch/RAM ``projects/cope``).

Position depends on content: query i decides, for every key t, how much t counts as one step,

    g_it = σ(q_i·k_t / √d) · m_it          (m: the causal mask, 1 where t ≤ i; all ones without it),
    p_ij = Σ_{t ≥ j} g_it                   (the count of what lies from key j up to the query: a reversed cumsum),

clamped at P − 1 (``npos`` = P positions, the reference's block size + 1).  Each integer position has a learned
vector e[p] (d); a fractional one interpolates the logits, and the term joins the score before the 1/√d:

    z_ij = (1 − w)·q_i·e[⌊p_ij⌋] + w·q_i·e[⌈p_ij⌉],   w = p_ij − ⌊p_ij⌋,
    a_ij = (q_i·k_j + z_ij) / √d            (the reference's default, ``cope_nodiv`` false).

With gates that are all 1 the count is i − j + 1 and CoPE is a learned relative embedding; gates that open only
on some tokens (a full stop, a noun) count sentences or nouns instead — what lets a model attend to "the 2nd
sentence back" wherever it starts.  No Qt, numpy only (the Lab's torch module follows the same formula).
"""

from __future__ import annotations

import numpy as np

from .errors import EncodingError, check_int


def sigmoid(x: np.ndarray) -> np.ndarray:
    """σ(x) = 1/(1 + e^(−x)), without overflow for large |x| (−inf gives 0)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def gates(q: np.ndarray, k: np.ndarray, causal: bool = True) -> np.ndarray:
    """g (..., n, n): σ(q_i·k_t/√d), times the causal mask when ``causal``; q, k (..., n, d)."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    d = q.shape[-1]
    g = sigmoid(q @ np.swapaxes(k, -1, -2) / np.sqrt(d))
    if causal:
        n = q.shape[-2]
        g = g * np.tril(np.ones((n, n)))
    return g


def positions(g: np.ndarray, npos: int) -> np.ndarray:
    """p_ij = Σ_{t ≥ j} g_it (reversed cumulative sum over keys), clamped at ``npos`` − 1."""
    p = np.flip(np.cumsum(np.flip(g, -1), -1), -1)
    return np.minimum(p, check_int("npos", npos, minimum=1) - 1)


def position_logits(q: np.ndarray, p: np.ndarray, table: np.ndarray) -> np.ndarray:
    """z_ij: q_i·e[p_ij] interpolated between ⌊p_ij⌋ and ⌈p_ij⌉; ``table`` (npos, d) holds e[0 … npos − 1]."""
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2 or table.shape[1] != np.shape(q)[-1]:
        raise EncodingError(f"the position table must be (npos, {np.shape(q)[-1]}), got {table.shape}")
    fixed = np.asarray(q, dtype=np.float64) @ table.T  # (..., n, npos): q_i·e[p] for every integer p
    lo = np.floor(p).astype(np.int64)
    hi = np.ceil(p).astype(np.int64)
    if lo.min(initial=0) < 0 or hi.max(initial=0) >= table.shape[0]:
        raise EncodingError(f"positions run past the table's {table.shape[0]} rows")
    w = p - lo
    return np.take_along_axis(fixed, hi, -1) * w + np.take_along_axis(fixed, lo, -1) * (1.0 - w)


def cope_term(q: np.ndarray, k: np.ndarray, table: np.ndarray, causal: bool = True):
    """(gates, positions, z/√d): what CoPE adds to the scaled scores q·k/√d, with the gates and positions it used."""
    g = gates(q, k, causal)
    p = positions(g, table.shape[0])
    return g, p, position_logits(q, p, table) / np.sqrt(np.shape(q)[-1])


def seeded_table(npos: int, d: int, seed: int) -> np.ndarray:
    """An untrained e[0 … npos − 1] (npos, d): N(0, 1) from a generator of its own, seeded with ``seed`` (the
    reference starts at zeros and learns them; zeros would show nothing)."""
    n = check_int("npos", npos, minimum=1, maximum=1 << 20)
    return np.random.default_rng([check_int("seed", seed, minimum=0), 0xC09E]).standard_normal(
        (n, check_int("d", d, minimum=1, maximum=65536)))
