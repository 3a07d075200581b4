"""Log-axis ticks that never overlap: labels at decades only (every 2nd or 3rd one when the axis is short),
2 and 5 added only when less than a decade shows, SI-formatted ("1", "100", "10k", "1M"), and the minor
ticks without labels.  pyqtgraph labels its 2 … 9 minor ticks too, which printed "3·10¹4·10¹5·10¹".

The arithmetic of :class:`explorer.widgets.axis.Axis` (which uses it) and of named ticks (:func:`thinned`).
"""

from __future__ import annotations

import math

import numpy as np

_LABELLED, _MINOR = 0.5, 0.1  # spacing markers of the extra levels (majors carry their decade step >= 1)


def si_text(value: float) -> str:
    """1 -> '1', 2000 -> '2k', 1e6 -> '1M', 0.01 -> '0.01', 1e-5 -> '10⁻⁵'."""
    if value <= 0 or not math.isfinite(value):
        return ""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= div:
            return f"{value / div:.3g}{suffix}"
    if value >= 1e-3:
        return f"{value:.3g}"
    exp = int(round(math.log10(value)))
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"10{str(exp).translate(sup)}"


def log_tick_values(axis, min_val: float, max_val: float, size: float) -> list:
    """Tick levels (spacing, values) of a log axis ``size`` px long showing decades ``min_val`` … ``max_val``."""
    lo, hi = min(min_val, max_val), max(min_val, max_val)
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo <= 0 or size <= 0:
        return []
    vertical = axis.orientation in ("left", "right")
    room = (_font_height(axis) * 2.2) if vertical else 48.0  # pixels a label needs
    px_per_decade = size / (hi - lo)
    step = max(1, math.ceil(room / px_per_decade))
    first = math.ceil(lo / step) * step
    majors = [float(v) for v in range(int(first), int(math.floor(hi)) + 1, step)]
    levels = [(float(step), majors)]
    decades = range(int(math.floor(lo)), int(math.ceil(hi)))
    if hi - lo < 1.0 or (step == 1 and px_per_decade >= room * 3):
        mids = [d + math.log10(m) for d in decades for m in (2, 5)]
        levels.append((_LABELLED, [v for v in mids if lo < v < hi]))
    minors = [d + math.log10(m) for d in decades for m in range(2, 10)] if step == 1 else []
    levels.append((_MINOR, [v for v in minors if lo < v < hi]))
    return levels


def log_tick_strings(values, scale, spacing) -> list[str]:
    """SI text at the labelled levels, none at the minor ticks."""
    if spacing is not None and spacing < _LABELLED:
        return ["" for _ in values]
    return [si_text(float(10 ** v) * scale) for v in np.asarray(values, dtype=float)]


def use_si_log_ticks(plot_item) -> None:
    """Give every axis of ``plot_item`` (an app plot's: :class:`explorer.widgets.axis.Axis`) these log ticks
    (they apply while the axis is in log mode)."""
    for name in ("left", "bottom", "right", "top"):
        plot_item.getAxis(name).set_si_log_ticks(True)


def nice_at_least(step: float) -> float:
    """The smallest 1, 2 or 5 × 10ᵏ that is at least ``step``."""
    exp = math.floor(math.log10(step))
    for m in (1, 2, 5, 10):
        if m * 10 ** exp >= step * (1 - 1e-9):
            return m * 10 ** exp
    return 10 ** (exp + 1)



def tick_font(axis):
    """The font ``axis`` draws its tick labels in (its style's, else its own)."""
    return getattr(axis, "style", {}).get("tickFont") or axis.font()


def label_room(axis, min_val: float, max_val: float) -> float:
    """Pixels one tick label of this range takes, with a gap: the wider of its two ends' labels."""
    from PySide6.QtGui import QFontMetricsF

    metrics = QFontMetricsF(tick_font(axis))
    ends = [f"{v * axis.scale:.6g}" for v in (min_val, max_val) if math.isfinite(v)]
    return max((metrics.horizontalAdvance(t) for t in ends), default=20.0) + 0.6 * metrics.height()


def _font_height(axis) -> float:
    from PySide6.QtGui import QFontMetrics

    return float(QFontMetrics(tick_font(axis)).height())


def thinned(ticks, pixel, width, keep=(), gap: float = 8.0) -> list[tuple[float, str]]:
    """The named ticks (value, text) whose labels do not overlap on an axis.

    ``pixel(value)`` is a tick's position in pixels and ``width(text)`` its label's width; the labels in
    ``keep`` are placed first, then the last and the first tick, then the rest from the left, each only
    where it leaves ``gap`` pixels to the labels already placed.  Returned in value order.
    """
    ticks = list(ticks)
    if not ticks:
        return []
    order = sorted(range(len(ticks)), key=lambda k: (ticks[k][1] not in keep, k not in (0, len(ticks) - 1), k))
    placed: list[tuple[float, float]] = []  # (centre, half width) in pixels
    chosen = []
    for k in order:
        value, text = ticks[k]
        x, half = pixel(value), width(text) / 2
        if all(abs(x - c) >= half + h + gap for c, h in placed):
            placed.append((x, half))
            chosen.append(ticks[k])
    return sorted(chosen)
