"""A learned absolute position table: a real ``torch.nn.Embedding(max_positions, d)``.

Used by GPT-2 and BERT.  It is seeded (``torch.Generator``) so every run — GUI, CLI,
tests — shows the same numbers.  An untrained table is random (N(0, 1), torch's default
``Embedding`` initialisation); what matters for the lesson is its *shape*: there is no row
for a position ≥ max_positions, so it cannot say anything past the training length.

To rebuild it outside the app: ``torch.manual_seed(seed); torch.nn.Embedding(M, d, dtype=torch.float64)``
gives exactly these weights (the float64 dtype matters: float32 draws are a different stream).  The
table uses a generator of its own so that building it never moves torch's global random state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import EncodingError, as_positions, check_int, check_size


def check_rows(positions: np.ndarray, max_positions: int) -> None:
    """Raise :class:`EncodingError`, naming the limit, if any position has no row."""
    top = int(np.max(positions))
    if top >= max_positions:
        raise EncodingError(
            f"position {top} has no row: the learned table has only {max_positions} rows "
            f"(positions 0 … {max_positions - 1}); it cannot extrapolate"
        )


class LearnedTable:
    """Seeded, reproducible ``torch.nn.Embedding(max_positions, d_model)``."""

    def __init__(self, max_positions: int, d_model: int, seed: int = 0) -> None:
        self.max_positions = check_int("max_positions", max_positions, minimum=1)
        self.d_model = check_int("d_model", d_model, minimum=1)
        self.seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
        check_size(self.max_positions, self.d_model, what="learned table")
        import torch  # lazily: never on the path that opens the window

        gen = torch.Generator().manual_seed(self.seed)
        emb = torch.nn.Embedding(self.max_positions, self.d_model, dtype=torch.float64)
        with torch.no_grad():
            emb.weight.copy_(torch.randn(self.max_positions, self.d_model, generator=gen, dtype=torch.float64))
        emb.requires_grad_(False)
        self.embedding = emb

    def lookup(self, positions) -> np.ndarray:
        """Rows for ``positions`` (int N = 0 … N-1, or an array), shape ``(N, d_model)``.

        Raises :class:`EncodingError` naming the limit for any position ≥ max_positions.
        """
        p = as_positions(positions)
        if np.any(p != np.round(p)):
            raise EncodingError("learned positions must be whole numbers")
        check_rows(p, self.max_positions)
        import torch

        idx = torch.as_tensor(p.astype(np.int64))
        with torch.no_grad():
            return self.embedding(idx).numpy().copy()


def learned_table(max_positions: int, positions, d_model: int, seed: int = 0) -> np.ndarray:
    """Convenience: ``LearnedTable(max_positions, d_model, seed).lookup(positions)``."""
    p = as_positions(positions)
    # Checked before building the table so the error is quick and names the limit.
    check_rows(p, check_int("max_positions", max_positions, minimum=1))
    return LearnedTable(max_positions, d_model, seed).lookup(p)


@dataclass(frozen=True, eq=False)
class RealRows:
    """A real position table (a checkpoint's, the Lab's) at the Schemes panel's head width d.

    ``rows`` (M, d): row p is position p; there is no row for p ≥ M.  ``width`` is the table's own width D;
    :func:`explorer.encodings.table_stats.fit_width` brought it to d (its first d principal directions when
    D > d, zeros past D when D < d).  ``name`` says whose table it is ("GPT-2 (checkpoint)").
    """

    rows: np.ndarray
    name: str
    width: int

    @property
    def positions(self) -> int:
        return int(self.rows.shape[0])

    def lookup(self, positions) -> np.ndarray:
        """Rows for ``positions``; :class:`EncodingError` naming M for a position with no row."""
        p = np.asarray(positions, dtype=np.int64)
        if p.size:
            check_rows(p, self.positions)
        return self.rows[p]

    def width_text(self, d: int) -> str:
        """How the table's D columns became the panel's d ("" when D = d)."""
        if self.width == d:
            return ""
        if self.width > d:
            return f"its {self.width:,} dims on their first {d} principal directions"
        return f"its {self.width:,} dims, zeros up to d = {d}"
