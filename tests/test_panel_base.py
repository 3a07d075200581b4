"""The base panel: requests go through the service with the panel's origin; controls blocked while syncing."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QCheckBox, QSpinBox

from explorer.jobs import job
from explorer.panels.base import Panel
from explorer.widgets.sliders import LabeledSlider


@dataclass(frozen=True)
class EchoRequest:
    value: int
    key: str = "test.echo"


@job(EchoRequest)
def _echo(req):
    return req.value


class EchoPanel(Panel):
    panel_id = "echo"
    state_cls = int

    def __init__(self, service, state=0) -> None:
        super().__init__(service, state)
        self.spin = QSpinBox(self)
        self.slider = LabeledSlider(self)
        self.slider.setRange(0, 100)
        self.body.addWidget(self.spin)
        self.body.addWidget(self.slider)
        self.shown: list = []
        self.synced: list = []

    def requests(self, state):
        return [EchoRequest(state)]

    def sync_widgets(self, state) -> None:
        self.synced.append(self.slider.signalsBlocked())
        self.slider.setValue(state)  # the labelled slider's own box must still follow it

    def show_result(self, response) -> None:
        self.shown.append(response)


def test_results_reach_the_panel_with_its_origin(qtbot, service):
    p = EchoPanel(service)
    qtbot.addWidget(p)
    p.set_state(3)
    first = p.origin
    p.set_state(5)
    assert p.origin == first + 1
    qtbot.waitUntil(lambda: p.has_drawn and not p.waiting, timeout=5000)
    assert p.shown[-1] == 5 and p.last_drawn_origin == p.origin
    assert p.latest_request("test.echo") == EchoRequest(5)
    # The same value again: the service skips it (the panel already shows it).
    n = len(p.shown)
    p.set_state(5)
    assert p._handles["test.echo"].status == "skipped" and not p.waiting
    p.shutdown()
    assert len(p.shown) == n


def test_controls_are_blocked_while_syncing_and_a_labelled_slider_still_shows_its_value(qtbot, service):
    p = EchoPanel(service)
    qtbot.addWidget(p)
    controls = p._controls()
    assert p.slider in controls and p.spin in controls
    assert p.slider.slider() in controls and p.slider.line_edit() in controls  # its parts are blocked too
    p.set_state(42)
    assert p.synced[-1] is True and p.slider.value() == 42
    assert p.slider.line_edit().text() == "42" and p.slider.slider().value() == 42  # set directly
    assert not p.slider.signalsBlocked() and not p.slider.slider().signalsBlocked()  # unblocked after
    box = QCheckBox(p)
    assert box in p._controls()
    p.shutdown()
