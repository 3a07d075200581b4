"""The base panel: requests go through the service with the panel's origin; controls blocked while syncing."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QSpinBox
from superqt import QLabeledSlider

from explorer.jobs import job
from explorer.panels.base import Panel


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
        self.slider = QLabeledSlider(Qt.Orientation.Horizontal, self)
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


def test_controls_are_blocked_while_syncing_but_labelled_sliders_keep_talking(qtbot, service):
    p = EchoPanel(service)
    qtbot.addWidget(p)
    controls = p._controls()
    assert p.slider in controls and p.spin in controls
    inner = p.slider.findChildren(type(p.slider._slider))
    assert inner and not any(w in controls for w in inner)  # the slider inside the labelled one
    p.set_state(42)
    assert p.synced[-1] is True and p.slider.value() == 42
    assert p.slider._label.value() == 42  # its value box followed: inner signals were not blocked
    assert p._controls() is controls  # worked out once while the widgets stay the same
    box = QCheckBox(p)
    again = p._controls()
    assert again is not controls and box in again
    p.shutdown()
