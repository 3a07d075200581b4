"""A scheme may bring a view of its own: adding one is still one module (issue 26).

Two throw-away schemes, each defined here and nowhere else: one whose tab is data (its ``compute`` returns
PlotSpecs, which the panel draws), one whose tab is a Qt view of its own that changes the panel's state.  Both
get a tab, a place in the state's views (scenes and lessons may name it), a request of exactly their fields,
Save numbers and Copy as Python; unregistered, they are gone.  The built-in ALiBi and "A model's RoPE" tabs are
such tabs too.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from explorer import schemes as registry
from explorer.jobs.schemes import TabRequest, build_requests, tab_view
from explorer.panels.schemes.views import SchemesView, info_column
from explorer.presets import parse_preset, preset_json
from explorer.schemes import PlotSpec, SchemeTab
from explorer.schemes.query import Query
from explorer.snippets import NoSnippet
from explorer.state import PANEL_VIEWS, AppState, SchemesState, StateError
from explorer.state.schemes import views
from tests.test_scheme_registry import Decay


def spiral(q: Query) -> tuple[PlotSpec, ...]:
    """Two plots of the decay's bias at the panel's heads and L_eval (the tab's compute)."""
    d = np.arange(q.l_eval, dtype=np.float64)
    return (PlotSpec("Decay per head", np.arange(q.heads, dtype=np.float64), 0.5 ** np.arange(q.heads), "head",
                     "rate"),
            PlotSpec("Decay over distance", d, -0.25 * d, "distance Δ", "bias", marks=((8.0, "eight"),)))


class Spiral(Decay):
    id = "throwaway_spiral"
    title = "Spiral"
    colour = "#334455"
    tabs = (SchemeTab("spiral", "Spiral rates", "Spiral", 8, ("heads", "l_eval"), spiral),)


class HeadsView(SchemesView):
    """A tab's own Qt view: a plot of the head count, and a way to change it (as its controls would)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        info_column(self, "headsInfo").addWidget(plot := pg.PlotWidget())
        self.plot, self.curve, self.response = plot, plot.plot([], []), None

    def show_response(self, value) -> None:
        self.response = value
        self.curve.setData(np.arange(value), np.ones(value))
        self.info.setText(f"{value} heads")

    def plot_widgets(self) -> list:
        return [self.plot]

    def apply_theme(self, theme) -> None:
        return None

    def export_snippet(self, plot, title: str):
        return NoSnippet("no program for the head count") if plot is self.plot else None

    def export_basename(self, st) -> str:
        return f"heads_{st.heads}"


def count_heads(q: Query) -> int:
    return q.heads


class Counted(Decay):
    id = "throwaway_counted"
    title = "Counted"
    colour = "#556677"
    tabs = (SchemeTab("heads_count", "Heads", "Heads", 4.5, ("heads",), count_heads,
                      "tests.test_scheme_tabs:HeadsView"),)


@pytest.fixture
def added():
    schemes = [registry.register(Spiral()), registry.register(Counted())]
    try:
        yield schemes
    finally:
        for s in schemes:
            registry.unregister(s.id)


def test_a_schemes_tab_takes_its_place_in_the_views_and_its_request_reads_only_its_fields(added):
    assert views() == ("matrices", "distance", "beyond", "alibi", "heads_count", "properties", "model", "grid",
                       "spiral")
    assert "spiral" in PANEL_VIEWS["schemes"]  # scenes and lessons may open it
    scene = parse_preset(preset_json(AppState(), title="spiral", panel="schemes", view="spiral"))
    assert scene.view == "spiral"
    st = SchemesState(view="spiral", heads=4, l_eval=64)
    (req,) = build_requests(st)
    assert req == TabRequest("throwaway_spiral", "spiral", Query("throwaway_spiral", {"heads": 4, "l_eval": 64}),
                             key="schemes.spiral")
    assert build_requests(st.clamped(seed=9, base=500.0)) == [req]  # other controls: nothing to recompute
    specs = tab_view(req).value
    np.testing.assert_array_equal(specs[1].y, -0.25 * np.arange(64))


def test_gone_with_its_scheme(added):
    registry.unregister("throwaway_spiral")
    assert "spiral" not in views()
    with pytest.raises(StateError):
        SchemesState(view="spiral")


def test_a_tab_cannot_take_a_built_in_views_id_or_read_unknown_fields():
    with pytest.raises(ValueError, match="one of the panel's own views"):
        SchemeTab("matrices", "Mine", "Mine", 9, (), count_heads)
    with pytest.raises(ValueError, match="fields a query cannot hold: colour"):
        SchemeTab("mine", "Mine", "Mine", 9, ("colour",), count_heads)


def test_the_panel_draws_both_tabs_numbers_them_and_exports_them(qtbot, added):
    from explorer.panels.schemes import SchemesPanel
    from explorer.service import ComputeService

    service = ComputeService(warm_up=False)
    try:
        panel = SchemesPanel(service, SchemesState(l_eval=64, l_train=32, heads=4))
        qtbot.addWidget(panel)
        titles = [panel.tabs.tabText(i) for i in range(panel.tabs.count())]
        assert titles[4] in ("5 · Heads",) and titles[-1] in ("9 · Spiral rates", "9 · Spiral")

        panel.tabs.setCurrentIndex(panel.view_ids.index("spiral"))  # by the tab bar, as a lecturer would
        assert panel.state.view == "spiral"
        spiral_view = panel.view("spiral")
        qtbot.waitUntil(lambda: len(spiral_view.plot_widgets()) == 2, timeout=10000)
        far = spiral_view.plot_widgets()[1]
        x, y = spiral_view.plots[1].curve.getData()
        np.testing.assert_allclose(y, -0.25 * x)
        numbers = panel.export_data(far)
        assert list(numbers) == ["distance Δ", "bias"]
        np.testing.assert_array_equal(numbers["bias"], -0.25 * np.arange(64))
        assert spiral_view.plots[1].marks[0].value() == 8.0

        panel.set_state(panel.state.clamped(view="heads_count"))
        heads = panel.view("heads_count")
        qtbot.waitUntil(lambda: heads.response == 4, timeout=10000)
        heads.changeRequested.emit({"heads": 6})  # its own control changed the panel's state …
        assert panel.state.heads == 6
        qtbot.waitUntil(lambda: heads.response == 6, timeout=10000)  # … and the tab was computed again
        assert panel.export_basename() == "heads_6"
        said = panel.export_snippet(heads.plot)
        assert isinstance(said, NoSnippet) and said.reason == "no program for the head count"
        heads.failed.emit("the tab says no")
        assert panel.banner.text() == "the tab says no"
        panel.shutdown()
    finally:
        service.stop()


def test_alibi_and_the_model_view_are_tabs_their_schemes_add():
    assert [(t.id, s.id) for t, s in registry.tabs()] == [("alibi", "alibi"), ("model", "rope")]
    # A subclass does not inherit its parent's tab: scaled RoPE adds no second "A model's RoPE".
    assert registry.get("scaled_rope").own_tabs() == () and registry.get("rope").own_tabs()


def test_registering_before_anything_read_the_registry_does_not_hang():
    """register() loads the registry under its lock on first use: with a plain lock that was a deadlock (found by
    this file, whose fixture was the first to touch the registry in its worker)."""
    import subprocess
    import sys

    code = ("from explorer import schemes as r\nfrom explorer.schemes.nope import NoPE\n"
            "class Other(NoPE):\n    id = 'other'\n    colour = '#123456'\n"
            "r.register(Other())\nprint(len(r.ids()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert int(out.stdout) == len(registry.ids()) + 1


def test_a_tab_registered_after_the_panel_was_made_does_not_break_it(qtbot):
    """Only a run-time register() can do this (the tests); the panel keeps the tabs it was made with."""
    from explorer.panels.schemes import SchemesPanel
    from explorer.service import ComputeService

    service = ComputeService(warm_up=False)
    try:
        panel = SchemesPanel(service, SchemesState(l_eval=64, l_train=32))
        qtbot.addWidget(panel)
        registry.register(Spiral())
        try:
            panel.set_state(panel.state.clamped(view="spiral"))
            assert "spiral" not in panel.view_ids and panel.tabs.currentIndex() == 0
            assert panel.plots() == []
            panel.set_state(panel.state.clamped(view="distance"))
            assert panel.plots() == panel.view("distance").plot_widgets()
            panel.set_state(panel.state.clamped(view="grid", grid_side=12, head_dim=32))
            assert panel.export_basename() == "schemes_grid_12x12_d32"  # a view of the panel's own names its files
        finally:
            registry.unregister("throwaway_spiral")
        panel.shutdown()
    finally:
        service.stop()
