"""Sinusoidal absolute positions added to the input (Vaswani et al. 2017, §3.5)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..encodings.blocks import additive_block_means, chunks, distance_grid, sinusoidal_block_rows
from ..encodings.sinusoidal import VARIANTS, frequencies, sinusoidal
from .base import (
    BAND_POINTS,
    Curve,
    Parameter,
    PlotSpec,
    Scheme,
    SnippetPart,
    Source,
    SwapTerms,
    band,
    band_queries,
    content_vectors,
    lab_position_class,
)
from .query import Query, SchemesSetup, SwapSetup


def _rows(pos: np.ndarray, omega: np.ndarray) -> np.ndarray:
    ang = np.multiply.outer(pos.astype(np.float64), omega)
    out = np.empty((pos.size, 2 * omega.size))
    out[:, 0::2] = np.sin(ang)
    out[:, 1::2] = np.cos(ang)
    return out


#: Copy as Python: ΔS with the table added to the content, ((c + P_i)·(c + P_j) − c·c)/√d averaged over c.
SCORE_SNIPPET = """\
omega = base ** (-2.0 * np.arange(d // 2) / d)  # ω_k = base^(−2k/d)
angles = np.multiply.outer(pos.astype(np.float64), omega)
P = np.empty((L, d))
P[:, 0::2] = np.sin(angles)  # the paper's layout: sin in column 2k, cos in 2k + 1
P[:, 1::2] = np.cos(angles)
u = P @ c.mean(axis=0)  # c̄·P_i
delta_s = (u[:, None] + u[None, :] + P @ P.T) / np.sqrt(d)  # (c̄·P_i + c̄·P_j + P_i·P_j)/√d"""
#: Copy as Python: the Token-swap layer's added table (paper layout, base 10000, as ``swap_terms``).
SWAP_SNIPPET = """\
omega = 10000.0 ** (-2.0 * np.arange(d_model // 2) / d_model)  # ω_i = 10000^(−2i/d)
angles = np.multiply.outer(np.arange(n, dtype=np.float64), omega)  # p·ω_i for p = 0 … n−1
added = np.empty((n, d_model))
added[:, 0::2] = np.sin(angles)  # PE[p, 2i] = sin(p·ω_i)
added[:, 1::2] = np.cos(angles)  # PE[p, 2i+1] = cos(p·ω_i)"""


class Sinusoidal(Scheme):
    id = "sinusoidal"
    title = "Sinusoidal"
    colour = "#0072B2"
    symbol = "s"
    order = 20
    description = "sin/cos of the position at d/2 frequencies, added to the token embedding before layer 1."
    sources = (Source("Vaswani et al. 2017, “Attention Is All You Need”, NeurIPS, §3.5", 2017,
                      "https://arxiv.org/abs/1706.03762"),)
    kind = "input"
    relative = False
    bounded = True
    parameters = (
        Parameter("head_dim", 64, 2, 1024, "width d", field="head_dim"),
        Parameter("base", 10000.0, 10.0, 1e7, "base", field="base", integer=False),
    )
    depends_on = ("head_dim", "base", "content", "seed")
    beyond_depends_on = ("head_dim", "base", "l_train")
    used_by = "the original Transformer (Vaswani et al. 2017, “Attention Is All You Need”, NeurIPS)"
    where = "added to the input (token embedding), once, before layer 1"
    relation = "absolute (an offset acts as a fixed rotation of each pair)"
    swap_label = "sinusoidal (added)"
    swap_note = "α·PE(position) added to each word embedding (Vaswani et al. 2017)."
    in_lab = True
    lab_note = "sin/cos of the position added to each token (Vaswani et al. 2017)"

    def past_training(self, req: Query) -> str:
        return "defined for every position, but the model never trained on the new angle combinations"

    # -- Schemes panel ------------------------------------------------------------------------------
    def formula_line(self, st: SchemesSetup) -> str:
        d = st.head_dim
        return (f"<b>Sinusoidal</b>: x<sub>p</sub> = e<sub>p</sub> + PE(p), PE(p)<sub>2i</sub> = sin(p·ω<sub>i</sub>), "
                f"PE(p)<sub>2i+1</sub> = cos(p·ω<sub>i</sub>), ω<sub>i</sub> = {st.base:g}<sup>−2i/{d}</sup> "
                f"(i = 0 … {d // 2 - 1}), defined for every p")
    def score_blocks(self, req: Query, bl):
        d = req.head_dim
        c = content_vectors(d, req.content, req.seed)
        return additive_block_means(sinusoidal_block_rows(bl, frequencies(d, req.base, "paper")),
                                    c.mean(axis=0), d)

    def distance_values(self, req: Query, dist):
        d, n = req.head_dim, self.curve_length(req)
        cbar = content_vectors(d, req.content, req.seed).mean(axis=0)
        omega = frequencies(d, req.base, "paper")
        # u_p = c̄·P_p = Re Σ_k w_k e^{ipω_k}, w_k = c̄_{2k+1} − i c̄_{2k}.  The sums over the pairs at
        # distance Δ are geometric:  Σ_{p=Δ}^{n−1} + Σ_{p=0}^{n−1−Δ} e^{ipω}
        #   = (e^{iΔω} − e^{inω} + 1 − e^{inω}·e^{−iΔω}) / (1 − e^{iω}),
        # and P_i·P_{i−Δ} = Σ_k cos(Δω_k) = Re Σ_k e^{iΔω_k}: one table e^{iΔω_k} serves both.
        w = (cbar[1::2] - 1j * cbar[0::2]) / (1.0 - np.exp(1j * omega))
        end = np.exp(1j * n * omega)
        cross = np.empty(dist.size)
        g = np.empty(dist.size)
        for sl in chunks(dist.size):
            e = np.exp(1j * np.multiply.outer(dist[sl].astype(np.float64), omega))
            cross[sl] = np.real((e - end + 1.0 - end * e.conj()) @ w)
            g[sl] = e.real.sum(axis=1)
        mean = (cross / (n - dist) + g) / math.sqrt(d)

        def score(q, keys):
            pq = _rows(np.array([q]), omega)[0]
            pk = _rows(keys, omega)
            return (pq @ cbar + pk @ cbar + pk @ pq) / math.sqrt(d)

        band_d, _ = distance_grid(n, min(dist.size, BAND_POINTS))
        lo, hi = band(band_d, band_queries(n), score)
        return Curve(dist, mean, lo=lo, hi=hi, band_distance=band_d)

    def beyond_snippet(self, req: Query):
        return SnippetPart(
            "n = max(l_eval, l_train)\n# every distance up to 1,024, then 1,024 steps evenly spaced on a log axis\n"
            "x = np.unique(np.concatenate([np.arange(1, min(n, 1024)),\n"
            "                              np.geomspace(1024, max(n, 1024), 1024).round()]))\n"
            "x = x[x < max(n, 2)]\nomega = base ** (-2.0 * np.arange(d // 2) / d)  # ω_k = base^(−2k/d)\n"
            "y = np.cos(np.multiply.outer(x, omega)).mean(axis=1)  # PE(p)·PE(p+Δ)/(d/2) = mean of cos(Δω_k)")

    def beyond_plot(self, req: Query):
        """PE(p)·PE(p+Δ) = Σ_k cos(Δ·ω_k), the same for every p: the formula answers at every distance,
        the model only ever trained below L_train.  Every distance up to 1,024, then 1,024 steps evenly
        spaced on the log axis."""
        n = max(int(req.l_eval), int(req.l_train))
        dist = np.unique(np.concatenate([np.arange(1, min(n, 1024)), np.geomspace(1024, max(n, 1024), 1024).round()]))
        dist = dist[dist < max(n, 2)].astype(np.int64)
        omega = frequencies(req.head_dim, req.base, "paper")
        y = np.empty(dist.size)
        for sl in chunks(dist.size):
            y[sl] = np.cos(np.multiply.outer(dist[sl].astype(np.float64), omega)).mean(axis=1)
        return PlotSpec("Sinusoidal: PE(p)·PE(p+Δ), defined at every distance", dist.astype(float), y,
                        "distance Δ", "similarity (PE(p)·PE(p+Δ) / (d/2))", marks=((float(req.l_train), "L_train"),),
                        log_x=True)

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        return SwapTerms(added=_swap_table(n, d_model))

    def swap_reason(self, st: SwapSetup) -> str:
        return (f"α·PE(position) is added to every embedding (α = {st.alpha:g}): the swapped words now carry "
                "each other's position vectors, so their queries, keys and values change.")

    def score_snippet(self, req: Query):
        return SnippetPart(SCORE_SNIPPET)

    def swap_snippet(self, st: SwapSetup):
        return SnippetPart(SWAP_SNIPPET, defines=("added",))

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        return {"input": f"Q, K, V = X·W<sub>Q</sub>, X·W<sub>K</sub>, X·W<sub>V</sub> with "
                         f"X = E + {st.alpha:.2f}·PE(pos), "
                         f"PE(p)<sub>2i</sub> = sin(p·10000<sup>−2i/{st.d_model}</sup>), "
                         "PE(p)<sub>2i+1</sub> = cos(…)"}

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        import torch

        class SinusoidalPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def add(self, x):
                n = x.shape[1]
                pe = self.cached("sin", n, x.device, lambda: torch.tensor(sinusoidal(n, self.d_model),
                                                                          dtype=x.dtype, device=x.device))
                return x + pe

        return SinusoidalPosition(self, d_model, heads, train_len)

    # -- CLI --------------------------------------------------------------------------------------
    def add_data_commands(self, subparsers, cli) -> None:
        p = subparsers.add_parser(self.id, help="the sinusoidal table, (N, D)")
        p.add_argument("--positions", type=cli.whole(), required=True, metavar="N")
        p.add_argument("--d-model", type=cli.whole(), required=True, metavar="D")
        p.add_argument("--base", type=cli.number(), default=10000.0, metavar="B")
        p.add_argument("--variant", choices=VARIANTS, default="paper",
                       help="column layout; t2t is tensor2tensor's (fairseq has its frequencies but shifts rows by "
                            "padding_idx + 1, zeroes the padding row, fixes base 10000 and uses float32)")
        cli.out(p)
        p.set_defaults(func=lambda args: cli.write(
            args, lambda: sinusoidal(args.positions, args.d_model, args.base, args.variant),
            shape=(args.positions, args.d_model)))


SCHEME = Sinusoidal()


@lru_cache(maxsize=8)
def _swap_table(n: int, d_model: int) -> np.ndarray:
    """Token swap's PE(0 … n−1), read-only and made once per size: an α drag asked for the same table twice a step."""
    table = sinusoidal(n, d_model)
    table.flags.writeable = False
    return table
