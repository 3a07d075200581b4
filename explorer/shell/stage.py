"""What the audience sees: the panel on stage, its tab, and the plot in focus — known in one place.

The window shows its panels in docks.  Which panel is *on stage* is the panel dock that was last raised
(its tab clicked, brought up by a scene, a lesson, a menu or a shortcut) or clicked into, as long as it is
visible; keyboard focus left behind in a panel that went behind another (a slider still focused after its
tab was clicked away) never decides it, nor does a click in a dock that is not a panel's (the Lesson pane).
Export (Panel, Slide, Copy as Python), the session, scenes and lessons all read the stage; :attr:`Stage.changed`
says when it moved.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Mapping

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QDockWidget, QTabWidget, QWidget


@dataclasses.dataclass(frozen=True)
class OnStage:
    """The panel on stage (its id), its view (tab id, None for a one-view panel) and the plot in focus (its
    object name; None: the whole panel)."""

    panel: str
    view: str | None = None
    plot: str | None = None


class Stage(QObject):
    """The one object that knows what is on screen (see the module's docstring).

    ``docks``: panel id -> its dock, in dock order; ``panels``: the window's panels (a mapping that builds a
    panel when asked for it; :meth:`LazyPanels.built` lists those made so far without building).
    """

    #: What is on stage changed (the new :class:`OnStage`).
    changed = Signal(object)

    def __init__(self, docks: Mapping[str, QDockWidget], panels, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._docks = dict(docks)
        self._panels = panels
        self._front: str = next(iter(self._docks))
        self._focus: dict[str, tuple[str, weakref.ref]] = {}  # panel id -> (name, plot) in focus there
        #: Whether each dock is on screen, as its visibilityChanged says: a dock tabbed behind another stays
        #: isVisible() for Qt, but it is not on screen.
        self._shown: dict[str, bool] = dict.fromkeys(self._docks, False)
        self._last: OnStage | None = None
        for pid, dock in self._docks.items():
            dock.visibilityChanged.connect(lambda on, pid=pid: self._on_dock_visible(pid, on))
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)

    # -- reading --------------------------------------------------------------------------------------
    def panel_id(self) -> str:
        """The panel on stage: the one last raised or clicked into while it is visible, else the first visible
        panel dock, else the last raised."""
        if self._visible(self._front):
            return self._front
        for pid in self._docks:
            if self._visible(pid):
                return pid
        return self._front

    def panel(self):
        """The panel on stage (built if it was not yet)."""
        return self._panels[self.panel_id()]

    def now(self) -> OnStage:
        pid = self.panel_id()
        built = self._panels.built().get(pid)
        view = built.current_view() if built is not None else None
        held = self._focus.get(pid)
        return OnStage(pid, view, held[0] if held is not None else None)

    def plot(self):
        """The plot in focus on stage, or None (the whole panel is on stage)."""
        held = self._focus.get(self.panel_id())
        plot = held[1]() if held is not None else None
        return plot if plot is not None and shiboken6.isValid(plot) else None

    # -- moving it ------------------------------------------------------------------------------------
    def put(self, panel_id: str, view: str | None = None) -> None:
        """Bring ``panel_id`` on stage (its dock shown and raised) and, given, its ``view`` (tab)."""
        dock = self._docks[panel_id]
        dock.show()
        dock.raise_()
        self._front = panel_id
        if view is not None:
            self._panels[panel_id].show_view(view)
        # Keys must not keep going to a control of the panel that just went behind.
        focused = QApplication.focusWidget()
        if focused is not None and self.panel_of(focused) not in (None, panel_id):
            focused.clearFocus()
        self._emit()

    def set_focus_plot(self, name: str | None) -> None:
        """Put the plot named ``name`` (:func:`explorer.export.slide.named_plots`) of the panel on stage in focus,
        or (None) the whole panel; ValueError (naming the plots there are) if the panel has no such plot."""
        pid = self.panel_id()
        if name is None:
            self._focus.pop(pid, None)
        else:
            from ..export.slide import find_plot

            plot = find_plot(self.panel(), name)
            self._focus[pid] = (name, weakref.ref(plot))
        self._emit()

    def adopt(self, panel_id: str, panel: QWidget) -> None:
        """Follow the tabs of a panel just built (a tab changed is a new view on stage)."""
        for tabs in panel.findChildren(QTabWidget):
            tabs.currentChanged.connect(self._emit)
        self._emit()

    # -- following the window ---------------------------------------------------------------------------
    def _visible(self, panel_id: str) -> bool:
        return self._shown[panel_id] and self._docks[panel_id].isVisible()

    def _on_dock_visible(self, panel_id: str, visible: bool) -> None:
        self._shown[panel_id] = bool(visible)
        if visible:
            self._front = panel_id
        self._emit()

    def panel_of(self, widget) -> str | None:
        while widget is not None:
            for pid, dock in self._docks.items():
                if widget is dock:
                    return pid
            widget = widget.parentWidget()
        return None

    def _on_focus_changed(self, _old, new) -> None:
        pid = self.panel_of(new)
        if pid is not None and self._visible(pid):
            self._front = pid
            self._emit()

    def _emit(self, *_args) -> None:
        now = self.now()
        if now != self._last:
            self._last = now
            self.changed.emit(now)
