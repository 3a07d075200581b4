"""A scheme's record: its identity, traits, sources and parameters, apart from its behaviour (the hooks of
:class:`explorer.schemes.base.Scheme`).  ``pe-explorer schemes --json``, the properties table, the docs' tables
and every panel's list read these; no Qt, no numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from ..encodings.errors import EncodingError
from .query import GRID_FIELDS, SETUP_FIELDS, Query
from .tabs import SchemeTab

#: Where position enters, and how the properties table and ``pe-explorer schemes`` say it.
KINDS = {
    "input": "added to the input",
    "rotary": "rotates q and k",
    "bias": "bias on the scores",
    "score": "a relative term inside the score",
    "none": "none",
}


@dataclass(frozen=True)
class Source:
    """Where a scheme (or a model's use of it) is published."""

    text: str  # "Su et al. 2021, “RoFormer: Enhanced Transformer with Rotary Position Embedding”"
    year: int
    link: str = ""


@dataclass(frozen=True)
class Parameter:
    """A parameter of the scheme itself (shown with its limits; scheme-specific ones are set per scheme).

    ``field`` is the Schemes panel's shared control it is read from (``head_dim``, ``base``, …), or empty
    for a scheme's own parameter, which the panel keeps per scheme (``SchemesState.scheme_params``).
    """

    name: str
    default: float | int
    lo: float | int
    hi: float | int
    label: str = ""
    help: str = ""
    field: str = ""
    integer: bool = True

    def check(self, value) -> float | int:
        """``value`` as this parameter's type, or :class:`EncodingError` naming the range."""
        if isinstance(value, bool):
            raise EncodingError(f"{self.name} must be a number, got {value!r}")
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise EncodingError(f"{self.name} must be a number, got {value!r}") from None
        if not math.isfinite(v) or (self.integer and v != int(v)):
            kind = "a whole number" if self.integer else "a finite number"
            raise EncodingError(f"{self.name} must be {kind}, got {value!r}")
        if not self.lo <= v <= self.hi:
            raise EncodingError(f"{self.name} must be {self.lo:g} … {self.hi:g}, got {v:g}")
        return int(v) if self.integer else v


#: The fields a score view may depend on (a scheme's ``depends_on`` names some of them).
SCORE_FIELDS = ("head_dim", "base", "l_train", "content", "seed", "causal", "scaling", "factor", "heads",
                "alibi_head", "params", "trained")


class SchemeRecord:
    """What a scheme is, apart from what it computes: the fields every list, table and file reads."""


    #: Stable id used in states, presets, requests, files and the CLI.
    id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    #: Its colour in every view: ΔE > 15 from every other scheme's in every theme (tests/test_scheme_registry.py).
    colour: ClassVar[str] = "#202020"
    #: Marker in the Lab's plots (a pyqtgraph symbol name).
    symbol: ClassVar[str] = "o"
    #: "solid", "dash", "dot", "dashdot" or "dashdotdot": how its curves are drawn, a second cue beside the colour.
    line: ClassVar[str] = "solid"
    #: Pens of its score's terms (:meth:`score_terms`) in order; (): all in ``colour``, apart by dash only.
    term_colours: ClassVar[tuple[str, ...]] = ()
    #: Position in every list (registry order).
    order: ClassVar[int] = 100
    description: ClassVar[str] = ""
    sources: ClassVar[tuple[Source, ...]] = ()
    kind: ClassVar[str] = "none"
    relative: ClassVar[bool] = False
    bounded: ClassVar[bool] = True
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    #: Request fields (of the Schemes panel) that this scheme's scores depend on.
    depends_on: ClassVar[tuple[str, ...]] = ()
    #: … and those its distance curve depends on (default: ``depends_on`` less the causal mask, which only
    #: hides the future of the matrix).
    curve_depends_on: ClassVar[tuple[str, ...] | None] = None
    #: The shared fields its :meth:`beyond_plot` reads besides L_eval (None: every one of them).
    beyond_depends_on: ClassVar[tuple[str, ...] | None] = None
    #: Which well-known models use it, with their sources (properties table, ``pe-explorer schemes``).
    used_by: ClassVar[str] = ""
    #: Properties table: where position enters, and whether the score is relative or absolute.
    where: ClassVar[str] = ""
    relation: ClassVar[str] = ""
    #: Shown in the Schemes panel by default.
    shown_by_default: ClassVar[bool] = True
    #: Token swap: its menu entry and one-line tooltip; ``None`` keeps it out of that panel.
    swap_label: ClassVar[str | None] = None
    swap_note: ClassVar[str] = ""
    #: Lab: one-line description on its check box; ``in_lab`` False keeps it out of the Lab.
    in_lab: ClassVar[bool] = False
    #: Ticked in a new Lab (a scheme that only adds to the list may leave it for the user to tick).
    lab_by_default: ClassVar[bool] = True
    lab_note: ClassVar[str] = ""
    #: Lab: the scheme's own settings a Lab run may change (the Lab panel, ``--scheme-param``, the run's
    #: config and results file carry them); a run that sets none trains with their defaults.  Its module
    #: reads them as ``self.lab_params`` (name → value; see :class:`LabPosition`).
    lab_parameters: ClassVar[tuple[Parameter, ...]] = ()
    #: The Schemes panel draws it from the Lab's trained weights when a finished Lab run of this session trained
    #: it (requests then carry them as ``trained``, from :meth:`lab_weights`; list "trained" in ``depends_on``).
    uses_lab_weights: ClassVar[bool] = False

    #: Its positions are places on a line (False for a 2-D scheme: the 1-D views only say why they are empty,
    #: and leave it out of their legends and of RoFormer's bound).
    on_a_line: ClassVar[bool] = True
    #: The patch-grid view draws the scheme (its ``grid_scores``) under this title; a class names its own (a
    #: subclass does not inherit its parent's place in that view).
    grid_title: ClassVar[str] = ""
    #: True for a scheme that can take a real position table (a checkpoint's, the Lab's): Token swap, Schemes.
    uses_table: ClassVar[bool] = False
    #: Views of its own in the Schemes panel (ALiBi's heads, RoPE's real models): see :mod:`explorer.schemes.tabs`.
    tabs: ClassVar[tuple[SchemeTab, ...]] = ()

    def record(self) -> dict:
        """The record as plain JSON (``pe-explorer schemes --json``)."""
        return {
            "id": self.id,
            "title": self.title,
            "colour": self.colour,
            "description": self.description,
            "kind": self.kind,
            "kind_text": KINDS[self.kind],
            "relative": self.relative,
            "bounded": self.bounded,
            "sources": [{"text": s.text, "year": s.year, "link": s.link} for s in self.sources],
            "parameters": [
                {"name": p.name, "default": p.default, "lo": p.lo, "hi": p.hi, "label": p.label or p.name,
                 "help": p.help, "shared_control": p.field or None}
                for p in self.parameters
            ],
            "lab_parameters": [p.name for p in self.lab_parameters],  # settable per Lab run (--scheme-param)
            "used_by": self.used_by,
            "panels": self.panels(),
        }

    def panels(self) -> list[str]:
        """The panels that offer this scheme."""
        out = ["schemes"]
        if self.swap_label is not None:
            out.append("swap")
        if self.in_lab:
            out.append("lab")
        return out

    def own_tabs(self) -> tuple[SchemeTab, ...]:
        """The tabs this scheme's own class adds (a subclass does not inherit its parent's: scaled RoPE adds no
        second "A model's RoPE")."""
        return tuple(type(self).__dict__.get("tabs", ()))

    def own_parameters(self) -> tuple[Parameter, ...]:
        """The parameters that are the scheme's own (not one of the panel's shared controls)."""
        return tuple(p for p in self.parameters if not p.field)

    def fields_for(self, view: str) -> tuple[str, ...]:
        """The request fields a view of this scheme reads: ``"matrices"`` (its scores), ``"distance"`` (its
        distance curve), ``"beyond"`` (its beyond-training plot), ``"setup"`` (the properties table's cells) or
        ``"grid"`` (the patch-grid view); ``l_eval`` and, for a scheme that takes one, ``table`` come with the
        first four."""
        if view == "grid":
            return GRID_FIELDS
        if view == "setup":
            names: tuple[str, ...] = SETUP_FIELDS
        elif view == "distance":
            names = (self.curve_depends_on if self.curve_depends_on is not None
                     else tuple(n for n in self.depends_on if n != "causal"))
        elif view == "beyond":
            names = self.beyond_depends_on if self.beyond_depends_on is not None else SCORE_FIELDS
        elif view == "matrices":
            names = self.depends_on
        else:
            raise ValueError(f"unknown view {view!r}")
        return ("l_eval", *names, *(("table",) if self.uses_table else ()))

    def query(self, source: Any, view: str) -> Query:
        """The fields of ``source`` (a request, a panel state) that ``view`` of this scheme reads, as the typed
        :class:`~explorer.schemes.query.Query` its hooks get: any other field read is an error."""
        return Query.of(self.id, source, self.fields_for(view))
