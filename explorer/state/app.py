"""The application state: every panel's parameters in one object, JSON with a version field."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .base import StateError, from_dict, to_dict
from .schemes import SchemesState
from .swap import SwapState
from .waves import WavesState

STATE_VERSION = 1

#: panel id -> its state class.  Panel ids are also the CLI's ``--panel`` names.
PANEL_STATES = {"waves": WavesState, "swap": SwapState, "schemes": SchemesState}


@dataclass(frozen=True)
class AppState:
    """All parameters of all panels."""

    waves: WavesState = field(default_factory=WavesState)
    swap: SwapState = field(default_factory=SwapState)
    schemes: SchemesState = field(default_factory=SchemesState)

    def to_json_dict(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "panels": {k: to_dict(getattr(self, k)) for k in PANEL_STATES}}

    def to_json(self) -> str:
        return json.dumps(self.to_json_dict(), indent=2, sort_keys=False)

    @classmethod
    def from_json_dict(cls, data: Any) -> AppState:
        """Validate everything first; a bad file raises :class:`StateError` and builds nothing."""
        if not isinstance(data, dict):
            raise StateError("not a PE Explorer state: expected a JSON object")
        version = data.get("version")
        if version != STATE_VERSION:
            raise StateError(f"unsupported state version {version!r}; this app reads version {STATE_VERSION}")
        panels = data.get("panels", {})
        if not isinstance(panels, dict):
            raise StateError("'panels' must be an object")
        unknown = sorted(set(panels) - set(PANEL_STATES))
        if unknown:
            raise StateError(f"unknown panel(s) {', '.join(unknown)}; valid: {', '.join(PANEL_STATES)}")
        built = {k: from_dict(PANEL_STATES[k], v, where=k) for k, v in panels.items()}
        return cls(**built)

    @classmethod
    def from_json(cls, text: str) -> AppState:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise StateError(f"not valid JSON: {exc}") from None
        return cls.from_json_dict(data)
