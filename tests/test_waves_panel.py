"""The Waves panel with pytest-qt: hover, clicks, sliders, play, linked picking, readouts, rendering."""

import math
import re

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractSlider

from explorer.encodings import sinusoidal
from explorer.jobs.waves import heatmap_tile
from explorer.jobs.waves_pick import rotation_readout
from explorer.panels.waves import WavesPanel
from explorer.state import WavesState
from explorer.widgets.value_box import PROBLEM_COLOUR

SETTLE_MS = 20000


def _settled(panel):
    """Drawn, nothing asked, and no re-request of its own still to come (a late relayout restarts the range timer)."""
    return (panel.has_drawn and not panel.waiting and panel.service.idle() and not panel._range_timer.isActive()
            and not panel._stale_timer.isActive())


def _wait(qtbot, panel):
    qtbot.waitUntil(lambda: _settled(panel), timeout=SETTLE_MS)


@pytest.fixture
def panel(qtbot, service):
    p = WavesPanel(service, WavesState().clamped(n_positions=256, d_model=64))
    qtbot.addWidget(p)
    p.resize(1440, 860)
    p.show()
    qtbot.waitExposed(p)
    _wait(qtbot, p)
    qtbot.wait(100)  # the first resize re-requests at the real pixel size
    _wait(qtbot, p)
    yield p
    p.shutdown()


def _view_pos(plot, x, y):
    """Widget position (in the plot's viewport) of data point (x, y)."""
    scene = plot.getViewBox().mapViewToScene(QPointF(x, y))
    return plot.mapFromScene(scene)


def _grab(widget):
    img = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    arr = np.frombuffer(img.constBits(), dtype=np.uint8).reshape(img.height(), img.bytesPerLine())
    return arr[:, : img.width() * 4].astype(np.int16)


# -- drawing and readouts ---------------------------------------------------------------------------------
def test_every_view_draws_and_the_readouts_state_the_numbers(panel):
    st = panel.state
    heat = panel.responses["waves.heatmap"]
    assert not heat.overview
    np.testing.assert_allclose(heat.image, sinusoidal(256, 64), atol=1e-7)
    rot = rotation_readout(panel.responses["waves.views"].rotation["omega"], st.offset, st.n_positions)
    text = panel.rotation.readout.text()
    assert "no p in it" in text and "the same rotation for every p" in text
    pattern = r"\|R\(k\)·PE\(p\) − PE\(p\+k\)\| = <b>([0-9.]+) × 10<sup>(-?\d+)</sup>"
    mant, exp = re.search(pattern, text).groups()
    assert float(mant) * 10 ** int(exp) == pytest.approx(rot["error"], rel=0.05)
    assert int(exp) <= -12
    m = panel.matrix.readout.text()
    assert "Symmetric" in m and "All N = 256 positions shown" in m
    tok = panel.responses["waves.views"].token
    assert f"{tok['cos_tokens']:.4f}" in panel.token.readout.text()
    assert "√(d/2) = <b>5.657</b>" in panel.token.readout.text()
    assert "2π ≈ 6.28 (pair 0, <b>fastest</b>)" in panel.spectrum.readout.text()
    assert "ω<sub>i</sub> = 10000<sup>−2i/64</sup>" in panel.formula.text()


def test_pair_zero_is_shown_as_the_fastest_on_top(panel):
    # The direction claim, pinned in the view: lanes run from pair 0 (top, λ = 2π) to slower pairs.
    assert panel.waves.lanes == tuple(sorted(panel.waves.lanes))
    assert panel.waves.lanes[0] == 0
    assert "i = 0 · λ 2π" in panel.waves.lane_labels[0]
    title = panel.waves.plot.getPlotItem().titleLabel.text
    assert "pair 0 is the FASTEST" in title
    assert "FASTER" in panel.waves.plot.getPlotItem().getAxis("left").labelText
    lam = panel.responses["waves.curves"].wavelengths
    lanes = panel.waves.lanes
    assert all(lam[a] < lam[b] for a, b in zip(lanes, lanes[1:], strict=False))


