"""Hostile command lines (issue 16): every numeric option of every subcommand, hostile ``--input`` files, output
paths checked before the work, and the CLI cases that used to hang.

Every bad value is exit status 2, one line on stderr, no traceback and no file.  The numeric options are
found by walking the argparse tree, so a new option is tried without anyone adding it here.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest

from explorer import cli
from explorer import schemes as registry
from explorer.encodings.rope_config import shipped

#: Values no numeric option may take: each must be refused by the parser in one line.
HOSTILE = {
    "400 digits": "9" * 400,
    "5000 digits": "9" * 5000,
    "2**63": str(2**63),
    "-(2**63)": str(-(2**63)),
    "nan": "nan",
    "inf": "inf",
    "-inf": "-inf",
    "empty": "",
    "1e400": "1e400",
}
#: Values that are valid for some options (a seed of −0 is 0): refused in one line, or accepted.
EDGE = {"-0": "-0", "-1": "-1", "2**62": str(2**62)}

#: Valid arguments for each subcommand; the option under test is replaced in them.
BASE = {
    ("data", "sinusoidal"): ["--positions", "4", "--d-model", "4", "--out", "{out}.npy"],
    ("data", "learned"): ["--max-positions", "4", "--positions", "4", "--d-model", "4", "--out", "{out}.npy"],
    ("data", "alibi-slopes"): ["--heads", "4", "--out", "{out}.npy"],
    ("data", "alibi"): ["--heads", "2", "--positions", "4", "--out", "{out}.npy"],
    ("data", "t5-buckets"): ["--positions", "4", "--out", "{out}.npy"],
    ("data", "rope"): ["--input", "{x}", "--out", "{out}.npy"],
    ("data", "rope-frequencies"): ["--head-dim", "8", "--out", "{out}.json"],
    ("data", "mrope-positions"): ["--config", str(shipped()["qwen2-vl-7b"]), "--out", "{out}.json"],
    ("data", "swap"): ["--sentence", "a b c", "--swap", "0", "1", "--out", "{out}.json"],
    ("bench",): ["--quick", "--out", "{out}.json"],
    ("export",): ["--panel", "waves", "--out", "{out}.png"],
    ("lab",): ["--steps", "10", "--out", "{out}.json"],
}
#: Options that take numbers as text (parsed by the command, not by argparse).
NUMERIC_TEXT = {"eval_lens", "scheme_param"}
#: Options whose number follows a key (``--scheme-param SCHEME.NAME=VALUE``): the value under test goes after it.
KEYED = {"--scheme-param": next(f"{s}.{q.name}=" for s in registry.lab_ids() for q in registry.get(s).lab_parameters)}


def _leaves(parser, path=()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from _leaves(sub, (*path, name))


def numeric_options() -> list[tuple[tuple[str, ...], argparse.Action]]:
    out = []
    for path, parser in _leaves(cli.build_parser()):
        for a in parser._actions:
            numeric = a.type in (int, float) or getattr(a.type, "__name__", "") in ("whole number", "number")
            if a.option_strings and (numeric or a.dest in NUMERIC_TEXT):
                out.append((path, a))
    return out


OPTIONS = numeric_options()
CASES = [(path, a.option_strings[0], a.nargs if isinstance(a.nargs, int) else 1, name, value)
         for path, a in OPTIONS for name, value in {**HOSTILE, **EDGE}.items()]


def test_the_walk_finds_every_numeric_option():
    found = {(p, a.option_strings[0]) for p, a in OPTIONS}
    assert set(BASE) == {p for p, _ in found}, "a subcommand with numbers has no BASE arguments"
    for must in [(("data", "swap"), "--d-model"), (("data", "swap"), "--seed"), (("data", "rope"), "--offset"),
                 (("data", "rope"), "--original-max-positions"), (("lab",), "--train-len"), (("lab",), "--steps"),
                 (("lab",), "--seed"), (("lab",), "--eval-lens"), (("lab",), "--layers"),
                 (("lab",), "--scheme-param"), (("export",), "--timeout")]:
        assert must in found
    assert len(found) >= 30


class _Worked(Exception):
    """Raised by the stubbed long work (training, rendering, the bench): the arguments were all accepted."""


@pytest.fixture
def no_long_work(monkeypatch):
    import explorer.bench
    import explorer.commands.export
    import explorer.lab

    def stop(*_a, **_k):
        raise _Worked

    monkeypatch.setattr(explorer.lab, "run_experiment", stop)
    monkeypatch.setattr(explorer.commands.export, "render", stop)
    monkeypatch.setattr(explorer.bench, "main", stop)


def _args(path, opt, nargs, value, tmp_path) -> list[str]:
    x = tmp_path / "x.npy"
    np.save(x, np.ones((3, 4)))
    args = [a.replace("{out}", str(tmp_path / "out")).replace("{x}", str(x)) for a in BASE[path]]
    if opt in args:
        i = args.index(opt)
        del args[i:i + 1 + nargs]
    return [*path, *args, opt, *([KEYED.get(opt, "") + value] * nargs)]


def _outputs(tmp_path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if p.name != "x.npy")


@pytest.mark.parametrize("path, opt, nargs, name, value", CASES,
                         ids=[f"{' '.join(c[0])} {c[1]} {c[3]}" for c in CASES])
def test_every_numeric_option_refuses_hostile_values(path, opt, nargs, name, value, tmp_path, capsys,
                                                     no_long_work):
    args = _args(path, opt, nargs, value, tmp_path)
    try:
        rc = cli.main(args)
    except SystemExit as exc:
        rc = exc.code
    except _Worked:
        rc = 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if name in HOSTILE:
        assert rc == 2, f"{opt} {name} was accepted"
    if rc == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1, err[:500]
        assert len(lines[0]) < 400, "the message repeats the whole value"
        assert _outputs(tmp_path) == []
    else:
        assert rc == 0, err[:500]


@pytest.mark.parametrize("args", [
    ["data", "swap", "--sentence", "a b", "--swap", "0", "1", "--d-model", "9" * 400, "--out", "{t}/s.json"],
    ["data", "swap", "--sentence", "a b", "--swap", "0", "1", "--seed", "9" * 400, "--out", "{t}/s.json"],
    ["data", "rope", "--input", "{t}/x.npy", "--offset", "9" * 400, "--out", "{t}/r.npy"],
    ["data", "rope", "--input", "{t}/x.npy", "--scaling", "yarn", "--factor", "4",
     "--original-max-positions", "9" * 400, "--out", "{t}/r.npy"],
    ["lab", "--train-len", "9" * 400],
    ["lab", "--steps", "9" * 400],
    ["lab", "--seed", "9" * 400],
    ["lab", "--eval-lens", "32," + "9" * 400],
    ["export", "--panel", "waves", "--timeout", "nan", "--out", "{t}/w.png"],
], ids=["swap-d-model", "swap-seed", "rope-offset", "rope-original-max", "lab-train-len", "lab-steps",
        "lab-seed", "lab-eval-lens", "export-timeout-nan"])
def test_the_issues_command_lines_in_a_real_process(args, tmp_path):
    np.save(tmp_path / "x.npy", np.ones((3, 4)))
    args = [a.replace("{t}", str(tmp_path)) for a in args]
    proc = subprocess.run([sys.executable, "-m", "explorer", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 2, proc.stderr[-800:]
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr[-800:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]


# -- hostile --input files -----------------------------------------------------------------------------------

def _rope(inp, out, capsys) -> tuple[int, str]:
    try:
        rc = cli.main(["data", "rope", "--input", str(inp), "--out", str(out)])
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return rc, err


def _header_only(path, shape, dtype="<f8") -> None:
    with open(path, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": dtype, "fortran_order": False, "shape": shape})


def _peak_mib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def test_npy_header_claiming_1e12_numbers_is_one_line(tmp_path, capsys):
    _header_only(tmp_path / "huge.npy", (1_000_000, 1_000_000))
    rc = []
    mib = _peak_mib(lambda: rc.append(_rope(tmp_path / "huge.npy", tmp_path / "r.npy", capsys)))
    (code, err), = rc
    assert code == 2 and "1,000,000,000,000 numbers is too large" in err and "header" in err, err
    assert mib < 16
    assert not (tmp_path / "r.npy").exists()


def test_over_size_input_is_refused_from_the_header_before_reading(tmp_path, capsys):
    """Past the maths layer's cap (2**27 numbers): refused from the header; the file is never read."""
    f = tmp_path / "big.npy"
    _header_only(f, (20_000, 8_192))
    os.truncate(f, f.stat().st_size + 20_000 * 8_192 * 8)  # sparse: 1.3 GB that take no disk
    t0 = time.monotonic()
    rc = []
    mib = _peak_mib(lambda: rc.append(_rope(f, tmp_path / "r.npy", capsys)))
    (code, err), = rc
    assert code == 2 and "too large" in err and "before reading" in err, err
    assert mib < 16 and time.monotonic() - t0 < 5


