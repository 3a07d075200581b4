"""Rotary position embedding (RoPE) and its context-scaling methods.

RoPE (Su et al. 2021, "RoFormer", §3.4) rotates each 2-D pair of a query or key
vector at position m by the angle m·θ_i, θ_i = base^(-2i/d), i = 0 … d/2-1.  Then
``q_m · k_n`` depends on m and n only through m − n.

Conventions — which coordinates form pair i:

``interleaved``
    (2i, 2i+1): RoFormer, GPT-J, lucidrains' rotary-embedding-torch.
``halves``
    (i, i + d/2): Hugging Face transformers' ``rotate_half`` (Llama, Mistral, …).

Both give the same q·k scores after the permutation that maps one layout onto the
other (:func:`halves_to_interleaved`).

Scaling (factor s ≥ 1, trained context ``L_orig``) — exactly as Hugging Face transformers'
``modeling_rope_utils``:

``linear``  position interpolation (Chen et al. 2023): positions / s, i.e. θ_i / s.
``ntk``     static NTK-aware scaling (bloc97 2023): base' = base · s^(d/(d−2)).
``yarn``    YaRN (Peng et al. 2023), rope_type "yarn": β_fast = 32, β_slow = 1; pairs between
            the correction dimensions get a linear ramp between interpolation (θ_i/s) and
            extrapolation (θ_i); cos and sin are multiplied by the attention factor 0.1·ln s + 1.
``llama3``  rope_type "llama3" (Llama 3.1): wavelengths above L_orig/low_freq_factor are divided by
            s, those below L_orig/high_freq_factor kept, and a smooth blend in between.
``dynamic`` rope_type "dynamic" (dynamic NTK, emozilla 2023): at a current length L > L_max the base
            becomes base·(s·L/L_max − (s − 1))^(d/(d−2)); at L ≤ L_max plain RoPE.
``longrope`` rope_type "longrope" (Ding et al. 2024, Phi-3): θ_i / f_i with a searched factor per pair,
            ``short_factor`` while L ≤ L_orig, ``long_factor`` past it; cos and sin × √(1 + ln s / ln L_orig).

YaRN also takes transformers' ``attention_factor`` (given outright), ``mscale`` and ``mscale_all_dim``
(DeepSeek: the factor is (0.1·mscale·ln s + 1)/(0.1·mscale_all_dim·ln s + 1), 1 when both are 1) and
``truncate`` (gpt-oss: ``false`` keeps the correction range unrounded).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import (
    MAX_BASE,
    EncodingError,
    as_positions,
    check_base,
    check_even,
    check_finite_array,
    check_int,
    check_real,
    check_size,
)
from .rotary import rotary_bound

CONVENTIONS = ("interleaved", "halves")
SCALINGS = ("none", "linear", "ntk", "yarn", "llama3", "dynamic", "longrope")

#: Largest context-scaling factor s accepted (real models use 2 … 64; past 1e6 the scaled
#: frequencies underflow towards 0 for large bases).
MAX_FACTOR = 1e6
#: Largest YaRN β (rotations) and mscale accepted: real configs use 1 … 32 and 0.7 … 1.
MAX_BETA = 1e6
MAX_MSCALE = 1e3
#: Largest and smallest LongRoPE per-pair factor (Phi-3's run from 1.0 to ~65; one of 1e-300 would make θ/f
#: overflow to infinity) and largest attention factor.
MAX_PAIR_FACTOR = 1e6
MIN_PAIR_FACTOR = 1e-3
MAX_ATTENTION_FACTOR = 1e3
#: Longest current length ``seq_len`` (dynamic NTK, LongRoPE) and trained context.
MAX_SEQ_LEN = 2**40


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``; otherwise raise a listing error."""
    if value not in choices:
        raise EncodingError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return value


def inv_freq(head_dim: int, base: float = 10000.0) -> np.ndarray:
    """θ_i = base^(-2i/d) for i = 0 … d/2-1 (float64).  Pair 0 is the fastest."""
    d = check_even("head_dim", head_dim)
    b = check_base(base)
    return b ** (-np.arange(0, d, 2, dtype=np.float64) / d)


