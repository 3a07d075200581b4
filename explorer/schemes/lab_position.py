"""The Lab's position module: where position enters the tiny transformer (torch, imported on first use)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Scheme


@functools.lru_cache(maxsize=1)
def lab_position_class():
    """:class:`LabPosition`, built on first use so that torch is imported only by the Lab."""
    from torch import nn

    class LabPosition(nn.Module):
        """Where position enters the Lab's transformer; the default adds nothing anywhere (NoPE).

        ``add(x)`` (batch, n, d) → x with positions added; ``rotary(n, head_dim, device, dtype)`` → (cos, sin)
        tables of the angles (n, head_dim/2), or (cos_q, sin_q, cos_k, sin_k) when keys turn differently
        from queries (xPos), or ``None``; ``bias(n, device, dtype)`` → (heads, n, n) added to the scaled
        scores (with −inf above the diagonal: the causal mask), or ``None`` for plain causal attention;
        ``layer(index, rotary, bias)`` → the (rotary, bias) block ``index`` (0-based) uses — every block the
        same by default (a NoPE/RoPE hybrid drops the rotation in some); ``check_length(n)`` raises
        :class:`NoEncoding` when there is no encoding for a position < n.  Subclasses keep their tensors per
        length in ``self.cached``.

        Per layer (defaults change nothing): ``setup_layers(layers)`` is called once after construction
        (make per-layer parameters there); ``layer_bias(layer, n, device, dtype, shared)`` → the bias of that
        layer (default: ``shared``, what ``layer`` gave); ``score_extra(layer, q, k)`` → (batch, heads, n, n)
        added to the scaled scores, or ``None`` (a relative key term: Shaw, Transformer-XL);
        ``value_extra(layer, weights)`` → (batch, heads, n, d_head) added to the attention's output, or
        ``None``; a module that uses it sets ``needs_weights = True`` so the weights are computed explicitly.

        ``lab_params`` holds the scheme's :attr:`Scheme.lab_parameters` for this run (name → value): their
        defaults, replaced by :meth:`configure` (called by the model before ``setup_layers``).
        """

        needs_weights = False

        def __init__(self, scheme: Scheme, d_model: int, heads: int, train_len: int) -> None:
            super().__init__()
            self.scheme_id = scheme.id
            self.d_model, self.heads, self.train_len = d_model, heads, train_len
            self._cache: dict[tuple, Any] = {}
            self.lab_params: dict[str, Any] = scheme.lab_values()

        def configure(self, params) -> None:
            """This run's values of the scheme's Lab parameters (a mapping; missing ones keep their default)."""
            self.lab_params = {**self.lab_params, **dict(params)}

        def cached(self, kind: str, n: int, device, build):
            key = (kind, n, str(device))
            if key not in self._cache:
                self._cache[key] = build()
            return self._cache[key]

        def add(self, x):
            return x

        def rotary(self, n: int, head_dim: int, device, dtype):
            return None

        def bias(self, n: int, device, dtype):
            return None

        def layer(self, index: int, rotary, bias):
            return rotary, bias

        def check_length(self, n: int) -> None:
            return None

        def setup_layers(self, layers: int) -> None:
            return None

        def layer_bias(self, layer: int, n: int, device, dtype, shared):
            return shared

        def score_extra(self, layer: int, q, k):
            return None

        def value_extra(self, layer: int, weights):
            return None

        def trained_table(self):
            """The position table this module learned, (positions, d) float64 numpy; None if it has none."""
            return None

    return LabPosition