def test_csv_limit_for_rope_is_checked_before_loading(tmp_path, capsys):
    """20.5 M numbers are fine as .npy but too many for CSV: said before 164 MB are read and rotated."""
    f = tmp_path / "x.npy"
    _header_only(f, (5_000, 4_096))
    os.truncate(f, f.stat().st_size + 5_000 * 4_096 * 8)
    rc = []
    mib = _peak_mib(lambda: rc.append(_rope(f, tmp_path / "r.csv", capsys)))
    (code, err), = rc
    assert code == 2 and "too many for CSV" in err and "use .npy" in err, err
    assert mib < 16, f"{mib:.0f} MiB allocated before refusing"
    assert not (tmp_path / "r.csv").exists()


def test_a_truncated_npy_says_so(tmp_path, capsys):
    f = tmp_path / "cut.npy"
    np.save(f, np.ones((30, 40)))
    os.truncate(f, f.stat().st_size - 100)
    code, err = _rope(f, tmp_path / "r.npy", capsys)
    assert code == 2 and "truncated" in err


def test_a_200_kb_npy_header_is_one_line(tmp_path, capsys):
    """numpy refuses a header over max_header_size in three lines; the command says it in one (issue 25)."""
    f = tmp_path / "wide.npy"
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), " + "'x': 0, " * 25_000 + "}"
    header += " " * (-(len(header) + 13) % 64) + "\n"
    f.write_bytes(b"\x93NUMPY\x02\x00" + len(header).to_bytes(4, "little") + header.encode("latin1")
                  + np.ones(4).tobytes())
    assert f.stat().st_size > 200_000
    code, err = _rope(f, tmp_path / "r.npy", capsys)  # one line, checked there
    assert code == 2 and "not a readable .npy file: bad header" in err, err
    assert not (tmp_path / "r.npy").exists()


