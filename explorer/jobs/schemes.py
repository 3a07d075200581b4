"""Schemes-panel jobs: every positional scheme side by side, at display resolution, exactly.

Position-only scores (content removed)
--------------------------------------
Every position gets the same content vector as query and key, q = k = c (``content="same"``: one
seeded c ~ N(0, I_d)), or the result is averaged over 16 such vectors (``"average"``).  What a
scheme adds to the attention logit is then

    ΔS[i, j] = score(i, j) − c·c/√d,

the logit with position minus the logit without it (NoPE: ΔS = 0 everywhere).  Each scheme's module in
:mod:`explorer.schemes` computes its own ΔS (``score_blocks``, ``distance_curve``) with the formula and
source in its docstring; these jobs only build the display grid and call the registry.

Display resolution
------------------
Long contexts are shown as b × b blocks of positions, each cell the exact *mean* of ΔS over its block
(see :mod:`explorer.encodings.blocks`), never a point sample.

One request per view and scheme (keys ``schemes.<view>[.<scheme>]``), carrying only the parameters that
view depends on (the scheme's ``depends_on``): dragging s recomputes the scaled-RoPE views and nothing else.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import schemes as registry
from ..encodings import (
    EncodingError,
    inv_freq,
    llama3_band_edges,
    scaled_inv_freq,
    yarn_correction_range,
    yarn_ramp,
)
from ..encodings.blocks import blocks, extent, float32_phasors, sample_indices
from ..encodings.sinusoidal import completes_cycle
from ..schemes import NotShown, PlotSpec
from ..schemes.learned import real_rows, row_limit, rows_of, table_name, too_large_for
from ..schemes.query import Query
from ..schemes.scaled_rope import METHOD_TITLES, interpolation_weight, scaling_of
from . import job
from .grid import GridRequest, grid_ids
from .real_tables import resolved, table_note

#: Cells per axis of the score matrices: about one screen pixel per cell in a 2 × 3 grid on a 1440-wide
#: window, so the display never has to thin the cells out again (the cells are exact block means).
MATRIX_CELLS = 256
#: Distances drawn in the score-vs-distance plot (every distance up to this many; a stride beyond).
CURVE_POINTS = 32768
#: Rows and columns of the learned-table preview in the beyond-training view.
TABLE_ROWS = 256
TABLE_COLS = 128


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
    params: tuple = ()  # the scheme's own parameters, (name, value) pairs
    trained: tuple = ()  # the Lab's trained weights of this scheme (``uses_lab_weights`` schemes), or ()
    #: A real position table (:class:`explorer.jobs.table.TableSource`, small: a file's path or the Lab's rows)
    #: for a scheme that takes one (:attr:`~explorer.schemes.Scheme.uses_table`); None: its own.
    table: Any = None
    max_cells: int = MATRIX_CELLS
    #: A drag step's (a slider held): the block phasors in float32 (:func:`~explorer.encodings.blocks.float32_phasors`);
    #: letting go asks again without it.
    preview: bool = False
    key: str = "schemes.matrix"


@dataclass(frozen=True)
class MatrixResponse:
    request: MatrixRequest
    matrix: np.ndarray | None  # (n, n) float64 block means; NaN = no row / masked future
    block: int  # positions per cell along each axis
    cells: int  # n
    extent: float  # max |finite ΔS| (0 when none)
    note: str = ""  # why there is no matrix, when there is none
    marks: tuple = ()  # (Δ, label): diagonals i − j = Δ the scheme marks (Shaw's clipping distance)
    title: str = ""  # the plot's title when the scheme gives one for this request ("": its title)
    missing: str = ""  # text over the cells past what the scheme can encode ("no row for p ≥ M")
    table_note: str = ""  # whose rows it drew, when a real table (see :func:`.real_tables.table_note`)


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
    causal: bool = True
    scaling: str = "none"
    factor: float = 1.0
    heads: int = 1
    alibi_head: int = 0
    params: tuple = ()
    trained: tuple = ()
    table: Any = None  # as in MatrixRequest
    max_points: int = CURVE_POINTS
    key: str = "schemes.distance"


@dataclass(frozen=True)
class DistanceResponse:
    request: DistanceRequest
    distance: np.ndarray  # Δ values (every one, or a stride when there are too many)
    mean: np.ndarray  # mean of ΔS over all pairs (i, i − Δ), exact
    lo: np.ndarray | None  # band: min over BAND_QUERIES query positions (absolute schemes only)
    hi: np.ndarray | None
    band_distance: np.ndarray | None
    relative: bool  # True when ΔS depends on i − j only (the band would have zero width)
    bound: np.ndarray | None  # RoFormer's (1/(d/2))·Σ_j |S_j(Δ)| for rotary schemes
    stride: int
    extent: float
    note: str = ""
    marks: tuple = ()  # (Δ, label): vertical marks the scheme asks for (bucket edges, …)
    terms: tuple = ()  # (name, values at ``distance``): the score's parts drawn apart (Transformer-XL)
    table_note: str = ""  # whose rows it drew, when a real table (see :func:`.real_tables.table_note`)


@dataclass(frozen=True)
class BeyondRequest:
    """What happens past L_train: RoPE's per-pair turns, the learned table's missing rows, and every shown
    scheme's own beyond-training plot."""

    head_dim: int
    base: float
    l_train: int
    l_eval: int
    seed: int = 0
    extras: tuple = ()  # (scheme id, that scheme's plot request) for schemes with a beyond plot
    table: Any = None  # a real position table for the learned-table preview (as in MatrixRequest)
    key: str = "schemes.beyond"


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
    extras: dict = field(default_factory=dict)  # scheme id -> PlotSpec
    table_limit: int = 0  # M: the preview's first position with no row (L_train for the seeded table)
    table_title: str = ""  # whose table: "GPT-2 (checkpoint)", "seeded random"


