"""Transformer-XL's relative positions: sinusoids of i − j inside the score, with global biases u and v.

Dai et al. 2019, "Transformer-XL: Attentive Language Models Beyond a Fixed-Length Context" (ACL), §3.3:

    A_ij = q_iᵀk_j  (a)  +  q_iᵀW_R R_(i−j)  (b)  +  uᵀk_j  (c)  +  vᵀW_R R_(i−j)  (d),

all over √d.  R_Δ = [sin(Δω_k) …, cos(Δω_k) …] is the sinusoid table (no parameters; sines first, then cosines,
ω_k = 10000^(−2k/d)), W_R a learned projection per layer, u and v learned vectors per head shared by the
layers.  (a) is plain content attention, (b) content-dependent position, (c) a global content bias, (d) a
global position bias.  The authors' code gets (b) + (d) for every pair from one product against R_(klen−1) … R_0
and a "relative shift" of its rows (``_rel_shift``); here a gather by i − j does the same (tested).

With the content removed (q = k = c at every position) the position part is ΔS = (b) + (c) + (d) − nothing
((a) is the score without positions): (b) + (d) = (c + v)ᵀW_R R_(i−j)/√d, a sum of sines and cosines of
(i − j)ω_k — so its block means are exact from the same phasors as RoPE's.  The panels use a seeded, untrained
W_R ~ N(0, 1/d) and u, v ~ N(0, I).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..encodings import inv_freq
from ..encodings.blocks import block_cis, chunks, phasor_gram
from .base import (
    Curve,
    Parameter,
    Scheme,
    SnippetPart,
    Source,
    SwapTerms,
    content_vectors,
    lab_position_class,
)
from .query import Query, SchemesSetup, SwapSetup

#: Transformer-XL's sinusoid base.
BASE = 10000.0
#: The four terms (the paper's (a) content–content, (b) content–position, (c) global content, (d) global position).
TERM_NAMES = ("(a) qᵀk", "(b) qᵀW_R R", "(c) uᵀk", "(d) vᵀW_R R")
#: Their pens: the foreground's neutral, the scheme's purple, gold and magenta, ΔE > 15 apart in every theme
#: (tests/test_colour_meaning.py); each term keeps its line style too.
TERM_COLOURS = ("#202020", "#6A3D9A", "#B8860B", "#C51B7D")


#: Copy as Python: the seeded, untrained W_R, u and v of width ``{d}``, and R_Δ for the offsets ``{delta}``.
WEIGHTS_SNIPPET = """\
rng = np.random.default_rng([seed, 17])  # the seeded, untrained W_R ~ N(0, 1/d), u, v ~ N(0, I)
W_R = rng.standard_normal(({d}, {d})) / np.sqrt({d})
u_bias, v_bias = rng.standard_normal({d}), rng.standard_normal({d})
omega = 10000.0 ** (-np.arange(0, {d}, 2, dtype=np.float64) / {d})  # the sinusoids' frequencies
ang = np.multiply.outer({delta}, omega)
R = np.concatenate([np.sin(ang), np.cos(ang)], axis=-1)  # R_Δ: sines of Δω_k, then cosines
"""
#: Copy as Python: ΔS = (b) + (c) + (d) with q = k = c ((a) is the score without positions), and ``terms``.
SCORE_SNIPPET = """\
c_bar = c.mean(axis=0)
term_b = R @ (W_R.T @ c_bar) / np.sqrt(d)  # (b) c̄ᵀW_R R_Δ/√d
term_c = u_bias @ c_bar / np.sqrt(d)  # (c) uᵀc̄/√d: the same for every pair
term_d = R @ (W_R.T @ v_bias) / np.sqrt(d)  # (d) vᵀW_R R_Δ/√d
f = term_b + term_c + term_d
delta_s = f[np.subtract.outer(pos, pos) + L - 1]  # ΔS[i, j] = f(i − j)
term_a = np.mean(np.sum(c * c, axis=1)) / np.sqrt(d)  # (a) qᵀk/√d: the score without positions
# The four terms at the offsets i − j = −(L − 1) … L − 1:
terms = {{{a!r}: np.full(2 * L - 1, term_a), {b!r}: term_b, {c!r}: np.full(2 * L - 1, term_c), {d!r}: term_d}}"""
#: Copy as Python: the Token-swap layer's terms (b) + (c) + (d), W_R over d_model split into heads.
SWAP_SNIPPET = """\
WR_R = (R @ W_R.T).reshape(n, n, heads, dh)  # W_R R_(i−j), split into heads


