"""Parameters of the Schemes panel: every positional scheme side by side, on shared, linked controls."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .base import PanelState, StateError, param

SCHEME_NAMES = ("sinusoidal", "learned", "rope", "alibi", "nope", "scaled_rope")

#: The panel's views (one tab each); only the visible one is computed.
VIEWS = ("matrices", "distance", "beyond", "alibi", "properties")

#: L_eval may reach this many times L_train (the issue's "up to 16 × L_train").
MAX_EXTENSION = 16


@dataclass(frozen=True)
class SchemesState(PanelState):
    """Shared, linked controls for the side-by-side comparison."""

    show_sinusoidal: bool = param(True, label="sinusoidal")
    show_learned: bool = param(True, label="learned")
    show_rope: bool = param(True, label="RoPE")
    show_alibi: bool = param(True, label="ALiBi")
    show_nope: bool = param(True, label="NoPE")
    show_scaled_rope: bool = param(True, label="scaled RoPE")
    head_dim: int = param(64, lo=2, hi=1024, even=True, label="head dim d")
    base: float = param(10000.0, lo=10.0, hi=1e7, log=True, label="base", marks=(10000.0, 500000.0))
    heads: int = param(8, lo=1, hi=64, label="ALiBi heads")
    alibi_head: int = param(0, lo=0, hi=63, label="ALiBi head shown")
    l_train: int = param(512, lo=2, hi=131072, label="L_train", log=True)
    l_eval: int = param(1024, lo=2, hi=MAX_EXTENSION * 131072, label="L_eval", log=True)
    scaling: str = param("yarn", choices=("linear", "ntk", "yarn", "llama3"), label="scaling")
    factor: float = param(4.0, lo=1.0, hi=64.0, label="factor s")
    content: str = param("same", choices=("same", "average"), label="content removed by")
    seed: int = param(0, lo=0, hi=2**31 - 1, label="seed")
    causal: bool = param(True, label="causal mask")
    view: str = param("matrices", choices=VIEWS, label="view")

    def check(self) -> None:
        if self.l_eval > MAX_EXTENSION * self.l_train:
            raise StateError(
                f"l_eval may be at most {MAX_EXTENSION} × l_train = {MAX_EXTENSION * self.l_train}, "
                f"got {self.l_eval}"
            )
        if self.alibi_head >= self.heads:
            raise StateError(f"alibi_head must be below heads ({self.heads}), got {self.alibi_head}")
        if self.show_scaled_rope and self.scaling == "ntk" and self.head_dim < 4:
            raise StateError("NTK scaling needs head_dim ≥ 4 (its exponent d/(d−2) is infinite for d = 2)")

    @property
    def schemes(self) -> tuple[str, ...]:
        """The schemes shown, in the panel's column order."""
        return tuple(s for s in SCHEME_NAMES if getattr(self, f"show_{s}"))

    def clamped(self, **changes) -> SchemesState:
        """Apply ``changes`` and pull dependent values back into range instead of failing.

        L_eval is kept within 16 × L_train, the shown ALiBi head below the head count, and an odd
        head dim rounds down to even.
        """
        merged = {**dataclasses.asdict(self), **changes}
        d = int(merged["head_dim"])
        merged["head_dim"] = max(2, d - d % 2)
        if merged["scaling"] == "ntk" and merged["head_dim"] < 4:
            merged["head_dim"] = 4
        l_train = int(merged["l_train"])
        merged["l_eval"] = max(2, min(int(merged["l_eval"]), MAX_EXTENSION * l_train))
        merged["alibi_head"] = max(0, min(int(merged["alibi_head"]), int(merged["heads"]) - 1))
        return SchemesState(**merged)
