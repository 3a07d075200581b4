"""The Lab's sequence tasks (copy, reverse, addition, sort), exact match and the computed headline: numpy
only, no torch, no Qt."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.encodings import EncodingError
from explorer.lab import (
    TASK_IDS,
    TASK_WHY,
    LabConfig,
    LabError,
    LabGrid,
    LabResult,
    LengthResult,
    SchemeResult,
    SequenceTask,
    add_digits,
    exact_match,
    findings,
    headline,
    make_task,
)
from explorer.state.lab import LabState

SEQ = ("copy", "reverse", "addition", "sort")


def _split(task: SequenceTask, toks: np.ndarray, n: int):
    """(first operand, second operand or None, answer) of instances of length n, read back from tokens."""
    assert toks[:, 0].tolist() == [task.bos] * len(toks)
    if task.kind == "addition":
        a, plus, b = toks[:, 1:n + 1], toks[:, n + 1], toks[:, n + 2:2 * n + 2]
        assert (plus == task.plus).all()
        sep = toks[:, 2 * n + 2]
        ans = toks[:, 2 * n + 3:]
    else:
        a, b = toks[:, 1:n + 1], None
        sep, ans = toks[:, n + 1], toks[:, n + 2:]
    assert (sep == task.sep).all()
    return a, b, ans


@pytest.mark.parametrize("kind", SEQ)
@pytest.mark.parametrize("n", [1, 3, 8, 40])
def test_instances_have_the_right_lengths_and_answers(kind, n):
    task = SequenceTask(kind, vocab=6, reverse_answer=True)
    toks, ans = task.instances(50, n, np.random.default_rng(n))
    assert toks.shape == (50, task.seq_len(n)) and ans.shape == (50, task.answer_len(n))
    assert task.seq_len(n) == (3 * n + 4 if kind == "addition" else 2 * n + 2)
    assert task.input_len(n) == task.seq_len(n) - 1
    a, b, written = _split(task, toks, n)
    np.testing.assert_array_equal(written, ans)
    assert a.min() >= 0 and a.max() < task.symbols and ans.max() < task.symbols
    for r in range(50):
        row = a[r].tolist()
        if kind == "copy":
            assert ans[r].tolist() == row
        elif kind == "reverse":
            assert ans[r].tolist() == row[::-1]
        elif kind == "sort":
            assert ans[r].tolist() == sorted(row)
        else:  # Python's own integers: no overflow at 40 digits
            total = int("".join(map(str, row))) + int("".join(map(str, b[r].tolist())))
            assert ans[r].tolist() == [int(c) for c in str(total).zfill(n + 1)][::-1]
    # The answer's tokens are predicted by the outputs just before them.
    np.testing.assert_array_equal(toks[:, task.prompt_positions(n) + 1], ans)


def test_addition_answer_order_and_carries():
    a, b = np.array([[9, 9, 9], [0, 0, 1]]), np.array([[0, 0, 1], [0, 0, 2]])
    assert add_digits(a, b, reverse_answer=False).tolist() == [[1, 0, 0, 0], [0, 0, 0, 3]]
    assert add_digits(a, b, reverse_answer=True).tolist() == [[0, 0, 0, 1], [3, 0, 0, 0]]
    task = SequenceTask("addition", reverse_answer=False)
    toks, ans = task.instances(20, 5, np.random.default_rng(0))
    _a, _b, written = _split(task, toks, 5)
    np.testing.assert_array_equal(written, add_digits(_a, _b, reverse_answer=False))
    assert task.symbols == 10 and task.n_tokens == 14  # vocab does not change the digits
    with pytest.raises(EncodingError, match="one shape"):
        add_digits(np.zeros((2, 3)), np.zeros((2, 4)), reverse_answer=True)


@pytest.mark.parametrize("kind", SEQ)
def test_the_prompt_does_not_give_the_answer_away(kind):
    """Nothing of the answer is in the prompt beyond what the task defines; the prompt is random."""
    task = SequenceTask(kind, vocab=8)
    n = 12
    toks, ans = task.instances(400, n, np.random.default_rng(1))
    p = task.prompt_len(n)
    prompt = toks[:, :p]
    # The answer's tokens come only after the separator, and the separator only once.
    assert (np.sum(toks == task.sep, axis=1) == 1).all() and (toks[:, p - 1] == task.sep).all()
    assert not np.isin(toks[:, p:], [task.bos, task.sep, task.plus, task.pad]).any()
    if kind == "sort":
        # Prompts are not already sorted (which would make sorting a copy).
        assert np.mean(np.all(np.diff(prompt[:, 1:n + 1], axis=1) >= 0, axis=1)) < 0.01
    if kind == "addition":
        # The sum is not hidden in the operands: its digits agree with either operand's at chance level.
        rev = ans[:, :n][:, ::-1]  # the sum's last n digits, most significant first
        assert np.mean(rev == prompt[:, 1:n + 1]) < 0.2
    # Every symbol is used, about evenly (uniform prompts).
    counts = np.bincount(prompt[:, 1:n + 1].ravel(), minlength=task.symbols)
    assert counts.min() > 0.5 * counts.mean()


@pytest.mark.parametrize("kind", SEQ)
def test_training_batches_mix_lengths_pad_after_and_score_only_answers(kind):
    task = SequenceTask(kind, vocab=5)
    inp, tgt, mask = task.training_batch(300, 6, np.random.default_rng(2))
    width = task.input_len(6)
    assert inp.shape == tgt.shape == mask.shape == (300, width)
    np.testing.assert_array_equal(inp[:, 1:], tgt[:, :-1])  # shifted by one
    lengths = set()
    for r in range(300):
        scored = np.flatnonzero(mask[r])
        a = scored.size - (1 if kind == "addition" else 0)  # answer tokens = n (+ 1 for addition)
        lengths.add(a)
        assert scored.tolist() == list(task.prompt_positions(a))  # exactly the answer, nothing else
        assert (inp[r, task.seq_len(a):] == task.pad).all()  # padding only after the instance
        assert task.pad not in inp[r, : task.seq_len(a)]
    assert lengths == set(range(1, 7))  # 1 … L, all of them


def test_exact_match_is_whole_answers():
    ans = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9], [0, 0, 0]])
    pred = ans.copy()
    assert exact_match(pred, ans) == 1.0
    pred[0, 2] = 0  # one wrong token spoils the whole answer
    pred[1, 0] = 0
    assert exact_match(pred, ans) == 0.5
    assert np.mean(pred == ans) == pytest.approx(10 / 12)  # per-token accuracy stays high
    with pytest.raises(EncodingError, match="one shape"):
        exact_match(pred[:, :2], ans)
    with pytest.raises(EncodingError):
        exact_match(np.zeros((0, 3)), np.zeros((0, 3)))


def test_every_task_has_a_reason_on_screen_and_a_maker():
    assert set(TASK_WHY) == set(TASK_IDS) and all(len(t) < 200 for t in TASK_WHY.values())
    assert make_task("rule").table.shape == (8, 8)
    assert make_task("addition", reverse_answer=False).reverse_answer is False
    with pytest.raises(EncodingError, match="unknown sequence task"):
        SequenceTask("rule")


def test_config_and_state_take_the_task():
    cfg = LabConfig(task="addition", reverse_answer=False, train_len=8)
    assert cfg.task_title == "Addition (answer in order)" and cfg.scored_by_exact_match
    assert LabConfig.from_dict(cfg.to_dict()) == cfg
    assert not LabConfig().scored_by_exact_match and LabConfig().task == "rule"
    with pytest.raises(LabError, match="unknown task"):
        LabConfig(task="parity")
    st = LabState()
    assert st.task == "rule" and st.train_len == 32 and st.steps == 600
    cp = st.clamped(task="copy")  # the task's own L and steps follow, and the lengths with L
    assert (cp.task, cp.train_len, cp.steps, cp.eval_lens[0], cp.eval_lens[-1]) == ("copy", 8, 1500, 8, 64)
    assert cp.clamped(task="reverse").train_len == 8
    custom = st.clamped(train_len=16).clamped(task="sort")  # a changed L is kept
    assert custom.train_len == 16 and custom.steps == 1500
    assert LabConfig.from_state(cp).task == "copy"


# -- results, the grid and the headline ---------------------------------------------------------------
def _seq_result(scores: dict, task="copy", lens=(8, 12, 16, 32), status="done") -> LabResult:
    """A result whose exact match at each length is ``scores[scheme][i]`` (None: cannot run)."""
    cfg = LabConfig(task=task, schemes=tuple(scores), train_len=8, eval_lens=lens, steps=5)
    out = []
    for s in cfg.schemes:
        rows = tuple(LengthResult(n, "ok", min(1.0, v + 0.05), 0.1, exact=v) if v is not None
                     else LengthResult(n, "cannot run", None, None, "no row")
                     for n, v in zip(lens, scores[s], strict=True))
        out.append(SchemeResult(s, status, 5, (2.0,) * 5, 0.1, 0.0, rows, (1.0,)))
    return LabResult(cfg, status, tuple(out), "cpu", "x", 1, 1.0, 0.125, float("nan"), 0.0, float("nan"),
                     cpu_seconds=0.9)


def test_headline_states_what_the_numbers_show():
    r = _seq_result({"nope": [0.95, 0.93, 0.9, 0.2], "rope": [1.0, 0.0, 0.0, 0.0],
                     "alibi": [0.99, 0.5, 0.001, 0.0], "learned": [0.97, None, None, None],
                     "sinusoidal": [0.3, 0.0, 0.0, 0.0]})
    text = headline(r)
    assert text == ("Copy: NoPE drops to 20 % at 4×L; ALiBi drops to 50 % at 1.5×L, 0 % at 4×L; "
                    "RoPE falls to 0 % at 1.5×L; Learned cannot run past L; Sinusoidal reaches only 30 % at L.")
    f = {x.scheme: x for x in findings(r)}
    assert f["nope"].held_to == 16 and f["rope"].zero_at == 12 and f["learned"].cannot_run_from == 12
    held = _seq_result({"alibi": [0.9, 0.9, 0.88, 0.85]})
    assert headline(held) == "Copy: ALiBi holds exact match to 4×L (85 %)."
    none = _seq_result({"nope": [0.1, 0.0, 0.0, 0.0], "rope": [0.3, 0, 0, 0]}, task="sort")
    assert headline(none) == ("Sorting: no scheme learned the task at L = 8 in 5 steps (best exact match "
                              "30 %, RoPE): try more steps.")
    assert headline(_seq_result({"rope": [1.0, 0, 0, 0]}, status="cancelled")).endswith(
        "no scheme finished. (run cancelled)")


def test_sequence_results_and_grids_round_trip(tmp_path):
    r = _seq_result({"learned": [0.97, None, None, None], "alibi": [0.9, 0.5, 0.0, 0.0]}, task="reverse")
    d = json.loads(r.to_json())
    assert d["version"] == 2 and d["task"] == "reverse" and d["cpu_seconds"] == 0.9
    assert d["schemes"][0]["lengths"][0]["exact_match"] == 0.97
    assert d["schemes"][0]["lengths"][1] == {"length": 12, "status": "cannot run", "accuracy": None,
                                             "loss": None, "reason": "no row"}
    back = LabResult.from_json(r.to_json())
    assert back.config == r.config and back.scheme("alibi").at(12).exact == 0.5
    # A version-1 file (before the tasks) is the rule.
    d1 = {**d, "version": 1, "config": {k: v for k, v in d["config"].items()
                                        if k not in ("task", "reverse_answer")}}
    assert LabResult.from_dict(d1).config.task == "rule"
    grid = LabGrid((r, _seq_result({"nope": [1, 1, 1, 1]}, task="sort")))
    path = tmp_path / "g.json"
    path.write_text(grid.to_json())
    again = LabGrid.from_file(path)
    assert [x.config.task for x in again.results] == ["reverse", "sort"]
    single = tmp_path / "one.json"
    single.write_text(r.to_json())
    assert [x.config.task for x in LabGrid.from_file(single).results] == ["reverse"]
    for bad, match in (('{"format": "pe-explorer-lab-grid", "version": 1, "results": []}', "no results"),
                       ('{"format": "pe-explorer-lab-grid", "version": 7}', "unsupported Lab grid"),
                       ("[1, 2]", "not a PE Explorer Lab result")):
        with pytest.raises(LabError, match=match):
            LabGrid.from_json(bad)
