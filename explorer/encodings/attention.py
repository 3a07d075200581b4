"""Scaled dot-product attention, returning the weights as well as the outputs (numpy, float64).

``weights = softmax(Q Kᵀ / √d_k + bias + mask)``, ``out = weights V`` (Vaswani et al. 2017, eq. 1).
The causal mask sets scores above the diagonal to −inf *before* the softmax; ``mask_after_softmax``
reproduces the common mistake (softmax first, then zero the future), whose rows no longer sum to 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import EncodingError, check_finite_array


@dataclass(frozen=True)
class AttentionResult:
    """Weights ``(..., N_q, N_k)`` and outputs ``(..., N_q, d_v)`` as float64 numpy arrays."""

    weights: np.ndarray
    outputs: np.ndarray


def attention(q, k, v, *, causal: bool = False, bias=None, mask_after_softmax: bool = False) -> AttentionResult:
    """Scaled dot-product attention with optional causal mask and additive bias.

    Parameters
    ----------
    q, k, v : array_like, shapes (..., N_q, d), (..., N_k, d), (..., N_k, d_v)
    causal : bool
        Forbid key j > query i.
    bias : array_like, optional
        Added to the scaled scores (broadcast), e.g. ALiBi; ``-inf`` entries mask.
    mask_after_softmax : bool
        With ``causal``: zero the future *after* the softmax (a mistake, shown for teaching).
    """
    qa, ka, va = (check_finite_array(n, x) for n, x in (("q", q), ("k", k), ("v", v)))
    if qa.ndim < 2 or ka.ndim < 2 or va.ndim < 2:
        raise EncodingError("q, k and v must have at least 2 dimensions (positions × features)")
    if qa.shape[-1] != ka.shape[-1] or ka.shape[-2] != va.shape[-2]:
        raise EncodingError(f"incompatible shapes q {qa.shape}, k {ka.shape}, v {va.shape}")
    # Plain numpy: the matrices are a drag step's (a few to a few hundred tokens), where torch's dispatch was most
    # of the cost (0.49 ms a call run as a drag step runs, 16 ms after the last; numpy 0.18).  The same formula as
    # torch's softmax, exp(s − max) / Σ, checked against torch's scaled_dot_product_attention in the tests.
    if ka.shape[-2] == 0:
        raise EncodingError("attention needs at least one key")
    b = None
    if bias is not None:
        b = np.asarray(bias, dtype=np.float64)
        if np.any(np.isnan(b)):
            raise EncodingError("bias contains NaN")
    # Huge finite inputs may overflow to ±inf and a row of −inf only gives NaN: both are refused below, as torch's
    # NaN weights were.
    with np.errstate(over="ignore", invalid="ignore"):
        scores = qa @ np.swapaxes(ka, -1, -2) / float(np.sqrt(qa.shape[-1]))
        if b is not None:
            scores = scores + b
        # Keys after each query (the causal mask): made only where a mask is asked for.
        future = np.triu(np.ones(scores.shape[-2:], dtype=bool), 1) if causal else None
        if future is not None and not mask_after_softmax:
            scores = np.where(future, -np.inf, scores)
        top = scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores - top)
        weights /= weights.sum(axis=-1, keepdims=True)
    if future is not None and mask_after_softmax:
        weights = np.where(future, 0.0, weights)
    if np.isnan(weights).any():
        raise EncodingError("a query row is fully masked (every key is −inf), so its weights are undefined")
    out = weights @ va
    return AttentionResult(weights=weights, outputs=out)
