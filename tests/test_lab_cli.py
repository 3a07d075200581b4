"""``pe-explorer lab``: the experiment headless, with one-line errors."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from explorer.cli import main  # noqa: E402
from explorer.lab import LabResult  # noqa: E402


def test_task_all_prints_a_grid_and_json(tmp_path, capsys):
    """--task all: every task in turn (tiny here), one grid file; --json prints the same JSON."""
    from explorer.lab import TASK_IDS, LabGrid

    out = tmp_path / "grid.json"
    rc = main(["lab", "--task", "all", "--schemes", "learned,alibi", "--train-len", "8", "--eval-lens", "8,16",
               "--steps", "10", "--out", str(out), "--quiet", "--json"])
    assert rc == 0
    printed = capsys.readouterr().out
    grid = LabGrid.from_json(printed)
    assert [r.config.task for r in grid.results] == list(TASK_IDS)
    assert out.read_text().strip() == printed.strip()
    copy = grid.results[1]
    assert copy.config.scored_by_exact_match and copy.scheme("learned").at(16).status == "cannot run"
    assert copy.scheme("alibi").at(16).exact is not None


def test_a_sequence_task_prints_exact_match_and_what_it_found(capsys):
    rc = main(["lab", "--task", "addition", "--answer", "in-order", "--schemes", "rope", "--eval-lens", "8,16",
               "--steps", "10", "--quiet"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "Addition (answer in order) — exact match" in text and "accuracy per token" in text
    assert "Addition (answer in order): " in text and "of CPU time" in text


def test_lab_command_writes_results(tmp_path, capsys):
    out = tmp_path / "results.json"
    rc = main(["lab", "--schemes", "rope,learned", "--train-len", "8", "--eval-lens", "8,16", "--steps", "10",
               "--seed", "3", "--out", str(out), "--quiet"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "cannot run" in text and "RoPE" in text and "Learned" in text
    r = LabResult.from_json(out.read_text())
    assert r.config.schemes == ("learned", "rope") and r.config.seed == 3 and r.config.eval_lens == (8, 16)
    assert r.scheme("learned").at(16).status == "cannot run" and r.scheme("learned").at(16).accuracy is None
    assert 0 <= r.scheme("rope").at(16).accuracy <= 1
    assert len(r.scheme("rope").losses) == 10


@pytest.mark.parametrize("args, message", [
    (["--schemes", "no_such_scheme"], "--schemes: unknown 'no_such_scheme'"),
    (["--task", "parity"], "invalid choice"),
    (["--schemes", ","], "--schemes needs at least one scheme"),
    (["--train-len", "4"], "--train-len must be at least 8"),
    (["--eval-lens", "8,x"], "--eval-lens must be whole numbers"),
    (["--train-len", "8", "--eval-lens", "8,65"], "--eval-lens may reach 8 × L = 64; got 65"),
    (["--steps", "5"], "--steps must be at least 10"),
    (["--out", "r.csv"], "--out must end in .json"),
    (["--out", "/no/such/folder/r.json"], "does not exist"),
    (["--threads", "0"], "--threads must be between 1 and 256"),
    (["--device", "tpu"], "invalid choice"),
])
def test_bad_arguments_fail_in_one_line(args, message, capsys):
    try:
        rc = main(["lab", *args])
    except SystemExit as exc:  # argparse's own errors (bad choice, not a number) exit from the parser
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1
