"""Scaled dot-product attention (torch), returning the weights as well as the outputs.

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
    import torch  # lazily, on the worker

    qa, ka, va = (check_finite_array(n, x) for n, x in (("q", q), ("k", k), ("v", v)))
    if qa.ndim < 2 or ka.ndim < 2 or va.ndim < 2:
        raise EncodingError("q, k and v must have at least 2 dimensions (positions × features)")
    if qa.shape[-1] != ka.shape[-1] or ka.shape[-2] != va.shape[-2]:
        raise EncodingError(f"incompatible shapes q {qa.shape}, k {ka.shape}, v {va.shape}")
    tq, tk, tv = (torch.from_numpy(np.ascontiguousarray(x)) for x in (qa, ka, va))
    scores = tq @ tk.transpose(-1, -2) / float(np.sqrt(qa.shape[-1]))
    if bias is not None:
        b = np.asarray(bias, dtype=np.float64)
        if np.any(np.isnan(b)):
            raise EncodingError("bias contains NaN")
        scores = scores + torch.from_numpy(b)
    nq, nk = scores.shape[-2], scores.shape[-1]
    future = torch.ones(nq, nk, dtype=torch.bool).triu(1)
    if causal and not mask_after_softmax:
        scores = scores.masked_fill(future, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if causal and mask_after_softmax:
        weights = weights.masked_fill(future, 0.0)
    if torch.isnan(weights).any():
        raise EncodingError("a query row is fully masked (every key is −inf), so its weights are undefined")
    out = weights @ tv
    return AttentionResult(weights=weights.numpy(), outputs=out.numpy())
