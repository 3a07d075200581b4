"""The live checks: named computations on the real maths that settle one claim each (no Qt).

A lesson step names a check (``"check": {"name": "rotation_identity", "params": {"k": 8}}``); the
names, their parameters and the values they compute are the documented vocabulary of the lesson
format (``pe-explorer lesson --list-checks``, docs/lessons.md).  A check is a module-level function
``fn(**params) -> (values, passed, computed)`` registered with :func:`check`:

* ``values``: the numbers it computed, by name (a reveal text may show them: ``{error:.1e}``);
* ``passed``: whether they bear out the claim (for a claim a lesson gets wrong, the corrected claim);
* ``computed``: one line saying what was computed, with the numbers in it.

A check states its claim as a property over the whole range a step lets the student choose (every offset,
every pair of words, every head count), never at one lucky value, and it compares the app's own
implementation (the function a panel draws with) against the claim: a deliberately broken implementation
makes it fail (tests/test_lesson_mutations.py breaks each check's implementation and watches it fail).

Every check declares what one run costs (``cost``: the float64 values it holds at once, from its
parameters) and a step may ask for at most :data:`MAX_CHECK_WORK`; a lesson file that asks for more is
refused in one line before anything runs.  ``compare`` names, for each error or percentage a reveal may
show, the value it is measured against (a rounding bound, chance, a baseline), so a reveal can show both
in one line.

:class:`CheckRequest` runs a check as a job of the compute service (it pickles: a name and a tuple of
parameters), so the GUI never computes on its UI thread and never imports torch.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..jobs import job

#: A parameter's kinds: a whole number, a number, a scheme id of the registry, a short name, a line of text.
PARAM_KINDS = ("int", "float", "scheme", "name", "text")
_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,60}$")
MAX_TEXT_PARAM = 200
#: The most float64 values one check may hold at once (2^24: 128 MB; about a second of work or less).
MAX_CHECK_WORK = 2**24
#: Machine epsilon of float64 (the unit every rounding bound is counted in).
EPS = 2.0**-52


class CheckError(ValueError):
    """A check or its parameters are not what the vocabulary allows (one line)."""


@dataclass(frozen=True)
class Param:
    """One parameter of a check: its kind, default (None: required) and range."""

    kind: str
    default: Any = None
    lo: float | None = None
    hi: float | None = None
    help: str = ""

    def coerce(self, name: str, value: Any) -> Any:
        """``value`` checked against this parameter; :class:`CheckError` naming ``name`` and the rule."""
        if self.kind in ("int", "float"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise CheckError(f"{name} must be a number, got {_shown(value)}")
            if not math.isfinite(value):
                raise CheckError(f"{name} must be a finite number")
            if self.kind == "int":
                if value != int(value):
                    raise CheckError(f"{name} must be a whole number, got {value!r}")
                value = int(value)
            else:
                value = float(value)
            if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
                raise CheckError(f"{name} must be {self.lo:g} … {self.hi:g}, got {value:g}")
            return value
        if self.kind == "text":
            if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT_PARAM or any(
                    ord(c) < 32 for c in value):
                raise CheckError(f"{name} must be one line of at most {MAX_TEXT_PARAM} characters, "
                                 f"got {_shown(value)}")
            return value
        if not isinstance(value, str) or not _NAME.match(value):
            raise CheckError(f"{name} must be a short name (letters, digits, _ . -), got {_shown(value)}")
        if self.kind == "scheme":
            from .. import schemes as registry

            if value not in registry.ids():
                raise CheckError(f"{name}: unknown scheme {value!r}; valid: {', '.join(registry.ids())}")
        return value

    def describe(self) -> str:
        rng = f" {self.lo:g} … {self.hi:g}" if self.lo is not None and self.hi is not None else ""
        default = "required" if self.default is None else f"default {self.default}"
        return f"{self.kind}{rng}, {default}" + (f": {self.help}" if self.help else "")


@dataclass(frozen=True)
class Check:
    """A registered check: what it claims, its parameters, the values it reports and its function."""

    name: str
    claim: str
    params: dict[str, Param]
    values: tuple[str, ...]
    fn: Callable[..., tuple[dict, bool, str]]
    #: Seconds it may take (a hint for the pane's "computing…"; torch or a Lab file is slower).
    slow: bool = False
    #: The float64 values one run holds at once, from the resolved parameters (see :data:`MAX_CHECK_WORK`).
    cost: Callable[..., int] | None = None
    #: value -> the value it is compared to (its rounding bound, chance, a baseline).
    compare: dict[str, str] = field(default_factory=dict)

    def work(self, resolved: dict) -> int:
        """What running with ``resolved`` parameters costs (float64 values held at once)."""
        return int(self.cost(**resolved)) if self.cost is not None else 0

    def resolve(self, given: dict | None) -> dict:
        """The parameters with defaults filled in; :class:`CheckError` for unknown, missing or bad ones."""
        given = dict(given or {})
        unknown = sorted(set(given) - set(self.params))
        if unknown:
            valid = ", ".join(self.params) or "none"
            raise CheckError(f"check {self.name}: unknown parameter(s) {', '.join(map(repr, unknown))}; "
                             f"valid: {valid}")
        out = {}
        for pname, spec in self.params.items():
            if pname in given:
                out[pname] = spec.coerce(f"check {self.name}: {pname}", given[pname])
            elif spec.default is None:
                raise CheckError(f"check {self.name}: parameter {pname!r} is required ({spec.describe()})")
            else:
                out[pname] = spec.default
        work = self.work(out)
        if work > MAX_CHECK_WORK:
            raise CheckError(f"check {self.name}: these parameters ask for {work:,} values at once; a lesson step "
                             f"may ask for at most {MAX_CHECK_WORK:,} (fewer positions, a smaller d_model)")
        return out


@dataclass(frozen=True)
class CheckResult:
    """What one check computed: the claim, the values, pass/fail and one line with the numbers."""

    name: str
    claim: str
    params: dict
    values: dict
    passed: bool
    computed: str

    def as_dict(self) -> dict:
        return {"check": self.name, "claim": self.claim, "params": dict(self.params),
                "values": {k: _jsonable(v) for k, v in self.values.items()},
                "computed": self.computed, "passed": bool(self.passed)}


_CHECKS: dict[str, Check] = {}


def check(name: str, claim: str, values: tuple[str, ...], *, slow: bool = False,
          cost: Callable[..., int] | None = None, compare: dict[str, str] | None = None, **params: Param):
    """Decorator: register ``fn`` as the check ``name`` (its parameters as keyword :class:`Param` s)."""

    def register(fn):
        _CHECKS[name] = Check(name, claim, dict(params), tuple(values), fn, slow, cost, dict(compare or {}))
        return fn

    return register


def _load() -> None:
    from . import (  # noqa: F401 - registers the checks
        check_after_rope,
        check_attention,
        check_rope,
        check_rotation,
        check_schemes,
        check_table,
        check_waves,
    )


def all_checks() -> dict[str, Check]:
    """Every check by name, in the order they were registered."""
    _load()
    return dict(_CHECKS)


def get_check(name: object) -> Check:
    """The check named ``name``; :class:`CheckError` listing the vocabulary otherwise."""
    checks = all_checks()
    if not isinstance(name, str) or name not in checks:
        raise CheckError(f"unknown check {_shown(name)} (pe-explorer lesson --list-checks lists all "
                         f"{len(checks)})")
    return checks[name]


def run_check(name: str, params: dict | None = None) -> CheckResult:
    """Run the check ``name`` with ``params`` (validated) and return its :class:`CheckResult`."""
    chk = get_check(name)
    resolved = chk.resolve(params)
    values, passed, computed = chk.fn(**resolved)
    missing = [v for v in chk.values if v not in values]
    if missing:  # a check that does not report what it promises is a bug in the check
        raise CheckError(f"check {name} did not report {', '.join(missing)}")
    return CheckResult(name, chk.claim, resolved, dict(values), bool(passed), computed)


@dataclass(frozen=True)
class CheckRequest:
    """Run one check in the compute service (a lesson step's "Show me")."""

    name: str
    params: tuple = field(default=())  # sorted (name, value) pairs: hashable and equal for equal requests
    key: str = "lesson.check"


@job(CheckRequest)
def compute_check(request: CheckRequest) -> CheckResult:
    return run_check(request.name, dict(request.params))


def sci(x: float, digits: int = 1) -> str:
    """A small number for a line of text: 2.2e-16, and an exact zero as "0" (never "0.0e+00")."""
    return "0" if x == 0 else f"{x:.{digits}e}"


def percent(v: float, digits: int = 1, thousands: bool = False) -> str:
    """A share as a percentage that never reads as its end: 0.99975 is "99.97%", never "100.0%" (and a share
    just above 0 never "0.0%"); it gets the digits that tell it apart (up to six)."""
    comma = "," if thousands else ""
    out = format(v, f"{comma}.{digits}%")
    while v not in (0, 1) and digits < 6 and out in (format(1, f".{digits}%"), format(0, f".{digits}%")):
        digits += 1
        out = format(v, f"{comma}.{digits}%")
    return out


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else f"a text of {len(value)} characters"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    if isinstance(value, bool) or value is None:
        return "true/false" if isinstance(value, bool) else "null"
    return "a number"


def _jsonable(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if hasattr(v, "item"):  # a numpy scalar
        return _jsonable(v.item())
    return v
