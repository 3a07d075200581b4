"""ALiBi — attention with linear biases (Press, Smith & Lewis 2022, "Train Short, Test Long").

No positional vectors at all: head h adds ``−m_h · (i − j)`` to the score of query i and key j.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import EncodingError, check_int, check_size

MODES = ("causal", "symmetric")


def _power_of_two_slopes(n: int) -> list[float]:
    # 2^(-8k/n), k = 1..n: a geometric sequence starting at 2^(-8/n).
    start = 2.0 ** (-8.0 / n)
    return [start ** (k + 1) for k in range(n)]


def alibi_slopes(n_heads: int) -> np.ndarray:
    """Head slopes m_h, shape ``(n_heads,)``.

    For n a power of two: ``m_k = 2^(-8k/n)``, k = 1 … n (8 heads: 1/2, 1/4, …, 1/256).
    Otherwise the paper's rule (and its reference code ``get_slopes``): the n' = 2^⌊log2 n⌋ slopes
    of the nearest lower power of two, followed by every other slope (k = 1, 3, 5, …) of 2n',
    until there are n.  NOT the first n slopes of the next power of two.
    """
    n = check_int("heads", n_heads, minimum=1, maximum=4096)
    if n & (n - 1) == 0:
        return np.array(_power_of_two_slopes(n), dtype=np.float64)
    lower = 2 ** math.floor(math.log2(n))
    extra = _power_of_two_slopes(2 * lower)[0::2][: n - lower]
    return np.array(_power_of_two_slopes(lower) + extra, dtype=np.float64)


def alibi_bias(n_heads: int, positions: int, mode: str = "causal") -> np.ndarray:
    """Bias tensor B[h, i, j], shape ``(H, N, N)``.

    ``causal``: −m_h·(i − j) for j ≤ i, −inf for j > i (the future is masked, never biased).
    ``symmetric``: −m_h·|i − j| (encoder-style use).
    """
    if mode not in MODES:
        raise EncodingError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    slopes = alibi_slopes(n_heads)
    n = check_int("positions", positions, minimum=1)
    check_size(slopes.size, n, n, what="ALiBi bias")
    i = np.arange(n, dtype=np.float64)
    dist = i[:, None] - i[None, :]
    if mode == "symmetric":
        return -slopes[:, None, None] * np.abs(dist)[None] + 0.0  # + 0.0: no "-0.0" on the diagonal
    bias = -slopes[:, None, None] * dist[None] + 0.0
    bias[:, dist < 0] = -np.inf
    return bias
