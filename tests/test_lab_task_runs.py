"""A tiny Lab run per sequence task (seconds each): the loss falls and every scheme × length has a result;
exact match scored with the answer fed in equals greedy decoding."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from explorer.lab import SCHEMES, LabConfig, LabControl, SequenceTask, run_experiment  # noqa: E402

LENS = (4, 8, 16)


@pytest.mark.parametrize("task", ["copy", "reverse", "addition", "sort"])
def test_tiny_run_learns_and_scores_every_scheme_and_length(task):
    cfg = LabConfig(task=task, train_len=4, eval_lens=LENS, steps=60, eval_batch=24, d_model=32, heads=4)
    result = run_experiment(cfg)
    assert result.status == "done" and [s.scheme for s in result.schemes] == list(SCHEMES)
    seq = SequenceTask(task, cfg.vocab, cfg.reverse_answer)
    assert result.chance == pytest.approx(1 / seq.symbols) and result.loss_floor == 0.0
    assert result.cpu_seconds > 0
    for s in result.schemes:
        first, last = np.mean(s.losses[:5]), np.mean(s.losses[-10:])
        assert last < first - 0.2, (task, s.scheme, first, last)  # the loss falls
        assert [r.length for r in s.lengths] == list(LENS)
        for r in s.lengths:
            if s.scheme == "learned" and r.length > 4:  # past its table: no number at all
                assert r.status == "cannot run" and r.accuracy is None and r.exact is None
                assert "rows" in r.reason
            else:
                assert r.status == "ok" and 0 <= r.exact <= r.accuracy <= 1 and r.loss > 0
        longest = 4 if s.scheme == "learned" else 16
        assert len(s.position_accuracy) == seq.answer_len(longest)


def test_exact_match_with_the_answer_fed_in_is_greedy_decoding():
    from explorer.lab.model import TinyTransformer
    from explorer.lab.runner import _evaluate_sequences, _training_loss

    cfg = LabConfig(task="copy", schemes=("alibi",), train_len=4, eval_lens=(4, 5), steps=150, vocab=4,
                    eval_batch=64, d_model=32, heads=4)
    task = SequenceTask("copy", vocab=4)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the runner does: a model this small is fastest on one thread
    try:
        _compare(cfg, task, TinyTransformer, _evaluate_sequences, _training_loss)
    finally:
        torch.set_num_threads(threads)


def _compare(cfg, task, TinyTransformer, _evaluate_sequences, _training_loss):  # noqa: N803 - classes passed in
    torch.manual_seed(0)
    model = TinyTransformer("alibi", vocab=task.n_tokens, d_model=32, heads=4, layers=2,
                            train_len=task.input_len(4))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    for _ in range(150):
        loss = _training_loss(model, task, cfg, rng, "cpu")
        opt.zero_grad()
        loss.backward()
        opt.step()
    evals = {n: task.instances(64, n, np.random.default_rng([9, n])) for n in (4, 5)}
    lengths, _ = _evaluate_sequences(model, task, cfg, evals, 5, "cpu", LabControl(), lambda _s: None)
    model.eval()
    with torch.no_grad():
        for r in lengths:
            toks, ans = evals[r.length]
            p = task.prompt_len(r.length)
            out = torch.from_numpy(toks[:, :p])
            for _ in range(task.answer_len(r.length)):  # greedy: write the model's own top guess
                nxt = model(out)[:, -1].argmax(-1, keepdim=True)
                out = torch.cat([out, nxt], dim=1)
            greedy = np.mean(np.all(out[:, p:].numpy() == ans, axis=1))
            assert r.exact == pytest.approx(greedy)
    assert 0 < lengths[0].exact  # it learned something: the comparison is not 0 = 0
