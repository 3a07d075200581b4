"""Every action of the main window as data: id, title, keys, tip, what it calls, and where it sits.

:data:`ACTIONS` are the records, :data:`MENUS` and :data:`TOOLBAR` where they appear;
:mod:`explorer.shell.menus` builds them into QActions, menus and the toolbar, and the keyboard guide — Help →
Keyboard shortcuts in the app and the table of docs/keyboard.md — is made from the same records
(:func:`explorer.shell.menus.keyboard_rows`).  Actions carry their shortcuts on the window itself, so every key
works with the menu bar and toolbar hidden (presenter mode, full screen).

A record's ``handler`` names what it calls on the window: ``"look.set_presenter"`` is the ``set_presenter``
method of the window's ``look`` part, called with ``args`` (and, for a checkable action, the new checked state).
"""

from __future__ import annotations

import dataclasses

from ..panels import PANELS
from ..theme import BASE_THEMES


@dataclasses.dataclass(frozen=True)
class ActionSpec:
    """One action of the window (see the module's docstring)."""

    id: str
    title: str
    handler: str
    keys: tuple[str, ...] = ()
    tip: str = ""
    checkable: bool = False
    args: tuple = ()
    #: What the keyboard guide says it does (default: the title, without "&" and "…").
    guide: str = ""
    #: A method of the window that makes the QAction itself (Qt's undo/redo actions, a dock's toggle).
    make: str = ""

    @property
    def what(self) -> str:
        return self.guide or self.title.replace("&", "").rstrip("…").strip()


A = ActionSpec

#: The records, in the order the keyboard guide lists them.
ACTIONS: tuple[ActionSpec, ...] = (
    A("actPresenter", "&Presenter mode", "look.set_presenter", ("F5",), checkable=True,
      tip="Larger text, thicker lines, high-contrast colours for the back of a hall", guide="Presenter mode on/off"),
    A("actBars", "&Menus and toolbar", "chrome.toggle_bars", ("F10",),
      tip="Presenter mode hides the menu bar and toolbar: show them, or hide them again",
      guide="Show / hide the menu bar and toolbar in presenter mode (it hides them)"),
    A("actFullScreen", "&Full screen", "look.set_full_screen", ("F11",), checkable=True, guide="Full screen on/off"),
    A("actSidebar", "Show &controls", "set_sidebar_visible", ("Ctrl+B",), checkable=True,
      tip="Show or hide every panel's control sidebar (give the plots the screen); in presenter mode, open or close "
          "the controls drawer over the plots",
      guide="Show / hide the control sidebars (presenter mode: open / close the controls drawer)"),
    A("actExplain", "&What am I looking at?", "set_explain_visible", ("Ctrl+I",), checkable=True,
      tip="Show or hide the explanations beside the plots (hidden in presenter mode)",
      guide='Show / hide "What am I looking at?" (the explanations beside the plots)'),
    A("actFocusPlot", "&Focus the plot", "focus.focus_under_pointer", ("F",),
      tip="The plot under the pointer (else the largest) on the whole panel; double-clicking a plot does the same",
      guide="Put the plot under the pointer on the whole panel (double-click a plot does it too)"),
    A("actBack", "&Back", "back", ("Esc",), tip="Back to the whole panel from a plot in focus, else out of full "
      "screen", guide="Back: from the plot in focus to the whole panel, else out of full screen"),
    A("actZoomIn", "Zoom &in (larger text)", "look.zoom_in", ("Ctrl+=", "Ctrl++"), guide="Larger text (zoom in)"),
    A("actZoomOut", "Zoom &out (smaller text)", "look.zoom_out", ("Ctrl+-",), guide="Smaller text (zoom out)"),
    A("actZoomReset", "&Normal text size", "look.zoom_reset", ("Ctrl+0",)),
    A("actUndo", "&Undo", "undo.stack.undo", ("Ctrl+Z",), make="make_undo_action",
      guide="Undo the last parameter change (from a value box too, see below)"),
    A("actRedo", "&Redo", "undo.stack.redo", ("Ctrl+Shift+Z", "Ctrl+Y"), make="make_redo_action", guide="Redo"),
    A("actResetPanel", "Reset &panel", "session.reset_current_panel", ("Ctrl+R",),
      tip="Put the current panel's parameters back to their defaults (undoable)",
      guide="Reset the current panel to its defaults"),
    A("actResetAll", "Reset &all panels", "session.reset_all_panels",
      tip="Put every panel's parameters back to their defaults (undoable)"),
    A("actOpenPreset", "&Open preset file…", "session.open_preset_file", ("Ctrl+O",),
      tip="Load all panels' parameters from a preset file", guide="Open a preset file"),
    A("actSavePreset", "&Save preset…", "session.save_preset_dialog", ("Ctrl+S",),
      tip="Save all panels' parameters as one of your presets", guide="Save the current set-up as one of my presets"),
    A("actSavePresetFile", "Save preset to &file…", "session.save_preset_file", ("Ctrl+Shift+S",),
      tip="Save all panels' parameters to a file of your choice", guide="Save the current set-up to a preset file"),
    A("actOpenPresetsFolder", "Open my presets &folder", "session.open_presets_folder"),
    A("actNextScene", "&Next lecture scene", "session.next_scene", ("PgDown",),
      tip="The next built-in lecture scene (what a presentation clicker sends)",
      guide="Next lecture scene (what a presentation clicker sends; a focused slider or box steps by a page)"),
    A("actPreviousScene", "P&revious lecture scene", "session.previous_scene", ("PgUp",),
      tip="The lecture scene before this one", guide="Previous lecture scene"),
    A("actExportPanel", "Export &panel as PNG (2×)…", "exports.export_panel", ("Ctrl+E",),
      tip="Save the panel on screen as one image", guide="Export the panel on screen as PNG (2×)"),
    A("actExportWindow", "Export &window as PNG (2×)…", "exports.export_window", ("Ctrl+Shift+E",),
      tip="Save the whole window as one image", guide="Export the whole window as PNG (2×)"),
    A("actCopyPanel", "&Copy panel image", "exports.copy_panel", ("Ctrl+Shift+C",),
      tip="Copy the panel on screen as an image, to paste into slides", guide="Copy the panel on screen as an image"),
    A("actSweep", "Record sweep &animation (GIF)…", "exports.record_sweep", ("Ctrl+Shift+G",), args=(".gif",),
      tip="Step one parameter through a range and save the frames as an animated GIF",
      guide="Record a sweep animation (GIF)"),
    A("actSweepMp4", "Record sweep animation (MP4)…", "exports.record_sweep", args=(".mp4",),
      tip="Step one parameter through a range and save an MP4 video"),
    *(A(f"actPanel_{pid}", f"&{title}", "show_panel", (f"Ctrl+{n}",), args=(pid,),
        tip=f"Bring the {title} panel to the front", guide=f"Bring the {title} panel to the front")
      for n, (pid, title, _spec) in enumerate(PANELS, start=1)),
    A("actResetLayout", "&Reset layout", "reset_layout", tip="All panels back as tabs of one area, the defaults"),
    A("actLesson", "&Lesson", "", ("Ctrl+L",), make="make_lesson_action",
      tip="Guided lessons: predict, then see every claim checked live",
      guide="Show / hide the Lesson pane ([Guided lessons](lessons.md))"),
    A("actOpenLesson", "Open &lesson…", "lessons.open_file",
      tip="Open a lesson file (docs/lessons.md describes the format)"),
    A("actLessonNext", "Next lesson step", "lessons.next", ("Alt+Right",),
      guide="Next lesson step (`Right` too, while the Lesson pane has the keyboard)"),
    A("actLessonBack", "Previous lesson step", "lessons.back", ("Alt+Left",),
      guide="Previous lesson step (`Left` too, while the Lesson pane has the keyboard)"),
    *(A(f"actTheme_{name}", f"{theme.label} theme", "look.set_base_theme", checkable=True, args=(name,))
      for name, theme in BASE_THEMES.items()),
    A("actDark", "Dark", "look.set_dark", checkable=True, tip="Switch between the light and the dark theme"),
    A("actSafeMaps", "&Grey-scale-safe colour maps", "look.set_safe_maps", checkable=True,
      tip="Colour maps whose lightness runs one way (CET-D7, cividis): readable in grey-scale print and for "
          "colour-blind viewers"),
    A("actOpenCheckpoint", "Open &checkpoint…", "panel_docks.open_checkpoint_dialog",
      tip="Show a real model's learned position table (.safetensors, .bin, .pt or a Hugging Face folder) in the "
          "Learned table panel"),
    A("actWelcome", "&Welcome and tour…", "welcome.show",
      tip="The lecture scenes to start from, and a one-minute tour of the window"),
    A("actGuide", "&User guide", "help.show_guide", tip="The guide (docs/), offline, in a window of its own"),
    A("actShortcuts", "&Keyboard shortcuts", "help.show_shortcuts", ("F1",)),
    A("actAbout", "&About PE Explorer", "help.show_about"),
    A("actQuit", "&Quit", "close", ("Ctrl+Q",)),
)

