"""Kerple, logarithmic variant: a per-head bias −r₁·log(1 + r₂·|i − j|) on the scores (Chi et al. 2022).

KERPLE ("Kernelized Relative Positional Embedding for Length Extrapolation", NeurIPS 2022) derives biases
from conditionally positive definite kernels; its logarithmic variant adds

    b_h(i, j) = −r₁⁽ʰ⁾ · log(1 + r₂⁽ʰ⁾ · |i − j|),   r₁, r₂ > 0 learned per head,

to head h's scaled scores.  Like ALiBi it depends on the distance alone and keeps falling, but
logarithmically: far keys are penalised far less than ALiBi's −m·(i − j).  The authors' code keeps
r₁, r₂ ≥ 10⁻² by clamping, starts them at r₁ ~ U(0, 2), r₂ ~ U(0, 1) and shares one module by all layers
(chijames/KERPLE, ``ParallelKerpleLog``); the Lab does the same.
"""

from __future__ import annotations

import numpy as np

from ..encodings.blocks import relative_block_means
from ..encodings.errors import check_size
from .base import (
    Curve,
    Parameter,
    PlotSpec,
    Scheme,
    SnippetPart,
    Source,
    SwapTerms,
    future_mask,
    lab_position_class,
    mirror_blind,
    num_html,
)
from .query import Query, SchemesSetup, SwapSetup

#: The authors' lower clamp on r₁ and r₂ (both must stay positive).
EPS = 1e-2


def kerple_log_bias(delta, r1: float, r2: float) -> np.ndarray:
    """−r₁·log(1 + r₂·|δ|) for offsets δ (any shape; float64)."""
    return -float(r1) * np.log1p(float(r2) * np.abs(np.asarray(delta, dtype=np.float64)))


