"""2-D RoPE over image patches (Heo et al. 2024): axial against lucidrains' rotary-embedding-torch (its axial
frequencies), RoPE-Mixed against a second implementation in complex numbers written from the paper's
e^{i(x·f^x + y·f^y)} (rope-vit's form), and the properties that make the views mean something: relative in 2-D,
the expected score as the trace of the rotation, axial's cross, mixed's rotated crosses."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import jobs
from explorer import schemes as registry
from explorer.encodings import EncodingError
from explorer.encodings.rope2d import (
    axial_frequencies,
    cuts,
    grid_positions,
    grid_scores,
    magnitudes,
    mixed_angles,
    mixed_frequencies,
    raster_scores,
    rotate,
)
from explorer.jobs.grid import GridRequest, grid_ids
from explorer.state import SchemesState

torch = pytest.importorskip("torch")


def test_axial_matches_rotary_embedding_torch_axial_frequencies():
    """lucidrains' get_axial_freqs puts the rows' pairs first, rope-vit (and we) the columns': the same rotation
    once f^x and f^y trade places."""
    from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb

    d, rows, cols, theta = 32, 5, 7, 100.0
    m = magnitudes(d, theta)
    rot = RotaryEmbedding(dim=d // 2, custom_freqs=torch.tensor(m, dtype=torch.float64))
    freqs = rot.get_axial_freqs(rows, cols)  # (rows, cols, d): row angles, then column angles
    v = np.random.default_rng(0).standard_normal((rows * cols, d))
    ref = apply_rotary_emb(freqs.reshape(rows * cols, d), torch.tensor(v)).numpy()
    x, y = grid_positions(rows, cols)
    fx, fy = axial_frequencies(d, theta)
    np.testing.assert_allclose(rotate(v, fy, fx, x, y), ref, rtol=0, atol=1e-12)  # rows first, as theirs
    assert not np.allclose(rotate(v, fx, fy, x, y), ref, atol=1e-3)  # a check that can fail: the other order


def _complex_reference(v, fx, fy, x, y):
    """rope-vit's form: pairs as complex numbers (view_as_complex), times e^{i(x·f^x + y·f^y)} (torch.polar)."""
    vt = torch.tensor(v).reshape(v.shape[0], -1, 2)
    vc = torch.view_as_complex(vt.contiguous())
    ang = torch.tensor(x)[:, None] * torch.tensor(fx)[None] + torch.tensor(y)[:, None] * torch.tensor(fy)[None]
    return torch.view_as_real(vc * torch.polar(torch.ones_like(ang), ang)).reshape(v.shape).numpy()


def test_mixed_rotation_matches_the_complex_form_and_reduces_to_axial_at_angle_zero():
    d, side = 64, 6
    x, y = grid_positions(side, side)
    v = np.random.default_rng(1).standard_normal((side * side, d))
    fx, fy = mixed_frequencies(d, 10.0, mixed_angles(4, 3))
    for h in range(4):
        np.testing.assert_allclose(rotate(v, fx[h], fy[h], x, y), _complex_reference(v, fx[h], fy[h], x, y),
                                   rtol=0, atol=1e-12)
    fx0, fy0 = mixed_frequencies(d, 10.0, [0.0])
    ax, ay = axial_frequencies(d, 10.0)
    np.testing.assert_allclose(fx0[0], ax, atol=1e-15)  # cos(π/2) ≈ 6e-17, not 0
    np.testing.assert_allclose(fy0[0], ay, atol=1e-15)


def test_scores_are_relative_in_two_dimensions_and_the_trace_of_the_rotation():
    d, side = 16, 5
    fx, fy = mixed_frequencies(d, 10.0, mixed_angles(1, 0))
    x, y = grid_positions(side, side)
    q = np.random.default_rng(2).standard_normal((1, d))
    rot = [rotate(np.repeat(q, side * side, 0), fx[0], fy[0], x, y)]
    shifted = rotate(np.repeat(q, side * side, 0), fx[0], fy[0], x + 3.0, y - 2.0)
    np.testing.assert_allclose(rot[0] @ rot[0].T, shifted @ shifted.T, atol=1e-12)  # depends on (Δx, Δy) only
    eye = np.eye(d)
    query = 12
    s = grid_scores(fx, fy, side, side, query)
    for b in (0, 7, 24):  # E[(R_a q)·(R_b q)]/E|q|² = trace(R_aᵀR_b)/d
        ra = rotate(eye, fx[0], fy[0], np.full(d, x[query]), np.full(d, y[query]))
        rb = rotate(eye, fx[0], fy[0], np.full(d, x[b]), np.full(d, y[b]))
        assert s.ravel()[b] == pytest.approx(np.trace(ra @ rb.T) / d, abs=1e-12)


def test_axial_is_a_cross_and_mixed_heads_point_every_way():
    side, q = 14, 7 * 14 + 7
    fx, fy = axial_frequencies(64, 100.0)
    ax = cuts(grid_scores(fx, fy, side, side, q), q)
    np.testing.assert_allclose(ax["row"][1], ax["column"][1])  # a row and a column alike …
    # … and the diagonal three steps off (distance 3√2 ≈ 4.24) well below the row at that distance.
    row_at = np.interp(3 * np.sqrt(2), [4, 5], ax["row"][1][11:13])  # offsets +4, +5 of the row
    assert ax["diagonal"][1][10] < row_at - 0.1
    mx, my = mixed_frequencies(64, 100.0, mixed_angles(64, 0))
    mixed = cuts(grid_scores(mx, my, side, side, q), q)
    gap_axial = abs(ax["diagonal"][1][10] - np.interp(3 * np.sqrt(2), [4, 5], ax["row"][1][11:13]))
    gap_mixed = abs(mixed["diagonal"][1][10] - np.interp(3 * np.sqrt(2), [4, 5], mixed["row"][1][11:13]))
    assert gap_mixed < gap_axial / 3  # rows and diagonals alike once the heads' crosses point every way


def test_raster_rope_sees_a_row_neighbour_and_the_patch_below_differently():
    theta = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    s = raster_scores(theta, 8, 8, 3 * 8 + 3)
    assert s[3, 4] > s[4, 3]  # one position away vs eight


def test_bad_grids_are_one_line():
    for call, words in ((lambda: magnitudes(6, 10.0), "multiple of 4"),
                        (lambda: grid_scores(*axial_frequencies(8), 3, 3, 99), "outside"),
                        (lambda: grid_positions(10**6, 2), "at most")):
        with pytest.raises(EncodingError, match=words):
            call()


def test_grid_job_and_state():
    st = SchemesState(view="grid", grid_side=6, grid_query=8)
    assert set(grid_ids()) == {"rope", "rope_2d_axial", "rope_2d_mixed"}
    r = jobs.run(GridRequest("rope_2d_axial", 64, 10000.0, 8, 0, 6, 8, st.params_of("rope_2d_axial")))
    fx, fy = axial_frequencies(64, 100.0)
    np.testing.assert_array_equal(r.scores, grid_scores(fx, fy, 6, 6, 8))
    assert r.query == 8 and [c[0] for c in r.cuts] == ["row", "column", "diagonal"]
    centre = jobs.run(GridRequest("rope", 64, 10000.0, 8, 0, 6, -1))
    assert centre.query == 3 * 6 + 3 and centre.scores.ravel()[centre.query] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="multiple of 4"):  # a shown 2-D scheme needs d = 4k
        SchemesState(head_dim=6).clamped(show_rope_2d_axial=True)
    assert registry.get("rope_2d_mixed").parameters_added(st) == st.heads * st.head_dim
