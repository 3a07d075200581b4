"""The scheme registry: every positional scheme is one module of this package, found here by itself.

A module that defines ``SCHEME`` (an instance of a :class:`~explorer.schemes.base.Scheme` subclass) is a
scheme; :func:`all_schemes` lists them in their ``order``.  Nothing else in the app names a scheme: state,
jobs, panels, the Lab and the CLI loop over this registry and call the scheme's hooks.  Adding a scheme is
adding its module (plus its tests and docs).

:func:`register` adds one at run time (the tests use it for a throw-away scheme); :func:`unregister`
removes it again.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading

from ..encodings.errors import EncodingError
from .base import KINDS, Curve, NoEncoding, NotShown, Parameter, PlotSpec, Scheme, Source, SwapTerms
from .tabs import SchemeTab

__all__ = [
    "KINDS",
    "Curve",
    "NoEncoding",
    "NotShown",
    "Parameter",
    "PlotSpec",
    "Scheme",
    "SchemeTab",
    "Source",
    "SwapTerms",
    "all_schemes",
    "get",
    "ids",
    "lab_default_ids",
    "lab_ids",
    "register",
    "swap_ids",
    "tab",
    "tabs",
    "unregister",
]

#: Modules of this package that are not schemes.
_NOT_SCHEMES = {"base"}

_lock = threading.RLock()  # register() loads the registry under it on first use
_registry: dict[str, Scheme] | None = None


def _discover() -> dict[str, Scheme]:
    found: dict[str, Scheme] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name in _NOT_SCHEMES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        scheme = getattr(module, "SCHEME", None)
        if isinstance(scheme, Scheme):
            found[scheme.id] = scheme
    return found


def _schemes() -> dict[str, Scheme]:
    global _registry
    if _registry is None:
        with _lock:
            if _registry is None:
                _registry = _discover()
    return _registry


def all_schemes() -> tuple[Scheme, ...]:
    """Every registered scheme, in registry order."""
    return tuple(sorted(_schemes().values(), key=lambda s: (s.order, s.id)))


def ids() -> tuple[str, ...]:
    """Every scheme id, in registry order."""
    return tuple(s.id for s in all_schemes())


def swap_ids() -> tuple[str, ...]:
    """The schemes the Token-swap panel offers."""
    return tuple(s.id for s in all_schemes() if s.swap_label is not None)


def lab_ids() -> tuple[str, ...]:
    """The schemes the Lab can train."""
    return tuple(s.id for s in all_schemes() if s.in_lab)


def lab_settings() -> tuple[tuple[str, Parameter], ...]:
    """(scheme id, Parameter) for every Lab setting (:attr:`Scheme.lab_parameters`) of every Lab scheme."""
    return tuple((s.id, p) for s in all_schemes() if s.in_lab for p in s.lab_parameters)


def lab_settings_of(scheme_id) -> dict[str, Parameter]:
    """The Lab settings of ``scheme_id`` by name ({} for a scheme without any, or not in the Lab)."""
    return {p.name: p for s, p in lab_settings() if s == scheme_id}


def lab_setting_names() -> str:
    """Every Lab setting as ``scheme.name``, comma-separated, for messages ("none" when there is none)."""
    return ", ".join(f"{s}.{p.name}" for s, p in lab_settings()) or "none"


def lab_default_ids() -> tuple[str, ...]:
    """The schemes a new Lab trains."""
    return tuple(s.id for s in all_schemes() if s.in_lab and s.lab_by_default)


def tabs() -> tuple[tuple[SchemeTab, Scheme], ...]:
    """Every tab the schemes add to the Schemes panel, with its scheme, in tab order."""
    found = [(t, s) for s in all_schemes() for t in s.own_tabs()]
    return tuple(sorted(found, key=lambda ts: ts[0].order))


def tab(view_id: str) -> tuple[SchemeTab, Scheme] | None:
    """The tab ``view_id`` and the scheme that adds it (None: no scheme adds one by that id)."""
    return next(((t, s) for t, s in tabs() if t.id == view_id), None)


def get(scheme_id: str) -> Scheme:
    """The scheme ``scheme_id``, or :class:`EncodingError` listing the valid ids."""
    try:
        return _schemes()[scheme_id]
    except (KeyError, TypeError):
        raise EncodingError(f"unknown scheme {scheme_id!r}; valid: {', '.join(ids())}") from None


def register(scheme: Scheme) -> Scheme:
    """Add ``scheme`` (an instance) to the registry at run time; its id must be new."""
    if not isinstance(scheme, Scheme) or not scheme.id or scheme.kind not in KINDS:
        raise EncodingError("register() takes a Scheme instance with an id and a known kind")
    with _lock:
        reg = _schemes()
        if scheme.id in reg:
            raise EncodingError(f"a scheme with id {scheme.id!r} is already registered")
        taken = {t.id for s in reg.values() for t in s.own_tabs()}
        if clash := sorted(taken & {t.id for t in scheme.own_tabs()}):
            raise EncodingError(f"{scheme.id}: a scheme already adds a tab {clash[0]!r}")
        reg[scheme.id] = scheme
    return scheme


def unregister(scheme_id: str) -> None:
    """Remove a scheme added with :func:`register`."""
    with _lock:
        _schemes().pop(scheme_id, None)
