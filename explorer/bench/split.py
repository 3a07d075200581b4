"""Where each frame's milliseconds go on the UI thread during a drag: draw, each plot's repaint, axes, the rest.

The bench drives the UI thread itself (``processEvents`` and the slider's ``setValue`` in its own loop), so the
thread's busy time is exactly the time spent inside those calls, less the time the event dispatcher waited in them
for events (:data:`IDLE`, in no frame: see :meth:`FrameLedger.pump`); :class:`FrameLedger` records them as ``other``
and ``input``, and — installed as the :mod:`explorer.widgets.frame_probe` probe — the parts the app marks inside
them: ``draw`` (a frame scheduler's pass: results applied to the plots' items), ``plot`` (one plot's scene
repaint, its viewport's paint event) and ``axes`` (an axis' tick lines and labels, inside a plot's repaint).
In the bench's own application (:class:`explorer.bench.timed_app.TimedApplication`) every event Qt delivers is
recorded too: an event to a plot's scene is that plot's ``scene`` work (Qt's queued processing of its dirty
items, its index and its ``changed`` signal), any other event outside the marked parts is ``other``, named by
its type and receiver (``UpdateRequest → MainWindow``: the window's repaint but for the plots'), and what is
left of ``other`` is the event loop's own time and the bench's (its polling and its heartbeat timer's ticks are
``Timer → QTimer`` events).  Events sent inside a marked part (``draw``, ``input``, a repaint) stay in it.

:func:`split_frames` sweeps the record once: every instant of busy time goes to the innermost part open then, in
the frame it falls in, so a frame's parts add up to its busy time by construction (a plot's repaint is its time
less its axes').  A frame begins at a draw pass that follows a repaint or another draw pass (not one that goes on
with a frame the scheduler draws a key per turn of the event loop: its key is :data:`MORE`; a draw that changes
no plot, the same data again, is a frame without a repaint), or at a repaint more than :data:`FRAME_GAP_S` after
the last one (one backing-store sync repaints every dirty plot back to back); the record ends with the last
repaint or draw pass.  Not separated: titles, axis labels and text items are Qt's
``QGraphicsTextItem`` children, painted by Qt (C++) inside their plot's repaint.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict

import numpy as np

#: Repaints closer together than this belong to one frame.
FRAME_GAP_S = 0.004
#: Where a plot's name is not known (a plot elsewhere in the window).
OUTSIDE = "outside the panel"
#: What is left of ``other`` once its events are named: the event loop's own time and the bench's.
LOOP = "(event loop and the bench)"
#: The events of ``other`` listed by name; the rest are summed as one.
TOP_EVENTS = 8
#: What the split cannot take apart, said next to it.
NOT_SEPARATED = ("titles, axis labels and text items (Qt's QGraphicsTextItem, painted in C++) are inside each "
                 "plot's repaint")
#: The time the event loop waited for events, inside a poll: not busy, left out of every frame.
IDLE = "idle"
#: The parts of a frame besides the plots' and scenes', in the order they are listed.
PARTS = ("draw", "axes", "input", "other")

_ENTER, _LEAVE = 1, -1
_MARKED = ("draw", "plot", "axes", "input")  # parts that keep what is sent inside them
#: The key of a draw that goes on with a frame begun in an earlier turn of the event loop (not a new frame).
MORE = "more"


class FrameLedger:
    """Records the UI thread's busy spans and the parts of frames inside them (a :class:`frame_probe.Probe`).

    Parameters
    ----------
    names : dict
        ``id(plot) -> name`` for the plots to tell apart; repaints of any other plot are :data:`OUTSIDE`.
    scenes : dict
        ``id(scene) -> name``: the same plots' scenes (events to any other object are named by type).
    """

    def __init__(self, names: dict[int, str] | None = None, scenes: dict[int, str] | None = None) -> None:
        self.names = dict(names or {})
        self.scenes = dict(scenes or {})
        self.events: list[tuple[float, int, str, str]] = []
        #: The UI thread (where the ledger is made): events delivered on any other are not its to record.
        self.thread = threading.get_ident()
        self.polls = 0
        #: Repaints of the named plots.
        self.paints = 0
        self._idle = False  # the event dispatcher waits for events (see blocking)
        #: The drag's polls wait for events and leave the wait out of the frames (set by the bench where every
        #: delivered event is recorded, which is what ends a wait; see pump).
        self.waits = False

    def enter(self, part: str, source: object) -> None:
        self._wake()
        key = ""
        if part == "draw" and not getattr(source, "frame_begins", True):
            key = MORE  # the rest of a frame the scheduler draws a key per turn of the event loop
        if part == "plot":
            key = self.names.get(id(source), OUTSIDE)
            self.paints += key != OUTSIDE
        self.events.append((time.perf_counter(), _ENTER, part, key))

    def enter_event(self, receiver: object, event) -> None:
        """An event delivered to ``receiver``: a plot's scene work, or an event named by type and receiver."""
        self._wake()
        scene = self.scenes.get(id(receiver))
        if scene is not None:
            self.events.append((time.perf_counter(), _ENTER, "scene", scene))
        else:
            self.events.append((time.perf_counter(), _ENTER, "event", f"{_type_name(event)} → "
                                f"{type(receiver).__name__}"))

    def leave(self) -> None:
        self._wake()  # (a wait still open is the innermost part: it ends first)
        self.events.append((time.perf_counter(), _LEAVE, "", ""))

    def pump(self, app, wait: bool = False) -> None:
        """``app.processEvents()``, its time recorded as busy (``other`` but for the parts marked inside it).

        ``wait``: as the app's own event loop runs, block until events come (``WaitForMoreEvents``; the bench's
        1 ms heartbeat wakes it at the latest) and handle them the moment they are posted; the time blocked is
        idle, not busy (from the dispatcher's ``aboutToBlock`` to the first event it delivers, see
        :meth:`blocking`)."""
        from PySide6.QtCore import QEventLoop

        self.polls += 1
        self.enter("other", None)
        try:
            if wait:
                app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
            else:
                app.processEvents()
        finally:
            self.leave()  # (and the wait it ends with, if one is open)

    def blocking(self) -> None:
        """The event dispatcher is about to wait for events (its ``aboutToBlock``): idle until the next event is
        delivered or the poll returns.  Qt's glib dispatcher says so before it looks for events, and says ``awake``
        only after it delivered them, so the end of the wait is the first delivery, not ``awake``."""
        if not self._idle and threading.get_ident() == self.thread:
            self._idle = True
            self.events.append((time.perf_counter(), _ENTER, IDLE, ""))

    def _wake(self) -> None:
        if self._idle:
            self._idle = False
            self.events.append((time.perf_counter(), _LEAVE, "", ""))

    def run_input(self, call, *args) -> None:
        """``call(*args)`` — the slider's change through the panel's state to its requests — recorded as ``input``."""
        self.enter("input", None)
        try:
            call(*args)
        finally:
            self.leave()

    def frames(self) -> list[dict[str, float]]:
        return split_frames(self.events)


