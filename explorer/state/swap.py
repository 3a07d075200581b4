"""Parameters of the Token-swap panel."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .base import PanelState, StateError, param

MAX_TOKENS = 64


def tokenize(sentence: str) -> list[str]:
    """Whitespace tokens."""
    return sentence.split()


@dataclass(frozen=True)
class SwapState(PanelState):
    """The sentence, the swap, and the attention set-up."""

    sentence: str = param("dog bites man", label="sentence")
    swap_i: int = param(0, lo=0, hi=MAX_TOKENS - 1, label="swap I")
    swap_j: int = param(2, lo=0, hi=MAX_TOKENS - 1, label="swap J")
    scheme: str = param("none", choices=("none", "sinusoidal", "learned", "rope", "alibi"), label="scheme")
    alpha: float = param(1.0, lo=0.0, hi=3.0, label="PE strength α")
    d_model: int = param(16, lo=4, hi=256, even=True, label="d_model")
    seed: int = param(0, lo=0, hi=2**31 - 1, label="seed")
    heads: int = param(1, lo=1, hi=8, label="heads")
    causal: bool = param(False, label="causal mask")
    mask_after_softmax: bool = param(False, label="mask after softmax")
    query: int = param(0, lo=0, hi=MAX_TOKENS - 1, label="query token")

    def check(self) -> None:
        tokens = tokenize(self.sentence)
        if not tokens:
            raise StateError("sentence must contain at least one word")
        if len(tokens) > MAX_TOKENS:
            raise StateError(f"sentence may hold at most {MAX_TOKENS} tokens, got {len(tokens)}")
        n = len(tokens)
        for name in ("swap_i", "swap_j", "query"):
            if getattr(self, name) >= n:
                raise StateError(f"{name} must be below the number of tokens ({n}), got {getattr(self, name)}")
        if self.d_model % (2 * self.heads):
            raise StateError(
                f"d_model ({self.d_model}) must be divisible by 2 × heads ({2 * self.heads}) "
                "so each head has an even width"
            )

    @property
    def tokens(self) -> list[str]:
        return tokenize(self.sentence)

    def clamped(self, **changes) -> SwapState:
        """Apply ``changes`` and pull token indices back into range instead of failing."""
        merged = {**dataclasses.asdict(self), **changes}
        n = max(1, min(len(tokenize(str(merged["sentence"]))), MAX_TOKENS))
        for name in ("swap_i", "swap_j", "query"):
            merged[name] = min(int(merged[name]), n - 1)
        if n > 1 and merged["swap_i"] == merged["swap_j"]:
            merged["swap_j"] = n - 1 if merged["swap_i"] != n - 1 else 0
        return SwapState(**merged)
