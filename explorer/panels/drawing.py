"""How a panel hands its results to its frame scheduler (:mod:`explorer.widgets.frames`): whole or in parts, the
updates that follow a result a turn later, the plot each key repaints, and what to draw again when a view's
way of drawing changes.  Pure bookkeeping over the scheduler's keys; the panel draws."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TypeGuard

from ..service import Handle, Result
from ..widgets.frames import FrameScheduler


def part_of(key: Hashable, result_key: str) -> TypeGuard[tuple[str, Hashable]]:
    """Whether the frame scheduler's ``key`` is a part of a result of ``result_key`` (see Panel.draw_parts)."""
    return isinstance(key, tuple) and len(key) == 2 and key[0] == result_key


@dataclass(frozen=True)
class Later:
    """The frame scheduler's key of an update run in a turn of its own (see Panel.later)."""

    name: Hashable


def post_result(frames: FrameScheduler, result: Result, parts: tuple) -> None:
    """Hand ``result`` to ``frames``: whole (``parts`` empty) or one key per part, each drawn in a turn of its own;
    an older result of its key still waiting, whole or in parts, is forgotten."""
    key = result.key
    if not parts:
        frames.drop(functools.partial(part_of, result_key=key))
        frames.post(key, result)
        return
    frames.drop(lambda k: k == key)
    for part in parts:
        frames.post((key, part), result)


def plot_of(key: Hashable, result: object, paints: Callable[[object], Hashable | None]) -> Hashable | None:
    """The plot drawing the scheduler's ``key`` repaints: a part's own, ``paints(response)`` for a whole
    result, none for anything else (a :class:`Later` key's item is its update, not a result)."""
    if not isinstance(result, Result):
        return None
    return key[1] if part_of(key, result.key) else paints(result.value)


def to_redraw(drawn: dict[str, Result], handles: dict[str, Handle], frames: FrameScheduler) -> list[Result]:
    """The newest drawn results to draw again, but those whose key has a newer result on its way: asked for and
    not yet delivered, or delivered and waiting in ``frames`` (drawing the old one then would replace it)."""
    out = []
    for key, result in drawn.items():
        h = handles.get(key)
        if h is not None and h.in_flight:
            continue
        if frames.holds(functools.partial(_of_key, result_key=key)):
            continue
        out.append(result)
    return out


def _of_key(key: Hashable, result_key: str) -> bool:
    """Whether the scheduler's ``key`` draws a result of ``result_key``, whole or a part of it."""
    return key == result_key or part_of(key, result_key)