def _type_name(event) -> str:
    try:
        return str(event.type().name)
    except (AttributeError, ValueError):
        return f"event {int(event.type())}"


def split_frames(events, gap_s: float = FRAME_GAP_S) -> list[dict[str, float]]:
    """Per frame, seconds of busy time per part: ``input``, ``other``, ``draw``, ``axes``, ``plot:<name>``,
    ``scene:<name>`` and ``event:<type → receiver>``.

    ``events`` are ``(time, +1 enter / -1 leave, part, name)`` in time order, properly nested; what comes
    after the last plot repaint or draw pass is left out (the drag's last step is on screen)."""
    events = list(events)
    last = _last_leave(events)
    if last is None:
        return []
    frames: list[dict[str, float]] = [defaultdict(float)]
    stack: list[str] = []
    painted, drew, in_plot, paint_end = False, False, 0, float("-inf")
    t_last = events[0][0]
    for t, kind, part, key in events[:last + 1]:
        if stack:
            frames[-1][stack[-1]] += t - t_last
        t_last = t
        if kind == _LEAVE:
            if stack.pop().startswith("plot:"):
                in_plot -= 1
                paint_end = t
            continue
        begins = part == "draw" and key != MORE
        if (begins and (painted or drew)) or (painted and part == "plot" and not in_plot and t - paint_end > gap_s):
            frames.append(defaultdict(float))
            painted = drew = False
        if part == "plot":
            painted, in_plot = True, in_plot + 1
        drew = drew or begins  # a draw that changes no plot (the same data again): the next draw is a new frame
        stack.append(_bucket(part, key, stack[-1] if stack else "other"))
    return [{k: v for k, v in f.items() if k != IDLE} for f in frames]


