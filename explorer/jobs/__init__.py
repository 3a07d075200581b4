"""Jobs: pure functions from a small frozen request to a response (numpy arrays), no Qt.

The compute service runs them on its worker thread; the CLI, the benchmark and the tests
call :func:`run` synchronously.  Each request class is registered with :func:`job`; a
request carries ``key`` (one per plot or panel: a newer request for the same key
supersedes an older one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_REGISTRY: dict[type, Callable[[Any], Any]] = {}


def job(request_type: type):
    """Decorator: register ``fn`` as the job that answers ``request_type``."""

    def register(fn):
        _REGISTRY[request_type] = fn
        return fn

    return register


def run(request) -> Any:
    """Run the job for ``request`` synchronously and return its response."""
    _load_all()
    try:
        fn = _REGISTRY[type(request)]
    except KeyError:
        raise TypeError(f"no job registered for {type(request).__name__}") from None
    return fn(request)


def _load_all() -> None:
    # Importing the modules registers their jobs; cheap after the first call.
    from . import (  # noqa: F401
        grid,
        misc,  # noqa: F401
        schemes,
        swap,
        table,
        waves,
        why,
    )
