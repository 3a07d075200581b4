"""`pe-explorer data`: outputs match the maths, every error path exits 2 with one line and no file."""

import json
import subprocess
import sys

import numpy as np
import pytest

from explorer import cli
from explorer.encodings import RopeScaling, apply_rope, sinusoidal
from explorer.encodings.learned import learned_table
from explorer.schemes.alibi import alibi_bias, alibi_slopes


def run(args, capsys):
    with pytest.raises(SystemExit) as exc:
        rc = cli.main(args)
        raise SystemExit(rc)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_sinusoidal_formats(tmp_path, capsys):
    for ext in ("npy", "csv", "json"):
        f = tmp_path / f"pe.{ext}"
        rc, _, err = run(["data", "sinusoidal", "--positions", "7", "--d-model", "6", "--variant", "t2t",
                          "--base", "100", "--out", str(f)], capsys)
        assert rc == 0, err
        if ext == "npy":
            arr = np.load(f)
        elif ext == "csv":
            arr = np.loadtxt(f, delimiter=",")
        else:
            doc = json.loads(f.read_text())
            arr = np.array(doc["data"])
            assert doc["shape"] == [7, 6]
        np.testing.assert_array_equal(arr, sinusoidal(7, 6, 100.0, "t2t"))


def test_rope_rotates_rows_with_offset_and_scaling(tmp_path, capsys):
    x = np.random.default_rng(0).standard_normal((5, 8))
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "r.npy"
    rc, _, err = run(["data", "rope", "--input", str(tmp_path / "x.npy"), "--convention", "halves",
                      "--scaling", "yarn", "--factor", "4", "--original-max-positions", "64", "--offset", "10",
                      "--out", str(out)], capsys)
    assert rc == 0, err
    np.testing.assert_array_equal(
        np.load(out), apply_rope(x, base=1e4, convention="halves", scaling=RopeScaling("yarn", 4, 64), offset=10))


def test_alibi_outputs(tmp_path, capsys):
    rc, _, _ = run(["data", "alibi-slopes", "--heads", "8", "--out", str(tmp_path / "s.csv")], capsys)
    assert rc == 0
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "s.csv"), alibi_slopes(8))
    rc, _, _ = run(["data", "alibi", "--heads", "3", "--positions", "5", "--out", str(tmp_path / "b.npy")], capsys)
    assert rc == 0
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), alibi_bias(3, 5))
    rc, _, _ = run(["data", "alibi", "--heads", "3", "--positions", "5", "--symmetric",
                    "--out", str(tmp_path / "b.json")], capsys)
    assert rc == 0
    assert json.loads((tmp_path / "b.json").read_text())["shape"] == [3, 5, 5]


def test_learned_output(tmp_path, capsys):
    rc, _, _ = run(["data", "learned", "--max-positions", "10", "--positions", "10", "--d-model", "4",
                    "--seed", "7", "--out", str(tmp_path / "l.npy")], capsys)
    assert rc == 0
    np.testing.assert_array_equal(np.load(tmp_path / "l.npy"), learned_table(10, 10, 4, 7))


BAD = [
    (["data", "sinusoidal", "--positions", "4", "--d-model", "3"], "even"),
    (["data", "sinusoidal", "--positions", "0", "--d-model", "4"], "at least 1"),
    (["data", "sinusoidal", "--positions", "-3", "--d-model", "4"], "at least 1"),
    (["data", "sinusoidal", "--positions", "4", "--d-model", "4", "--base", "nan"], "finite"),
    (["data", "sinusoidal", "--positions", "4", "--d-model", "4", "--base", "1"], "greater than 1"),
    (["data", "sinusoidal", "--positions", "4", "--d-model", "4", "--base", "inf"], "finite"),
    (["data", "sinusoidal", "--positions", "4", "--d-model", "four"], "must be a whole number"),
    (["data", "sinusoidal", "--positions", "99999999", "--d-model", "4096"], "too large"),
    (["data", "sinusoidal", "--positions", "4", "--d-model", "4", "--variant", "x"], "invalid choice"),
    (["data", "learned", "--max-positions", "4", "--positions", "5", "--d-model", "2"], "only 4 rows"),
    (["data", "alibi-slopes", "--heads", "0"], "at least 1"),
    (["data", "alibi", "--heads", "2", "--positions", "3"], "CSV holds 1-D or 2-D"),
    (["data", "rope", "--input", "/nonexistent.npy"], "no such file"),
    (["data", "rope", "--input", "{bad}", "--factor", "0.5"], "factor must be at least 1"),
    (["data", "rope", "--input", "{bad}", "--scaling", "ntk", "--factor", "inf"], "finite"),
    (["data", "rope", "--input", "{odd}"], "even"),
    (["data", "rope", "--input", "{garbage}"], "not a .npy file"),
    (["data", "swap", "--sentence", "", "--swap", "0", "1"], "empty"),
    (["data", "swap", "--sentence", "a b", "--swap", "0", "2"], "out of range"),
    (["data", "swap", "--sentence", "a b", "--swap", "1", "1"], "two different"),
]


@pytest.mark.parametrize("args,msg", BAD)
def test_bad_arguments_exit_2_with_one_line_and_no_file(tmp_path, capsys, args, msg):
    np.save(tmp_path / "ok.npy", np.ones((3, 4)))
    np.save(tmp_path / "odd.npy", np.ones((3, 5)))
    (tmp_path / "garbage.npy").write_bytes(b"not numpy at all")
    args = [a.replace("{bad}", str(tmp_path / "ok.npy")).replace("{odd}", str(tmp_path / "odd.npy"))
            .replace("{garbage}", str(tmp_path / "garbage.npy")) for a in args]
    ext = ".csv" if args[1] == "alibi" else (".json" if args[1] == "swap" else ".npy")
    out = tmp_path / f"out{ext}"
    rc, stdout, err = run(args + ["--out", str(out)], capsys)
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert msg in lines[0]
    assert "Traceback" not in err
    assert not out.exists()
    assert not list(tmp_path.glob("*.part"))


def test_unwritable_output(tmp_path, capsys):
    rc, _, err = run(["data", "alibi-slopes", "--heads", "4", "--out", str(tmp_path / "missing" / "s.npy")], capsys)
    assert rc == 2 and "does not exist" in err
    rc, _, err = run(["data", "alibi-slopes", "--heads", "4", "--out", str(tmp_path / "s.txt")], capsys)
    assert rc == 2 and ".npy" in err


def test_console_entry_points():
    for cmd in ([sys.executable, "-m", "explorer", "--version"],):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout.startswith("pe-explorer ")
    proc = subprocess.run([sys.executable, "-m", "explorer", "data", "sinusoidal", "--positions", "2"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
