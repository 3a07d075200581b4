"""The window's actions are data (issue 26): every record's handler exists on a real window, the menus and the
toolbar hold exactly the records they name, and the keyboard guide — in the app and in docs/keyboard.md — is made
from the same records."""

from __future__ import annotations

from pathlib import Path

from explorer.shell.actions import ACTIONS, MENUS, TOOLBAR
from explorer.shell.menus import keyboard_markdown, keyboard_rows, resolve

DOC = Path(__file__).resolve().parents[1] / "docs" / "keyboard.md"


def test_every_record_is_an_action_of_the_window_with_its_keys_and_handler(qtbot, main_window):
    win = main_window
    assert set(win.acts) == {a.id for a in ACTIONS}
    assert isinstance(win.actions(), list)  # Qt's own QWidget.actions(), not shadowed by the window's records
    for a in ACTIONS:
        act = win.acts[a.id]
        assert act.objectName() == a.id and act in win.acts.values()
        assert [k.toString() for k in act.shortcuts()] == list(a.keys), a.id
        assert act in win.findChildren(type(act)) or act.parent() is not None
        if a.handler:
            assert callable(resolve(win, a.handler)), a.handler
        assert act.isCheckable() == a.checkable or bool(a.make), a.id
    qtbot.waitUntil(win.service.idle, timeout=60000)  # no job running when the window closes


def test_menus_and_toolbar_are_the_records_placed():
    ids = {a.id for a in ACTIONS}
    for _title, entries in MENUS:
        for entry in entries or ():
            assert entry in ids or entry == "-" or entry.startswith("@"), entry
    assert all(e in ids or e == "-" or e.startswith("@") for e in TOOLBAR)


def test_the_menus_hold_what_the_records_place(qtbot, main_window):
    win = main_window
    for title, entries in MENUS:
        menu = win.menus[title.replace("&", "")]
        held = [a.objectName() for a in menu.actions() if not a.isSeparator()]
        for entry in entries or ():
            if entry.startswith("act"):
                assert entry in held, (title, entry)
    qtbot.waitUntil(win.service.idle, timeout=60000)


def test_the_keyboard_guide_is_made_from_the_records(qtbot, main_window):
    """docs/keyboard.md's table and Help → Keyboard shortcuts both come from the records; a key added to a record
    without the guide (or the other way round) fails here."""
    assert keyboard_markdown() in DOC.read_text(encoding="utf-8")
    dialog_rows = main_window.help.shortcut_rows()
    assert [(w, k) for w, _what, k in dialog_rows] == [(w, k) for w, k, _what in keyboard_rows()]
    keys = {a.id: a.keys for a in ACTIONS if a.keys}
    assert len(keys) >= 25 and all(k for k in keys.values())
    # Every key of an action is in the guide, once.
    guide = [k for _w, keys_, _what in keyboard_rows() for k in keys_.split(" or ")]
    assert sorted(guide[: sum(len(v) for v in keys.values())]) == sorted(k for v in keys.values() for k in v)
    qtbot.waitUntil(main_window.service.idle, timeout=60000)


def test_every_theme_action_sets_its_theme_and_only_it_is_checked(qtbot, main_window):
    """A theme record is one of a group with an argument: choosing it sets that theme (the toggled signal of the
    one it replaces must not call the handler with a stray argument)."""
    from explorer.theme import BASE_THEMES

    for name in list(BASE_THEMES)[::-1] + list(BASE_THEMES):
        main_window.acts[f"actTheme_{name}"].trigger()
        assert main_window.look.base_theme == name
        assert [n for n in BASE_THEMES if main_window.acts[f"actTheme_{n}"].isChecked()] == [name]
