"""RoPE: rotate each pair of q and k by the position times its frequency (Su et al. 2021, RoFormer)."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from ..encodings import apply_rope, inv_freq, roformer_bound
from ..encodings.blocks import block_cis, chunks, phasor_gram
from ..encodings.rotary import pair_tables, rope_curve
from ._rope_cli import add_model_commands
from .base import (
    Curve,
    Parameter,
    Scheme,
    SnippetPart,
    Source,
    SwapTerms,
    content_vectors,
    lab_position_class,
    lit,
    num_html,
    pair_energy,
)
from .query import Query, SchemesSetup, SwapSetup
from .rope_model_tab import model_tab
from .rope_model_text import model_line
from .tabs import SchemeTab

#: The base of the Token swap's and the Lab's RoPE (the panel's base slider is the Schemes panel's).
ROPE_BASE = 10000.0


#: Copy as Python: RoPE's ΔS with q = k = c at every position, a function of i − j alone.
ROPE_THETA = "theta = base ** (-2.0 * np.arange(d // 2) / d)  # θ_k = base^(−2k/d); pair 0 is the fastest\natt = 1.0\n"
ROPE_SCORE = """\
h = np.mean(c[:, 0::2] ** 2 + c[:, 1::2] ** 2, axis=0)  # h_k: energy of pair k of c (mean over c)
offsets = np.arange(-(L - 1), L, dtype=np.float64)
# (R_i c)·(R_j c) = Σ_k h_k cos((i − j)θ_k): ΔS depends on the offset i − j only.
f = (att**2 * (np.cos(np.multiply.outer(offsets, theta)) @ h) - h.sum()) / np.sqrt(d)
delta_s = f[np.subtract.outer(pos, pos) + L - 1]  # ΔS[i, j] = f(i − j)"""
#: Copy as Python: the Token-swap layer's rotation of one head's queries or keys (interleaved, base 10000).
ROTATE_SNIPPET = """\
def rotate(x):
    \"\"\"Rotate pair i = (x[2i], x[2i+1]) of row m by the angle m·θ_i.\"\"\"
    a = np.multiply.outer(np.arange(x.shape[0], dtype=np.float64), theta)
    cos, sin = np.cos(a), np.sin(a)
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 0::2] * sin + x[:, 1::2] * cos
    return out"""
SWAP_SNIPPET = ("theta = 10000.0 ** (-2.0 * np.arange(dh // 2) / dh)  # θ_i = 10000^(−2i/d_h) (Su et al. 2021)\n\n\n"
                + ROTATE_SNIPPET)