@dataclass(frozen=True)
class ScaledRequest:
    """How the chosen context-scaling method moves RoPE's per-pair frequencies."""

    head_dim: int
    base: float
    l_train: int
    scaling: str
    factor: float
    key: str = "schemes.scaled"


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
class TabRequest:
    """A tab a scheme adds to the panel (:class:`~explorer.schemes.tabs.SchemeTab`): its fields of the state."""

    scheme: str
    tab: str
    query: Query
    key: str = "schemes.tab"


@dataclass(frozen=True)
class TabResponse:
    request: TabRequest
    value: Any  # what the tab's ``compute`` returned


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
    scheme_params: tuple = ()
    table: Any = None  # a real position table for the schemes that take one (as in MatrixRequest)
    key: str = "schemes.properties"


@dataclass(frozen=True)
class PropertiesResponse:
    request: PropertiesRequest
    columns: tuple
    rows: tuple  # one tuple of cell texts per scheme
    parameters: dict = field(default_factory=dict)  # scheme -> parameters added (int)


# -- requests from the panel's state --------------------------------------------------------------
def _scheme_params(st, scheme: str, *, matrix: bool, trained: dict | None = None, table=None) -> dict:
    """The request fields of ``scheme``: only those its scores depend on (the rest keep their defaults, so
    a change of an unrelated control leaves the request equal and nothing is recomputed)."""
    sch = registry.get(scheme)
    return {"scheme": scheme, **_fields(st, sch, sch.fields_for("matrices" if matrix else "distance"), trained, table)}


def _fields(st, sch, names, trained: dict | None, table) -> dict:
    """The values of the request fields ``names`` of scheme ``sch`` from the panel's state ``st``."""
    out = {n: getattr(st, n) for n in names if n not in ("params", "trained", "table")}
    if "params" in names:
        out["params"] = st.params_of(sch.id)
    if "trained" in names:
        out["trained"] = (trained or {}).get(sch.id, ()) if sch.uses_lab_weights else ()
    if "table" in names and table is not None:
        out["table"] = table
    return out


def kept_exact(requests: list, latest) -> list:
    """``requests`` with each drag step's score matrix (``preview``) that asks for what the exact request sent last
    for its key (``latest(key)``) already asked for replaced by that one: a scheme the step does not change keeps
    its exact result, neither computed again in float32 nor, when the slider is let go, once more."""
    out = []
    for req in requests:
        old = latest(req.key) if getattr(req, "preview", False) else None
        keep = isinstance(old, MatrixRequest) and not old.preview and dataclasses.replace(old, preview=True) == req
        out.append(old if keep else req)
    return out


