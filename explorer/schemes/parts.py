"""What a scheme's hooks return: curves, extra plots, what it does to the Token-swap layer, Copy-as-Python
pieces, and the two refusals (no encoding for a position, a configuration that cannot be drawn).  No Qt.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..encodings.errors import EncodingError


class NoEncoding(EncodingError):
    """The scheme has no encoding for a requested position (a learned table past its last row)."""


class NotShown(EncodingError):
    """The scheme cannot draw this configuration; the message says why (shown in place of the plot)."""


@dataclass(frozen=True)
class Curve:
    """ΔS against Δ = i − j ≥ 0 for one scheme (the Schemes panel's second view)."""

    distance: np.ndarray
    mean: np.ndarray  # exact mean of ΔS over all pairs (i, i − Δ)
    stride: int = 1
    lo: np.ndarray | None = None  # band over BAND_QUERIES query positions (absolute schemes)
    hi: np.ndarray | None = None
    band_distance: np.ndarray | None = None
    bound: np.ndarray | None = None  # RoFormer's long-term-decay bound (rotary schemes)
    marks: tuple = ()  # (Δ, label) vertical marks the scheme wants drawn (bucket edges, clipping …)
    note: str = ""
    #: The score's terms drawn apart, (name, values at ``distance``) pairs (Transformer-XL's four); () for none.
    terms: tuple = ()


@dataclass(frozen=True)
class PlotSpec:
    """A small line plot a scheme adds to the "beyond training" view."""

    title: str
    x: np.ndarray
    y: np.ndarray
    x_label: str
    y_label: str
    marks: tuple = ()  # (x, label)
    log_x: bool = False
    step: bool = False  # draw as steps (bucket indices)
    log_y: bool = False  # a log y axis (values ≤ 0 are left out: a frequency set to 0 is not drawn)
    x_range: tuple[float, float] | None = None  # the x axis's span (None: fit the data)


@dataclass(frozen=True)
class SwapTerms:
    """What one scheme does to the Token-swap panel's attention layer for n tokens.

    ``added`` (n, d) is added to the embeddings (× α); ``rotate(x)`` rotates one head's (n, d_h) queries or
    keys by their positions; ``rotate_k(x)``, when given, is what keys get instead (xPos scales queries and
    keys oppositely); ``bias`` (H, n, n) is added to the scores before the mask; ``score`` and ``value`` are
    terms that depend on the queries, keys or weights themselves.
    """

    added: np.ndarray | None = None
    rotate: Callable[[np.ndarray], np.ndarray] | None = None
    bias: np.ndarray | None = None
    rotate_k: Callable[[np.ndarray], np.ndarray] | None = None
    #: ``score(q, k)`` (H, n, d_h) each → (H, n, n) added to the scaled scores (a relative key term).
    score: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    #: ``value(weights)`` (H, n, n) → (H, n, d_h) added to the outputs (Shaw's relative values).
    value: Callable[[np.ndarray], np.ndarray] | None = None
    #: ``contextual(q, k)`` → (gates, positions), each (H, n, n): the positions a scheme counts from the content
    #: (CoPE), which the Token-swap panel shows before and after the swap; None for the others.
    contextual: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None


def lit(value) -> str:
    """``value`` as Python source a snippet can hold: floats round-trip exactly (``repr``), tuples stay tuples."""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    if isinstance(value, tuple):
        return "(" + ", ".join(lit(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(lit(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        return "np.array(" + lit(value.tolist()) + ")"
    if isinstance(value, (np.integer, np.floating)):
        return lit(value.item())
    return repr(value)


@dataclass(frozen=True)
class SnippetPart:
    """A scheme's piece of a Copy-as-Python program: numpy code that defines the names in ``defines``.

    ``params`` are extra ``(name, value, comment)`` lines for the program's top; ``imports`` extra standard
    modules.  The code may use the names the snippet generator documents for that hook (see the hooks).
    """

    code: str
    defines: tuple[str, ...] = ()
    params: tuple[tuple[str, Any, str], ...] = ()
    imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class NoSnippet:
    """Why a plot (or a scheme's part of it) has no Copy-as-Python snippet; shown as the disabled item's tooltip.

    ``declared`` is False only for the base classes' defaults: a plot someone added without saying whether it
    can have a snippet (the tests fail on those, and accept a declared reason).
    """

    reason: str
    declared: bool = True

