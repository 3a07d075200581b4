"""The main window: docked panels fed by one compute service, and the wiring between the rooms.

This module keeps the docks, the current panel, keyboard reach for sliders, the service and
shutdown.  The rest lives in its own room, mixed into :class:`MainWindow`:

* :mod:`explorer.actions` — actions, menus (File, Edit, View, Presets, Export, Help), toolbar, scene strip;
* :mod:`explorer.look` — theme, presenter mode, colour maps, text zoom (the theme bus restyles every plot);
* :mod:`explorer.session` — presets, lecture scenes, the last session;
* :mod:`explorer.help` — shortcuts, the user guide, About;
* :mod:`explorer.export` — the export controller behind every Export menu.

The window layout, the look and the last session's parameters are saved on close and restored at start.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QByteArray, QEvent, QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSlider,
    QApplication,
    QDockWidget,
    QMainWindow,
    QScrollBar,
    QTabWidget,
    QToolBar,
    QWidget,
)

from .actions import ActionsMixin
from .export.controller import ExportController
from .help import HelpMixin
from .layout_state import SURVIVE_MS, LayoutError, check_layout, restore_died, restored, restoring
from .lazy_docks import LazyDocksMixin
from .lesson_dock import LessonDockMixin
from .look import LookMixin
from .panels import PANELS, load_panel_class  # noqa: F401 - load_panel_class kept importable here
from .panels.base import Panel
from .presets import Preset
from .service import ComputeService, Failure
from .session import DEFAULT_TITLE, SessionMixin
from .settings import config_dir, config_problem, load_settings, remove_stale_temp_files, save_settings
from .undo import UndoController
from .welcome import WelcomeMixin
from .widgets.superqt_lite import signals_blocked

#: Bump when the dock set changes so an old saved layout is not restored onto new docks.
LAYOUT_VERSION = 3


def _needs_key_steps(slider) -> bool:
    """True for sliders that draw and drag but ignore the keyboard (superqt's float/range sliders:
    their key handling is a to-do upstream, superqt 0.9)."""
    try:
        from superqt.sliders._generic_slider import _GenericSlider
    except ImportError:  # a superqt that moved it: nothing to patch
        return False
    return isinstance(slider, _GenericSlider)


class _SliderKeys(QObject):
    """Arrow, Page and Home/End keys for sliders that do not handle them themselves."""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() != QEvent.Type.KeyPress or not isinstance(obj, QAbstractSlider):
            return False
        key = event.key()
        single, page = obj.singleStep(), obj.pageStep()
        sign = -1 if obj.invertedControls() else 1
        steps = {
            Qt.Key.Key_Right: single,
            Qt.Key.Key_Up: single,
            Qt.Key.Key_Left: -single,
            Qt.Key.Key_Down: -single,
            Qt.Key.Key_PageUp: page,
            Qt.Key.Key_PageDown: -page,
        }
        if key in steps:
            obj.setValue(min(max(obj.value() + sign * steps[key], obj.minimum()), obj.maximum()))
        elif key == Qt.Key.Key_Home:
            obj.setValue(obj.minimum())
        elif key == Qt.Key.Key_End:
            obj.setValue(obj.maximum())
        else:
            return False
        return True


class _FirstFrame(QObject):
    """Calls ``then`` once, just after the window's first paint (or after ``fallback_ms`` if none comes)."""

    def __init__(self, window: QWidget, then, fallback_ms: int = 1000) -> None:
        super().__init__(window)
        self._window = window
        self._then = then
        self._done = False
        window.installEventFilter(self)
        QTimer.singleShot(fallback_ms, self, self.fire)

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