def _bucket(part: str, key: str, outer: str) -> str:
    """Where the time of ``part`` goes: an event inside a marked part stays in that part."""
    if part in ("event", "scene") and outer.split(":", 1)[0] in _MARKED:
        return outer
    if part == IDLE:
        return IDLE
    return f"{part}:{key}" if part in ("plot", "scene", "event") else part


def _last_leave(events) -> int | None:
    """The index of the event that ends the last plot repaint or draw pass (None: neither happened)."""
    stack: list[str] = []
    last = None
    for i, (_t, kind, part, _key) in enumerate(events):
        if kind == _ENTER:
            stack.append(part)
        elif stack.pop() in ("plot", "draw"):
            last = i
    return last


def _stats(values) -> dict:
    a = np.asarray(values, dtype=np.float64) * 1e3
    return {"mean": float(a.mean()), "p95": float(np.percentile(a, 95))} if a.size else {"mean": 0.0, "p95": 0.0}


def _named(frames: list[dict[str, float]], prefix: str) -> list[str]:
    return sorted({k[len(prefix):] for f in frames for k in f if k.startswith(prefix) and f[k] > 0})


def summarise(frames: list[dict[str, float]], plot_order=()) -> dict:
    """Mean and p95 per frame (ms) of the total and of each part: ``draw``, ``plots`` (each plot's repaint, by
    name), ``scenes`` (each plot's scene work), ``axes``, ``input`` and ``other``; ``other_by_event`` splits
    ``other`` by event (when the events were recorded).  The means add up to the total's mean, and
    ``other_by_event``'s to ``other``'s (the p95s need not: their frames differ)."""
    def col(key: str) -> list[float]:
        return [f.get(key, 0.0) for f in frames]

    def ordered(names: list[str]) -> list[str]:
        return [n for n in dict.fromkeys([*plot_order, *names]) if n in names]

    others = {n: col(f"event:{n}") for n in _named(frames, "event:")}
    ranked = sorted(others, key=lambda n: -sum(others[n]))
    by_event = {n: _stats(others[n]) for n in ranked[:TOP_EVENTS]}
    if len(ranked) > TOP_EVENTS:
        rest = [sum(v) for v in zip(*(others[n] for n in ranked[TOP_EVENTS:]), strict=True)]
        by_event[f"{len(ranked) - TOP_EVENTS} other kinds of event"] = _stats(rest)
    if by_event:
        by_event[LOOP] = _stats(col("other"))
    other = [sum(v) for v in zip(col("other"), *others.values(), strict=True)]
    return {
        "frames": len(frames),
        "total_ms": _stats([sum(f.values()) for f in frames]),
        "parts": {
            "draw": _stats(col("draw")),
            "plots": {n: _stats(col(f"plot:{n}")) for n in ordered(_named(frames, "plot:"))},
            "scenes": {n: _stats(col(f"scene:{n}")) for n in ordered(_named(frames, "scene:"))},
            "axes": _stats(col("axes")),
            "input": _stats(col("input")),
            "other": _stats(other),
        },
        "other_by_event": by_event,
        "busy_ms": float(sum(sum(f.values()) for f in frames) * 1e3),
        "not_separated": NOT_SEPARATED,
    }


def part_means(split: dict) -> dict[str, float]:
    """Every part's mean (ms per frame) by a flat name (``plot:<name>``, ``scene:<name>``): they add up to the
    total's."""
    parts = split["parts"]
    out = {k: parts[k]["mean"] for k in PARTS}
    out.update({f"plot:{n}": v["mean"] for n, v in parts["plots"].items()})
    out.update({f"scene:{n}": v["mean"] for n, v in parts["scenes"].items()})
    return out


def format_split(split: dict) -> str:
    """Two lines: the total and each part, then what ``other`` is made of; mean / p95 ms per frame."""
    parts = split["parts"]

    def mp(s: dict) -> str:
        return f"{s['mean']:.1f}/{s['p95']:.1f}"

    def named(d: dict) -> str:
        return ", ".join(f"{n} {mp(s)}" for n, s in d.items()) or "—"

    line = (f"{mp(split['total_ms'])} ms per frame over {split['frames']} frames: draw {mp(parts['draw'])}; "
            f"repaint {named(parts['plots'])}; scene {named(parts['scenes'])}; axes {mp(parts['axes'])}; "
            f"input {mp(parts['input'])}; other {mp(parts['other'])}")
    if split.get("other_by_event"):
        line += "\n    other: " + named(split["other_by_event"])
    return line
