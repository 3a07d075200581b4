"""The Lab's 2-D task: fill in a grid of symbols, row by row, where each cell is set by the cell above and the one to
its left (numpy only, no torch and no Qt).

A grid of side s holds symbols 0 … V−1; its first row and first column are random, and every other cell is

    g[r, c] = (g[r − 1, c] + g[r, c − 1]) mod V.

The model reads the grid in raster order (cell (x = c, y = r) is token r·s + c, as a ViT numbers its patches) and
predicts every next cell; it is scored on the cells the rule sets (r ≥ 1 and c ≥ 1), by accuracy per cell.

Why this task
-------------
* **The cell above is s places back in the flattened sequence, and s changes.**  A 1-D scheme numbers the cells
  0 … s² − 1, so "the cell above" is a distance that depends on the grid's width; training mixes sides 3 … L, and
  a wider grid at test time puts it at a distance never seen.  A 2-D scheme gives each cell its (x, y), so the
  cell above is (Δx, Δy) = (0, −1) at every size.
* **Neither neighbour alone helps.**  With the other neighbour unknown and uniform, (a + b) mod V is uniform: a
  model that finds only the left neighbour (one step back, easy in 1-D) is at chance, 1/V.
* The rule is the same at every cell, so a model that learned "above plus left" works on any grid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..encodings.errors import EncodingError, check_int

#: The smallest grid trained on (a 3 × 3 grid has 4 cells the rule sets).
MIN_SIDE = 3
#: The largest grid side the Lab trains or tests (1 024 cells: the attention of one grid is 1 024²).
MAX_SIDE = 32


@dataclass(frozen=True)
class GridTask:
    """The above-plus-left grid over ``vocab`` symbols."""

    vocab: int = 8
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("vocab", self.vocab, minimum=2, maximum=256)
        check_int("seed", self.seed, minimum=0, maximum=2**63 - 1)

    def sample(self, batch: int, side: int, rng: np.random.Generator) -> np.ndarray:
        """``batch`` grids of side ``side`` in raster order, shape (batch, side²), int64."""
        b = check_int("batch", batch, minimum=1)
        s = check_int("grid side", side, minimum=2, maximum=MAX_SIDE)
        g = np.empty((b, s, s), dtype=np.int64)
        g[:, 0, :] = rng.integers(0, self.vocab, size=(b, s))
        g[:, 1:, 0] = rng.integers(0, self.vocab, size=(b, s - 1))
        for r in range(1, s):
            for c in range(1, s):
                g[:, r, c] = (g[:, r - 1, c] + g[:, r, c - 1]) % self.vocab
        return g.reshape(b, s * s)

    @staticmethod
    def scored(side: int) -> np.ndarray:
        """Which of the model's side² − 1 outputs are scored: output t predicts cell t + 1, scored when that cell
        has a row and a column before it.  Shape (side² − 1,), bool."""
        s = check_int("grid side", side, minimum=2, maximum=MAX_SIDE)
        cell = np.arange(1, s * s)
        return (cell // s >= 1) & (cell % s >= 1)

    @staticmethod
    def rows(side: int) -> np.ndarray:
        """The row y of the cell each output predicts, shape (side² − 1,)."""
        return np.arange(1, side * side) // side

    def check(self, x: np.ndarray, side: int) -> np.ndarray:
        """True where a grid's cell follows the rule (r, c ≥ 1), shape (batch, side − 1, side − 1)."""
        g = np.asarray(x).reshape(-1, side, side)
        return g[:, 1:, 1:] == (g[:, :-1, 1:] + g[:, 1:, :-1]) % self.vocab


def check_side(name: str, side: int) -> int:
    """A grid side the Lab can train or test: :data:`MIN_SIDE` … :data:`MAX_SIDE`."""
    if not isinstance(side, (int, np.integer)) or isinstance(side, bool) or not MIN_SIDE <= side <= MAX_SIDE:
        raise EncodingError(f"{name} must be a grid side from {MIN_SIDE} to {MAX_SIDE}; got {side!r}")
    return int(side)
