"""Training and testing: a tiny run (seconds) learns, reports, pauses, cancels and reproduces itself."""

from __future__ import annotations

import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from explorer.lab import SCHEMES, LabConfig, LabControl, LabResult, run_experiment  # noqa: E402

TINY = dict(train_len=8, eval_lens=(8, 16, 64), steps=60, eval_batch=32, d_model=32, heads=4)


@pytest.fixture(scope="module")
def tiny_run():
    events = []
    result = run_experiment(LabConfig(**TINY), on_progress=events.append, report_every_s=0.0)
    return result, events


def test_loss_falls_for_every_scheme(tiny_run):
    result, _ = tiny_run
    assert result.status == "done"
    assert [s.scheme for s in result.schemes] == list(SCHEMES)
    for s in result.schemes:
        assert s.status == "done" and s.steps_done == 60 and len(s.losses) == 60
        first, last = np.mean(s.losses[:5]), np.mean(s.losses[-10:])
        # Starts near ln 8 ≈ 2.08 (a uniform guess) and must clearly drop.
        assert first > 1.8, s.scheme
        assert last < first - 0.3, (s.scheme, first, last)


def test_a_result_for_every_scheme_and_length(tiny_run):
    result, _ = tiny_run
    for s in result.schemes:
        assert [r.length for r in s.lengths] == [8, 16, 64]
        for r in s.lengths:
            if s.scheme == "learned" and r.length > 8:
                assert r.status == "cannot run" and r.accuracy is None and r.loss is None
                assert "only 8 rows" in r.reason
            else:
                assert r.status == "ok" and 0.0 <= r.accuracy <= 1.0 and r.loss > 0
    # In the training range every model beats chance (1/8) after 60 steps.
    assert all(s.at(8).accuracy > 0.25 for s in result.schemes)


def test_length_accuracy_is_the_mean_of_the_positions(tiny_run):
    result, _ = tiny_run
    for s in result.schemes:
        pos = np.asarray(s.position_accuracy)
        assert pos.size == (7 if s.scheme == "learned" else 63)  # positions 1 … n − 1
        for r in s.lengths:
            if r.ran:
                assert r.accuracy == pytest.approx(pos[: r.length - 1].mean(), abs=1e-12)


def test_progress_reports(tiny_run):
    result, events = tiny_run
    fractions = [e.fraction for e in events]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert events[-1].phase == "done"
    done = [e for e in events if e.phase == "scheme done"]
    assert [e.scheme_result.scheme for e in done] == list(SCHEMES)
    # The live losses add up to the recorded curve, step for step.
    for scheme in SCHEMES:
        got: list[float] = []
        for e in events:
            if e.scheme == scheme and e.new_losses:
                assert e.first_step == len(got)
                got.extend(e.new_losses)
        assert got == list(result.scheme(scheme).losses)
    assert any(e.eta_s is not None for e in events)


def test_json_round_trip_of_a_real_run(tiny_run):
    result, _ = tiny_run
    back = LabResult.from_json(result.to_json())
    assert back.config == result.config
    for a, b in zip(back.schemes, result.schemes, strict=True):
        assert a.losses == pytest.approx(b.losses) and a.lengths == b.lengths
    assert 0.125 < result.last_symbol_baseline < 1 and result.loss_floor == pytest.approx(0.80426, abs=1e-5)


def test_same_seed_same_run_and_threads_restored():
    before = torch.get_num_threads()
    cfg = LabConfig(schemes=("rope",), train_len=8, eval_lens=(8, 16), steps=8, eval_batch=8, d_model=16,
                    heads=2)
    a, b = run_experiment(cfg, threads=1), run_experiment(cfg, threads=1)
    assert a.schemes[0].losses == b.schemes[0].losses
    assert a.schemes[0].lengths == b.schemes[0].lengths
    c = run_experiment(LabConfig(**{**cfg.to_dict(), "seed": 1, "schemes": ("rope",), "eval_lens": (8, 16)}))
    assert c.schemes[0].losses != a.schemes[0].losses
    assert torch.get_num_threads() == before


def test_cancel_returns_what_finished():
    control = LabControl()

    def progress(p):
        if p.scheme == "sinusoidal" and p.step >= 5:
            control.cancel()

    cfg = LabConfig(schemes=("nope", "sinusoidal", "alibi"), train_len=8, eval_lens=(8, 16), steps=40,
                    eval_batch=8, d_model=16, heads=2)
    r = run_experiment(cfg, control, progress, report_every_s=0.0)
    assert r.status == "cancelled"
    assert [s.scheme for s in r.schemes] == ["nope", "sinusoidal"]
    assert r.schemes[0].status == "done" and r.schemes[1].status == "cancelled"
    assert 5 <= r.schemes[1].steps_done < 40 and r.schemes[1].lengths == ()


def test_pause_holds_the_run_until_resumed():
    control = LabControl()
    seen = []
    resumed = threading.Event()

    def progress(p):
        seen.append(p.step)
        if p.step == 3 and not resumed.is_set():
            control.pause()
            # Resume from another thread a moment later, as the UI would.
            threading.Timer(0.3, lambda: (resumed.set(), control.resume())).start()

    cfg = LabConfig(schemes=("alibi",), train_len=8, eval_lens=(8,), steps=10, eval_batch=8, d_model=16,
                    heads=2)
    r = run_experiment(cfg, control, progress, report_every_s=0.0)
    assert r.status == "done" and resumed.is_set()
    assert control.paused_seconds >= 0.2
    # Elapsed time excludes the pause.
    assert r.seconds < sum(s.train_seconds + s.eval_seconds for s in r.schemes) + 1.0


def test_learning_rate_schedule():
    from explorer.lab.runner import FINAL_LR, lr_factor

    f = [lr_factor(s, 100) for s in range(100)]
    assert f[0] == pytest.approx(0.1) and f[9] == pytest.approx(1.0)  # 10 warm-up steps
    assert all(a >= b for a, b in zip(f[9:], f[10:], strict=False))  # then only down
    assert f[-1] > FINAL_LR and lr_factor(100, 100) == pytest.approx(FINAL_LR)
    assert [lr_factor(s, 1) for s in range(1)] == [1.0]
    assert lr_factor(1, 3) == pytest.approx(1.0)