def build_requests(st, view: str | None = None, trained: dict | None = None, table=None, *,
                   preview: bool = False) -> list:
    """The requests of ``view`` (default: the state's current view), one key per plot.

    ``trained``: scheme id → the Lab's trained weights of that scheme in this session (see
    :attr:`~explorer.schemes.Scheme.uses_lab_weights`); schemes without them draw their seeded start.
    ``table``: a real position table (:class:`~explorer.jobs.table.TableSource`) that the schemes which take
    one (:attr:`~explorer.schemes.Scheme.uses_table`) draw in place of their seeded table; None: their own.
    ``preview``: a drag step's score matrices (see :attr:`MatrixRequest.preview`).
    """
    view = view or st.view
    tabled = table if any(registry.get(s).uses_table for s in st.schemes) else None
    if view == "matrices":
        return [MatrixRequest(key=f"schemes.matrix.{s}", preview=preview,
                              **_scheme_params(st, s, matrix=True, trained=trained, table=table))
                for s in st.schemes]
    if view == "distance":
        return [DistanceRequest(key=f"schemes.distance.{s}",
                                **_scheme_params(st, s, matrix=False, trained=trained, table=table))
                for s in st.schemes]
    if view == "beyond":
        extras = tuple((s, _setup(st, s, trained)) for s in st.schemes
                       if type(registry.get(s)).beyond_plot is not registry.Scheme.beyond_plot)
        return [BeyondRequest(st.head_dim, st.base, st.l_train, st.l_eval, st.seed, extras, tabled),
                ScaledRequest(st.head_dim, st.base, st.l_train, st.scaling, st.factor)]
    if (found := registry.tab(view)) is not None:  # a tab a scheme adds (ALiBi's heads, RoPE's real models)
        tab, sch = found
        return [TabRequest(sch.id, tab.id, Query.of(sch.id, st, tab.fields), key=f"schemes.{tab.id}")]
    if view == "grid":
        return [GridRequest(s, st.head_dim, st.base, st.heads, st.seed, st.grid_side, st.grid_query,
                            st.params_of(s), key=f"schemes.grid.{s}") for s in grid_ids()]
    if view == "properties":
        return [PropertiesRequest(st.schemes, st.head_dim, st.base, st.l_train, st.l_eval, st.heads,
                                  st.scaling, st.factor, st.scheme_params, tabled)]
    raise EncodingError(f"unknown view {view!r}")


def _setup(st, scheme: str, trained: dict | None = None) -> DistanceRequest:
    """The shared fields of ``st`` that ``scheme``'s beyond-training plot reads (every one, unless the scheme
    names them): a change of any other control leaves the request equal."""
    sch = registry.get(scheme)
    return DistanceRequest(scheme=scheme, **_fields(st, sch, sch.fields_for("beyond"), trained, None))


# -- view 1: position-only score matrices ---------------------------------------------------------
def matrix_scores(req: MatrixRequest) -> MatrixResponse:
    """ΔS of one scheme as block means over ≤ ``max_cells`` × ``max_cells`` cells (the scheme's own formula).

    Exact for every cell; a cell with no value (a masked future, a learned position ≥ L_train) is NaN.
    """
    bl = blocks(req.l_eval, req.max_cells)
    sch = registry.get(req.scheme)
    full = resolved(req)  # the response keeps the small request
    q = sch.query(full, "matrices")  # what the scheme declared it reads, and nothing else
    try:
        with float32_phasors(req.preview):
            m = sch.score_blocks(q, bl)
    except NotShown as exc:
        return MatrixResponse(req, None, bl.size, bl.n, 0.0, str(exc), title=sch.matrix_title(q),
                              table_note=table_note(full))
    return MatrixResponse(req, m, bl.size, bl.n, extent(m), marks=tuple(sch.matrix_marks(q)),
                          title=sch.matrix_title(q), missing=sch.missing_note(q), table_note=table_note(full))


@job(MatrixRequest)
def compute_matrix(request: MatrixRequest) -> MatrixResponse:
    return matrix_scores(request)


def shared_levels(extents: dict[str, float]) -> tuple[float, tuple[str, ...]]:
    """The one colour scale ±K of all score-matrix columns, and the columns it clips.

    K is the largest |ΔS| of the bounded schemes shown (their scores are set by the content and d).  An
    unbounded scheme (ALiBi's −m·(i − j) keeps falling) is clipped at −K rather than allowed to wash every
    other column out; if no bounded scheme is shown, K is the unbounded ones' own range.  K = 1 when
    everything is zero (NoPE alone).
    """
    bounded = [v for s, v in extents.items() if registry.get(s).bounded and v > 0]
    if bounded:
        k = max(bounded)
    else:
        k = max([v for v in extents.values() if v > 0], default=1.0)
    clipped = tuple(s for s, v in extents.items() if v > k * (1 + 1e-12))
    return float(k), clipped


# -- view 2: score against relative distance ------------------------------------------------------
def distance_scores(req: DistanceRequest) -> DistanceResponse:
    """ΔS against Δ = i − j ≥ 0: the exact mean over all pairs (i, i − Δ) inside 0 … L_eval − 1.

    Relative schemes are a function of Δ alone; for the absolute ones the band gives min and max over
    ``BAND_QUERIES`` query positions.  Rotary schemes also give RoFormer's bound (1/(d/2))·Σ_j |S_j(Δ)|.
    """
    sch = registry.get(req.scheme)
    full = resolved(req)
    c = sch.distance_curve(sch.query(full, "distance"), req.max_points)
    ext = max([extent(c.mean)] + [extent(b) for b in (c.lo, c.hi) if b is not None])
    relative = sch.relative or sch.kind == "none"  # NoPE's ΔS = 0 is a function of i − j too
    return DistanceResponse(req, c.distance, c.mean, c.lo, c.hi, c.band_distance, relative, c.bound,
                            c.stride, ext, c.note, tuple(c.marks), tuple(c.terms), table_note(full))


