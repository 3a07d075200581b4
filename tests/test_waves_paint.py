"""Waves: views update only what changed; drag-resolution jobs sized to a frame; RGBA made by the job."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from explorer.encodings.sinusoidal import wavelengths
from explorer.jobs.colours import lookup_table
from explorer.jobs.colours import overview_rgba as overview_rgba_bytes
from explorer.jobs.waves import (
    CurvesRequest,
    HeatmapRequest,
    PickRequest,
    compute_curves,
    compute_heatmap,
    compute_pick,
    heatmap_tile,
)
from explorer.panels.waves import WavesPanel
from explorer.panels.waves.views_heatmap import SPREAD_GREY, overview_rgba
from explorer.panels.waves.views_table import SpectrumView, WavesView
from explorer.service import Result
from explorer.state import WavesState


class _Count:
    """A spy standing in for one method of one object: counts calls, then does what it did."""

    def __init__(self, fn) -> None:
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


def _spy(monkeypatch, obj, name: str) -> _Count:
    spy = _Count(getattr(obj, name))
    monkeypatch.setattr(obj, name, spy)
    return spy


# -- views update only what changed -----------------------------------------------------------------
def test_waves_show_state_with_only_data_moved_rebuilds_no_pens_ticks_or_range(qtbot, monkeypatch):
    view = WavesView()
    qtbot.addWidget(view)
    st = WavesState().clamped(pairs=(0, 3, 9), pair=3)
    view.show_state(st, wavelengths(st.d_model, st.base, st.variant))
    pens = [_spy(monkeypatch, c, "setPen") for c in view.curves]
    yrange = _spy(monkeypatch, view.vb, "setYRange")
    ticks = _spy(monkeypatch, view.plot.getPlotItem().getAxis("left"), "setTicks")
    labels = list(view.lane_labels)
    # A base drag step too small to change a label's three digits, then a position step: data only.
    for new in (st.clamped(base=st.base + 1.0), st.clamped(base=st.base + 1.0, position=40)):
        view.show_state(new, wavelengths(new.d_model, new.base, new.variant))
    assert view.lane_labels == labels
    assert sum(p.calls for p in pens) == 0 and yrange.calls == 0 and ticks.calls == 0
    # A base step that changes the wavelengths' labels: the axis text follows, pens and range stay.
    big = st.clamped(base=20000.0)
    view.show_state(big, wavelengths(big.d_model, big.base, big.variant))
    assert ticks.calls == 1 and view.lane_labels != labels
    assert sum(p.calls for p in pens) == 0 and yrange.calls == 0
    # Another pair picked: now the pens (the picked lane is thicker) are remade.
    other = big.clamped(pair=9)
    view.show_state(other, wavelengths(other.d_model, other.base, other.variant))
    assert sum(p.calls for p in pens) >= 3 and view.lane_labels[2].startswith("▶")


def test_the_waves_views_menu_keeps_export_but_not_pyqtgraphs_plot_options(qtbot):
    """pyqtgraph's "Plot Options" switches (log, FFT, alpha, downsampling) act on PlotDataItems: on the views'
    plain curves and markers they raised AttributeError, and the spectrum's items hold log10(λ) already."""
    view = SpectrumView()
    qtbot.addWidget(view)
    pi = view.plot.getPlotItem()
    assert not pi.menuEnabled() and pi.getContextMenus(None) is None
    assert pi.getViewBox().menuEnabled() and view.plot.export_menu is not None


