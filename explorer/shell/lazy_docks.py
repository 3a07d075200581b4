"""Docks whose panels are built when they are first needed (start-up under a second).

The window makes one :class:`~PySide6.QtWidgets.QDockWidget` per panel at once (cheap: the saved
layout needs them all), but a panel — its plots, sidebar and first jobs — only when its dock is
first on screen, or when code asks for it (``window.panels["lab"]`` builds it: every existing
caller keeps working).  At start-up only the raised tab is built: 3 of the 27 plot widgets, and only once
the window's first frame is painted (:meth:`PanelDocks.release`): the window is on screen first, its docks saying
"Opening …" for the turn in which the panel is built (the first results are computed after that frame anyway).

:class:`LazyPanels` is the ``window.panels`` mapping: its keys are every panel id from the start;
``panels[pid]``, ``.get``, ``.values()`` and ``.items()`` build what they return; ``built()`` and
``state_of()`` never build.  A state given before a panel exists (the restored session) is the
state it is built with.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow

from ..panels import PANELS, load_panel_class
from ..panels.links import PanelLinks

if TYPE_CHECKING:
    from ..panels.base import Panel
    from ..panels.table import TablePanel

log = logging.getLogger(__name__)


class LazyPanels(Mapping):
    """Panel id -> panel, built on first access (see the module's docstring)."""

    def __init__(self, ids, build: Callable[[str], Panel]) -> None:
        self._ids = list(ids)
        self._built: dict[str, Panel] = {}
        self._build = build
        #: States for panels not built yet (the restored session): they are built with them.
        self.initial: dict[str, Any] = {}

    def __getitem__(self, panel_id: str) -> Panel:
        panel = self._built.get(panel_id)
        if panel is not None:
            return panel
        if panel_id not in self._ids:
            raise KeyError(panel_id)
        return self._build(panel_id)

    def __contains__(self, panel_id: object) -> bool:  # never builds
        return panel_id in self._ids

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def built(self) -> dict[str, Panel]:
        """The panels made so far (in dock order); builds nothing."""
        return {pid: self._built[pid] for pid in self._ids if pid in self._built}

    def is_built(self, panel_id: str) -> bool:
        return panel_id in self._built

    def state_of(self, panel_id: str):
        """The panel's state, or the state it will be built with (its default when none was given)."""
        panel = self._built.get(panel_id)
        if panel is not None:
            return panel.state
        if panel_id in self.initial:
            return self.initial[panel_id]
        return self.state_cls(panel_id)()

    def state_cls(self, panel_id: str):
        spec = dict((pid, s) for pid, _, s in PANELS)[panel_id]
        return load_panel_class(spec).state_cls

    def defer(self, states: dict) -> dict:
        """Keep the states of panels not built yet as their initial states; return the others."""
        rest = {}
        for pid, st in states.items():
            if pid in self._built or pid not in self._ids:
                rest[pid] = st
            elif st is not None:
                self.initial[pid] = st
        return rest


class PanelDocks(QObject):
    """One dock per panel of :data:`explorer.panels.PANELS` in ``window``, and the building of their panels.

    ``service``: the compute service the panels ask; ``setup(panel_id, panel)`` is called for each panel as it is
    built (the window styles and wires it).  :attr:`panels` is the window's :class:`LazyPanels`.
    """

    #: A panel was built (its id): it is in its dock, styled and wired.
    built = Signal(str)

    #: The panel that shows learned position tables (checkpoints, the Lab's).
    TABLE_PANEL = "table"

    def __init__(self, window: QMainWindow, service, setup: Callable[[str, Panel], None],
                 show_panel: Callable[[str], None]) -> None:
        super().__init__(window)
        self._show_panel = show_panel  # the window's: a panel on stage
        self._service = service
        self._setup = setup
        #: The one channel between the panels, handed to each as it is built.
        self.links = PanelLinks(self)
        self.links.tableWanted.connect(self.show_learned_table)
        self.panels = LazyPanels([pid for pid, _, _ in PANELS], self._build_panel)
        self._specs = {pid: spec for pid, _, spec in PANELS}
        self.docks: dict[str, QDockWidget] = {}
        self.titles: dict[str, str] = {}
        #: Docks shown before :meth:`release` (the window's first frame): their panels are built then.
        self._held: list[str] | None = []
        for panel_id, title, _spec in PANELS:
            dock = QDockWidget(title, window)
            dock.setObjectName(f"dock_{panel_id}")
            holder = QLabel(f"Opening {title}…", dock)  # stands in until the panel is built
            holder.setAlignment(Qt.AlignmentFlag.AlignCenter)
            holder.setForegroundRole(QPalette.ColorRole.PlaceholderText)
            holder.setObjectName(f"placeholder_{panel_id}")
            dock.setWidget(holder)
            dock.setFeatures(
                QDockWidget.DockWidgetFeature.DockWidgetMovable
                | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                | QDockWidget.DockWidgetFeature.DockWidgetClosable
            )
            self.docks[panel_id] = dock
            self.titles[panel_id] = title
            dock.visibilityChanged.connect(lambda on, pid=panel_id: self._on_dock_visible(pid, on))

    def _build_panel(self, panel_id: str) -> Panel:
        """Make the panel of ``panel_id`` (its initial state if one was given), dock it, set it up."""
        from ..widgets.plots import configure_pyqtgraph

        configure_pyqtgraph()  # before the panel's items (one may be made before its first Plot)
        cls = load_panel_class(self._specs[panel_id])
        state = self.panels.initial.pop(panel_id, None)
        try:
            panel = cls(self._service, state, links=self.links)
        except Exception as exc:  # noqa: BLE001 - a restored state the panel refuses: start from its defaults
            if state is None:
                raise
            log.warning("%s: saved parameters not used (%s)", panel_id, exc)
            panel = cls(self._service, links=self.links)
        self.panels._built[panel_id] = panel
        dock = self.docks[panel_id]
        old = dock.widget()
        dock.setWidget(panel)
        # Filled with the window's colour, so Qt repaints no further up than the panel: a label that changes during
        # a drag (its rounded corners show what is behind) repainted the dock too, title bar and all (0.26 ms).
        panel.setAutoFillBackground(True)
        if old is not None and old is not panel:
            old.deleteLater()
        self._setup(panel_id, panel)
        self.built.emit(panel_id)
        return panel

    def _on_dock_visible(self, panel_id: str, visible: bool) -> None:
        if not visible or self.panels.is_built(panel_id):
            return
        if self._held is not None:  # before the window's first frame: built just after it
            if panel_id not in self._held:
                self._held.append(panel_id)
            return
        self.panels[panel_id]  # first on screen: build it now

    def release(self) -> None:
        """The window's first frame is on screen: build the panels of the docks shown before it (still
        shown), and from now on each panel as its dock is first shown."""
        held, self._held = self._held or [], None
        for panel_id in held:
            if self.docks[panel_id].isVisible() and not self.panels.is_built(panel_id):
                try:
                    self.panels[panel_id]
                except Exception:  # as from the dock's own signal: said, and the rest of start-up goes on
                    log.exception("the %s panel could not be built", panel_id)

    # -- a checkpoint's learned table ----------------------------------------------------------------
    def open_checkpoint(self, path: str, tensor: str = "") -> None:
        """Bring the Learned-table panel to the front showing the table in ``path`` (read by the compute
        process with the same checks as always; a bad file is one line in the panel's banner)."""
        self._show_panel(self.TABLE_PANEL)
        self._table().open_checkpoint(path, tensor)

    def show_learned_table(self, table, label: str) -> None:
        """Bring the Learned-table panel to the front showing ``table`` (positions × dims)."""
        self._show_panel(self.TABLE_PANEL)
        self._table().show_table(table, label)

    def open_checkpoint_dialog(self) -> None:
        self._show_panel(self.TABLE_PANEL)
        self._table().open_dialog()

    def _table(self) -> TablePanel:
        """The Learned-table panel (built now if it was not)."""
        from ..panels.table import TablePanel

        panel = self.panels[self.TABLE_PANEL]
        if not isinstance(panel, TablePanel):
            raise TypeError(f"the {self.TABLE_PANEL} panel is a {type(panel).__name__}, not a TablePanel")
        return panel
