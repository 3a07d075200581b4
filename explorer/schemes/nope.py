"""NoPE: no positional encoding at all; only a causal mask can reveal order (Kazemnejad et al. 2023).

As an *additive* scheme it contributes zeros (:func:`nope`); as a *score* scheme it adds no bias.  Without a
causal mask, attention is then permutation-equivariant: order is invisible.
"""

from __future__ import annotations

import numpy as np

from ..encodings.errors import as_positions, check_int, check_size
from .base import Scheme, SnippetPart, Source
from .query import Query, SwapSetup


def nope(positions, d_model: int) -> np.ndarray:
    """The zero table, shape ``(N, d_model)``: what NoPE adds to the token embeddings."""
    p = as_positions(positions)
    d = check_int("d_model", d_model, minimum=1)
    check_size(p.size, d, what="NoPE table")
    return np.zeros((p.size, d), dtype=np.float64)


class NoPE(Scheme):
    id = "nope"
    title = "NoPE"
    colour = "#666666"
    symbol = "o"
    order = 10
    description = "No positional information: without a causal mask attention is a bag of words."
    sources = (
        Source("Kazemnejad et al. 2023, “The Impact of Positional Encoding on Length Generalization in "
               "Transformers”, NeurIPS", 2023, "https://arxiv.org/abs/2305.19466"),
        Source("Haviv et al. 2022, “Transformer Language Models without Positional Encodings Still Learn "
               "Positional Information”, Findings of EMNLP", 2022, "https://arxiv.org/abs/2203.16634"),
    )
    kind = "none"
    relative = False
    bounded = True
    used_by = ("no major model alone; Llama 4 interleaves NoPE layers with RoPE layers (Meta 2025); "
               "Kazemnejad et al. 2023 (NeurIPS)")
    where = "nowhere: only the causal mask reveals order"
    relation = "neither: without a causal mask attention cannot tell order at all"
    swap_label = "none (NoPE)"
    swap_note = "No positional information at all: the layer sees a bag of words."
    in_lab = True
    lab_note = "No positional encoding: only the causal mask tells positions apart"

    def past_training(self, req: Query) -> str:
        return "nothing positional to break; length generalisation is studied by Kazemnejad et al. 2023"

    def swap_reason(self, st: SwapSetup) -> str:
        return ""

    def score_snippet(self, req: Query):
        return SnippetPart("delta_s = np.zeros((L, L))  # nothing positional: ΔS = 0 everywhere")

    def swap_snippet(self, st: SwapSetup):
        return SnippetPart("")  # nothing positional: plain attention

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        return {"input": "Q, K, V = E·W<sub>Q</sub>, E·W<sub>K</sub>, E·W<sub>V</sub> "
                         "(E: word embeddings, no position)"}


SCHEME = NoPE()