@dataclass(frozen=True)
class RopeScaling:
    """The parameters of RoPE context scaling (see the module docstring)."""

    kind: str = "none"
    factor: float = 1.0
    original_max_positions: int = 2048
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    #: YaRN: transformers' ``mscale`` / ``mscale_all_dim`` (None or 0: unused), ``attention_factor`` (None:
    #: computed; LongRoPE too) and ``truncate`` (round the correction range outwards).
    mscale: float | None = None
    mscale_all_dim: float | None = None
    attention_factor: float | None = None
    truncate: bool = True
    #: LongRoPE: one factor per pair, for lengths ≤ L_orig (short) and past it (long).
    short_factor: tuple = ()
    long_factor: tuple = ()
    #: The current sequence length (dynamic NTK and LongRoPE depend on it; None: at start-up, as HF's init).
    seq_len: int | None = None

    def __post_init__(self) -> None:
        check_choice("scaling", self.kind, SCALINGS)
        check_real("factor", self.factor, at_least=1.0, at_most=MAX_FACTOR)
        check_int("original_max_positions", self.original_max_positions, minimum=1, maximum=MAX_SEQ_LEN)
        check_real("beta_fast", self.beta_fast, greater_than=0.0, at_most=MAX_BETA)
        check_real("beta_slow", self.beta_slow, greater_than=0.0, at_most=MAX_BETA)
        lo = check_real("low_freq_factor", self.low_freq_factor, greater_than=0.0, at_most=MAX_FACTOR)
        hi = check_real("high_freq_factor", self.high_freq_factor, greater_than=0.0, at_most=MAX_FACTOR)
        if self.kind == "llama3" and hi < lo:
            raise EncodingError(
                f"high_freq_factor ({hi:g}) must be at least low_freq_factor ({lo:g}) for llama3"
            )
        for name in ("mscale", "mscale_all_dim"):
            if getattr(self, name) is not None:
                check_real(name, getattr(self, name), at_least=0.0, at_most=MAX_MSCALE)
        if self.attention_factor is not None:
            check_real("attention_factor", self.attention_factor, greater_than=0.0, at_most=MAX_ATTENTION_FACTOR)
        if not isinstance(self.truncate, bool):
            raise EncodingError(f"truncate must be true or false, got {self.truncate!r}")
        for name in ("short_factor", "long_factor"):
            values = getattr(self, name)
            if not isinstance(values, tuple):
                raise EncodingError(f"{name} must be a list of numbers, got {type(values).__name__}")
            for v in values:
                check_real(name, v, at_least=MIN_PAIR_FACTOR, at_most=MAX_PAIR_FACTOR)
        if self.kind == "longrope" and not (self.short_factor and self.long_factor):
            raise EncodingError("longrope needs short_factor and long_factor (one number per pair): "
                                "give them in a model config (--config)")
        if (self.kind == "longrope" and self.attention_factor is None and self.factor > 1.0
                and self.original_max_positions < 2):
            raise EncodingError("longrope with s > 1 needs L_orig (original_max_position_embeddings) of at least 2: "
                                "its attention factor √(1 + ln s / ln L_orig) divides by ln L_orig (or give "
                                "attention_factor)")
        if self.seq_len is not None:
            check_int("seq_len", self.seq_len, minimum=1, maximum=MAX_SEQ_LEN)


def yarn_correction_range(head_dim: int, base: float, scaling: RopeScaling) -> tuple[float, float]:
    """YaRN's pair-index range [low, high] over which the ramp runs (HF ``find_correction_range``).

    ``find_correction_dim(r) = d·ln(L_orig / (2π r)) / (2 ln base)`` for r = β_fast (low) and β_slow
    (high), floored/ceiled when ``truncate`` (HF's default; gpt-oss sets it false) and clamped to [0, d − 1].
    """
    d = check_even("head_dim", head_dim)
    b = check_base(base)

    def dim_for(rotations: float) -> float:
        ratio = scaling.original_max_positions / (rotations * 2 * math.pi)
        if math.isfinite(ratio) and ratio > 0:
            return d * math.log(ratio) / (2 * math.log(b))  # transformers' expression, to the last bit
        # A β so small that L_orig/(2πβ) overflows (β_fast = 1e-308): the same number, as a difference of logs.
        log_ratio = math.log(scaling.original_max_positions) - math.log(rotations) - math.log(2 * math.pi)
        return d * log_ratio / (2 * math.log(b))

    low, high = dim_for(scaling.beta_fast), dim_for(scaling.beta_slow)
    if scaling.truncate:
        low, high = math.floor(low), math.ceil(high)
    return float(max(low, 0)), float(min(high, d - 1))


