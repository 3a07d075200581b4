"""Every number the Waves panel shows, against formulas and brute force (no Qt)."""

import dataclasses
import math

import numpy as np
import pytest

from explorer import jobs
from explorer.encodings import EncodingError, frequencies, rotation, sinusoidal, wavelengths
from explorer.encodings.sinusoidal import column_pair, dot_by_offset
from explorer.jobs.waves import (
    APPROX_MIN_PERIODS,
    MATRIX_MAX,
    CurvesRequest,
    HeatmapRequest,
    MatrixRequest,
    PickRequest,
    TableRequest,
    WavesRequest,
    WavesResponse,
    cell_info,
    column_extrema,
    compute_curves,
    compute_matrix,
    compute_pick,
    envelope,
    formula_numbers,
    heatmap_tile,
    matrix_size,
    pe_values,
    requests_for,
    similarity_by_offset,
    spectrum_counts,
)
from explorer.jobs.waves_pick import cosine, rotation_readout, token_readout, token_vector
from explorer.state import WavesState

VARIANTS = ("paper", "halves", "t2t")


def _columns(d, base, variant):
    pair, is_cos = column_pair(d, variant)
    return frequencies(d, base, variant)[pair], is_cos


def _brute_blocks(table, start, stop, size):
    rows = table[start:stop]
    out_min, out_max = [], []
    for b in range(0, stop - start, size):
        out_min.append(rows[b:b + size].min(axis=0))
        out_max.append(rows[b:b + size].max(axis=0))
    return np.array(out_min), np.array(out_max)


# -- exact block extrema -------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(12))
def test_block_extrema_are_exactly_the_tables(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.choice([2, 8, 64, 128]))
    base = float(10 ** rng.uniform(1, 7))
    variant = VARIANTS[seed % 3]
    n = int(rng.integers(40, 3000))
    start = int(rng.integers(0, n - 5))
    stop = int(rng.integers(start + 1, n + 1))
    size = int(rng.integers(1, 400))
    om, ic = _columns(d, base, variant)
    mins, maxs, approx = column_extrema(om, ic, start, stop, size)
    want_min, want_max = _brute_blocks(sinusoidal(n, d, base, variant), start, stop, size)
    assert not approx.any()
    np.testing.assert_array_equal(mins, want_min)
    np.testing.assert_array_equal(maxs, want_max)


def test_block_extrema_of_the_fastest_pair_are_not_plus_minus_one():
    # Integer samples of sin(p) over a short block miss the crest: the sampled extremum is what the
    # table holds, not the continuous wave's ±1.
    mins, maxs, _ = column_extrema(np.array([1.0]), np.array([False]), 0, 3, 3)
    assert maxs[0, 0] == pytest.approx(max(math.sin(0), math.sin(1), math.sin(2)), abs=0)
    assert maxs[0, 0] < 0.95
    assert mins[0, 0] == 0.0


def test_over_budget_only_many_period_columns_become_the_full_range():
    d, base, n, size = 256, 10000.0, 131072, 512
    om, ic = _columns(d, base, "paper")
    mins, maxs, approx = column_extrema(om, ic, 0, n, size, budget=100_000)
    assert approx.any() and not approx.all()
    assert np.all(size * om[approx] / (2 * np.pi) >= APPROX_MIN_PERIODS)
    np.testing.assert_array_equal(mins[:, approx], -1.0)
    np.testing.assert_array_equal(maxs[:, approx], 1.0)
    exact = ~approx
    ref_min, ref_max, _ = column_extrema(om[exact], ic[exact], 0, n, size)
    np.testing.assert_array_equal(mins[:, exact], ref_min)
    np.testing.assert_array_equal(maxs[:, exact], ref_max)