def test_rendered_panel_is_not_blank_and_changes_with_the_base(panel, qtbot):
    before = _grab(panel.heatmap)
    assert before.std() > 20
    panel.controls.base.setValue(50.0)
    _wait(qtbot, panel)
    qtbot.wait(50)
    after = _grab(panel.heatmap)
    assert after.shape == before.shape
    assert np.abs(after - before).mean() > 5
    assert panel.responses["waves.heatmap"].request.base == 50.0


# -- hover and clicks ----------------------------------------------------------------------------------------
def test_hover_reads_the_cell_under_the_mouse(panel, qtbot):
    plot = panel.heatmap.plot
    qtbot.mouseMove(plot.viewport(), _view_pos(plot, 5.5, 37.5))
    qtbot.waitUntil(lambda: "p = <b>37</b>" in panel.heatmap.readout.text(), timeout=3000)
    text = panel.heatmap.readout.text()
    value = sinusoidal(38, 64)[37, 5]
    assert "column <b>5</b> = pair i = <b>2</b> (cos)" in text
    assert f"PE = <b>{value:+.4f}</b>" in text
    lam = 2 * np.pi / 10000.0 ** (-4 / 64)
    assert f"{lam:.4g}" in text


def test_click_on_the_heatmap_picks_p_and_the_pair_and_links_the_views(panel, qtbot):
    plot = panel.heatmap.plot
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=_view_pos(plot, 9.5, 120.5))
    qtbot.waitUntil(lambda: panel.state.position == 120, timeout=3000)
    assert panel.state.pair == 4
    # linked: the other views follow at once or with their next result
    assert panel.heatmap.p_line.value() == pytest.approx(120.5)
    assert panel.waves.p_line.value() == 120
    assert panel.controls.position.value() == 120
    _wait(qtbot, panel)
    assert panel.responses["waves.views"].request.position == 120
    assert "Pair i = 4" in panel.rotation.readout.text()
    assert panel.waves.lanes[panel.waves.lane_labels.index(next(t for t in panel.waves.lane_labels
                                                                 if t.startswith("▶")))] == 4


def test_spectrum_click_picks_a_pair_and_ctrl_click_toggles_it(panel, qtbot):
    plot = panel.spectrum.plot
    y = math.log10(float(panel.responses["waves.curves"].wavelengths[20]))
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=_view_pos(plot, 20, y))
    qtbot.waitUntil(lambda: panel.state.pair == 20, timeout=3000)
    assert 20 not in panel.state.pairs
    qtbot.wait(600)  # not a double-click
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                     pos=_view_pos(plot, 20, y))
    qtbot.waitUntil(lambda: 20 in panel.state.pairs, timeout=3000)


def test_similarity_and_matrix_clicks_pick_the_offset(panel, qtbot):
    sim = panel.similarity.plot
    qtbot.mouseClick(sim.viewport(), Qt.MouseButton.LeftButton, pos=_view_pos(sim, -40, 0))
    qtbot.waitUntil(lambda: panel.state.offset == -40, timeout=3000)
    panel.tabs.setCurrentIndex(1)
    _wait(qtbot, panel)
    mat = panel.matrix.plot
    qtbot.mouseClick(mat.viewport(), Qt.MouseButton.LeftButton, pos=_view_pos(mat, 60.5, 50.5))
    qtbot.waitUntil(lambda: (panel.state.position, panel.state.offset) == (50, 10), timeout=3000)


# -- sliders, typed values, reset --------------------------------------------------------------------------
def test_slider_keys_change_the_state_live(panel, qtbot):
    s = panel.controls.position
    s.setFocus()
    old = panel.state.position
    qtbot.keyClick(s.slider(), Qt.Key.Key_Right)
    assert panel.state.position == old + 1
    qtbot.keyClick(panel.main_slider(), Qt.Key.Key_PageUp)
    assert panel.state.base > 10000.0
    _wait(qtbot, panel)
    assert panel.responses["waves.heatmap"].request.base == panel.state.base


