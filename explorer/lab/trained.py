"""The trained weights of this session's finished Lab runs, for schemes the Schemes panel draws from them.

A scheme with ``uses_lab_weights`` (FIRE) hands its trained numbers to the run's result
(:meth:`~explorer.schemes.Scheme.lab_weights`, kept in :attr:`~explorer.lab.results.SchemeResult.weights`);
the Lab panel :func:`remember`\\ s each finished run here, and the Schemes panel puts :func:`latest` into its
requests (their ``trained`` field).  Session-only: nothing is written to disk, a new app starts seeded.
"""

from __future__ import annotations

import threading
import weakref

_lock = threading.Lock()
_latest: dict[str, tuple] = {}
_generation = 0
_listeners: list[weakref.WeakMethod] = []


def subscribe(method) -> None:
    """Call the bound ``method()`` after :func:`remember` keeps new weights (held weakly: a closed panel drops
    out by itself).  Called on the thread that calls :func:`remember` (the Lab panel's: the UI thread)."""
    with _lock:
        _listeners.append(weakref.WeakMethod(method))


def remember(result) -> None:
    """Keep the weights of every scheme of ``result`` (a LabResult) that finished training and has some."""
    global _generation
    with _lock:
        before = _generation
        for s in result.schemes:
            if s.status == "done" and s.weights:
                _latest[s.scheme] = s.weights
                _generation += 1
        _listeners[:] = [w for w in _listeners if w() is not None]
        listeners = [w() for w in _listeners] if _generation != before else []
    for method in listeners:
        if method is not None:
            method()


def latest() -> dict[str, tuple]:
    """scheme id → the weights of its latest finished run in this session."""
    with _lock:
        return dict(_latest)


def generation() -> int:
    """A number that changes whenever :func:`remember` keeps new weights."""
    return _generation


def forget() -> None:
    """Drop every kept weight (tests; a new session)."""
    global _generation
    with _lock:
        _latest.clear()
        _generation += 1