class RoPE(Scheme):
    id = "rope"
    title = "RoPE"
    colour = "#009E73"
    symbol = "d"
    order = 40
    description = "Rotates each 2-D pair of q and k by position × θ_k, so q·k depends on i − j only."
    sources: ClassVar[tuple[Source, ...]] = (
        Source("Su et al. 2021, “RoFormer: Enhanced Transformer with Rotary Position Embedding”", 2021,
               "https://arxiv.org/abs/2104.09864"),
    )
    kind = "rotary"
    relative = True
    bounded = True
    parameters: ClassVar[tuple[Parameter, ...]] = (
        Parameter("head_dim", 64, 2, 1024, "head dim d", field="head_dim"),
        Parameter("base", 10000.0, 10.0, 1e7, "base", field="base", integer=False),
    )
    depends_on: ClassVar[tuple[str, ...]] = ("head_dim", "base", "content", "seed")
    used_by = ("Llama (Touvron et al. 2023) and Mistral 7B (Jiang et al. 2023); "
               "scheme: RoFormer (Su et al. 2021)")
    where = "rotates q and k in every attention layer: pair k by the angle p·θₖ"
    relation = "relative: qₘ·kₙ depends on m − n only"
    swap_label: ClassVar[str | None] = "RoPE (rotates Q, K)"
    swap_note = "Queries and keys rotated by their positions, so scores depend on offsets (Su et al. 2021)."
    in_lab = True
    lab_note = "queries and keys rotated by position (Su et al. 2021)"

    def frequencies(self, req) -> tuple[np.ndarray, float]:
        """(θ, attention factor a) of this column."""
        return inv_freq(req.head_dim, req.base), 1.0

    def bound_scaling(self, req):
        """The scaling RoFormer's bound is drawn for (``None``: plain RoPE)."""
        return None

    def past_training(self, req: Query) -> str:
        d = req.head_dim
        theta = inv_freq(d, req.base)
        full = int(np.sum((req.l_train - 1) * theta / (2 * np.pi) >= 1.0))
        return (f"defined everywhere; {full} of {d // 2} pairs turn fully inside L_train, the other "
                f"{d // 2 - full} meet angles never seen in training (up to L_eval = {req.l_eval:,})")

    # -- Schemes panel ------------------------------------------------------------------------------
    def formula_line(self, st: SchemesSetup) -> str:
        d = st.head_dim
        th = inv_freq(d, st.base)
        return (f"<b>RoPE</b>: q<sub>m</sub>·k<sub>n</sub> = Re Σ<sub>i</sub> q<sub>i</sub> k̄<sub>i</sub> "
                f"e<sup>i(m−n)θ<sub>i</sub></sup>, θ<sub>i</sub> = {st.base:g}<sup>−2i/{d}</sup> = "
                + ", ".join(num_html(t) for t in th[:3]) + (f", …, {num_html(th[-1])}" if th.size > 3 else "")
                + f" (i = 0 … {d // 2 - 1})")

    def score_blocks(self, req: Query, bl):
        d = req.head_dim
        h = pair_energy(content_vectors(d, req.content, req.seed))
        freq, att = self.frequencies(req)
        return (att**2 * phasor_gram(block_cis(bl, freq), h) - h.sum()) / math.sqrt(d)

    def distance_values(self, req: Query, dist):
        d = req.head_dim
        h = pair_energy(content_vectors(d, req.content, req.seed))
        freq, att = self.frequencies(req)
        mean = rope_curve(dist, h, freq, att, d)
        scaling = self.bound_scaling(req)
        bound = np.concatenate([roformer_bound(dist[sl], d, req.base, scaling) for sl in chunks(dist.size)])
        return Curve(dist, mean, bound=bound)

    grid_title = "1-D RoPE, raster order"
    #: "A model's RoPE": a real model's rotary embedding from its config, against plain RoPE.
    tabs = (SchemeTab("model", "A model's RoPE", "Model", 6, ("model", "model_query"), model_tab,
                      "explorer.panels.schemes.model:ModelView", formula=model_line),)

    def grid_formula(self, st: SchemesSetup) -> str:
        n = st.grid_side
        return (f"<b>1-D RoPE, raster order</b>: patch (x, y) at position p = {n}y + x, angle p·θ<sub>i</sub>, "
                f"θ<sub>i</sub> = {st.base:g}<sup>−2i/{st.head_dim}</sup>: the patch below is {n} positions away")

    def grid_scores(self, req: Query):
        """Plain RoPE over an image's patches in raster order (patch (x, y) at position y·side + x), as a ViT with
        1-D positions sees them: the patch below is ``side`` positions away.  Only plain RoPE draws this."""
        if type(self) is not RoPE:
            return None
        from ..encodings.rope2d import raster_scores

        side = int(req.grid_side)
        q = (side // 2) * side + side // 2 if req.grid_query < 0 else min(int(req.grid_query), side * side - 1)
        return raster_scores(self.frequencies(req)[0], side, side, q)

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        return SwapTerms(rotate=apply_rope)

    def swap_reason(self, st: SwapSetup) -> str:
        return ("RoPE rotates every query and key by its position, so q·k depends on the signed offset "
                "between two tokens, and the swap changed the offsets of the swapped words.")

    def score_snippet(self, req: Query):
        if type(self).frequencies is RoPE.frequencies:  # a variant that only moves θ gets its θ below
            return SnippetPart(ROPE_THETA + ROPE_SCORE)
        theta, att = self.frequencies(req)  # a variant that only moves θ (scaled RoPE): its θ as the app has it
        return SnippetPart(f"# θ_k and the attention factor of {self.display_title(req)}, as the app computes them\n"
                           f"# (the formulas are in the guide's Positional schemes page).\n"
                           f"theta = {lit(np.asarray(theta, dtype=np.float64))}\natt = {lit(float(att))}\n"
                           + ROPE_SCORE)

    def swap_snippet(self, st: SwapSetup):
        return SnippetPart(SWAP_SNIPPET, defines=("rotate",))

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        return {"score": f"(R<sub>i</sub>q<sub>i</sub>)ᵀ(R<sub>j</sub>k<sub>j</sub>)/√{dh}",
                "notes": [f"R<sub>p</sub> rotates pair i by p·θ<sub>i</sub>, "
                          f"θ<sub>i</sub> = 10000<sup>−2i/{dh}</sup>, so the score depends on j − i"]}

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        class RotaryPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def rotary(self, n, head_dim, device, dtype):
                return self.cached("rope", n, device, lambda: pair_tables(inv_freq(head_dim, ROPE_BASE), n,
                                                                      device, dtype))

        return RotaryPosition(self, d_model, heads, train_len)

    # -- CLI --------------------------------------------------------------------------------------
    def add_data_commands(self, subparsers, cli) -> None:
        """``data rope`` (rotate rows like a model), ``data rope-frequencies`` and ``data mrope-positions``."""
        add_model_commands(self.id, subparsers, cli)


SCHEME = RoPE()
