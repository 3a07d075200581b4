"""Plots that keep a readable size and in-plot text that stays placed (issue 27 §1–2), widget by widget.

* :class:`~explorer.widgets.readable.ReadableSplitter` shares its room so that every plot keeps a data area of at
  least five body-text lines (the in-plot audit's rule), never by raising a minimum size, and keeps a split set by
  hand only readable.
* The annotation placer measures a text where the next paint draws it: after its view shrank (the view's transform
  is brought up to date at the paint), while it is hidden (a hidden TextItem keeps its last paint's transform), and
  when its line moved under it with no placement due yet.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from plot_audit import audit
from PySide6.QtCore import Qt


# -- the shares ----------------------------------------------------------------------------------------
def test_shares_give_each_part_its_need_from_the_room_the_others_spare():
    from explorer.widgets.readable import shares_for

    assert shares_for([500, 300], [200, 100]) == [500, 300], "needs met: the shares stay"
    new = shares_for([700, 100], [150, 250])
    assert new is not None and sum(new) == 800 and new[1] >= 250 and new[0] >= 150
    three = shares_for([600, 300, 100], [100, 100, 200])
    assert three is not None and sum(three) == 1000 and three[2] >= 200
    # The 100 px the third lacks come from the first two in proportion to what they spare (500 : 200).
    assert three[0] < 600 and three[1] < 300 and (600 - three[0]) > (300 - three[1])
    assert shares_for([300, 100], [250, 200]) is None, "more needed than there is: nothing to do"


@pytest.fixture
def split(qtbot):
    from explorer.widgets.plots import Plot
    from explorer.widgets.readable import ReadableSplitter

    s = ReadableSplitter(Qt.Orientation.Vertical)
    qtbot.addWidget(s)
    s.setChildrenCollapsible(False)
    plots = []
    for name in ("big", "small"):
        p = Plot(name.title(), x="x", y="y")
        p.setObjectName(name)
        p.getPlotItem().plot(np.linspace(0, 1, 20), np.linspace(0, 1, 20))
        s.addWidget(p)
        plots.append(p)
    s.resize(420, 520)
    s.show()
    qtbot.waitExposed(s)
    return s, plots


def _data_height(p) -> float:
    return p.getPlotItem().getViewBox().height()


def _settled(qtbot, ms: int = 150) -> None:
    qtbot.wait(ms)


def test_a_share_too_small_for_a_readable_plot_takes_room_from_the_other(split, qtbot):
    from explorer.widgets.readable import readable_size

    s, (big, small) = split
    s.setSizes([480, 40])  # a stamp, as a fixed 61 : 39 left the position vector beside the Lesson pane
    _settled(qtbot)
    want = readable_size(small)[1]
    assert _data_height(small) >= want, (s.sizes(), _data_height(small), want)
    assert _data_height(big) >= want
    assert small.minimumHeight() == 0 and s.minimumSizeHint().height() < 200, "no minimum was raised"
    assert not [p for p in audit(small, "small", line=readable_size(small)[1] / 5) if "data area" in p]


def test_a_split_that_reads_well_is_left_alone_and_one_set_by_hand_is_only_kept_readable(split, qtbot):
    from explorer.widgets.readable import readable_size

    s, (big, small) = split
    s.setSizes([300, 220])
    set_to = s.sizes()
    _settled(qtbot)
    assert s.sizes() == set_to, "both plots had their room: the shares stay as set"
    s.moveSplitter(60, 1)  # by hand: the top plot far under a readable size
    _settled(qtbot)
    assert s.by_hand
    assert _data_height(big) >= readable_size(big)[1] - 0.5
    assert _data_height(big) < readable_size(big)[1] + 0.5 * readable_size(big)[1] / 5, \
        "set by hand: no spare line, only the readable size"


def test_a_split_too_small_for_every_plot_is_left_as_it_is(split, qtbot):
    s, (big, small) = split
    s.resize(420, 160)
    s.setSizes([120, 40])
    _settled(qtbot)
    before = s.sizes()
    assert not s.rebalance() and s.sizes() == before


# -- the annotation placer ---------------------------------------------------------------------------------
@pytest.fixture
def unit_plot(qtbot):
    """An app plot over the unit square, with its annotation placer."""
    from explorer.widgets.plots import make_plot

    pw = make_plot("Labels", x="x", y="y")
    qtbot.addWidget(pw)
    pw.getPlotItem().setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    pw.resize(520, 380)
    pw.show()
    qtbot.waitExposed(pw)
    return pw


def _floor_line(pi, label: str) -> pg.InfiniteLine:
    """A dashed floor with its label hung under it at the left (as the Lab's 'best possible' line)."""
    line = pg.InfiniteLine(pos=0.2, angle=0, label=label,
                           labelOpts={"position": 0.03, "anchors": [(0, 0), (0, 0)]})
    pi.addItem(line)
    return line


def test_a_label_is_placed_by_the_view_as_it_will_be_drawn_not_as_it_was(unit_plot, qtbot):
    plot = unit_plot
    pi = plot.getPlotItem()
    _floor_line(pi, "best possible 0.80 (the noise)")
    qtbot.wait(80)
    assert not audit(plot, "floor", line=12.0, size=False)
    # A new range (the view's transform follows at the next paint) leaves no room under the line; the placement
    # due runs first, as it may when the loop turns before the paint.
    pi.setYRange(0.19, 1.0, padding=0)
    pi.annotations.place()
    qtbot.wait(80)
    faults = audit(plot, "floor", line=12.0, size=False)
    assert not faults, faults


def test_a_hidden_label_is_measured_where_it_would_be_drawn(unit_plot, qtbot):
    plot = unit_plot
    pi = plot.getPlotItem()
    line = pg.InfiniteLine(pos=0.5, angle=90, label="L_train = 128 (drag)",
                           labelOpts={"position": 0.96, "anchors": [(0, 0.5), (1, 0.5)]})
    pi.addItem(line)
    plot.resize(520, 40)  # too small: the placer hides the label
    qtbot.waitUntil(lambda: not line.label.isVisible(), timeout=2000)  # (placed at most every EVERY_MS)
    plot.resize(520, 200)  # room again: placed while hidden, then shown
    qtbot.waitUntil(line.label.isVisible, timeout=2000)
    assert not audit(plot, "line", line=12.0, size=False)


def test_the_audit_sees_a_label_placed_again_after_its_line_moved(unit_plot, qtbot):
    plot = unit_plot
    pi = plot.getPlotItem()
    line = _floor_line(pi, "N−1 = 65,535")
    qtbot.wait(80)
    line.setValue(0.02)  # the label now hangs out of the view: no placement is due before the loop turns
    faults = audit(plot, "moved", line=12.0, size=False)
    assert not faults, faults
