"""A view a scheme brings to the Schemes panel: a tab of its own, computed off the UI thread.

A scheme lists its tabs in ``tabs`` (a tuple of :class:`SchemeTab`).  The panel adds one tab per record, in
``order`` among its own views (score matrices 1, score vs distance 2, beyond training 3, properties 5, patch grid 7),
numbers the tabs by place, and computes a tab only while it is on screen:

1. the request is the tab's ``fields`` of the panel's state, as a :class:`~explorer.schemes.query.Query`
   (so moving any other control recomputes nothing, and ``compute`` can read nothing else);
2. ``compute(query)`` runs in the compute process and returns a picklable response;
3. the tab's widget shows it: ``widget`` names its Qt view as ``"module:Class"`` (imported by the panel when the tab
   is first shown, so this module stays free of Qt), or, left empty, the panel's plot view draws the
   :class:`~explorer.schemes.parts.PlotSpec` tuple that ``compute`` returns, with Save numbers and the theme.

A widget of its own is a :class:`explorer.panels.schemes.views.SchemesView`: ``show_response(response)``, and
optionally ``export_data(plot)``, ``export_snippet(plot, title)``, ``export_basename(state)``, and the signals
``changeRequested(dict)`` (state fields to change, as its controls are used) and ``failed(str)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .query import FIELD_TYPES, Query

#: The Schemes panel's own views and their places; a scheme's tab takes another id and an ``order`` between them.
PANEL_VIEWS = {"matrices": 1.0, "distance": 2.0, "beyond": 3.0, "properties": 5.0, "grid": 7.0}


@dataclass(frozen=True)
class SchemeTab:
    """One tab a scheme adds to the Schemes panel (see the module's docstring)."""

    #: The view's id: in the panel state's ``view``, session files, scenes and lessons.
    id: str
    #: Its tab's title (the panel puts its number in front: "4 · ALiBi") and the short one where titles do not fit.
    title: str
    short: str
    #: Its place among the panel's tabs.
    order: float
    #: The panel state's fields ``compute`` reads.
    fields: tuple[str, ...]
    #: Query → response, in the compute process.
    compute: Callable[[Query], Any]
    #: ``"module:Class"`` of its Qt view; "" for the panel's plot view of the ``PlotSpec`` tuple ``compute`` returns.
    widget: str = ""
    #: The formula strip's line on this tab, from the panel's state (None: its scheme's line first, then the
    #: shown schemes').
    formula: Callable[[Any], str] | None = None

    def __post_init__(self) -> None:
        unknown = [f for f in self.fields if f not in FIELD_TYPES]
        if unknown:
            raise ValueError(f"tab {self.id!r} reads fields a query cannot hold: {', '.join(unknown)}")
        if not self.id.isidentifier():
            raise ValueError(f"a tab's id must be a Python identifier, got {self.id!r}")
        if self.id in PANEL_VIEWS:
            raise ValueError(f"tab {self.id!r} takes the id of one of the panel's own views ({', '.join(PANEL_VIEWS)})")
