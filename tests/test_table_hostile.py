"""Hostile checkpoints in the Learned-table panel and `data learned` (issue 25, findings 3, 6 and 10).

- Lopsided tables: every view of a table of up to 2²⁵ numbers, however it is shaped, uses at most
  MAX_VIEW_ROWS rows (16,777,216 × 2 froze the similarity tab for 73 s at 5.6 GB, then aborted; a 1,570-byte
  ``.pt`` holding a 2²⁵ × 1 stride-0 tensor crashed the similarity and spectrum tabs).
- Sparse (COO, CSR) and meta-device tensors in a ``.pt``: one line, not a TypeError traceback.
- A header listing many tensors: the chooser offers at most MAX_TENSOR_CHOICES and is filled once, not on
  every tab switch (1,000,000 tensors filled a 1,000,001-item chooser, again on every switch).
"""

from __future__ import annotations

import json
import struct
import warnings

import numpy as np
import pytest
from checkpoint_files import helix, write_safetensors

from explorer import cli, jobs
from explorer.encodings import table_stats as ts
from explorer.encodings.checkpoint import MAX_TENSOR_CHOICES, CheckpointError, load_table
from explorer.jobs import table as tj
from explorer.jobs.table import MAX_IMAGE_SIDE, MAX_VIEW_ROWS, TableRequest, TableSource
from explorer.panels.table import TablePanel
from explorer.state.table import VIEWS, TableState

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.timeout(240)


def _run_cli(args, capsys):
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(cli.main(args))
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def _all_views(src):
    return {v: jobs.run(TableRequest(src, v, probe=3)) for v in VIEWS}


def _longest(arrays: dict) -> int:
    return max(a.shape[0] for a in arrays.values() if a.ndim)


def test_a_long_table_is_viewed_at_every_sth_row_and_the_numbers_stay_right(tmp_path, monkeypatch):
    monkeypatch.setattr(tj, "MAX_VIEW_ROWS", 64)
    n, d = 200, 6
    P = helix(n, d)
    got = _all_views(TableSource.from_array(P, "long"))
    s = 4  # ceil(200 / 64)
    Q = P[::s]
    for v, r in got.items():
        assert int(r.arrays["every"][0]) == s or v == "pca", v  # the dots may be fewer (MAX_DOTS)
        assert _longest(r.arrays) <= 64, v
    sim = got["similarity"].arrays
    k, mean = ts.similarity_by_offset(Q)
    np.testing.assert_array_equal(sim["offset"], k * s)  # offsets in the table's own positions
    np.testing.assert_allclose(sim["mean"], mean)
    np.testing.assert_array_equal(got["pca"].arrays["position"], np.arange(0, n, s))
    np.testing.assert_allclose(got["norms"].arrays["norm"], np.linalg.norm(Q, axis=1))
    assert int(got["norms"].arrays["limit"][0]) == n  # M is the whole table's
    sp = got["spectrum"].arrays
    np.testing.assert_allclose(sp["freq"], np.fft.rfftfreq(Q.shape[0]) / s)  # cycles per position
    assert sp["freq"][-1] == pytest.approx(0.5 / s)


def _stride0_pt(path, rows=2**25):
    """A 1.5 kB file whose one tensor claims ``rows`` × 1 numbers, all one stored number (stride 0)."""
    torch.save({"wpe.weight": torch.ones(1, 1).expand(rows, 1)}, path)
    return path


def test_a_stride_0_table_of_2_25_rows_in_every_view_is_bounded(tmp_path):
    src = TableSource.checkpoint(str(_stride0_pt(tmp_path / "s0.pt")))
    got = _all_views(src)
    assert got["heatmap"].info.positions == 2**25
    for v, r in got.items():
        assert _longest(r.arrays) <= MAX_VIEW_ROWS, v
    assert got["similarity"].arrays["cosine"].shape[0] <= MAX_IMAGE_SIDE
    tj.load.cache_clear()  # 256 MB: not kept for the tests after this one


