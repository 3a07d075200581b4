"""The main window: docked panels fed by one compute service, and everything a lecturer needs around them.

Menus and toolbar: File (presets, quit), Edit (undo/redo, reset panel), View (docks, themes,
presenter mode, full screen, text zoom), Presets (built-in lecture scenes and the user's own),
Export (plots, panels, the window, sweep animations), Help (keyboard shortcuts, about).  The
window layout, the look (theme, presenter mode, zoom) and the last session's parameters are saved
on close and restored at start.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QFont, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSlider,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QScrollBar,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from . import __version__
from . import export as ex
from .panels import PANELS
from .panels.base import Panel
from .presets import (
    Preset,
    PresetError,
    builtin_presets,
    load_preset,
    save_preset,
    save_user_preset,
    user_dir,
    user_presets,
)
from .service import ComputeService, Failure
from .settings import config_dir
from .state import PANEL_STATES, AppState
from .theme import BASE_THEMES, ZOOM_STEPS, Theme, screen_theme, style_new_items, style_panel, style_widgets
from .undo import UndoController
from .widgets.export_menu import ExportController

#: Bump when the dock set changes so an old saved layout is not restored onto new docks.
LAYOUT_VERSION = 2
SESSION_FILE = "session.json"
DEFAULT_TITLE = "PE Explorer — how transformers learn word order"

#: Keys that work inside the panels (not window actions); listed in Help → Keyboard shortcuts.
PANEL_KEYS = (
    ("Panels", "Move to the next / previous control", "Tab / Shift+Tab"),
    ("Panels", "Step the focused slider or spin box by one", "Left / Right or Up / Down"),
    ("Panels", "Step the focused slider by a page", "PgUp / PgDown"),
    ("Panels", "Jump the focused slider to its minimum / maximum", "Home / End"),
    ("Panels", "Open a plot's menu (export, zoom)", "right-click the plot"),
)


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


def load_panel_class(spec: str) -> type[Panel]:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def _seq(*keys: str | QKeySequence.StandardKey) -> list[QKeySequence]:
    return [QKeySequence(k) for k in keys]


class MainWindow(QMainWindow):
    """Docks for every panel in :data:`explorer.panels.PANELS`, all fed by one :class:`ComputeService`."""

    #: Every panel has drawn its first result.
    allPanelsDrawn = Signal()
    #: The screen's look changed (the new :class:`~explorer.theme.Theme`).
    themeChanged = Signal(object)

    def __init__(
        self,
        *,
        restore_layout: bool = True,
        restore_session: bool | None = None,
        parent: QWidget | None = None,
    ) -> None:
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
        self.resize(1440, 900)
        # Paused until the window is on screen (showEvent): the window comes up first, then the
        # worker computes the first results and imports torch.
        self.service = ComputeService(self, paused=True)
        self.service.failed.connect(self._on_service_failed)
        self.panels: dict[str, Panel] = {}
        self.docks: dict[str, QDockWidget] = {}
        self.titles: dict[str, str] = {}
        self._all_drawn_emitted = False
        self._closed = False
        self._last_panel: str | None = None
        self._scene: Preset | None = None
        # The look: base theme, presenter mode, grey-scale-safe maps, text zoom.
        self._base_theme = "light"
        self._presenter = False
        self._safe_maps = False
        self._zoom = 1.0
        self._base_font = QFont(QApplication.font())
        self._theme: Theme = screen_theme()
        for panel_id, title, spec in PANELS:
            panel = load_panel_class(spec)(self.service)
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock_{panel_id}")
            dock.setWidget(panel)
            dock.setFeatures(
                QDockWidget.DockWidgetFeature.DockWidgetMovable
                | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                | QDockWidget.DockWidgetFeature.DockWidgetClosable
            )
            self.panels[panel_id] = panel
            self.docks[panel_id] = dock
            self.titles[panel_id] = title
            panel.drawn.connect(self._check_all_drawn)
            panel.drawn.connect(lambda _key, p=panel: self._on_panel_drawn(p))
            dock.visibilityChanged.connect(lambda on, pid=panel_id: self._on_dock_visible(pid, on))
        self._slider_keys = _SliderKeys(self)
        self._ensure_keyboard_sliders()
        self.undo = UndoController(self.panels, self.titles, self)
        self.exporter = ExportController(self, self.look, notify=self._status, paused=self.undo.paused)
        for panel in self.panels.values():
            self.exporter.install(panel)
        self._builtin, self._builtin_errors = self._load_builtins()
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self._build_scene_bar()
        self._default_layout()
        self._default_state = self.saveState(LAYOUT_VERSION)
        QApplication.instance().focusChanged.connect(self._on_focus_changed)
        self.statusBar().showMessage("Ready", 3000)
        if restore_layout:
            self.restore_layout()
        if restore_layout if restore_session is None else restore_session:
            self.restore_session()
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
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        next(iter(self.docks.values())).raise_()

    def show_panel(self, panel_id: str) -> None:
        dock = self.docks[panel_id]
        dock.show()
        dock.raise_()
        self._last_panel = panel_id

    def _settings(self) -> QSettings:
        return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)

    def restore_layout(self) -> None:
        s = self._settings()
        geom = s.value("geometry")
        state = s.value("state")
        if isinstance(geom, QByteArray):
            self.restoreGeometry(geom)
        if isinstance(state, QByteArray):
            self.restoreState(state, LAYOUT_VERSION)
        base = str(s.value("view/theme", "light"))
        self._base_theme = base if base in BASE_THEMES else "light"
        self._presenter = s.value("view/presenter", False, type=bool)
        self._safe_maps = s.value("view/safe_maps", False, type=bool)
        try:
            zoom = float(s.value("view/zoom", 1.0))
        except (TypeError, ValueError):
            zoom = 1.0
        self._zoom = min(max(zoom, ZOOM_STEPS[0]), ZOOM_STEPS[-1])
        self._sync_look_actions()

    def save_layout(self) -> None:
        s = self._settings()
        s.setValue("geometry", self.saveGeometry())
        s.setValue("state", self.saveState(LAYOUT_VERSION))
        s.setValue("view/theme", self._base_theme)
        s.setValue("view/presenter", self._presenter)
        s.setValue("view/safe_maps", self._safe_maps)
        s.setValue("view/zoom", self._zoom)
        s.sync()

    # -- current panel ---------------------------------------------------------------------------
    def _panel_of(self, widget) -> str | None:
        while widget is not None:
            if isinstance(widget, Panel):
                for pid, p in self.panels.items():
                    if p is widget:
                        return pid
            widget = widget.parentWidget()
        return None

    def _on_focus_changed(self, _old, new) -> None:
        pid = self._panel_of(new)
        if pid is not None:
            self._last_panel = pid

    def _on_dock_visible(self, panel_id: str, visible: bool) -> None:
        if visible:
            self._last_panel = panel_id

    def current_panel_id(self) -> str:
        """The panel the user is working in: focus, else the last raised tab, else the first visible."""
        pid = self._panel_of(QApplication.focusWidget())
        if pid is not None:
            return pid
        if self._last_panel in self.panels and self.panels[self._last_panel].isVisible():
            return self._last_panel
        for pid, panel in self.panels.items():
            if panel.isVisible():
                return pid
        return self._last_panel if self._last_panel in self.panels else next(iter(self.panels))

    def current_panel(self) -> Panel:
        return self.panels[self.current_panel_id()]

    # -- actions ---------------------------------------------------------------------------------
    def _action(
        self,
        name: str,
        text: str,
        slot=None,
        shortcuts=(),
        *,
        checkable: bool = False,
        tip: str = "",
        context=Qt.ShortcutContext.WindowShortcut,
    ) -> QAction:
        act = QAction(text, self)
        act.setObjectName(name)
        if shortcuts:
            act.setShortcuts(list(shortcuts))
            act.setShortcutContext(context)
        act.setCheckable(checkable)
        if tip:
            act.setToolTip(tip)
            act.setStatusTip(tip)
        if slot is not None:
            (act.toggled if checkable else act.triggered).connect(slot)
        self.addAction(act)  # shortcuts work even when menus and toolbar are hidden (presenter, full screen)
        return act

    def _build_actions(self) -> None:
        a = self._action
        self.act_open_preset = a(
            "actOpenPreset",
            "&Open preset file…",
            self.open_preset_file,
            _seq("Ctrl+O"),
            tip="Load all panels' parameters from a preset file",
        )
        self.act_save_preset = a(
            "actSavePreset",
            "&Save preset…",
            self.save_preset_dialog,
            _seq("Ctrl+S"),
            tip="Save all panels' parameters as one of your presets",
        )
        self.act_save_preset_file = a(
            "actSavePresetFile",
            "Save preset to &file…",
            self.save_preset_file,
            _seq("Ctrl+Shift+S"),
            tip="Save all panels' parameters to a file of your choice",
        )
        self.act_open_presets_folder = a(
            "actOpenPresetsFolder", "Open my presets &folder", self.open_presets_folder
        )
        self.act_quit = a("actQuit", "&Quit", self.close, _seq("Ctrl+Q"))

        self.act_undo = self.undo.stack.createUndoAction(self, "&Undo")
        self.act_undo.setObjectName("actUndo")
        self.act_undo.setShortcuts(_seq("Ctrl+Z"))
        self.act_redo = self.undo.stack.createRedoAction(self, "&Redo")
        self.act_redo.setObjectName("actRedo")
        self.act_redo.setShortcuts(_seq("Ctrl+Shift+Z", "Ctrl+Y"))
        for act in (self.act_undo, self.act_redo):
            self.addAction(act)
        self.act_reset_panel = a(
            "actResetPanel",
            "Reset &panel",
            self.reset_current_panel,
            _seq("Ctrl+R"),
            tip="Put the current panel's parameters back to their defaults (undoable)",
        )
        self.act_reset_all = a(
            "actResetAll",
            "Reset &all panels",
            self.reset_all_panels,
            tip="Put every panel's parameters back to their defaults (undoable)",
        )

        self.act_presenter = a(
            "actPresenter",
            "&Presenter mode",
            self.set_presenter,
            _seq("F5"),
            checkable=True,
            tip="Larger text, thicker lines, high-contrast colours for the back of a hall",
        )
        self.act_fullscreen = a(
            "actFullScreen", "&Full screen", self.set_full_screen, _seq("F11"), checkable=True
        )
        self.act_leave_fullscreen = a(
            "actLeaveFullScreen", "Leave full screen", lambda: self.set_full_screen(False), _seq("Esc")
        )
        self.act_leave_fullscreen.setEnabled(False)
        self.act_zoom_in = a("actZoomIn", "Zoom &in (larger text)", self.zoom_in, _seq("Ctrl+=", "Ctrl++"))
        self.act_zoom_out = a("actZoomOut", "Zoom &out (smaller text)", self.zoom_out, _seq("Ctrl+-"))
        self.act_zoom_reset = a("actZoomReset", "&Normal text size", self.zoom_reset, _seq("Ctrl+0"))
        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for name, theme in BASE_THEMES.items():
            act = a(f"actTheme_{name}", f"{theme.label} theme", checkable=True)
            act.triggered.connect(lambda _=False, n=name: self.set_base_theme(n))
            self.theme_group.addAction(act)
            self.theme_actions[name] = act
        self.act_dark = a(
            "actDark",
            "Dark",
            lambda on: self.set_base_theme("dark" if on else "light"),
            checkable=True,
            tip="Switch between the light and the dark theme",
        )
        self.act_safe_maps = a(
            "actSafeMaps",
            "&Grey-scale-safe colour maps",
            self.set_safe_maps,
            checkable=True,
            tip="Colour maps whose lightness runs one way (CET-D7, cividis): readable in "
            "grey-scale print and for colour-blind viewers",
        )

        self.act_export_panel = a(
            "actExportPanel",
            "Export &panel as PNG (2×)…",
            self.export_current_panel,
            _seq("Ctrl+E"),
            tip="Save the current panel as one image",
        )
        self.act_export_window = a(
            "actExportWindow",
            "Export &window as PNG (2×)…",
            self.export_window,
            _seq("Ctrl+Shift+E"),
            tip="Save the whole window as one image",
        )
        self.act_copy_panel = a(
            "actCopyPanel",
            "&Copy panel image",
            self.copy_current_panel,
            _seq("Ctrl+Shift+C"),
            tip="Copy the current panel as an image, to paste into slides",
        )
        self.act_sweep = a(
            "actSweep",
            "Record sweep &animation (GIF)…",
            lambda: self.record_sweep(".gif"),
            _seq("Ctrl+Shift+G"),
            tip="Step one parameter through a range and save the frames as an animated GIF",
        )
        ok, why = ex.mp4_available()
        self.act_sweep_mp4 = a(
            "actSweepMp4",
            "Record sweep animation (MP4)…" if ok else "Record sweep animation (MP4) — needs imageio-ffmpeg",
            lambda: self.record_sweep(".mp4"),
            tip=why or "Step one parameter through a range and save an MP4 video",
        )
        self.act_sweep_mp4.setEnabled(ok)

        self.act_shortcuts = a("actShortcuts", "&Keyboard shortcuts", self.show_shortcuts, _seq("F1"))
        self.act_about = a("actAbout", "&About PE Explorer", self.show_about)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        for act in (self.act_open_preset, self.act_save_preset, self.act_save_preset_file):
            file_menu.addAction(act)
        file_menu.addSeparator()
        file_menu.addAction(self.act_export_panel)
        file_menu.addAction(self.act_export_window)
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        self.file_menu = file_menu

        edit = mb.addMenu("&Edit")
        edit.addAction(self.act_undo)
        edit.addAction(self.act_redo)
        edit.addSeparator()
        edit.addAction(self.act_reset_panel)
        edit.addAction(self.act_reset_all)
        edit.addSeparator()
        edit.addAction(self.act_copy_panel)
        self.edit_menu = edit

        view = mb.addMenu("&View")
        for n, dock in enumerate(self.docks.values(), start=1):
            act = dock.toggleViewAction()
            act.setShortcut(QKeySequence(f"Ctrl+{n}"))
            view.addAction(act)
        view.addSeparator()
        reset = QAction("&Reset layout", self)
        reset.setObjectName("actResetLayout")
        reset.triggered.connect(self.reset_layout)
        view.addAction(reset)
        view.addSeparator()
        for act in self.theme_actions.values():
            view.addAction(act)
        view.addAction(self.act_safe_maps)
        view.addSeparator()
        for act in (
            self.act_presenter,
            self.act_fullscreen,
            self.act_zoom_in,
            self.act_zoom_out,
            self.act_zoom_reset,
        ):
            view.addAction(act)
        view.addSeparator()
        self.view_menu = view

        self.presets_menu = mb.addMenu("&Presets")
        self.presets_menu.setToolTipsVisible(True)
        self.presets_menu.aboutToShow.connect(self._fill_presets_menu)
        self._fill_presets_menu()

        self.export_menu = mb.addMenu("E&xport")
        self.export_menu.setObjectName("peExportTop")
        self.export_menu.setToolTipsVisible(True)
        self.export_menu.aboutToShow.connect(self._fill_export_menu)
        self._fill_export_menu()

        help_menu = mb.addMenu("&Help")
        help_menu.addAction(self.act_shortcuts)
        help_menu.addAction(self.act_about)
        self.help_menu = help_menu

    def _build_toolbar(self) -> None:
        tb = QToolBar("Lecture toolbar", self)
        tb.setObjectName("lectureToolBar")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        tb.setMovable(True)
        tb.addAction(self.act_presenter)
        tb.addAction(self.act_fullscreen)
        tb.addAction(self.act_dark)
        tb.addSeparator()
        # Short labels on the toolbar (the menu's actions say what they would undo).
        stack = self.undo.stack
        for text, slot, can, changed in (
            ("Undo", stack.undo, stack.canUndo, stack.canUndoChanged),
            ("Redo", stack.redo, stack.canRedo, stack.canRedoChanged),
        ):
            act = tb.addAction(text)
            act.setObjectName(f"toolbar{text}")
            act.triggered.connect(slot)
            act.setEnabled(can())
            changed.connect(act.setEnabled)
            act.setToolTip(
                f"{text} ({(self.act_undo if text == 'Undo' else self.act_redo).shortcut().toString()})"
            )
        tb.addAction(self.act_reset_panel)
        tb.addSeparator()
        for text, menu, name in (
            ("Presets", self.presets_menu, "presetsButton"),
            ("Export", self.export_menu, "exportButton"),
        ):
            button = QToolButton(tb)
            button.setObjectName(name)
            button.setText(text)
            button.setMenu(menu)
            button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            tb.addWidget(button)
        tb.addAction(self.act_copy_panel)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)
        self.toolbar = tb
        self.view_menu.addAction(tb.toggleViewAction())

    def _build_scene_bar(self) -> None:
        """A strip under the toolbar with the loaded lecture scene's title and what to point out."""
        bar = QToolBar("Lecture scene", self)
        bar.setObjectName("sceneToolBar")
        bar.setMovable(False)
        frame = QFrame(bar)
        frame.setObjectName("sceneBar")
        lay = QHBoxLayout(frame)
        lay.setContentsMargins(8, 4, 8, 4)
        self.scene_title = QLabel(frame)
        self.scene_title.setObjectName("sceneTitle")
        self.scene_text = QLabel(frame)
        self.scene_text.setObjectName("sceneText")
        self.scene_text.setWordWrap(True)
        self.scene_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # A wrapped label asks for the height of a narrow column; claim a wide one so the notes take
        # two or three lines, not ten.
        self.scene_text.setMinimumWidth(720)
        self.scene_title.setWordWrap(True)
        self.scene_title.setMaximumWidth(360)
        lay.addWidget(self.scene_title)
        lay.addWidget(self.scene_text, 1)
        bar.addWidget(frame)
        close = bar.addAction("✕")
        close.setToolTip("Hide the scene notes")
        close.triggered.connect(bar.hide)
        self.addToolBarBreak(Qt.ToolBarArea.TopToolBarArea)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        bar.hide()
        self.scene_bar = bar
        self.view_menu.addAction(bar.toggleViewAction())

    def all_shortcut_actions(self) -> list[QAction]:
        """Every action of the window with a keyboard shortcut (menus, toolbar, docks)."""
        seen, out = set(), []
        for act in self.findChildren(QAction):
            if act.shortcuts() and id(act) not in seen:
                seen.add(id(act))
                out.append(act)
        return out

    # -- menus filled on opening -----------------------------------------------------------------
    def _load_builtins(self) -> tuple[list[Preset], list[str]]:
        try:
            return builtin_presets(), []
        except PresetError as exc:  # a broken built-in is a bug; keep the app usable and say so
            return [], [str(exc)]

    def _fill_presets_menu(self) -> None:
        m = self.presets_menu
        m.clear()
        m.addSection("Lecture scenes")
        for n, preset in enumerate(self._builtin, start=1):
            act = m.addAction(f"&{n}  {preset.title}")
            act.setToolTip(preset.description)
            act.setStatusTip(preset.description[:200])
            act.triggered.connect(lambda _=False, p=preset: self.apply_preset(p))
        for err in self._builtin_errors:
            m.addAction(f"⚠ {err}").setEnabled(False)
        m.addSection("My presets")
        mine, broken = user_presets()
        for preset in mine:
            act = m.addAction(preset.title)
            act.setToolTip(preset.description or str(preset.path))
            act.triggered.connect(lambda _=False, p=preset: self.apply_preset(p))
        for err in broken:
            m.addAction(f"⚠ {err}").setEnabled(False)
        if not mine and not broken:
            m.addAction("(none yet — Save preset… keeps the current set-up)").setEnabled(False)
        m.addSeparator()
        for act in (
            self.act_save_preset,
            self.act_save_preset_file,
            self.act_open_preset,
            self.act_open_presets_folder,
        ):
            m.addAction(act)
        m.addSeparator()
        m.addAction(self.act_reset_all)

    def _fill_export_menu(self) -> None:
        m = self.export_menu
        m.clear()
        panel = self.current_panel()
        pid = self.current_panel_id()
        title = self.titles.get(pid, pid)
        m.addAction(self.act_export_panel)
        m.addAction(self.act_copy_panel)
        m.addAction(self.act_export_window)
        m.addSeparator()
        pm = m.addMenu(f"Panel “{title}”")
        for s in ex.SCALES:
            pm.addAction(f"PNG, {s}×…").triggered.connect(
                lambda _=False, s=s: self.export_current_panel(scale=s)
            )
        pm.addAction("PNG, width in pixels…").triggered.connect(
            lambda: self.export_current_panel(ask_width=True)
        )
        pm.addAction("SVG…").triggered.connect(lambda: self.export_current_panel(ext=".svg"))
        pm.addAction("Copy image").triggered.connect(self.copy_current_panel)
        plots = panel.plots()
        plots_menu = m.addMenu(f"Plots of “{title}”")
        plots_menu.setEnabled(bool(plots))
        for view in plots:
            sub = self.exporter.plot_menu(panel, view, plots_menu)
            sub.setTitle(ex.plot_title(view) or ex.plot_name(panel, view))
            plots_menu.addMenu(sub)
        wm = m.addMenu("Whole window")
        for s in ex.SCALES:
            wm.addAction(f"PNG, {s}×…").triggered.connect(lambda _=False, s=s: self.export_window(scale=s))
        wm.addAction("SVG…").triggered.connect(lambda: self.export_window(ext=".svg"))
        wm.addAction("Copy image").triggered.connect(lambda: self.exporter.copy_widget(self, "window"))
        m.addSeparator()
        m.addAction(self.act_sweep)
        m.addAction(self.act_sweep_mp4)
        m.addSeparator()
        m.addAction(self.exporter.print_action)

    # -- the look --------------------------------------------------------------------------------
    @property
    def theme(self) -> Theme:
        return self._theme

    @property
    def presenter(self) -> bool:
        return self._presenter

    @property
    def zoom(self) -> float:
        return self._zoom

    @property
    def _ui_pt(self) -> float:
        pt = self._base_font.pointSizeF()
        return pt if pt > 0 else 10.0

    def look(self) -> ex.Look:
        return ex.Look(self._theme, self._zoom, self._ui_pt)

    def apply_look(self) -> None:
        """Apply the theme, presenter mode and zoom to the window, every panel and every plot."""
        theme = screen_theme(self._base_theme, presenter=self._presenter, safe_maps=self._safe_maps)
        self._theme = theme
        style_widgets(self, theme, ui_pt=self._ui_pt, zoom=self._zoom)
        for menu in self.findChildren(QMenu):  # pop-up menus are windows: fonts do not reach them
            menu.setFont(self.font())
        for panel in self.panels.values():
            style_panel(panel, theme, zoom=self._zoom)
        self._sync_look_actions()
        self.themeChanged.emit(theme)

    def _sync_look_actions(self) -> None:
        for act, on in (
            (self.act_presenter, self._presenter),
            (self.act_dark, self._base_theme == "dark"),
            (self.act_safe_maps, self._safe_maps),
        ):
            was = act.blockSignals(True)
            act.setChecked(on)
            act.blockSignals(was)
        for name, act in self.theme_actions.items():
            act.setChecked(name == self._base_theme)

    def set_presenter(self, on: bool) -> None:
        on = bool(on)
        if on == self._presenter:
            self._sync_look_actions()
            return
        self._presenter = on
        self.apply_look()
        self._status("Presenter mode on — F5 to leave, F11 for full screen" if on else "Presenter mode off")

    def toggle_presenter(self) -> None:
        self.set_presenter(not self._presenter)

    def set_base_theme(self, name: str) -> None:
        if name not in BASE_THEMES:
            raise ValueError(f"unknown theme {name!r}; valid: {', '.join(BASE_THEMES)}")
        self._base_theme = name
        self.apply_look()

    def set_safe_maps(self, on: bool) -> None:
        self._safe_maps = bool(on)
        self.apply_look()

    def set_zoom(self, zoom: float) -> None:
        self._zoom = min(max(float(zoom), ZOOM_STEPS[0]), ZOOM_STEPS[-1])
        self.apply_look()
        self._status(f"Text size {self._zoom:.0%}")

    def zoom_in(self) -> None:
        bigger = [z for z in ZOOM_STEPS if z > self._zoom + 1e-9]
        self.set_zoom(bigger[0] if bigger else ZOOM_STEPS[-1])

    def zoom_out(self) -> None:
        smaller = [z for z in ZOOM_STEPS if z < self._zoom - 1e-9]
        self.set_zoom(smaller[-1] if smaller else ZOOM_STEPS[0])

    def zoom_reset(self) -> None:
        self.set_zoom(1.0)

    def set_full_screen(self, on: bool) -> None:
        if on:
            self.showFullScreen()
        else:
            self.showNormal()
        self.act_leave_fullscreen.setEnabled(bool(on))
        was = self.act_fullscreen.blockSignals(True)
        self.act_fullscreen.setChecked(bool(on))
        self.act_fullscreen.blockSignals(was)

    def _on_panel_drawn(self, panel: Panel) -> None:
        # New curves or plots a panel created while drawing get the current look and menus.
        style_new_items(panel, self._theme, zoom=self._zoom)
        self.exporter.install(panel)

    def _ensure_keyboard_sliders(self) -> None:
        """Every slider can be reached with Tab and stepped with the arrow keys.

        A labelled slider (superqt) is a slider wrapping an inner one that does the stepping; the
        wrapper itself takes Tab focus but ignores the arrow keys, so hand its focus to the inner
        slider and take it out of the Tab chain (otherwise Tab stops twice, once uselessly).
        """
        for panel in self.panels.values():
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

    # -- state, presets, sessions ----------------------------------------------------------------
    def app_state(self) -> AppState:
        """All panels' parameters now."""
        return AppState().replace(**{pid: p.state for pid, p in self.panels.items() if pid in PANEL_STATES})

    def set_app_state(self, state: AppState, text: str = "Load parameters") -> bool:
        """Apply ``state`` to every panel as one undoable step (all panels, or — on error — none)."""
        states = {pid: state.get(pid) for pid in self.panels if pid in PANEL_STATES}
        return self.undo.set_states(states, text)

    def apply_preset(self, preset: Preset) -> bool:
        try:
            self.set_app_state(preset.state, f"Load “{preset.title}”")
        except Exception as exc:  # noqa: BLE001 - the panels are back where they were; say what happened
            self.show_error("Preset not loaded", f"{preset.title}: {exc}\n\nNothing was changed.")
            return False
        self._set_scene(preset)
        if preset.panel in self.docks:
            self.show_panel(preset.panel)
        self._status(f"Loaded “{preset.title}”")
        return True

    def load_preset_file(self, path: str | Path) -> bool:
        """Load a preset file: everything or (with a clear message) nothing."""
        try:
            preset = load_preset(path)
        except PresetError as exc:
            self.show_error("Preset not loaded", f"{exc}\n\nNothing was changed.")
            return False
        return self.apply_preset(preset)

    def _set_scene(self, preset: Preset | None) -> None:
        self._scene = preset
        if preset is None or not (preset.description or preset.builtin):
            self.scene_bar.hide()
            self.setWindowTitle(DEFAULT_TITLE if preset is None else f"PE Explorer — {preset.title}")
            return
        self.scene_title.setText(preset.title)
        self.scene_text.setText(preset.description)
        self.scene_bar.show()
        self.setWindowTitle(f"PE Explorer — {preset.title}")

    def reset_current_panel(self) -> None:
        pid = self.current_panel_id()
        panel = self.panels[pid]
        if self.undo.set_states({pid: panel.state_cls()}, f"Reset {self.titles.get(pid, pid)}"):
            self._status(f"{self.titles.get(pid, pid)}: back to the defaults (Ctrl+Z to undo)")

    def reset_all_panels(self) -> None:
        if self.set_app_state(AppState(), "Reset all panels"):
            self._status("All panels back to the defaults (Ctrl+Z to undo)")

    def session_path(self) -> Path:
        return config_dir() / SESSION_FILE

    def save_session(self) -> None:
        scene = self._scene
        save_preset(
            self.session_path(),
            self.app_state(),
            title=scene.title if scene else "",
            description=scene.description if scene else "",
            panel=self.current_panel_id(),
        )

    def restore_session(self) -> bool:
        """Load the parameters saved when the app last closed (not an undo step)."""
        path = self.session_path()
        if not path.is_file():
            return False
        try:
            preset = load_preset(path)
        except PresetError as exc:
            self._status(f"Last session not restored: {exc}", 15000)
            return False
        try:
            self.undo.set_states(
                {pid: preset.state.get(pid) for pid in self.panels if pid in PANEL_STATES}, "Restore session"
            )
        except Exception as exc:  # noqa: BLE001 - start with defaults rather than not at all
            self._status(f"Last session not restored: {exc}", 15000)
            return False
        self.undo.clear()
        if preset.title:
            self._scene = Preset(
                preset.title, preset.title, preset.description, preset.state, preset.panel, False
            )
            self.scene_title.setText(preset.title)
            self.scene_text.setText(preset.description)
            self.setWindowTitle(f"PE Explorer — {preset.title}")
        if preset.panel in self.docks:
            self.show_panel(preset.panel)
        return True

    # -- dialogs (small methods so tests can replace them) ---------------------------------------
    def show_error(self, title: str, message: str) -> None:
        QMessageBox.warning(self, title, message)

    def ask_open_path(self) -> str | None:
        folder = user_dir() if user_dir().is_dir() else Path.home()
        path, _ = QFileDialog.getOpenFileName(self, "Open preset", str(folder), "PE Explorer preset (*.json)")
        return path or None

    def ask_save_path(self, default_name: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save preset to file", str(Path.home() / default_name), "PE Explorer preset (*.json)"
        )
        if path and not Path(path).suffix:
            path += ".json"
        return path or None

    def ask_preset_details(self) -> tuple[str, str] | None:
        dlg = QDialog(self)
        dlg.setWindowTitle("Save preset")
        form = QFormLayout(dlg)
        title = QLineEdit(self._scene.title if self._scene and not self._scene.builtin else "")
        title.setPlaceholderText("e.g. Week 3 — RoPE at 32k")
        desc = QPlainTextEdit()
        desc.setPlaceholderText("What this set-up shows (optional; shown when it is loaded)")
        desc.setFixedHeight(90)
        form.addRow("Name", title)
        form.addRow("Notes", desc)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(dlg.accept)
        buttons.rejected.connect(dlg.reject)
        form.addRow(buttons)
        if dlg.exec() != QDialog.DialogCode.Accepted or not title.text().strip():
            return None
        return title.text().strip(), desc.toPlainText().strip()

    # -- preset commands -------------------------------------------------------------------------
    def open_preset_file(self) -> bool:
        path = self.ask_open_path()
        return self.load_preset_file(path) if path else False

    def save_preset_dialog(self) -> bool:
        details = self.ask_preset_details()
        if details is None:
            return False
        title, description = details
        try:
            path = save_user_preset(
                title, self.app_state(), description=description, panel=self.current_panel_id()
            )
        except PresetError as exc:
            self.show_error("Preset not saved", str(exc))
            return False
        self._status(f"Saved preset “{title}” ({path})")
        return True

    def save_preset_file(self) -> bool:
        path = self.ask_save_path("pe-explorer-preset.json")
        if not path:
            return False
        try:
            save_preset(
                path, self.app_state(), title=Path(path).stem.replace("_", " "), panel=self.current_panel_id()
            )
        except PresetError as exc:
            self.show_error("Preset not saved", str(exc))
            return False
        self._status(f"Saved {path}")
        return True

    def open_presets_folder(self) -> None:
        folder = user_dir()
        folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    # -- export commands -------------------------------------------------------------------------
    def export_current_panel(self, *, scale: float = 2, ext: str = ".png", ask_width: bool = False) -> bool:
        panel = self.current_panel()
        width = None
        if ask_width:
            width = self.exporter.ask_width(panel.width() * 2)
            if width is None:
                return False
            scale = 1
        base = panel.export_basename() + (f"_w{width}" if width else "")
        return self.exporter.save_widget(
            panel, base, scale=scale, width=width, ext=ext, title=self.titles.get(self.current_panel_id(), "")
        )

    def export_window(self, *, scale: float = 2, ext: str = ".png") -> bool:
        return self.exporter.save_widget(
            self, "pe-explorer-window", scale=scale, ext=ext, title="PE Explorer"
        )

    def copy_current_panel(self) -> bool:
        return self.exporter.copy_widget(self.current_panel())

    def record_sweep(self, ext: str = ".gif") -> bool:
        return self.exporter.sweep_dialog(self.current_panel(), ext=ext)

    # -- help ------------------------------------------------------------------------------------
    def shortcut_rows(self) -> list[tuple[str, str, str]]:
        """(group, what, keys) for every shortcut: the window's actions and the keys inside panels."""
        groups = {}
        for menu, name in (
            (self.file_menu, "File"),
            (self.edit_menu, "Edit"),
            (self.view_menu, "View"),
            (self.presets_menu, "Presets"),
            (self.export_menu, "Export"),
            (self.help_menu, "Help"),
        ):
            for act in menu.actions():
                groups.setdefault(id(act), name)
        rows = []
        for act in self.all_shortcut_actions():
            keys = " or ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in act.shortcuts())
            text = act.text().replace("&", "").rstrip("…").strip()
            if act is self.act_undo:
                text = "Undo the last parameter change"
            elif act is self.act_redo:
                text = "Redo"
            elif act.parent() in self.docks.values():
                text = f"Show / hide the {text} panel"
            rows.append((groups.get(id(act), "Window"), text, keys))
        order = ["File", "Edit", "View", "Presets", "Export", "Help", "Window"]
        rows.sort(key=lambda r: (order.index(r[0]) if r[0] in order else len(order), r[1]))
        return rows + list(PANEL_KEYS)

    def show_shortcuts(self) -> QDialog:
        dlg = QDialog(self)
        dlg.setObjectName("shortcutsDialog")
        dlg.setWindowTitle("Keyboard shortcuts")
        lay = QVBoxLayout(dlg)
        rows = self.shortcut_rows()
        table = QTableWidget(len(rows), 3, dlg)
        table.setHorizontalHeaderLabels(["Where", "What", "Keys"])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                table.setItem(r, c, QTableWidgetItem(text))
        table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        table.resizeColumnsToContents()
        lay.addWidget(table)
        note = QLabel(
            "Every slider can be reached with Tab and moved with the arrow keys. "
            "Right-click any plot to export it."
        )
        note.setWordWrap(True)
        lay.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(dlg.reject)
        lay.addWidget(buttons)
        dlg.setFont(self.font())
        dlg.resize(720, 620)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.shortcuts_dialog = dlg
        table.setObjectName("shortcutsTable")
        dlg.show()
        return dlg

    def about_text(self) -> str:
        import pyqtgraph
        import PySide6

        return (
            f"<h3>PE Explorer {__version__}</h3>"
            "<p>See, live, how transformers learn word order: sinusoidal waves, the token-swap "
            "experiment, and every positional scheme side by side.</p>"
            f"<p>Qt for Python {PySide6.__version__}, pyqtgraph {pyqtgraph.__version__}.</p>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self, "About PE Explorer", self.about_text())

    # -- service ---------------------------------------------------------------------------------
    def _status(self, message: str, timeout_ms: int = 5000) -> None:
        self.statusBar().showMessage(message, timeout_ms)

    def _on_service_failed(self, failure: Failure) -> None:
        self.statusBar().showMessage(f"{failure.key}: {failure.message}", 10000)

    def _check_all_drawn(self, _key: str = "") -> None:
        if not self._all_drawn_emitted and all(p.has_drawn for p in self.panels.values()):
            self._all_drawn_emitted = True
            self.allPanelsDrawn.emit()

    @property
    def all_drawn(self) -> bool:
        return all(p.has_drawn for p in self.panels.values())

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        # Let the first paint happen, then start computing.
        QTimer.singleShot(0, self.service.resume)

    # -- shutdown --------------------------------------------------------------------------------
    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self._closed:
            self._closed = True
            try:
                QApplication.instance().focusChanged.disconnect(self._on_focus_changed)
            except (RuntimeError, TypeError):
                pass
            for what, save in (("window layout", self.save_layout), ("last session", self.save_session)):
                try:
                    save()
                except Exception as exc:  # noqa: BLE001 - never block closing on a settings problem
                    # The window is going away, so no dialog: say it where the app was started.
                    print(f"pe-explorer: {what} not saved: {exc}", file=sys.stderr)
            for p in self.panels.values():
                p.shutdown()
            self.service.stop()
        super().closeEvent(event)


# Kept for code that imported it from here.
QtTabPosition = QTabWidget.TabPosition
