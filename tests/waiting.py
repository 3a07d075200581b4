"""Waiting in tests for a count that stops growing (a paused job's reports), however loaded the machine."""

from __future__ import annotations

from collections.abc import Callable

import pytest


def settled_count(qtbot, count: Callable[[], int], what: str, quiet_ms: int = 300, tries: int = 20) -> int:
    """``count()`` once it has not grown for ``quiet_ms`` (the report under way may come late on a loaded machine);
    the test fails if it still grows after ``tries`` such spells."""
    n = count()
    for _ in range(tries):
        qtbot.wait(quiet_ms)
        if count() == n:
            return n
        n = count()
    pytest.fail(f"{what} kept coming for {tries * quiet_ms / 1000:g} s after the pause")