def test_held_min_max_lanes_draw_their_strokes_reaching_to_the_next_block(qtbot):
    """While a slider is held a binned lane is drawn as its vertical strokes only (half the segments), each
    reaching to where the polyline's slant from its maximum ends (the next block's minimum); at rest, and for a
    lane of every position, the polyline as before."""
    view = WavesView()
    qtbot.addWidget(view)
    st = WavesState().clamped(pairs=(0, 3, 40), pair=3)
    view.show_state(st, wavelengths(st.d_model, st.base, st.variant))
    r = compute_curves(CurvesRequest(65536, st.d_model, st.base, st.variant, pairs=view.lanes,
                                     waves_range=(0, 65536), waves_px=512))
    assert r.waves_bin > 1
    view.show_curves(r)
    rest = [(c.getData(), c.opts["connect"]) for c in view.curves[:len(view.lanes)]]
    assert {connect for _, connect in rest} == {"all"}
    view.fast = True
    view.show_curves(r)
    for j, lane in enumerate(view.lanes):
        curve = view.curves[j]
        assert curve.opts["connect"] == "pairs"
        (x, y), ((x0, y0), _) = curve.getData(), rest[j]
        np.testing.assert_array_equal(x, x0)
        mins, maxs = y0[0::2], y0[1::2]
        after = np.append(mins[1:], mins[-1])
        np.testing.assert_array_equal(y[0::2], np.minimum(mins, after))
        np.testing.assert_array_equal(y[1::2], np.maximum(maxs, after))
        assert np.all(y[0::2] <= mins) and np.all(y[1::2] >= maxs), lane  # every stroke still whole
    small = compute_curves(CurvesRequest(256, st.d_model, st.base, st.variant, pairs=view.lanes))
    assert small.waves_bin == 1
    view.show_curves(small)  # every position: a polyline, held or not
    assert {c.opts["connect"] for c in view.curves[:len(view.lanes)]} == {"all"}


def test_lanes_have_round_caps_only_where_antialiased(qtbot):
    """Square caps where the lanes are not antialiased (a held drag, min/max strokes): round caps are strokes of
    their own in software raster; pens are made only when antialiasing changes, not at every step."""
    from PySide6.QtCore import Qt

    view = WavesView()
    qtbot.addWidget(view)
    st = WavesState().clamped(pairs=(0, 3, 9), pair=3)
    view.show_state(st, wavelengths(st.d_model, st.base, st.variant))

    def show(state: WavesState, n_positions: int = 256) -> set:
        r = compute_curves(CurvesRequest(n_positions, state.d_model, state.base, state.variant, pairs=view.lanes,
                                         waves_range=(0, n_positions), waves_px=512))
        assert (r.waves_bin > 1) == (n_positions > 512)
        view.show_curves(r)
        return {c.opts["pen"].capStyle() for c in view.curves if c.isVisible()}

    assert show(st) == {Qt.PenCapStyle.RoundCap}
    view.fast = True
    pens = [c.opts["pen"] for c in view.curves]
    assert show(st) == {Qt.PenCapStyle.SquareCap}
    held = [c.opts["pen"] for c in view.curves]
    assert held != pens
    assert show(st.clamped(base=12000.0)) == {Qt.PenCapStyle.SquareCap}
    assert all(a is b for a, b in zip((c.opts["pen"] for c in view.curves), held, strict=True))  # not remade
    view.fast = False
    assert show(st) == {Qt.PenCapStyle.RoundCap}
    # Min/max strokes (more positions than pixels) are never antialiased: square caps at rest too.
    assert show(st, n_positions=131072) == {Qt.PenCapStyle.SquareCap}


def test_spectrum_draws_no_symbol_per_pair_at_d_1024(qtbot):
    view = SpectrumView()
    qtbot.addWidget(view)
    for d, dots in ((64, True), (1024, False), (128, True)):
        st = WavesState().clamped(d_model=d)
        r = compute_curves(CurvesRequest(st.n_positions, d, st.base, st.variant, pairs=(0, 1)))
        view.show_curves(r, st)
        assert view.dots.isVisible() == dots, d
        assert view.curve.getData()[0].size == d // 2  # every pair is still on the curve
        # The curve's items are given log10(λ): the plot's y axis is logarithmic.
        np.testing.assert_allclose(view.curve.getData()[1], np.log10(r.wavelengths))
        lanes = sorted(set(st.pairs) | {st.pair})
        assert view.lane_points.getData()[0].tolist() == lanes  # the chosen pairs keep their markers
        np.testing.assert_allclose(view.lane_points.getData()[1], np.log10(r.wavelengths[lanes]))