def yarn_ramp(head_dim: int, base: float, scaling: RopeScaling) -> np.ndarray:
    """The YaRN ramp per pair: 0 = keep θ_i (extrapolate), 1 = θ_i/s (interpolate).

    HF: ``inv_freq_extrapolation_factor = 1 − clamp((i − low)/(high − low), 0, 1)``; this returns the
    clamp itself (the interpolation weight).
    """
    low, high = yarn_correction_range(head_dim, base, scaling)
    if low == high:
        high += 0.001
    i = np.arange(head_dim // 2, dtype=np.float64)
    return np.clip((i - low) / (high - low), 0.0, 1.0)


def yarn_attention_factor(factor: float, mscale: float = 1.0) -> float:
    """YaRN's attention (m)scale 0.1·mscale·ln(s) + 1 (1 for s ≤ 1; HF ``yarn_get_mscale``)."""
    s = check_real("factor", factor, at_least=1.0)
    return 1.0 if s <= 1 else 0.1 * mscale * math.log(s) + 1.0


def attention_factor_of(scaling: RopeScaling) -> float:
    """The factor that multiplies cos and sin, as transformers computes it.

    YaRN: ``attention_factor`` when given; else, when ``mscale`` and ``mscale_all_dim`` are both non-zero,
    (0.1·mscale·ln s + 1)/(0.1·mscale_all_dim·ln s + 1) (DeepSeek-V3: 1.0); else 0.1·ln s + 1.
    LongRoPE: ``attention_factor`` when given; else √(1 + ln s / ln L_orig) (1 for s ≤ 1).  Others: 1.
    """
    s = scaling.factor
    if scaling.kind == "yarn":
        if scaling.attention_factor is not None:
            return float(scaling.attention_factor)
        if scaling.mscale and scaling.mscale_all_dim:
            return yarn_attention_factor(s, scaling.mscale) / yarn_attention_factor(s, scaling.mscale_all_dim)
        return yarn_attention_factor(s)
    if scaling.kind == "longrope":
        if scaling.attention_factor is not None:
            return float(scaling.attention_factor)
        if s <= 1.0:
            return 1.0
        return math.sqrt(1 + math.log(s) / math.log(scaling.original_max_positions))
    return 1.0


def _ntk_base(b: float, d: int, exponent_base: float, what: str) -> float:
    """base·x^(d/(d−2)), refused in one line when d = 2 or it passes the largest base."""
    if d == 2:
        raise EncodingError(f"{what} needs head_dim ≥ 4 (its exponent d/(d−2) is infinite for d = 2)")
    try:
        new_base = b * exponent_base ** (d / (d - 2))
    except OverflowError:
        new_base = math.inf
    if not math.isfinite(new_base) or new_base > MAX_BASE:
        raise EncodingError(
            f"{what}: the scaled base {new_base:.3g} exceeds the largest base {MAX_BASE:g}; "
            "use a smaller base or factor, or a larger head_dim"
        )
    return new_base


def scaled_inv_freq(
    head_dim: int, base: float = 10000.0, scaling: RopeScaling | None = None
) -> tuple[np.ndarray, float]:
    """Per-pair frequencies after context scaling, and the factor that multiplies cos and sin.

    Returns
    -------
    inv_freq : ndarray, shape (head_dim/2,)
    attention_factor : float
        1 except for YaRN and LongRoPE (see :func:`attention_factor_of`).
    """
    scaling = scaling or RopeScaling()
    d = check_even("head_dim", head_dim)
    b = check_base(base)
    s = scaling.factor
    if scaling.kind == "none" or (s == 1.0 and scaling.kind not in ("yarn", "longrope")):
        return inv_freq(d, b), 1.0
    if scaling.kind == "linear":
        return inv_freq(d, b) / s, 1.0
    if scaling.kind == "ntk":
        return inv_freq(d, _ntk_base(b, d, s, "NTK scaling")), 1.0
    if scaling.kind == "dynamic":
        lmax = scaling.original_max_positions
        seq = max(scaling.seq_len or lmax, lmax)
        return inv_freq(d, _ntk_base(b, d, s * seq / lmax - (s - 1), "dynamic NTK scaling")), 1.0
    if scaling.kind == "longrope":
        long = scaling.seq_len is not None and scaling.seq_len > scaling.original_max_positions
        name = "long_factor" if long else "short_factor"
        ext = np.asarray(scaling.long_factor if long else scaling.short_factor, dtype=np.float64)
        if ext.size != d // 2:
            raise EncodingError(f"longrope: {name} has {ext.size} numbers; the rotary dim {d} needs {d // 2} "
                                "(one per pair)")
        return 1.0 / (ext * b ** (np.arange(0, d, 2, dtype=np.float64) / d)), attention_factor_of(scaling)
    if scaling.kind == "yarn":
        theta = inv_freq(d, b)
        ramp = yarn_ramp(d, b, scaling)
        extrapolation_weight = 1.0 - ramp
        freq = (theta / s) * (1.0 - extrapolation_weight) + theta * extrapolation_weight
        return freq, attention_factor_of(scaling)
    # llama3
    theta = inv_freq(d, b)
    L = float(scaling.original_max_positions)
    low_wavelen = L / scaling.low_freq_factor
    high_wavelen = L / scaling.high_freq_factor
    wavelen = 2 * math.pi / theta
    out = np.where(wavelen > low_wavelen, theta / s, theta)
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    if scaling.high_freq_factor == scaling.low_freq_factor:
        # Llama 4 Scout: both factors 1, so no band is blended, only a wavelength of exactly L would be (0/0: NaN in
        # transformers too).
        if np.any(medium):
            raise EncodingError("llama3 with high_freq_factor = low_freq_factor has no blend for a pair whose "
                                "wavelength is exactly L_orig/low_freq_factor")
        return out, 1.0
    smooth = (L / wavelen - scaling.low_freq_factor) / (scaling.high_freq_factor - scaling.low_freq_factor)
    smoothed = (1 - smooth) * out / s + smooth * out
    return np.where(medium, smoothed, out), 1.0


def llama3_band_edges(scaling: RopeScaling) -> tuple[float, float]:
    """Wavelengths (high-frequency edge, low-frequency edge) = (L/high_freq_factor, L/low_freq_factor)."""
    L = float(scaling.original_max_positions)
    return L / scaling.high_freq_factor, L / scaling.low_freq_factor


def rope_angles(positions, head_dim: int, base: float = 10000.0, scaling: RopeScaling | None = None):
    """Angles m·θ_i (shape (N, d/2)) and the cos/sin factor, honouring linear scaling of positions."""
    p = as_positions(positions)
    check_size(p.size, head_dim, what="RoPE table")
    freq, att = scaled_inv_freq(head_dim, base, scaling)
    return np.multiply.outer(p, freq), att


def apply_rope(
    x,
    positions=None,
    base: float = 10000.0,
    convention: str = "interleaved",
    scaling: RopeScaling | None = None,
    offset: float = 0.0,
    rotary_dim: int | None = None,
) -> np.ndarray:
    """Rotate each row of ``x`` (shape (N, d)) as position ``offset + positions[n]``.

    ``positions`` defaults to 0 … N-1.  Returns a new float64 array of the same shape; for
    YaRN and LongRoPE cos and sin carry the attention factor, so norms grow by that factor.
    ``rotary_dim`` (default d): only the first ``rotary_dim`` columns rotate, the rest pass through
    unchanged (``partial_rotary_factor``: GPT-NeoX, Phi-2; transformers' ``apply_rotary_pos_emb``).

    Formula (interleaved): for pair i = (x_{2i}, x_{2i+1}) and angle a = m·θ_i,
    ``(x_{2i} cos a − x_{2i+1} sin a, x_{2i} sin a + x_{2i+1} cos a)``; the ``halves`` convention
    pairs (x_i, x_{i+d/2}) instead, as HF's ``x·cos + rotate_half(x)·sin``.
    """
    check_choice("convention", convention, CONVENTIONS)
    arr = check_finite_array("input", x)
    if arr.ndim != 2:
        raise EncodingError(f"input must be a 2-D array (positions × dimensions), got shape {arr.shape}")
    n, width = arr.shape
    if n < 1:
        raise EncodingError("input has no rows")
    if rotary_dim is None:
        d = check_even("input width (head_dim)", width)
    else:
        d = check_even("rotary_dim", rotary_dim)
        if d > width:
            raise EncodingError(f"rotary_dim {d} is wider than the input's {width} columns")
    off = check_real("offset", offset, at_least=0.0)
    pos = np.arange(n, dtype=np.float64) if positions is None else as_positions(positions)
    if pos.size != n:
        raise EncodingError(f"got {pos.size} positions for {n} rows")
    ang, att = rope_angles(pos + off, d, base, scaling)
    cos, sin = np.cos(ang) * att, np.sin(ang) * att
    out = arr.copy()  # columns past rotary_dim pass through
    if convention == "interleaved":
        a, b = arr[:, 0:d:2], arr[:, 1:d:2]
        out[:, 0:d:2] = a * cos - b * sin
        out[:, 1:d:2] = a * sin + b * cos
    else:
        h = d // 2
        a, b = arr[:, :h], arr[:, h:d]
        out[:, :h] = a * cos - b * sin
        out[:, h:d] = a * sin + b * cos
    return out


def halves_to_interleaved(head_dim: int) -> np.ndarray:
    """Permutation P with ``x_interleaved = x_halves[:, P]``: column 2i ← i, column 2i+1 ← i + d/2."""
    d = check_even("head_dim", head_dim)
    h = d // 2
    perm = np.empty(d, dtype=np.int64)
    perm[0::2] = np.arange(h)
    perm[1::2] = np.arange(h) + h
    return perm


def rope_scores(q, k, positions_q=None, positions_k=None, base: float = 10000.0,
                convention: str = "interleaved", scaling: RopeScaling | None = None) -> np.ndarray:
    """S[m, n] = RoPE(q_m, m) · RoPE(k_n, n) for rows of q (M, d) and k (N, d)."""
    qr = apply_rope(q, positions_q, base, convention, scaling)
    kr = apply_rope(k, positions_k, base, convention, scaling)
    return qr @ kr.T


def score_by_distance(distances, q, k, base: float = 10000.0, scaling: RopeScaling | None = None) -> np.ndarray:
    """RoPE score of a fixed query/key pair (interleaved layout) as a function of m − n.

    Writing each pair as a complex number, ``q_m·k_n = Re Σ_i q_i conj(k_i) e^{i(m−n)θ_i}``.
    """
    qa = check_finite_array("q", q)
    ka = check_finite_array("k", k)
    d = check_even("head_dim", qa.shape[-1])
    if ka.shape != qa.shape or qa.ndim != 1:
        raise EncodingError("q and k must be 1-D vectors of the same length")
    freq, att = scaled_inv_freq(d, base, scaling)
    r = np.asarray(distances, dtype=np.float64)
    check_size(r.size, d // 2, what="score curve")
    qc = qa[0::2] + 1j * qa[1::2]
    kc = ka[0::2] + 1j * ka[1::2]
    h = qc * np.conj(kc)
    return (att**2) * np.real(np.exp(1j * np.multiply.outer(r, freq)) @ h)


def roformer_bound(distances, head_dim: int, base: float = 10000.0, scaling: RopeScaling | None = None) -> np.ndarray:
    """RoFormer's long-term-decay bound (Su et al. 2021, §3.4.3, Fig. 2): (1/(d/2))·Σ_{j=1}^{d/2} |S_j|,

    with ``S_j = Σ_{k=0}^{j−1} e^{i r θ_k}`` at relative distance r.  (Not mean cos(rθ) — a
    mistake seen in other demos.)
    """
    d = check_even("head_dim", head_dim)
    freq, _ = scaled_inv_freq(d, base, scaling)
    r = np.asarray(distances, dtype=np.float64)
    check_size(r.size, d // 2, what="bound curve")
    return rotary_bound(r.ravel(), freq).reshape(r.shape)
