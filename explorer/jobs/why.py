"""Why sinusoids? The Waves panel's scorecard tab, every cell computed by ``candidates.scorecard``.

The request names the sizes (model width d, the sequence lengths N, the offset k, the positions the linear map is
fitted on); the response holds the scorecard itself, the text and verdict of each cell of the table, and the growth
curves of the bounded property (largest ‖PE(p)‖ over a token's norm, and largest |value|, against N).  Nothing here
is written by hand: change a definition in ``candidates`` and the table follows.

The full table (N up to 131 072) takes a few seconds, so results are kept for the life of the compute process: the
tab's request does not follow the sliders (the candidates are compared at one fixed size, the paper's base).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..encodings.candidates import CANDIDATES, PROPERTIES, PROPERTY_TITLES, TITLES, Scorecard, ScoreRow, scorecard
from . import job

#: The sequence lengths of the growth plot: 16, 32, … 131 072.
GROWTH_N = tuple(2**k for k in range(4, 18))


@dataclass(frozen=True)
class ScorecardRequest:
    """The candidates (raw p, p/N, binary digits, sinusoids) scored at width ``d`` over ``n_values``."""

    d: int = 64
    n_values: tuple = GROWTH_N
    offset: int = 8
    base: float = 10000.0
    n_fit: int = 1024
    key: str = "waves.why"


@dataclass(frozen=True)
class ScorecardResponse:
    """``cells[kind][prop] = (passed, number, detail)``; ``growth[kind] = (N, ratio, largest |value|)``, float64."""

    request: ScorecardRequest
    card: Scorecard
    cells: dict
    growth: dict
    candidates: tuple = CANDIDATES
    properties: tuple = PROPERTIES
    titles: tuple = tuple(TITLES[k] for k in CANDIDATES)
    property_titles: tuple = tuple(PROPERTY_TITLES[p] for p in PROPERTIES)


def short(x: float) -> str:
    """A number in at most 7 characters: 0.937 / 1 / 7.5e-14 / 6.7e-3 / 1.3e5 / 0."""
    if x == 0:
        return "0"
    if not np.isfinite(x):
        return "∞" if x > 0 else str(x)
    a = abs(x)
    if a >= 1e4 or a < 0.01:
        mant, exp = f"{x:.1e}".split("e")
        return f"{mant}e{int(exp)}"
    return f"{x:.3g}"


def cell_texts(row: ScoreRow) -> dict:
    """Property -> (passed, number, detail) for one candidate: the measured number behind each verdict, short (for
    the table cell) and in words (for its tooltip and the CLI)."""
    ok = row.passes()
    big = max(row.bounded_max)
    return {
        "bounded": (ok["bounded"], short(row.bounded_max[big]),
                    f"largest |value| {short(row.bounded_max[big])} at N = {big:,}; largest ‖PE(p)‖ / √d "
                    f"{short(row.bounded_ratio[big])}"),
        "consistent": (ok["consistent"], short(row.consistent),
                       f"PE(p) moves by up to {short(row.consistent)} when N changes"),
        "unique": (ok["unique"], f"{row.unique}", f"{row.unique:,} distinct rows of {row.n_rows:,}"),
        "smooth": (ok["smooth"], f"×{row.smooth:.3g}",
                   f"longest step ‖PE(p+1) − PE(p)‖ is {row.smooth:.3g} × the shortest"),
        "linear": (ok["linear"], short(row.linear_residual),
                   f"relative least-squares residual of one M_k: {short(row.linear_residual)}"),
    }


@lru_cache(maxsize=8)
def _card(d: int, n_values: tuple, offset: int, base: float, n_fit: int) -> Scorecard:
    return scorecard(d=d, n_values=n_values, offset=offset, base=base, n_fit=n_fit)


@job(ScorecardRequest)
def compute_scorecard(req: ScorecardRequest) -> ScorecardResponse:
    card = _card(req.d, tuple(req.n_values), req.offset, req.base, req.n_fit)
    cells, growth = {}, {}
    for row in card.rows:
        cells[row.kind] = cell_texts(row)
        ns = np.array(sorted(row.bounded_ratio), dtype=np.float64)
        growth[row.kind] = (ns, np.array([row.bounded_ratio[int(n)] for n in ns]),
                            np.array([row.bounded_max[int(n)] for n in ns]))
    return ScorecardResponse(req, card, cells, growth)