def test_a_folder_as_input_is_not_no_such_file(tmp_path, capsys):
    (tmp_path / "d.npy").mkdir()
    code, err = _rope(tmp_path / "d.npy", tmp_path / "r.npy", capsys)
    assert code == 2 and "no such file" not in err and "folder" in err, err


def test_dev_zero_as_input_is_a_device_and_does_not_hang(tmp_path, capsys):
    code, err = _rope("/dev/zero", tmp_path / "r.npy", capsys)
    assert code == 2 and "no such file" not in err and "device" in err, err


def test_a_fifo_as_input_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "in.npy"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "explorer", "data", "rope", "--input", str(fifo),
                           "--out", str(tmp_path / "r.npy")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "no such file" not in proc.stderr and "FIFO" in proc.stderr, proc.stderr


def test_a_text_file_as_npy_is_not_a_pickle(tmp_path, capsys):
    f = tmp_path / "notes.npy"
    f.write_text("these are my notes, not an array\n")
    code, err = _rope(f, tmp_path / "r.npy", capsys)
    assert code == 2 and "pickle" not in err and "not a .npy file" in err, err


def test_an_object_array_is_never_unpickled(tmp_path, capsys):
    f = tmp_path / "obj.npy"
    np.save(f, np.array([[{"a": 1}, None]], dtype=object), allow_pickle=True)
    code, err = _rope(f, tmp_path / "r.npy", capsys)
    assert code == 2 and "numeric array" in err and "object" in err, err


@pytest.mark.parametrize("argv", [["schemes"], ["lesson", "--list"], ["schemes", "--json"]])
def test_a_reader_that_leaves_early_gets_no_traceback(argv, tmp_path):
    """``pe-explorer schemes | head -1``: the reader closes the pipe after one line; the command stops quietly
    (SIGPIPE's status, 141) instead of printing a BrokenPipeError traceback."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PE_EXPLORER_HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "explorer", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    try:
        assert proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read().decode()
        rc = proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        proc.stderr.close()
    assert "Traceback" not in err and "Error" not in err, err
    assert rc in (0, 141), (rc, err)
