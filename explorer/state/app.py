"""The application state: every panel's parameters in one object, JSON with a version field.

File format (version 2)::

    {"version": 2,
     "panels": {"waves": {"d_model": 512, ...}, "swap": {...}, "schemes": {...}, "lab": {...}}}

Every panel object is validated field by field and then as a whole (cross-field checks); a panel
or a parameter the file leaves out takes its default, so files written by an older version keep
loading, and files of version 1 are upgraded panel by panel (:data:`MIGRATIONS`).  Anything else — not
an object, a missing or different version, an unknown panel or
parameter, a value out of range — raises :class:`StateError` and builds nothing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..fileio import InputError, parse_json_text
from . import lab as lab_state
from . import schemes as schemes_state
from . import swap as swap_state
from .base import StateError, _short, from_dict, names, to_dict
from .lab import LabState
from .schemes import SchemesState
from .swap import SwapState
from .table import VIEWS as TABLE_VIEWS
from .table import TableState
from .waves import WavesState

STATE_VERSION = 2
#: Older versions this app still reads: version -> panel id -> function upgrading that panel's object.
#: Version 1 named schemes by flags (``show_rope``, ``scheme_rope``) and NoPE ``"none"`` in Token swap.
MIGRATIONS = {1: {"swap": swap_state.migrate_v1, "schemes": schemes_state.migrate_v1,
                  "lab": lab_state.migrate_v1}}

#: panel id -> its state class.  Panel ids are also the CLI's ``--panel`` names.
PANEL_STATES = {"waves": WavesState, "swap": SwapState, "schemes": SchemesState, "lab": LabState,
                "table": TableState}
#: The views (tabs) of the panels that have several, by the ids a lecture scene may name.
class _PanelViews(Mapping[str, tuple[str, ...]]):
    """Panel id → its views; the Schemes panel's are read from the registry each time (a scheme may add one)."""

    _fixed = {"waves": ("table", "relative", "beyond", "why"), "table": TABLE_VIEWS}

    def __getitem__(self, panel: str) -> tuple[str, ...]:
        return schemes_state.views() if panel == "schemes" else self._fixed[panel]

    def __iter__(self) -> Iterator[str]:
        return iter(("waves", "schemes", "table"))

    def __len__(self) -> int:
        return 3


PANEL_VIEWS: Mapping[str, tuple[str, ...]] = _PanelViews()

#: The top-level keys of a state file.
STATE_KEYS = ("version", "panels")


@dataclass(frozen=True)
class AppState:
    """All parameters of all panels."""

    waves: WavesState = field(default_factory=WavesState)
    swap: SwapState = field(default_factory=SwapState)
    schemes: SchemesState = field(default_factory=SchemesState)
    lab: LabState = field(default_factory=LabState)
    table: TableState = field(default_factory=TableState)

    # -- access ----------------------------------------------------------------------------------
    def get(self, panel_id: str):
        """The state of panel ``panel_id``."""
        if not isinstance(panel_id, str) or panel_id not in PANEL_STATES:
            raise StateError(f"unknown panel {_short(panel_id)}; valid: {', '.join(PANEL_STATES)}")
        return getattr(self, panel_id)

    def replace(self, **panels) -> AppState:
        """A copy with some panels' states replaced (each must be its panel's state class)."""
        for pid, st in panels.items():
            cls = PANEL_STATES.get(pid)
            if cls is None:
                raise StateError(f"unknown panel {_short(pid)}; valid: {', '.join(PANEL_STATES)}")
            if not isinstance(st, cls):
                raise StateError(f"{pid}: expected {cls.__name__}, got {type(st).__name__}")
        return dataclasses.replace(self, **panels)

    # -- JSON ------------------------------------------------------------------------------------
    def to_json_dict(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "panels": {k: to_dict(getattr(self, k)) for k in PANEL_STATES}}

    def to_json(self) -> str:
        return json.dumps(self.to_json_dict(), indent=2, sort_keys=False, ensure_ascii=False)

    @classmethod
    def from_json_dict(cls, data: Any, *, extra_keys: tuple[str, ...] = ()) -> AppState:
        """Validate everything first; a bad file raises :class:`StateError` and builds nothing.

        ``extra_keys`` are further top-level keys the caller reads itself (a preset's title, …);
        any other unknown top-level key is an error, so a typo never passes silently.
        """
        if not isinstance(data, dict):
            raise StateError(f"not a PE Explorer state: expected a JSON object, got {_json_type(data)}")
        allowed = STATE_KEYS + tuple(extra_keys)
        unknown = sorted(str(k) for k in set(data) - set(allowed))
        if unknown:
            raise StateError(f"unknown top-level key(s) {names(unknown)}; valid: {', '.join(allowed)}")
        if "version" not in data:
            raise StateError(
                f"unsupported state version: no 'version' field; this app reads version {STATE_VERSION}"
            )
        version = data["version"]
        if type(version) is not int or (version != STATE_VERSION and version not in MIGRATIONS):
            readable = ", ".join(str(v) for v in sorted((*MIGRATIONS, STATE_VERSION)))
            raise StateError(f"unsupported state version {_short(version)}; this app reads versions {readable}")
        if "panels" not in data:
            raise StateError(f"missing 'panels' (an object with any of: {', '.join(PANEL_STATES)})")
        panels = data["panels"]
        if not isinstance(panels, dict):
            raise StateError(f"'panels' must be an object, got {_json_type(panels)}")
        unknown = sorted(str(k) for k in set(panels) - set(PANEL_STATES))
        if unknown:
            raise StateError(f"unknown panel(s) {names(unknown)}; valid: {', '.join(PANEL_STATES)}")
        upgrade = MIGRATIONS.get(version, {})
        built: dict[str, Any] = {}
        for k, v in panels.items():
            if k in upgrade and isinstance(v, dict):
                v = upgrade[k](v)
            built[k] = from_dict(PANEL_STATES[k], v, where=k)
        return cls(**built)

    @classmethod
    def from_json(cls, text: str, *, extra_keys: tuple[str, ...] = ()) -> AppState:
        """Parse ``text`` with the one safe JSON reader (:func:`explorer.fileio.parse_json_text`)."""
        try:
            data = parse_json_text(text, what="state")
        except InputError as exc:
            raise StateError(str(exc)) from None
        return cls.from_json_dict(data, extra_keys=extra_keys)


def _json_type(x: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "text",
        bool: "true/false",
        type(None): "null",
        int: "a number",
        float: "a number",
    }.get(type(x), type(x).__name__)
