"""Schemes-panel jobs: every positional scheme side by side, at display resolution, exactly.

Position-only scores (content removed)
--------------------------------------
Every position gets the same content vector as query and key, q = k = c (``content="same"``: one
seeded c ~ N(0, I_d)), or the result is averaged over 16 such vectors (``"average"``).  What a
scheme adds to the attention logit is then

    ΔS[i, j] = score(i, j) − c·c/√d,

the logit with position minus the logit without it (NoPE: ΔS = 0 everywhere):

* sinusoidal, learned (added to the input): ((c + P_i)·(c + P_j) − c·c)/√d = (c·P_i + c·P_j + P_i·P_j)/√d;
* RoPE (rotates q and k): (R_i c · R_j c − c·c)/√d = (Re Σ_k |z_k|² e^{i(i−j)θ_k} − |c|²)/√d with
  z_k = c_{2k} + i c_{2k+1}; scaled RoPE uses the scaled θ'_k, and YaRN multiplies the rotated
  vectors by its attention factor a, so the first term gets a²;
* ALiBi (a bias on the logit): −m·(i − j) for j ≤ i and masked (NaN here) for j > i when causal,
  −m·|i − j| otherwise (Press et al. 2022).

Display resolution
------------------
Long contexts are shown as b × b blocks of positions, each cell the exact *mean* of ΔS over its
block (never a point sample, which would alias RoPE's fast pairs: pair 0 turns once every 2π
positions).  The means are closed forms: ΔS is bilinear in per-position vectors, so a block mean is
the same bilinear form of the block means of those vectors, and the block mean of e^{ipθ} over
p = a … a+n−1 is the Dirichlet kernel e^{iθ(a+(n−1)/2)}·sin(nθ/2)/(n sin(θ/2)).  ALiBi's block
means are arithmetic ((n−1)/3 on a causal diagonal block).  The learned table has no row for a
position ≥ L_train, so any cell that contains one is NaN ("no row"), never zero.

One request per view and scheme (keys ``schemes.<view>[.<scheme>]``), carrying only the
parameters that view depends on: dragging s recomputes the scaled-RoPE views and nothing else.
Each request also carries the panel state that made it (``state``, not compared), so a
drawn result can be traced to the slider step that asked for it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from ..encodings import (
    EncodingError,
    RopeScaling,
    alibi_slopes,
    inv_freq,
    llama3_band_edges,
    roformer_bound,
    scaled_inv_freq,
    yarn_attention_factor,
    yarn_correction_range,
    yarn_ramp,
)
from ..encodings.learned import LearnedTable
from ..encodings.sinusoidal import frequencies
from ..state.schemes import SCHEME_NAMES, SchemesState
from . import job

#: Cells per axis of the score matrices: about one screen pixel per cell in a 2 × 3 grid on a 1440-wide
#: window, so the display never has to thin the cells out again (the cells are exact block means).
MATRIX_CELLS = 256
#: Distances drawn in the score-vs-distance plot (every distance up to this many; a stride beyond).
CURVE_POINTS = 32768
#: Distances × pairs one curve may cost (d = 1024 gets 16,384 distances, d ≤ 512 the full CURVE_POINTS).
CURVE_BUDGET = 2**23
#: Query positions whose spread (min–max) is shaded for the absolute schemes.
BAND_QUERIES = 8
#: Distances at which the band is evaluated (its queries need the full rows at those keys).
BAND_POINTS = 2048
#: Random content vectors averaged when ``content == "average"``.
AVERAGE_VECTORS = 16
#: Largest learned table (L_train × d numbers) the live panel builds (128 MiB of float64).
LEARNED_LIVE_MAX = 2**24
#: Cells per axis of each head's tile in the ALiBi bias mosaic, and of the attention heatmap.
ALIBI_TILE_CELLS = 96
ALIBI_ATTENTION_CELLS = 256
#: Rows and columns of the learned-table preview in the beyond-training view.
TABLE_ROWS = 256
TABLE_COLS = 128
#: ALiBi bias colours saturate here: a key whose logit is 10 lower gets e^−10 ≈ 4.5·10⁻⁵ of the weight.
ALIBI_CLIP = 10.0
#: The "window" of an ALiBi head: the nearest keys that hold this share of the last query's weight.
WINDOW_SHARE = 0.9

#: Schemes whose ΔS grows without bound with distance (the others are bounded by content and d).
UNBOUNDED = ("alibi",)


# -- requests and responses ---------------------------------------------------------------------
@dataclass(frozen=True)
class MatrixRequest:
    """Position-only score matrix ΔS of one scheme at display resolution."""

    scheme: str
    l_eval: int
    head_dim: int = 2
    base: float = 10000.0
    l_train: int = 0
    content: str = "same"
    seed: int = 0
    causal: bool = True
    scaling: str = "none"
    factor: float = 1.0
    heads: int = 1
    alibi_head: int = 0
    max_cells: int = MATRIX_CELLS
    key: str = "schemes.matrix"
    state: SchemesState | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class MatrixResponse:
    request: MatrixRequest
    matrix: np.ndarray | None  # (n, n) float64 block means; NaN = no row / masked future
    block: int  # positions per cell along each axis
    cells: int  # n
    extent: float  # max |finite ΔS| (0 when none)
    note: str = ""  # why there is no matrix, when there is none


@dataclass(frozen=True)
class DistanceRequest:
    """ΔS against relative distance Δ = i − j ≥ 0 for one scheme (and RoFormer's bound for RoPE)."""

    scheme: str
    l_eval: int
    head_dim: int = 2
    base: float = 10000.0
    l_train: int = 0
    content: str = "same"
    seed: int = 0
    scaling: str = "none"
    factor: float = 1.0
    heads: int = 1
    alibi_head: int = 0
    max_points: int = CURVE_POINTS
    key: str = "schemes.distance"
    state: SchemesState | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class DistanceResponse:
    request: DistanceRequest
    distance: np.ndarray  # Δ values (every one, or a stride when there are too many)
    mean: np.ndarray  # mean of ΔS over all pairs (i, i − Δ), exact
    lo: np.ndarray | None  # band: min over BAND_QUERIES query positions (absolute schemes only)
    hi: np.ndarray | None
    band_distance: np.ndarray | None
    relative: bool  # True when ΔS depends on i − j only (the band would have zero width)
    bound: np.ndarray | None  # RoFormer's (1/(d/2))·Σ_j |S_j(Δ)| for (scaled) RoPE
    stride: int
    extent: float
    note: str = ""


@dataclass(frozen=True)
class BeyondRequest:
    """What happens past L_train: RoPE's per-pair turns and the learned table's missing rows."""

    head_dim: int
    base: float
    l_train: int
    l_eval: int
    seed: int = 0
    key: str = "schemes.beyond"
    state: SchemesState | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class BeyondResponse:
    request: BeyondRequest
    theta: np.ndarray  # θ_k = base^(−2k/d)
    wavelength: np.ndarray  # 2π/θ_k
    turns_train: np.ndarray  # (L_train − 1)·θ_k / 2π: turns the largest trained distance makes
    turns_eval: np.ndarray
    full_turn: np.ndarray  # bool: the pair has seen every angle inside L_train
    cover_train: np.ndarray  # share of the circle seen inside L_train, min(1, turns_train)
    cover_eval: np.ndarray  # share seen up to L_eval
    n_full: int
    n_new: int  # pairs that meet angles never seen in training when run to L_eval
    table: np.ndarray | None  # learned-table preview (rows × cols), NaN rows = no row
    table_rows: np.ndarray | None  # position of each preview row
    table_cols: np.ndarray | None  # dimension of each preview column
    table_note: str = ""


@dataclass(frozen=True)
class ScaledRequest:
    """How the chosen context-scaling method moves RoPE's per-pair frequencies."""

    head_dim: int
    base: float
    l_train: int
    scaling: str
    factor: float
    key: str = "schemes.scaled"
    state: SchemesState | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ScaledResponse:
    request: ScaledRequest
    theta: np.ndarray  # before
    theta_scaled: np.ndarray  # after
    wavelength: np.ndarray
    wavelength_scaled: np.ndarray
    weight: np.ndarray  # interpolation weight (1 − θ'/θ)/(1 − 1/s): 0 = kept, 1 = divided by s
    attention_factor: float
    ramp: np.ndarray | None  # YaRN only (equals ``weight``)
    correction_range: tuple[float, float] | None  # YaRN only: pair indices where the ramp runs
    band_edges: tuple[float, float] | None  # llama3 only: wavelengths L/high_freq, L/low_freq
    ntk_base: float | None  # NTK only: base·s^(d/(d−2))
    n_kept: int  # pairs left unchanged (weight 0)
    n_divided: int  # pairs divided by the full s (weight 1)


@dataclass(frozen=True)
class AlibiRequest:
    """ALiBi: slopes, per-head bias heatmaps, and the attention of one head (content removed)."""

    heads: int
    alibi_head: int
    l_eval: int
    causal: bool = True
    tile_cells: int = ALIBI_TILE_CELLS
    attention_cells: int = ALIBI_ATTENTION_CELLS
    max_points: int = CURVE_POINTS
    key: str = "schemes.alibi"
    state: SchemesState | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class AlibiResponse:
    request: AlibiRequest
    slopes: np.ndarray  # (H,)
    tiles: np.ndarray  # (H, t, t) block means of each head's bias; NaN = masked future
    tile_block: int
    attention: np.ndarray  # (n, n): share of each row's query attention in each key block
    attention_block: int
    attention_queries: np.ndarray  # the query position each attention row shows
    distance: np.ndarray  # Δ for the profiles
    profiles: np.ndarray  # (H, len(distance)): weight of key at distance Δ for the last query
    windows: np.ndarray  # (H,) nearest keys holding WINDOW_SHARE of the last query's weight
    stride: int


@dataclass(frozen=True)
class PropertiesRequest:
    """The properties table: the numbers in it depend on d, L_train, L_eval and the scaling."""

    schemes: tuple
    head_dim: int
    base: float
    l_train: int
    l_eval: int
    heads: int
    scaling: str
    factor: float
    key: str = "schemes.properties"
    state: SchemesState | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class PropertiesResponse:
    request: PropertiesRequest
    columns: tuple
    rows: tuple  # one tuple of cell texts per scheme
    parameters: dict = field(default_factory=dict)  # scheme -> parameters added (int)


# -- requests from the panel's state --------------------------------------------------------------
def scaling_of(state_or_req) -> RopeScaling:
    """The :class:`RopeScaling` of the scaled-RoPE column: the trained context L_train is L_orig."""
    return RopeScaling(state_or_req.scaling, state_or_req.factor, original_max_positions=state_or_req.l_train)


#: The state fields each scheme's matrix and curve depend on (the rest keep their defaults, so that a
#: change of an unrelated control leaves the request equal and nothing is recomputed).
DEPENDS_ON = {
    "sinusoidal": ("head_dim", "base", "content", "seed"),
    "learned": ("head_dim", "l_train", "content", "seed"),
    "rope": ("head_dim", "base", "content", "seed"),
    "scaled_rope": ("head_dim", "base", "l_train", "content", "seed", "scaling", "factor"),
    "alibi": ("heads", "alibi_head", "causal"),
    "nope": (),
}


def _scheme_params(st: SchemesState, scheme: str, *, matrix: bool) -> dict:
    names = [n for n in DEPENDS_ON[scheme] if matrix or n != "causal"]
    return {"scheme": scheme, "l_eval": st.l_eval, **{n: getattr(st, n) for n in names}}


def build_requests(st: SchemesState, view: str | None = None) -> list:
    """The requests of ``view`` (default: the state's current view), one key per plot."""
    view = view or st.view
    if view == "matrices":
        return [MatrixRequest(key=f"schemes.matrix.{s}", state=st, **_scheme_params(st, s, matrix=True))
                for s in st.schemes]
    if view == "distance":
        return [DistanceRequest(key=f"schemes.distance.{s}", state=st, **_scheme_params(st, s, matrix=False))
                for s in st.schemes]
    if view == "beyond":
        return [BeyondRequest(st.head_dim, st.base, st.l_train, st.l_eval, st.seed, state=st),
                ScaledRequest(st.head_dim, st.base, st.l_train, st.scaling, st.factor, state=st)]
    if view == "alibi":
        return [AlibiRequest(st.heads, st.alibi_head, st.l_eval, st.causal, state=st)]
    if view == "properties":
        return [PropertiesRequest(st.schemes, st.head_dim, st.base, st.l_train, st.l_eval, st.heads,
                                  st.scaling, st.factor, state=st)]
    raise EncodingError(f"unknown view {view!r}")


# -- shared helpers -------------------------------------------------------------------------------
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


def content_vectors(head_dim: int, content: str, seed: int) -> np.ndarray:
    """The seeded content vectors c ~ N(0, I_d): one for ``"same"``, 16 for ``"average"``."""
    count = 1 if content == "same" else AVERAGE_VECTORS
    return np.random.default_rng(seed).standard_normal((count, head_dim))


def pair_energy(c: np.ndarray) -> np.ndarray:
    """h_k = mean over content vectors of |z_k|², z_k = c_{2k} + i c_{2k+1}; Σ_k h_k = mean |c|²."""
    return np.mean(c[:, 0::2] ** 2 + c[:, 1::2] ** 2, axis=0)


def rope_freqs(req) -> tuple[np.ndarray, float]:
    """(θ, attention factor) of the request's column: plain RoPE or the scaled one."""
    if req.scheme == "scaled_rope":
        return scaled_inv_freq(req.head_dim, req.base, scaling_of(req))
    return inv_freq(req.head_dim, req.base), 1.0


@functools.lru_cache(maxsize=2)
def _learned(l_train: int, head_dim: int, seed: int) -> LearnedTable:
    # Cached: the table is the same for every request with these three numbers.
    return LearnedTable(l_train, head_dim, seed)


def learned_too_large(l_train: int, head_dim: int) -> str:
    """Why the live panel does not build this learned table ("" when it does)."""
    if l_train * head_dim > LEARNED_LIVE_MAX:
        return (f"learned table L_train × d = {l_train} × {head_dim} = {l_train * head_dim:,} numbers is "
                f"more than the live view builds ({LEARNED_LIVE_MAX:,}); lower L_train or d")
    return ""


def sample_indices(n: int, max_count: int) -> np.ndarray:
    """At most ``max_count`` evenly spaced indices of 0 … n − 1 (all of them when n ≤ max_count)."""
    if n <= max_count:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, max_count).round().astype(np.int64))


