"""Token swap on the stage (issue 27): every map keeps a readable data area at 1280 × 720 in presenter mode and beside
the Lesson pane, the rows above the maps give them the room, and the maps' text keeps to its size.

A map's data area must be at least five body-text lines tall and ten wide (the in-plot audit's rule): at 720p in
presenter mode the six maps had 241 × 96 px (the query bars 334 × 46 under their legend), and beside the docked
Lesson pane at 1920 × 1080 three columns left each map 126 px wide.
"""

from __future__ import annotations

import numpy as np
import pytest
from plot_audit import audit, body_px
from PySide6.QtWidgets import QLabel
from test_plot_audit import _look, _shown_share, _wait
from window_fixture import module_window, settle

from explorer.panels.swap.axis import TokenAxis
from explorer.panels.swap.grid import FIRST_CELL, MapsGrid
from explorer.panels.swap.headline import Headline
from explorer.panels.swap.views import QueryBars
from explorer.widgets.formula_strip import _parts
from explorer.widgets.reflow import ReflowGrid


@pytest.fixture(scope="module")
def window(tmp_path_factory):
    yield from module_window(tmp_path_factory.mktemp("pe-swap-layout-home"))


def _maps(win) -> list:
    panel = win.panels["swap"]
    return [panel.before_map, panel.after_map, panel.bars, panel.out_before, panel.out_after, panel.out_diff]


def _too_small(win, plots) -> list[str]:
    line = body_px(win)
    out = []
    for plot in plots:
        r = plot.getPlotItem().getViewBox().sceneBoundingRect()
        if r.width() < 10 * line or r.height() < 5 * line:
            out.append(f"{plot.title()}: {r.width():.0f}×{r.height():.0f} px, under {10 * line:.0f}×{5 * line:.0f}")
    return out


def _lesson_step(win, name: str, k: int):
    from explorer.lessons.format import builtin_lessons

    lesson = next(x for x in builtin_lessons() if x.name == name)
    step = lesson.steps[k]
    win.lessons.show(lesson, k)
    win.lessons.set_scene(step, lesson)
    _wait(win, "swap")
    settle(500)  # the pane docks and the ring scrolls a moment after the scene
    _wait(win, "swap")
    return step


def test_every_map_is_readable_and_on_screen_at_720p_presenter(window):
    win = window
    _look(win, (1280, 720), True)
    win.lessons.dock.hide()
    win.show_panel("swap")
    _wait(win, "swap")
    maps = _maps(win)
    assert not _too_small(win, maps)
    assert all(_shown_share(win, m) > 0.99 for m in maps), [(m.title(), _shown_share(win, m)) for m in maps]
    faults = [f for m in maps for f in audit(m, presenter=True, line=body_px(win))]
    assert not faults, faults
    # Every query of the five-word sentence keeps its label (a thinned axis had no room to say so in its title).
    panel = win.panels["swap"]
    assert all(not m.y_axis.hidden_note() for m in (panel.before_map, panel.out_before))
    # The verdict keeps to one line, and the formula strip to one: the maps got their height.
    assert panel.headline.height() < 2.2 * body_px(win)
    assert panel.formula.height() < 2.5 * body_px(win)


@pytest.mark.parametrize("size, presenter", [((1920, 1080), False), ((1280, 720), True)],
                         ids=["1920x1080-normal", "1280x720-presenter"])
def test_beside_the_lesson_pane_the_maps_take_fewer_columns_not_smaller(window, size, presenter):
    win = window
    _look(win, size, presenter)
    for k in range(4):
        _lesson_step(win, "order_blindness", k)
        panel = win.panels["swap"]
        assert panel.maps_grid.columns() == 2, (k, panel.maps_grid.columns())
        on_screen = [m for m in _maps(win) if _shown_share(win, m) > 0.5]
        assert not _too_small(win, on_screen), k
        # What every step is about is on screen whole: the attention maps (the Σ column), the query's weights and
        # the outputs' difference.
        key = [panel.before_map, panel.after_map, panel.bars, panel.out_diff]
        shares = [(m.title(), round(_shown_share(win, m), 2)) for m in key]
        assert all(share > 0.97 for _, share in shares), (k, shares)
        if size == (1920, 1080):
            assert all(_shown_share(win, m) > 0.97 for m in _maps(win)), k  # room for all three rows
    win.lessons.dock.hide()
    win.session.leave_scene()


@pytest.mark.parametrize("size, presenter", [((1280, 720), False), ((1280, 720), True), ((1920, 1080), False)],
                         ids=["1280x720-normal", "1280x720-presenter", "1920x1080-normal"])
