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

What the hooks read is typed: the score, beyond-training, properties and patch-grid hooks get a
:class:`~explorer.schemes.query.Query` holding only the fields the scheme declares (``depends_on`` …), so a field
it forgot is an error naming it, not a silent default; the text hooks get the panel's state through the
:class:`~explorer.schemes.query.SchemesSetup` and :class:`~explorer.schemes.query.SwapSetup` protocols.  The record
(identity, traits) is :class:`~explorer.schemes.record.SchemeRecord`; what hooks return is in
:mod:`explorer.schemes.parts`.

A Copy-as-Python hook describes the computation of the class that defines it: a subclass that overrides that
computation (the hooks in :data:`SNIPPET_DESCRIBES`, or a helper the class names in ``snippet_reads``) does not
inherit the snippet; it gets the honest default instead (see :meth:`Scheme.__init_subclass__`).

No Qt here; torch only inside the Lab hook.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..encodings.blocks import Blocks, distance_grid
from .lab_position import lab_position_class
from .parts import (  # noqa: F401 - the schemes import these from here
    Curve,
    NoEncoding,
    NoSnippet,
    NotShown,
    PlotSpec,
    SnippetPart,
    SwapTerms,
    lit,
)
from .query import Query, SchemesSetup, SwapSetup
from .record import KINDS, Parameter, SchemeRecord, Source  # noqa: F401 - the schemes import these from here
from .scores import (  # noqa: F401 - the schemes import these from here
    AVERAGE_VECTORS,
    BAND_QUERIES,
    band,
    band_queries,
    content_vectors,
    future_mask,
    pair_energy,
)
from .text import mirror_blind, num_html  # noqa: F401 - the schemes import these from here

#: Distances at which that band is evaluated.
BAND_POINTS = 2048
#: Distances × pairs one curve may cost (d = 1024 gets 16,384 distances, d ≤ 512 the full request).
CURVE_BUDGET = 2**23
#: Which computation each Copy-as-Python hook writes out as numpy.
SNIPPET_DESCRIBES = {
    "score_snippet": ("score_blocks", "distance_values", "distance_curve"),
    "beyond_snippet": ("beyond_plot",),
    "swap_snippet": ("swap_terms", "swap_terms_with_table"),
}


