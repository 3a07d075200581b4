"""Where a frame's time goes: timing hooks for the bench, off unless the bench installs a probe.

Three places of the app's own code mark the parts of a frame on the UI thread through :func:`timed`: the
frame scheduler's draw pass (results applied to the plots' items, :mod:`explorer.widgets.frames`), each
:class:`~explorer.widgets.plots.Plot`'s repaint of its scene (its viewport's paint event) and each
:class:`~explorer.widgets.axis.Axis`'s paint (tick lines and tick labels).  With no probe installed — the
app — :func:`timed` reads one module global and calls through; ``pe-explorer bench`` installs a recorder
(:class:`explorer.bench.split.FrameLedger`) for the time of a drag.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Probe(Protocol):
    """What :func:`timed` tells: a part of a frame begins (``source`` is the object doing it) and ends."""

    def enter(self, part: str, source: object) -> None: ...

    def leave(self) -> None: ...


#: The installed probe; None (the app): off.
_active: Probe | None = None


def install(probe: Probe | None) -> Probe | None:
    """Make ``probe`` the one :func:`timed` tells (None: switch off); returns the probe it replaces."""
    global _active
    old, _active = _active, probe
    return old


def active() -> Probe | None:
    """The installed probe (None: off)."""
    return _active


def timed(part: str, source: object, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)``, told to the installed probe as ``part`` done by ``source`` (nothing more when off)."""
    probe = _active
    if probe is None:
        return call(*args)
    probe.enter(part, source)
    try:
        return call(*args)
    finally:
        probe.leave()
