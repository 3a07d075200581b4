"""The GUI monkey's vocabulary and its checks: what it types, how it waits for the window to settle,
and how it proves that every plot shows the result of the current parameters (see :mod:`explorer.qa.monkey`)."""

from __future__ import annotations

import collections
import dataclasses
import time

#: Qt messages that are not ours (the offscreen platform says these about top-level windows).
IGNORED_QT_MESSAGES = (
    "This plugin does not support propagateSizeHints",
    "This plugin does not support raise",
)

#: Text typed into number boxes: good values and every kind of bad one.
NUMBER_TEXT = (
    "", "   ", "abc", "NaN", "nan", "inf", "-inf", "1e400", "1e-400", "-5", "-0", "0", "1", "2", "7", "16",
    "64", "128", "512", "1000", "4096", "10000", "500000", "99999999999999999999", "1e9", "3.5", "0.001",
    "1e3", "0x10", "½", "٣", "12abc",
    # Numbers written the way a locale writes them (group separators, decimal commas).
    "1,000", "10,000", "0,5", "2,5",
)
#: Text typed into list boxes (pairs shown, Lab test lengths).
LIST_TEXT = (
    "", "0", "0, 1, 4, 16", "1 2 3", "0;5;9", "-1, 2", "a, b", "1,,2", "63, 0", "99999", "8, 16, 32, 64",
    "16 24 32 48 64 96 128 256", "1e3", "nan", ", ".join(str(i) for i in range(20)),
)
#: Share of events after which the event loop runs (and the window repaints) before the next event.
PROCESS_SHARE = 0.35
WORDS = ("the", "cat", "sat", "on", "mat", "dog", "bites", "man", "a", "ran", "über", "日本", "x", "it")


class MonkeyFailure(AssertionError):
    """Something went wrong; the message says what, with the seed and the last events."""


def _qt():
    from PySide6 import QtCore, QtGui, QtTest, QtWidgets

    return QtCore, QtGui, QtWidgets, QtTest


def process(app, ms: int = 0) -> None:
    """Run the event loop once, or for ``ms`` milliseconds."""
    QtCore, *_ = _qt()
    if ms <= 0:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        return
    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 10)
        time.sleep(0.002)


def type_text(widget, text: str) -> None:
    """Key presses and releases carrying ``text``, one character at a time (any script: QTest's own
    keyClicks accepts ASCII only)."""
    QtCore, QtGui, QtWidgets, _ = _qt()
    for ch in text:
        code = ord(ch.upper()) if " " <= ch <= "~" else QtCore.Qt.Key.Key_unknown
        for kind in (QtCore.QEvent.Type.KeyPress, QtCore.QEvent.Type.KeyRelease):
            ev = QtGui.QKeyEvent(kind, code, QtCore.Qt.KeyboardModifier.NoModifier, ch)
            QtWidgets.QApplication.sendEvent(widget, ev)


def _busy(window) -> bool:
    return not window.service.idle() or not window.all_drawn


def settle(window, timeout_s: float = 120.0, quiet_s: float = 0.4) -> bool:
    """Wait until the service is idle and every panel has drawn, and it stays so for ``quiet_s``
    (single-shot timers — ranges, hidden views, paced requests — fire within that)."""
    QtWidgets = _qt()[2]
    app = QtWidgets.QApplication.instance()
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    while time.monotonic() < deadline:
        process(app, 20)
        if _busy(window):
            quiet_since = None
            continue
        quiet_since = quiet_since or time.monotonic()
        if time.monotonic() - quiet_since >= quiet_s:
            return True
    return False


class DrawnRecorder:
    """Remembers, per panel and key, the request behind the newest result drawn (``Panel.drawn``)."""

    def __init__(self, window) -> None:
        self.drawn: dict[str, dict[str, object]] = {pid: {} for pid in window.panels}
        for pid, panel in window.panels.items():
            panel.drawn.connect(lambda key, pid=pid, panel=panel: self._on_drawn(pid, panel, key))

    def _on_drawn(self, pid, panel, key) -> None:
        req = panel.last_drawn_request
        if req is not None and getattr(req, "key", None) == key:
            self.drawn[pid][key] = req


def final_mismatches(window, recorder: DrawnRecorder) -> list[str]:
    """What does not show the current parameters (empty when every plot is up to date)."""
    out = []
    for pid, panel in window.panels.items():
        st = panel.state
        for req in panel.requests(st):
            got = _display_only(pid, recorder.drawn[pid].get(req.key), st)
            if got != req:
                out.append(f"{pid}: {req.key} shows {_short(got)}; the current parameters ask for "
                           f"{_short(req)}")
            # The service's own record: the last result it delivered for the key, by generation.
            served = _display_only(pid, window.service.delivered(req.key), st)
            if served != req and got == req:
                out.append(f"{pid}: the service last delivered {_short(served)} for {req.key}, not the request "
                           f"of the current parameters")
        if pid == "waves":
            for req in panel.requests(st):
                r = panel.responses.get(req.key)
                if r is None or r.request != req:
                    out.append(f"waves: responses[{req.key!r}] is for {_short(r and r.request)}")
            if panel._stale:
                out.append(f"waves: views not redrawn: {sorted(type(v).__name__ for v in panel._stale)}")
        if pid == "lab" and panel.result is None and not panel.running:
            rows, cols = panel.table.rowCount(), panel.table.columnCount()
            # One row per scheme, one column per test length (the table no longer scrolls sideways).
            if (rows, cols) != (len(st.schemes), len(st.eval_lens)):
                out.append(f"lab: results table is {rows} × {cols}, the settings give "
                           f"{len(st.schemes)} schemes × {len(st.eval_lens)} lengths")
            text = panel.task_label.text()  # the rule says "Train at L = 8,", a sequence task "1 … L = 8,"
            if f"Train at L = {st.train_len}," not in text and f"L = {st.train_len}, tested" not in text:
                out.append(f"lab: task text does not say L = {st.train_len}")
        want = panel.formula_text(st)
        if panel.formula.text() != want:
            out.append(f"{pid}: the formula strip shows other numbers than the current parameters give")
    return out


def _display_only(pid: str, request, state):
    """``request`` with what a panel draws from its state without computing put to ``state``'s values (Token swap's
    query and head are redrawn from the last result)."""
    if pid == "swap" and request is not None:
        shown = dataclasses.replace(request.state, query=state.query, head=state.head)
        return dataclasses.replace(request, state=shown)
    return request


def _short(x) -> str:
    return _clip(repr(x), 300)


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclasses.dataclass
class Counts:
    events: int = 0
    #: Events per action that acted on something / found nothing to act on (e.g. no chips on screen).
    by_action: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    skipped: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    #: How often every plot was checked against the current parameters (mid-run and at the end).
    checks: int = 0
    seconds: collections.defaultdict[str, float] = dataclasses.field(
        default_factory=lambda: collections.defaultdict(float))
