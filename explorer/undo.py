"""Undo/redo of parameter changes (QUndoStack), with a slider drag coalesced into one step.

:class:`UndoController` watches every panel's ``stateChanged``.  Each change becomes a
:class:`PanelStateCommand` holding the panel's state before and after; undo/redo simply
``set_state`` the panel back or forward (states are immutable, so a command is two references).
Consecutive changes of the *same fields* of the same panel merge into one command while a slider
is held down or while they follow each other within :data:`MERGE_WINDOW_S` — a drag through
two hundred values, or a key held on a slider, is one undo step.  Loading a preset, resetting a
panel or restoring a session is one :class:`AppStateCommand` across panels.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping

from PySide6.QtCore import QObject
from PySide6.QtGui import QUndoCommand, QUndoStack
from PySide6.QtWidgets import QAbstractSlider, QScrollBar

#: Changes closer together than this (seconds) merge even without a slider held (keyboard repeat).
MERGE_WINDOW_S = 0.6
_ID_BASE = 0x5045  # "PE"


def changed_fields(old, new) -> frozenset[str]:
    import dataclasses

    return frozenset(f.name for f in dataclasses.fields(old) if getattr(old, f.name) != getattr(new, f.name))


def _slider_down(panel) -> bool:
    return any(s.isSliderDown() for s in panel.findChildren(QAbstractSlider) if not isinstance(s, QScrollBar))


class PanelStateCommand(QUndoCommand):
    """One panel's state from ``old`` to ``new``."""

    def __init__(self, controller: UndoController, panel_id: str, old, new) -> None:
        super().__init__()
        self.controller = controller
        self.panel_id = panel_id
        self.old = old
        self.new = new
        self.fields = changed_fields(old, new)
        self.stamp = time.monotonic()
        self._first = True
        self.setText(self._describe())

    def _describe(self) -> str:
        title = self.controller.titles.get(self.panel_id, self.panel_id)
        names = sorted(self.fields)
        if not names:
            return f"{title}: no change"
        if len(names) == 1:
            return f"{title}: {names[0]} = {_short(getattr(self.new, names[0]))}"
        return f"{title}: {', '.join(names[:3])}{'…' if len(names) > 3 else ''}"

    def id(self) -> int:  # noqa: A003 - Qt override
        return _ID_BASE + self.controller.panel_index(self.panel_id)

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt override
        if not isinstance(other, PanelStateCommand) or other.panel_id != self.panel_id:
            return False
        if other.fields != self.fields and not (
            other.fields <= self.fields and self.controller.dragging(self.panel_id)
        ):
            return False
        recent = other.stamp - self.stamp < MERGE_WINDOW_S
        if not (recent or self.controller.dragging(self.panel_id)):
            return False
        self.new = other.new
        self.stamp = other.stamp
        self.fields = changed_fields(self.old, self.new) or self.fields
        self.setText(self._describe())
        if self.old == self.new:
            self.setObsolete(True)  # dragged back to where it started: nothing to undo
        return True

    def redo(self) -> None:
        if self._first:
            self._first = False  # the change has already happened in the panel
            return
        self.controller._apply(self.panel_id, self.new)

    def undo(self) -> None:
        self.controller._apply(self.panel_id, self.old)


class AppStateCommand(QUndoCommand):
    """Several panels at once (a preset, a reset, a restored session)."""

    def __init__(self, controller: UndoController, old: dict, new: dict, text: str) -> None:
        super().__init__(text)
        self.controller = controller
        self.old = old
        self.new = new

    def redo(self) -> None:
        self.controller._apply_many(self.new, self.old)

    def undo(self) -> None:
        self.controller._apply_many(self.old, self.new)


def _short(v) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    s = str(v)
    return s if len(s) <= 24 else s[:23] + "…"


class UndoController(QObject):
    """Records panels' state changes on a QUndoStack and replays them."""

    def __init__(self, panels: Mapping, titles: dict | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.stack = QUndoStack(self)
        self.stack.setUndoLimit(500)
        self.panels = panels
        self.titles = titles or {}
        self._order = list(panels)
        self._last: dict = {}
        self._applying = 0
        self._paused = 0
        for pid, panel in self._built().items():
            self.adopt(pid, panel)

    def _built(self) -> dict:
        """The panels that exist (a window's lazy mapping builds a panel when it is first shown)."""
        built = getattr(self.panels, "built", None)
        return built() if callable(built) else dict(self.panels)

    def adopt(self, panel_id: str, panel) -> None:
        """Record ``panel``'s changes from now on (a panel built after the controller)."""
        self._last[panel_id] = panel.state
        panel.stateChanged.connect(lambda st, pid=panel_id: self._on_panel_state_changed(pid, st))

    def panel_index(self, panel_id: str) -> int:
        return self._order.index(panel_id) if panel_id in self._order else len(self._order)

    def dragging(self, panel_id: str) -> bool:
        panel = self.panels.get(panel_id)
        return panel is not None and _slider_down(panel)

    # -- recording -------------------------------------------------------------------------------
    def _on_panel_state_changed(self, panel_id: str, state) -> None:
        old = self._last.get(panel_id)
        self._last[panel_id] = state
        if self._applying or self._paused or old is None or old == state:
            return
        self.stack.push(PanelStateCommand(self, panel_id, old, state))

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Changes made inside are not recorded (a sweep that restores the state afterwards)."""
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1
            self._last = {pid: p.state for pid, p in self._built().items()}

    # -- applying --------------------------------------------------------------------------------
    def _apply(self, panel_id: str, state) -> None:
        panel = self.panels[panel_id]
        self._applying += 1
        try:
            panel.set_state(state)
        finally:
            self._applying -= 1
            self._last[panel_id] = panel.state

    def _apply_many(self, states: dict, rollback: dict) -> None:
        """Set several panels; if one fails, put every panel back to ``rollback`` and re-raise."""
        done = []
        try:
            for pid, st in states.items():
                if pid in self.panels and self.panels[pid].state != st:
                    self._apply(pid, st)
                    done.append(pid)
        except Exception:
            for pid in done:
                self._apply(pid, rollback[pid])
            raise

    def set_states(self, states: dict, text: str) -> bool:
        """Apply ``states`` (panel id -> state) as one undoable step; False if nothing changed."""
        new = {pid: st for pid, st in states.items() if pid in self.panels}
        old = {pid: self.panels[pid].state for pid in new}
        if all(old[pid] == new[pid] for pid in new):
            return False
        cmd = AppStateCommand(self, old, new, text)
        try:
            cmd.redo()  # apply first: an exception leaves the stack untouched
        except Exception:
            raise
        # Already applied; push() calls redo() again, which is a no-op now that states match.
        self.stack.push(cmd)
        return True

    def clear(self) -> None:
        self.stack.clear()
        self._last = {pid: p.state for pid, p in self._built().items()}
