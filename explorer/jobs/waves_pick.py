"""The Waves panel's ``waves.views`` job: what depends on the picked position p, offset k, pair and token.

PE(p), PE(p+k), the rotation readouts (R(k) and its two checks that it does not depend on p), direct dot
products, and the same-token-two-positions experiment (:class:`PickRequest`, :func:`compute_pick`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..encodings.extrema import (
    APPROX_MIN_PERIODS,  # noqa: F401 - part of this module's interface (tests, docs)
    TWO_PI,
    pe_values,
)
from ..encodings.sinusoidal import (
    frequencies,
    pair_columns,
    rotation,
    rotation_rounding,
    sinusoidal,
)
from . import job

#: Direct dot products PE(p)·PE(q) are computed for q within p ± this many positions.
MARKER_WINDOW = 256



# -- the picked position, offset, pair and token ------------------------------------------------
def rotation_readout(omega: float, k: int, n_positions: int, check: bool = True) -> dict:
    """The rotation view's numbers for one pair: R(k), the angle, and two p-independence checks.

    ``error`` = max over p = 0 … N-1 of |R(k)·PE_i(p) − PE_i(p+k)| (Vaswani et al. 2017, §3.5),
    with PE_i(p) = [sin(p·ω), cos(p·ω)]; ``angle_spread`` = max over p of the difference between
    the measured angle from PE_i(p) to PE_i(p+k) and k·ω (mod 2π).  Both are float64 rounding of the
    angles, which grows like (N − 1 + |k|)·ω·ε: ``rounding`` is that scale (:func:`rotation_rounding`).
    Without ``check`` (a drag step: the scan over every position is most of the job's time at large N)
    both are None; the request made when the drag ends has them.
    """
    rot = rotation(k, omega)
    if not check:
        return {"omega": float(omega), "wavelength": TWO_PI / float(omega), "angle": float(k * omega),
                "angle_mod": float(math.remainder(k * omega, TWO_PI)), "R": rot, "error": None,
                "angle_spread": None, "rounding": None}
    p = np.arange(n_positions, dtype=np.float64)
    a, b = p * omega, (p + k) * omega
    s, c = np.sin(a), np.cos(a)
    rs = rot[0, 0] * s + rot[0, 1] * c
    rc = rot[1, 0] * s + rot[1, 1] * c
    error = float(np.max(np.hypot(rs - np.sin(b), rc - np.cos(b))))
    # Angle of the 2-vector measured as atan2(sin, cos): the polar angle p·ω (mod 2π).
    turn = np.arctan2(np.sin(b), np.cos(b)) - np.arctan2(s, c)
    want = k * omega
    spread = float(np.max(np.abs(np.angle(np.exp(1j * (turn - want))))))
    return {
        "omega": float(omega),
        "wavelength": TWO_PI / float(omega),
        "angle": float(want),
        "angle_mod": float(math.remainder(want, TWO_PI)),
        "R": rot,
        "error": error,
        "angle_spread": spread,
        "rounding": rotation_rounding(n_positions, k, omega),
    }


def token_vector(d_model: int, scale: float, seed: int) -> np.ndarray:
    """The token embedding x = α·z with z ~ N(0, 1)^d (seeded), so ‖x‖ ≈ α·√d."""
    return scale * np.random.default_rng(seed).standard_normal(d_model)


def cosine(u: np.ndarray, v: np.ndarray) -> float:
    """u·v / (‖u‖‖v‖); 0 when either vector is zero."""
    nu, nv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    if nu == 0.0 or nv == 0.0:
        return 0.0
    return float(u @ v) / (nu * nv)


@dataclass(frozen=True)
class PickRequest:
    """Everything that depends on the picked position p, offset k, pair and token."""

    n_positions: int
    d_model: int
    base: float
    variant: str
    position: int = 0
    offset: int = 0
    pair: int = 0
    token_scale: float = 1.0
    p1: int = 0
    p2: int = 1
    token_seed: int = 0
    #: A drag step: the rotation's check over every position is left out (see rotation_readout).
    preview: bool = False
    #: The direct dots PE(p)·PE(q) near p (the similarity view's markers; 2·MARKER_WINDOW + 1 table rows and as
    #: many formula rows, most of the job).  False for a drag step while that view is hidden: ``marker_q`` is
    #: empty, and the request made when the drag ends has them.
    markers: bool = True
    key: str = "waves.views"


@dataclass(frozen=True)
class PickResponse:
    request: PickRequest
    pe_p: np.ndarray  # PE(p), (d,) float64
    pe_pk: np.ndarray  # PE(p + k), (d,) float64 (p + k may lie outside 0 … N-1)
    dot: float  # PE(p)·PE(p+k), computed from the two vectors
    dot_formula: float  # Σ_i cos(k·ω_i)
    rotation: dict  # see rotation_readout (its check is None in a preview)
    pair_p: np.ndarray  # [sin, cos] of the picked pair at p
    pair_pk: np.ndarray  # … at p + k
    marker_q: np.ndarray  # positions q near p (none when the request asked for no markers)
    marker_dot: np.ndarray  # PE(p)·PE(q), computed directly from the table rows
    marker_error: float  # max |PE(p)·PE(q) − Σ_i cos((q − p)·ω_i)| over those q
    token: dict  # x, v1 = x + PE(p1), v2 = x + PE(p2), cosines and norms


def token_readout(d_model: int, base: float, variant: str, scale: float, seed: int, p1: int, p2: int) -> dict:
    """Same token at two positions: x + PE(p1) against x + PE(p2)."""
    x = token_vector(d_model, scale, seed)
    pe = sinusoidal(np.array([p1, p2], dtype=np.float64), d_model, base, variant)
    v1, v2 = x + pe[0], x + pe[1]
    return {
        "x": x, "pe1": pe[0], "pe2": pe[1], "v1": v1, "v2": v2,
        "cos_tokens": cosine(v1, v2),
        "cos_pe": cosine(pe[0], pe[1]),
        "norm_x": float(np.linalg.norm(x)),
        "norm_pe": float(np.linalg.norm(pe[0])),
        "norm_pe_exact": math.sqrt(d_model / 2),
        "max_abs_x": float(np.max(np.abs(x))),
        "max_abs_pe": float(np.max(np.abs(pe))),
        "norm_v1": float(np.linalg.norm(v1)),
        "norm_v2": float(np.linalg.norm(v2)),
    }


@job(PickRequest)
def compute_pick(req: PickRequest) -> PickResponse:
    n, d = req.n_positions, req.d_model
    omega = frequencies(d, req.base, req.variant)
    cols = np.arange(d)
    p, k = int(req.position), int(req.offset)
    pe = pe_values([p, p + k], cols, d, req.base, req.variant)
    sc, cc = pair_columns(req.pair, d, req.variant)
    window = max(1, min(MARKER_WINDOW, 131072 // d))
    q = np.arange(max(0, p - window), min(n, p + window + 1)) if req.markers else np.zeros(0, dtype=np.int64)
    marker_dot, marker_error = np.zeros(0), 0.0
    if q.size:
        marker_dot = sinusoidal(q.astype(np.float64), d, req.base, req.variant) @ pe[0]
        formula = np.cos(np.multiply.outer((q - p).astype(np.float64), omega)).sum(axis=1)
        marker_error = float(np.max(np.abs(marker_dot - formula)))
    return PickResponse(
        request=req,
        pe_p=pe[0],
        pe_pk=pe[1],
        dot=float(pe[0] @ pe[1]),
        dot_formula=float(np.cos(k * omega).sum()),
        rotation=rotation_readout(float(omega[req.pair]), k, n, check=not req.preview),
        pair_p=pe[0, [sc, cc]],
        pair_pk=pe[1, [sc, cc]],
        marker_q=q,
        marker_dot=marker_dot,
        marker_error=marker_error,
        token=token_readout(d, req.base, req.variant, req.token_scale, req.token_seed, req.p1, req.p2),
    )
