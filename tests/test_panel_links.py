"""One channel between panels (issue 26 §5): the table the Learned-table panel shows, the Lab's trained weights
and "View learned table" all cross one :class:`PanelLinks` the window hands every panel; no panel reaches the
window or a process-wide registry to talk to another."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject

from explorer.lab import SchemeResult
from explorer.panels.links import PanelLinks

PANELS_DIR = Path(__file__).resolve().parent.parent / "explorer" / "panels"


def _run(*schemes):
    return type("Run", (), {"schemes": schemes})()


def test_the_table_shown_is_announced_once_per_change(qtbot):
    links = PanelLinks()
    seen = []
    links.tableShownChanged.connect(seen.append)
    links.set_table_shown("a")
    links.set_table_shown("a")
    links.set_table_shown(None)
    assert seen == ["a", None] and links.table_shown() is None


def test_only_finished_runs_with_weights_are_kept_and_announced(qtbot):
    links = PanelLinks()
    told = []
    links.weightsChanged.connect(lambda: told.append(1))
    links.remember_weights(_run(SchemeResult("fire", "cancelled", 1, (1.0,), 0.1, weights=(1.0,)),
                                SchemeResult("rope", "done", 1, (1.0,), 0.1)))
    assert links.trained_weights() == {} and not told
    links.remember_weights(_run(SchemeResult("fire", "done", 1, (1.0,), 0.1, weights=(2.0,))))
    assert links.trained_weights() == {"fire": (2.0,)} and told == [1]
    links.trained_weights()["fire"] = (9.0,)  # a copy: nobody changes the channel's weights by hand
    assert links.trained_weights() == {"fire": (2.0,)}


def test_a_table_is_shown_only_where_someone_answers(qtbot):
    links = PanelLinks()
    table = np.zeros((4, 2))
    assert not links.show_table(table, "alone")  # a panel on its own: the button says nothing happened
    got = []
    links.tableWanted.connect(lambda t, label: got.append((t, label)))
    assert links.show_table(table, "Lab")
    assert got and got[0][0] is table and got[0][1] == "Lab"


def test_every_panel_of_a_window_shares_the_windows_one_channel(main_window):
    links = main_window.panel_docks.links
    assert isinstance(links, QObject)
    panels = list(main_window.panels.values())
    assert len(panels) == 5 and all(p.links is links for p in panels)


def test_a_lab_table_reaches_the_learned_table_panel_through_the_channel(qtbot, main_window):
    win = main_window
    table = np.linspace(-1, 1, 8 * 4).reshape(8, 4)
    assert win.panels["lab"].links.show_table(table, "Lab: learned table, trained")
    qtbot.waitUntil(lambda: win.panels["table"].has_drawn and win.service.idle(), timeout=30000)
    assert win.current_panel_id() == "table"
    shown = win.panel_docks.links.table_shown()
    assert shown is not None and shown.label == "Lab: learned table, trained"
    # Token swap's "Real learned rows" heard it over the same channel.
    assert win.panels["swap"].table_check.isEnabled()


def test_no_panel_talks_to_another_past_the_channel():
    """No panel module reaches the window's docks or a process-wide publish/subscribe."""
    bad = []
    for path in PANELS_DIR.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for pattern in (r"\bpanel_docks\b", r"\.window\(\)\.panels\b", r"from \.+lab import .*\btrained\b"):
            if re.search(pattern, text):
                bad.append(f"{path.relative_to(PANELS_DIR)}: {pattern}")
    assert not bad, bad
    assert not (PANELS_DIR.parent / "lab" / "trained.py").exists()
