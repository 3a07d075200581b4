"""The base of the rotary schemes with frequencies of their own (partial RoPE, p-RoPE): not a scheme itself.

Every such variant is RoPE with its own per-pair frequencies θ_k (0 for a pair that does not turn); the maths
they share with RoPE and xPos is in :mod:`explorer.encodings.rotary`.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..encodings.blocks import block_cis, phasor_gram
from ..encodings.rotary import pair_tables, rope_curve, rotary_bound, rotate_pairs
from .base import (
    Curve,
    PlotSpec,
    SnippetPart,
    SwapTerms,
    content_vectors,
    lab_position_class,
    lit,
    pair_energy,
)
from .query import Query, SwapSetup
from .rope import ROPE_BASE, ROPE_SCORE, ROTATE_SNIPPET, RoPE


class FrequencyRoPE(RoPE):
    """RoPE with per-pair frequencies of its own, some of them 0 (a pair that does not turn carries content
    and no position): partial RoPE and p-RoPE.  Subclasses give :meth:`theta`, their record and texts."""

    snippet_reads = ("frequencies", "swap_theta")  # helpers its snippets write out (see Scheme.snippet_reads)
    line = "dash"
    shown_by_default = False
    lab_by_default = False
    depends_on = ("head_dim", "base", "content", "seed", "params")

    #: How titles name the parameter's value ("f" → "Partial RoPE (f = 0.25)").
    value_symbol = ""

    def display_title(self, req: Query | None = None) -> str:
        return self.title if req is None else f"{self.title} ({self.value_symbol} = {self.value(req):g})"

    def theta(self, head_dim: int, base: float, value) -> np.ndarray:
        """θ_k for k = 0 … d/2 − 1 at this scheme's parameter ``value`` (0 for pairs that do not turn)."""
        raise NotImplementedError

    def value(self, obj):
        """The scheme's one parameter from a request (``params``) or the panel's state (``params_of``)."""
        name = self.own_parameters()[0].name
        if hasattr(obj, "params_of"):
            return dict(obj.params_of(self.id))[name]
        return self.param(obj, name)

    def frequencies(self, req) -> tuple[np.ndarray, float]:
        return self.theta(req.head_dim, req.base, self.value(req)), 1.0

    def bound_scaling(self, req):
        return None

    def score_blocks(self, req: Query, bl):
        # A pair with θ = 0 adds h_k·1 − h_k = 0 to ΔS: only the turning pairs count (and the Dirichlet
        # kernel's sin(nθ/2)/(n sin(θ/2)) has no value at θ = 0).
        d = req.head_dim
        h = pair_energy(content_vectors(d, req.content, req.seed))
        th = self.frequencies(req)[0]
        on = th > 0
        return (phasor_gram(block_cis(bl, th[on]), h[on]) - h[on].sum()) / math.sqrt(d)

    def distance_values(self, req: Query, dist):
        d = req.head_dim
        h = pair_energy(content_vectors(d, req.content, req.seed))
        th = self.frequencies(req)[0]
        on = th > 0
        return Curve(dist, rope_curve(dist, h[on], th[on], 1.0, d), bound=rotary_bound(dist, th))

    def past_training(self, req: Query) -> str:
        d, lt = req.head_dim, req.l_train
        th = self.frequencies(req)[0]
        on = th > 0
        full = int(np.sum((lt - 1) * th[on] / (2 * np.pi) >= 1.0))
        return (f"{int(on.sum())} of {d // 2} pairs turn: {full} of them fully inside L_train = {lt:,}, the "
                f"other {int(on.sum()) - full} meet new angles past it; the {d // 2 - int(on.sum())} pairs that "
                "never turn carry no position, so nothing about them is new at any length")

    def beyond_plot(self, req: Query):
        d = req.head_dim
        th = self.frequencies(req)[0]
        k = int(np.sum(th > 0))
        marks = ((k - 0.5, f"θ = 0 from pair {k}"),) if k < d // 2 else ()
        return PlotSpec(f"{self.title}: θₖ of the {k} turning pairs (of {d // 2}); the rest do not turn",
                        np.arange(d // 2, dtype=float), th, "pair k", "θₖ (rad per position)", marks=marks,
                        log_y=True, x_range=(-0.5, d // 2 - 0.5))

    # -- Token swap (base 10000, the parameter's default) --------------------------------------------
    def swap_theta(self, dh: int) -> np.ndarray:
        return self.theta(dh, ROPE_BASE, self.own_parameters()[0].default)

    def swap_terms(self, n, d_model, heads, seed, causal):
        return SwapTerms(rotate=functools.partial(rotate_pairs, theta=self.swap_theta(d_model // heads)))

    # -- Copy as Python: RoPE's programs with this scheme's θ (written out: a θ_k = 0 pair adds h_k − h_k = 0) ---
    def score_snippet(self, req: Query):
        return SnippetPart(f"theta = {lit(self.frequencies(req)[0])}  # θ_k of {self.display_title(req)} "
                           "(0: the pair does not turn)\natt = 1.0\n" + ROPE_SCORE)

    def beyond_snippet(self, req: Query):
        return SnippetPart(f"x = np.arange(d // 2, dtype=np.float64)  # pair k\ny = {lit(self.frequencies(req)[0])}"
                           f"  # θ_k of {self.display_title(req)} (0: the pair does not turn)")

    def swap_snippet(self, st: SwapSetup):
        dh = st.d_model // st.heads
        return SnippetPart(f"theta = {lit(self.swap_theta(dh))}  # θ_k of {self.title} at d_h = {dh}, base 10000 "
                           "(0: the pair does not turn)\n\n\n" + ROTATE_SNIPPET, defines=("rotate",))

    # -- Lab ---------------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        theta = self.swap_theta(d_model // heads)

        class PairPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def rotary(self, n, head_dim, device, dtype):
                return self.cached("pairs", n, device, lambda: pair_tables(theta, n, device, dtype))

        return PairPosition(self, d_model, heads, train_len)

    def add_data_commands(self, subparsers, cli) -> None:
        """None of its own (``pe-explorer data rope`` is RoPE's)."""
