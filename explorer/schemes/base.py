"""What a positional scheme is: its record (identity, traits, sources, parameters) and the hooks every layer calls.

A scheme is one subclass of :class:`Scheme` in one module of :mod:`explorer.schemes`; the registry finds it.
Panels, jobs, the Lab and the CLI loop over the registry and call these hooks — none of them names a scheme.

Hooks, by layer (each has a default, so a scheme only writes what it has):

Schemes panel (position-only scores, content removed — see :mod:`explorer.jobs.schemes`)
    :meth:`Scheme.score_blocks` — ΔS as exact block means over a :class:`~explorer.encodings.blocks.Blocks`
    grid (:meth:`Scheme.matrix_marks`: diagonals it marks on it); :meth:`Scheme.distance_curve` — ΔS against
    Δ = i − j (:meth:`Scheme.score_terms`: the score's parts drawn apart; ``marks``: distances it marks);
    :meth:`Scheme.beyond_plot` — an extra plot for the "beyond training" view; :meth:`Scheme.past_training`,
    :meth:`Scheme.parameters_added` — cells of the properties table.  ``depends_on`` names the request fields
    the scores depend on, so that moving any other control leaves the request equal and nothing is recomputed.
Token swap
    :meth:`Scheme.swap_terms` — what the scheme does to one attention layer (a vector added to the input, a
    rotation of q and k, a bias on the scores, a term of the queries and keys); :meth:`Scheme.swap_reason`
    and :meth:`Scheme.swap_formula`.
Lab
    :meth:`Scheme.lab_module` — the torch module the tiny transformer trains with (see :class:`LabPosition`).
CLI
    :meth:`Scheme.add_data_commands` — the scheme's own ``pe-explorer data`` subcommands.
Copy as Python (:mod:`explorer.snippets`)
    :meth:`Scheme.score_snippet` — numpy code for the Schemes panel's ΔS matrix; :meth:`Scheme.swap_snippet`
    — numpy code for what the scheme does to the Token-swap layer.  The default is an honest
    :class:`NoSnippet` ("no snippet for this scheme yet"): the menu item is then disabled and says so.

No Qt here; torch only inside the Lab hook.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..encodings.blocks import Blocks, distance_grid
from ..encodings.errors import EncodingError
from ._helpers import (  # noqa: F401 - the schemes import these from here
    AVERAGE_VECTORS,
    BAND_QUERIES,
    band,
    band_queries,
    content_vectors,
    future_mask,
    mirror_blind,
    num_html,
    pair_energy,
)

#: Where position enters, and how the properties table and ``pe-explorer schemes`` say it.
KINDS = {
    "input": "added to the input",
    "rotary": "rotates q and k",
    "bias": "bias on the scores",
    "score": "a relative term inside the score",
    "none": "none",
}

#: Distances at which that band is evaluated.
BAND_POINTS = 2048
#: Distances × pairs one curve may cost (d = 1024 gets 16,384 distances, d ≤ 512 the full request).
CURVE_BUDGET = 2**23


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


class NoEncoding(EncodingError):
    """The scheme has no encoding for a requested position (a learned table past its last row)."""


class NotShown(EncodingError):
    """The scheme cannot draw this configuration; the message says why (shown in place of the plot)."""


@dataclass(frozen=True)
class Curve:
    """ΔS against Δ = i − j ≥ 0 for one scheme (the Schemes panel's second view)."""

    distance: np.ndarray
    mean: np.ndarray  # exact mean of ΔS over all pairs (i, i − Δ)
    stride: int = 1
    lo: np.ndarray | None = None  # band over BAND_QUERIES query positions (absolute schemes)
    hi: np.ndarray | None = None
    band_distance: np.ndarray | None = None
    bound: np.ndarray | None = None  # RoFormer's long-term-decay bound (rotary schemes)
    marks: tuple = ()  # (Δ, label) vertical marks the scheme wants drawn (bucket edges, clipping …)
    note: str = ""
    #: The score's terms drawn apart, (name, values at ``distance``) pairs (Transformer-XL's four); () for none.
    terms: tuple = ()


@dataclass(frozen=True)
class PlotSpec:
    """A small line plot a scheme adds to the "beyond training" view."""

    title: str
    x: np.ndarray
    y: np.ndarray
    x_label: str
    y_label: str
    marks: tuple = ()  # (x, label)
    log_x: bool = False
    step: bool = False  # draw as steps (bucket indices)
    log_y: bool = False  # a log y axis (values ≤ 0 are left out: a frequency set to 0 is not drawn)
    x_range: tuple[float, float] | None = None  # the x axis's span (None: fit the data)


@dataclass(frozen=True)
class SwapTerms:
    """What one scheme does to the Token-swap panel's attention layer for n tokens.

    ``added`` (n, d) is added to the embeddings (× α); ``rotate(x)`` rotates one head's (n, d_h) queries or
    keys by their positions; ``rotate_k(x)``, when given, is what keys get instead (xPos scales queries and
    keys oppositely); ``bias`` (H, n, n) is added to the scores before the mask; ``score`` and ``value`` are
    terms that depend on the queries, keys or weights themselves.
    """

    added: np.ndarray | None = None
    rotate: Callable[[np.ndarray], np.ndarray] | None = None
    bias: np.ndarray | None = None
    rotate_k: Callable[[np.ndarray], np.ndarray] | None = None
    #: ``score(q, k)`` (H, n, d_h) each → (H, n, n) added to the scaled scores (a relative key term).
    score: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    #: ``value(weights)`` (H, n, n) → (H, n, d_h) added to the outputs (Shaw's relative values).
    value: Callable[[np.ndarray], np.ndarray] | None = None
    #: ``contextual(q, k)`` → (gates, positions), each (H, n, n): the positions a scheme counts from the content
    #: (CoPE), which the Token-swap panel shows before and after the swap; None for the others.
    contextual: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None


def lit(value) -> str:
    """``value`` as Python source a snippet can hold: floats round-trip exactly (``repr``), tuples stay tuples."""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    if isinstance(value, tuple):
        return "(" + ", ".join(lit(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(lit(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        return "np.array(" + lit(value.tolist()) + ")"
    if isinstance(value, (np.integer, np.floating)):
        return lit(value.item())
    return repr(value)


@dataclass(frozen=True)
class SnippetPart:
    """A scheme's piece of a Copy-as-Python program: numpy code that defines the names in ``defines``.

    ``params`` are extra ``(name, value, comment)`` lines for the program's top; ``imports`` extra standard
    modules.  The code may use the names the snippet generator documents for that hook (see the hooks).
    """

    code: str
    defines: tuple[str, ...] = ()
    params: tuple[tuple[str, Any, str], ...] = ()
    imports: tuple[str, ...] = ()


def keeps(scheme: Any, owner: type, *names: str) -> bool:
    """True while ``scheme`` computes each method in ``names`` as ``owner`` does.

    A snippet hook describes its own class's formula; a subclass that overrides the computation (a RoPE
    variant with its own scores) must not inherit it silently: the hook then answers the base default.
    """
    return all(getattr(type(scheme), n) is getattr(owner, n) for n in names)


@dataclass(frozen=True)
class NoSnippet:
    """Why a plot (or a scheme's part of it) has no Copy-as-Python snippet; shown as the disabled item's tooltip.

    ``declared`` is False only for the base classes' defaults: a plot someone added without saying whether it
    can have a snippet (the tests fail on those, and accept a declared reason).
    """

    reason: str
    declared: bool = True


class Scheme:
    """One positional scheme: its record and hooks.  Subclass it in one module of :mod:`explorer.schemes`."""

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

    # -- identity ------------------------------------------------------------------------------
    def display_title(self, req: Any = None) -> str:
        """The title for this configuration (a variant may name its method)."""
        return self.title

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

    def fields_for(self, view: str) -> tuple[str, ...]:
        """The request fields the ``"matrices"`` or ``"distance"`` view of this scheme depends on."""
        if view == "distance":
            if self.curve_depends_on is not None:
                return self.curve_depends_on
            return tuple(n for n in self.depends_on if n != "causal")
        return self.depends_on

    def check_setup(self, st: Any) -> str:
        """Why the Schemes panel's state ``st`` is invalid for this scheme ("" when it is valid)."""
        return ""

    def max_positions(self, train_len: int) -> int | None:
        """The most positions the scheme can encode after training to ``train_len`` (``None``: any)."""
        return None

    def own_parameters(self) -> tuple[Parameter, ...]:
        """The parameters that are the scheme's own (not one of the panel's shared controls)."""
        return tuple(p for p in self.parameters if not p.field)

    def param(self, req: Any, name: str):
        """The value of own parameter ``name`` carried by ``req.params`` (its default when absent)."""
        for key, value in getattr(req, "params", ()) or ():
            if key == name:
                return value
        for p in self.parameters:
            if p.name == name:
                return p.default
        raise KeyError(name)

    # -- Schemes panel ---------------------------------------------------------------------------
    def score_blocks(self, req: Any, bl: Blocks) -> np.ndarray:
        """ΔS[i, j] = score with position − score without, as exact block means over ``bl`` × ``bl``.

        NaN marks cells with no value (a masked future, a position the scheme cannot encode).  Raise
        :class:`NotShown` with the reason when this configuration cannot be drawn at all.
        """
        return np.zeros((bl.n, bl.n))

    def curve_length(self, req: Any) -> int:
        """How many positions the distance curve averages over (a table may have fewer rows)."""
        return int(req.l_eval)

    def distance_values(self, req: Any, dist: np.ndarray) -> Curve:
        """ΔS at the distances ``dist`` (override this, or :meth:`distance_curve` for full control)."""
        return Curve(dist, np.zeros(dist.size))

    def distance_curve(self, req: Any, max_points: int) -> Curve:
        """ΔS against Δ = i − j ≥ 0: the exact mean over all pairs (i, i − Δ) inside the curve length."""
        n = self.curve_length(req)
        d = max(2, int(getattr(req, "head_dim", 2)))
        dist, stride = distance_grid(n, min(max_points, max(4096, CURVE_BUDGET // max(1, d // 2))))
        c = self.distance_values(req, dist)
        terms = c.terms or tuple(self.score_terms(req, c.distance))
        return Curve(c.distance, c.mean, stride, c.lo, c.hi, c.band_distance, c.bound, c.marks, c.note, terms)

    def score_terms(self, req: Any, dist: np.ndarray) -> tuple:
        """The score split into named terms at the distances ``dist``: (name, values) pairs, drawn apart beside
        the distance curve (Transformer-XL's four); () for a scheme whose score is not such a sum."""
        return ()

    def matrix_title(self, req: Any) -> str:
        """The score matrix's title for this request ("": the scheme's title), e.g. whose weights it draws."""
        return ""

    def missing_note(self, req: Any) -> str:  # text over score-matrix cells past what it encodes ("": none)
        return ""

    def matrix_marks(self, req: Any) -> tuple:
        """(Δ, label) pairs: diagonals i − j = Δ the score matrix marks (Shaw's clipping distance; () for none)."""
        return ()

    def formula_line(self, st: Any) -> str:
        """The Schemes panel's formula-strip line for this scheme with ``st``'s numbers ("" for none)."""
        return ""

    def beyond_plot(self, req: Any) -> PlotSpec | None:
        """An extra plot for the "beyond training" view (``None``: the scheme has none)."""
        return None

    def past_training(self, req: Any) -> str:
        """The properties table's "past L_train" cell for this configuration."""
        return ""

    #: Its positions are places on a line (False for a 2-D scheme: the 1-D views only say why they are empty,
    #: and leave it out of their legends and of RoFormer's bound).
    on_a_line: ClassVar[bool] = True

    #: The patch-grid view draws the scheme (its :meth:`grid_scores`) under this title; a class names its own (a
    #: subclass does not inherit its parent's place in that view).
    grid_title: ClassVar[str] = ""

    def grid_formula(self, st: Any) -> str:
        """The patch-grid view's formula-strip line for this scheme ("" for none)."""
        return ""

    def grid_scores(self, req: Any) -> np.ndarray | None:
        """The expected score of patch ``req.grid_query`` with every patch of a ``req.grid_side`` square grid,
        (side, side), for the patch-grid view; None for a scheme that has no picture on a grid (the default)."""
        return None

    def where_text(self, req: Any) -> str:
        """The properties table's "where position enters" cell for this configuration."""
        return self.where

    def used_by_text(self, req: Any) -> str:
        """The properties table's "used by" cell for this configuration."""
        return self.used_by

    def parameters_added(self, req: Any) -> int:
        """Trainable numbers the scheme adds (for one head of width d trained to L_train)."""
        return 0

    def parameters_text(self, req: Any) -> str:
        """The properties table's "parameters added" cell."""
        n = self.parameters_added(req)
        return f"{n:,}" if n else "0 (nothing trained)"

    # -- Token swap ------------------------------------------------------------------------------
    def swap_terms(self, n: int, d_model: int, heads: int, seed: int, causal: bool) -> SwapTerms:
        """What the scheme adds to the Token-swap panel's attention over ``n`` tokens."""
        return SwapTerms()

    def swap_reason(self, st: Any) -> str:
        """Why this scheme makes the outputs depend on position (one or two sentences)."""
        return ""

    #: True for a scheme that can take a real position table (a checkpoint's, the Lab's): Token swap, Schemes.
    uses_table: ClassVar[bool] = False

    def swap_terms_with_table(self, table: np.ndarray | None, n: int, d_model: int, heads: int, seed: int,
                              causal: bool) -> SwapTerms:
        """:meth:`swap_terms` with a real table offered (rows = positions); only :attr:`uses_table` schemes use it."""
        return self.swap_terms(n, d_model, heads, seed, causal)

    def swap_reason_with_table(self, st: Any, table_name: str) -> str:
        """:meth:`swap_reason` when the rows came from the real table ``table_name``."""
        return self.swap_reason(st)

    def swap_invisible(self, st: Any, keeps_distances: bool) -> tuple[str, str] | None:
        """(headline, explanation) when this scheme provably cannot see the swap, else ``None``."""
        return None

    def swap_formula(self, st: Any, dh: int) -> dict:
        """Formula-strip pieces: ``score`` (replaces QKᵀ), ``extra`` (added to the score), ``input`` (what X
        is), ``notes`` (further clauses).  Strings of rich text; missing keys keep the plain attention."""
        return {}

    # -- Copy as Python ----------------------------------------------------------------------------
    def score_snippet(self, req: Any) -> SnippetPart | NoSnippet:
        """numpy code that sets ``delta_s`` (L, L): ΔS[i, j] at every query i and key j < L = ``req.l_eval``.
        It may use ``L``, ``d`` (head_dim), ``base``, ``l_train``, ``seed``, ``causal``, ``heads``,
        ``alibi_head``, ``c`` (the (count, d) content vectors) and ``np``; put the scheme's own parameters
        in :attr:`SnippetPart.params`; it blanks future cells (j > i) when causal.  Default: none yet."""
        return NoSnippet(f"no snippet for {self.title} yet")

    def swap_snippet(self, st: Any) -> SnippetPart | NoSnippet:
        """numpy code for the Token-swap layer, run with ``n`` (tokens), ``d_model``, ``heads``, ``dh`` (head
        width), ``seed``, ``causal`` and ``alpha`` set; it defines any of ``added`` ((n, d_model), added to the
        embeddings × α), ``rotate`` (a function of one head's (n, dh) q or k) and ``bias`` ((heads, n, n) on the
        scores), ``rotate_k``, ``score(q, k)``, ``value(weights)``, named in :attr:`SnippetPart.defines`."""
        return NoSnippet(f"no snippet for {self.title} yet")

    def beyond_snippet(self, req: Any) -> SnippetPart | NoSnippet:
        """numpy code setting ``x``, ``y`` of :meth:`beyond_plot` (``l_eval`` and score_snippet's fields set)."""
        return NoSnippet(f"no snippet for {self.title}'s plot yet")

    # -- Lab -------------------------------------------------------------------------------------
    def lab_module(self, d_model: int, heads: int, train_len: int):
        """The torch module the Lab's tiny transformer trains with (see :class:`LabPosition`)."""
        return lab_position_class()(self, d_model, heads, train_len)

    def lab_values(self, given: Any = ()) -> dict:
        """Every :attr:`lab_parameters` value: its default, overridden by ``given`` (a mapping or pairs)."""
        values = {p.name: p.default for p in self.lab_parameters}
        values.update(dict(given))
        return values

    def lab_setting(self, values: dict, layers: int) -> str:
        """One line saying what a Lab model of ``layers`` blocks does with ``values`` (its
        :attr:`lab_parameters`), for the panel, the CLI and the results file; "" for a scheme without any."""
        return ""

    def lab_weights(self, module) -> tuple:
        """The trained numbers of ``module`` (its :meth:`lab_module`) that the Schemes panel can draw, as a
        hashable tuple, or () for none (only for ``uses_lab_weights`` schemes)."""
        return ()

    # -- CLI -------------------------------------------------------------------------------------
    def add_data_commands(self, subparsers, cli: Any) -> None:
        """Add this scheme's own ``pe-explorer data`` subcommands to ``subparsers`` (argparse).

        ``cli`` is the data command's toolkit (:class:`explorer.commands.data.DataCommands`): ``cli.out(p)``
        adds the ``--out`` option; ``cli.whole()`` and ``cli.number()`` are the argparse ``type`` of every
        numeric option (bounded before conversion, finite); ``cli.write(args, compute, meta=None, shape=None)``
        checks ``args.out`` (format, with ``shape`` the result's size, the path) before calling ``compute()``
        for the array, writes it atomically and turns an :class:`EncodingError` into one line on stderr and
        exit status 2; ``cli.load_matrix(path, out=None)`` reads a 2-D ``.npy`` input (header first).  A
        handler set with ``set_defaults(func=...)`` returns the command's exit status.
        """


@functools.lru_cache(maxsize=1)
def lab_position_class():
    """:class:`LabPosition`, built on first use so that torch is imported only by the Lab."""
    from torch import nn

    class LabPosition(nn.Module):
        """Where position enters the Lab's transformer; the default adds nothing anywhere (NoPE).

        ``add(x)`` (batch, n, d) → x with positions added; ``rotary(n, head_dim, device, dtype)`` → (cos, sin)
        tables of the angles (n, head_dim/2), or (cos_q, sin_q, cos_k, sin_k) when keys turn differently
        from queries (xPos), or ``None``; ``bias(n, device, dtype)`` → (heads, n, n) added to the scaled
        scores (with −inf above the diagonal: the causal mask), or ``None`` for plain causal attention;
        ``layer(index, rotary, bias)`` → the (rotary, bias) block ``index`` (0-based) uses — every block the
        same by default (a NoPE/RoPE hybrid drops the rotation in some); ``check_length(n)`` raises
        :class:`NoEncoding` when there is no encoding for a position < n.  Subclasses keep their tensors per
        length in ``self.cached``.

        Per layer (defaults change nothing): ``setup_layers(layers)`` is called once after construction
        (make per-layer parameters there); ``layer_bias(layer, n, device, dtype, shared)`` → the bias of that
        layer (default: ``shared``, what ``layer`` gave); ``score_extra(layer, q, k)`` → (batch, heads, n, n)
        added to the scaled scores, or ``None`` (a relative key term: Shaw, Transformer-XL);
        ``value_extra(layer, weights)`` → (batch, heads, n, d_head) added to the attention's output, or
        ``None``; a module that uses it sets ``needs_weights = True`` so the weights are computed explicitly.

        ``lab_params`` holds the scheme's :attr:`Scheme.lab_parameters` for this run (name → value): their
        defaults, replaced by :meth:`configure` (called by the model before ``setup_layers``).
        """

        needs_weights = False

        def __init__(self, scheme: Scheme, d_model: int, heads: int, train_len: int) -> None:
            super().__init__()
            self.scheme_id = scheme.id
            self.d_model, self.heads, self.train_len = d_model, heads, train_len
            self._cache: dict[tuple, Any] = {}
            self.lab_params: dict[str, Any] = scheme.lab_values()

        def configure(self, params) -> None:
            """This run's values of the scheme's Lab parameters (a mapping; missing ones keep their default)."""
            self.lab_params = {**self.lab_params, **dict(params)}

        def cached(self, kind: str, n: int, device, build):
            key = (kind, n, str(device))
            if key not in self._cache:
                self._cache[key] = build()
            return self._cache[key]

        def add(self, x):
            return x

        def rotary(self, n: int, head_dim: int, device, dtype):
            return None

        def bias(self, n: int, device, dtype):
            return None

        def layer(self, index: int, rotary, bias):
            return rotary, bias

        def check_length(self, n: int) -> None:
            return None

        def setup_layers(self, layers: int) -> None:
            return None

        def layer_bias(self, layer: int, n: int, device, dtype, shared):
            return shared

        def score_extra(self, layer: int, q, k):
            return None

        def value_extra(self, layer: int, weights):
            return None

        def trained_table(self):
            """The position table this module learned, (positions, d) float64 numpy; None if it has none."""
            return None

    return LabPosition