def score(q, k):
    \"\"\"(b) + (d) = (q_i + v)ᵀW_R R_(i−j) and (c) = uᵀk_j, over √d_h, for every head.\"\"\"
    bd = np.einsum("hid,ijhd->hij", q + v_bias.reshape(heads, dh)[:, None, :], WR_R)
    c = np.einsum("hjd,hd->hj", k, u_bias.reshape(heads, dh))[:, None, :]
    return (bd + c) / np.sqrt(dh)"""


def relative_sinusoids(delta, width: int) -> np.ndarray:
    """R_Δ for offsets Δ = i − j: (…, width), sines of Δω_k then cosines (the authors' PositionalEmbedding)."""
    ang = np.multiply.outer(np.asarray(delta, dtype=np.float64), inv_freq(width, BASE))
    return np.concatenate([np.sin(ang), np.cos(ang)], axis=-1)


@functools.lru_cache(maxsize=4)
def weights(width: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The seeded, untrained (W_R (width, width) ~ N(0, 1/width), u ~ N(0, I), v ~ N(0, I))."""
    rng = np.random.default_rng([seed, 17])
    return rng.standard_normal((width, width)) / math.sqrt(width), rng.standard_normal(width), \
        rng.standard_normal(width)


def score_terms(q: np.ndarray, k: np.ndarray, wr: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The four terms (a)–(d) of A_ij/√d for one head: q, k (n, d) → (4, n, n), straight from the formula."""
    n, d = q.shape
    pos = np.arange(n)
    r = relative_sinusoids(pos[:, None] - pos[None, :], wr.shape[1]) @ wr.T  # W_R R_(i−j): (n, n, d)
    a = q @ k.T
    b = np.einsum("id,ijd->ij", q, r)
    c = np.broadcast_to(k @ u, (n, n))
    dd = r @ v
    return np.stack([a, b, c, dd]) / math.sqrt(d)


def position_coefficients(x: np.ndarray, wr: np.ndarray) -> np.ndarray:
    """Complex C_k with xᵀW_R R_Δ = Re Σ_k C_k e^(iΔω_k): C = (W_Rᵀx)[cos half] − i (W_Rᵀx)[sin half]."""
    y = wr.T @ x
    h = y.size // 2
    return y[h:] - 1j * y[:h]


class TransformerXL(Scheme):
    snippet_reads = ("_parts",)  # helpers its snippets write out (see Scheme.snippet_reads)
    id = "transformer_xl"
    title = "Transformer-XL"
    colour = "#6A3D9A"  # a purple of its own (once the sinusoidal blue: alike at 720p); dashed as a second cue
    line = "dash"
    term_colours = TERM_COLOURS
    symbol = "t3"
    order = 22
    description = ("Sinusoids of the distance i − j, projected by W_R, inside the score, with global content "
                   "and position biases u and v: four terms.")
    sources = (Source("Dai, Yang, Yang, Carbonell, Le & Salakhutdinov 2019, “Transformer-XL: Attentive Language "
                      "Models Beyond a Fixed-Length Context”, ACL", 2019, "https://arxiv.org/abs/1901.02860"),)
    kind = "score"
    relative = True
    bounded = True
    parameters = (Parameter("head_dim", 64, 2, 1024, "head dim d", field="head_dim"),)
    depends_on = ("head_dim", "content", "seed")
    used_by = ("Transformer-XL (Dai et al. 2019, ACL) and XLNet (Yang et al. 2019, NeurIPS)")
    where = "inside the score: qᵀW_R R(i−j), uᵀk and vᵀW_R R(i−j) added to qᵀk"
    relation = "relative: R depends on i − j only"
    swap_label = "Transformer-XL (relative terms)"
    swap_note = ("Sinusoids of i − j projected by W_R inside the score, with global biases u, v (Dai et al. "
                 "2019); seeded, untrained.")
    in_lab = True
    lab_note = "relative sinusoids inside the score, with global biases u and v (Transformer-XL, Dai et al. 2019)"
    shown_by_default = False
    lab_by_default = False

    def parameters_added(self, req: Query) -> int:
        d = int(req.head_dim)
        return d * d + 2 * d

    def parameters_text(self, req: Query) -> str:
        d = int(req.head_dim)
        return f"W_R d × d + u, v: {d}² + 2 × {d} = {self.parameters_added(req):,} (W_R per layer)"

    def past_training(self, req: Query) -> str:
        return ("defined at every distance (sinusoids of i − j), but distances ≥ L_train meet angles of the slow "
                "sinusoids that training never showed; Transformer-XL's memory reuses them across segments")

    def _parts(self, req):
        d = int(req.head_dim)
        cs = content_vectors(d, req.content, req.seed)
        wr, u, v = weights(d, req.seed)
        cbar = cs.mean(axis=0)
        const_a = float(np.mean(np.sum(cs * cs, axis=1))) / math.sqrt(d)
        const_c = float(u @ cbar) / math.sqrt(d)
        return d, cbar, wr, v, const_a, const_c

    # -- Schemes panel ------------------------------------------------------------------------------
    def formula_line(self, st: SchemesSetup) -> str:
        return ("<b>Transformer-XL</b>: A<sub>ij</sub> = q<sub>i</sub>ᵀk<sub>j</sub> + q<sub>i</sub>ᵀW<sub>R</sub>"
                "R<sub>i−j</sub> + uᵀk<sub>j</sub> + vᵀW<sub>R</sub>R<sub>i−j</sub> (all /√d), R: sinusoids of "
                "i − j, base 10000")

    def score_blocks(self, req: Query, bl):
        d, cbar, wr, v, _a, const_c = self._parts(req)
        coef = position_coefficients(cbar, wr) + position_coefficients(v, wr)  # (b) + (d)
        return phasor_gram(block_cis(bl, inv_freq(d, BASE)), coef) / math.sqrt(d) + const_c

    def score_terms(self, req: Query, dist):
        d, cbar, wr, v, const_a, const_c = self._parts(req)
        freq = inv_freq(d, BASE)
        b = np.empty(dist.size)
        dd = np.empty(dist.size)
        cb, cv = position_coefficients(cbar, wr), position_coefficients(v, wr)
        for sl in chunks(dist.size):
            ph = np.exp(1j * np.multiply.outer(dist[sl].astype(np.float64), freq))
            b[sl] = np.real(ph @ cb) / math.sqrt(d)
            dd[sl] = np.real(ph @ cv) / math.sqrt(d)
        return tuple(zip(TERM_NAMES, (np.full(dist.size, const_a), b, np.full(dist.size, const_c), dd), strict=True))

    def distance_values(self, req: Query, dist):
        terms = self.score_terms(req, dist)
        return Curve(dist, terms[1][1] + terms[2][1] + terms[3][1], terms=terms)

    def score_snippet(self, req: Query):
        return SnippetPart(WEIGHTS_SNIPPET.format(d="d", delta="np.arange(-(L - 1), L, dtype=np.float64)")
                           + SCORE_SNIPPET.format(**dict(zip("abcd", TERM_NAMES, strict=True))))

    def swap_snippet(self, st: SwapSetup):
        return SnippetPart(WEIGHTS_SNIPPET.format(d="d_model", delta="np.subtract.outer(np.arange(n), np.arange(n))")
                           + SWAP_SNIPPET, defines=("score",))

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        wr, u, v = weights(d_model, seed)
        return SwapTerms(score=functools.partial(swap_score, wr=wr, u=u, v=v))

    def swap_reason(self, st: SwapSetup) -> str:
        return ("Transformer-XL adds qᵀW_R R(i−j) + uᵀk + vᵀW_R R(i−j) to every score; the swap changed the "
                "distances i − j between the swapped words and the others.")

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        return {"extra": " + (q<sub>i</sub> + v)ᵀW<sub>R</sub>R<sub>i−j</sub>/√d + uᵀk<sub>j</sub>/√d",
                "notes": ["R<sub>i−j</sub>: sinusoids of the distance; W<sub>R</sub>, u, v seeded, untrained"]}

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        import torch
        from torch import nn

        class RelativeSinusoidPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def setup_layers(self, layers: int) -> None:
                dh = self.d_model // self.heads
                self.r_net = nn.ModuleList(nn.Linear(self.d_model, self.d_model, bias=False) for _ in range(layers))
                # u and v shared by the layers, started as the authors' code does (normal, std 0.02).
                self.u = nn.Parameter(torch.randn(self.heads, dh) * 0.02)
                self.v = nn.Parameter(torch.randn(self.heads, dh) * 0.02)

            def score_extra(self, layer, q, keys):
                n, dh = q.shape[-2], q.shape[-1]

                def build():
                    pos = np.arange(n)
                    return (torch.tensor(relative_sinusoids(pos, self.d_model), dtype=q.dtype, device=q.device),
                            torch.tensor(np.maximum(pos[:, None] - pos[None, :], 0), device=q.device))

                r, idx = self.cached("txl", n, q.device, build)  # R_Δ for Δ = 0 … n − 1; Δ = i − j
                wr = self.r_net[layer](r).view(n, self.heads, dh).transpose(0, 1)  # (h, Δ, dh)
                bd = (q + self.v[:, None, :]) @ wr.transpose(-1, -2)  # (b, h, i, Δ): terms (b) + (d)
                bd = torch.gather(bd, -1, idx.expand(*bd.shape[:-1], n))  # … at Δ = i − j
                c = (keys @ self.u[:, :, None]).transpose(-1, -2)  # (b, h, 1, j): term (c)
                return (bd + c) / dh**0.5

        return RelativeSinusoidPosition(self, d_model, heads, train_len)


def swap_score(q, k, *, wr, u, v):
    """(b) + (c) + (d) for every head of the Token swap: q, k (H, n, d_h) → (H, n, n), W_R over d_model."""
    h, n, dh = q.shape
    pos = np.arange(n)
    r = (relative_sinusoids(pos[:, None] - pos[None, :], wr.shape[1]) @ wr.T).reshape(n, n, h, dh)
    uh, vh = u.reshape(h, dh), v.reshape(h, dh)
    bd = np.einsum("hid,ijhd->hij", q + vh[:, None, :], r)
    c = np.einsum("hjd,hd->hj", k, uh)[:, None, :]
    return (bd + c) / math.sqrt(dh)


SCHEME = TransformerXL()
