"""Parameters of the Token-swap panel."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import schemes as registry
from .base import PanelState, StateError, param

MAX_TOKENS = 64
D_MODEL_MIN, D_MODEL_MAX = 4, 256
MAX_HEADS = 8
#: Scheme ids of version-1 files that are spelled differently now.
RENAMED = {"none": "nope"}


def default_scheme() -> str:
    """No position at all: the first scheme of kind "none" (the registry's NoPE)."""
    return next(s.id for s in registry.all_schemes() if s.kind == "none" and s.swap_label is not None)


def tokenize(sentence: str) -> list[str]:
    """Whitespace tokens."""
    return sentence.split()


def valid_d_model(d_model: int, heads: int) -> int:
    """The d_model nearest to ``d_model`` that every head can split into even-width halves.

    Each head gets ``d_model / heads`` dimensions and RoPE rotates them in pairs, so d_model
    must be a multiple of ``2 · heads`` and lie in [4, 256].  Ties round up.
    """
    step = 2 * heads
    lo = step * -(-D_MODEL_MIN // step)  # smallest multiple of step ≥ 4
    hi = step * (D_MODEL_MAX // step)
    snapped = step * int(d_model / step + 0.5)
    return min(max(snapped, lo), hi)


@dataclass(frozen=True)
class SwapState(PanelState):
    """The sentence, the swap, and the attention set-up."""

    sentence: str = param("dog bites man", label="sentence")
    swap_i: int = param(0, lo=0, hi=MAX_TOKENS - 1, label="swap I")
    swap_j: int = param(2, lo=0, hi=MAX_TOKENS - 1, label="swap J")
    scheme: str = param(default_scheme, choices=registry.swap_ids, label="scheme")
    alpha: float = param(1.0, lo=0.0, hi=3.0, label="PE strength α")
    d_model: int = param(16, lo=D_MODEL_MIN, hi=D_MODEL_MAX, even=True, label="d_model")
    seed: int = param(0, lo=0, hi=2**31 - 1, label="seed")
    heads: int = param(1, lo=1, hi=MAX_HEADS, label="heads")
    causal: bool = param(False, label="causal mask")
    mask_after_softmax: bool = param(False, label="mask after softmax")
    query: int = param(0, lo=0, hi=MAX_TOKENS - 1, label="query token")
    #: Which head the attention maps and bars show (display only: every head is computed).
    head: int = param(0, lo=0, hi=MAX_HEADS - 1, label="head shown")

    def check(self) -> None:
        tokens = tokenize(self.sentence)
        if not tokens:
            raise StateError("sentence must contain at least one word")
        if len(tokens) > MAX_TOKENS:
            raise StateError(f"sentence may hold at most {MAX_TOKENS} tokens, got {len(tokens)}")
        n = len(tokens)
        for name in ("swap_i", "swap_j", "query"):
            value = getattr(self, name)
            if value >= n:
                raise StateError(f"{name} must be below the number of tokens ({n}), got {value}")
        if n > 1 and self.swap_i == self.swap_j:
            raise StateError(f"swap I and J must be two different tokens, got I = J = {self.swap_i}")
        if self.d_model % (2 * self.heads):
            raise StateError(
                f"d_model ({self.d_model}) must be divisible by 2 × heads ({2 * self.heads}) "
                "so each head has an even width"
            )
        if self.head >= self.heads:
            raise StateError(f"head must be below the number of heads ({self.heads}), got {self.head}")

    @property
    def tokens(self) -> list[str]:
        return tokenize(self.sentence)

    @property
    def swapped_tokens(self) -> list[str]:
        """The sentence after swapping tokens I and J."""
        out = self.tokens
        out[self.swap_i], out[self.swap_j] = out[self.swap_j], out[self.swap_i]
        return out

    def clamped(self, **changes) -> SwapState:
        """Apply ``changes`` and pull dependent values back into range instead of failing.

        Token indices are clipped to the sentence (and I ≠ J kept), d_model snaps to the nearest
        multiple of 2 · heads, and the head shown to the heads there are.  A sentence that is
        empty or too long still raises :class:`StateError` (there is nothing sensible to clip to).
        """
        merged = {**dataclasses.asdict(self), **changes}
        n = max(1, min(len(tokenize(str(merged["sentence"]))), MAX_TOKENS))
        for name in ("swap_i", "swap_j", "query"):
            merged[name] = max(0, min(int(merged[name]), n - 1))
        if n > 1 and merged["swap_i"] == merged["swap_j"]:
            merged["swap_j"] = n - 1 if merged["swap_i"] != n - 1 else 0
        heads = max(1, min(int(merged["heads"]), MAX_HEADS))
        merged["heads"] = heads
        merged["d_model"] = valid_d_model(int(merged["d_model"]), heads)
        merged["head"] = max(0, min(int(merged["head"]), heads - 1))
        return SwapState(**merged)


def migrate_v1(data: dict) -> dict:
    """Version 1 called NoPE ``"none"`` here (and ``"nope"`` everywhere else)."""
    out = dict(data)
    if isinstance(out.get("scheme"), str):
        out["scheme"] = RENAMED.get(out["scheme"], out["scheme"])
    return out