def test_formula_strip_is_rebuilt_only_when_its_inputs_change(qtbot, service, monkeypatch):
    panel = WavesPanel(service, WavesState().clamped(n_positions=256, d_model=64))
    qtbot.addWidget(panel)
    # k is one of the strip's inputs (its rounding scale (N − 1 + |k|)·ω·ε), so the strip follows it at once …
    panel.set_state(panel.state.clamped(offset=panel.state.offset + 3, pairs=(0, 2)), request=False)
    spy = _spy(monkeypatch, panel, "formula_text")
    text = panel.formula.text()
    r = compute_pick(PickRequest(256, 64, 10000.0, "halves"))
    for i in range(3):  # results arriving: the parameters did not change
        panel._draw_result("waves.views", Result("waves.views", i + 1, r.request, r, 1.0, panel.origin))
    assert spy.calls == 0 and panel.formula.text() == text
    panel.set_state(panel.state.clamped(position=7), request=False)
    assert spy.calls == 1 and "p = 7" in panel.formula.text()
    panel.shutdown()


# -- drag-resolution jobs sized to a frame -------------------------------------------------------------
def test_rotation_check_over_every_position_is_left_out_of_a_drag_step():
    req = PickRequest(131072, 128, 10000.0, "halves", position=5, offset=40, pair=7)
    drag = compute_pick(PickRequest(**{**req.__dict__, "preview": True}))
    full = compute_pick(req)
    assert drag.rotation["error"] is None and drag.rotation["angle_spread"] is None
    assert full.rotation["error"] < 1e-9 and full.rotation["angle_spread"] < 1e-9
    for k in ("omega", "wavelength", "angle", "angle_mod"):
        assert drag.rotation[k] == full.rotation[k]
    np.testing.assert_array_equal(drag.rotation["R"], full.rotation["R"])
    np.testing.assert_array_equal(drag.pe_p, full.pe_p)


def test_rotation_readout_is_absent_while_dragging_and_present_after_release(qtbot, service):
    panel = WavesPanel(service, WavesState().clamped(n_positions=2048, d_model=64))
    qtbot.addWidget(panel)
    panel.resize(1200, 800)
    panel.show()
    panel.show_view("relative")
    qtbot.waitExposed(panel)

    def settled():
        return panel.has_drawn and not panel.waiting and service.idle()

    def drawn_in_drag():
        r = panel.responses.get("waves.views")
        return r is not None and r.request.preview and not panel.waiting

    qtbot.waitUntil(settled, timeout=20000)
    slider = panel.main_slider()
    slider.setSliderDown(True)
    slider.setValue(slider.value() + 25)
    qtbot.waitUntil(drawn_in_drag, timeout=20000)
    assert panel.responses["waves.views"].rotation["error"] is None
    # While held, a readout shows a new text at most every TextPin's interval: it comes within one.
    qtbot.waitUntil(lambda: "when you let go" in panel.rotation.readout.text(), timeout=2000)
    slider.setSliderDown(False)
    qtbot.waitUntil(lambda: settled() and not panel.responses["waves.views"].request.preview, timeout=20000)
    assert panel.responses["waves.views"].rotation["error"] < 1e-9
    assert "max over p = 0…2,047" in panel.rotation.readout.text()
    panel.shutdown()


def test_a_drag_resolution_overview_fits_a_frame_budget_and_release_is_exact():
    req = dict(n_positions=131072, d_model=128, base=10000.0, variant="halves", rows=(0, 131072),
               cols=(0, 128), max_rows=304, max_cols=256)
    drag = heatmap_tile(HeatmapRequest(**req, preview=True))
    full = heatmap_tile(HeatmapRequest(**req))
    # While dragging, the fastest columns (≥ 8 periods in every block) are drawn as [−1, 1]; letting go is exact.
    assert drag.approx_columns > 0 and full.approx_columns == 0
    fast = drag.maxs[:, :drag.approx_columns]
    assert drag.overview and fast.size and np.all(drag.maxs.max(axis=0) > 0.9)


# -- RGBA on the compute side --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["CET-D1A", "CET-D7", "viridis", "cividis"])
def test_lookup_tables_equal_pyqtgraphs(name):
    np.testing.assert_array_equal(lookup_table(name), pg.colormap.get(name).getLookupTable(0, 1, 1024, alpha=False))


