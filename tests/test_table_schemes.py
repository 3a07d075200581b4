"""The Schemes panel with a real learned table (a checkpoint's or the Lab's) in place of the seeded one."""

from __future__ import annotations

import dataclasses
import json
import pickle

import numpy as np
import pytest
from checkpoint_files import gpt2_folder, helix

from explorer import jobs
from explorer import schemes as registry
from explorer.encodings.checkpoint import load_table
from explorer.encodings.errors import EncodingError
from explorer.encodings.table_stats import fit_width
from explorer.jobs.real_tables import real_table
from explorer.jobs.schemes import (
    BeyondRequest,
    DistanceRequest,
    MatrixRequest,
    PropertiesRequest,
    build_requests,
)
from explorer.jobs.table import TableSource
from explorer.schemes.base import content_vectors
from explorer.snippets import NoSnippet
from explorer.state import SchemesState
from explorer.state.base import to_dict
from explorer.widgets.titles import full_title

TABLED = [s for s in registry.ids() if registry.get(s).uses_table]
M = 40  # rows of the test tables


def direct_scores(P: np.ndarray, d: int, n: int, seed: int = 0) -> np.ndarray:
    """ΔS[i, j] = (c·P_i + c·P_j + P_i·P_j)/√d for i, j < n straight from the rows; NaN past the last row."""
    c = content_vectors(d, "same", seed)[0]
    out = np.full((n, n), np.nan)
    k = min(n, P.shape[0])
    u = P[:k] @ c
    out[:k, :k] = (u[:, None] + u[None, :] + P[:k] @ P[:k].T) / np.sqrt(d)
    return out


def block_means(a: np.ndarray, b: int) -> np.ndarray:
    n = a.shape[0] // b
    return a[: n * b, : n * b].reshape(n, b, n, b).mean(axis=(1, 3))


def test_a_table_scheme_exists():
    assert TABLED, "some scheme takes a real table (the learned one)"


@pytest.mark.parametrize("width", [8, 16])
def test_matrix_is_the_rows_own_scores(width):
    P = helix(M, width)
    src = TableSource.from_array(P, "Lab: helix")
    rows = fit_width(P, M, 8)  # 16 wide: its first 8 principal directions, as Token swap takes them
    r = jobs.run(MatrixRequest(scheme=TABLED[0], l_eval=64, head_dim=8, l_train=512, table=src, max_cells=64))
    np.testing.assert_allclose(r.matrix, direct_scores(rows, 8, 64), rtol=1e-12, atol=1e-12)
    assert np.isnan(r.matrix[M:]).all() and np.isnan(r.matrix[:, M:]).all()  # no row past M, not L_train
    assert r.title.endswith("Lab: helix") and "no row" in r.missing and f"{M:,}" in r.missing
    # Blocks of 4 positions: exact block means of the same scores.
    rb = jobs.run(MatrixRequest(scheme=TABLED[0], l_eval=128, head_dim=8, l_train=512, table=src, max_cells=32))
    np.testing.assert_allclose(rb.matrix, block_means(direct_scores(rows, 8, 128), 4), rtol=1e-12, atol=1e-12)


def test_distance_curve_is_the_rows_own_mean():
    P = helix(M, 8)
    r = jobs.run(DistanceRequest(scheme=TABLED[0], l_eval=100, head_dim=8, l_train=512,
                                 table=TableSource.from_array(P, "Lab: helix")))
    full = direct_scores(P, 8, M)  # the curve averages over the positions that have rows
    want = [np.mean([full[i, i - k] for i in range(k, M)]) for k in r.distance]
    assert r.distance.max() == M - 1
    np.testing.assert_allclose(r.mean, want, rtol=1e-10, atol=1e-12)


def test_a_checkpoint_is_read_by_path_and_titled_by_its_model(tmp_path):
    folder = gpt2_folder(tmp_path / "gpt2", M, 16)
    src = TableSource.checkpoint(str(folder))
    req = MatrixRequest(scheme=TABLED[0], l_eval=64, head_dim=16, l_train=8, table=src, max_cells=64)
    r = jobs.run(req)
    P = load_table(str(folder)).table
    np.testing.assert_allclose(r.matrix, direct_scores(P, 16, 64), rtol=1e-12, atol=1e-12)
    assert r.title == f"{registry.get(TABLED[0]).title} · GPT-2 (checkpoint)"
    assert r.request == req  # the response carries the small request, not the rows
    plain = jobs.run(dataclasses.replace(req, table=None))
    assert plain.title.endswith("seeded random") and np.isnan(plain.matrix[8:]).all()
    # The request is small however big the table is: the compute process reads the file itself.
    assert len(pickle.dumps(req)) < 2000
    # A table the file no longer holds is one line, through the same checks as the Learned-table panel.
    file = folder / "model.safetensors"
    jobs.run(dataclasses.replace(req, table=TableSource.checkpoint(str(file))))
    file.write_bytes(b"\x00" * 4)  # edited: a new size, so read again
    with pytest.raises(EncodingError):
        jobs.run(dataclasses.replace(req, table=TableSource.checkpoint(str(file))))


