"""The views of issue 30 at a 1280×720 projector in presenter mode (and 1920×1080): the model view of a model whose
layers differ (Gemma 3, Llama 4) and of an M-RoPE model (Qwen2-VL), the patch grid, and Token swap's CoPE counts —
every title whole, legends off the data, line labels inside their plot and apart (``plot_audit``), and the views
drawing what their jobs computed.  The audit is shown to catch a legend laid over data (its other checks are
shown to fail in ``test_plot_audit``)."""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
import pytest
from plot_audit import audit
from PySide6.QtCore import QSize
from window_fixture import module_window
from window_fixture import settle as _settle


@pytest.fixture(scope="module")
def window(tmp_path_factory):
    yield from module_window(tmp_path_factory.mktemp("pe-views-2d-home"))


def _show(win, size, panel_id: str, **changes):
    win.screen_limit = QSize(*size)
    win.look.set_presenter(True)
    win.look.apply()
    win.fit_to_screen()
    win.show_panel(panel_id)
    panel = win.panels[panel_id]
    panel.set_state(panel.state.clamped(**changes))
    deadline = time.monotonic() + 30
    while not (panel.has_drawn and panel.service.idle()) and time.monotonic() < deadline:
        _settle(20)
    _settle(250)
    return panel


CASES = [
    ("gemma-3-4b", {"view": "model", "model": "gemma-3-4b"}),
    ("llama-4-scout", {"view": "model", "model": "llama-4-scout"}),
    ("qwen2-vl-7b", {"view": "model", "model": "qwen2-vl-7b"}),
    ("grid", {"view": "grid"}),
    ("llama-3.1-8b (one rope)", {"view": "model", "model": "llama-3.1-8b"}),
    ("deepseek-v3 (one rope)", {"view": "model", "model": "deepseek-v3"}),
]


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
@pytest.mark.parametrize("name, changes", CASES, ids=[c[0] for c in CASES])
def test_views_fit_in_presenter_mode(window, size, name, changes):
    panel = _show(window, size, "schemes", **changes)
    plots = [p for p in panel.view(changes["view"]).plot_widgets() if p.isVisible()]
    assert plots, name
    problems = [msg for p in plots for msg in audit(p, f"{name} {p.objectName()}")]
    assert not problems, "\n".join(problems)


def test_model_view_draws_each_layer_type_and_the_nope_layers(window):
    panel = _show(window, (1280, 720), "schemes", view="model", model="llama-4-scout")
    view = panel.view("model")
    r = view.response
    assert r.model.name == "Llama 4 Scout" and view.rope.strip.isVisible()
    assert view.rope.strip.types == r.layer_types and view.rope.strip.rotates.count(False) == 12
    assert view.rope.temp.isVisible() and "NoPE" in view.rope.strip.key_text()
    x, y = view.rope.curves["temperature"].getData()
    np.testing.assert_allclose(y, r.temperature[1])
    assert not view.rope.freq.isVisible()  # narrow: the wavelengths say the same, against the chunk
    data = panel.export_data(view.score)
    assert "chunked_attention mean" in data and "full_attention mean" in data


def test_model_view_mrope_query_follows_a_click(window):
    panel = _show(window, (1280, 720), "schemes", view="model", model="qwen2-vl-7b", model_query=-1)
    view = panel.view("model")
    r = view.response
    assert r.mrope is not None and view.mrope.ids.isVisible() and r.mrope.query == 3 + 2 * 6 + 3
    view.mrope.queryPicked.emit(40)
    _settle(400)
    deadline = time.monotonic() + 20
    while view.response.mrope.query != 40 and time.monotonic() < deadline:
        _settle(50)
    assert panel.state.model_query == 40 and view.response.mrope.query == 40
    assert view.mrope.tokens.getPlotItem().titleLabel.text == "Score from token 40"


def test_grid_view_query_and_side(window):
    panel = _show(window, (1280, 720), "schemes", view="grid", grid_side=8, grid_query=-1)
    view = panel.view("grid")
    assert set(view.responses) == {"rope", "rope_2d_axial", "rope_2d_mixed"}
    view.queryPicked.emit(3)
    deadline = time.monotonic() + 20
    while view.responses["rope_2d_axial"].query != 3 and time.monotonic() < deadline:
        _settle(50)
    assert panel.state.grid_query == 3 and view.responses["rope_2d_axial"].scores.shape == (8, 8)
    data = panel.export_data(view.plots["rope_2d_mixed"])
    np.testing.assert_array_equal(next(iter(data.values())), view.responses["rope_2d_mixed"].scores)


def test_token_swap_shows_copes_counts_and_they_fit(window):
    panel = _show(window, (1280, 720), "swap", scheme="cope", causal=True)
    from explorer.panels.swap.panel import count_maps

    maps = count_maps(panel).maps
    assert maps and all(m.isVisible() for m in maps)
    r = panel.last_response
    np.testing.assert_array_equal(panel.export_data(maps[0])["positions before [query, key]"], r.before.positions[0])
    # Token swap's maps share a small grid: their titles are shortened there at whole words like the panel's others
    # (the whole title in the tooltip), which the audit allows.
    problems = [msg for m in maps for msg in audit(m, "counts", size=False)]
    assert not problems, "\n".join(problems)
    panel.set_state(panel.state.clamped(scheme="rope"))
    _settle(600)
    assert not any(m.isVisible() for m in maps)


def test_the_audit_catches_a_legend_over_data(qtbot):
    from explorer.widgets.plots import make_plot

    pw = make_plot("A title", x="x", y="y")
    qtbot.addWidget(pw)
    pw.resize(260, 200)
    pw.show()
    pi = pw.getPlotItem()
    legend = pg.LegendItem(offset=(5, 5))  # pyqtgraph's own, anchored: the app's would move off the line
    legend.setParentItem(pi.getViewBox())
    legend.addItem(pi.plot(np.linspace(0, 1, 200), np.linspace(1, 0, 200)), "a line from the top left")
    pi.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    qtbot.wait(50)
    assert any("legend" in p and "covers" in p for p in audit(pw, "bad", size=False))
