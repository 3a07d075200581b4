"""Waves-panel jobs: every number the Waves panel shows, at display resolution, without Qt.

The panel asks for four things under four keys, so that dragging one value recomputes only
what depends on it:

``waves.heatmap`` (:class:`HeatmapRequest`)
    The visible part of the table PE[position, column].  When it has more positions or columns
    than the view has pixels, each image cell covers a block of the table and carries that
    block's exact minimum and maximum (a min/max-preserving overview, like pyqtgraph's "peak"
    downsampling of curves) — never every k-th row of a fast sinusoid, which aliases.
``waves.curves`` (:class:`CurvesRequest`)
    The waves of the chosen pairs (visible range and the whole sequence), the spectrum, and
    the similarity curve PE(p)·PE(p+Δ) = Σ_i cos(Δ·ω_i), all min/max-binned to pixels.
``waves.views`` (:class:`~explorer.jobs.waves_pick.PickRequest`, in :mod:`explorer.jobs.waves_pick`)
    What depends on the picked p, k, pair and token: PE(p), PE(p+k), the rotation readouts,
    direct dot products, and the same-token-two-positions experiment.
``waves.matrix`` (:class:`MatrixRequest`)
    The matrix PE(p)·PE(q) computed directly from the table (not from the offset formula),
    for positions 0 … size-1, with the numbers that show it is symmetric and Toeplitz.

:class:`WavesRequest` computes all four for a state at once (CLI, tests, benchmark).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..encodings.errors import EncodingError
from ..encodings.extrema import (
    APPROX_MIN_PERIODS,  # noqa: F401 - part of this module's interface (tests, docs)
    TWO_PI,
    _wave_table,
    block_extrema,
    column_extrema,
    envelope,
    pe_values,
    preview_extrema,
    similarity_by_offset,
)
from ..encodings.sinusoidal import (
    column_pair,
    completes_cycle,
    frequencies,
    pair_columns,
    rotation_rounding,
    sinusoidal,
)
from ..state.waves import WavesState
from . import job
from .colours import lookup_table, overview_rgba
from .waves_pick import PickRequest, PickResponse, compute_pick

#: Candidate evaluations allowed for exact block extrema at rest: the columns past it are drawn as [−1, 1] only
#: where every block spans ≥ 8 periods (1,000,000 cost ~29 ms at N = 131072, d = 128 on the 2-core reference
#: machine).  A drag step has budgets of its own, below.
EXACT_BUDGET = 3_000_000
#: A drag step's heatmap overview: at most about this many sine evaluations (block ends and crests),
#: whatever N and d (see encodings.extrema.preview_extrema; 8192 × 4096 cost ~0.13 CPU-s before, loaded),
#: but a wide table evaluates a column or two per image cell whatever that costs.  It was 120 000: at
#: N = 131 072, d = 128 the overview took 5–8 ms of the compute process a step, a fifth less now (32 of the
#: 128 columns drawn as [−1, 1] instead of 26, each spanning a period or more in every block: a full
#: cycle's range, to within the sampling).
PREVIEW_HEATMAP_EVALS = 90_000
#: A table of at most this many cells is evaluated whole for its overview, drag step or not (each cell's block
#: of its own values: exact, and cheaper than finding crests at these sizes: 1.15 → 0.3 ms at 256 × 128
#: shown in 120 columns, the default drag's tile).  An export's exact overview keeps the crest search.
DIRECT_CELLS = 1 << 16
#: A drag step's lanes (the chosen pairs' min/max strokes), all of them together: about this many crest
#: evaluations (the beyond-training view's lanes, when it is shown, as many again).  A lane past its share is
#: drawn as the band [−1, 1] where every stroke spans ≥ 8 periods (its sampled extrema are within 0.001 of ±1
#: there: the same pixels); letting go draws it exactly.  Each lane had 250 000 of its own: at N = 131 072 the
#: four default lanes were ~105 000 evaluations, 4 ms a step.
PREVIEW_LANE_EVALS = 40_000
#: Largest similarity matrix computed directly; size² · d is kept below MATRIX_WORK too.
MATRIX_MAX = 1024
MATRIX_PREVIEW_MAX = 256
MATRIX_WORK = 2**28


def sample_indices(n: int, max_count: int) -> np.ndarray:
    """At most ``max_count`` evenly spaced indices of 0 … n-1 (all of them when n ≤ max_count).

    Used for *smooth* data only (e.g. the Schemes panel's score matrices); never for a table of
    fast sinusoids, where it would alias.
    """
    if n <= max_count:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, max_count).round().astype(np.int64))


# -- small exact helpers ------------------------------------------------------------------------
def column_layout(d_model: int, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """For each column: its pair index i and whether it holds cos (True) or sin (False)."""
    return column_pair(d_model, variant)


def cell_info(state: WavesState, position: int, column: int) -> dict:
    """Everything the heatmap's hover readout says about PE[position, column]."""
    d = state.d_model
    pair, is_cos = column_pair(d, state.variant)
    i = int(pair[column])
    omega = float(frequencies(d, state.base, state.variant)[i])
    return {
        "position": int(position),
        "column": int(column),
        "pair": i,
        "kind": "cos" if bool(is_cos[column]) else "sin",
        "omega": omega,
        "wavelength": TWO_PI / omega,
        "value": float(pe_values([position], [column], d, state.base, state.variant)[0, 0]),
    }


# -- heatmap ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HeatmapRequest:
    """The table PE[r0:r1, c0:c1] at no more than ``max_rows`` × ``max_cols`` image cells."""

    n_positions: int
    d_model: int
    base: float
    variant: str
    rows: tuple = (0, 256)
    cols: tuple = (0, 128)
    max_rows: int = 512
    max_cols: int = 512
    preview: bool = False
    #: Colour map of the overview's RGBA image (the theme's diverging map; pyqtgraph's name).
    cmap: str = "CET-D1A"
    #: For an export: float64 values, every column's block extrema computed (no budget, no RGBA image).
    exact: bool = False
    key: str = "waves.heatmap"


@dataclass(frozen=True)
class HeatmapResponse:
    request: HeatmapRequest
    image: np.ndarray  # float32 (exact: float64): the table at full resolution; in an overview each block's mid-range
    rect: tuple  # (x, y, width, height) in (column, position) units
    overview: bool  # False: one image cell per table cell
    row_bin: int  # positions per block (1 at full resolution)
    col_bin: int  # columns per block
    rows: tuple  # (r0, r1) shown
    cols: tuple  # (c0, c1) shown
    mins: np.ndarray  # (blocks, column blocks) float32 (float64 if exact); equal to maxs at full resolution
    maxs: np.ndarray
    approx_columns: int  # columns drawn as the continuous range [-1, 1] (see column_extrema)
    #: The image as uint8 RGBA in ``request.cmap`` (in an overview the mid-range colour mixed with grey
    #: by the spread), made here so the view only uploads it.
    rgba: np.ndarray | None = None
    #: Columns a drag step's overview left out of their cells (every s-th pair kept; see
    #: preview_extrema); 0 at rest, where every column is evaluated.
    skipped_columns: int = 0


def heatmap_tile(req: HeatmapRequest) -> HeatmapResponse:
    """Compute the visible part of the table, at full resolution or as a min/max overview."""
    n, d = req.n_positions, req.d_model
    r0, r1 = max(0, int(req.rows[0])), min(n, int(req.rows[1]))
    c0, c1 = max(0, int(req.cols[0])), min(d, int(req.cols[1]))
    if r1 <= r0 or c1 <= c0:
        raise EncodingError(f"empty heatmap range: rows {r0}…{r1}, columns {c0}…{c1}")
    max_rows, max_cols = max(2, int(req.max_rows)), max(1, int(req.max_cols))
    omega = frequencies(d, req.base, req.variant)
    pair, is_cos = column_pair(d, req.variant)
    cols = np.arange(c0, c1)
    om, cs = omega[pair[cols]], is_cos[cols]
    nr, nc = r1 - r0, c1 - c0
    if nr <= max_rows and nc <= max_cols:
        vals = _wave_table(np.arange(r0, r1), om, cs, fast=req.preview and not req.exact)
        if req.exact:
            return HeatmapResponse(req, vals, (c0, r0, nc, nr), False, 1, 1, (r0, r1), (c0, c1), vals, vals, 0)
        vals = vals.astype(np.float32)
        rgba = overview_rgba(vals, vals, lookup_table(req.cmap))  # spread 0: the map's colour of each value
        return HeatmapResponse(req, vals, (c0, r0, nc, nr), False, 1, 1, (r0, r1), (c0, c1), vals, vals, 0,
                               rgba=rgba)
    row_bin = -(-nr // max_rows)
    col_bin = -(-nc // max_cols) if nc > max_cols else 1
    skipped = 0
    preview = req.preview and not req.exact
    whole = nr * nc <= DIRECT_CELLS and not req.exact
    if whole:
        vals = _wave_table(np.arange(r0, r1), om, cs, fast=preview)
        mins, maxs = block_extrema(vals, vals, row_bin, col_bin)
        approx = np.zeros(nc, dtype=bool)
    elif preview:  # sized to a frame at every d; letting go asks for the exact overview
        mins, maxs, approx, left_out = preview_extrema(om, cs, pair[cols], r0, r1, row_bin, col_bin,
                                                       PREVIEW_HEATMAP_EVALS)
        skipped = int(left_out.sum())
    else:
        mins, maxs, approx = column_extrema(om, cs, r0, r1, row_bin, None if req.exact else EXACT_BUDGET)
    if not preview and not whole:  # (those two come reduced to cells)
        mins, maxs = block_extrema(mins, maxs, 1, col_bin)
    if req.exact:
        rect = (c0, r0, mins.shape[1] * col_bin, mins.shape[0] * row_bin)
        return HeatmapResponse(req, (mins + maxs) / 2, rect, True, row_bin, col_bin, (r0, r1), (c0, c1), mins,
                               maxs, 0)
    mins, maxs = mins.astype(np.float32), maxs.astype(np.float32)
    image = (mins + maxs) / np.float32(2)
    rect = (c0, r0, mins.shape[1] * col_bin, mins.shape[0] * row_bin)
    rgba = overview_rgba(mins, maxs, lookup_table(req.cmap))
    return HeatmapResponse(req, image, rect, True, row_bin, col_bin, (r0, r1), (c0, c1), mins, maxs,
                           int(approx.sum()), rgba=rgba, skipped_columns=skipped)


@lru_cache(maxsize=16)
def _heatmap_cached(req: HeatmapRequest) -> HeatmapResponse:
    return heatmap_tile(req)


@job(HeatmapRequest)
def compute_heatmap(req: HeatmapRequest) -> HeatmapResponse:
    return _heatmap_cached(req)


# -- curves: waves, beyond training, spectrum, similarity by offset ----------------------------------
@dataclass(frozen=True)
class CurvesRequest:
    """Curves that depend on the encoding and the chosen pairs, not on p or k."""

    n_positions: int
    d_model: int
    base: float
    variant: str
    pairs: tuple = (0,)
    l_train: int = 128
    waves_range: tuple = (0, 256)  # positions [x0, x1) visible in the waves view
    #: Pixels of each view; 0 leaves that part out (a drag step while its view is on a hidden tab).
    waves_px: int = 600
    beyond_px: int = 600
    sim_range: tuple = (-255, 255)  # offsets [lo, hi] visible in the similarity view
    sim_px: int = 600
    preview: bool = False
    #: For an export: float64 curves (the display gets float32, half the bytes to send and draw).
    exact: bool = False
    key: str = "waves.curves"


@dataclass(frozen=True)
class CurvesResponse:
    request: CurvesRequest
    omega: np.ndarray  # (d/2,) float64
    wavelengths: np.ndarray  # (d/2,) float64, increasing: pair 0 is the fastest
    waves: dict  # pair -> (x, y) float32 (float64 if exact) over waves_range
    waves_bin: int  # positions per drawn block in the waves view (1 = every position)
    beyond: dict  # pair -> (x, y) float32 over [0, N)
    beyond_bin: int
    sim_x: np.ndarray
    sim_y: np.ndarray
    sim_bin: int
    slow_pairs: int  # pairs whose wavelength exceeds N − 1: not one full cycle in positions 0 … N−1
    unseen_pairs: int  # pairs whose wavelength exceeds L_train − 1: new angles past L_train
    bounds: tuple  # (2π, 2π·base): no wavelength lies outside
    info: dict = field(default_factory=dict)


def spectrum_counts(wavelengths: np.ndarray, n_positions: int, l_train: int) -> tuple[int, int]:
    """(pairs with λ > N − 1, pairs with λ > L_train − 1): the pairs that complete no full cycle in positions
    0 … N−1 (resp. 0 … L_train−1), by :func:`~explorer.encodings.sinusoidal.completes_cycle`."""
    return (int(np.count_nonzero(~completes_cycle(wavelengths, n_positions))),
            int(np.count_nonzero(~completes_cycle(wavelengths, l_train))))


@job(CurvesRequest)
def compute_curves(req: CurvesRequest) -> CurvesResponse:
    n, d = req.n_positions, req.d_model
    omega = frequencies(d, req.base, req.variant)
    lam = TWO_PI / omega
    budget: int | None
    if req.exact:
        budget = None
    elif req.preview:  # the lanes share one budget (see PREVIEW_LANE_EVALS)
        budget = max(1, PREVIEW_LANE_EVALS // max(1, len(req.pairs)))
    else:
        budget = EXACT_BUDGET
    out_type = np.float64 if req.exact else np.float32
    x0, x1 = max(0, int(req.waves_range[0])), min(n, int(req.waves_range[1]))
    x1 = max(x1, x0 + 1)
    waves, beyond = {}, {}
    wbin = bbin = 1
    fast = req.preview and not req.exact  # a drag step's sines in float32 (within 2e-7; drawn in float32)
    for i in req.pairs:
        if req.waves_px > 0:
            x, y, wbin = envelope(float(omega[i]), False, x0, x1, max(8, req.waves_px), budget, fast)
            waves[int(i)] = (x.astype(out_type), y.astype(out_type))
        if req.beyond_px > 0:
            x, y, bbin = envelope(float(omega[i]), False, 0, n, max(8, req.beyond_px), budget, fast)
            beyond[int(i)] = (x.astype(out_type), y.astype(out_type))
    lo = max(-(n - 1), int(req.sim_range[0]))
    hi = min(n - 1, int(req.sim_range[1]))
    hi = max(hi, lo)
    if req.sim_px > 0:
        sx, sy, sbin = similarity_by_offset(omega, lo, hi, max(8, req.sim_px), direct=req.exact)
    else:
        sx, sy, sbin = np.zeros(0), np.zeros(0), 0
    slow, unseen = spectrum_counts(lam, n, req.l_train)
    return CurvesResponse(
        request=req, omega=omega, wavelengths=lam, waves=waves, waves_bin=wbin, beyond=beyond,
        beyond_bin=bbin, sim_x=sx.astype(np.float64), sim_y=sy.astype(out_type), sim_bin=sbin,
        slow_pairs=slow, unseen_pairs=unseen, bounds=(TWO_PI, TWO_PI * req.base),
    )


# -- the similarity matrix, computed directly ---------------------------------------------------------
def matrix_size(n_positions: int, d_model: int, preview: bool = False) -> int:
    """How many leading positions the live matrix covers: all N when it stays cheap."""
    cap = MATRIX_PREVIEW_MAX if preview else MATRIX_MAX
    by_work = int(math.isqrt(MATRIX_WORK // d_model))
    return max(1, min(n_positions, cap, by_work))


@dataclass(frozen=True)
class MatrixRequest:
    n_positions: int
    d_model: int
    base: float
    variant: str
    size: int = 256
    #: For an export: the float64 matrix (the display gets float32).
    exact: bool = False
    key: str = "waves.matrix"


@dataclass(frozen=True)
class MatrixResponse:
    request: MatrixRequest
    matrix: np.ndarray  # (size, size) float32 (float64 if exact): PE(p)·PE(q) for p, q in 0 … size-1
    size: int
    asymmetry: float  # max |M − Mᵀ|
    toeplitz_spread: float  # max |M[p, q] − M[0, q − p]| (or M[p − q, 0]): depends only on q − p
    formula_error: float  # max |M[p, q] − Σ_i cos((q − p)·ω_i)|
    peak: float  # d/2: PE(p)·PE(p) for every p


@lru_cache(maxsize=8)
def _matrix_cached(req: MatrixRequest) -> MatrixResponse:
    size = max(1, min(int(req.size), req.n_positions))
    pe = sinusoidal(size, req.d_model, req.base, req.variant)
    m = pe @ pe.T
    off = np.subtract.outer(np.arange(size), np.arange(size))  # p - q
    toeplitz = np.where(off <= 0, m[0][np.abs(off)], m[:, 0][np.abs(off)])
    omega = frequencies(req.d_model, req.base, req.variant)
    f = np.cos(np.multiply.outer(np.arange(-(size - 1), size, dtype=np.float64), omega)).sum(axis=1)
    formula = f[-off + size - 1]
    return MatrixResponse(
        request=req,
        matrix=m if req.exact else m.astype(np.float32),
        size=size,
        asymmetry=float(np.max(np.abs(m - m.T))),
        toeplitz_spread=float(np.max(np.abs(m - toeplitz))),
        formula_error=float(np.max(np.abs(m - formula))),
        peak=req.d_model / 2,
    )


@job(MatrixRequest)
def compute_matrix(req: MatrixRequest) -> MatrixResponse:
    return _matrix_cached(req)


# -- export: the exact table cells in view ------------------------------------------------------------
#: Largest visible table exported cell by cell (beyond it, the overview's block minima and maxima).
EXPORT_TABLE_MAX = 2**20


@dataclass(frozen=True)
class TableRequest:
    """PE[r0:r1, c0:c1] cell by cell (for export; at most EXPORT_TABLE_MAX cells)."""

    d_model: int
    base: float
    variant: str
    rows: tuple = (0, 256)
    cols: tuple = (0, 128)
    key: str = "waves.table"


@job(TableRequest)
def compute_table(req: TableRequest) -> np.ndarray:
    (r0, r1), (c0, c1) = req.rows, req.cols
    if (r1 - r0) * (c1 - c0) > EXPORT_TABLE_MAX:
        raise EncodingError(f"{(r1 - r0) * (c1 - c0):,} cells is more than the {EXPORT_TABLE_MAX:,} "
                            "exported cell by cell")
    return pe_values(np.arange(r0, r1), np.arange(c0, c1), req.d_model, req.base, req.variant)


# -- formula strip --------------------------------------------------------------------------------------
def formula_numbers(state: WavesState) -> dict:
    """The numbers the formula strip substitutes: ω_i, λ_i and PE at the picked p and pair, and the float64
    rounding scale of R(k)·PE(p) = PE(p+k) over positions 0 … N−1 (:func:`rotation_rounding`)."""
    omega = float(frequencies(state.d_model, state.base, state.variant)[state.pair])
    sc, cc = pair_columns(state.pair, state.d_model, state.variant)
    vals = pe_values([state.position], [sc, cc], state.d_model, state.base, state.variant)[0]
    return {"omega": omega, "wavelength": TWO_PI / omega, "sin": float(vals[0]), "cos": float(vals[1]),
            "sin_col": sc, "cos_col": cc, "angle": state.position * omega,
            "rounding": rotation_rounding(state.n_positions, state.offset, omega)}


# -- everything for one state (CLI, tests, benchmark) ----------------------------------------------------
@dataclass(frozen=True)
class WavesRequest:
    """All four Waves-panel computations for ``state`` over the whole table."""

    state: WavesState
    max_rows: int = 1024
    max_cols: int = 1024
    preview: bool = False
    key: str = "waves"


@dataclass(frozen=True)
class WavesResponse:
    request: WavesRequest
    heatmap: HeatmapResponse
    curves: CurvesResponse
    pick: PickResponse
    matrix: MatrixResponse


def requests_for(state: WavesState, *, rows=None, cols=None, heat_px=(512, 512), waves_range=None,
                 sim_range=None, px: int | tuple[int, int, int] = 600, preview: bool = False,
                 cmap: str = HeatmapRequest.cmap) -> tuple:
    """The heatmap, curves, pick and matrix requests for ``state``: what the Waves panel sends (with its views'
    ranges and pixel sizes) and what a headless export computes (defaults: the whole table, 600-pixel plots).

    ``px``: the waves, beyond-training and similarity plots' widths (one number for all three; 0 leaves a
    curve out; a drag step with no similarity plot leaves out its markers too)."""
    n, d = state.n_positions, state.d_model
    enc = (n, d, state.base, state.variant)
    lanes = tuple(sorted(set(state.pairs) | {state.pair}))
    span = n - 1
    waves_px, beyond_px, sim_px = (px, px, px) if isinstance(px, int) else px
    return (
        HeatmapRequest(*enc, rows=tuple(rows or (0, n)), cols=tuple(cols or (0, d)),
                       max_rows=int(heat_px[0]), max_cols=int(heat_px[1]), preview=preview, cmap=cmap),
        CurvesRequest(*enc, pairs=lanes, l_train=state.l_train, waves_range=tuple(waves_range or (0, n)),
                      waves_px=waves_px, beyond_px=beyond_px, sim_range=tuple(sim_range or (-span, span)),
                      sim_px=sim_px, preview=preview),
        PickRequest(*enc, position=state.position, offset=state.offset, pair=state.pair,
                    token_scale=state.token_scale, p1=state.p1, p2=state.p2, token_seed=state.token_seed,
                    preview=preview, markers=not preview or sim_px > 0),
        MatrixRequest(*enc, size=matrix_size(n, d, preview)),
    )


@job(WavesRequest)
def compute(request: WavesRequest) -> WavesResponse:
    h, c, p, m = requests_for(request.state, heat_px=(request.max_rows, request.max_cols),
                              preview=request.preview)
    return WavesResponse(request, compute_heatmap(h), compute_curves(c), compute_pick(p), compute_matrix(m))