class Scheme(SchemeRecord):
    """One positional scheme: its record and hooks.  Subclass it in one module of :mod:`explorer.schemes`."""

    #: Helpers (methods) this class's snippets reproduce besides the hooks of :data:`SNIPPET_DESCRIBES`
    #: (ALiBi's ``slope``): a subclass that overrides one of them does not inherit the snippets either.
    snippet_reads: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A snippet inherited from a class whose computation this subclass changes is dropped (set back to the
        base default, "no snippet for … yet"): it would print numbers that are not the ones on screen."""
        super().__init_subclass__(**kwargs)
        for hook, computes in SNIPPET_DESCRIBES.items():
            if hook in cls.__dict__:
                continue
            owner = next(k for k in cls.__mro__ if hook in k.__dict__)
            if owner is Scheme:
                continue
            reads = (*computes, *owner.__dict__.get("snippet_reads", ()))
            if any(getattr(cls, n, None) is not getattr(owner, n, None) for n in reads):
                setattr(cls, hook, Scheme.__dict__[hook])

    # -- identity ------------------------------------------------------------------------------
    def display_title(self, req: Query | None = None) -> str:
        """The title for this configuration (a variant may name its method)."""
        return self.title

    def check_setup(self, st: SchemesSetup) -> str:
        """Why the Schemes panel's state ``st`` is invalid for this scheme ("" when it is valid)."""
        return ""

    def max_positions(self, train_len: int) -> int | None:
        """The most positions the scheme can encode after training to ``train_len`` (``None``: any)."""
        return None

    def param(self, req: Query, name: str):
        """The value of own parameter ``name`` carried by ``req.params`` (its default when absent)."""
        for key, value in req.params:
            if key == name:
                return value
        for p in self.parameters:
            if p.name == name:
                return p.default
        raise KeyError(name)

    # -- Schemes panel ---------------------------------------------------------------------------
    def score_blocks(self, req: Query, bl: Blocks) -> np.ndarray:
        """ΔS[i, j] = score with position − score without, as exact block means over ``bl`` × ``bl``.

        NaN marks cells with no value (a masked future, a position the scheme cannot encode).  Raise
        :class:`NotShown` with the reason when this configuration cannot be drawn at all.
        """
        return np.zeros((bl.n, bl.n))

    def curve_length(self, req: Query) -> int:
        """How many positions the distance curve averages over (a table may have fewer rows)."""
        return int(req.l_eval)

    def distance_values(self, req: Query, dist: np.ndarray) -> Curve:
        """ΔS at the distances ``dist`` (override this, or :meth:`distance_curve` for full control)."""
        return Curve(dist, np.zeros(dist.size))

    def distance_curve(self, req: Query, max_points: int) -> Curve:
        """ΔS against Δ = i − j ≥ 0: the exact mean over all pairs (i, i − Δ) inside the curve length."""
        n = self.curve_length(req)
        d = max(2, int(getattr(req, "head_dim", 2)))
        dist, stride = distance_grid(n, min(max_points, max(4096, CURVE_BUDGET // max(1, d // 2))))
        c = self.distance_values(req, dist)
        terms = c.terms or tuple(self.score_terms(req, c.distance))
        return Curve(c.distance, c.mean, stride, c.lo, c.hi, c.band_distance, c.bound, c.marks, c.note, terms)

    def score_terms(self, req: Query, dist: np.ndarray) -> tuple:
        """The score split into named terms at the distances ``dist``: (name, values) pairs, drawn apart beside
        the distance curve (Transformer-XL's four); () for a scheme whose score is not such a sum."""
        return ()

    def matrix_title(self, req: Query) -> str:
        """The score matrix's title for this request ("": the scheme's title), e.g. whose weights it draws."""
        return ""

    def missing_note(self, req: Query) -> str:  # text over score-matrix cells past what it encodes ("": none)
        return ""

    def matrix_marks(self, req: Query) -> tuple:
        """(Δ, label) pairs: diagonals i − j = Δ the score matrix marks (Shaw's clipping distance; () for none)."""
        return ()

    def formula_line(self, st: SchemesSetup) -> str:
        """The Schemes panel's formula-strip line for this scheme with ``st``'s numbers ("" for none)."""
        return ""

    def beyond_plot(self, req: Query) -> PlotSpec | None:
        """An extra plot for the "beyond training" view (``None``: the scheme has none)."""
        return None

    def past_training(self, req: Query) -> str:
        """The properties table's "past L_train" cell for this configuration."""
        return ""

    def grid_formula(self, st: SchemesSetup) -> str:
        """The patch-grid view's formula-strip line for this scheme ("" for none)."""
        return ""

    def grid_scores(self, req: Query) -> np.ndarray | None:
        """The expected score of patch ``req.grid_query`` with every patch of a ``req.grid_side`` square grid,
        (side, side), for the patch-grid view; None for a scheme that has no picture on a grid (the default)."""
        return None

    def where_text(self, req: Query) -> str:
        """The properties table's "where position enters" cell for this configuration."""
        return self.where

    def used_by_text(self, req: Query) -> str:
        """The properties table's "used by" cell for this configuration."""
        return self.used_by

    def parameters_added(self, req: Query) -> int:
        """Trainable numbers the scheme adds (for one head of width d trained to L_train)."""
        return 0

    def parameters_text(self, req: Query) -> str:
        """The properties table's "parameters added" cell."""
        n = self.parameters_added(req)
        return f"{n:,}" if n else "0 (nothing trained)"

    # -- Token swap ------------------------------------------------------------------------------
    def swap_terms(self, n: int, d_model: int, heads: int, seed: int, causal: bool) -> SwapTerms:
        """What the scheme adds to the Token-swap panel's attention over ``n`` tokens."""
        return SwapTerms()

    def swap_reason(self, st: SwapSetup) -> str:
        """Why this scheme makes the outputs depend on position (one or two sentences)."""
        return ""

    def swap_terms_with_table(self, table: np.ndarray | None, n: int, d_model: int, heads: int, seed: int,
                              causal: bool) -> SwapTerms:
        """:meth:`swap_terms` with a real table offered (rows = positions); only :attr:`uses_table` schemes use it."""
        return self.swap_terms(n, d_model, heads, seed, causal)

    def swap_reason_with_table(self, st: SwapSetup, table_name: str) -> str:
        """:meth:`swap_reason` when the rows came from the real table ``table_name``."""
        return self.swap_reason(st)

    def swap_invisible(self, st: SwapSetup, keeps_distances: bool) -> tuple[str, str] | None:
        """(headline, explanation) when this scheme provably cannot see the swap, else ``None``."""
        return None

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        """Formula-strip pieces: ``score`` (replaces QKᵀ), ``extra`` (added to the score), ``input`` (what X
        is), ``notes`` (further clauses).  Strings of rich text; missing keys keep the plain attention."""
        return {}

    # -- Copy as Python ----------------------------------------------------------------------------
    def score_snippet(self, req: Query) -> SnippetPart | NoSnippet:
        """numpy code that sets ``delta_s`` (L, L): ΔS[i, j] at every query i and key j < L = ``req.l_eval``.
        It may use ``L``, ``d`` (head_dim), ``base``, ``l_train``, ``seed``, ``causal``, ``heads``,
        ``alibi_head``, ``c`` (the (count, d) content vectors) and ``np``; put the scheme's own parameters
        in :attr:`SnippetPart.params`; it blanks future cells (j > i) when causal.  Default: none yet."""
        return NoSnippet(f"no snippet for {self.title} yet")

    def swap_snippet(self, st: SwapSetup) -> SnippetPart | NoSnippet:
        """numpy code for the Token-swap layer, run with ``n`` (tokens), ``d_model``, ``heads``, ``dh`` (head
        width), ``seed``, ``causal`` and ``alpha`` set; it defines any of ``added`` ((n, d_model), added to the
        embeddings × α), ``rotate`` (a function of one head's (n, dh) q or k) and ``bias`` ((heads, n, n) on the
        scores), ``rotate_k``, ``score(q, k)``, ``value(weights)``, named in :attr:`SnippetPart.defines`."""
        return NoSnippet(f"no snippet for {self.title} yet")

    def beyond_snippet(self, req: Query) -> SnippetPart | NoSnippet:
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

