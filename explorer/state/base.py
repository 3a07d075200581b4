"""Validated, JSON-round-tripping parameter objects: the single source of truth for each panel.

A panel's state is a frozen dataclass whose fields carry their limits in ``metadata``
(see :func:`param`).  :func:`validate` checks every field and raises :class:`StateError`
with a message naming the valid range; :func:`from_dict` builds a state from JSON-ish
data all-or-nothing (nothing is half-applied); :func:`with_value` parses one ``key=value``
string as the CLI's ``--set`` does.  No Qt here.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, TypeVar

from ..encodings.errors import EncodingError
from ..encodings.errors import short_repr as _short


class StateError(EncodingError):
    """A parameter value or a state file is invalid."""


T = TypeVar("T")


def param(default, *, lo=None, hi=None, choices=None, even=False, log=False, label="", help="", **extra):
    """A dataclass field with limits: ``lo``/``hi`` (inclusive), ``choices``, ``even`` and display hints."""
    meta = {"lo": lo, "hi": hi, "choices": choices, "even": even, "log": log, "label": label, "help": help}
    meta.update(extra)
    if callable(default):  # computed when a state is made (e.g. from the scheme registry, which can grow)
        return dataclasses.field(default_factory=default, metadata=meta)
    if isinstance(default, (list, tuple)):
        return dataclasses.field(default_factory=lambda: tuple(default), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def fields(state_cls) -> dict[str, dataclasses.Field]:
    """Name -> field, in declaration order."""
    return {f.name: f for f in dataclasses.fields(state_cls)}


def describe(state_cls, name: str) -> str:
    """One-line description of a field's valid values, for error messages and ``--help``."""
    f = fields(state_cls)[name]
    m = f.metadata
    kind = _kind(f)
    if kind == "ids":
        return f"{name}: comma-separated, any of {'|'.join(_choices(m))}"
    if kind == "params":
        return f"{name}: scheme.parameter=value, separated by ';' (see pe-explorer schemes)"
    if m.get("choices"):
        return f"{name}: one of {'|'.join(_choices(m))}"
    rng = ""
    if m.get("lo") is not None or m.get("hi") is not None:
        rng = f" in [{_fmt(m.get('lo'))}, {_fmt(m.get('hi'))}]"
    extra = " (even)" if m.get("even") else ""
    if kind == "tuple":
        return f"{name}: comma-separated whole numbers{rng}{extra}"
    return f"{name}: {kind}{rng}{extra}"


def _fmt(v) -> str:
    if v is None:
        return "…"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _kind(f: dataclasses.Field) -> str:
    if f.metadata.get("kind"):
        return f.metadata["kind"]
    d = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[operator]
    if isinstance(d, bool):
        return "bool"
    if isinstance(d, int):
        return "int"
    if isinstance(d, float):
        return "float"
    if isinstance(d, tuple):
        return "tuple"
    return "str"


def _choices(meta) -> tuple:
    """A field's choices: a tuple, or a callable giving one (e.g. the scheme registry, which can grow)."""
    c = meta.get("choices")
    return tuple(c() if callable(c) else c or ())


#: No parameter of the app needs more: larger integers are refused before any conversion (float()
#: of a 400-digit int overflows; int() of a 5,000-digit text hits Python's digit limit).
MAX_INT_BITS = 63
#: ``--set`` number texts longer than this are refused before float() sees them.
MAX_NUMBER_TEXT = 64


def _number(name: str, value: Any, what: str, *, from_text: bool) -> int | float:
    """``value`` as a plain int or float, bounded *before* any conversion; raise :class:`StateError`.

    In files only JSON numbers are numbers ("64" is text); ``--set`` texts are parsed (short ones only).
    """
    if isinstance(value, bool):
        raise StateError(f"{name} must be {what}, got {_short(value)}")
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise StateError(f"{name} must be {what} in range, got {_short(value)}")
        return value
    if isinstance(value, float):
        return value
    if from_text and isinstance(value, str):
        text = value.strip()
        if len(text) > MAX_NUMBER_TEXT:
            raise StateError(f"{name} must be {what}, got a text of {len(text)} characters")
        try:
            return float(text)
        except ValueError:
            raise StateError(f"{name} must be {what}, got {_short(value)}") from None
    raise StateError(f"{name} must be {what}, got {_short(value)}")


def _whole(name: str, value: Any, *, from_text: bool) -> int:
    v = _number(name, value, "a whole number", from_text=from_text)
    if isinstance(v, float):
        if not math.isfinite(v) or not v.is_integer():
            raise StateError(f"{name} must be a whole number, got {_short(value)}")
        if abs(v) >= 2.0**MAX_INT_BITS:
            raise StateError(f"{name} must be a whole number in range, got {_short(value)}")
        return int(v)
    return v


