"""The Learned-table views' numbers, and `pe-explorer data learned --checkpoint` (no Qt)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from checkpoint_files import gpt2_folder, gpt2_tensors, helix, write_safetensors

from explorer import cli, jobs
from explorer.encodings import table_stats as ts
from explorer.encodings.learned import LearnedTable
from explorer.encodings.sinusoidal import sinusoidal
from explorer.jobs.table import TableRequest, TableSource


def run_cli(args, capsys):
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(cli.main(args))
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_similarity_by_offset_is_the_mean_diagonal():
    P = helix(40, 8)
    C = ts.cosine_matrix(P)
    k, mean = ts.similarity_by_offset(P)
    want = [np.mean(np.diag(C, j)) for j in range(40)]
    np.testing.assert_allclose(mean, want, atol=1e-12)
    assert k[0] == 0 and mean[0] == pytest.approx(1.0)
    np.testing.assert_allclose(np.diag(C), 1.0)


def test_pca_of_a_circle_and_shares():
    p = np.arange(64)
    P = np.stack([np.cos(2 * np.pi * p / 64), np.sin(2 * np.pi * p / 64), np.zeros(64)], axis=1) @ \
        np.linalg.qr(np.random.default_rng(0).standard_normal((3, 3)))[0]
    coords, share = ts.pca(P, 3)
    np.testing.assert_allclose(share, [0.5, 0.5, 0.0], atol=1e-12)
    np.testing.assert_allclose(np.hypot(coords[:, 0], coords[:, 1]), math.sqrt(1.0), atol=1e-9)  # radius 1
    assert ts.pca(np.ones((1, 4)), 3)[0].shape == (1, 3)  # one row: zeros, no crash


def test_spectrum_finds_each_column_frequency():
    n = 64
    p = np.arange(n)
    P = np.stack([np.cos(2 * np.pi * f * p / n) for f in (1, 5, 12)], axis=1)
    np.testing.assert_allclose(ts.dominant_frequencies(P), [1 / n, 5 / n, 12 / n])
    freqs, power = ts.column_power(P)
    assert power[5, 1] == pytest.approx(n / 4)  # |Σ cos|² / n = (n/2)² / n
    assert ts.sinusoidal_like(np.ones((8, 5))).shape == (8, 4)
    np.testing.assert_array_equal(ts.sinusoidal_like(np.ones((8, 6))), sinusoidal(8, 6))


def test_jobs_for_each_view_of_a_checkpoint(tmp_path):
    src = TableSource.checkpoint(str(gpt2_folder(tmp_path / "gpt2", 64, 16)))
    P = helix(64, 16).astype(np.float32).astype(np.float64)
    got = {v: jobs.run(TableRequest(src, v, probe=64)) for v in ("heatmap", "similarity", "pca", "spectrum", "norms")}
    info = got["heatmap"].info
    assert (info.positions, info.d_model, info.config_max, info.name) == (64, 16, 64, "wpe.weight")
    assert "wpe.weight: 64 positions × 16 (F32)" in info.text
    np.testing.assert_array_equal(got["heatmap"].arrays["table"], P)
    np.testing.assert_allclose(got["similarity"].arrays["cosine"], ts.cosine_matrix(P))
    np.testing.assert_allclose(got["norms"].arrays["norm"], np.linalg.norm(P, axis=1))
    assert got["norms"].note.startswith("refused: position 64 has no row") and "64 rows" in got["norms"].note
    ok = jobs.run(TableRequest(src, "norms", probe=63)).note
    assert ok == f"position 63 → row 63 of wpe.weight, |P[63]| = {np.linalg.norm(P[63]):.4g}"
    assert got["pca"].arrays["share"].sum() <= 1 + 1e-12
    sp = got["spectrum"].arrays  # log10 of each dim's share of its power, floored at 1e-6
    _, power = ts.column_power(P)
    c = int(sp["dims"][0])
    np.testing.assert_allclose(10 ** sp["power"][:, 0], np.maximum(power[:, c] / power[:, c].sum(), 1e-6))


def test_random_and_array_sources():
    r = jobs.run(TableRequest(TableSource(rows=32, d_model=8, seed=3), "heatmap"))
    np.testing.assert_array_equal(r.arrays["table"], LearnedTable(32, 8, 3).embedding.weight.numpy())
    assert r.info.text.startswith("No checkpoint open: a seeded random table (32 × 8, seed 3)")
    a = helix(20, 6)
    r = jobs.run(TableRequest(TableSource.from_array(a, "Lab: learned, trained"), "norms", probe=20))
    np.testing.assert_allclose(r.arrays["norm"], np.linalg.norm(a, axis=1))
    assert r.info.name == "Lab: learned, trained" and "refused" in r.note


def test_cli_writes_a_checkpoints_table(tmp_path, capsys):
    f = write_safetensors(tmp_path / "model.safetensors", gpt2_tensors(64, 16))
    rc, _, err = run_cli(["data", "learned", "--checkpoint", str(f), "--out", str(tmp_path / "t.npy")], capsys)
    assert rc == 0, err
    t = np.load(tmp_path / "t.npy")
    assert t.dtype == np.float64 and t.shape == (64, 16)
    np.testing.assert_array_equal(t, helix(64, 16).astype(np.float32))
    rc, _, err = run_cli(["data", "learned", "--checkpoint", str(f), "--tensor", "wte.weight", "--positions", "5",
                          "--out", str(tmp_path / "t.json")], capsys)
    assert rc == 0, err
    assert json.loads((tmp_path / "t.json").read_text())["shape"] == [5, 16]


@pytest.mark.parametrize("extra, msg", [
    (["--positions", "65"], "position 64 has no row"),
    (["--tensor", "h.0.ln_1.bias"], "1-D"),
    (["--d-model", "4"], "a checkpoint's table has its own size"),
])
def test_cli_refuses_in_one_line(tmp_path, capsys, extra, msg):
    f = write_safetensors(tmp_path / "model.safetensors", gpt2_tensors(64, 16))
    rc, _, err = run_cli(["data", "learned", "--checkpoint", str(f), *extra, "--out", str(tmp_path / "t.npy")],
                         capsys)
    assert rc == 2 and msg in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "t.npy").exists()


def test_cli_seeded_table_still_needs_its_size(tmp_path, capsys):
    rc, _, err = run_cli(["data", "learned", "--positions", "4", "--out", str(tmp_path / "t.npy")], capsys)
    assert rc == 2 and "--max-positions, --d-model" in err
