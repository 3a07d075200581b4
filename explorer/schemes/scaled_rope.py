"""RoPE with its frequencies rescaled to stretch the context: linear (PI), NTK-aware, YaRN, llama3."""

from __future__ import annotations

import numpy as np

from ..encodings import (
    RopeScaling,
    llama3_band_edges,
    scaled_inv_freq,
    yarn_attention_factor,
    yarn_correction_range,
)
from .base import Parameter, Source, num_html
from .query import Query, SchemesSetup
from .rope import RoPE

METHOD_TITLES = {"linear": "linear (position interpolation)", "ntk": "NTK-aware", "yarn": "YaRN",
                 "llama3": "llama3"}

USED_BY_METHOD = {
    "linear": "Position Interpolation (Chen et al. 2023, arXiv 2306.15595): LLaMA to 32k; SuperHOT (2023)",
    "ntk": "bloc97 2023 (“NTK-aware scaled RoPE”, r/LocalLLaMA); a dynamic variant in Qwen (Bai et al. 2023)",
    "yarn": "YaRN (Peng et al. 2023, ICLR 2024): Qwen2.5 to 128k, DeepSeek-V2 and -V3",
    "llama3": "Llama 3.1 (Meta 2024, “The Llama 3 Herd of Models”): s = 8, L_orig = 8192, factors 1 and 4",
}


def scaling_of(req) -> RopeScaling:
    """The :class:`RopeScaling` of the scaled-RoPE column: the trained context L_train is L_orig."""
    return RopeScaling(req.scaling, req.factor, original_max_positions=req.l_train)


def interpolation_weight(theta: np.ndarray, theta_scaled: np.ndarray, factor: float) -> np.ndarray:
    """w_k = (1 − θ'_k/θ_k)/(1 − 1/s): 0 keeps pair k (extrapolates), 1 divides it by the full s."""
    if factor <= 1.0:
        return np.zeros_like(theta)
    return (1.0 - theta_scaled / theta) / (1.0 - 1.0 / factor)


class ScaledRoPE(RoPE):
    id = "scaled_rope"
    title = "Scaled RoPE"
    colour = "#CC79A7"
    symbol = "p"
    line = "dash"
    order = 50
    description = "RoPE with rescaled frequencies so a model trained to L_orig runs to about s·L_orig."
    sources = (
        Source("Chen et al. 2023, “Extending Context Window of Large Language Models via Positional "
               "Interpolation”", 2023, "https://arxiv.org/abs/2306.15595"),
        Source("bloc97 2023, “NTK-Aware Scaled RoPE”", 2023,
               "https://www.reddit.com/r/LocalLLaMA/comments/14lz7j5/"),
        Source("Peng et al. 2023, “YaRN: Efficient Context Window Extension of Large Language Models”, "
               "ICLR 2024", 2023, "https://arxiv.org/abs/2309.00071"),
        Source("Meta 2024, “The Llama 3 Herd of Models”", 2024, "https://arxiv.org/abs/2407.21783"),
    )
    parameters = RoPE.parameters + (
        Parameter("l_train", 512, 2, 131072, "L_orig (= L_train)", field="l_train"),
        Parameter("factor", 4.0, 1.0, 64.0, "factor s", field="factor", integer=False),
    )
    depends_on = ("head_dim", "base", "l_train", "content", "seed", "scaling", "factor")
    used_by = "; ".join(USED_BY_METHOD.values())
    where = "rotates q and k like RoPE, with rescaled angles θ′ₖ"
    relation = "relative (like RoPE)"
    swap_label = None
    in_lab = False

    def check_setup(self, st: SchemesSetup) -> str:
        if st.scaling == "ntk" and st.head_dim < 4:
            return "NTK scaling needs head_dim ≥ 4 (its exponent d/(d−2) is infinite for d = 2)"
        return ""

    def formula_line(self, st: SchemesSetup) -> str:
        d, s, lt = st.head_dim, st.factor, st.l_train
        if st.scaling == "linear":
            sc = f"θ′<sub>i</sub> = θ<sub>i</sub>/s = θ<sub>i</sub>/{s:g} (positions ÷ {s:g})"
        elif st.scaling == "ntk":
            nb = st.base * s ** (d / (d - 2)) if d > 2 else float("inf")
            sc = (f"base′ = base·s<sup>d/(d−2)</sup> = {st.base:g}·{s:g}<sup>{d}/{d - 2}</sup> = "
                  f"{num_html(nb)}, θ′<sub>i</sub> = base′<sup>−2i/d</sup>")
        elif st.scaling == "yarn":
            lo, hi = yarn_correction_range(d, st.base, RopeScaling("yarn", s, lt))
            sc = (f"θ′<sub>i</sub> = θ<sub>i</sub>·((1 − r<sub>i</sub>) + r<sub>i</sub>/{s:g}), "
                  f"ramp r<sub>i</sub> from 0 at pair {lo:g} to 1 at pair {hi:g} (β<sub>fast</sub> 32, "
                  f"β<sub>slow</sub> 1, L<sub>orig</sub> = {lt}); cos, sin × (0.1 ln s + 1) = "
                  f"{yarn_attention_factor(s):.4f}")
        else:
            hi_w, lo_w = llama3_band_edges(RopeScaling("llama3", s, lt))
            sc = (f"wavelength λ<sub>i</sub> = 2π/θ<sub>i</sub>: λ &gt; {lo_w:g} → θ<sub>i</sub>/{s:g}; "
                  f"λ &lt; {hi_w:g} → θ<sub>i</sub> kept; between: smooth blend (L<sub>orig</sub> = {lt})")
        return f"<b>Scaled RoPE, {METHOD_TITLES[st.scaling]}, s = {s:g}</b>: {sc}"

    def display_title(self, req: Query | None = None) -> str:
        if req is None:
            return self.title
        return f"{self.title} ({METHOD_TITLES[req.scaling]})"

    def frequencies(self, req):
        return scaled_inv_freq(req.head_dim, req.base, scaling_of(req))

    def bound_scaling(self, req):
        return scaling_of(req)

    def used_by_text(self, req: Query) -> str:
        return USED_BY_METHOD[req.scaling]

    def past_training(self, req: Query) -> str:
        d, lt = req.head_dim, req.l_train
        theta = np.asarray(super().frequencies(req)[0])
        theta_s, att = self.frequencies(req)
        w = interpolation_weight(theta, theta_s, req.factor)
        tol = 1e-12
        kept = int(np.sum(np.abs(w) <= tol))
        divided = int(np.sum(np.abs(w - 1.0) <= tol)) if req.factor > 1 else 0
        text = (f"{METHOD_TITLES[req.scaling]}, s = {req.factor:g}: trained to {lt:,}, meant for about "
                f"s·L_train = {int(round(req.factor * lt)):,}; {kept} of {d // 2} pairs kept, "
                f"{divided} divided by s, the rest blended")
        if req.scaling == "yarn":
            text += f"; logits × {att ** 2:.3f} (attention factor {att:.3f})"
        return text

    def add_data_commands(self, subparsers, cli) -> None:
        """None of its own: ``pe-explorer data rope --scaling …`` rotates with the scaled frequencies."""


SCHEME = ScaledRoPE()
