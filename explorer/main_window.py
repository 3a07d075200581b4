"""The main window: docked panels fed by one compute service, composed of plain parts.

The window lays out docks and toolbars and owns the service; everything else is a part that takes what it needs
in its constructor:

* :class:`~explorer.shell.lazy_docks.PanelDocks` — a dock per panel, each panel built when first shown;
* :class:`~explorer.shell.stage.Stage` — what is on screen (panel, tab, plot in focus);
* :class:`~explorer.shell.look.Look` — theme, presenter mode, colour maps, text zoom, full screen;
* :class:`~explorer.shell.session.Session` — presets, lecture scenes, the last session;
* :class:`~explorer.export.commands.ExportCommands` and :class:`~explorer.export.controller.ExportController` —
  everything that leaves the app;
* :class:`~explorer.shell.help.Help` and :class:`~explorer.shell.dialogs.Dialogs`;
* the actions, menus and toolbar, built from the records of :mod:`explorer.shell.actions`.

The window layout, the look and the last session's parameters are saved on close and restored at start.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QObject, QPoint, QRect, QSignalBlocker, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QAbstractSlider, QDockWidget, QMainWindow, QScrollBar, QTabWidget, QToolBar, QWidget

from . import export as ex
from .export.commands import ExportCommands
from .export.controller import ExportController
from .export.slide import plot_key
from .layout_state import SURVIVE_MS, LayoutError, check_layout, restore_died, restored, restoring
from .lessons.ui.dock import LessonDock
from .service import ComputeService, Failure
from .settings import config_dir, config_problem, load_settings, remove_stale_temp_files, save_settings
from .shell.actions import ACTIONS, ActionSpec
from .shell.chrome import Chrome
from .shell.dialogs import Dialogs
from .shell.focus import PlotFocus
from .shell.help import Help
from .shell.lazy_docks import PanelDocks
from .shell.look import Look
from .shell.menus import build_actions, build_menus, build_toolbar
from .shell.session import DEFAULT_TITLE, Session
from .shell.stage import Stage
from .shell.welcome import Welcome
from .undo import UndoController
from .widgets.control_guard import ControlGuard, guard_controls
from .widgets.scene_bar import SceneBar
from .widgets.styling import style_widgets
from .widgets.undo_action import UndoAction

if TYPE_CHECKING:
    from .panels.base import Panel

#: Bump when the dock set or a dock's place changes so an old saved layout is not restored onto new docks.
LAYOUT_VERSION = 4


#: How long the window waits for its first paint before it starts what waits for it anyway (a window never painted).
FIRST_FRAME_FALLBACK_MS = 1000


class _FirstFrame(QObject):
    """Calls ``then`` once, just after the window's first paint (or after ``fallback_ms`` if none comes)."""

    def __init__(self, window: QWidget, then, fallback_ms: int | None = None) -> None:
        super().__init__(window)
        self._window = window
        self._then = then
        self._done = False
        window.installEventFilter(self)
        QTimer.singleShot(FIRST_FRAME_FALLBACK_MS if fallback_ms is None else fallback_ms, self, self.fire)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if obj is self._window and event.type() == QEvent.Type.Paint and not self._done:
            QTimer.singleShot(0, self, self.fire)  # once this paint is done and flushed
        return False

    def fire(self) -> None:
        if self._done:
            return
        self._done = True
        self._window.removeEventFilter(self)
        self._then()


