"""Per-panel parameter objects and the application state that holds them all (no Qt)."""

from .app import PANEL_STATES, PANEL_VIEWS, STATE_VERSION, AppState
from .base import StateError, describe, fields, from_dict, to_dict, validate, with_value
from .schemes import SchemesState
from .swap import SwapState
from .waves import WavesState

__all__ = [
    "PANEL_STATES",
    "PANEL_VIEWS",
    "STATE_VERSION",
    "AppState",
    "SchemesState",
    "StateError",
    "SwapState",
    "WavesState",
    "describe",
    "fields",
    "from_dict",
    "to_dict",
    "validate",
    "with_value",
]
