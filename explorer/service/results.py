"""What comes back from a job: a :class:`Result` or a :class:`Failure`, for whom (``origin``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject


@dataclass(frozen=True)
class Result:
    """A finished job: what was asked, what came back, how long it took, and for whom (``origin``)."""

    key: str
    generation: int
    request: Any
    value: Any
    elapsed_ms: float
    origin: Any = None


@dataclass(frozen=True)
class Failure:
    """A job that raised: the message is meant for a banner or the status bar."""

    key: str
    generation: int
    request: Any
    message: str
    details: str
    origin: Any = None


def alive(callback: Callable) -> bool:
    """False for a bound method of a Qt object whose C++ side was deleted (a closed panel)."""
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, QObject):
        from shiboken6 import Shiboken

        return Shiboken.isValid(owner)
    return True
