"""NoPE — no positional information (Kazemnejad et al. 2023, "The Impact of Positional Encoding on
Length Generalization in Transformers").

As an *additive* scheme it contributes zeros; as a *score* scheme it adds no bias.  Without a
causal mask, attention is then permutation-equivariant: order is invisible.
"""

from __future__ import annotations

import numpy as np

from .errors import as_positions, check_int, check_size


def nope(positions, d_model: int) -> np.ndarray:
    """The zero table, shape ``(N, d_model)``: what NoPE adds to the token embeddings."""
    p = as_positions(positions)
    d = check_int("d_model", d_model, minimum=1)
    check_size(p.size, d, what="NoPE table")
    return np.zeros((p.size, d), dtype=np.float64)