def _extent(m: np.ndarray) -> float:
    finite = m[np.isfinite(m)]
    return float(np.abs(finite).max()) if finite.size else 0.0


# -- view 1: position-only score matrices ---------------------------------------------------------
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


def _additive_block_means(pbar: np.ndarray, cbar: np.ndarray, d: int) -> np.ndarray:
    u = pbar @ cbar
    return (u[:, None] + u[None, :] + pbar @ pbar.T) / math.sqrt(d)


def sinusoidal_block_rows(bl: Blocks, head_dim: int, base: float) -> np.ndarray:
    """Block means of the paper-layout sinusoidal rows (sin in even columns, cos in odd)."""
    z = block_phasors(bl, frequencies(head_dim, base, "paper"))
    out = np.empty((bl.n, head_dim))
    out[:, 0::2] = z.imag
    out[:, 1::2] = z.real
    return out


def matrix_scores(req: MatrixRequest) -> MatrixResponse:
    """ΔS of one scheme as block means over ≤ ``max_cells`` × ``max_cells`` cells (see the module docstring).

    Exact for every cell: RoPE and sinusoidal via block phasors (Dirichlet kernel), learned via block
    means of its rows, ALiBi arithmetically.  A learned cell containing a position ≥ L_train is NaN.
    """
    bl = blocks(req.l_eval, req.max_cells)
    d = req.head_dim
    if req.scheme == "nope":
        m = np.zeros((bl.n, bl.n))
    elif req.scheme == "alibi":
        m = alibi_block_means(float(alibi_slopes(req.heads)[req.alibi_head]), bl, req.causal)
    elif req.scheme in ("rope", "scaled_rope"):
        c = content_vectors(d, req.content, req.seed)
        h = pair_energy(c)
        freq, att = rope_freqs(req)
        z = block_phasors(bl, freq)
        m = (att**2 * np.real((z * h) @ z.conj().T) - h.sum()) / math.sqrt(d)
    elif req.scheme == "sinusoidal":
        c = content_vectors(d, req.content, req.seed)
        m = _additive_block_means(sinusoidal_block_rows(bl, d, req.base), c.mean(axis=0), d)
    elif req.scheme == "learned":
        why = learned_too_large(req.l_train, d)
        if why:
            return MatrixResponse(req, None, bl.size, bl.n, 0.0, why)
        c = content_vectors(d, req.content, req.seed)
        valid = bl.starts + bl.counts <= req.l_train  # a block with any position ≥ L_train has no row
        m = np.full((bl.n, bl.n), np.nan)
        if valid.any():
            last = int(bl.starts[valid][-1] + bl.counts[valid][-1])
            rows = _learned(req.l_train, d, req.seed).lookup(np.arange(last))
            pbar = np.add.reduceat(rows, bl.starts[valid], axis=0) / bl.counts[valid][:, None]
            k = int(valid.sum())
            m[:k, :k] = _additive_block_means(pbar, c.mean(axis=0), d)
    else:
        raise EncodingError(f"unknown scheme {req.scheme!r}; valid: {', '.join(SCHEME_NAMES)}")
    return MatrixResponse(req, m, bl.size, bl.n, _extent(m))


