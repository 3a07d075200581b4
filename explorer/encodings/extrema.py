"""Exact extrema of sampled sinusoids, and the binned curves built on them (numpy, no Qt).

The Waves panel draws tables and waves with more positions than pixels; every pixel then carries the
exact minimum and maximum of the integer positions it covers (the "peak" downsampling of pyqtgraph,
made exact), never every k-th sample of a fast sinusoid, which aliases.

Exact extrema of a sampled sinusoid
-----------------------------------
The block minimum/maximum of ``sin(p·ω + φ)`` over the integers p in [a, b] is attained either
at a or b, or at the integer nearest to a crest (trough) inside [a, b]: between a sample and
its nearest crest the wave is monotone, so a closer sample is higher.  Evaluating only those
candidates costs about (b − a)·ω/π evaluations per column instead of b − a.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import EncodingError
from .sinusoidal import column_pair, frequencies

TWO_PI = 2.0 * math.pi
#: A column may be drawn as the continuous range [-1, 1] (instead of its exact sampled
#: extrema) only when every block spans at least this many periods.
APPROX_MIN_PERIODS = 8.0


def _wave(theta: np.ndarray, is_cos: np.ndarray) -> np.ndarray:
    """sin(θ) where ``is_cos`` is False, cos(θ) where it is True — the same floats as the table."""
    theta, is_cos = np.broadcast_arrays(theta, is_cos)
    out = np.empty(theta.shape, dtype=np.float64)
    out[is_cos] = np.cos(theta[is_cos])
    out[~is_cos] = np.sin(theta[~is_cos])
    return out


def _sin32(theta: np.ndarray) -> np.ndarray:
    """sin θ to float32 precision (within 2e-7 of the float64 value), float32: θ reduced to [−π, π] in
    float64, then numpy's vectorised float32 sine (10–30 times faster than its float64 one here).

    For what is drawn while a slider is held (the images and curves are float32 anyway); never for a number
    that is shown or exported.
    """
    theta = np.asarray(theta, dtype=np.float64)
    turns = np.rint(theta * (1.0 / TWO_PI))
    turns *= TWO_PI
    return np.sin((theta - turns).astype(np.float32))


def _wave_table(positions: np.ndarray, omega: np.ndarray, is_cos: np.ndarray, fast: bool = False) -> np.ndarray:
    """``_wave`` for every (position, column): sin and cos columns evaluated apart, no masks per element.

    ``fast``: float32, within 2e-7 (:func:`_sin32`; a cos column as sin(θ + π/2)).
    """
    p = np.asarray(positions, dtype=np.float64)
    if fast:
        theta = np.multiply.outer(p, omega)
        theta += np.where(is_cos, math.pi / 2, 0.0)
        return _sin32(theta)
    out = np.empty((p.size, omega.size), dtype=np.float64)
    s = ~is_cos
    out[:, s] = np.sin(np.multiply.outer(p, omega[s]))
    out[:, is_cos] = np.cos(np.multiply.outer(p, omega[is_cos]))
    return out


def pe_values(positions, columns, d_model: int, base: float, variant: str) -> np.ndarray:
    """PE[p, c] for the given integer positions (any sign) and columns, float64 ``(len(p), len(c))``.

    Negative positions are allowed here (p + k may be negative): the formula is defined for every
    real position, which is exactly the point of the rotation view.
    """
    p = np.asarray(positions, dtype=np.float64).reshape(-1)
    c = np.asarray(columns, dtype=np.int64).reshape(-1)
    omega = frequencies(d_model, base, variant)
    pair, is_cos = column_pair(d_model, variant)
    return _wave(np.multiply.outer(p, omega[pair[c]]), is_cos[c][None, :])


# -- exact block extrema ---------------------------------------------------------------------------
def _candidate_blocks(omega, phase, theta_star, r0, r1):
    """Per column: first crest index and count of crests θ = θ* + 2πm with position in [r0, r1-1].

    One extra crest on each side guards against rounding at the ends (its nearest integer is
    clipped into range, so it is still a real sample).
    """
    lo = np.ceil((r0 * omega + phase - theta_star) / TWO_PI) - 1
    hi = np.floor(((r1 - 1) * omega + phase - theta_star) / TWO_PI) + 1
    counts = np.maximum(hi - lo + 1, 0).astype(np.int64)
    return lo, counts


def column_extrema(omega, is_cos, start: int, stop: int, bin_size: int, budget: int | None = None,
                   fast: bool = False):
    """Exact minimum and maximum of each column over blocks of ``bin_size`` consecutive positions.

    Column c holds ``sin(p·ω_c)`` (or ``cos`` where ``is_cos[c]``); block b covers the positions
    ``start + b·bin_size`` … ``min(start + (b+1)·bin_size, stop) - 1``.

    Returns
    -------
    mins, maxs : ndarray, shape (n_blocks, n_columns), float64 (float32 with ``fast``)
        The extrema over the integer positions of each block (the sampled table, not the
        continuous wave).
    approx : ndarray of bool, shape (n_columns,)
        Columns drawn as the continuous range [-1, 1] because evaluating their crests would
        exceed ``budget``; only columns whose every block spans ≥ APPROX_MIN_PERIODS periods
        are eligible, so their sampled extrema are within a few per cent of ±1.

    ``fast``: each candidate evaluated in float32 (:func:`_sin32`), the extrema within 2e-7 (a drag step's).
    """
    omega = np.asarray(omega, dtype=np.float64)
    is_cos = np.asarray(is_cos, dtype=bool)
    if stop <= start:
        raise EncodingError("the position range is empty")
    n_blocks = -(-(stop - start) // bin_size)
    firsts = start + np.arange(n_blocks, dtype=np.int64) * bin_size
    lasts = np.minimum(firsts + bin_size - 1, stop - 1)
    vf = _wave_table(firsts, omega, is_cos, fast)
    vl = _wave_table(lasts, omega, is_cos, fast)
    mins_t = np.minimum(vf, vl).T.copy()  # (columns, blocks): candidates arrive column by column
    maxs_t = np.maximum(vf, vl).T.copy()
    approx = np.zeros(omega.size, dtype=bool)
    if bin_size == 1:
        return mins_t.T, maxs_t.T, approx
    phase = np.where(is_cos, math.pi / 2, 0.0)  # cos θ = sin(θ + π/2)
    plans = [(math.pi / 2, maxs_t, np.maximum), (-math.pi / 2, mins_t, np.minimum)]
    blocks = [_candidate_blocks(omega, phase, ts, start, stop) for ts, _, _ in plans]
    if budget is not None:
        total = sum(int(c.sum()) for _, c in blocks)
        if total > budget:
            periods = bin_size * omega / TWO_PI
            per_col = blocks[0][1] + blocks[1][1]
            for c in np.argsort(-omega):
                if total <= budget or periods[c] < APPROX_MIN_PERIODS:
                    break
                approx[c] = True
                total -= int(per_col[c])
            mins_t[approx] = -1.0
            maxs_t[approx] = 1.0
    keep = ~approx
    for (theta_star, target, reduce), (lo, counts) in zip(plans, blocks, strict=True):
        counts = np.where(keep, counts, 0)
        _apply_candidates(omega, phase, is_cos, theta_star, lo, counts, start, stop, bin_size, target, reduce, fast)
    return mins_t.T, maxs_t.T, approx


def _apply_candidates(omega, phase, is_cos, theta_star, lo, counts, start, stop, bin_size, target, reduce,
                      fast=False):
    """Fold the nearest integers to each crest (trough) into ``target`` (columns × blocks)."""
    n_blocks = target.shape[1]
    cum = np.cumsum(counts)
    chunk = 1_000_000
    c0 = 0
    while c0 < omega.size:
        # Columns c0 … c1-1 hold about `chunk` candidates together (bounded memory).
        base_count = cum[c0 - 1] if c0 else 0
        c1 = int(np.searchsorted(cum, base_count + chunk, side="right"))
        c1 = max(c1, c0 + 1)
        cnt = counts[c0:c1]
        total = int(cnt.sum())
        if total:
            col = np.repeat(np.arange(c0, c1), cnt)
            first = np.cumsum(cnt) - cnt
            m = lo[col] + (np.arange(total) - np.repeat(first, cnt))
            crest = (theta_star - phase[col] + TWO_PI * m) / omega[col]
            q = np.clip(np.rint(crest), start, stop - 1)
            val = _sin32(q * omega[col] + phase[col]) if fast else _wave(q * omega[col], is_cos[col])
            flat = col * n_blocks + ((q.astype(np.int64) - start) // bin_size)
            # q grows with m inside a column and columns come in order, so `flat` is sorted:
            # reduceat over its runs is one pass.
            starts = np.concatenate(([0], np.flatnonzero(np.diff(flat)) + 1))
            best = reduce.reduceat(val, starts)
            idx = flat[starts]
            tflat = target.reshape(-1)
            tflat[idx] = reduce(tflat[idx], best)
        c0 = c1


def block_extrema(mins: np.ndarray, maxs: np.ndarray, row_bin: int,
                  col_bin: int) -> tuple[np.ndarray, np.ndarray]:
    """The minimum of ``mins`` and the maximum of ``maxs`` over each ``row_bin`` × ``col_bin`` block (blocks laid
    from the top left; the last row and column of blocks may be short), ``(blocks, column blocks)`` each, in their
    dtype.  A table given as both: its blocks' own extrema, exact wherever the table is (a table small enough to
    evaluate whole); extrema of smaller blocks: those of the larger ones.

    Each fold is ``k`` element-wise passes over strided slices (``reduceat`` over short runs of a row was most
    of a 256 × 128 overview's time).
    """
    for axis, k in ((0, max(1, int(row_bin))), (1, max(1, int(col_bin)))):
        mins, maxs = _fold(mins, k, axis, np.minimum), _fold(maxs, k, axis, np.maximum)
    return mins, maxs


def _fold(a: np.ndarray, k: int, axis: int, fn) -> np.ndarray:
    """``fn`` over every ``k`` consecutive entries along ``axis`` (a short last run padded with its last entry)."""
    if k == 1:
        return a
    short = (-a.shape[axis]) % k
    if short:
        a = np.concatenate([a, np.repeat(np.take(a, [-1], axis=axis), short, axis=axis)], axis=axis)
    index = [slice(None)] * a.ndim
    index[axis] = slice(0, None, k)
    out = a[tuple(index)].copy()
    for j in range(1, k):
        index[axis] = slice(j, None, k)
        fn(out, a[tuple(index)], out=out)
    return out


def envelope(omega: float, is_cos: bool, start: int, stop: int, px: int, budget: int | None = None,
             fast: bool = False):
    """One column over positions [start, stop) as a drawable curve with at most ~2·px points.

    Returns ``(x, y, bin_size)``: every position when there are at most 2·px of them, otherwise
    for each block of ``bin_size`` positions its exact minimum and maximum at the block centre
    (the "peak" downsampling that keeps every crest and trough visible).  ``fast``: the values to
    float32 (:func:`_sin32`; a drag step's).
    """
    count = stop - start
    om, ic = np.array([omega]), np.array([is_cos])
    if count <= 2 * px:
        x = np.arange(start, stop, dtype=np.float64)
        if fast:
            return x, _sin32(x * omega + (math.pi / 2 if is_cos else 0.0)), 1
        return x, _wave(x * omega, np.full(count, is_cos)), 1
    bin_size = -(-count // px)
    mins, maxs, _ = column_extrema(om, ic, start, stop, bin_size, budget, fast)
    firsts = start + np.arange(mins.shape[0]) * bin_size
    centre = (firsts + np.minimum(firsts + bin_size, stop) - 1) / 2.0
    x = np.repeat(centre, 2)
    y = np.empty(x.size)
    y[0::2], y[1::2] = mins[:, 0], maxs[:, 0]
    return x, y, bin_size


def similarity_by_offset(omega: np.ndarray, lo: int, hi: int, px: int, direct: bool = False):
    """f(Δ) = PE(p)·PE(p+Δ) = Σ_i cos(Δ·ω_i) for integer Δ in [lo, hi], min/max-binned to ``px``.

    Blocks of offsets a + j use cos((a+j)ω) = cos(aω)cos(jω) − sin(aω)sin(jω), so all offsets cost
    two matrix products (each term off by about |Δω|·ε: 1e-11 at Δ = 10⁵).  ``direct`` (an export) sums
    cos(Δ·ω_i) itself, a few offsets at a time.  Returns ``(x, y, bin_size)`` like :func:`envelope`.
    """
    count = hi - lo + 1
    bin_size = 1 if count <= 2 * px else -(-count // px)
    width = bin_size if bin_size > 1 else min(count, 512)
    n_blocks = -(-count // width)
    a = lo + np.arange(n_blocks, dtype=np.float64) * width
    j = np.arange(width, dtype=np.float64)
    if direct:
        off = (a[:, None] + j[None, :]).reshape(-1)
        flat = np.empty(off.size)
        step = max(1, 2**22 // max(1, omega.size))
        for s in range(0, off.size, step):
            flat[s : s + step] = np.cos(np.multiply.outer(off[s : s + step], omega)).sum(axis=1)
        f = flat.reshape(n_blocks, width)
    else:
        aw, jw = np.multiply.outer(a, omega), np.multiply.outer(j, omega)
        f = np.cos(aw) @ np.cos(jw).T - np.sin(aw) @ np.sin(jw).T  # (blocks, width)
    valid = (a[:, None] + j[None, :]) <= hi
    if bin_size == 1:
        x = (a[:, None] + j[None, :])[valid]
        return x, f[valid], 1
    mins = np.where(valid, f, np.inf).min(axis=1)
    maxs = np.where(valid, f, -np.inf).max(axis=1)
    last = np.minimum(a + width - 1, hi)
    x = np.repeat((a + last) / 2.0, 2)
    y = np.empty(x.size)
    y[0::2], y[1::2] = mins, maxs
    return x, y, bin_size


#: A drag step's overview may draw a column as [−1, 1] once every block spans this many periods (its
#: sampled extrema are then within cos(π/λ·…) of ±1 and the drag shows it grey anyway); exact on release.
PREVIEW_MIN_PERIODS = 1.0


def preview_extrema(omega, is_cos, pair, start: int, stop: int, bin_size: int, group: int, budget: int):
    """Block extrema for a drag step, at most about ``budget`` sine evaluations whatever the width.

    A cheaper stand-in for :func:`column_extrema` while a slider is held (letting go asks for the
    exact one), already reduced to image cells of ``group`` adjacent columns (cell g covers columns
    g·group … (g+1)·group − 1 of the arrays given).  Each column costs its two block ends per block
    plus its crests; while the total is over ``budget``:

    1. the fastest columns whose every block spans ≥ PREVIEW_MIN_PERIODS periods are drawn as their
       continuous range [−1, 1] (``approx``; a cell holding one shows [−1, 1]);
    2. when ``group`` > 1, only every s-th pair is evaluated (s ≤ group; a cell left with none
       evaluates its first column; ``skipped``): a cell then shows the range of the columns it kept.

    Returns ``mins, maxs, approx, skipped``: ``(n_blocks, n_cells)`` float64 and two bool arrays per
    column.  The columns evaluated are exact to float32 (:func:`column_extrema`, ``fast``), as drawn.
    """
    omega = np.asarray(omega, dtype=np.float64)
    is_cos = np.asarray(is_cos, dtype=bool)
    pair = np.asarray(pair, dtype=np.int64)
    if stop <= start:
        raise EncodingError("the position range is empty")
    group = max(1, int(group))
    n_blocks = -(-(stop - start) // bin_size)
    phase = np.where(is_cos, math.pi / 2, 0.0)
    crests = sum(_candidate_blocks(omega, phase, ts, start, stop)[1] for ts in (math.pi / 2, -math.pi / 2))
    cost = crests + 2 * n_blocks
    total = int(cost.sum())
    approx = np.zeros(omega.size, dtype=bool)
    if total > budget:
        # Fastest first, only among columns with a period or more per block (a prefix of this order).
        order = np.argsort(-omega, kind="stable")
        eligible = int(np.count_nonzero(bin_size * omega[order] / TWO_PI >= PREVIEW_MIN_PERIODS))
        saved = np.cumsum(cost[order[:eligible]])
        k = min(eligible, int(np.searchsorted(saved, total - budget)) + 1)
        approx[order[:k]] = True
        total -= int(saved[k - 1]) if k else 0
    keep = ~approx
    cell = np.arange(omega.size) // group
    n_cells = int(cell[-1]) + 1
    if total > budget and group > 1:
        stride = min(group, -(-total // budget))
        keep &= pair % stride == 0
        # A cell left with no column at all evaluates its first one (at most one column per cell).
        shown = np.zeros(n_cells, dtype=bool)
        shown[cell[keep | approx]] = True
        keep[np.flatnonzero(~shown) * group] = True
    skipped = ~approx & ~keep
    mins = np.full((n_blocks, n_cells), np.inf)
    maxs = np.full((n_blocks, n_cells), -np.inf)
    kept = np.flatnonzero(keep)
    if kept.size:
        lo, hi, _ = column_extrema(omega[kept], is_cos[kept], start, stop, bin_size, fast=True)
        # Kept columns come in column order, so each cell's are one run: reduce the runs.
        starts = np.concatenate(([0], np.flatnonzero(np.diff(cell[kept])) + 1))
        cells = cell[kept][starts]
        mins[:, cells] = np.minimum.reduceat(lo, starts, axis=1)
        maxs[:, cells] = np.maximum.reduceat(hi, starts, axis=1)
    wide = np.unique(cell[approx])
    mins[:, wide], maxs[:, wide] = -1.0, 1.0
    return mins, maxs, approx, skipped