class MainWindow(QMainWindow):
    """Docks for every panel in :data:`explorer.panels.PANELS`, all fed by one :class:`ComputeService`.

    A panel is built when its dock is first on screen or when ``panels[pid]`` asks for it."""

    #: Every panel has drawn its first result.
    allPanelsDrawn = Signal()
    #: A panel was built (its id): it is in its dock, styled and wired.
    panelBuilt = Signal(str)
    #: The screen's look changed (the new :class:`~explorer.theme.Theme`).
    themeChanged = Signal(object)
    #: A screen size the window must fit instead of its screen's (the layout test simulates screens).
    screen_limit: QSize | None = None

    def __init__(self, *, restore_layout: bool = True, restore_session: bool | None = None,
                 save_on_close: bool | None = None, parent: QWidget | None = None) -> None:
        """``restore_layout``/``restore_session``: read the saved layout and look / the last session
        (the session follows the layout unless given).  ``save_on_close``: write them back when the
        window closes; by default only what this run read is written back, so a run that did not
        load the user's session and look (``--screenshot``, the tests) never replaces them."""
        super().__init__(parent)
        self.setObjectName("PEExplorerMainWindow")
        self.setWindowTitle(DEFAULT_TITLE)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowNestedDocks
                            | QMainWindow.DockOption.AllowTabbedDocks | QMainWindow.DockOption.GroupedDragging)
        self.setTabPosition(Qt.DockWidgetArea.AllDockWidgetAreas, QTabWidget.TabPosition.North)
        self.fit_to_screen()  # the available screen (a saved size is clamped to it in restore_layout)
        # Paused until the window is on screen (showEvent): the window comes up first, then the
        # worker computes the first results and imports torch.
        self.service = ComputeService(self, paused=True)
        self.service.failed.connect(self._on_service_failed)
        self._all_drawn_emitted = False
        self._closed = False
        self._first_frame: _FirstFrame | None = None
        self._first_frame_done = False
        self._after_first_frame: list = []
        #: When the first frame was on screen (``time.time()``) and the process's CPU time then; None before.
        self.first_frame_at: float | None = None
        self.first_frame_cpu: float | None = None
        # Set by restore_layout() (or save_on_close): what closing writes back.
        self._layout_restored = bool(save_on_close)
        # A settings folder that cannot be used (a file, read-only, no home) disables the settings
        # for this run: nothing is restored or saved, and the window says so.
        self.settings_problem = config_problem()
        if self.settings_problem is None:
            remove_stale_temp_files()  # left by writes a killed instance did not finish
        else:
            print(f"pe-explorer: settings disabled: {self.settings_problem}", file=sys.stderr)
        self.dialogs = Dialogs(self)
        self.look = Look(self, self.show_status)
        self.look.changed.connect(self._on_look_changed)
        self.look.fullScreenChanged.connect(self._on_full_screen)
        self._explain_on = {False: True, True: False}  # the explanations: shown in normal mode, hidden in presenter
        self._sidebar_on = {False: True, True: False}  # controls: shown; in presenter, a closed drawer
        self._guard = ControlGuard(self)  # the wheel scrolls the sidebars; a focused control keeps its keys
        self.panel_docks = PanelDocks(self, self.service, self._set_up_panel, self.show_panel)
        self.panels = self.panel_docks.panels
        self.docks = self.panel_docks.docks
        self.titles = self.panel_docks.titles
        #: What is on screen: the panel, its tab, the plot in focus (export, scenes and lessons read it).
        self.stage = Stage(self.docks, self.panels, self)
        self.panel_docks.built.connect(self._on_panel_built)
        # Controls and plots a tab builds when first shown are guarded and watched once it is on stage.
        self.stage.changed.connect(self._on_stage_changed)
        #: One plot on the whole panel (double-click, F, a scene), Esc back.
        self.focus = PlotFocus(self.stage, title_of=ex.plot_title, name_of=plot_key, parent=self)
        self.focus.focusChanged.connect(self._update_back)
        self.undo = UndoController(self.panels, self.titles, self)
        self.scene_bar = SceneBar(self)
        self.session = Session(self, panels=self.panels, stage=self.stage, undo=self.undo, titles=self.titles,
                               scene_bar=self.scene_bar, dialogs=self.dialogs, status=self.show_status)
        # Plots carry their export submenu from birth; this controller fills it for this window's plots.
        self.exporter = ExportController(self, self.look.screen_look, notify=self.show_status, paused=self.undo.paused)
        self.exports = ExportCommands(self, self.exporter, self.stage, self.titles, self.show_status)
        self.help = Help(self)
        self.lessons = LessonDock(self)  # the dock now (hidden), its pane when it is first shown
        self.welcome = Welcome(self)
        self.acts = build_actions(self)
        self.exports.acts = self.acts
        ok, why = ex.mp4_available()
        mp4 = self.acts["actSweepMp4"]
        mp4.setEnabled(ok)
        if not ok:
            mp4.setText("Record sweep animation (MP4) — needs imageio-ffmpeg")
            mp4.setToolTip(why)
        self.acts["actBack"].setEnabled(False)
        self.acts["actSidebar"].setChecked(True)
        self.menus = build_menus(self.menuBar(), self.acts, {"@toolbars": []})
        self.menus["Presets"].aboutToShow.connect(self._fill_presets_menu)
        self.menus["Export"].setObjectName("peExportTop")
        # Filled when it opens: filling it now would build the panel on stage before the window is up.
        self.menus["Export"].aboutToShow.connect(lambda: self.exports.fill_menu(self.menus["Export"]))
        self._fill_presets_menu()
        self.toolbar = build_toolbar(self, self.acts, self.menus, self.undo.stack)
        #: Presenter mode's chrome: the bars out of the way (F10 back), no dock titles, no hint lines.
        self.chrome = Chrome(self, self.toolbar, self.docks)
        self.addToolBarBreak(Qt.ToolBarArea.TopToolBarArea)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.scene_bar)
        self.scene_bar.hide()
        view = self.menus["View"]
        sidebar = self.acts["actSidebar"]
        for bar in (self.toolbar, self.scene_bar):
            view.insertAction(sidebar, bar.toggleViewAction())
        self._default_layout()
        self._default_state = self.saveState(LAYOUT_VERSION)
        self.statusBar().showMessage("Ready", 3000)
        if self.settings_problem is not None:
            self.statusBar().showMessage(f"Settings disabled: {self.settings_problem}", 30000)
        if restore_layout and self.settings_problem is None:
            self.restore_layout()
        if (restore_layout if restore_session is None else restore_session) and self.settings_problem is None:
            self.session.restore_session()
        if save_on_close is False:
            self._layout_restored = self.session.owned = False
        elif save_on_close:
            self.session.owned = True
        if self.session.scene is None:
            self.scene_bar.hide()  # a restored layout may have it shown, but there is nothing to say
        self.look.apply()

    # -- parts' needs ------------------------------------------------------------------------------------
    def make_undo_action(self, _spec: ActionSpec) -> QAction:
        return UndoAction(self.undo.stack, self)

    def make_redo_action(self, _spec: ActionSpec) -> QAction:
        return UndoAction(self.undo.stack, self, redo=True)

    def make_lesson_action(self, spec: ActionSpec) -> QAction:
        act = self.lessons.dock.toggleViewAction()
        act.setText(spec.title)
        return act

    def _fill_presets_menu(self) -> None:
        a = self.acts
        files = [a[i] for i in ("actSavePreset", "actSavePresetFile", "actOpenPreset", "actOpenPresetsFolder")]
        scenes = [a["actNextScene"], a["actPreviousScene"]]
        self.session.fill_presets_menu(self.menus["Presets"], scenes, files, a["actResetAll"])

    def _on_look_changed(self, theme) -> None:
        look = self.look
        for act_id, on in (("actPresenter", look.presenter), ("actDark", look.base_theme == "dark"),
                           ("actSafeMaps", look.safe_maps)):
            with QSignalBlocker(self.acts[act_id]):
                self.acts[act_id].setChecked(on)
        for spec in ACTIONS:
            if spec.id.startswith("actTheme_"):
                with QSignalBlocker(self.acts[spec.id]):
                    self.acts[spec.id].setChecked(spec.args == (look.base_theme,))
        self.set_explain_visible(self._explain_on[look.presenter])
        if look.presenter != self.chrome.presenter:
            self._sidebar_on[True] = False  # presenter mode starts with the drawers closed
            for panel in self.panels.built().values():
                panel.set_presenter_layout(look.presenter, self.acts["actSidebar"].trigger)
            self.set_sidebar_visible(self._sidebar_on[look.presenter])
        self.chrome.set_presenter(look.presenter)
        self.focus.quiet = look.presenter  # the status bar's hint says "Esc: whole panel"
        self.themeChanged.emit(theme)

    def _on_full_screen(self, on: bool) -> None:
        self._update_back()
        with QSignalBlocker(self.acts["actFullScreen"]):
            self.acts["actFullScreen"].setChecked(on)

    def _update_back(self, *_args) -> None:
        # Enabled only when there is somewhere to go back from: an enabled Esc would take it from the tour.
        self.acts["actBack"].setEnabled(self.focus.active or self.isFullScreen())
        self.chrome.set_plot_in_focus(self.focus.active)

    def back(self) -> None:
        """Esc: from the plot in focus back to the whole panel, else out of full screen."""
        if not self.focus.leave() and self.isFullScreen():
            self.look.set_full_screen(False)

    def _on_stage_changed(self, now) -> None:
        if self.panels.is_built(now.panel):
            panel = self.panels[now.panel]
            guard_controls(panel, self._guard)
            self.focus.watch(panel)

    def _set_up_panel(self, panel_id: str, panel: Panel) -> None:
        """A panel just built: styled for the look, wired to the window (undo, drawn, keys), sidebars as set."""
        panel.drawn.connect(self._check_all_drawn)
        self._keyboard_sliders(panel)
        guard_controls(panel, self._guard)
        self.undo.adopt(panel_id, panel)
        look = self.look
        style_widgets(panel, look.theme, ui_pt=look.ui_pt, zoom=look.zoom, set_root_font=False)
        # Back into the window's care: a palette of its own would keep this theme after the next
        # change (a panel first shown in light presenter mode stayed light, its labels black on black).
        from PySide6.QtGui import QPalette

        panel.setPalette(QPalette())
        panel.apply_theme(look.theme)
        panel.set_presenter_layout(look.presenter, self.acts["actSidebar"].trigger)
        panel.set_sidebar_visible(self.acts["actSidebar"].isChecked())
        panel.set_explain_visible(self._explain_on[look.presenter])
        self.chrome.adopt(panel)

    def _on_panel_built(self, panel_id: str) -> None:
        self.focus.watch(self.panels[panel_id])
        self.stage.adopt(panel_id, self.panels[panel_id])
        self.panelBuilt.emit(panel_id)

    # -- layout ----------------------------------------------------------------------------------
    def _default_layout(self) -> None:
        """All panels as tabs of one big area: one lesson on the projector at a time."""
        first = None
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
            self.addDockWidget(Qt.DockWidgetArea.TopDockWidgetArea, dock)
            if first is None:
                first = dock
            else:
                self.tabifyDockWidget(first, dock)
        if first is not None:
            first.raise_()

    def reset_layout(self) -> None:
        self.restoreState(self._default_state, LAYOUT_VERSION)
        self.lessons.placed_by_hand = False  # the Lesson dock is placed by the window again
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        next(iter(self.docks.values())).raise_()

    def screen_rect(self) -> QRect:
        """Where the window may be: the available geometry of its screen (a test may set ``screen_limit``)."""
        if self.screen_limit is not None:
            return QRect(QPoint(0, 0), self.screen_limit)
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry() if screen is not None else QRect(0, 0, 1440, 900)

    def fit_to_screen(self, *, keep_size: bool = False) -> None:
        """Open at the available screen size, or (``keep_size``) keep the current size clamped to it.

        Minimum sizes are kept below the screen (sidebars and plot grids scroll), so the clamp holds."""
        avail = self.screen_rect()
        frame = self.frameGeometry().size() - self.geometry().size() if self.isVisible() else QSize(0, 0)
        room = QSize(max(avail.width() - frame.width(), 200), max(avail.height() - frame.height(), 200))
        size = self.size().boundedTo(room) if keep_size else room
        self.resize(size)
        if keep_size and not avail.contains(self.frameGeometry()):
            self.move(avail.topLeft())

    def restore_layout(self) -> None:
        """Take the layout and the look from the saved settings (plain values, each checked; the layout
        only if it is one this window could have written, and only if restoring it did not kill the last
        start: :mod:`explorer.layout_state`)."""
        s = load_settings()
        self._layout_restored = True
        try:
            if restore_died(config_dir()):
                restored(config_dir())  # once: this start saves a layout of its own
                raise LayoutError("the last start that restored it did not get its window up")
            if "state" in s:
                check_layout(s["state"], LAYOUT_VERSION, [d.objectName() for d in self.findChildren(QDockWidget)],
                             [b.objectName() for b in self.findChildren(QToolBar)])
        except LayoutError as exc:
            print(f"pe-explorer: saved window layout not used: {exc}", file=sys.stderr)
            self.statusBar().showMessage(f"Saved window layout not used ({exc}): the default layout", 15000)
        else:
            if "state" in s or "geometry" in s:
                # Qt may still fail on a layout it wrote itself: until this window has been up a while, the next
                # start knows that this one is restoring it (and does not restore it, should this one die).
                restoring(config_dir())
                self.after_first_frame(lambda: QTimer.singleShot(SURVIVE_MS, self, lambda: restored(config_dir())))
            if "geometry" in s:
                self.restoreGeometry(QByteArray(s["geometry"]))
            if "state" in s:
                self.restoreState(QByteArray(s["state"]), LAYOUT_VERSION)
        self.fit_to_screen(keep_size=True)  # saved on a larger screen (or a projector): clamp to this one
        self.look.restore(s)

    def save_layout(self) -> None:
        restored(config_dir())  # closed normally
        with self.chrome.as_chosen():  # what presenter mode hides is not the user's layout
            state = bytes(self.saveState(LAYOUT_VERSION).data())
        save_settings({"geometry": bytes(self.saveGeometry().data()), "state": state, **self.look.settings()})

    # -- side columns: controls (Ctrl+B) and "What am I looking at?" (Ctrl+I) --------------------------
    def set_sidebar_visible(self, on: bool) -> None:
        """Show or hide the control sidebars (presenter mode: open or close the drawers); remembered per mode."""
        self._sidebar_on[self.look.presenter] = bool(on)
        for panel in self.panels.built().values():
            panel.set_sidebar_visible(bool(on))
        with QSignalBlocker(self.acts["actSidebar"]):
            self.acts["actSidebar"].setChecked(bool(on))

    def set_explain_visible(self, on: bool) -> None:
        """Show or hide the "What am I looking at?" panes; remembered per mode (normal, presenter)."""
        self._explain_on[self.look.presenter] = bool(on)
        for panel in self.panels.built().values():
            panel.set_explain_visible(bool(on))
        with QSignalBlocker(self.acts["actExplain"]):
            self.acts["actExplain"].setChecked(bool(on))

    # -- the panel on stage --------------------------------------------------------------------------
    def show_panel(self, panel_id: str) -> None:
        """Bring ``panel_id`` on stage (its dock shown and raised)."""
        self.stage.put(panel_id)

    def current_panel_id(self) -> str:
        """The panel on stage (:class:`~explorer.shell.stage.Stage`): raised or clicked into, never keyboard
        focus left in a panel that went behind."""
        return self.stage.panel_id()

    def current_panel(self) -> Panel:
        return self.panels[self.current_panel_id()]

    def _keyboard_sliders(self, panel) -> None:
        """Every slider can be reached with Tab (and steps with the arrow keys: the app's sliders are Qt's own
        QSlider inside, explorer/widgets/sliders.py)."""
        for s in panel.findChildren(QAbstractSlider):
            if not isinstance(s, QScrollBar) and not (s.focusPolicy() & Qt.FocusPolicy.TabFocus):
                s.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    # -- service ---------------------------------------------------------------------------------
    def show_status(self, message: str, timeout_ms: int = 5000) -> None:
        self.statusBar().showMessage(message, timeout_ms)

    def _on_service_failed(self, failure: Failure) -> None:
        self.statusBar().showMessage(f"{failure.key}: {failure.message}", 10000)

    def _check_all_drawn(self, _key: str = "") -> None:
        built = self.panels.built()
        if not self._all_drawn_emitted and len(built) == len(self.panels) and all(
                p.has_drawn for p in built.values()):
            self._all_drawn_emitted = True
            self.allPanelsDrawn.emit()

    @property
    def all_drawn(self) -> bool:
        """Every panel has drawn (asking builds the panels not built yet: they then compute)."""
        return all(p.has_drawn for p in self.panels.values())

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        # Let the first frame be painted, then start computing (a 0-ms timer from here ran before it).
        if self._first_frame is None:
            self._first_frame = _FirstFrame(self, self._on_first_frame)
        else:
            QTimer.singleShot(0, self.service.resume)

    def after_first_frame(self, callback) -> None:
        """Run ``callback`` once, just after the window's first frame is painted (after the service
        starts); at once (queued) if that frame is already on screen."""
        if self._first_frame_done:
            QTimer.singleShot(0, callback)
        else:
            self._after_first_frame.append(callback)

    def _on_first_frame(self) -> None:
        self._first_frame_done = True
        self.first_frame_at, self.first_frame_cpu = time.time(), time.process_time()
        self.panel_docks.release()  # the raised docks' panels, then their first jobs
        self.service.resume()
        callbacks, self._after_first_frame = self._after_first_frame, []
        for callback in callbacks:
            callback()

    # -- shutdown --------------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """The window has been closed (its layout and session saved): a part's late timer does nothing then."""
        return self._closed

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self._closed:
            self._closed = True
            # Only what this run took from the settings folder is written back to it: a run that did not
            # load the layout or the session (--screenshot, tests) never replaces the user's, and a folder
            # that cannot be used is not written at all.
            saves = (("window layout", self.save_layout, self._layout_restored),
                     ("last session", self.session.save_session, self.session.owned))
            for what, save, owned in saves:
                if not owned or self.settings_problem is not None:
                    continue
                try:
                    save()
                except Exception as exc:  # noqa: BLE001 - never block closing on a settings problem
                    # The window is going away, so no dialog: say it where the app was started.
                    print(f"pe-explorer: {what} not saved: {exc}", file=sys.stderr)
            self.welcome.close()  # a dialog left open would keep the app running after its window closed
            for p in self.panels.built().values():
                p.shutdown()
            self.service.stop()
        super().closeEvent(event)
