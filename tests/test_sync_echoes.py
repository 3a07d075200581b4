"""Showing a state in a panel's controls sends nothing back: a panel that blocks only the controls it lists
(``_controls``, see explorer.panels.base) must list every one its sync sets.  Each panel walks through every value
kind of every field of its state, shown without requests, and no control may answer with a change."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QCoreApplication

from explorer import schemes as registry
from explorer.state import StateError
from explorer.state.base import fields


def _values(field, current):
    """A few values of ``field`` other than ``current``: each choice, the limits and a middle, the other bool."""
    m = field.metadata
    if m.get("kind") in ("ids", "params"):
        return []
    choices = m.get("choices")
    if choices:
        return list(choices() if callable(choices) else choices)
    if isinstance(current, bool):
        return [not current, current]
    lo, hi = m.get("lo"), m.get("hi")
    if isinstance(current, (int, float)) and lo is not None and hi is not None:
        mid = math.sqrt(max(lo, 1) * hi) if m.get("log") else (lo + hi) / 2
        values = [lo, mid, hi, current]
        return [type(current)(round(v)) if isinstance(current, int) else float(v) for v in values]
    return []


def _echoes(panel) -> list:
    """The states the panel is asked to show while it is showing one (its set_state is refused then)."""
    echoes: list = []
    show = panel.set_state

    def set_state(state, **options):
        if panel._syncing:
            echoes.append(state)
        show(state, **options)

    panel.set_state = set_state  # what the controls' handlers call
    return echoes


def _walk(panel, extra_changes=()):
    """Show, one after another, every value :func:`_values` gives of every field (then ``extra_changes``)."""
    echoes = _echoes(panel)
    changes = [{name: v} for name, f in fields(type(panel.state)).items()
               for v in _values(f, getattr(panel.state, name))]
    shown = 0
    for change in [*changes, *extra_changes]:
        try:
            state = panel.state.clamped(**change)
        except (StateError, ValueError):
            continue
        panel.set_state(state, request=False)
        QCoreApplication.processEvents()
        assert not echoes, f"showing {change} made a control send a change back"
        assert panel.state == state, change
        shown += 1
    return shown


@pytest.fixture
def waves(qtbot, service):
    from explorer.panels.waves.panel import WavesPanel
    from explorer.state.waves import WavesState

    p = WavesPanel(service, WavesState().clamped(n_positions=64, d_model=16))
    qtbot.addWidget(p)
    yield p
    p.shutdown()


def test_showing_any_waves_state_sends_no_change_back(waves):
    assert waves.vector is not None  # every tab built: the vector view's overlay box is blocked too
    waves.plots()
    assert _walk(waves, [{"overlay": False}, {"pairs": (0, 3)}]) > 20


def test_showing_any_token_swap_state_sends_no_change_back(qtbot, service):
    from explorer.panels.swap.panel import SwapPanel

    p = SwapPanel(service)
    qtbot.addWidget(p)
    sentences = [{"sentence": "the cat sat on the mat today"}, {"swap_i": 1, "swap_j": 4}, {"query": 5},
                 {"sentence": "a b"}]
    assert _walk(p, sentences) > 20
    p.shutdown()


def test_showing_any_schemes_state_sends_no_change_back(qtbot, service):
    from explorer.panels.schemes.panel import SchemesPanel

    p = SchemesPanel(service)
    qtbot.addWidget(p)
    toggles = [{f"show_{s.id}": v} for v in (True, False, True) for s in registry.all_schemes()]
    assert _walk(p, toggles) > 40
    p.shutdown()


def test_a_control_left_out_of_the_blocked_list_is_refused_and_counted(qtbot, service):
    from explorer.panels.swap.panel import SwapPanel

    class Leaky(SwapPanel):
        def _controls(self):
            return [w for w in super()._controls() if w is not self.d_spin]

    p = Leaky(service)
    qtbot.addWidget(p)
    echoes = _echoes(p)
    origin = p.origin
    p.set_state(p.state.clamped(d_model=64, seed=5), request=False)
    assert echoes and p.state.d_model == 64 and p.state.seed == 5
    assert p.origin == origin + 1  # the spin's echoes were refused, not shown over the state being shown
    p.shutdown()
