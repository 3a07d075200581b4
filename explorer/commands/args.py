"""argparse types for every numeric option of the CLI: bounded before conversion, finite, in range.

``int("9" * 400)`` works in Python and then overflows wherever numpy or float meets it; a 5000-digit
one is refused by Python's own digit limit with a ValueError; ``float("nan")`` passes every ``<``
check.  These types refuse all of that while argparse parses, so a bad number is one line
(``argument --seed: …``) and exit status 2, before any work is done.
"""

from __future__ import annotations

import argparse
import math
import re

#: The largest integer any option takes unless it says otherwise (int64: what numpy can hold).
INT_LIMIT = 2**63 - 1
_DIGITS = len(str(INT_LIMIT))
_WHOLE = re.compile(r"[+-]?[0-9]+")
#: Longest text parsed as a number at all (a float has at most ~25 meaningful characters).
_MAX_TEXT = 64


def _show(text: str) -> str:
    return repr(text) if len(text) <= 24 else f"a {len(text)}-character value"


def _fmt(v) -> str:
    return f"{v:,}" if isinstance(v, int) else f"{v:g}"


def _out_of_range(lo, hi, got: str) -> ValueError:
    if lo is not None and hi is not None:
        return ValueError(f"must be between {_fmt(lo)} and {_fmt(hi)}, got {got}")
    if lo is not None:
        return ValueError(f"must be at least {_fmt(lo)}, got {got}")
    return ValueError(f"must be at most {_fmt(hi)}, got {got}")


def parse_whole(text: str, lo: int | None = None, hi: int | None = None) -> int:
    """``text`` as an int in [lo, hi] (|value| ≤ :data:`INT_LIMIT` always); ValueError with the reason."""
    s = text.strip().replace("_", "") if len(text) <= _MAX_TEXT else text
    if not _WHOLE.fullmatch(s):
        raise ValueError(f"must be a whole number, got {_show(text)}")
    negative = s.startswith("-")
    digits = s.lstrip("+-").lstrip("0")
    if len(digits) > _DIGITS or int(digits or "0") > INT_LIMIT:  # length first: no huge conversions
        got = f"a {len(digits)}-digit number" if len(digits) > _DIGITS else s
        if negative and lo is not None:
            raise _out_of_range(lo, hi, got)
        if not negative and hi is not None:
            raise _out_of_range(lo, hi, got)
        raise ValueError(f"is too large: at most {INT_LIMIT:,} in size, got {got}")
    value = int(s)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise _out_of_range(lo, hi, str(value))
    return value


def parse_number(text: str, lo: float | None = None, hi: float | None = None, *,
                 positive: bool = False) -> float:
    """``text`` as a finite float in [lo, hi] (``positive``: > 0); ValueError with the reason."""
    if len(text) > _MAX_TEXT:
        raise ValueError(f"must be a finite number, got {_show(text)}")
    try:
        value = float(text.strip())
    except ValueError:
        raise ValueError(f"must be a number, got {_show(text)}") from None
    if not math.isfinite(value):
        raise ValueError(f"must be a finite number, got {_show(text)}")
    value = value + 0.0  # −0 is 0
    if positive and not value > 0:
        raise ValueError(f"must be greater than 0, got {value:g}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise _out_of_range(lo, hi, f"{value:g}")
    return value


def whole(lo: int | None = None, hi: int | None = None):
    """An argparse ``type``: a whole number in [lo, hi], at most :data:`INT_LIMIT` in size."""

    def parse(text: str) -> int:
        try:
            return parse_whole(text, lo, hi)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = "whole number"  # argparse names the type in some messages
    return parse


def one_of(values):
    """An argparse ``type``: one of the whole numbers ``values`` (argparse's own ``choices`` repeats a
    5,000-digit value whole in its message)."""
    allowed = tuple(sorted(values))

    def parse(text: str) -> int:
        try:
            value = parse_whole(text, None, None)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if value not in allowed:
            raise argparse.ArgumentTypeError(f"must be one of {', '.join(map(str, allowed))}, got {_show(text)}")
        return value

    parse.__name__ = "choice"
    return parse


def number(lo: float | None = None, hi: float | None = None, *, positive: bool = False):
    """An argparse ``type``: a finite number in [lo, hi] (``positive``: greater than 0)."""

    def parse(text: str) -> float:
        try:
            return parse_number(text, lo, hi, positive=positive)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = "number"
    return parse


def whole_list(lo: int | None = None, hi: int | None = None, *, most: int = 64):
    """An argparse ``type``: comma-separated whole numbers, each in [lo, hi], at most ``most`` of them."""

    def parse(text: str) -> tuple[int, ...]:
        parts = [p for p in text.replace(" ", "").split(",") if p]
        if not parts:
            raise argparse.ArgumentTypeError(f"needs whole numbers separated by commas, got {_show(text)}")
        if len(parts) > most:
            raise argparse.ArgumentTypeError(f"takes at most {most} numbers, got {len(parts)}")
        try:
            return tuple(parse_whole(p, lo, hi) for p in parts)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"each number {exc}") from None

    parse.__name__ = "list of whole numbers"
    return parse
