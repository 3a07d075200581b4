"""A colour scale held while a slider is: kept while the data's largest value stays within it and above
1/HOLD_SLACK of it, else GROW times that value.  A new scale re-colours every image that shares it and lays its
colour bar's axis out again; at every drag step that is most of a frame (Token swap's output maps; Schemes' seven
score matrices when the scaled column sets the scale).  Letting go shows the exact scale again.  No Qt."""

from __future__ import annotations

HOLD_SLACK = 1.5
GROW = 1.1


def held_scale(shown: float, needed: float) -> float:
    """The scale to show while a slider is held: ``shown`` while ``needed`` ≤ ``shown`` ≤ HOLD_SLACK × ``needed``,
    else GROW × ``needed`` (``needed`` > 0: the exact scale, the data's largest |value|)."""
    return shown if needed <= shown <= HOLD_SLACK * needed else needed * GROW