def test_both_attention_maps_write_their_row_sums_and_alike(window, size, presenter):
    """At 1280 × 720 the after map was 0.2 px narrower than the before map (its words' axis) and its Σ column, short
    of room for "1.000", showed no sums beside the other's: each writes them with two decimals where three do not
    fit, and both maps in one format."""
    win = window
    _look(win, size, presenter)
    win.lessons.dock.hide()
    win.show_panel("swap")
    panel = win.panels["swap"]
    panel.set_state(type(panel.state)())  # the first scene's three words
    _wait(win, "swap")
    shown = []
    for m in (panel.before_map, panel.after_map):
        m.grab()  # a paint: the format it wrote
        vt = m.sum_values
        shown.append((vt.visible_texts(vt.deviceTransform(m.viewportTransform())), vt.texts()))
    assert shown[0][0] and shown[0] == shown[1], shown
    assert set(shown[0][1]) <= {"1.000", "1.00"}


# -- the parts ---------------------------------------------------------------------------------------------------
def test_the_grid_measures_its_maps_and_asks_each_cell_for_a_readable_data_area(qtbot):
    grid = MapsGrid()
    qtbot.addWidget(grid)
    bars = [QueryBars(grid) for _ in range(3)]
    for b in bars:
        b.set_data(np.full(5, 0.2), np.full(5, 0.2), ["the", "dog", "saw", "a", "cat"], 0, "")
    grid.set_cells(bars)
    grid.resize(900, 700)
    grid.show()

    def fitted() -> bool:
        need = grid.needed_cell()
        return need is not None and grid.cells()[0].minimumSize().toTuple() != FIRST_CELL and \
            abs(grid.cells()[0].minimumHeight() - need[1]) <= 2

    qtbot.waitUntil(fitted, timeout=5000)
    line = grid.line_px()
    for b in bars:
        r = b.getPlotItem().getViewBox().sceneBoundingRect()
        assert r.width() >= 10 * line and r.height() >= 5 * line
    grid.resize(560, 700)  # room for two cells of that size side by side, not three
    qtbot.waitUntil(lambda: grid.columns() == 2, timeout=5000)


def test_two_columns_put_the_cells_in_their_own_order():
    grid = MapsGrid()
    a, b, c, d = (QLabel(x) for x in "abcd")
    grid.set_cells([a, b, c, d])
    grid.two_column_order = [a, c]
    assert grid.ordered(2) == [a, c, b, d] and grid.ordered(3) == [a, b, c, d]


def test_rows_grown_taller_than_the_scroll_area_scroll_rather_than_overlap(qtbot):
    grid = ReflowGrid((100, 100), max_cols=2)
    qtbot.addWidget(grid)
    cells = [QLabel(str(k)) for k in range(6)]
    grid.set_cells(cells)
    grid.resize(250, 300)
    grid.show()
    qtbot.wait(50)
    grid.set_min_cell(100, 150)  # three rows of 150 px in a 300-px view, at once
    rows = sorted({c.geometry().top() for c in cells})
    assert grid.widget().height() >= 3 * 150 and all(b - a >= 150 for a, b in zip(rows, rows[1:], strict=False))


def test_a_thinned_token_axis_drops_its_titles_bracket_before_the_note(qtbot):
    from explorer.widgets.plots import Plot

    axis = TokenAxis("bottom")
    plot = Plot("bars", axis_items={"bottom": axis})
    qtbot.addWidget(plot)
    plot.getPlotItem().setLabel("bottom", "key (original order)")
    axis.set_labels([f"word{k}" for k in range(40)])
    plot.getPlotItem().setXRange(0, 40, padding=0)
    plot.resize(260, 200)
    plot.show()
    qtbot.waitUntil(lambda: bool(axis.hidden_note()), timeout=3000)
    qtbot.waitUntil(lambda: axis.label.toPlainText().strip() == f"key ({axis.hidden_note()})", timeout=3000)
    plot.resize(1800, 200)  # room for the whole title again
    qtbot.waitUntil(lambda: axis.label.toPlainText().strip().startswith("key (original order)"), timeout=3000)


def test_the_verdict_steps_down_to_keep_one_line(qtbot):
    head = Headline()
    qtbot.addWidget(head)
    head.resize(700, 80)
    head.show()
    head.set_look(dark=False, point_size=30, least=10)
    head.set_verdict("equivariant", "Attention is permutation-equivariant — order is invisible (max difference 1e-16)")
    assert 10 <= head.fitted_size() < 30 and f"{head.fitted_size():g}pt" in head.styleSheet()
    head.set_look(dark=False, point_size=30)  # no smaller size allowed: it wraps
    assert head.fitted_size() == 30


def test_the_formula_splits_into_parts_the_presenter_line_can_keep():
    from explorer.panels.swap.formula import formula_html
    from explorer.state import SwapState

    parts = _parts(formula_html(SwapState(causal=True)))
    assert len(parts) >= 3 and parts[0].startswith("<b>out = ")
