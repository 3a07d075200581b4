"""xPos: RoPE whose pairs also shrink with distance, ζ_k^((m−n)/scale_base) (Sun et al. 2022).

Sun et al. ("A Length-Extrapolatable Transformer", 2022; torchscale; lucidrains' rotary-embedding-torch
``use_xpos=True``) multiply pair k of the query at position m by ζ_k^(m/B) and of the key at position n by
ζ_k^(−n/B), on top of RoPE's rotation, with

    ζ_k = (2k/d + γ)/(1 + γ),  γ = 0.4,  k = 0 … d/2 − 1,   B = scale_base = 512,

so q_m·k_n = Re Σ_k ζ_k^((m−n)/B)·q_k k̄_k·e^{i(m−n)θ_k}: still a function of m − n alone, and every pair
decays with distance (ζ_k < 1; the fast pairs, ζ near γ/(1+γ) ≈ 0.29, decay the most; the slowest, ζ near 1,
hardly at all).  rotary-embedding-torch centres the positions (m − ⌊L/2⌋), which cancels in the score.
For keys after the query the factor grows without bound: xPos is for causal (autoregressive) attention
only, and the Schemes panel draws it only with the causal mask.

Block means: with ω_k = θ_k − i·ln ζ_k/B, ζ^(p/B)e^{ipθ} = e^{ipω}, so a past block pair (I, J) has the
closed form e^{i(a_I − a_J − n_J + 1)ω}·D_{n_I}(ω)·D_{n_J}(ω), D_n(ω) = mean_{t<n} e^{itω} — every factor of
modulus ≤ 1, so nothing overflows at any length.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..encodings import inv_freq
from ..encodings.blocks import chunks
from ..encodings.rotary import pair_tables, rotary_bound, rotate_pairs
from .base import (
    Curve,
    NotShown,
    Parameter,
    PlotSpec,
    SnippetPart,
    Source,
    SwapTerms,
    content_vectors,
    lab_position_class,
    num_html,
    pair_energy,
)
from .query import Query, SchemesSetup, SwapSetup
from .rope import ROPE_BASE, RoPE

#: Copy as Python: ζ_k at head dimension ``{d}``.
ZETA_SNIPPET = ("zeta = (np.arange(0, {d}, 2, dtype=np.float64) + 0.4 * {d}) / (1.4 * {d})"
                "  # ζ_k = (2k/d + γ)/(1 + γ), γ = 0.4\n")
#: Copy as Python: ΔS of xPos at every past query–key pair (NaN for a key after its query).
SCORE_SNIPPET = """\
theta = base ** (-2.0 * np.arange(d // 2) / d)  # θ_k as RoPE's
h = np.mean(c[:, 0::2] ** 2 + c[:, 1::2] ** 2, axis=0)  # h_k: energy of pair k of c (mean over c)
delta = np.arange(L, dtype=np.float64)  # Δ = i − j ≥ 0: xPos is for causal attention only
# (Z_i R_i c)·(Z_j⁻¹ R_j c) = Σ_k h_k ζ_k^(Δ/B) cos(Δθ_k)
f = (np.exp(np.multiply.outer(delta, np.log(zeta)) / B) * np.cos(np.multiply.outer(delta, theta))) @ h
f = (f - h.sum()) / np.sqrt(d)
gap = np.subtract.outer(pos, pos)  # i − j
delta_s = np.where(gap >= 0, f[np.maximum(gap, 0)], np.nan)  # no value for a key after its query"""
#: Copy as Python: the Token-swap layer's xPos rotation (base 10000, B = 512); keys get the inverse scale.
SWAP_SNIPPET = """\
theta = 10000.0 ** (-2.0 * np.arange(dh // 2) / dh)  # θ_i as RoPE's
scale_base = 512.0  # B


def rotate_by(x, sign):
    \"\"\"Rotate pair i of row m by m·θ_i and scale it by ζ_i^(±m/B): + for queries, − for keys.\"\"\"
    m = np.arange(x.shape[0], dtype=np.float64)
    a = np.multiply.outer(m, theta)
    s = np.exp(sign * np.multiply.outer(m, np.log(zeta)) / scale_base)
    cos, sin = np.cos(a) * s, np.sin(a) * s
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 0::2] * sin + x[:, 1::2] * cos
    return out


def rotate(x):
    return rotate_by(x, 1)


def rotate_k(x):
    return rotate_by(x, -1)"""

#: xPos's γ (Sun et al. 2022; torchscale and rotary-embedding-torch: ``0.4``).
GAMMA = 0.4
#: The default scale base B.
SCALE_BASE = 512


def xpos_zeta(head_dim: int) -> np.ndarray:
    """ζ_k = (2k + γd)/((1 + γ)d), k = 0 … d/2 − 1 (rotary-embedding-torch's ``scale``)."""
    d = int(head_dim)
    return (np.arange(0, d, 2, dtype=np.float64) + GAMMA * d) / ((1 + GAMMA) * d)


def xpos_scale(positions, head_dim: int, scale_base: float, sign: int = 1) -> np.ndarray:
    """ζ_k^(±p/B) per position p and pair k, (n, d/2): + for queries, − for keys."""
    p = np.asarray(positions, dtype=np.float64)
    return np.exp(sign * np.multiply.outer(p, np.log(xpos_zeta(head_dim))) / float(scale_base))


def xpos_rotate(x, sign: int = 1, base: float = ROPE_BASE, scale_base: float = SCALE_BASE, offset: float = 0.0):
    """xPos of the rows of ``x`` (n, d) at positions p = 0 … n − 1: RoPE, times ζ^((p − offset)/B) (sign +1,
    queries) or ζ^(−(p − offset)/B) (sign −1, keys).  ``offset`` = ⌊n/2⌋ is rotary-embedding-torch's centring."""
    n, d = np.shape(x)
    pos = np.arange(n, dtype=np.float64)
    return rotate_pairs(x, inv_freq(d, base), pos, xpos_scale(pos - offset, d, scale_base, sign))


def dirichlet(n: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """D_n(ω) = mean_{t=0}^{n−1} e^{itω} = (e^{inω} − 1)/(n(e^{iω} − 1)), (len(n), len(ω)); exactly 1 for n = 1."""
    nn = np.asarray(n, dtype=np.float64)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.expm1(1j * nn * omega[None, :]) / (nn * np.expm1(1j * omega[None, :]))
    out[np.asarray(n) == 1] = 1.0
    return out


class XPos(RoPE):
    snippet_reads = ("log_decay",)  # helpers its snippets write out (see Scheme.snippet_reads)
    id = "xpos"
    title = "xPos"
    colour = "#1C5441"  # a dark, greyer shade of RoPE's green, dotted
    symbol = "t3"
    line = "dot"
    order = 46
    description = "RoPE whose pairs also shrink with distance, ζₖ^((i−j)/512): the score decays by design."
    sources = (
        Source("Sun et al. 2022, “A Length-Extrapolatable Transformer” (xPos), ACL 2023", 2022,
               "https://arxiv.org/abs/2212.10554"),
    )
    relative = True
    bounded = True
    parameters = RoPE.parameters + (
        Parameter("scale_base", SCALE_BASE, 1, 1_000_000, "scale base B",
                  help="pairs shrink as ζ^(Δ/B): a larger B decays more slowly (xPos: 512)"),
    )
    depends_on = ("head_dim", "base", "content", "seed", "causal", "params")
    used_by = ("the LeX Transformer (Sun et al. 2022, Microsoft torchscale); RetNet's retention keeps its "
               "rotation with one decay γ^(n−m) per head (Sun et al. 2023)")
    where = "rotates q and k like RoPE and scales pair k by ζₖ^(p/512) on q, ζₖ^(−p/512) on k"
    relation = "relative: ζ^(m/B)·ζ^(−n/B) = ζ^((m−n)/B), so qₘ·kₙ depends on m − n only (causal only)"
    shown_by_default = False
    swap_label = "xPos (RoPE + decay)"
    swap_note = "RoPE whose pairs also shrink with distance: scores decay by design (Sun et al. 2022)."
    in_lab = True
    lab_by_default = False
    lab_note = "RoPE plus a per-pair decay with distance (Sun et al. 2022)"

    def scale_base(self, obj) -> float:
        if hasattr(obj, "params_of"):
            return float(dict(obj.params_of(self.id))["scale_base"])
        return float(self.param(obj, "scale_base"))

    def display_title(self, req: Query | None = None) -> str:
        return self.title if req is None else f"{self.title} (B = {self.scale_base(req):g})"

    def log_decay(self, req) -> np.ndarray:
        return np.log(xpos_zeta(req.head_dim)) / self.scale_base(req)

    def past_training(self, req: Query) -> str:
        ld = self.log_decay(req)
        at = [float(np.mean(np.exp(n * ld))) for n in (req.l_train, req.l_eval)]
        return (f"the rotation meets RoPE's new angles past L_train, but every pair shrinks with distance: on "
                f"average to {at[0]:.2g} of its size at Δ = L_train = {req.l_train:,} and {at[1]:.2g} at "
                f"L_eval = {req.l_eval:,}, so far keys fade (causal attention only)")

    # -- Schemes panel ------------------------------------------------------------------------------
    def formula_line(self, st: SchemesSetup) -> str:
        d, b = st.head_dim, self.scale_base(st)
        z = xpos_zeta(d)
        return (f"<b>xPos</b>: q<sub>m</sub>·k<sub>n</sub> = Re Σ<sub>i</sub> ζ<sub>i</sub><sup>(m−n)/{b:g}</sup> "
                f"q<sub>i</sub> k̄<sub>i</sub> e<sup>i(m−n)θ<sub>i</sub></sup>, ζ<sub>i</sub> = (2i/{d} + 0.4)/1.4 = "
                f"{num_html(z[0])} … {num_html(z[-1])}, θ<sub>i</sub> as RoPE's")

    def score_blocks(self, req: Query, bl):
        if not req.causal:
            raise NotShown("xPos is for causal attention only: for keys after the query ζ^((i−j)/B) grows "
                           "without bound — turn the causal mask on")
        d = req.head_dim
        h = pair_energy(content_vectors(d, req.content, req.seed))
        omega = inv_freq(d, req.base) - 1j * self.log_decay(req)
        a, n = bl.starts, bl.counts
        dq = dirichlet(n, omega)
        out = np.full((bl.n, bl.n), np.nan)
        rows, cols = np.nonzero(a[:, None] > a[None, :])  # wholly past blocks: i > j everywhere
        gap = (a[rows] - a[cols] - n[cols] + 1).astype(np.float64)
        acc = np.zeros(rows.size)
        for sl in chunks(omega.size, 16):
            w = omega[sl]
            acc += np.real(np.exp(1j * np.multiply.outer(gap, w)) * dq[rows, sl] * dq[cols, sl]) @ h[sl]
        out[rows, cols] = acc
        for c in np.unique(n):  # diagonal blocks: the visible cells j ≤ i, Δ = 0 … c − 1 taken c − Δ times
            delta = np.arange(c, dtype=np.float64)
            weight = (c - delta) / (c * (c + 1) / 2.0)
            val = np.zeros(omega.size, dtype=complex)
            for sl in chunks(int(c)):
                val += weight[sl] @ np.exp(1j * np.multiply.outer(delta[sl], omega))
            idx = np.flatnonzero(n == c)
            out[idx, idx] = float(np.real(val) @ h)
        return (out - h.sum()) / math.sqrt(d)

    def distance_values(self, req: Query, dist):
        d = req.head_dim
        h = pair_energy(content_vectors(d, req.content, req.seed))
        theta, ld = inv_freq(d, req.base), self.log_decay(req)
        mean = np.empty(dist.size)
        for sl in chunks(dist.size):
            r = dist[sl].astype(np.float64)
            mean[sl] = (np.exp(np.multiply.outer(r, ld)) * np.cos(np.multiply.outer(r, theta))) @ h
        mean = (mean - h.sum()) / math.sqrt(d)
        return Curve(dist, mean, bound=rotary_bound(dist, theta, ld))

    def beyond_plot(self, req: Query):
        n = max(int(req.l_eval), int(req.l_train)) + 1
        dist = np.unique(np.geomspace(1, n, 512).round())
        y = np.exp(np.multiply.outer(dist, self.log_decay(req))).mean(axis=1)
        b = self.scale_base(req)
        return PlotSpec(f"xPos: each pair shrinks as ζₖ^(Δ/{b:g}) — mean over the {req.head_dim // 2} pairs",
                        dist, y, "distance Δ = i − j", "mean ζₖ^(Δ/B)",
                        marks=((float(req.l_train), "L_train"), (b, "B")), log_x=True)

    def score_snippet(self, req: Query):
        return SnippetPart(ZETA_SNIPPET.format(d="d") + SCORE_SNIPPET,
                           params=(("B", self.scale_base(req), "xPos scale base B"),))

    def beyond_snippet(self, req: Query):
        return SnippetPart(ZETA_SNIPPET.format(d="d")
                           + "x = np.unique(np.geomspace(1, max(l_eval, l_train) + 1, 512).round())  # distances Δ\n"
                           "y = np.exp(np.multiply.outer(x, np.log(zeta) / B)).mean(axis=1)  # mean of ζ_k^(Δ/B)",
                           params=(("B", self.scale_base(req), "xPos scale base B"),))

    def swap_snippet(self, st: SwapSetup):
        return SnippetPart(ZETA_SNIPPET.format(d="dh") + SWAP_SNIPPET, defines=("rotate", "rotate_k"))

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        return SwapTerms(rotate=functools.partial(xpos_rotate, sign=1),
                         rotate_k=functools.partial(xpos_rotate, sign=-1))

    def swap_reason(self, st: SwapSetup) -> str:
        return ("xPos rotates every query and key by its position and shrinks each pair with the distance "
                "between them, so q·k depends on the offset, and the swap changed the offsets of the swapped "
                "words.")

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        return {"score": f"(Z<sub>i</sub>R<sub>i</sub>q<sub>i</sub>)ᵀ(Z<sub>j</sub><sup>−1</sup>R<sub>j</sub>"
                         f"k<sub>j</sub>)/√{dh}",
                "notes": [f"R<sub>p</sub> as RoPE; Z<sub>p</sub> scales pair k by ζ<sub>k</sub><sup>p/512</sup>, "
                          f"ζ<sub>k</sub> = (2k/{dh} + 0.4)/1.4, so the score shrinks with i − j"]}

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        def build(n, head_dim, device, dtype):
            theta, pos = inv_freq(head_dim, ROPE_BASE), np.arange(n)
            return (*pair_tables(theta, n, device, dtype, xpos_scale(pos, head_dim, SCALE_BASE, 1)),
                    *pair_tables(theta, n, device, dtype, xpos_scale(pos, head_dim, SCALE_BASE, -1)))

        class XPosPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def rotary(self, n, head_dim, device, dtype):
                return self.cached("xpos", n, device, lambda: build(n, head_dim, device, dtype))

        return XPosPosition(self, d_model, heads, train_len)

    def add_data_commands(self, subparsers, cli) -> None:
        """None of its own (``pe-explorer data rope`` is RoPE's)."""


SCHEME = XPos()
