"""The main window's actions, menus and toolbar, and the commands behind the Export menu.

:class:`ActionsMixin` is the part of :class:`explorer.main_window.MainWindow` that builds every
QAction (with its shortcut: they work with menus and toolbar hidden, as in presenter mode and full
screen), the menu bar, the lecture toolbar and the scene strip.  What the actions do lives in the
rooms they belong to: the look (:mod:`explorer.look`), the session (:mod:`explorer.session`), export
(:mod:`explorer.export`), help (:mod:`explorer.help`).
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QFrame, QHBoxLayout, QToolBar, QToolButton

from . import export as ex
from .theme import BASE_THEMES
from .widgets.notes import NotesLabel
from .widgets.plain import plain_label, plain_tip


def _seq(*keys: str | QKeySequence.StandardKey) -> list[QKeySequence]:
    return [QKeySequence(k) for k in keys]


class _UndoTip(QObject):
    """The tooltip of an Undo/Redo action: Qt would use its text, which names what a preset or a typed
    sentence holds, and read it as HTML; this sets it as text.  A child of the action: it goes with it."""

    def __init__(self, action: QAction, word: str) -> None:
        super().__init__(action)
        self.action, self.word = action, word
        action.setToolTip(word)

    def follow(self, text: str) -> None:
        if shiboken6.isValid(self.action):  # the stack may speak while the window is torn down
            self.action.setToolTip(plain_tip(f"{self.word} {text}".strip()))


class ActionsMixin:
    """Actions, menus, toolbar and scene strip of the main window."""

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
        self.act_open_checkpoint = a("actOpenCheckpoint", "Open &checkpoint…", self.open_checkpoint_dialog,
                                     tip="Show a real model's learned position table (.safetensors, .bin, .pt "
                                         "or a Hugging Face folder) in the Learned table panel")
        self.act_quit = a("actQuit", "&Quit", self.close, _seq("Ctrl+Q"))

        self.act_undo = self.undo.stack.createUndoAction(self, "&Undo")
        self.act_undo.setObjectName("actUndo")
        self.act_undo.setShortcuts(_seq("Ctrl+Z"))
        self.act_redo = self.undo.stack.createRedoAction(self, "&Redo")
        self.act_redo.setObjectName("actRedo")
        self.act_redo.setShortcuts(_seq("Ctrl+Shift+Z", "Ctrl+Y"))
        for act, changed, word in ((self.act_undo, self.undo.stack.undoTextChanged, "Undo"),
                                   (self.act_redo, self.undo.stack.redoTextChanged, "Redo")):
            self.addAction(act)
            changed.connect(_UndoTip(act, word).follow)
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
        self.act_guide = a(
            "actGuide", "&User guide", lambda: self.show_guide(),
            tip="The guide (docs/), offline, in a window of its own"
        )
        self.act_about = a("actAbout", "&About PE Explorer", self.show_about)
        self.act_welcome = a("actWelcome", "&Welcome and tour…", self.show_welcome,
                             tip="The lecture scenes to start from, and a one-minute tour of the window")

    def _build_menus(self) -> None:
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        for act in (self.act_open_preset, self.act_save_preset, self.act_save_preset_file):
            file_menu.addAction(act)
        file_menu.addSeparator()
        file_menu.addAction(self.act_open_checkpoint)
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
        # Filled when it opens: filling it now would build the current panel before the window is up.
        self.export_menu.aboutToShow.connect(self._fill_export_menu)

        help_menu = mb.addMenu("&Help")
        help_menu.addAction(self.act_welcome)
        help_menu.addAction(self.act_guide)
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
        self.scene_title = plain_label(parent=frame)  # a preset's or a lesson's title
        self.scene_title.setObjectName("sceneTitle")
        # One line unless there is room or it is clicked: the notes' whole text at 1280 × 720 in presenter
        # mode took four lines and pushed the window past the screen.
        self.scene_text = NotesLabel(frame)
        self.scene_text.setObjectName("sceneText")
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
        self.exporter.add_slide_actions(m, panel)
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
