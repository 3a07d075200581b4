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
    """A few values of ``field`` to show in turn: each choice, the limits and a middle, the other bool (and back)."""
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
    """What the panel's handlers did while it was showing a state: a state to show (set_state refuses it then), a
    request for results, an error shown (a handler that refuses a change shows one instead of asking for it)."""
    echoes: list = []

    def recorded(name, call):
        def record(*args, **options):
            if panel._syncing:
                echoes.append((name, args))
            return call(*args, **options)
        return record

    # What the controls' handlers call (an instance attribute comes before the class's method).
    panel.set_state = recorded("set_state", panel.set_state)
    panel.request_update = recorded("request_update", panel.request_update)
    panel.banner.show_error = recorded("show_error", panel.banner.show_error)
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


def _made(qtbot, panel):
    qtbot.addWidget(panel)
    yield panel
    panel.shutdown()


@pytest.fixture
def waves(qtbot, service):
    from explorer.panels.waves.panel import WavesPanel
    from explorer.state.waves import WavesState

    yield from _made(qtbot, WavesPanel(service, WavesState().clamped(n_positions=64, d_model=16)))


def test_showing_any_waves_state_sends_no_change_back(waves):
    assert waves.vector is not None  # every tab built: the vector view's overlay box is blocked too
    waves.plots()
    assert _walk(waves, [{"overlay": False}, {"pairs": (0, 3)}]) > 20


@pytest.fixture
def swap(qtbot, service):
    from explorer.panels.swap.panel import SwapPanel

    yield from _made(qtbot, SwapPanel(service))


@pytest.fixture
def schemes(qtbot, service):
    from explorer.panels.schemes.panel import SchemesPanel

    yield from _made(qtbot, SchemesPanel(service))


def test_showing_any_token_swap_state_sends_no_change_back(swap):
    sentences = [{"sentence": "the cat sat on the mat today"}, {"swap_i": 1, "swap_j": 4}, {"query": 5},
                 {"sentence": "a b"}]
    assert _walk(swap, sentences) > 20


def test_showing_any_schemes_state_sends_no_change_back(schemes):
    toggles = [{f"show_{s.id}": v} for v in (True, False, True) for s in registry.all_schemes()]
    own = [{"scheme_params": ((s.id, p.name, v),)} for s in registry.all_schemes() for p in s.own_parameters()
           for v in (p.lo, p.hi, p.default)]
    assert own, "a scheme with parameters of its own (their boxes are walked too)"
    assert _walk(schemes, [*toggles, {"schemes": tuple(registry.ids())}, *own]) > 40 + len(own) // 2


def test_a_control_left_out_of_the_blocked_list_is_refused_and_seen(qtbot, service):
    from explorer.panels.swap.panel import SwapPanel

    class Leaky(SwapPanel):
        def _controls(self):
            return [w for w in super()._controls() if w is not self.d_spin]

    for p in _made(qtbot, Leaky(service)):
        echoes = _echoes(p)
        origin = p.origin
        p.set_state(p.state.clamped(d_model=64, seed=5), request=False)
        assert echoes and echoes[0][0] == "set_state" and p.state.d_model == 64 and p.state.seed == 5
        assert p.origin == origin + 1  # the spin's echoes were refused, not shown over the state being shown