def test_refusal_past_m_beyond_and_properties():
    P = helix(M, 8)
    src = TableSource.from_array(P, "Lab: helix")
    with pytest.raises(EncodingError, match=f"position {M} has no row"):
        real_table(src, 8).lookup([M])
    b = jobs.run(BeyondRequest(8, 10000.0, 16, 64, table=src))
    assert b.table_limit == M and b.table_title == "Lab: helix"
    has = b.table_rows < M
    assert np.isnan(b.table[~has]).all() and np.isfinite(b.table[has]).all()
    np.testing.assert_allclose(b.table[has], P[b.table_rows[has]][:, b.table_cols])
    seeded = jobs.run(BeyondRequest(8, 10000.0, 16, 64))
    assert seeded.table_limit == 16 and seeded.table_title == "seeded random"
    wide = jobs.run(BeyondRequest(8, 10000.0, 16, 64, table=TableSource.from_array(helix(M, 16), "wide")))
    assert "first 8 principal directions" in wide.table_note
    pr = jobs.run(PropertiesRequest((TABLED[0], "rope"), 8, 10000.0, 16, 64, 1, "none", 1.0, (), src))
    row = pr.rows[0]
    assert row[0].endswith("Lab: helix") and f"{M} × 8 = {M * 8}" in row[2] and f"positions ≥ {M}" in row[4]
    assert pr.parameters[TABLED[0]] == M * 8 and pr.rows[1][0] == registry.get("rope").title


def test_requests_carry_the_table_only_where_a_scheme_takes_it():
    st = SchemesState(view="matrices")
    src = TableSource.from_array(helix(M, 8), "Lab: helix")
    for view in ("matrices", "distance"):
        for req in build_requests(dataclasses.replace(st, view=view), table=src):
            assert (req.table is src) == registry.get(req.scheme).uses_table
            assert (req.table is None) or registry.get(req.scheme).score_snippet(req).__class__ is NoSnippet
    without = dataclasses.replace(st, schemes=tuple(s for s in st.schemes if s not in TABLED))
    for view in ("beyond", "properties"):
        reqs = build_requests(dataclasses.replace(without, view=view), table=src)
        assert all(getattr(r, "table", None) is None for r in reqs)
        reqs = build_requests(dataclasses.replace(st, view=view), table=src)
        assert reqs[0].table is src
    # Other schemes' requests do not change when a table is loaded (nothing of theirs is recomputed).
    plain = build_requests(st)
    tabled = build_requests(st, table=src)
    assert [a for a, b in zip(plain, tabled, strict=True) if a != b] == [
        a for a in plain if registry.get(a.scheme).uses_table]


def test_the_learned_program_stays_disabled_with_a_table():
    req = MatrixRequest(scheme=TABLED[0], l_eval=64, head_dim=8, table=TableSource.from_array(helix(M, 8), "x"))
    part = registry.get(TABLED[0]).score_snippet(req)
    assert isinstance(part, NoSnippet) and part.declared and "real table" in part.reason


def test_the_schemes_panel_follows_the_opened_checkpoint(qtbot, main_window, tmp_path):
    panel = main_window.panels["schemes"]
    main_window.show_panel("schemes")
    assert not panel.table_check.isEnabled() and not panel.table_check.isChecked()
    assert "Open a checkpoint" in panel.table_check.toolTip()
    main_window.panel_docks.open_checkpoint(str(gpt2_folder(tmp_path / "gpt2", 64, 16)))
    table = main_window.panels["table"]
    qtbot.waitUntil(lambda: table.info is not None and table.info.kind == "file" and not table.waiting,
                    timeout=30000)
    assert panel.table_check.isEnabled() and not panel.table_check.isChecked()
    panel.set_state(dataclasses.replace(panel.state, view="matrices"))
    panel.table_check.setChecked(True)
    sid = TABLED[0]
    qtbot.waitUntil(lambda: (r := panel.matrix_view.responses.get(sid)) is not None and r.request.table is not None
                    and not panel.waiting, timeout=30000)
    assert panel.matrix_view.responses[sid].title.endswith("GPT-2 (checkpoint)")
    assert str(tmp_path) not in json.dumps(to_dict(panel.state))  # a session never names the file
    panel.set_state(dataclasses.replace(panel.state, view="beyond", l_train=16, l_eval=128))
    bv = panel.beyond_view
    qtbot.waitUntil(lambda: bv.response is not None and bv.response.request.table is not None
                    and bv.response.request.l_eval == 128 and not panel.waiting, timeout=30000)
    assert "GPT-2 (checkpoint)" in bv.info.text() and "no row for p ≥ M = 64" in bv.info.text()
    assert "real table" in panel.formula.text()
    table.close_checkpoint()
    qtbot.waitUntil(lambda: not panel.table_check.isEnabled() and bv.response.request.table is None
                    and not panel.waiting, timeout=30000)
    assert "seeded random" in full_title(bv.table.getPlotItem())


def test_the_info_line_says_whose_rows_and_how_they_were_fitted():
    from explorer.panels.schemes.info import table_text

    src = TableSource.from_array(helix(M, 16), "Lab: helix")
    st = SchemesState(head_dim=8)
    r = jobs.run(MatrixRequest(scheme=TABLED[0], l_eval=64, head_dim=8, table=src, max_cells=64))
    assert r.table_note == (f"{registry.get(TABLED[0]).title}: the rows of Lab: helix, M = {M}, "
                            "its 16 dims on their first 8 principal directions")
    assert r.table_note in table_text(st, {TABLED[0]: r})
    same = jobs.run(DistanceRequest(scheme=TABLED[0], l_eval=64, head_dim=16,
                                    table=TableSource.from_array(helix(M, 16), "x")))
    assert same.table_note.endswith("its 16 dims as stored")
    assert jobs.run(MatrixRequest(scheme=TABLED[0], l_eval=64, head_dim=8)).table_note == ""


def test_the_formula_strip_says_the_plots_use_the_real_table():
    from explorer.panels.schemes.formula import formula_html

    st = SchemesState(view="beyond")
    src = TableSource.from_array(helix(M, 8), "Lab: helix")
    assert "drawn here from the real table" in formula_html(st, src)
    assert "real table" not in formula_html(st)
    without = dataclasses.replace(st, schemes=tuple(s for s in st.schemes if s not in TABLED))
    assert "real table" not in formula_html(without, src)