@job(DistanceRequest)
def compute_distance(request: DistanceRequest) -> DistanceResponse:
    return distance_scores(request)


# -- view 3: beyond training ----------------------------------------------------------------------
def beyond(req: BeyondRequest) -> BeyondResponse:
    """RoPE's per-pair turns inside L_train and up to L_eval, a preview of the learned table, and the shown
    schemes' own beyond-training plots.

    Positions are 0 … L − 1, so the largest trained angle of pair k is (L_train − 1)·θ_k: the pair has
    turned fully (seen every angle) iff (L_train − 1)·θ_k ≥ 2π, i.e. its wavelength is ≤ L_train − 1.
    """
    theta = inv_freq(req.head_dim, req.base)
    lam = 2 * np.pi / theta
    turns_train = (req.l_train - 1) * theta / (2 * np.pi)
    turns_eval = (req.l_eval - 1) * theta / (2 * np.pi)
    full_turn = completes_cycle(lam, req.l_train)  # the one rule, shared with the Waves panel
    cover_train = np.minimum(1.0, turns_train)
    cover_eval = np.minimum(1.0, turns_eval)
    table = rows = cols = None
    full = resolved(req)
    note, limit = too_large_for(full), row_limit(full)
    if not note:
        rows = sample_indices(req.l_eval, TABLE_ROWS)
        cols = sample_indices(req.head_dim, TABLE_COLS)
        table = np.full((rows.size, cols.size), np.nan)
        has = rows < limit
        if has.any():
            table[has] = rows_of(full).lookup(rows[has])[:, cols]
    real = real_rows(full)
    if real is not None and table is not None:
        note = real.width_text(req.head_dim)  # how its D columns became d ("" when D = d)
    extras: dict[str, PlotSpec] = {}
    for sid, setup in req.extras:
        sch = registry.get(sid)
        spec = sch.beyond_plot(sch.query(setup, "beyond"))
        if spec is not None:
            extras[sid] = spec
    return BeyondResponse(
        req, theta, lam, turns_train, turns_eval, full_turn, cover_train, cover_eval,
        int(full_turn.sum()), int(np.sum(cover_eval > cover_train)), table, rows, cols, note, extras, limit,
        table_name(full),
    )


@job(BeyondRequest)
def compute_beyond(request: BeyondRequest) -> BeyondResponse:
    return beyond(request)


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


# -- the tabs schemes add -----------------------------------------------------------------------------
def tab_view(req: TabRequest) -> TabResponse:
    """The tab's ``compute`` on its query (the registry is the compute process's own: a tab is code, not data)."""
    found = registry.tab(req.tab)
    if found is None or found[1].id != req.scheme:
        raise EncodingError(f"no scheme {req.scheme!r} adds a tab {req.tab!r}")
    return TabResponse(req, found[0].compute(req.query))


@job(TabRequest)
def compute_tab(request: TabRequest) -> TabResponse:
    return tab_view(request)


# -- view 5: properties ----------------------------------------------------------------------------
PROPERTY_COLUMNS = ("Scheme", "Where position enters", "Parameters added", "Absolute or relative",
                    "Past L_train", "Used by (source)")


def properties(req: PropertiesRequest) -> PropertiesResponse:
    """The properties table for the shown schemes, with this configuration's numbers in it."""
    rows, params = [], {}
    for s in req.schemes:
        sch = registry.get(s)
        setup = sch.query(resolved(DistanceRequest(
            scheme=s, l_eval=req.l_eval, head_dim=req.head_dim, base=req.base, l_train=req.l_train,
            heads=req.heads, scaling=req.scaling, factor=req.factor,
            params=tuple(sorted((n, v) for sid, n, v in req.scheme_params if sid == s)),
            table=req.table if sch.uses_table else None)), "setup")
        params[s] = sch.parameters_added(setup)
        rows.append((sch.display_title(setup), sch.where_text(setup), sch.parameters_text(setup), sch.relation,
                     sch.past_training(setup), sch.used_by_text(setup)))
    return PropertiesResponse(req, PROPERTY_COLUMNS, tuple(rows), params)


@job(PropertiesRequest)
def compute_properties(request: PropertiesRequest) -> PropertiesResponse:
    return properties(request)


__all__ = [
    "METHOD_TITLES",
    "BeyondRequest",
    "BeyondResponse",
    "DistanceRequest",
    "DistanceResponse",
    "MatrixRequest",
    "MatrixResponse",
    "PropertiesRequest",
    "PropertiesResponse",
    "ScaledRequest",
    "ScaledResponse",
    "TabRequest",
    "TabResponse",
    "build_requests",
    "shared_levels",
]
