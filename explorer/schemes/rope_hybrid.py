"""NoPE/RoPE hybrid: RoPE in most layers, no positional encoding at all in every k-th one.

Recent long-context models interleave the two: Llama 4's "iRoPE" (Meta 2025; Hugging Face's
``no_rope_layer_interval`` = 4) and SmolLM3 leave RoPE out of every 4th layer; Cohere's Command R7B and
Command A rotate only in their three sliding-window layers and leave every 4th, full-attention, layer with
no positional encoding (Hugging Face ``Cohere2``: ``sliding_window_pattern`` = 4); Yang et al. 2025
("Rope to Nope and Back Again") study why: the RoPE layers give a recency bias and local order, the NoPE
layers retrieve from anywhere in a long context, with no angle they have not seen in training.

Layer ℓ = 1 … N (1-based, as those configs count) has no positional encoding when ℓ is a multiple of k
(``nope_every``), and RoPE otherwise.  The Schemes panel shows one chosen layer's position-only scores
(RoPE's, or zero for a NoPE layer); the Lab's model applies the pattern to its own blocks.
"""

from __future__ import annotations

import numpy as np

from ..encodings import inv_freq
from ..encodings.rotary import pair_tables, rotary_bound
from .base import Curve, Parameter, PlotSpec, SnippetPart, Source, lab_position_class
from .query import Query, SchemesSetup
from .rope import ROPE_BASE, ROPE_SCORE, ROPE_THETA, RoPE

#: The default interval: with the Lab's two layers, k = 2 gives RoPE in layer 1 and NoPE in layer 2
#: (Llama 4 and Command A use 4 over 48 and 64 layers).
NOPE_EVERY = 2


#: k, the interval: the Schemes panel's drawn model and the Lab's trained one both take it.
NOPE_PARAM = Parameter("nope_every", NOPE_EVERY, 1, 64, "NoPE every k-th layer",
                       help="layer ℓ has no positional encoding when ℓ is a multiple of k (Llama 4, Command A: 4; "
                            "1: every layer NoPE; more than the layers: RoPE in all)")


def rope_layers(layers: int, nope_every: int) -> np.ndarray:
    """True for the layers ℓ = 1 … N that rotate (ℓ not a multiple of k), False for the NoPE ones."""
    ell = np.arange(1, int(layers) + 1)
    return ell % int(nope_every) != 0


def ordinal(k: int) -> str:
    """1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st."""
    k = int(k)
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def layer_list(idx) -> str:
    """1-based layer numbers as text: "1, 3", "none"."""
    idx = [int(i) for i in idx]
    if not idx:
        return "none"
    if len(idx) > 6:
        return ", ".join(map(str, idx[:3])) + ", …, " + str(idx[-1])
    return ", ".join(map(str, idx))


def _layers(idx) -> str:
    """"layer 2", "layers 1, 3", "no layer"."""
    return "no layer" if len(idx) == 0 else f"layer{'s' if len(idx) > 1 else ''} {layer_list(idx)}"