class MainWindow(LazyDocksMixin, LessonDockMixin, ActionsMixin, LookMixin, SessionMixin, HelpMixin, WelcomeMixin,
                 QMainWindow):
    """Docks for every panel in :data:`explorer.panels.PANELS`, all fed by one :class:`ComputeService`.

    A panel is built when its dock is first on screen or when ``panels[pid]`` asks for it
    (:mod:`explorer.lazy_docks`)."""

    #: Every panel has drawn its first result.
    allPanelsDrawn = Signal()
    #: A panel was built (its id): it is in its dock, styled and wired.
    panelBuilt = Signal(str)
    #: The screen's look changed (the new :class:`~explorer.theme.Theme`).
    themeChanged = Signal(object)
    #: A screen size the window must fit instead of its screen's (the layout test simulates screens).
    screen_limit: QSize | None = None

    def __init__(
        self,
        *,
        restore_layout: bool = True,
        restore_session: bool | None = None,
        save_on_close: bool | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``restore_layout``/``restore_session``: read the saved layout and look / the last session
        (the session follows the layout unless given).  ``save_on_close``: write them back when the
        window closes; by default only what this run read is written back, so a run that did not
        load the user's session and look (``--screenshot``, the tests) never replaces them."""
        super().__init__(parent)
        self.setObjectName("PEExplorerMainWindow")
        self.setWindowTitle(DEFAULT_TITLE)
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks
            | QMainWindow.DockOption.AllowNestedDocks
            | QMainWindow.DockOption.AllowTabbedDocks
            | QMainWindow.DockOption.GroupedDragging
        )
        self.setTabPosition(Qt.DockWidgetArea.AllDockWidgetAreas, QTabWidget.TabPosition.North)
        self.fit_to_screen()  # the available screen (a saved size is clamped to it in restore_layout)
        # Paused until the window is on screen (showEvent): the window comes up first, then the
        # worker computes the first results and imports torch.
        self.service = ComputeService(self, paused=True)
        self.service.failed.connect(self._on_service_failed)
        self._all_drawn_emitted = False
        self._closed = False
        self._last_panel: str | None = None
        self._scene: Preset | None = None
        # Set by restore_layout() / restore_session() (or save_on_close): what closing writes back.
        self._layout_restored = bool(save_on_close)
        self._session_owned = bool(save_on_close)
        # A settings folder that cannot be used (a file, read-only, no home) disables the settings
        # for this run: nothing is restored or saved, and the window says so.
        self.settings_problem = config_problem()
        if self.settings_problem is None:
            remove_stale_temp_files()  # left by writes a killed instance did not finish
        else:
            print(f"pe-explorer: settings disabled: {self.settings_problem}", file=sys.stderr)
        self._init_look()  # base theme, presenter mode, grey-scale-safe maps, text zoom
        self._slider_keys = _SliderKeys(self)
        self._make_docks()  # the docks now, each panel when it is first shown or asked for
        self.undo = UndoController(self.panels, self.titles, self)
        # Plots carry their export submenu from birth; this controller fills it for this window's plots.
        self.exporter = ExportController(self, self.look, notify=self._status, paused=self.undo.paused)
        self._builtin, self._builtin_errors = self._load_builtins()
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self._build_scene_bar()
        self._build_side_actions()
        self._make_lesson_dock()  # the dock now (hidden), its pane when it is first shown
        self._add_lesson_menus()
        self._default_layout()
        self._default_state = self.saveState(LAYOUT_VERSION)
        QApplication.instance().focusChanged.connect(self._on_focus_changed)
        self.statusBar().showMessage("Ready", 3000)
        if self.settings_problem is not None:
            self.statusBar().showMessage(f"Settings disabled: {self.settings_problem}", 30000)
        if restore_layout and self.settings_problem is None:
            self.restore_layout()
        if (restore_layout if restore_session is None else restore_session) and self.settings_problem is None:
            self.restore_session()
        if save_on_close is False:
            self._layout_restored = self._session_owned = False
        self.themeChanged.connect(self._on_look_for_panes)
        if self._scene is None:
            self.scene_bar.hide()  # a restored layout may have it shown, but there is nothing to say
        self.apply_look()

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
        self._lesson_placed_by_hand = False  # the Lesson dock is placed by the window again
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

    # -- side columns: controls (Ctrl+B) and "What am I looking at?" (Ctrl+I) --------------------------
    def _build_side_actions(self) -> None:
        self._explain_on = {False: True, True: False}  # shown in normal mode, hidden in presenter mode
        self.act_sidebar = self._action(
            "actSidebar", "Show &controls", self.set_sidebar_visible, [QKeySequence("Ctrl+B")],
            checkable=True, tip="Show or hide every panel's control sidebar (give the plots the screen)")
        self.act_sidebar.setChecked(True)
        self.act_explain = self._action(
            "actExplain", "&What am I looking at?", self.set_explain_visible, [QKeySequence("Ctrl+I")],
            checkable=True, tip="Show or hide the explanations beside the plots (hidden in presenter mode)")
        self.view_menu.addAction(self.act_sidebar)
        self.view_menu.addAction(self.act_explain)
        self._on_look_for_panes()

    def set_sidebar_visible(self, on: bool) -> None:
        for panel in self.panels.built().values():
            panel.set_sidebar_visible(bool(on))
        with signals_blocked(self.act_sidebar):
            self.act_sidebar.setChecked(bool(on))

    def set_explain_visible(self, on: bool) -> None:
        """Show or hide the "What am I looking at?" panes; remembered per mode (normal, presenter)."""
        self._explain_on[self.presenter] = bool(on)
        for panel in self.panels.built().values():
            panel.set_explain_visible(bool(on))
        with signals_blocked(self.act_explain):
            self.act_explain.setChecked(bool(on))

    def _on_look_for_panes(self, _theme=None) -> None:
        if getattr(self, "_explain_on", None) is not None:
            self.set_explain_visible(self._explain_on[self.presenter])

    def show_panel(self, panel_id: str) -> None:
        dock = self.docks[panel_id]
        dock.show()
        dock.raise_()
        self._last_panel = panel_id
        # Keys must not keep going to a control of the panel that just went behind.
        focused = QApplication.focusWidget()
        if focused is not None and self._panel_of(focused) not in (None, panel_id):
            focused.clearFocus()

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
        self._restore_look(s)

    def save_layout(self) -> None:
        restored(config_dir())  # closed normally
        save_settings({
            "geometry": bytes(self.saveGeometry().data()),
            "state": bytes(self.saveState(LAYOUT_VERSION).data()),
            **self._look_settings(),
        })

    # -- current panel ---------------------------------------------------------------------------
    def _panel_of(self, widget) -> str | None:
        while widget is not None:
            if isinstance(widget, Panel):
                for pid, p in self.panels.built().items():
                    if p is widget:
                        return pid
            widget = widget.parentWidget()
        return None

    def _on_focus_changed(self, _old, new) -> None:
        pid = self._panel_of(new)
        if pid is not None:
            self._last_panel = pid

    def current_panel_id(self) -> str:
        """The panel the user is working in: focus, else the last raised tab, else the first visible."""
        pid = self._panel_of(QApplication.focusWidget())
        if pid is not None:
            return pid
        built = self.panels.built()
        if self._last_panel in built and built[self._last_panel].isVisible():
            return self._last_panel
        for pid, panel in built.items():
            if panel.isVisible():
                return pid
        return self._last_panel if self._last_panel in self.panels else next(iter(self.panels))

    def current_panel(self) -> Panel:
        return self.panels[self.current_panel_id()]

    def _ensure_keyboard_sliders(self) -> None:
        """Every slider can be reached with Tab and stepped with the arrow keys.

        A labelled slider (superqt) is a slider wrapping an inner one that does the stepping; the
        wrapper itself takes Tab focus but ignores the arrow keys, so hand its focus to the inner
        slider and take it out of the Tab chain (otherwise Tab stops twice, once uselessly).
        """
        for panel in self.panels.built().values():
            self._keyboard_sliders(panel)

    def _keyboard_sliders(self, panel) -> None:
        for s in panel.findChildren(QAbstractSlider):
            if isinstance(s, QScrollBar):
                continue
            inner = [c for c in s.findChildren(QAbstractSlider) if not isinstance(c, QScrollBar)]
            if inner:
                s.setFocusProxy(inner[0])
                s.setFocusPolicy(Qt.FocusPolicy.NoFocus)
                continue
            if not (s.focusPolicy() & Qt.FocusPolicy.TabFocus):
                s.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            if _needs_key_steps(s):
                s.installEventFilter(self._slider_keys)

    # -- service ---------------------------------------------------------------------------------
    def _status(self, message: str, timeout_ms: int = 5000) -> None:
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
        if getattr(self, "_first_frame", None) is None:
            self._first_frame = _FirstFrame(self, self._on_first_frame)
        else:
            QTimer.singleShot(0, self.service.resume)

    def after_first_frame(self, callback) -> None:
        """Run ``callback`` once, just after the window's first frame is painted (after the service
        starts); at once (queued) if that frame is already on screen."""
        if getattr(self, "_first_frame_done", False):
            QTimer.singleShot(0, callback)
        else:
            self.__dict__.setdefault("_after_first_frame", []).append(callback)

    def _on_first_frame(self) -> None:
        self._first_frame_done = True
        self.service.resume()
        for callback in self.__dict__.pop("_after_first_frame", []):
            callback()

    # -- shutdown --------------------------------------------------------------------------------
    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self._closed:
            self._closed = True
            try:
                QApplication.instance().focusChanged.disconnect(self._on_focus_changed)
            except (RuntimeError, TypeError):
                pass
            # Only what this run took from the settings folder is written back to it: a run that did
            # not load the layout or the session (--screenshot, tests) never replaces the user's, and
            # a folder that cannot be used is not written at all.
            saves = (("window layout", self.save_layout, self._layout_restored),
                     ("last session", self.save_session, self._session_owned))
            for what, save, owned in saves:
                if not owned or self.settings_problem is not None:
                    continue
                try:
                    save()
                except Exception as exc:  # noqa: BLE001 - never block closing on a settings problem
                    # The window is going away, so no dialog: say it where the app was started.
                    print(f"pe-explorer: {what} not saved: {exc}", file=sys.stderr)
            self.close_welcome()  # a dialog left open would keep the app running after its window closed
            for p in self.panels.built().values():
                p.shutdown()
            self.service.stop()
        super().closeEvent(event)


# Kept for code that imported it from here.
QtTabPosition = QTabWidget.TabPosition
