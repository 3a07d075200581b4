"""What a scheme's hooks may read: a typed query holding exactly the fields the scheme declared.

The Schemes panel sends one request per plot carrying only the fields that plot depends on (a scheme's
``depends_on``), so that moving any other control leaves the request equal and nothing is recomputed.  A field
a scheme forgot to declare used to reach its hook as the request's default, silently: the plot then ignored that
control.  The jobs now hand the hooks a :class:`Query` built from the declared fields only, and reading any
other raises :class:`UndeclaredField`, naming the scheme, the field and the fields it did declare.

Which fields a hook family reads:

- the score views (:meth:`~explorer.schemes.base.Scheme.score_blocks`, ``distance_curve`` and their titles,
  marks and snippets): the scheme's ``depends_on`` (``curve_depends_on`` for the distance curve);
- its "beyond training" plot: ``beyond_depends_on`` (every score field when it names none);
- the properties table's cells: :data:`SETUP_FIELDS`, the same for every scheme;
- the patch-grid view: :data:`GRID_FIELDS`.

``l_eval`` is in every query, and ``table`` (a real position table, or None) in those of a scheme that takes
one.  Types are checked by mypy through the annotations below; the set of fields is checked when a hook runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from numbers import Integral, Real
from typing import Any, Protocol

#: Every field a query can hold, with its type (the Schemes panel's request fields).
FIELD_TYPES: dict[str, type] = {
    "l_eval": Integral,
    "head_dim": Integral,
    "base": Real,
    "l_train": Integral,
    "content": str,
    "seed": Integral,
    "causal": bool,
    "scaling": str,
    "factor": Real,
    "heads": Integral,
    "alibi_head": Integral,
    "params": tuple,
    "trained": tuple,
    "table": object,
    "grid_side": Integral,
    "grid_query": Integral,
    "model": str,
    "model_query": Integral,
}
#: How a type is named in a refusal.
KIND_NAMES = {Integral: "a whole number", Real: "a number", str: "text", bool: "True or False", tuple: "a tuple"}
#: What the properties table's cells (``display_title``, ``where_text``, ``parameters_added``, ``past_training``,
#: ``used_by_text``) may read, for every scheme.
SETUP_FIELDS = ("l_eval", "head_dim", "base", "l_train", "heads", "scaling", "factor", "params", "table")
#: What the patch-grid view's ``grid_scores`` may read.
GRID_FIELDS = ("head_dim", "base", "heads", "seed", "grid_side", "grid_query", "params")


class UndeclaredField(AttributeError):
    """A hook read a field its scheme does not declare (an :class:`AttributeError`, so ``getattr`` with a
    default still works for a field that is optional by design)."""


class Query:
    """The fields one scheme's hook may read, typed; any other field raises :class:`UndeclaredField`.

    Immutable, comparable and picklable (it may travel to the compute process).
    """

    __slots__ = ("scheme", "declared", *FIELD_TYPES)

    scheme: str
    declared: tuple[str, ...]
    l_eval: int
    head_dim: int
    base: float
    l_train: int
    content: str
    seed: int
    causal: bool
    scaling: str
    factor: float
    heads: int
    alibi_head: int
    params: tuple
    trained: tuple
    table: Any
    grid_side: int
    grid_query: int
    model: str
    model_query: int

    def __init__(self, scheme: str, values: Mapping[str, Any]) -> None:
        for name, value in values.items():
            kind = FIELD_TYPES.get(name)
            if kind is None:
                raise TypeError(f"a query has no field {name!r}; its fields: {', '.join(FIELD_TYPES)}")
            if not isinstance(value, kind) or (kind in (Integral, Real) and isinstance(value, bool)):
                raise TypeError(f"{scheme}: field {name!r} must be {KIND_NAMES.get(kind, kind.__name__)}, "
                                f"got {value!r}")
            object.__setattr__(self, name, value)
        object.__setattr__(self, "scheme", scheme)
        object.__setattr__(self, "declared", tuple(values))

    @classmethod
    def of(cls, scheme: str, source: Any, names: Iterable[str]) -> Query:
        """The fields ``names`` of ``source`` (a request or a panel state) as the query of ``scheme``."""
        return cls(scheme, {n: getattr(source, n) for n in dict.fromkeys(names)})

    def __getattr__(self, name: str) -> Any:  # only reached for a field that was not set
        if name in FIELD_TYPES:
            raise UndeclaredField(
                f"scheme {self.scheme!r} read {name!r}, which it does not declare for this view "
                f"(declared: {', '.join(self.declared) or 'none'}); add it to the scheme's depends_on")
        raise AttributeError(f"a query has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a query is immutable")

    def items(self) -> tuple[tuple[str, Any], ...]:
        return tuple((n, getattr(self, n)) for n in self.declared)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Query):
            return NotImplemented
        return self.scheme == other.scheme and dict(self.items()) == dict(other.items())

    def __hash__(self) -> int:
        return hash((self.scheme, frozenset(self.declared)))

    def __reduce__(self):
        return (Query, (self.scheme, dict(self.items())))

    def __repr__(self) -> str:
        return f"Query({self.scheme!r}, " + ", ".join(f"{n}={v!r}" for n, v in self.items()) + ")"


class SchemesSetup(Protocol):
    """What a scheme's Schemes-panel text hooks (``check_setup``, ``formula_line``, ``grid_formula``) read of
    the panel's state (:class:`explorer.state.SchemesState` has these fields)."""

    @property
    def head_dim(self) -> int: ...
    @property
    def base(self) -> float: ...
    @property
    def l_train(self) -> int: ...
    @property
    def l_eval(self) -> int: ...
    @property
    def content(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def causal(self) -> bool: ...
    @property
    def scaling(self) -> str: ...
    @property
    def factor(self) -> float: ...
    @property
    def heads(self) -> int: ...
    @property
    def alibi_head(self) -> int: ...
    @property
    def schemes(self) -> tuple: ...
    @property
    def grid_side(self) -> int: ...
    @property
    def model(self) -> str: ...
    def params_of(self, scheme: str) -> tuple: ...


class SwapSetup(Protocol):
    """What a scheme's Token-swap text hooks (``swap_reason``, ``swap_formula``, ``swap_snippet``, …) read of
    that panel's state (:class:`explorer.state.SwapState` has these fields)."""

    @property
    def heads(self) -> int: ...
    @property
    def d_model(self) -> int: ...
    @property
    def alpha(self) -> float: ...
    @property
    def seed(self) -> int: ...
    @property
    def causal(self) -> bool: ...
