"""The one error type of the maths layer, and the checks that raise it.

Every bad parameter anywhere in :mod:`explorer.encodings` raises
:class:`EncodingError` (a :class:`ValueError`) with a sentence a student can act on.
Nothing returns NaN silently.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np

#: Largest number of float64 elements one result may hold (1 GiB).  Requests past
#: this are refused *before* allocating, with the limit named.
MAX_ELEMENTS = 2**27

#: Largest frequency base.  Real models use 10^4 … 10^7; past ~10^15 the slowest wavelength
#: 2π·base is no longer representable to useful precision, and near 10^308 it overflows.
MAX_BASE = 1e15


class EncodingError(ValueError):
    """A parameter of a positional-encoding function is out of its valid range."""


def check_int(name: str, value, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an ``int`` after checking it is a whole number in range."""
    if isinstance(value, bool) or not isinstance(value, (Integral, Real)):
        raise EncodingError(f"{name} must be a whole number, got {value!r}")
    if isinstance(value, Real) and not isinstance(value, Integral):
        if not math.isfinite(float(value)):
            raise EncodingError(f"{name} must be a finite whole number, got {value!r}")
        if float(value) != int(float(value)):
            raise EncodingError(f"{name} must be a whole number, got {value!r}")
    ivalue = int(value)  # type: ignore[call-overload]  # an Integral or a whole Real, checked above
    if ivalue < minimum:
        raise EncodingError(f"{name} must be at least {minimum}, got {ivalue}")
    if maximum is not None and ivalue > maximum:
        raise EncodingError(f"{name} must be at most {maximum}, got {ivalue}")
    return ivalue


def check_even(name: str, value) -> int:
    """A positive even integer: sin/cos or rotation pairs need an even dimension."""
    ivalue = check_int(name, value, minimum=2)
    if ivalue % 2:
        raise EncodingError(f"{name} must be even (dimensions come in sin/cos pairs), got {ivalue}")
    return ivalue


def check_real(
    name: str,
    value,
    *,
    greater_than: float | None = None,
    at_least: float | None = None,
    at_most: float | None = None,
) -> float:
    """Return ``value`` as a finite ``float`` after range checks."""
    if isinstance(value, bool) or not isinstance(value, (Integral, Real)):
        raise EncodingError(f"{name} must be a number, got {value!r}")
    fvalue = float(value)
    if not math.isfinite(fvalue):
        raise EncodingError(f"{name} must be a finite number, got {fvalue}")
    if greater_than is not None and not fvalue > greater_than:
        raise EncodingError(f"{name} must be greater than {greater_than:g}, got {fvalue:g}")
    if at_least is not None and fvalue < at_least:
        raise EncodingError(f"{name} must be at least {at_least:g}, got {fvalue:g}")
    if at_most is not None and fvalue > at_most:
        raise EncodingError(f"{name} must be at most {at_most:g}, got {fvalue:g}")
    return fvalue


def check_base(base) -> float:
    """The frequency base must be a finite number greater than 1 and at most :data:`MAX_BASE`."""
    return check_real("base", base, greater_than=1.0, at_most=MAX_BASE)


def check_size(*shape: int, what: str = "result") -> None:
    """Refuse a result with more than :data:`MAX_ELEMENTS` elements before allocating it."""
    n = 1
    for s in shape:
        n *= int(s)
    if n > MAX_ELEMENTS:
        dims = " x ".join(str(int(s)) for s in shape)
        raise EncodingError(
            f"{what} of {dims} = {n:,} numbers is too large: the limit is {MAX_ELEMENTS:,} "
            f"({MAX_ELEMENTS * 8 // 2**20} MiB of float64); use fewer positions or dimensions"
        )


def as_positions(positions, *, name: str = "positions") -> np.ndarray:
    """Turn a count N or an array of positions into a float64 array of finite, non-negative positions.

    An ``int`` N means positions 0 … N-1.
    """
    if isinstance(positions, (Integral,)) and not isinstance(positions, bool):
        n = check_int(name, positions, minimum=1)
        check_size(n, what=name)
        return np.arange(n, dtype=np.float64)
    arr = np.asarray(positions, dtype=np.float64)
    if arr.ndim != 1:
        raise EncodingError(f"{name} must be a count or a 1-D array, got shape {arr.shape}")
    if arr.size == 0:
        raise EncodingError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise EncodingError(f"{name} must be finite numbers (found NaN or inf)")
    if np.any(arr < 0):
        raise EncodingError(f"{name} must be non-negative, got {arr.min():g}")
    return arr


def check_finite_array(name: str, x) -> np.ndarray:
    """Return ``x`` as a float64 array after refusing NaN and inf."""
    arr = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise EncodingError(f"{name} contains NaN or inf")
    return arr


#: Integers wider than this are named by their size in messages (a 400-digit int is not printed).
_MAX_INT_BITS = 63


def short_repr(value: Any) -> str:
    """``repr(value)`` for a one-line message: huge integers by their size, long values cut."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_INT_BITS:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "…")
    if isinstance(value, (list, tuple)):
        inner = ", ".join(short_repr(v) for v in list(value)[:6])
        text = f"[{inner}{', …' if len(value) > 6 else ''}]"
        return text if len(text) <= 80 else text[:77] + "…]"
    if isinstance(value, dict):
        return f"an object with {len(value)} key(s)"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"
