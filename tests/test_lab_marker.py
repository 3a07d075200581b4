"""The Lab's counting task (``marker``): the symbol right after the second-last marker, checked against a
brute-force recount; its config, state and CLI handling; and a tiny run that must beat chance."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.encodings import EncodingError
from explorer.lab import LabConfig, LabError, SequenceTask
from explorer.lab.task import MARKER_MIN_LEN, after_second_last
from explorer.state.lab import LabState, task_default_schemes


def _recount(row: list[int], marker: int) -> int:
    """Walk the prompt from the end, counting markers; return the token after the second one met."""
    seen = 0
    for i in range(len(row) - 1, -1, -1):
        if row[i] == marker:
            seen += 1
            if seen == 2:
                return row[i + 1]
    raise AssertionError("fewer than two markers")


@pytest.mark.parametrize("n", [4, 5, 6, 9, 33])
def test_instances_are_well_formed_and_answers_match_a_recount(n):
    task = SequenceTask("marker", vocab=6)
    toks, ans = task.instances(300, n, np.random.default_rng(n))
    assert toks.shape == (300, n + 3) and ans.shape == (300, 1) and task.answer_len(n) == 1
    assert (toks[:, 0] == task.bos).all() and (toks[:, n + 1] == task.sep).all()
    prompt = toks[:, 1:n + 1]
    marks = prompt == task.plus
    counts = marks.sum(axis=1)
    assert set(counts.tolist()) == ({2, 3} if n >= 6 else {2})  # 3 markers only where there is room
    assert not (marks[:, 1:] & marks[:, :-1]).any() and not marks[:, -1].any()  # never touching, never last
    letters = prompt[~marks]
    assert letters.min() >= 0 and letters.max() < task.symbols
    for r in range(300):
        assert ans[r, 0] == _recount(prompt[r].tolist(), task.plus)
    np.testing.assert_array_equal(toks[:, task.prompt_positions(n) + 1], ans)  # the answer is written after SEP


def test_the_answer_is_a_count_away_not_a_distance():
    """Where the answer sits in the prompt varies (a fixed offset would not need counting)."""
    task = SequenceTask("marker", vocab=8)
    toks, ans = task.instances(400, 24, np.random.default_rng(3))
    prompt = toks[:, 1:25]
    where = {int(np.flatnonzero(row == task.plus)[-2]) for row in prompt}
    assert len(where) > 10
    # The answer is not the symbol right after the last marker (that would be recency, not counting) …
    last = np.array([row[np.flatnonzero(row == task.plus)[-1] + 1] for row in prompt])
    assert np.mean(last == ans[:, 0]) < 0.3
    # … and every symbol is an answer about as often.
    counts = np.bincount(ans[:, 0], minlength=8)
    assert counts.min() > 0.5 * counts.mean()


def test_training_batches_start_at_the_shortest_prompt():
    task = SequenceTask("marker", vocab=5)
    inp, tgt, mask = task.training_batch(300, 7, np.random.default_rng(2))
    assert inp.shape == (300, task.input_len(7))
    np.testing.assert_array_equal(inp[:, 1:], tgt[:, :-1])
    lengths = set()
    for r in range(300):
        (scored,) = np.flatnonzero(mask[r])  # one answer token
        n = scored - 1
        lengths.add(int(n))
        assert tgt[r, scored] == _recount(inp[r, 1:n + 1].tolist(), task.plus)
        assert (inp[r, task.seq_len(n):] == task.pad).all()
    assert lengths == set(range(MARKER_MIN_LEN, 8))
    with pytest.raises(EncodingError, match="at least 4"):
        task.training_batch(4, 3, np.random.default_rng(0))
    with pytest.raises(EncodingError, match="length"):
        task.instances(4, 3, np.random.default_rng(0))


def test_after_second_last_refuses_prompts_without_two_markers():
    assert after_second_last(np.array([[9, 1, 9, 2, 3], [9, 4, 9, 5, 6]]), 9).tolist() == [1, 4]
    assert after_second_last(np.array([[9, 1, 9, 2, 9, 6]]), 9).tolist() == [2]
    for bad in ([[1, 2, 9, 3]], [[9, 1, 2]], [[1, 2, 9]]):
        with pytest.raises(EncodingError, match="two markers"):
            after_second_last(np.array(bad), 9)
    with pytest.raises(EncodingError, match="shape"):
        after_second_last(np.array([9, 1, 9, 2]), 9)


def test_config_state_and_defaults_take_the_task():
    cfg = LabConfig(task="marker", train_len=8)
    assert cfg.task_title == "Counting markers" and cfg.scored_by_exact_match
    assert LabConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(LabError, match="marker task needs at least 4 tokens"):
        LabConfig(task="marker", train_len=8, eval_lens=(3, 8))
    assert "cope" in task_default_schemes("marker") and "cope" not in task_default_schemes("copy")
    st = LabState().clamped(task="marker")  # the task's L, steps and schemes follow
    assert (st.train_len, st.steps, st.schemes) == (12, 1500, task_default_schemes("marker"))
    assert st.clamped(task="copy").schemes == task_default_schemes("copy")
    mine = LabState(schemes=("rope",)).clamped(task="marker")  # a chosen selection is kept
    assert mine.schemes == ("rope",)
    ticked = LabState().clamped(task="marker", scheme_cope=False)
    assert "cope" not in ticked.schemes


def test_cli_trains_cope_by_default_and_refuses_short_lengths(capsys):
    pytest.importorskip("torch")
    from explorer.cli import main

    assert main(["lab", "--task", "marker", "--eval-lens", "3,8", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "marker task needs at least 4 tokens" in err
    from explorer.commands.lab import _schemes

    assert _schemes("default", "marker") == task_default_schemes("marker")


def test_a_tiny_run_beats_chance():
    """Prompts of 4 … 6 tokens, CoPE and RoPE, a few hundred steps: far above chance (1/4) at L."""
    pytest.importorskip("torch")
    from explorer.lab import run_experiment

    cfg = LabConfig(task="marker", schemes=("rope", "cope"), train_len=6, eval_lens=(6,), steps=120, vocab=4,
                    d_model=16, heads=2, eval_batch=64)
    result = run_experiment(cfg)
    assert result.status == "done" and result.chance == pytest.approx(0.25)
    for s in result.schemes:
        assert s.at(6).exact > 0.5, (s.scheme, s.at(6).exact)  # twice chance
        assert len(s.position_accuracy) == 1