def swap_rates(heads: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded per-head (r₁, r₂) drawn as the authors initialise them: U(0, 2) and U(0, 1), at least 10⁻²."""
    rng = np.random.default_rng([seed, 11])
    return np.maximum(EPS, rng.uniform(0, 2, heads)), np.maximum(EPS, rng.uniform(0, 1, heads))


class Kerple(Scheme):
    snippet_reads = ("rates",)  # helpers its snippets write out (see Scheme.snippet_reads)
    id = "kerple"
    title = "Kerple (log)"
    colour = "#A50026"  # a crimson of its own (once ALiBi's vermilion: alike at 720p); dashed as a second cue
    line = "dash"
    symbol = "t2"
    order = 62
    description = "A per-head bias −r₁·log(1 + r₂·|i − j|): ALiBi's penalty, but growing logarithmically."
    sources = (Source("Chi, Fan, Ramadge & Rudnicky 2022, “KERPLE: Kernelized Relative Positional Embedding "
                      "for Length Extrapolation”, NeurIPS", 2022, "https://arxiv.org/abs/2205.09921"),)
    kind = "bias"
    relative = True
    bounded = False
    parameters = (
        Parameter("r1", 1.0, EPS, 10.0, "r₁", help="scale of the logarithmic penalty (> 0; learned per head)",
                  integer=False),
        Parameter("r2", 1.0, EPS, 10.0, "r₂", help="how fast the penalty bends (> 0; learned per head)",
                  integer=False),
    )
    depends_on = ("causal", "params")
    used_by = ("research models only: the authors' GPT-NeoX models trained on OpenWebText2, GitHub and ArXiv "
               "(checkpoints released; Chi et al. 2022, NeurIPS)")
    where = "a bias −r₁·log(1 + r₂·|i − j|) on each head's scores (no vectors)"
    relation = "relative"
    swap_label = "Kerple log (score bias)"
    swap_note = "−r₁·log(1 + r₂·|i−j|) added to the scores: a slowly growing penalty (Chi et al. 2022)."
    in_lab = True
    lab_note = "a learned logarithmic distance penalty on the scores (Kerple, Chi et al. 2022)"
    shown_by_default = False
    lab_by_default = False

    def rates(self, req) -> tuple[float, float]:
        return float(self.param(req, "r1")), float(self.param(req, "r2"))

    def parameters_added(self, req: Query) -> int:
        return 2 * int(getattr(req, "heads", 1))

    def parameters_text(self, req: Query) -> str:
        return f"2 per head (r₁, r₂) × {req.heads} heads = {self.parameters_added(req)}"

    def past_training(self, req: Query) -> str:
        r1, r2 = self.rates(req)
        at_train = float(kerple_log_bias(req.l_train - 1, r1, r2))
        at_eval = float(kerple_log_bias(max(req.l_eval, req.l_train) - 1, r1, r2))
        return (f"the same bias at any length; it grows slowly: {at_train:.3g} at Δ = {req.l_train - 1:,}, "
                f"{at_eval:.3g} at Δ = {max(req.l_eval, req.l_train) - 1:,} (ALiBi's would be linear)")

    # -- Schemes panel ------------------------------------------------------------------------------
    def formula_line(self, st: SchemesSetup) -> str:
        p = dict(st.params_of(self.id))
        return (f"<b>Kerple (log)</b>: score + (−r<sub>1</sub>·log(1 + r<sub>2</sub>·|i − j|)), "
                f"r<sub>1</sub> = {num_html(p['r1'])}, r<sub>2</sub> = {num_html(p['r2'])} "
                "(learned per head; ALiBi: −m·|i − j|)")

    def score_blocks(self, req: Query, bl):
        n = bl.length
        check_size(2 * n - 1, what="Kerple bias row")
        return relative_block_means(kerple_log_bias(np.arange(-(n - 1), n), *self.rates(req)), bl, req.causal)

    def distance_values(self, req: Query, dist):
        return Curve(dist, kerple_log_bias(dist, *self.rates(req)) + 0.0)

    def beyond_plot(self, req: Query):
        r1, r2 = self.rates(req)
        n = 16 * int(req.l_train)
        dist = np.unique(np.geomspace(1, n, 256).round())
        return PlotSpec(f"Kerple: −{r1:.3g}·log(1 + {r2:.3g}·Δ) keeps falling, slowly", dist,
                        kerple_log_bias(dist, r1, r2), "distance Δ = i − j", "bias",
                        marks=((float(req.l_train), "L_train"),), log_x=True)

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        r1, r2 = swap_rates(heads, seed)
        pos = np.arange(n, dtype=np.float64)
        dist = np.abs(pos[:, None] - pos[None, :])
        return SwapTerms(bias=-r1[:, None, None] * np.log1p(r2[:, None, None] * dist[None]))

    # -- Copy as Python ---------------------------------------------------------------------------------------
    def score_snippet(self, req: Query):
        r1, r2 = self.rates(req)
        return SnippetPart(
            "delta = np.subtract.outer(pos, pos).astype(np.float64)  # i − j\n"
            "delta_s = -r1 * np.log1p(r2 * np.abs(delta))  # −r₁·log(1 + r₂·|i − j|) (Chi et al. 2022)\n"
            "if causal:\n    delta_s = np.where(delta < 0, np.nan, delta_s)  # no key after its query",
            params=(("r1", r1, "the penalty's scale r₁"), ("r2", r2, "its rate r₂")))

    def beyond_snippet(self, req: Query):
        r1, r2 = self.rates(req)
        return SnippetPart("x = np.unique(np.geomspace(1, 16 * l_train, 256).round())  # distances Δ up to 16·L_train\n"
                           "y = -r1 * np.log1p(r2 * x)  # −r₁·log(1 + r₂·Δ)",
                           params=(("r1", r1, "the penalty's scale r₁"), ("r2", r2, "its rate r₂")))

    def swap_snippet(self, st: SwapSetup):
        return SnippetPart(
            f"rng = np.random.default_rng([seed, 11])  # per-head rates as the authors initialise them, ≥ {EPS:g}\n"
            f"r1 = np.maximum({EPS!r}, rng.uniform(0, 2, heads))\nr2 = np.maximum({EPS!r}, rng.uniform(0, 1, heads))\n"
            "pos = np.arange(n, dtype=np.float64)\n"
            "bias = -r1[:, None, None] * np.log1p(r2[:, None, None] * np.abs(pos[:, None] - pos[None, :])[None])",
            defines=("bias",))

    def swap_reason(self, st: SwapSetup) -> str:
        return ("Kerple adds −r₁·log(1 + r₂·|i−j|) to the scores, and the swap changed the distances between "
                "the swapped words and the others.")

    def swap_invisible(self, st: SwapSetup, keeps_distances):
        if not keeps_distances:
            return None
        return mirror_blind("Kerple", "Without the causal mask Kerple adds a function of |i−j| only.")

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        r1, r2 = swap_rates(st.heads, st.seed)
        pairs = ", ".join(f"({a:.2f}, {b:.2f})" for a, b in zip(r1, r2, strict=True))
        return {"extra": " − r<sub>1</sub>·log(1 + r<sub>2</sub>·|i−j|)",
                "notes": [f"(r<sub>1</sub>, r<sub>2</sub>) = {pairs} (seeded like the authors' initialisation)"]}

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        import torch
        from torch import nn

        class KerplePosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def __init__(self, *args) -> None:
                super().__init__(*args)
                # One (r₁, r₂) per head shared by every layer, started as the authors' code does
                # (chijames/KERPLE, ParallelKerpleLog): r₁ ~ U(0, 2), r₂ ~ U(0, 1).
                self.r1 = nn.Parameter(torch.rand(self.heads) * 2)
                self.r2 = nn.Parameter(torch.rand(self.heads))

            def bias(self, n, device, dtype):
                def build():
                    pos = np.arange(n)
                    dist = np.maximum(pos[:, None] - pos[None, :], 0)  # the future is masked anyway
                    return (torch.tensor(dist, dtype=dtype, device=device),
                            torch.tensor(future_mask(n), dtype=dtype, device=device))

                dist, mask = self.cached("kerple", n, device, build)
                r1 = self.r1.clamp(min=EPS).to(dtype)[:, None, None]  # the authors clamp at 10⁻² too
                r2 = self.r2.clamp(min=EPS).to(dtype)[:, None, None]
                return -r1 * torch.log1p(r2 * dist) + mask

        return KerplePosition(self, d_model, heads, train_len)


SCHEME = Kerple()