def test_a_typed_base_is_exact(panel, qtbot):
    box = panel.controls.base.line_edit()
    box.selectAll()
    qtbot.keyClicks(box, "500000")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert panel.state.base == 500000.0
    assert panel.export_basename() == "waves_d64_base500000_N256_paper"


def test_pairs_box_accepts_a_list_and_refuses_nonsense(panel, qtbot):
    box = panel.controls.pairs
    box.selectAll()
    qtbot.keyClicks(box, "2, 9 ,30")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert panel.state.pairs == (2, 9, 30)
    box.selectAll()
    qtbot.keyClicks(box, "1, 99")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert panel.state.pairs == (2, 9, 30)
    assert PROBLEM_COLOUR in box.styleSheet() and box.text() == "2, 9, 30"  # outlined, shown as in use


def test_reset_restores_the_defaults(panel, qtbot):
    panel.set_state(panel.state.clamped(base=777.0, position=99, variant="t2t"))
    qtbot.mouseClick(panel.controls.reset, Qt.MouseButton.LeftButton)
    assert panel.state == WavesState()
    assert panel.controls.base.value() == 10000.0


def test_burst_of_slider_moves_ends_on_the_final_parameters(panel, qtbot):
    slider = panel.main_slider()
    assert isinstance(slider, QAbstractSlider)
    slider.setSliderDown(True)
    for v in range(100, 700, 20):
        slider.setValue(v)
    slider.setValue(640)
    slider.setSliderDown(False)
    _wait(qtbot, panel)
    st = panel.state
    heat = panel.responses["waves.heatmap"]
    assert heat.request.base == st.base and not heat.request.preview
    np.testing.assert_array_equal(heat.image, heatmap_tile(heat.request).image)
    assert panel.responses["waves.curves"].request.base == st.base
    assert panel.responses["waves.matrix"].request.base == st.base
    assert panel.responses["waves.views"].request.base == st.base
    b = f"{st.base:.0f}" if st.base == int(st.base) else f"{st.base:g}"
    assert f"ω<sub>i</sub> = {b}<sup>" in panel.formula.text()


def test_preview_while_held_then_refined_on_release(qtbot, service):
    p = WavesPanel(service, WavesState().clamped(n_positions=4096, d_model=64))
    qtbot.addWidget(p)
    p.resize(1200, 800)
    p.show()
    _wait(qtbot, p)
    assert p.responses["waves.matrix"].size == 1024
    slider = p.controls.base.slider()
    slider.setSliderDown(True)
    slider.setValue(slider.value() + 40)
    computed = lambda: not p.waiting and p.service.idle()  # noqa: E731
    qtbot.waitUntil(computed, timeout=SETTLE_MS)
    # While held: the visible heatmap at preview resolution; the hidden matrix is held by the service (not run,
    # and the panel not drawn) until it is wanted.
    assert p.responses["waves.heatmap"].request.preview
    assert p.held() == {"waves.matrix"} and not p.has_drawn
    assert p.responses["waves.matrix"].size == 1024  # still the last one computed
    # The similarity view's direct dots (most of the picked values' job) are left out while it is hidden.
    assert not p.responses["waves.views"].request.markers and not p.responses["waves.views"].marker_q.size
    exported = p.export_data(p.similarity.plot)  # an export made now still has them
    assert exported["PE(p).PE(q)"].size == exported["q - p"].size > 100
    p.tabs.setCurrentIndex(1)  # now it is seen: computed at the live (preview) size
    qtbot.waitUntil(lambda: computed() and not p.held(), timeout=SETTLE_MS)
    assert p.responses["waves.matrix"].size == 256
    qtbot.waitUntil(lambda: p.responses["waves.views"].marker_q.size > 0, timeout=SETTLE_MS)  # and its dots
    assert p.similarity.dots.getData()[0].size == p.responses["waves.views"].marker_q.size
    slider.setSliderDown(False)
    _wait(qtbot, p)
    assert p.responses["waves.matrix"].size == 1024 and not p.responses["waves.heatmap"].request.preview
    p.shutdown()


