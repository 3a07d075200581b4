"""Parameters of the Waves panel (sinusoidal encoding)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .base import PanelState, StateError, param

#: What the play button animates.
PLAY_TARGETS = ("position", "offset")


@dataclass(frozen=True)
class WavesState(PanelState):
    """Everything the Waves panel shows is a function of these values."""

    n_positions: int = param(256, lo=1, hi=131072, label="Positions N", log=True,
                             marks=(512, 2048, 8192, 131072))
    d_model: int = param(128, lo=2, hi=4096, even=True, label="d_model", log=True, marks=(128, 512, 4096))
    base: float = param(10000.0, lo=10.0, hi=1e7, log=True, label="base", marks=(10000.0, 500000.0))
    variant: str = param("paper", choices=("paper", "halves", "t2t"), label="variant")
    position: int = param(10, lo=0, hi=131071, label="position p")
    offset: int = param(8, lo=-131071, hi=131071, label="offset k")
    pairs: tuple = param((0, 1, 4, 16), lo=0, hi=2047, maxlen=16, label="pairs")
    pair: int = param(0, lo=0, hi=2047, label="rotation pair i")
    l_train: int = param(128, lo=1, hi=131072, label="L_train", log=True)
    token_scale: float = param(1.0, lo=0.0, hi=100.0, label="token scale α")
    p1: int = param(3, lo=0, hi=131071, label="p1")
    p2: int = param(40, lo=0, hi=131071, label="p2")
    token_seed: int = param(0, lo=0, hi=2**31 - 1, label="token seed")
    overlay: bool = param(True, label="overlay PE(p+k)")
    play_target: str = param("position", choices=PLAY_TARGETS, label="play animates")
    play_speed: float = param(8.0, lo=0.1, hi=10000.0, log=True, label="play speed (steps/s)")

    def check(self) -> None:
        half = self.d_model // 2
        for name in ("position", "p1", "p2"):
            if getattr(self, name) >= self.n_positions:
                raise StateError(f"{name} must be below N = {self.n_positions}, got {getattr(self, name)}")
        if any(i >= half for i in self.pairs) or self.pair >= half:
            raise StateError(f"pair indices must be below d_model/2 = {half}")
        if not self.pairs:
            raise StateError("pairs must name at least one pair")

    def clamped(self, **changes) -> WavesState:
        """Apply ``changes`` and pull dependent values (p, k, pairs) back into range instead of failing."""
        merged = {**dataclasses.asdict(self), **changes}
        n, half = int(merged["n_positions"]), int(merged["d_model"]) // 2
        for name in ("position", "p1", "p2"):
            merged[name] = max(0, min(int(merged[name]), n - 1))
        merged["offset"] = max(-(n - 1), min(int(merged["offset"]), n - 1))
        pairs = tuple(sorted(dict.fromkeys(max(0, min(int(i), half - 1)) for i in merged["pairs"])))
        merged["pairs"] = pairs[:16] or (0,)
        merged["pair"] = max(0, min(int(merged["pair"]), half - 1))
        return WavesState(**merged)