def test_the_heatmap_job_returns_uint8_rgba_in_the_colour_map(qtbot):
    req = HeatmapRequest(131072, 128, 10000.0, "halves", rows=(0, 131072), cols=(0, 128), max_rows=256,
                         max_cols=128, cmap="CET-D7")
    r = compute_heatmap(req)
    assert r.overview and r.rgba.dtype == np.uint8 and r.rgba.shape == r.mins.shape + (4,)
    assert np.all(r.rgba[..., 3] == 255)
    # Equal to the colours the view made itself before (pyqtgraph's map; grey by the spread).
    np.testing.assert_array_equal(r.rgba, overview_rgba(r.mins, r.maxs, pg.colormap.get("CET-D7")))
    agree = np.isclose(r.mins, r.maxs, atol=1e-6)
    lut = pg.colormap.get("CET-D7").getLookupTable(0, 1, 1024, alpha=False)
    mid = np.rint((r.mins[agree] + 1.0) * 511.5).astype(int)
    np.testing.assert_array_equal(r.rgba[agree][:, :3], lut[mid])  # a block that agrees: the map's colour
    spread = (r.maxs - r.mins) >= 2.0 - 1e-6
    if spread.any():
        np.testing.assert_array_equal(r.rgba[spread][:, :3], np.round(255 * SPREAD_GREY)[None].repeat(spread.sum(), 0))
    assert not np.array_equal(compute_heatmap(HeatmapRequest(**{**req.__dict__, "cmap": "CET-D1A"})).rgba, r.rgba)


def test_overview_colours_are_within_a_byte_of_the_exact_mix_with_grey():
    # One look-up per cell in a table of (colour, spread step) pairs; the mix it stands for, in floats here.
    rng = np.random.default_rng(7)
    a, b = rng.uniform(-1, 1, (2, 300, 250)).astype(np.float32)
    mins, maxs = np.minimum(a, b), np.maximum(a, b)
    lut = lookup_table("CET-D1A")
    got = overview_rgba_bytes(mins, maxs, lut)
    mid = np.rint(((mins + maxs) / 2 + 1) * 511.5).astype(int)
    s = ((maxs - mins) / 2)[..., None]
    want = (1 - s) * lut[mid] + s * (255 * SPREAD_GREY)
    assert np.abs(got[..., :3] - want).max() <= 1.0 and np.all(got[..., 3] == 255)
    assert np.abs(got[..., :3] - want).max() > 0.4  # (the check sees a byte's error: not all exact)
    # A cell of one value (a full-resolution tile) is exactly the map's colour.
    np.testing.assert_array_equal(overview_rgba_bytes(mins, mins, lut)[..., :3],
                                  lut[np.rint((mins + 1) * 511.5).astype(int)])
    # Strided input (a transposed table) gives the same picture.
    np.testing.assert_array_equal(overview_rgba_bytes(mins.T.copy().T, maxs, lut), got)


def test_a_drag_steps_sines_are_within_float32_of_the_exact_ones():
    from explorer.encodings.extrema import _sin32, _wave_table

    theta = np.concatenate([np.linspace(-10, 10, 10_001), np.random.default_rng(3).uniform(0, 131_072, 100_000)])
    assert np.abs(_sin32(theta) - np.sin(theta)).max() < 2e-7
    omega = 10000.0 ** -(np.arange(64) / 64)
    is_cos = np.arange(64) % 2 == 1
    p = np.arange(0, 131_072, 7)
    fast, exact = _wave_table(p, omega, is_cos, fast=True), _wave_table(p, omega, is_cos)
    assert fast.dtype == np.float32 and np.abs(fast - exact).max() < 2e-7
    from explorer.encodings.extrema import envelope

    for start, stop, px in ((0, 400, 300), (0, 131_072, 300), (5000, 9000, 64)):  # every position; min/max strokes
        for cos in (False, True):
            (x, y, b), (xf, yf, bf) = (envelope(0.7, cos, start, stop, px, fast=f) for f in (False, True))
            np.testing.assert_array_equal(x, xf)
            assert b == bf and np.abs(y - yf).max() < 2e-7