def test_the_panel_draws_every_view_of_a_lopsided_table(qtbot, service, tmp_path):
    """The GUI: 2²⁵ × 1 (stride 0) and 2²⁴ × 2 (F16, 64 MB) open and every tab draws, the readout saying
    which rows it shows."""
    half = np.zeros((2**24, 2), np.float16)
    half[:, 0] = 1.0
    lopsided = write_safetensors(tmp_path / "wide.safetensors", {"wpe.weight": (half, "F16")})
    p = TablePanel(service, TableState(rows=48, d_model=8))
    qtbot.addWidget(p)
    p.resize(1280, 700)
    p.show()
    try:
        for path in (_stride0_pt(tmp_path / "s0.pt"), lopsided):
            p.show_view(VIEWS[0])  # each view then asks for the new table (an equal request is not run again)
            p.open_checkpoint(str(path))
            for v in VIEWS:
                p.show_view(v)
                qtbot.waitUntil(lambda v=v: not p.waiting and p.info is not None and p.info.kind == "file"
                                and p.last_drawn_request is not None and p.last_drawn_request.view == v
                                and p.last_drawn_request.source == p.source(), timeout=120000)
                assert not p.banner.isVisibleTo(p), p.banner.text()
                assert "every" in p.views[v].readout.text(), (v, p.views[v].readout.text())
    finally:
        p.shutdown()
        tj.load.cache_clear()


@pytest.mark.parametrize("kind", ["coo", "csr", "meta"])
def test_a_sparse_or_meta_tensor_is_one_line(tmp_path, capsys, kind):
    dense = torch.tensor(helix(16, 4), dtype=torch.float32)
    with warnings.catch_warnings():  # torch: "Sparse CSR tensor support is in beta state"
        warnings.simplefilter("ignore", UserWarning)
        tensor = {"coo": dense.to_sparse, "csr": dense.to_sparse_csr,
                  "meta": lambda: torch.empty(16, 4, device="meta")}[kind]()
    path = tmp_path / f"{kind}.pt"
    torch.save({"wpe.weight": tensor, "wte.weight": dense}, path)
    with pytest.raises(CheckpointError) as exc:
        load_table(path)
    assert str(exc.value).startswith(str(path)) and "\n" not in str(exc.value)
    rc, out, err = _run_cli(["data", "learned", "--checkpoint", str(path), "--out", str(tmp_path / "t.npy")], capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not (tmp_path / "t.npy").exists()
    # The dense tensor beside it still opens, and the sparse one is not offered.
    t = load_table(path, "wte.weight")
    assert t.tensors == ("wte.weight",)


def _many_tensors(path, count: int):
    """A valid safetensors file: a 8 × 2 table, then ``count`` 1 × 1 tables sharing one number."""
    header = {"wpe.weight": {"dtype": "F32", "shape": [8, 2], "data_offsets": [0, 64]}}
    for i in range(count):
        header[f"t{i}"] = {"dtype": "F32", "shape": [1, 1], "data_offsets": [0, 4]}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + np.ones(16, np.float32).tobytes())
    return path


def test_many_tensors_fill_a_short_chooser_once(qtbot, service, tmp_path):
    path = _many_tensors(tmp_path / "many.safetensors", 5000)
    t = load_table(path)
    assert len(t.tensors) == MAX_TENSOR_CHOICES and t.tensor_count == 5001
    p = TablePanel(service, TableState(rows=48, d_model=8))
    qtbot.addWidget(p)
    p.resize(1280, 700)
    p.show()
    try:
        p.open_checkpoint(str(path))
        qtbot.waitUntil(lambda: not p.waiting and p.info is not None and p.info.kind == "file", timeout=60000)
        combo = p.tensor_combo
        assert combo.count() == MAX_TENSOR_CHOICES + 1  # and one line saying how many more
        assert "4,001 more" in combo.itemText(combo.count() - 1)
        assert combo.currentData() == "wpe.weight"
        filled = []
        combo.model().rowsInserted.connect(lambda *_a: filled.append(1))
        for v in VIEWS[1:3]:
            p.show_view(v)
            qtbot.waitUntil(lambda v=v: not p.waiting and p.last_drawn_request.view == v, timeout=60000)
        assert not filled  # a tab switch does not fill it again
        combo.activated.emit(1)
        qtbot.waitUntil(lambda: p.info.name == "t0" and not p.waiting, timeout=60000)
        assert combo.currentData() == "t0"
    finally:
        p.shutdown()
