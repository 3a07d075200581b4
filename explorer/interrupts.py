"""Ctrl+C at a moment of our choosing (no Qt).

Python runs a signal handler between any two bytecodes of the main thread — also inside a Qt
callback (a paint, an ``itemChange``) that C++ is in the middle of.  A ``KeyboardInterrupt`` raised
there is swallowed by the binding or corrupts its state (``bench`` segfaulted 3 times in 6 when
interrupted, issue 16).  Inside :func:`deferred_sigint`, SIGINT only notes the request; the loops
that drive Qt call :func:`check` where raising is safe, and their ``finally`` blocks stop the
workers before the interpreter shuts down.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_requested = threading.Event()


def _note(_signum, _frame) -> None:
    _requested.set()


@contextmanager
def deferred_sigint() -> Iterator[None]:
    """Within the block, Ctrl+C sets a flag that :func:`check` turns into ``KeyboardInterrupt``.

    Outside the main thread (where handlers cannot be installed) the block runs unchanged.  Nested
    inside another such block it changes nothing either: a Ctrl+C noted by the outer block (say, while
    the inner one's module was imported) stays noted until :func:`check` raises it.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is _note:
        yield
        return
    _requested.clear()
    previous = signal.signal(signal.SIGINT, _note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _requested.clear()


def requested() -> bool:
    """Ctrl+C was pressed inside :func:`deferred_sigint` and not yet raised."""
    return _requested.is_set()


def check() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl+C was pressed since the block began (once)."""
    if _requested.is_set():
        _requested.clear()
        raise KeyboardInterrupt


def exit_at_once(signum: int, _frame=None) -> None:
    """A signal handler for moments with nothing to save or join (imports, parsing, start-up):
    leave now, with the shell's status for the signal (130 for Ctrl+C) and no traceback."""
    if signum == signal.SIGINT:
        os.write(2, b"interrupted\n")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(128 + signum)