@job(MatrixRequest)
def compute_matrix(request: MatrixRequest) -> MatrixResponse:
    return matrix_scores(request)


def shared_levels(extents: dict[str, float]) -> tuple[float, tuple[str, ...]]:
    """The one colour scale ±K of all score-matrix columns, and the columns it clips.

    K is the largest |ΔS| of the bounded schemes shown (sinusoidal, learned, RoPE, scaled RoPE: their
    scores are set by the content and d).  ALiBi's bias has no bound (−m·(i − j) keeps falling), so it
    is clipped at −K rather than allowed to wash every other column out; if no bounded scheme is
    shown, K is ALiBi's own range.  K = 1 when everything is zero (NoPE alone).
    """
    bounded = [v for s, v in extents.items() if s not in UNBOUNDED and v > 0]
    if bounded:
        k = max(bounded)
    else:
        k = max([v for v in extents.values() if v > 0], default=1.0)
    clipped = tuple(s for s, v in extents.items() if v > k * (1 + 1e-12))
    return float(k), clipped


# -- view 2: score against relative distance ------------------------------------------------------
def distance_grid(n: int, max_points: int) -> tuple[np.ndarray, int]:
    """Every distance 0 … n−1, or every ``stride``-th one when there are more than ``max_points``."""
    stride = max(1, -(-n // max_points))
    return np.arange(0, n, stride, dtype=np.int64), stride


def _chunks(n: int, size: int = 4096):
    for a in range(0, n, size):
        yield slice(a, min(n, a + size))


def rope_curve(dist: np.ndarray, h: np.ndarray, freq: np.ndarray, att: float, d: int) -> np.ndarray:
    """ΔS(Δ) = (a²·Σ_k h_k cos(Δθ_k) − Σ_k h_k)/√d, exact at every Δ given."""
    out = np.empty(dist.size)
    for sl in _chunks(dist.size):
        out[sl] = np.cos(np.multiply.outer(dist[sl].astype(np.float64), freq)) @ h
    return (att**2 * out - h.sum()) / math.sqrt(d)


def _sinusoidal_rows(pos: np.ndarray, omega: np.ndarray) -> np.ndarray:
    ang = np.multiply.outer(pos.astype(np.float64), omega)
    out = np.empty((pos.size, 2 * omega.size))
    out[:, 0::2] = np.sin(ang)
    out[:, 1::2] = np.cos(ang)
    return out


def band_queries(n: int) -> np.ndarray:
    """The query positions whose spread is shaded: evenly spaced over the second half … n − 1."""
    return np.unique(np.linspace(n // 2, n - 1, BAND_QUERIES).round().astype(np.int64))


def _band(dist: np.ndarray, queries: np.ndarray, score) -> tuple[np.ndarray, np.ndarray]:
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


def distance_scores(req: DistanceRequest) -> DistanceResponse:
    """ΔS against Δ = i − j ≥ 0: the exact mean over all pairs (i, i − Δ) inside 0 … L_eval − 1.

    Relative schemes (RoPE, scaled RoPE, ALiBi, NoPE) are a function of Δ alone; for the absolute ones
    (sinusoidal, learned) the band gives min and max over :data:`BAND_QUERIES` query positions.  For
    (scaled) RoPE the response also holds RoFormer's bound (1/(d/2))·Σ_j |S_j(Δ)|.
    """
    d = req.head_dim
    n = req.l_eval
    if req.scheme == "learned":
        why = learned_too_large(req.l_train, d)
        if why:
            empty = np.zeros(0)
            return DistanceResponse(req, empty, empty, None, None, None, False, None, 1, 0.0, why)
        n = min(req.l_train, req.l_eval)  # no rows past L_train: no pairs to average
    # Every distance up to max_points, fewer for wide heads (a distance costs d/2 terms).
    dist, stride = distance_grid(n, min(req.max_points, max(4096, CURVE_BUDGET // max(1, d // 2))))
    lo = hi = band_d = bound = None
    relative = True
    if req.scheme == "nope":
        mean = np.zeros(dist.size)
    elif req.scheme == "alibi":
        mean = -float(alibi_slopes(req.heads)[req.alibi_head]) * dist + 0.0
    elif req.scheme in ("rope", "scaled_rope"):
        c = content_vectors(d, req.content, req.seed)
        freq, att = rope_freqs(req)
        mean = rope_curve(dist, pair_energy(c), freq, att, d)
        scaling = scaling_of(req) if req.scheme == "scaled_rope" else None
        bound = np.concatenate([roformer_bound(dist[sl], d, req.base, scaling) for sl in _chunks(dist.size)])
    else:
        relative = False
        cbar = content_vectors(d, req.content, req.seed).mean(axis=0)
        queries = band_queries(n)
        band_d, _ = distance_grid(n, min(req.max_points, BAND_POINTS))
        if req.scheme == "sinusoidal":
            omega = frequencies(d, req.base, "paper")
            # u_p = c̄·P_p = Re Σ_k w_k e^{ipω_k}, w_k = c̄_{2k+1} − i c̄_{2k}.  The sums over the pairs at
            # distance Δ are geometric:  Σ_{p=Δ}^{n−1} + Σ_{p=0}^{n−1−Δ} e^{ipω}
            #   = (e^{iΔω} − e^{inω} + 1 − e^{inω}·e^{−iΔω}) / (1 − e^{iω}),
            # and P_i·P_{i−Δ} = Σ_k cos(Δω_k) = Re Σ_k e^{iΔω_k}: one table e^{iΔω_k} serves both.
            w = (cbar[1::2] - 1j * cbar[0::2]) / (1.0 - np.exp(1j * omega))
            end = np.exp(1j * n * omega)
            cross = np.empty(dist.size)
            g = np.empty(dist.size)
            for sl in _chunks(dist.size):
                e = np.exp(1j * np.multiply.outer(dist[sl].astype(np.float64), omega))
                cross[sl] = np.real((e - end + 1.0 - end * e.conj()) @ w)
                g[sl] = e.real.sum(axis=1)
            mean = (cross / (n - dist) + g) / math.sqrt(d)

            def score(q, keys):
                pq = _sinusoidal_rows(np.array([q]), omega)[0]
                pk = _sinusoidal_rows(keys, omega)
                return (pq @ cbar + pk @ cbar + pk @ pq) / math.sqrt(d)
        else:  # learned: exact mean via the table's autocorrelation along positions (FFT)
            table = _learned(req.l_train, d, req.seed).lookup(np.arange(n))
            f = np.fft.rfft(table, n=2 * n, axis=0)
            auto = np.fft.irfft((f * f.conj()).real.sum(axis=1), n=2 * n)[:n]  # Σ_i P_i·P_{i−Δ}
            u = table @ cbar
            cu = np.concatenate([[0.0], np.cumsum(u)])
            cross = (cu[n] - cu[dist]) + cu[n - dist]
            mean = ((cross + auto[dist]) / (n - dist)) / math.sqrt(d)

            def score(q, keys):
                return (u[q] + u[keys] + table[keys] @ table[q]) / math.sqrt(d)

        lo, hi = _band(band_d, queries, score)
    extent = max([_extent(mean)] + [_extent(b) for b in (lo, hi) if b is not None])
    return DistanceResponse(req, dist, mean, lo, hi, band_d, relative, bound, stride, extent)


@job(DistanceRequest)
def compute_distance(request: DistanceRequest) -> DistanceResponse:
    return distance_scores(request)


# -- view 3: beyond training ----------------------------------------------------------------------
def beyond(req: BeyondRequest) -> BeyondResponse:
    """RoPE's per-pair turns inside L_train and up to L_eval, and a preview of the learned table.

    Positions are 0 … L − 1, so the largest trained angle of pair k is (L_train − 1)·θ_k: the pair has
    turned fully (seen every angle) iff (L_train − 1)·θ_k ≥ 2π, i.e. its wavelength is ≤ L_train − 1.
    """
    theta = inv_freq(req.head_dim, req.base)
    lam = 2 * np.pi / theta
    # Positions 0 … L−1: the largest distance (and angle) seen is (L − 1)·θ_k.
    turns_train = (req.l_train - 1) * theta / (2 * np.pi)
    turns_eval = (req.l_eval - 1) * theta / (2 * np.pi)
    full = turns_train >= 1.0
    cover_train = np.minimum(1.0, turns_train)
    cover_eval = np.minimum(1.0, turns_eval)
    table = rows = cols = None
    note = learned_too_large(req.l_train, req.head_dim)
    if not note:
        rows = sample_indices(req.l_eval, TABLE_ROWS)
        cols = sample_indices(req.head_dim, TABLE_COLS)
        table = np.full((rows.size, cols.size), np.nan)
        has = rows < req.l_train
        if has.any():
            table[has] = _learned(req.l_train, req.head_dim, req.seed).lookup(rows[has])[:, cols]
    return BeyondResponse(
        req, theta, lam, turns_train, turns_eval, full, cover_train, cover_eval,
        int(full.sum()), int(np.sum(cover_eval > cover_train)), table, rows, cols, note,
    )


@job(BeyondRequest)
def compute_beyond(request: BeyondRequest) -> BeyondResponse:
    return beyond(request)


def interpolation_weight(theta: np.ndarray, theta_scaled: np.ndarray, factor: float) -> np.ndarray:
    """w_k = (1 − θ'_k/θ_k)/(1 − 1/s): 0 keeps pair k (extrapolates), 1 divides it by the full s.

    linear: 1 for every pair; YaRN: its ramp; llama3: 1 − its smooth blend; NTK: 0 at pair 0, rising
    to exactly 1 at the last pair (θ'_{d/2−1}/θ_{d/2−1} = s^{−1}).
    """
    if factor <= 1.0:
        return np.zeros_like(theta)
    return (1.0 - theta_scaled / theta) / (1.0 - 1.0 / factor)


def scaled(req: ScaledRequest) -> ScaledResponse:
    """Per-pair θ before and after the scaling method (L_orig = L_train), with the method's own numbers:
    YaRN's ramp, correction range and attention factor; llama3's band edges; NTK's new base."""
    sc = scaling_of(req)
    theta = inv_freq(req.head_dim, req.base)
    theta_s, att = scaled_inv_freq(req.head_dim, req.base, sc)
    w = interpolation_weight(theta, theta_s, req.factor)
    ramp = corr = edges = ntk = None
    if req.scaling == "yarn":
        ramp = yarn_ramp(req.head_dim, req.base, sc)
        corr = yarn_correction_range(req.head_dim, req.base, sc)
    elif req.scaling == "llama3":
        edges = llama3_band_edges(sc)
    elif req.scaling == "ntk":
        ntk = req.base * req.factor ** (req.head_dim / (req.head_dim - 2))
    tol = 1e-12
    return ScaledResponse(
        req, theta, theta_s, 2 * np.pi / theta, 2 * np.pi / theta_s, w, float(att), ramp, corr, edges, ntk,
        int(np.sum(np.abs(w) <= tol)), int(np.sum(np.abs(w - 1.0) <= tol)) if req.factor > 1 else 0,
    )


@job(ScaledRequest)
def compute_scaled(request: ScaledRequest) -> ScaledResponse:
    return scaled(request)


# -- view 4: ALiBi ---------------------------------------------------------------------------------
def alibi_attention_blocks(slope: float, n: int, keys: Blocks, queries: np.ndarray,
                           causal: bool) -> np.ndarray:
    """Share of query i's attention in each key block, for softmax_j(−m·(i − j)) with content removed.

    Causal: keys j ≤ i, Σ_{j=s}^{t} e^{−m(i−j)} = e^{−m(i−t)}·(1 − e^{−m(t−s+1)})/(1 − e^{−m});
    symmetric: −m·|i − j| over all n keys.  Exact; NaN marks a key block wholly in the future.
    """
    m = float(slope)
    i = queries.astype(np.float64)[:, None]
    s = keys.starts.astype(np.float64)[None, :]
    e = (keys.starts + keys.counts - 1).astype(np.float64)[None, :]

    def left(a, b):  # Σ_{j=a}^{b} e^{−m(i−j)} · (1 − e^{−m}), for a ≤ b ≤ i (0 where b < a)
        with np.errstate(invalid="ignore", over="ignore"):
            v = np.exp(-m * (i - b)) * -np.expm1(-m * (b - a + 1))
        return np.where(b >= a, v, 0.0)

    def right(a, b):  # Σ_{j=a}^{b} e^{−m(j−i)} · (1 − e^{−m}), for i < a ≤ b
        with np.errstate(invalid="ignore", over="ignore"):
            v = np.exp(-m * (a - i)) * -np.expm1(-m * (b - a + 1))
        return np.where(b >= a, v, 0.0)

    mass = left(s, np.minimum(e, i))
    z = -np.expm1(-m * (i + 1))  # keys 0 … i
    if causal:
        out = mass / z
        out[np.broadcast_to(s > i, out.shape)] = np.nan
        return out
    mass = mass + right(np.maximum(s, i + 1), e)
    z = z + right(i + 1, np.full_like(i, n - 1.0))
    return mass / z


def alibi_profiles(slopes: np.ndarray, n: int, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The last query's weights w(Δ) = e^{−mΔ}(1 − e^{−m})/(1 − e^{−mn}) (Δ = 0 … n−1; causal and
    symmetric agree: the last query has no future), and each head's window: the fewest nearest keys
    holding ``WINDOW_SHARE`` of its weight, k = ⌈−ln(1 − share·(1 − e^{−mn}))/m⌉."""
    m = slopes[:, None]
    z = -np.expm1(-m * n)
    prof = np.exp(-m * dist[None, :]) * -np.expm1(-m) / z
    k = np.ceil(-np.log1p(-WINDOW_SHARE * z[:, 0]) / slopes - 1e-9)
    return prof, np.minimum(k, n)


def alibi_view(req: AlibiRequest) -> AlibiResponse:
    """Slopes, each head's bias as block means, the chosen head's attention and every head's profile."""
    slopes = alibi_slopes(req.heads)
    tb = blocks(req.l_eval, req.tile_cells)
    tiles = np.stack([alibi_block_means(float(m), tb, req.causal) for m in slopes])
    ab = blocks(req.l_eval, req.attention_cells)
    queries = ab.starts + ab.counts - 1  # each row: the query at the end of its block
    att = alibi_attention_blocks(float(slopes[req.alibi_head]), req.l_eval, ab, queries, req.causal)
    dist, stride = distance_grid(req.l_eval, req.max_points)
    prof, windows = alibi_profiles(slopes, req.l_eval, dist)
    return AlibiResponse(req, slopes, tiles, tb.size, att, ab.size, queries, dist, prof, windows, stride)


@job(AlibiRequest)
def compute_alibi(request: AlibiRequest) -> AlibiResponse:
    return alibi_view(request)


# -- view 5: properties ----------------------------------------------------------------------------
PROPERTY_COLUMNS = ("Scheme", "Where position enters", "Parameters added", "Absolute or relative",
                    "Past L_train", "Used by (source)")

TITLES = {"sinusoidal": "Sinusoidal", "learned": "Learned", "rope": "RoPE", "alibi": "ALiBi", "nope": "NoPE",
          "scaled_rope": "Scaled RoPE"}

METHOD_TITLES = {"linear": "linear (position interpolation)", "ntk": "NTK-aware", "yarn": "YaRN",
                 "llama3": "llama3"}

#: Who uses each scheme, with the source of the scheme and of each model.
USED_BY = {
    "sinusoidal": "the original Transformer (Vaswani et al. 2017, “Attention Is All You Need”, NeurIPS)",
    "learned": "GPT-2 (Radford et al. 2019) and BERT (Devlin et al. 2019, NAACL)",
    "rope": "Llama (Touvron et al. 2023) and Mistral 7B (Jiang et al. 2023); "
            "scheme: RoFormer (Su et al. 2021)",
    "alibi": "BLOOM (BigScience 2022, arXiv 2211.05100) and MPT (MosaicML 2023); scheme: Press, Smith & "
             "Lewis 2022 (ICLR)",
    "nope": "no major model alone; Llama 4 interleaves NoPE layers with RoPE layers (Meta 2025); "
            "Kazemnejad et al. 2023 (NeurIPS)",
}
USED_BY_SCALED = {
    "linear": "Position Interpolation (Chen et al. 2023, arXiv 2306.15595): LLaMA to 32k; SuperHOT (2023)",
    "ntk": "bloc97 2023 (“NTK-aware scaled RoPE”, r/LocalLLaMA); a dynamic variant in Qwen (Bai et al. 2023)",
    "yarn": "YaRN (Peng et al. 2023, ICLR 2024): Qwen2.5 to 128k, DeepSeek-V2 and -V3",
    "llama3": "Llama 3.1 (Meta 2024, “The Llama 3 Herd of Models”): s = 8, L_orig = 8192, factors 1 and 4",
}
#: Real learned tables for scale: (model, L_train, d_model) -> L_train·d_model numbers.
MODEL_TABLES = (("GPT-2", 1024, 768), ("BERT-base", 512, 768))


def model_tables_text() -> str:
    """'GPT-2 1,024 × 768 = 786,432; BERT-base 512 × 768 = 393,216' (computed, not typed)."""
    return "; ".join(f"{name} {lt:,} × {dm:,} = {lt * dm:,}" for name, lt, dm in MODEL_TABLES)


def parameters_added(scheme: str, head_dim: int, l_train: int) -> int:
    """Trainable numbers the scheme adds to a head of width d trained to L: learned L·d, others 0."""
    return l_train * head_dim if scheme == "learned" else 0


def properties(req: PropertiesRequest) -> PropertiesResponse:
    """The properties table for the shown schemes, with this configuration's numbers in it."""
    d, lt, le = req.head_dim, req.l_train, req.l_eval
    b = beyond_numbers(BeyondRequest(d, req.base, lt, le))
    sr = scaled(ScaledRequest(d, req.base, lt, req.scaling, req.factor))
    slopes = alibi_slopes(req.heads)
    _, windows = alibi_profiles(slopes, le, np.zeros(1))
    params = {s: parameters_added(s, d, lt) for s in req.schemes}
    method = METHOD_TITLES[req.scaling]
    scaled_past = (f"{method}, s = {req.factor:g}: trained to {lt:,}, meant for about s·L_train = "
                   f"{int(round(req.factor * lt)):,}; {sr.n_kept} of {d // 2} pairs kept, "
                   f"{sr.n_divided} divided by s, the rest blended")
    if req.scaling == "yarn":
        a = sr.attention_factor
        scaled_past += f"; logits × {a ** 2:.3f} (attention factor {a:.3f})"
    text = {
        "sinusoidal": ("added to the input (token embedding), once, before layer 1",
                       "absolute (an offset acts as a fixed rotation of each pair)",
                       "defined for every position, but the model never trained on the new angle "
                       "combinations"),
        "learned": ("added to the input: one trained table row per position",
                    "absolute",
                    f"no row for positions ≥ {lt:,}: the model cannot run past L_train at all"),
        "rope": ("rotates q and k in every attention layer: pair k by the angle p·θₖ",
                 "relative: qₘ·kₙ depends on m − n only",
                 f"defined everywhere; {b[0]} of {d // 2} pairs turn fully inside L_train, the other "
                 f"{d // 2 - b[0]} meet angles never seen in training (up to L_eval = {le:,})"),
        "alibi": ("a bias −mₕ·(i − j) on each head's scores (no vectors)",
                  "relative",
                  f"the same linear bias at any length (made to extrapolate); heads keep "
                  f"{int(WINDOW_SHARE * 100)}% of the last query's weight within the nearest "
                  f"{int(windows.min()):,} … {int(windows.max()):,} keys"),
        "nope": ("nowhere: only the causal mask reveals order",
                 "neither: without a causal mask attention cannot tell order at all",
                 "nothing positional to break; length generalisation is studied by Kazemnejad et al. 2023"),
        "scaled_rope": ("rotates q and k like RoPE, with rescaled angles θ′ₖ",
                        "relative (like RoPE)",
                        scaled_past),
    }
    rows = []
    for s in req.schemes:
        where, kind, past = text[s]
        if s == "learned":
            count = f"L_train × d = {lt:,} × {d} = {params[s]:,}"
        else:
            count = "0 (nothing trained)"
        used = USED_BY_SCALED[req.scaling] if s == "scaled_rope" else USED_BY[s]
        title = TITLES[s] if s != "scaled_rope" else f"Scaled RoPE ({method})"
        rows.append((title, where, count, kind, past, used))
    return PropertiesResponse(req, PROPERTY_COLUMNS, tuple(rows), params)


def beyond_numbers(req: BeyondRequest) -> tuple[int, int]:
    """(pairs that turn fully inside L_train, pairs that meet new angles by L_eval) — cheap, no table."""
    theta = inv_freq(req.head_dim, req.base)
    tt = (req.l_train - 1) * theta / (2 * np.pi)
    te = (req.l_eval - 1) * theta / (2 * np.pi)
    return int(np.sum(tt >= 1.0)), int(np.sum(np.minimum(1.0, te) > np.minimum(1.0, tt)))


@job(PropertiesRequest)
def compute_properties(request: PropertiesRequest) -> PropertiesResponse:
    return properties(request)


# -- formula strip ---------------------------------------------------------------------------------
def _num(x: float) -> str:
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e4:
        return f"{x:.4g}"
    if 1e4 <= abs(x) < 1e9:
        return f"{x:,.0f}"
    mant, exp = f"{x:.3e}".split("e")
    return f"{float(mant):.3g}·10<sup>{int(exp)}</sup>"


def formula_html(st: SchemesState) -> str:
    """The panel's formulas with the current numbers (rich text for the formula strip)."""
    d = st.head_dim
    th = inv_freq(d, st.base)
    lines = [
        f"<b>RoPE</b>: q<sub>m</sub>·k<sub>n</sub> = Re Σ<sub>i</sub> q<sub>i</sub> k̄<sub>i</sub> "
        f"e<sup>i(m−n)θ<sub>i</sub></sup>, θ<sub>i</sub> = {st.base:g}<sup>−2i/{d}</sup> = "
        + ", ".join(_num(t) for t in th[:3]) + (f", …, {_num(th[-1])}" if th.size > 3 else "")
        + f" (i = 0 … {d // 2 - 1})"
    ]
    s = st.factor
    lt = st.l_train
    if st.scaling == "linear":
        sc = f"θ′<sub>i</sub> = θ<sub>i</sub>/s = θ<sub>i</sub>/{s:g} (positions ÷ {s:g})"
    elif st.scaling == "ntk":
        nb = st.base * s ** (d / (d - 2)) if d > 2 else float("inf")
        sc = (f"base′ = base·s<sup>d/(d−2)</sup> = {st.base:g}·{s:g}<sup>{d}/{d - 2}</sup> = {_num(nb)}, "
              f"θ′<sub>i</sub> = base′<sup>−2i/d</sup>")
    elif st.scaling == "yarn":
        lo, hi = yarn_correction_range(d, st.base, RopeScaling("yarn", s, lt))
        sc = (f"θ′<sub>i</sub> = θ<sub>i</sub>·((1 − r<sub>i</sub>) + r<sub>i</sub>/{s:g}), "
              f"ramp r<sub>i</sub> from 0 at pair {lo:g} to 1 at pair {hi:g} (β<sub>fast</sub> 32, "
              f"β<sub>slow</sub> 1, L<sub>orig</sub> = {lt}); cos, sin × (0.1 ln s + 1) = "
              f"{yarn_attention_factor(s):.4f}")
    else:
        hi_w, lo_w = llama3_band_edges(RopeScaling("llama3", s, lt))
        sc = (f"wavelength λ<sub>i</sub> = 2π/θ<sub>i</sub>: λ &gt; {lo_w:g} → θ<sub>i</sub>/{s:g}; "
              f"λ &lt; {hi_w:g} → θ<sub>i</sub> kept; between: smooth blend (L<sub>orig</sub> = {lt})")
    lines.append(f"<b>Scaled RoPE, {METHOD_TITLES[st.scaling]}, s = {s:g}</b>: {sc}")
    if st.view == "alibi" or (st.show_alibi and st.view in ("matrices", "distance")):
        m = alibi_slopes(st.heads)
        lines.append(f"<b>ALiBi</b>: score + (−m<sub>h</sub>·(i − j)), head {st.alibi_head}: "
                     f"m = {_num(float(m[st.alibi_head]))} ({st.heads} heads: "
                     f"{_num(float(m[0]))} … {_num(float(m[-1]))})")
    return "<br>".join(lines)
