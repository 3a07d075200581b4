"""The Token-swap difference map's own colour scale: ±S from the difference's largest |Δ|, and how the title and the
colour bar say it.  Pure arithmetic (no Qt), so the numbers on screen are tested on their own."""

from __future__ import annotations

import math

import numpy as np

from ..held_scale import held_scale


def symmetric_scale(values, zero_below: float = 0.0) -> float | None:
    """S of a symmetric colour scale ±S for signed ``values``: their largest |v| (finite values only), rounded
    up at its second significant digit (0.3412 → 0.35), so the scale holds every value and reads as two digits.

    None when no |v| exceeds ``zero_below`` (all zero, rounding noise, or no finite value): blowing rounding
    noise up to the full colour range would make "no difference" look like one.
    """
    v = np.abs(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    top = float(v.max()) if v.size else 0.0
    if not top > max(zero_below, 0.0):
        return None
    step = 10.0 ** (math.floor(math.log10(top)) - 1)
    scale = math.ceil(top / step * (1 - 1e-12)) * step  # 1e-12: 0.35 computed as 0.35000000000000003 stays 0.35
    return float(scale_text(scale)) if scale >= 1e-3 else scale


def held_difference_scale(shown: float | None, needed: float | None) -> float | None:
    """The difference map's scale while a slider is held: ``shown`` (the scale on screen) while it holds the
    difference and is at most :data:`~explorer.panels.held_scale.HOLD_SLACK` times its size, else the grown scale
    of :func:`~explorer.panels.held_scale.held_scale` rounded up at its second digit, as the title says it.

    ``needed`` is the difference's own :func:`symmetric_scale` (None: no difference to see, which is said at once, as
    is the first difference after none).  At every step of an α drag the rounded largest |Δ| moved by a digit: the
    title and the colour bar's three ticks were set and laid out again at most steps (0.9 ms a paint)."""
    if needed is None or shown is None:
        return needed
    kept = held_scale(shown, needed)
    return kept if kept == shown else symmetric_scale(kept)


def scale_text(scale: float) -> str:
    """A scale's number as the title and the colour bar say it: two significant digits ("0.35", "12", "3.4e-05")."""
    if scale <= 0 or not math.isfinite(scale):
        return "0"
    if scale < 1e-3 or scale >= 1e5:
        return f"{scale:.1e}"
    return f"{scale:.{max(0, 1 - math.floor(math.log10(scale)))}f}"


def difference_title(difference, scale: float | None, max_error: float) -> str:
    """The difference map's title: its colour scale ("After − before: ±0.35"), or that there is none to see."""
    finite = np.isfinite(np.asarray(difference, dtype=float))
    if not finite.all() and not finite.any():
        return "After − before: not a number"
    if scale is None:
        return f"After − before: 0 (max |Δ| {max_error:.1e})"
    return f"After − before: ±{scale_text(scale)}"