def test_dragging_p_does_not_recompute_the_heatmap(panel, qtbot):
    keys = ("waves.heatmap", "waves.curves", "waves.matrix", "waves.views")
    before = {k: panel.latest_request(k) for k in keys}
    ran: list[str] = []
    panel.service.resultReady.connect(lambda r: ran.append(r.key))
    panel.controls.position.setValue(200)
    for k in keys[:3]:
        assert panel.latest_request(k) == before[k]
    assert panel.latest_request("waves.views").position == 200
    _wait(qtbot, panel)
    assert ran == ["waves.views"]  # the service skipped the three equal requests


# -- large sizes: overview, zoom, matrix note --------------------------------------------------------------
def test_long_sequences_show_an_overview_and_zoom_to_every_position(panel, qtbot):
    panel.controls.n.setValue(131072)
    _wait(qtbot, panel)
    heat = panel.responses["waves.heatmap"]
    assert heat.overview and heat.row_bin > 1
    assert "Overview" in panel.heatmap.note.text()
    assert "Showing positions 0–1,023 of N = 131,072" in panel.matrix.readout.text()
    # hovering an overview cell reads the block's exact minimum and maximum
    plot = panel.heatmap.plot
    qtbot.mouseMove(plot.viewport(), _view_pos(plot, 40.5, 70000.5))
    qtbot.waitUntil(lambda: "this overview cell" in panel.heatmap.readout.text(), timeout=3000)
    text = panel.heatmap.readout.text()
    first, last = (int(v.replace(",", "")) for v in re.search(r"positions ([\d,]+)–([\d,]+):", text).groups())
    assert first <= 70000 <= last and last - first + 1 == heat.row_bin
    block = sinusoidal(np.arange(first, last + 1, dtype=float), 64)[:, 40]
    assert f"min {block.min():+.3f}, max {block.max():+.3f}" in text
    # zoom in (as the wheel would) and the visible rows come back at full resolution
    panel.heatmap.vb.setRange(yRange=(5000, 5100), xRange=(0, 64), padding=0)
    panel.heatmap.rangeEdited.emit()
    qtbot.waitUntil(lambda: panel.responses["waves.heatmap"].rows[0] >= 4990, timeout=SETTLE_MS)
    _wait(qtbot, panel)
    heat = panel.responses["waves.heatmap"]
    assert not heat.overview and "Full resolution" in panel.heatmap.note.text()
    r0, r1 = heat.rows
    np.testing.assert_allclose(heat.image, sinusoidal(np.arange(r0, r1, dtype=float), 64), atol=1e-6)
    qtbot.mouseClick(panel.heatmap.full_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.responses["waves.heatmap"].overview, timeout=SETTLE_MS)


# -- play ----------------------------------------------------------------------------------------------------
def test_play_animates_p_and_any_click_stops_it(panel, qtbot):
    panel.set_state(panel.state.clamped(play_speed=200.0))
    start = panel.state.position
    qtbot.mouseClick(panel.controls.play, Qt.MouseButton.LeftButton)
    assert panel.playing and panel.controls.play.text().startswith("■")
    qtbot.waitUntil(lambda: panel.state.position != start, timeout=3000)
    qtbot.mouseClick(panel.heatmap.full_button, Qt.MouseButton.LeftButton)
    assert not panel.playing
    stopped = panel.state.position
    qtbot.wait(150)
    assert panel.state.position == stopped
    _wait(qtbot, panel)
    assert not panel.responses["waves.heatmap"].request.preview


def test_play_animates_k_and_a_key_stops_it(panel, qtbot):
    panel.set_state(panel.state.clamped(play_target="offset", play_speed=300.0))
    start = panel.state.offset
    panel.start_play()
    qtbot.waitUntil(lambda: panel.state.offset != start, timeout=3000)
    qtbot.keyClick(panel.controls.pairs, Qt.Key.Key_A)
    assert not panel.playing
    # and the play button toggles it off itself without restarting
    qtbot.mouseClick(panel.controls.play, Qt.MouseButton.LeftButton)
    assert panel.playing
    qtbot.mouseClick(panel.controls.play, Qt.MouseButton.LeftButton)
    assert not panel.playing