# -- heatmap -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_heatmap_at_full_resolution_is_the_table(variant):
    req = HeatmapRequest(200, 32, 777.0, variant, rows=(10, 150), cols=(3, 29), max_rows=512, max_cols=512)
    r = heatmap_tile(req)
    assert not r.overview and r.row_bin == r.col_bin == 1
    np.testing.assert_allclose(r.image, sinusoidal(200, 32, 777.0, variant)[10:150, 3:29], rtol=0, atol=1e-7)
    assert r.rect == (3, 10, 26, 140)


def test_heatmap_overview_keeps_exact_block_min_and_max():
    n, d = 5000, 64
    req = HeatmapRequest(n, d, 10000.0, "paper", rows=(0, n), cols=(0, d), max_rows=200, max_cols=512)
    r = heatmap_tile(req)
    assert r.overview and r.row_bin == math.ceil(n / 200)
    want_min, want_max = _brute_blocks(sinusoidal(n, d), 0, n, r.row_bin)
    np.testing.assert_allclose(r.mins, want_min, atol=1e-7)
    np.testing.assert_allclose(r.maxs, want_max, atol=1e-7)
    np.testing.assert_allclose(r.image, (want_min + want_max) / 2, atol=1e-7)
    assert r.image.shape[0] <= req.max_rows and r.image.dtype == np.float32
    x, y, w, h = r.rect
    assert (x, y, w) == (0, 0, d) and h >= n and h - n < r.row_bin


def test_heatmap_overview_bins_columns_too_without_picking_every_kth():
    n, d = 300, 1024
    req = HeatmapRequest(n, d, 10000.0, "halves", rows=(0, n), cols=(0, d), max_rows=200, max_cols=100)
    r = heatmap_tile(req)
    assert r.col_bin == math.ceil(d / 100)
    table = sinusoidal(n, d, variant="halves")
    b, cb = 7, 13
    block = table[b * r.row_bin:(b + 1) * r.row_bin, cb * r.col_bin:(cb + 1) * r.col_bin]
    assert r.mins[b, cb] == pytest.approx(block.min(), abs=1e-7)
    assert r.maxs[b, cb] == pytest.approx(block.max(), abs=1e-7)


@pytest.mark.parametrize("shape, row_bin, col_bin", [((10, 7), 3, 4), ((256, 128), 1, 2), ((5, 9), 5, 1),
                                                     ((33, 4), 8, 3), ((6, 6), 1, 1), ((1, 7), 4, 10),
                                                     ((3, 2), 5, 1)])
