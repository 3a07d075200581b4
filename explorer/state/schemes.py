"""Parameters of the Schemes panel."""

from __future__ import annotations

from dataclasses import dataclass

from .base import PanelState, StateError, param

SCHEME_NAMES = ("sinusoidal", "learned", "rope", "alibi", "nope", "scaled_rope")


@dataclass(frozen=True)
class SchemesState(PanelState):
    """Shared, linked controls for the side-by-side comparison."""

    show_sinusoidal: bool = param(True, label="sinusoidal")
    show_learned: bool = param(True, label="learned")
    show_rope: bool = param(True, label="RoPE")
    show_alibi: bool = param(True, label="ALiBi")
    show_nope: bool = param(True, label="NoPE")
    show_scaled_rope: bool = param(True, label="scaled RoPE")
    head_dim: int = param(64, lo=2, hi=1024, even=True, label="head dim")
    base: float = param(10000.0, lo=10.0, hi=1e7, log=True, label="base")
    heads: int = param(8, lo=1, hi=64, label="ALiBi heads")
    alibi_head: int = param(0, lo=0, hi=63, label="ALiBi head shown")
    l_train: int = param(512, lo=2, hi=131072, label="L_train", log=True)
    l_eval: int = param(1024, lo=2, hi=16 * 131072, label="L_eval", log=True)
    scaling: str = param("yarn", choices=("linear", "ntk", "yarn", "llama3"), label="scaling")
    factor: float = param(4.0, lo=1.0, hi=64.0, label="factor s")
    content: str = param("same", choices=("same", "average"), label="content removed by")
    seed: int = param(0, lo=0, hi=2**31 - 1, label="seed")

    def check(self) -> None:
        if self.l_eval > 16 * self.l_train:
            raise StateError(f"l_eval may be at most 16 × l_train = {16 * self.l_train}, got {self.l_eval}")
        if self.alibi_head >= self.heads:
            raise StateError(f"alibi_head must be below heads ({self.heads}), got {self.alibi_head}")

    @property
    def schemes(self) -> tuple[str, ...]:
        return tuple(s for s in SCHEME_NAMES if getattr(self, f"show_{s}"))