#: "-" is a separator; "@name" a place the window fills (the panels' and themes' actions are records too, "@…"
#: entries are what is not an action record: toolbar toggles, buttons).  A menu of None is filled when it opens.
MENUS: tuple[tuple[str, tuple[str, ...] | None], ...] = (
    ("&File", ("actOpenPreset", "actOpenLesson", "actSavePreset", "actSavePresetFile", "-", "actOpenCheckpoint",
               "-", "actExportPanel", "actExportWindow", "-", "actQuit")),
    ("&Edit", ("actUndo", "actRedo", "-", "actResetPanel", "actResetAll", "-", "actCopyPanel")),
    ("&View", (*(f"actPanel_{pid}" for pid, _, _ in PANELS), "actLesson", "-", "actResetLayout", "-",
               *(f"actTheme_{name}" for name in BASE_THEMES), "actSafeMaps", "-", "actPresenter", "actBars",
               "actFullScreen", "actZoomIn", "actZoomOut", "actZoomReset", "-", "actFocusPlot", "actBack", "-",
               "@toolbars", "actSidebar", "actExplain")),
    ("&Presets", None),
    ("E&xport", None),
    ("&Help", ("actWelcome", "actGuide", "actShortcuts", "actAbout")),
)

#: The lecture toolbar: "@undo"/"@redo" are short-labelled copies of Undo and Redo, "@presets"/"@export" buttons
#: that open those menus.
TOOLBAR: tuple[str, ...] = ("actPresenter", "actFullScreen", "actDark", "-", "@undo", "@redo", "actResetPanel", "-",
                            "@presets", "@export", "actLesson", "actCopyPanel")

#: Keys that work inside the panels (not actions of the window), for the keyboard guide.
PANEL_KEYS: tuple[tuple[str, str], ...] = (
    ("Tab / Shift+Tab", "Next / previous control"),
    ("Left Right Up Down", "Step the focused slider or spin box"),
    ("PgUp / PgDown", "Step the focused slider by a page"),
    ("Home / End", "Focused slider to its minimum / maximum"),
)


def spec(action_id: str) -> ActionSpec:
    """The record of ``action_id`` (KeyError if there is none)."""
    for a in ACTIONS:
        if a.id == action_id:
            return a
    raise KeyError(action_id)