def test_block_extrema_of_a_table_are_each_blocks_own_min_and_max(shape, row_bin, col_bin):
    from explorer.encodings.extrema import block_extrema

    table = np.random.default_rng(shape[0]).normal(size=shape).astype(np.float32)
    mins, maxs = block_extrema(table, table, row_bin, col_bin)
    rows, cols = -(-shape[0] // row_bin), -(-shape[1] // col_bin)
    assert mins.shape == maxs.shape == (rows, cols) and mins.dtype == np.float32
    for i in range(rows):
        for j in range(cols):
            block = table[i * row_bin:(i + 1) * row_bin, j * col_bin:(j + 1) * col_bin]
            assert mins[i, j] == block.min() and maxs[i, j] == block.max()


@pytest.mark.parametrize("preview", [False, True])
def test_a_small_tables_overview_is_its_own_values_block_by_block(preview, monkeypatch):
    """At most DIRECT_CELLS cells: the table is evaluated whole (the default drag's 256 × 128 in 120 columns took
    1.15 ms through the crest search, 0.3 this way); no crest search runs, and nothing is drawn as [−1, 1]."""
    from explorer.jobs import waves

    def no_crests(*args, **kwargs):
        raise AssertionError("a small table's overview searched for crests")

    monkeypatch.setattr(waves, "column_extrema", no_crests)
    monkeypatch.setattr(waves, "preview_extrema", no_crests)
    n, d = 300, 100
    assert n * d <= waves.DIRECT_CELLS
    r = heatmap_tile(HeatmapRequest(n, d, 500.0, "halves", rows=(0, n), cols=(0, d), max_rows=37, max_cols=7,
                                    preview=preview))
    assert r.overview and (r.row_bin, r.col_bin) == (9, 15)
    assert r.approx_columns == 0 and r.skipped_columns == 0
    table = sinusoidal(n, d, 500.0, "halves")
    want = [[table[i * 9:(i + 1) * 9, j * 15:(j + 1) * 15] for j in range(7)] for i in range(34)]
    want_min = np.array([[b.min() for b in row] for row in want])
    want_max = np.array([[b.max() for b in row] for row in want])
    if preview:  # a drag step's sines in float32, within 2e-7
        np.testing.assert_allclose(r.mins, want_min, rtol=0, atol=2e-7)
        np.testing.assert_allclose(r.maxs, want_max, rtol=0, atol=2e-7)
    else:  # the exact values, rounded to the float32 image
        np.testing.assert_array_equal(r.mins, want_min.astype(np.float32))
        np.testing.assert_array_equal(r.maxs, want_max.astype(np.float32))
    assert r.rect == (0, 0, 7 * 15, 34 * 9) and r.rgba.shape == (34, 7, 4)


def test_the_default_drag_tile_is_the_same_evaluated_whole_or_by_its_crests():
    from explorer.encodings.extrema import preview_extrema
    from explorer.jobs.waves import PREVIEW_HEATMAP_EVALS

    req = HeatmapRequest(256, 128, 10000.0, "paper", rows=(0, 256), cols=(0, 128), max_rows=296, max_cols=120,
                         preview=True)
    r = heatmap_tile(req)
    om, ic = _columns(128, 10000.0, "paper")
    mins, maxs, approx, skipped = preview_extrema(om, ic, column_pair(128, "paper")[0], 0, 256, 1, 2,
                                                  PREVIEW_HEATMAP_EVALS)
    assert not approx.any() and not skipped.any()
    np.testing.assert_allclose(r.mins, mins, rtol=0, atol=2e-7)
    np.testing.assert_allclose(r.maxs, maxs, rtol=0, atol=2e-7)


def test_requests_carry_only_what_they_compute_and_equal_ones_share_the_cache():
    # Which state asked is the requester's business (the service carries its origin), not the request's.
    for req in requests_for(WavesState()):
        assert "state" not in {f.name for f in dataclasses.fields(req)}
    a = HeatmapRequest(64, 16, 10000.0, "paper")
    b = HeatmapRequest(64, 16, 10000.0, "paper")
    assert a == b and hash(a) == hash(b)
    assert jobs.run(a) is jobs.run(b)  # the second is served from the cache


def test_the_export_table_job_gives_every_visible_cell():
    st = WavesState().clamped(n_positions=300, d_model=32)
    got = jobs.run(TableRequest(st.d_model, st.base, st.variant, (10, 250), (3, 30)))
    np.testing.assert_array_equal(got, sinusoidal(250, 32)[10:250, 3:30])
    with pytest.raises(EncodingError, match="exported cell by cell"):
        jobs.run(TableRequest(32, 10000.0, "paper", (0, 2**20), (0, 2)))


# -- curves ------------------------------------------------------------------------------------------------
def test_envelope_is_the_column_or_its_exact_block_range():
    om = frequencies(64, 10000.0)[3]
    x, y, b = envelope(om, False, 5, 105, 200)
    assert b == 1
    np.testing.assert_array_equal(y, sinusoidal(105, 64)[5:, 6])
    x, y, b = envelope(om, False, 0, 20000, 100)
    assert b == 200 and x.size == 2 * 100
    col = sinusoidal(20000, 64)[:, 6]
    np.testing.assert_array_equal(y[0::2], col.reshape(-1, 200).min(axis=1))
    np.testing.assert_array_equal(y[1::2], col.reshape(-1, 200).max(axis=1))


@pytest.mark.parametrize("variant", VARIANTS)
def test_similarity_curve_is_the_offset_formula(variant):
    om = frequencies(128, 10000.0, variant)
    x, y, b = similarity_by_offset(om, -300, 300, 400)
    assert b == 1
    np.testing.assert_array_equal(x, np.arange(-300, 301))
    np.testing.assert_allclose(y, dot_by_offset(x, 128, 10000.0, variant), atol=1e-9)
    x, y, b = similarity_by_offset(om, -9999, 9999, 50)
    ref = dot_by_offset(np.arange(-9999, 10000), 128, 10000.0, variant)
    blocks = [ref[i:i + b] for i in range(0, ref.size, b)]
    np.testing.assert_allclose(y[0::2], [blk.min() for blk in blocks], atol=1e-8)
    np.testing.assert_allclose(y[1::2], [blk.max() for blk in blocks], atol=1e-8)


def test_similarity_depends_only_on_the_offset_and_is_symmetric():
    st = WavesState().clamped(n_positions=300, d_model=64)
    pe = sinusoidal(300, 64)
    m = pe @ pe.T
    x, y, _ = similarity_by_offset(frequencies(64), -299, 299, 1000)
    f = dict(zip(x.astype(int), y, strict=True))
    for p, q in [(0, 5), (100, 105), (250, 255), (7, 3), (3, 7)]:
        assert m[p, q] == pytest.approx(f[q - p], abs=1e-10)
    np.testing.assert_allclose(y, y[::-1], atol=1e-10)
    assert st.n_positions == 300


@pytest.mark.parametrize("variant", VARIANTS)
def test_pair_zero_is_the_fastest_and_wavelengths_grow(variant):
    # The direction claim, pinned: ω_0 = 1 (λ_0 = 2π) and λ grows with the pair index.
    r = compute_curves(CurvesRequest(256, 128, 10000.0, variant, pairs=(0, 5)))
    lam = r.wavelengths
    assert lam[0] == pytest.approx(2 * np.pi, rel=1e-15)
    assert np.all(np.diff(lam) > 0)
    lo, hi = r.bounds
    assert lo == pytest.approx(2 * np.pi) and hi == pytest.approx(2 * np.pi * 10000.0)
    if variant == "t2t":
        assert lam[-1] == pytest.approx(hi, rel=1e-12)
    else:
        assert lam[-1] == pytest.approx(2 * np.pi * 10000.0 ** (126 / 128), rel=1e-12)
        assert lam[-1] < hi
    # and pair 0 really oscillates faster: more sign changes over the same positions
    sign_changes = {i: np.count_nonzero(np.diff(np.sign(r.waves[i][1]))) for i in (0, 5)}
    assert sign_changes[0] > sign_changes[5]


def test_spectrum_counts_pairs_that_never_complete_a_cycle():
    lam = wavelengths(128, 10000.0)
    slow, unseen = spectrum_counts(lam, 256, 100)
    omega = frequencies(128, 10000.0)
    # Positions 0 … N−1 reach the angle (N − 1)·ω: a cycle needs (N − 1)·ω ≥ 2π.
    assert slow == np.count_nonzero(255 * omega < 2 * np.pi)
    assert unseen == np.count_nonzero(99 * omega < 2 * np.pi)
    assert 0 < slow < unseen < 64
    r = compute_curves(CurvesRequest(256, 128, 10000.0, "paper", l_train=100))
    assert (r.slow_pairs, r.unseen_pairs) == (slow, unseen)


# -- rotation, picked values, token ----------------------------------------------------------------------
@pytest.mark.parametrize("k", [0, 1, 8, -37, 4096])
def test_rotation_is_exact_and_independent_of_p(k):
    omega = frequencies(128, 10000.0)[5]
    out = rotation_readout(float(omega), k, 2048)
    assert out["error"] < 1e-11
    assert out["angle_spread"] < 1e-9
    np.testing.assert_array_equal(out["R"], rotation(k, omega))
    assert out["angle"] == pytest.approx(k * omega)
    assert out["angle_mod"] == pytest.approx(math.remainder(k * omega, 2 * np.pi))
    # The same matrix maps PE_i(p) to PE_i(p+k) at very different p.
    for p in (0, 17, 1999):
        v = np.array([math.sin(p * omega), math.cos(p * omega)])
        w = np.array([math.sin((p + k) * omega), math.cos((p + k) * omega)])
        np.testing.assert_allclose(out["R"] @ v, w, atol=1e-12)


def test_pick_values_match_the_table_and_the_offset_formula():
    req = PickRequest(300, 64, 10000.0, "halves", position=20, offset=-25, pair=3, p1=2, p2=90)
    r = compute_pick(req)
    np.testing.assert_array_equal(r.pe_p, sinusoidal(300, 64, variant="halves")[20])
    omega = frequencies(64, 10000.0)
    # p + k = -5 lies before the sequence: the formula still defines it
    np.testing.assert_allclose(r.pe_pk[:32], np.sin(-5 * omega), atol=1e-15)
    assert r.dot == pytest.approx(float(np.cos(-25 * omega).sum()), abs=1e-12)
    assert r.dot == pytest.approx(r.dot_formula, abs=1e-12)
    np.testing.assert_allclose(r.pair_p, [math.sin(20 * omega[3]), math.cos(20 * omega[3])], atol=1e-15)
    assert r.marker_error < 1e-12
    assert r.marker_q[0] == 0 and r.marker_q[-1] == 20 + 256


def test_a_drag_step_without_the_similarity_plot_leaves_its_markers_out():
    st = WavesState().clamped(n_positions=8192, d_model=1024)
    pick = lambda **kw: next(r for r in requests_for(st, **kw) if isinstance(r, PickRequest))  # noqa: E731
    assert not pick(px=(300, 0, 0), preview=True).markers  # held, the similarity plot hidden
    assert pick(px=(300, 0, 300), preview=True).markers and pick(px=(300, 0, 0)).markers  # shown, or at rest
    without = compute_pick(pick(px=(300, 0, 0), preview=True))
    assert without.marker_q.size == without.marker_dot.size == 0 and without.marker_error == 0.0
    full = compute_pick(pick(px=(300, 0, 300), preview=True))
    assert full.marker_q.size == 10 + 128 + 1 and full.marker_error < 1e-9  # p = 10; 131 072 / d rows after it
    np.testing.assert_array_equal(without.pe_p, full.pe_p)  # the rest is the same
    assert without.dot == full.dot and without.token["cos_pe"] == full.token["cos_pe"]


def test_token_cosine_and_norms():
    d = 64
    t = token_readout(d, 10000.0, "paper", 0.7, 3, 4, 50)
    x = token_vector(d, 0.7, 3)
    pe = sinusoidal(np.array([4.0, 50.0]), d)
    v1, v2 = x + pe[0], x + pe[1]
    assert t["cos_tokens"] == pytest.approx(v1 @ v2 / np.linalg.norm(v1) / np.linalg.norm(v2), abs=1e-14)
    assert t["cos_pe"] == pytest.approx(pe[0] @ pe[1] / (d / 2), abs=1e-14)
    assert t["norm_pe"] == pytest.approx(math.sqrt(d / 2), abs=1e-12) == t["norm_pe_exact"]
    assert t["max_abs_pe"] <= 1.0
    assert t["norm_x"] == pytest.approx(np.linalg.norm(x))
    # α = 0: only position is left; α large: the token dominates
    assert token_readout(d, 10000.0, "paper", 0.0, 3, 4, 50)["cos_tokens"] == pytest.approx(t["cos_pe"])
    assert token_readout(d, 10000.0, "paper", 100.0, 3, 4, 50)["cos_tokens"] > 0.999
    assert cosine(np.zeros(3), np.ones(3)) == 0.0


def test_cell_info_names_the_pair_and_the_exact_value():
    st = WavesState().clamped(d_model=16, variant="halves")
    info = cell_info(st, 37, 11)
    assert (info["pair"], info["kind"]) == (3, "cos")
    assert info["value"] == sinusoidal(38, 16, variant="halves")[37, 11]
    assert info["wavelength"] == pytest.approx(2 * np.pi / info["omega"])
    assert cell_info(WavesState(), 5, 0)["wavelength"] == pytest.approx(2 * np.pi)


def test_formula_numbers():
    st = WavesState().clamped(position=10, pair=2, d_model=128, base=10000.0)
    nums = formula_numbers(st)
    w = 10000.0 ** (-4 / 128)
    assert nums["omega"] == pytest.approx(w)
    assert nums["sin"] == pytest.approx(math.sin(10 * w)) and nums["cos"] == pytest.approx(math.cos(10 * w))
    assert (nums["sin_col"], nums["cos_col"]) == (4, 5)


# -- matrix --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_matrix_is_computed_directly_symmetric_and_toeplitz(variant):
    r = compute_matrix(MatrixRequest(200, 32, 5000.0, variant, size=200))
    pe = sinusoidal(200, 32, 5000.0, variant)
    np.testing.assert_allclose(r.matrix, pe @ pe.T, atol=1e-5)
    assert r.asymmetry < 1e-12 and r.toeplitz_spread < 1e-11 and r.formula_error < 1e-11
    assert r.peak == 16 and r.size == 200


def test_matrix_size_keeps_the_matrix_live():
    assert matrix_size(300, 128) == 300
    assert matrix_size(131072, 128) == MATRIX_MAX
    assert matrix_size(131072, 4096) ** 2 * 4096 <= 2**28
    assert matrix_size(131072, 128, preview=True) < matrix_size(131072, 128)


def test_everything_at_once_for_a_state():
    st = WavesState().clamped(n_positions=500, d_model=32)
    r = jobs.run(WavesRequest(st, max_rows=128, max_cols=64))
    assert isinstance(r, WavesResponse)
    assert r.heatmap.overview and r.matrix.size == 500
    assert set(r.curves.waves) == set(st.pairs) | {st.pair}
    reqs = requests_for(st)
    assert [q.key for q in reqs] == ["waves.heatmap", "waves.curves", "waves.views", "waves.matrix"]
    assert reqs[2].position == st.position and reqs[0].n_positions == st.n_positions
    assert [jobs.run(q).request for q in reqs] == list(reqs)


def test_pe_values_accept_any_integer_position():
    v = pe_values([-3, 0, 7], [0, 1, 5], 8, 100.0, "paper")
    w = frequencies(8, 100.0)
    np.testing.assert_allclose(v[:, 2], np.cos(np.array([-3, 0, 7]) * w[2]), atol=1e-15)
    np.testing.assert_allclose(v[:, 0], np.sin(np.array([-3, 0, 7]) * w[0]), atol=1e-15)


# -- a drag step's overview, sized to a frame at every d ----------------------------------------------
@pytest.mark.parametrize("variant", ["paper", "halves"])
@pytest.mark.parametrize("n, d", [(8192, 1024), (8192, 4096), (131072, 128)])
def test_a_drag_overview_is_counted_inside_the_exact_range_and_exact_on_release(n, d, variant):
    from explorer.encodings.extrema import PREVIEW_MIN_PERIODS, preview_extrema
    from explorer.jobs.waves import PREVIEW_HEATMAP_EVALS

    req = dict(n_positions=n, d_model=d, base=10000.0, variant=variant, rows=(0, n), cols=(0, d),
               max_rows=304, max_cols=240)
    drag = heatmap_tile(HeatmapRequest(**req, preview=True))
    full = heatmap_tile(HeatmapRequest(**req))
    assert full.approx_columns == 0 and full.skipped_columns == 0  # letting go: every column, exactly
    assert drag.mins.shape == full.mins.shape and np.all(np.isfinite(drag.mins)) and np.all(np.isfinite(drag.maxs))
    # Each cell shows a part of its exact range, or the whole of [−1, 1] (a fast column in it).
    wide = (drag.mins == -1.0) & (drag.maxs == 1.0)
    # (to float32: a drag step's sines are evaluated in float32, within 2e-7)
    assert np.all(drag.mins[~wide] >= full.mins[~wide] - 2e-7) and np.all(drag.maxs[~wide] <= full.maxs[~wide] + 2e-7)
    # What a drag step evaluates is bounded whatever d is: the columns it kept, times the block ends.
    om, ic = _columns(d, 10000.0, variant)
    pair = column_pair(d, variant)[0]
    row_bin, group = drag.row_bin, drag.col_bin
    _, _, approx, skipped = preview_extrema(om, ic, pair, 0, n, row_bin, group, PREVIEW_HEATMAP_EVALS)
    assert drag.approx_columns == approx.sum() and drag.skipped_columns == skipped.sum()
    assert np.all(row_bin * om[approx] / (2 * np.pi) >= PREVIEW_MIN_PERIODS)
    kept = d - approx.sum() - skipped.sum()
    assert 2 * drag.mins.shape[0] * kept <= 2 * PREVIEW_HEATMAP_EVALS
    if d >= 1024:
        assert drag.approx_columns + drag.skipped_columns > d // 2  # most of the width is not evaluated


def test_a_drag_overview_within_budget_is_the_exact_one():
    from explorer.encodings.extrema import preview_extrema

    om, ic = _columns(64, 10000.0, "paper")
    pair = column_pair(64, "paper")[0]
    mins, maxs, approx, skipped = preview_extrema(om, ic, pair, 0, 8192, 32, 1, 10**9)
    ref_min, ref_max, _ = column_extrema(om, ic, 0, 8192, 32)
    assert not approx.any() and not skipped.any()
    np.testing.assert_allclose(mins, ref_min, rtol=0, atol=2e-7)  # its sines in float32
    np.testing.assert_allclose(maxs, ref_max, rtol=0, atol=2e-7)


def test_a_drag_steps_lanes_over_a_long_table_cost_a_bounded_number_of_evaluations(monkeypatch):
    """Four lanes at N = 131 072 were ~105 000 crest evaluations a drag step; now the lanes share
    PREVIEW_LANE_EVALS, the fast ones drawn as the band [−1, 1] (within 0.001 of their exact strokes)."""
    from explorer.encodings import extrema
    from explorer.jobs.waves import PREVIEW_LANE_EVALS, CurvesRequest, compute_curves

    evaluated = []
    real = extrema._apply_candidates

    def counting(omega, phase, is_cos, theta_star, lo, counts, *rest):
        evaluated.append(int(np.sum(counts)))
        return real(omega, phase, is_cos, theta_star, lo, counts, *rest)

    monkeypatch.setattr(extrema, "_apply_candidates", counting)
    req = CurvesRequest(131072, 128, 10000.0, "paper", pairs=(0, 1, 4, 16), waves_range=(0, 131072), waves_px=300,
                        beyond_px=0, sim_px=0, preview=True)
    drag = compute_curves(req)
    assert 0 < sum(evaluated) <= PREVIEW_LANE_EVALS
    evaluated.clear()
    exact = compute_curves(dataclasses.replace(req, preview=False))
    assert sum(evaluated) > 2 * PREVIEW_LANE_EVALS
    for i in req.pairs:
        np.testing.assert_allclose(drag.waves[i][1], exact.waves[i][1], atol=1e-3)
        np.testing.assert_array_equal(drag.waves[i][0], exact.waves[i][0])
