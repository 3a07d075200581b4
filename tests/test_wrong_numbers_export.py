"""Issue 17 §4: the Waves panel's exports are exact float64 numbers, never the display's float32 or its
approximated overview columns (main wrote the similarity curve 1.9e-6 off at d = 128 and ±1 for the
fastest columns of a 131072-position overview)."""

import numpy as np
import pytest

from explorer.encodings import sinusoidal
from explorer.encodings.sinusoidal import frequencies
from explorer.panels.waves import WavesPanel
from explorer.state import WavesState

SETTLE_MS = 30000


def _open(qtbot, service, **values):
    p = WavesPanel(service, WavesState().clamped(**values))
    qtbot.addWidget(p)
    p.resize(1440, 860)
    p.show()
    qtbot.waitExposed(p)
    for _ in range(2):  # the first resize re-requests at the real pixel size
        qtbot.waitUntil(lambda: p.has_drawn and not p.waiting and p.service.idle(), timeout=SETTLE_MS)
        qtbot.wait(100)
    return p


def _exact(a):
    assert a.dtype == np.float64, a.dtype
    return a


def test_similarity_matrix_and_lanes_are_exported_in_float64(qtbot, service):
    panel = _open(qtbot, service, n_positions=256, d_model=128, pairs=(0, 3, 20))
    try:
        st = panel.state
        omega = frequencies(st.d_model, st.base, st.variant)
        sim = panel.export_data(panel.similarity.plot)
        off = sim["offset"]
        want = np.cos(np.multiply.outer(off, omega)).sum(axis=1)
        assert np.max(np.abs(_exact(sim["sum cos(offset*omega)"]) - want)) <= 1e-12
        pe = sinusoidal(st.n_positions, st.d_model, st.base, st.variant)
        m = _exact(panel.export_data(panel.matrix.plot)["PE(p).PE(q)"])
        size = m.shape[0]
        assert np.max(np.abs(m - pe[:size] @ pe[:size].T)) <= 1e-12
        for plot in (panel.waves.plot, panel.beyond.plot):
            lanes = panel.export_data(plot)
            x = lanes["position"]
            for i in st.pairs:
                assert np.max(np.abs(_exact(lanes[f"pair {i} sin"]) - np.sin(x * omega[i]))) <= 1e-12
    finally:
        panel.shutdown()


def test_a_huge_overview_exports_the_exact_extrema_of_every_column(qtbot, service):
    """At N = 131072 the screen may draw the fastest columns as [−1, 1]; the export computes them."""
    panel = _open(qtbot, service, n_positions=131072, d_model=1024)
    try:
        heat = panel.responses["waves.heatmap"]
        assert heat.overview and heat.approx_columns > 0  # the screen approximates the fastest columns
        data = panel.export_data(panel.heatmap.plot)
        lo, hi = _exact(data["block_min"]), _exact(data["block_max"])
        st = panel.state
        omega = frequencies(st.d_model, st.base, st.variant)
        p = np.arange(heat.rows[0], heat.rows[1], dtype=np.float64)
        rb, cb = heat.row_bin, heat.col_bin
        blocks = -(-p.size // rb)
        # The fastest columns (the first two image columns) by brute force; paper layout: sin, cos, sin …
        cols = np.arange(2 * cb)
        table = np.full((blocks * rb, cols.size), np.nan)
        angle = np.multiply.outer(p, omega[cols // 2])
        table[: p.size] = np.where(cols % 2 == 1, np.cos(angle), np.sin(angle))
        cells = table.reshape(blocks, rb, 2, cb)
        assert np.max(np.abs(lo[:, :2] - np.nanmin(cells, axis=(1, 3)))) <= 1e-12
        assert np.max(np.abs(hi[:, :2] - np.nanmax(cells, axis=(1, 3)))) <= 1e-12
    finally:
        panel.shutdown()


@pytest.mark.parametrize("d_model", [2, 64])
def test_the_display_path_stays_float32(d_model):
    """Drag-time responses keep float32 (half the bytes to send and draw); only exports ask for float64."""
    from explorer import jobs
    from explorer.jobs.waves import requests_for

    h, c, _p, m = requests_for(WavesState().clamped(d_model=d_model, n_positions=64))
    assert jobs.run(h).image.dtype == np.float32
    assert jobs.run(c).sim_y.dtype == np.float32
    assert jobs.run(m).matrix.dtype == np.float32


def test_the_generic_read_back_gives_the_data_not_the_display_copy(qtbot):
    """A log axis drew log10(y), and downsampling and clip-to-view thinned the curve: the export is the data."""
    from explorer.widgets.plot_data import plot_arrays
    from explorer.widgets.plots import make_plot

    plot = make_plot("log", x="x", y="y")
    qtbot.addWidget(plot)
    x = np.arange(1.0, 5001.0)
    y = 1.0 / x
    item = plot.plot(x, y, name="1/x")
    item.setDownsampling(auto=True, method="peak")
    item.setClipToView(True)
    plot.setLogMode(x=True, y=True)
    plot.resize(200, 150)
    plot.show()
    plot.getPlotItem().setXRange(1, 2)  # log10 units: 10 … 100 visible
    qtbot.wait(20)
    out = plot_arrays(plot)
    assert np.array_equal(out["x"], x) and np.array_equal(out["1/x"], y)


def test_images_are_read_back_in_float64_not_the_drawn_float32(qtbot):
    """Heatmaps draw float32; the read-back (the Schemes panel's ALiBi and learned-table images) gave those."""
    from explorer.widgets.plot_data import plot_arrays
    from explorer.widgets.plots import Heatmap

    h = Heatmap("m")
    qtbot.addWidget(h)
    m = np.random.default_rng(1).standard_normal((5, 7)) / 3
    h.set_matrix(m)
    got = plot_arrays(h)["image"]
    assert got.dtype == np.float64 and np.array_equal(got, m)
    h.image.setImage(np.zeros((2, 2), dtype=np.float32))  # drawn some other way: what is shown is exported
    assert np.array_equal(plot_arrays(h)["image"], np.zeros((2, 2)))