def _coerce(f: dataclasses.Field, value: Any, *, from_text: bool = False) -> Any:
    kind = _kind(f)
    name = f.name
    if kind == "ids":
        if from_text and isinstance(value, str):
            value = [p for p in value.replace(" ", "").split(",") if p]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise StateError(f"{name} must be a list of names, got {_short(value)}")
        return tuple(value)
    if kind == "params":
        return _coerce_params(name, value, from_text)
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if from_text and isinstance(value, str) and value.lower() in ("1", "true", "yes", "on"):
            return True
        if from_text and isinstance(value, str) and value.lower() in ("0", "false", "no", "off"):
            return False
        raise StateError(f"{name} must be true or false, got {_short(value)}")
    if kind == "int":
        return _whole(name, value, from_text=from_text)
    if kind == "float":
        fv = float(_number(name, value, "a finite number", from_text=from_text))
        if not math.isfinite(fv):
            raise StateError(f"{name} must be a finite number, got {_short(value)}")
        return fv
    if kind == "tuple":
        if from_text and isinstance(value, str):
            parts: list = [p for p in value.replace(" ", "").split(",") if p]
            texts = True
        elif isinstance(value, (list, tuple)):
            parts, texts = list(value), False  # in a file, "1" is text, not a number (as for d_model)
        else:
            raise StateError(f"{name} must be a list of whole numbers, got {_short(value)}")
        try:
            return tuple(_whole(name, p, from_text=texts) for p in parts)
        except StateError:
            raise StateError(f"{name} must be a list of whole numbers, got {_short(value)}") from None
    if not isinstance(value, str):
        raise StateError(f"{name} must be text, got {_short(value)}")
    return value


def _coerce_params(name: str, value: Any, from_text: bool) -> tuple:
    """Per-scheme parameters as a sorted tuple of (scheme, parameter, number) triples.

    JSON: ``{"t5": {"num_buckets": 16}}``; text (``--set``): ``t5.num_buckets=16;t5.max_distance=64``.
    Only plain numbers are accepted (no bools, no text); the scheme's own limits are checked by the state.
    """
    if from_text and isinstance(value, str):
        out: dict = {}
        for part in (p.strip() for p in value.split(";")):
            if not part:
                continue
            key, eq, num = part.partition("=")
            sid, dot, pname = key.strip().partition(".")
            if not (eq and dot and sid and pname):
                raise StateError(f"{name}: expected scheme.parameter=value, got {_short(part)}")
            try:
                if len(num.strip()) > MAX_NUMBER_TEXT:
                    raise ValueError
                out.setdefault(sid, {})[pname] = float(num)
            except ValueError:
                raise StateError(f"{name}: {key.strip()} must be a number, got {_short(num)}") from None
        value = out
    if isinstance(value, tuple) and all(isinstance(t, tuple) and len(t) == 3 for t in value):
        value = _params_dict(value)
    if not isinstance(value, dict):
        raise StateError(f"{name} must be an object of scheme -> {{parameter: number}}, got {_short(value)}")
    triples = []
    for sid, inner in value.items():
        if not isinstance(sid, str) or not isinstance(inner, dict):
            raise StateError(f"{name}: {_short(sid)} must map to an object of parameter: number")
        for pname, v in inner.items():
            if not isinstance(pname, str) or isinstance(v, bool) or not isinstance(v, (int, float)):
                raise StateError(f"{name}: {sid}.{pname} must be a number, got {_short(v)}")
            if isinstance(v, int) and v.bit_length() > MAX_INT_BITS:
                raise StateError(f"{name}: {sid}.{pname} must be a number in range, got {_short(v)}")
            if not math.isfinite(v):
                raise StateError(f"{name}: {sid}.{pname} must be finite, got {_short(v)}")
            triples.append((sid, pname, int(v) if float(v).is_integer() else float(v)))
    return tuple(sorted(triples))


def names(items: list[str], most: int = 6) -> str:
    """Up to ``most`` names, comma-separated, each cut to 40 characters ("… and N more")."""
    shown = [repr(n[:37] + "…") if len(n) > 40 else n for n in items[:most]]
    more = f" and {len(items) - most} more" if len(items) > most else ""
    return ", ".join(shown) + more


def _params_dict(triples: tuple) -> dict:
    out: dict = {}
    for sid, pname, v in triples:
        out.setdefault(sid, {})[pname] = v
    return out