class RoPEHybrid(RoPE):
    snippet_reads = ("rotates", "frequencies")  # helpers its snippets write out (see Scheme.snippet_reads)
    id = "rope_nope"
    title = "RoPE/NoPE"
    colour = "#5A8C73"  # RoPE's green towards NoPE's grey, dash-dot-dotted
    symbol = "+"
    line = "dashdotdot"
    order = 48
    description = "RoPE in most layers and no positional encoding in every k-th one (Llama 4, Command A)."
    sources = (
        Source("Meta 2025, “The Llama 4 herd” (iRoPE: interleaved NoPE layers)", 2025,
               "https://ai.meta.com/blog/llama-4-multimodal-intelligence/"),
        Source("Yang et al. 2025, “Rope to Nope and Back Again: A New Hybrid Attention Strategy”", 2025,
               "https://arxiv.org/abs/2501.18795"),
    )
    parameters = RoPE.parameters + (
        NOPE_PARAM,
        Parameter("layers", 4, 1, 64, "layers", help="layers in the model drawn (its pattern and table)"),
        Parameter("layer", 1, 1, 64, "layer shown", help="the layer whose scores the matrix and curve show"),
    )
    depends_on = ("head_dim", "base", "content", "seed", "params")
    used_by = ("Llama 4 (Meta 2025: NoPE in every 4th layer, “iRoPE”), SmolLM3 (Hugging Face 2025, the same), "
               "Command R7B and Command A (Cohere 2025: RoPE in 3 sliding-window layers, none in every 4th)")
    where = "rotates q and k like RoPE in most layers; every k-th layer has no positional encoding"
    relation = "relative in the RoPE layers; NoPE layers see order only through the causal mask"
    shown_by_default = False
    swap_label = None  # Token swap is one attention layer: a hybrid is a pattern over layers (see the Lab)
    in_lab = True
    lab_by_default = False
    lab_note = (f"RoPE in most layers, none in every k-th (default k = {NOPE_EVERY}: with the Lab's 2 layers, RoPE in "
                "layer 1 and none in layer 2; Llama 4: k = 4)")
    lab_parameters = (NOPE_PARAM,)  # which of the Lab model's layers rotate

    def values(self, obj) -> dict:
        if hasattr(obj, "params_of"):
            return dict(obj.params_of(self.id))
        return {p.name: self.param(obj, p.name) for p in self.own_parameters()}

    def rotates(self, obj) -> bool:
        """Whether the layer shown rotates (False: a NoPE layer)."""
        v = self.values(obj)
        return bool(int(v["layer"]) % int(v["nope_every"]) != 0)

    def pattern_text(self, obj) -> str:
        v = self.values(obj)
        on = rope_layers(v["layers"], v["nope_every"])
        ell = np.arange(1, int(v["layers"]) + 1)
        return f"RoPE in layers {layer_list(ell[on])}; NoPE in {layer_list(ell[~on])} (of {int(v['layers'])})"

    def display_title(self, req: Query | None = None) -> str:
        if req is None:
            return self.title
        kind = "RoPE" if self.rotates(req) else "NoPE"
        return f"{self.title} (layer {int(self.values(req)['layer'])}: {kind})"

    def check_setup(self, st: SchemesSetup) -> str:
        v = self.values(st)
        if v["layer"] > v["layers"]:
            return f"RoPE/NoPE hybrid: layer shown ({v['layer']}) must be at most layers ({v['layers']})"
        return ""

    def where_text(self, req: Query) -> str:
        return self.pattern_text(req) + f" (NoPE every {ordinal(self.values(req)['nope_every'])} layer)"

    def past_training(self, req: Query) -> str:
        return ("the RoPE layers meet RoPE's new angles past L_train; the NoPE layers have no angle to meet, "
                "so they can attend anywhere in a longer context as they did in training")

    # -- Schemes panel ------------------------------------------------------------------------------
    def formula_line(self, st: SchemesSetup) -> str:
        v = self.values(st)
        kind = "RoPE's rotation" if self.rotates(st) else "no positional term (ΔS = 0)"
        return (f"<b>RoPE/NoPE hybrid</b>, NoPE every {ordinal(v['nope_every'])} layer: {self.pattern_text(st)}; "
                f"layer {int(v['layer'])} shown: {kind}")

    def score_blocks(self, req: Query, bl):
        if self.rotates(req):
            return super().score_blocks(req, bl)
        return np.zeros((bl.n, bl.n))

    def distance_values(self, req: Query, dist):
        if self.rotates(req):
            return super().distance_values(req, dist)
        # A layer that does not rotate: ΔS = 0 and RoFormer's bound flat at its Δ = 0 value (no decay).
        return Curve(dist, np.zeros(dist.size), bound=rotary_bound(dist, np.zeros(req.head_dim // 2)))

    def score_snippet(self, req: Query):
        v = self.values(req)
        rope = ROPE_THETA + ROPE_SCORE
        code = ("# Layer ℓ (1-based) has no positional encoding when ℓ is a multiple of k, RoPE otherwise.\n"
                "if layer % nope_every != 0:  # a RoPE layer\n" + "".join(f"    {ln}\n" for ln in rope.splitlines())
                + "else:  # a NoPE layer: nothing positional, ΔS = 0\n    theta = np.zeros(d // 2)  # no pair turns\n"
                "    delta_s = np.zeros((L, L))")
        return SnippetPart(code, params=(("nope_every", int(v["nope_every"]), "NoPE every k-th layer"),
                                         ("layer", int(v["layer"]), "the layer shown (1-based)")))

    def beyond_snippet(self, req: Query):
        v = self.values(req)
        return SnippetPart("on = (np.arange(1, layers + 1) % nope_every != 0).astype(np.float64)  # 1: RoPE, 0: NoPE\n"
                           "x = np.arange(1, layers + 2, dtype=np.float64) - 0.5  # layer ℓ's step spans ℓ ± ½\n"
                           "y = np.append(on, on[-1])",
                           params=(("layers", int(v["layers"]), "layers in the model"),
                                   ("nope_every", int(v["nope_every"]), "NoPE every k-th layer")))

    def beyond_plot(self, req: Query):
        v = self.values(req)
        on = rope_layers(v["layers"], v["nope_every"]).astype(float)
        x = np.arange(1, on.size + 2, dtype=float) - 0.5  # layer ℓ's step spans ℓ ± ½
        y = np.append(on, on[-1])
        return PlotSpec(f"Hybrid: where position enters — {self.pattern_text(req)}", x, y, "layer ℓ",
                        "1 = RoPE · 0 = NoPE", marks=((float(v["layer"]), "shown"),), step=True,
                        x_range=(0.5, on.size + 0.5))

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        class HybridPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def rotary(self, n, head_dim, device, dtype):
                return self.cached("rope", n, device, lambda: pair_tables(inv_freq(head_dim, ROPE_BASE), n,
                                                                      device, dtype))

            def layer(self, index, rotary, bias):
                # Layer ℓ = index + 1 has no positional encoding when ℓ is a multiple of k (this run's k).
                return (rotary if (index + 1) % int(self.lab_params["nope_every"]) else None), bias

        return HybridPosition(self, d_model, heads, train_len)

    def lab_setting(self, values: dict, layers: int) -> str:
        k = int(self.lab_values(values)["nope_every"])
        on = rope_layers(layers, k)
        ell = np.arange(1, int(layers) + 1)
        return (f"RoPE in {_layers(ell[on])}; NoPE in {_layers(ell[~on])} (of {int(layers)}; "
                f"NoPE every {ordinal(k)} layer)")

    def add_data_commands(self, subparsers, cli) -> None:
        """None of its own (``pe-explorer data rope`` is RoPE's)."""


SCHEME = RoPEHybrid()