# -- other linked controls -----------------------------------------------------------------------------------
def test_dragging_the_l_train_line_sets_l_train(panel, qtbot):
    panel.beyond.l_line.setValue(200)
    assert panel.state.l_train == 200
    _wait(qtbot, panel)
    assert panel.responses["waves.curves"].request.l_train == 200
    assert "Past L_train = 200" in panel.beyond.readout.text()


def test_overlay_checkbox(panel, qtbot):
    qtbot.mouseClick(panel.vector.overlay_box, Qt.MouseButton.LeftButton)
    assert panel.state.overlay is False
    assert not panel.vector.overlay.isVisible()


def test_hooks(panel):
    assert panel.export_basename() == "waves_d64_base10000_N256_paper"
    assert panel.main_slider() is panel.controls.base.slider()
    st = panel.state
    text = panel.formula_text(st)
    assert f"p = {st.position}" in text and f"sin({st.position * 1:.6g})" in text
    assert "PE[p, 2i] = sin" in text
    assert "PE[p, i+32]" in panel.formula_text(st.clamped(variant="halves"))
    assert "10000<sup>−i/31</sup>" in panel.formula_text(st.clamped(variant="t2t"))


def test_exported_numbers_are_exact_not_display_samples(panel):
    table = panel.export_data(panel.heatmap.plot)["PE"]
    np.testing.assert_array_equal(table, sinusoidal(256, 64))
    waves = panel.export_data(panel.waves.plot)
    assert set(waves) == {"position"} | {f"pair {i} sin" for i in panel.waves.lanes}
    np.testing.assert_allclose(waves["pair 1 sin"], np.sin(np.arange(256) * 10000.0 ** (-2 / 64)), atol=1e-6)
    spec = panel.export_data(panel.spectrum.plot)
    assert spec["wavelength"][0] == pytest.approx(2 * np.pi)
    vec = panel.export_data(panel.vector.plot)
    np.testing.assert_array_equal(vec["PE(p)"], sinusoidal(256, 64)[panel.state.position])


def test_overview_colours_spread_blocks_grey_and_agreeing_blocks_by_value():
    from explorer.panels.waves.views_heatmap import SPREAD_GREY, overview_rgba
    from explorer.widgets.plots import colormap

    cm = colormap()
    mins = np.array([[-1.0, 0.5, -0.2]], dtype=np.float32)
    maxs = np.array([[1.0, 0.5, 0.2]], dtype=np.float32)
    rgba = overview_rgba(mins, maxs, cm)
    np.testing.assert_array_equal(rgba[0, 0, :3], np.round(255 * SPREAD_GREY))  # runs through [−1, 1]
    want = cm.map(np.array([0.75]), mode="float")[0, :3] * 255  # the colour of value 0.5
    np.testing.assert_allclose(rgba[0, 1, :3], want, atol=1)
    assert rgba[0, 2, 0] != rgba[0, 1, 0]


def test_views_follow_a_held_drag_not_only_its_end(panel, qtbot):
    # While a slider is held, each key has one request in flight, so results are current when they
    # arrive and get drawn (the service would drop every result overtaken by a newer request).
    slider = panel.main_slider()
    slider.setSliderDown(True)
    seen = set()
    for v in range(620, 700, 20):  # each step waits for its drawing: a loaded machine slows it, never skips it
        slider.setValue(v)

        def drawn() -> bool:
            request = panel.responses["waves.heatmap"].request
            return request.base == panel.state.base and request.preview and not panel.frames.pending

        qtbot.waitUntil(drawn, timeout=SETTLE_MS)
        seen.add(panel.responses["waves.heatmap"].request.base)
    held = set(seen)
    slider.setSliderDown(False)
    _wait(qtbot, panel)
    assert len(held) >= 3  # several intermediate bases were drawn during the drag
    assert all(panel.responses["waves.heatmap"].request.base != b for b in held if b != panel.state.base)