def test_the_heatmap_view_only_uploads_the_jobs_rgba(qtbot, monkeypatch):
    from explorer.panels.waves import views_heatmap

    panel_view = views_heatmap.HeatmapView()
    qtbot.addWidget(panel_view)
    r = compute_heatmap(HeatmapRequest(131072, 128, 10000.0, "halves", rows=(0, 131072), cols=(0, 128),
                                       max_rows=256, max_cols=128, cmap=panel_view.cmap_name))
    made = _spy(monkeypatch, views_heatmap, "overview_rgba")
    panel_view.show_result(r)
    assert made.calls == 0
    np.testing.assert_array_equal(panel_view.overview_item.image, r.rgba)
    panel_view.set_colormap_name("CET-D7")  # the theme changed before the job's new image came: recoloured here
    assert made.calls == 1


def test_a_drag_step_leaves_out_the_curves_only_hidden_views_draw(qtbot, service):
    panel = WavesPanel(service, WavesState().clamped(n_positions=4096, d_model=64))
    qtbot.addWidget(panel)
    panel.resize(1200, 800)
    panel.show()  # the first tab: waves and spectrum shown; similarity and beyond hidden
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: panel.has_drawn and not panel.waiting and service.idle(), timeout=20000)
    sim_before = panel.similarity.curve.getData()[1].copy()

    def curves_in_drag():
        r = panel.responses.get("waves.curves")
        return r is not None and r.request.preview and not panel.waiting

    slider = panel.main_slider()
    slider.setSliderDown(True)
    slider.setValue(slider.value() + 25)
    qtbot.waitUntil(curves_in_drag, timeout=20000)
    r = panel.responses["waves.curves"]
    assert r.request.sim_px == 0 and r.request.beyond_px == 0 and r.request.waves_px > 0
    assert r.sim_y.size == 0 and r.beyond == {} and r.waves
    panel._draw_stale()  # even if the hidden views were brought up to date now, they keep what they show
    np.testing.assert_array_equal(panel.similarity.curve.getData()[1], sim_before)
    panel.show_view("relative")  # shown during the drag: its curve is asked for at once
    qtbot.waitUntil(lambda: panel.responses["waves.curves"].request.sim_px > 0 and not panel.waiting, timeout=20000)
    assert panel.responses["waves.curves"].sim_y.size > 0
    slider.setSliderDown(False)
    qtbot.waitUntil(lambda: panel.has_drawn and not panel.waiting and service.idle(), timeout=20000)
    full = panel.responses["waves.curves"]
    assert not full.request.preview and full.beyond and full.sim_y.size
    panel.shutdown()


def test_full_resolution_tiles_come_coloured_too(qtbot):
    from explorer.panels.waves import views_heatmap

    view = views_heatmap.HeatmapView()
    qtbot.addWidget(view)
    r = compute_heatmap(HeatmapRequest(256, 64, 10000.0, "paper", rows=(0, 256), cols=(0, 64), cmap=view.cmap_name))
    assert not r.overview and r.rgba.shape == (256, 64, 4) and r.rgba.dtype == np.uint8
    lut = pg.colormap.get(view.cmap_name).getLookupTable(0, 1, 1024, alpha=False)
    np.testing.assert_array_equal(r.rgba[..., :3], lut[np.rint((r.image + 1.0) * 511.5).astype(int)])
    # The same bytes as an overview whose blocks have no spread (one value per cell, given as two arrays).
    np.testing.assert_array_equal(r.rgba, overview_rgba(r.image, r.image.copy(), pg.colormap.get(view.cmap_name)))
    view.show_result(r)
    assert view.overview_item.isVisible() and not view.plot.image.isVisible()
    np.testing.assert_array_equal(view.overview_item.image, r.rgba)
    view.set_colormap_name("CET-D7")  # before the job's new image: pyqtgraph maps the values meanwhile
    assert view.plot.image.isVisible() and not view.overview_item.isVisible()
