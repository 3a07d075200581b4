"""Give a control the range it should have, and leave it alone when it has it.

Qt's ``QAbstractSpinBox`` forgets its size hint and asks its parents to lay out again at every
``setRange``/``setMinimum``/``setMaximum``, even one that changes nothing: a panel that shows its state in its
controls at each step of a drag laid its whole sidebar out again each step (a ``LayoutRequest`` a step, 0.2–0.7 ms
of the UI thread; docs/performance.md).
"""

from __future__ import annotations

from typing import Any, Protocol


class Ranged(Protocol):
    """A spin box, a slider, or a control made of them (:class:`~explorer.widgets.sliders.LabeledSlider`)."""

    def minimum(self) -> Any: ...
    def maximum(self) -> Any: ...
    def setRange(self, lo: Any, hi: Any, /) -> None: ...  # noqa: N802 - Qt's name


def set_range(control: Ranged, lo=None, hi=None) -> bool:
    """Give ``control`` the range ``lo`` … ``hi`` unless it has it; True if it changed.  An end given as None is kept,
    as Qt's ``setMinimum``/``setMaximum`` keep it: except that a maximum under the minimum lowers the minimum to it,
    and a minimum over the maximum raises the maximum."""
    if lo is None and hi is None:
        return False
    lo = min(control.minimum(), hi) if lo is None else lo
    hi = max(control.maximum(), lo) if hi is None else hi
    if (control.minimum(), control.maximum()) == (lo, hi):
        return False
    control.setRange(lo, hi)
    return True