def _check(f: dataclasses.Field, value: Any) -> None:
    m = f.metadata
    name = f.name
    choices = _choices(m)
    if _kind(f) == "ids":
        bad = [v for v in value if v not in choices]
        if bad:
            raise StateError(f"{name}: unknown {names([_short(v) for v in bad])}; valid: {', '.join(choices)}")
        if len(set(value)) != len(value):
            raise StateError(f"{name} lists a name twice: {names(list(value))}")
        return
    if _kind(f) == "params":
        return
    if choices and value not in choices:
        raise StateError(f"{name} must be one of {', '.join(choices)}; got {_short(value)}")
    values = value if isinstance(value, tuple) else (value,)
    if isinstance(value, tuple):
        maxlen = m.get("maxlen")
        if maxlen is not None and len(value) > maxlen:
            raise StateError(f"{name} may hold at most {maxlen} values, got {len(value)}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        if m.get("lo") is not None and v < m["lo"]:
            raise StateError(f"{name} must be at least {_fmt(m['lo'])}, got {_fmt(v)}")
        if m.get("hi") is not None and v > m["hi"]:
            raise StateError(f"{name} must be at most {_fmt(m['hi'])}, got {_fmt(v)}")
        if m.get("even") and int(v) % 2:
            raise StateError(f"{name} must be even, got {v}")


def validate(state) -> None:
    """Check every field against its limits, then the state's own cross-field ``check()`` if any."""
    for f in dataclasses.fields(state):
        value = getattr(state, f.name)
        coerced = _coerce(f, value)
        if coerced != value or type(coerced) is not type(value):
            object.__setattr__(state, f.name, coerced)
        _check(f, coerced)
    check = getattr(state, "check", None)
    if callable(check):
        check()


def to_dict(state) -> dict[str, Any]:
    """Plain JSON-able dict of the state's fields."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(state):
        v = getattr(state, f.name)
        if _kind(f) == "params":
            out[f.name] = _params_dict(v)
        else:
            out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def from_dict(state_cls: type[T], data: Any, *, where: str = "") -> T:
    """Build and validate a state from a dict; unknown keys and bad values raise :class:`StateError`.

    Missing keys take their defaults, so older files keep loading.
    """
    prefix = f"{where}: " if where else ""
    if not isinstance(data, dict):
        raise StateError(f"{prefix}expected an object of parameters, got {type(data).__name__}")
    known = fields(state_cls)
    unknown = sorted(str(k) for k in set(data) - set(known))
    if unknown:
        raise StateError(f"{prefix}unknown parameter(s) {names(unknown)}; valid: {', '.join(known)}")
    kwargs = {}
    try:
        for name, value in data.items():
            kwargs[name] = _coerce(known[name], value)
        return state_cls(**kwargs)
    except StateError as exc:
        raise StateError(f"{prefix}{exc}") from None


def with_value(state: T, key: str, text: str) -> T:
    """A copy of ``state`` with ``key`` parsed from ``text`` (as the CLI's ``--set key=value``)."""
    known = fields(type(state))
    if key not in known:
        raise StateError(f"unknown key {_short(key)}; valid: {', '.join(known)}")
    try:
        value = _coerce(known[key], text, from_text=True)
    except StateError as exc:
        raise StateError(f"{exc}; valid: {describe(type(state), key)}") from None
    try:
        return dataclasses.replace(state, **{key: value})  # type: ignore[type-var]
    except StateError as exc:
        raise StateError(f"{exc}; valid: {describe(type(state), key)}") from None


def parse_value(state_cls, key: str, text: str) -> Any:
    """``text`` parsed as field ``key`` of ``state_cls`` and checked against that field's own limits.

    Cross-field rules (the state's ``check()``) are not applied, so several ``key=value``
    settings can be parsed first and applied together.  Raises :class:`StateError` whose message
    ends with the valid values (``…; valid: base: float in [10, 1e+07]``).
    """
    known = fields(state_cls)
    if key not in known:
        raise StateError(f"unknown key {_short(key)}; valid: {', '.join(known)}")
    try:
        value = _coerce(known[key], text, from_text=True)
        _check(known[key], value)
    except StateError as exc:
        raise StateError(f"{exc}; valid: {describe(state_cls, key)}") from None
    return value


def replace(state: T, **changes) -> T:
    """``dataclasses.replace`` that validates (the state's ``__post_init__`` calls :func:`validate`)."""
    return dataclasses.replace(state, **changes)  # type: ignore[type-var]


class PanelState:
    """Mixin for panel state dataclasses: validates on construction."""

    def __post_init__(self) -> None:
        validate(self)


def toggled_ids(merged: dict, prefix: str, order: tuple[str, ...], field: str = "schemes") -> tuple[str, ...]:
    """``merged[field]`` with every ``<prefix><id>=True/False`` key of ``merged`` applied (and removed).

    The ids come back in ``order`` (the registry's), unknown ones last, so that equal selections compare
    equal whatever order they were ticked in.
    """
    ids = list(merged[field])
    for key in [k for k in merged if k.startswith(prefix)]:
        sid, on = key[len(prefix):], bool(merged.pop(key))
        if on and sid not in ids:
            ids.append(sid)
        elif not on and sid in ids:
            ids.remove(sid)
    return tuple(sorted(ids, key=lambda s: order.index(s) if s in order else len(order)))