def test_letting_go_draws_nothing_in_its_own_turn_and_everything_antialiased_after(panel, qtbot, monkeypatch):
    """The release asks for the exact results and draws them (and what is not asked again) as results are drawn,
    a plot per turn: it used to redraw every drag result, rough data antialiased, all in the release's turn."""
    panel.tabs.setCurrentIndex(1)  # the position vector's bars too
    qtbot.waitUntil(panel.vector.isVisible, timeout=5000)
    _wait(qtbot, panel)
    slider = panel.main_slider()
    slider.setSliderDown(True)
    slider.setValue(slider.value() + 40)
    qtbot.waitUntil(lambda: not panel.waiting, timeout=20000)
    bars = panel.vector.bars
    assert not bars.opts["antialias"]  # drawn rough while held
    draws = []
    real = panel._draw
    monkeypatch.setattr(panel, "_draw", lambda view, r: (draws.append(view), real(view, r)))
    slider.setSliderDown(False)
    assert draws == []
    _wait(qtbot, panel)
    assert draws and bars.opts["antialias"]


def test_theme_colour_map_reaches_the_overview_image(panel, qtbot):
    class PrintLike:  # what the theme hook needs: the theme's name for the diverging map
        def map_colormap_name(self, name):
            return "CET-D7"

    panel.controls.n.setValue(131072)
    _wait(qtbot, panel)
    before = panel.heatmap.overview_item.image.copy()
    panel.apply_theme(PrintLike())
    assert panel.heatmap.cmap_name == "CET-D7"
    assert np.abs(panel.heatmap.overview_item.image.astype(int) - before).mean() > 10


# -- tabs built on first show (start-up) ------------------------------------------------------------------
def test_only_the_first_tab_is_built_and_a_tab_shown_later_draws_what_was_computed(qtbot, service):
    import pyqtgraph as pg

    from explorer.panels.waves.panel import TABS

    p = WavesPanel(service, WavesState().clamped(n_positions=256, d_model=64))
    qtbot.addWidget(p)
    try:
        p.resize(1200, 800)
        p.show()
        assert len(p.findChildren(pg.PlotWidget)) == 3  # heatmap, waves, spectrum: not all eleven
        assert [v for v in ("vector", "rotation", "similarity", "matrix", "beyond", "token", "why")
                if p.built_view(v) is not None] == []
        _wait(qtbot, p)
        p.tabs.setCurrentIndex(1)  # the Relative position tab, built now, draws the results already here
        assert p.built_view("rotation") is not None and p.built_view("beyond") is None
        assert len(p.rotation.plot.getPlotItem().listDataItems()) > 0
        _wait(qtbot, p)
        assert p.similarity.curve.getData()[0] is not None and len(p.similarity.curve.getData()[0]) > 0
        token = p.token  # asking for a view builds its tab, shown or not
        assert p.built_view("beyond") is not None and token is p.built_view("token")
        assert [names for _, names in TABS][:3] == [("heatmap", "waves", "spectrum"),
                                                    ("vector", "rotation", "similarity", "matrix"),
                                                    ("beyond", "token")]
        assert len(p.plots()) == len(p.findChildren(pg.PlotWidget)) > 9  # export menus see every plot
    finally:
        p.shutdown()


@pytest.mark.parametrize("variant, pair, edges", [("paper", 0, [0, 2]), ("paper", 5, [10, 12]),
                                                  ("t2t", 3, [3, 4, 35, 36])])
def test_the_picked_pair_is_outlined_round_its_columns_not_between_them(panel, qtbot, variant, pair, edges):
    """Interleaved, a pair's two columns touch: one box round both (a line between them too covered a pair 0 a few
    pixels a column wide in black); split into halves, a box round each."""
    panel.set_state(panel.state.clamped(variant=variant, pair=pair))
    _wait(qtbot, panel)
    x, y = panel.heatmap.pair_outline.getData()
    vertical = sorted({float(a) for a, b in zip(x[::2], x[1::2], strict=True) if a == b})
    assert vertical == edges
    assert set(y) == {0.0, float(panel.state.n_positions)}
