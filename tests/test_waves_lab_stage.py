"""Waves and Lab on the stage (issue 27): every plot they show — each tab, and each lesson step that shows them, with
the Lesson pane docked beside — passes the in-plot audit at 1280×720 (normal and presenter) and 1920×1080: data
areas of at least five body-text lines (the Lab's plots were 77 px tall, the position vector 92, the norms 99 px
wide), annotations inside their plot and off the curves ('best possible 0.80 (the noise)', 'L_train = 128 (drag)').

The walk is the in-plot audit's (``test_plot_audit``), narrowed to these states.  Presenter axis titles longer than
their axis are left out here: shortening them is the axis's own (the audit's whole walk holds them to the rule).
"""

from __future__ import annotations

import pytest
from test_plot_audit import _check, _look, _states
from window_fixture import module_window

PANELS = ("waves", "lab")


@pytest.fixture(scope="module")
def window(tmp_path_factory):
    yield from module_window(tmp_path_factory.mktemp("pe-waves-lab-stage-home"))


def _names() -> str:
    """The audit walk's filter: the two panels (their tabs) and every lesson step whose scene shows one."""
    from explorer.lessons.format import builtin_lessons

    steps = [f"lesson {lesson.name} step {k + 1}" for lesson in builtin_lessons()
             for k, step in enumerate(lesson.steps) if step.scene is not None and step.scene.panel in PANELS]
    return ",".join([*PANELS, *steps])


@pytest.mark.parametrize(("size", "presenter"), [((1280, 720), False), ((1280, 720), True), ((1920, 1080), False)],
                         ids=["1280x720-normal", "1280x720-presenter", "1920x1080-normal"])
def test_every_waves_and_lab_plot_on_stage_is_readable_and_keeps_its_text_inside(window, size, presenter,
                                                                                  monkeypatch):
    monkeypatch.setenv("PE_AUDIT_ONLY", _names())
    tag = _look(window, size, presenter)
    walked, faults = [], []
    for where in _states(window):
        walked.append(where)
        faults += [f for f in _check(window, f"{tag} {where}", presenter) if "axis title" not in f]
    _look(window, size, False)
    assert len([w for w in walked if w.startswith("lesson")]) >= 10 and "lab[This run]" in walked, walked
    assert not faults, f"{len(faults)} faults:\n" + "\n".join(dict.fromkeys(faults))
