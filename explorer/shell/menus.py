"""Build the window's actions, menus and toolbar from the records of :mod:`explorer.shell.actions`, and the
keyboard guide from the same records."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QMenuBar, QToolBar, QToolButton

from .actions import ACTIONS, MENUS, PANEL_KEYS, TOOLBAR, ActionSpec


def resolve(root: object, path: str) -> Callable:
    """``"look.set_presenter"`` -> ``root.look.set_presenter``."""
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"{path} is not callable")
    return obj


def _call(root: object, a: ActionSpec, *checked) -> None:
    resolve(root, a.handler)(*a.args, *checked)


def _call_when_checked(root: object, a: ActionSpec, checked: bool) -> None:
    if checked:
        _call(root, a)


def build_actions(window: QMainWindow, specs: tuple[ActionSpec, ...] = ACTIONS) -> dict[str, QAction]:
    """One QAction per record, added to ``window`` (its shortcuts then work with the menus hidden); id -> action.

    A record's ``make`` names a window method that makes the action (given the record); its keys and tip are set
    here as for the others.  The themes' actions form one exclusive group."""
    out: dict[str, QAction] = {}
    themes = QActionGroup(window)
    for a in specs:
        act = resolve(window, a.make)(a) if a.make else QAction(a.title, window)
        act.setObjectName(a.id)
        if a.keys:
            act.setShortcuts([QKeySequence(k) for k in a.keys])
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if a.tip:
            act.setToolTip(a.tip)
            act.setStatusTip(a.tip)
        if not a.make:
            act.setCheckable(a.checkable)
            signal = act.toggled if a.checkable else act.triggered
            if a.checkable and a.args:  # one of a group (a theme): chosen when checked, the others follow
                signal.connect(functools.partial(_call_when_checked, window, a))
            elif a.checkable:
                signal.connect(functools.partial(_call, window, a))
            else:
                signal.connect(lambda _checked=False, a=a: _call(window, a))
        if a.id.startswith("actTheme_"):
            themes.addAction(act)
        window.addAction(act)
        out[a.id] = act
    return out


def build_menus(bar: QMenuBar, actions: Mapping[str, QAction], places: Mapping[str, list[QAction]]) -> dict[str, QMenu]:
    """The menu bar of :data:`MENUS`; ``places`` fills its "@name" entries.  Title (without "&") -> menu."""
    menus: dict[str, QMenu] = {}
    for title, entries in MENUS:
        menu = bar.addMenu(title)
        menu.setToolTipsVisible(True)
        name = title.replace("&", "")
        menu.setObjectName(f"menu{name}")
        menus[name] = menu
        for entry in entries or ():
            if entry == "-":
                menu.addSeparator()
            elif entry.startswith("@"):
                for act in places.get(entry, ()):
                    menu.addAction(act)
            else:
                menu.addAction(actions[entry])
    return menus


def build_toolbar(window: QMainWindow, actions: Mapping[str, QAction], menus: Mapping[str, QMenu],
                  undo_stack) -> QToolBar:
    """The lecture toolbar of :data:`TOOLBAR` (text only, movable)."""
    tb = QToolBar("Lecture toolbar", window)
    tb.setObjectName("lectureToolBar")
    tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    tb.setMovable(True)
    for entry in TOOLBAR:
        if entry == "-":
            tb.addSeparator()
        elif entry in ("@undo", "@redo"):
            # Short labels here (the menu's actions say what they would undo).
            text = entry[1:].title()
            can, changed, slot = ((undo_stack.canUndo, undo_stack.canUndoChanged, undo_stack.undo) if text == "Undo"
                                  else (undo_stack.canRedo, undo_stack.canRedoChanged, undo_stack.redo))
            act = tb.addAction(text)
            act.setObjectName(f"toolbar{text}")
            act.triggered.connect(slot)
            act.setEnabled(can())
            changed.connect(act.setEnabled)
            act.setToolTip(f"{text} ({actions['act' + text].shortcut().toString()})")
        elif entry in ("@presets", "@export"):
            name = entry[1:].title()
            button = QToolButton(tb)
            button.setObjectName(f"{entry[1:]}Button")
            button.setText(name)
            button.setMenu(menus[name])
            button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            tb.addWidget(button)
        else:
            tb.addAction(actions[entry])
            # "actLesson" -> "lessonButton": a name the tour and the tests find the button by.
            tb.widgetForAction(actions[entry]).setObjectName(entry[3].lower() + entry[4:] + "Button")
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)
    return tb


def _menu_of() -> dict[str, str]:
    out: dict[str, str] = {}
    for title, entries in MENUS:
        for entry in entries or ():
            out.setdefault(entry, title.replace("&", ""))
    return out


def keyboard_rows(specs: tuple[ActionSpec, ...] = ACTIONS) -> list[tuple[str, str, str]]:
    """(where, keys, what) for every key of the app, in the records' order: the window's actions (where: their
    menu, or "Window"), then the keys inside panels.  Keys as typed ("Ctrl+Shift+Z or Ctrl+Y")."""
    where = _menu_of()
    rows = [(where.get(a.id, "Window"), " or ".join(a.keys), a.what) for a in specs if a.keys]
    return rows + [("Panels", keys, what) for keys, what in PANEL_KEYS]


def keyboard_markdown(specs: tuple[ActionSpec, ...] = ACTIONS) -> str:
    """The table of docs/keyboard.md, made from the records."""
    lines = ["| keys | what |", "|---|---|"]
    for _where, keys, what in keyboard_rows(specs):
        lines.append(f"| {_keys_markdown(keys)} | {what} |")
    return "\n".join(lines) + "\n"


def _keys_markdown(keys: str) -> str:
    """"Ctrl+= or Ctrl++" -> "`Ctrl+=` or `Ctrl++`"; "Tab / Shift+Tab" and "Left Right" keep their joins."""
    shown = []
    for alt in keys.split(" or "):
        parts = alt.split(" / ") if " / " in alt else alt.split()
        shown.append((" / " if " / " in alt else " ").join(f"`{k}`" for k in parts))
    return " or ".join(shown)
