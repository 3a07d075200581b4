"""The Lab's task, config, state, results and summaries: pure numpy/Python, no torch, no Qt."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from explorer.encodings import EncodingError
from explorer.lab import (
    SCHEMES,
    LabConfig,
    LabError,
    LabResult,
    LengthResult,
    RuleTask,
    SchemeResult,
    centred_average,
    default_eval_lengths,
    headline,
    last_symbol_baseline,
    moving_average,
    rule_facts,
)
from explorer.state import StateError
from explorer.state.lab import LabState, standard_lengths


# -- the task ----------------------------------------------------------------------------------------
def test_table_is_a_fixed_function_of_the_seed():
    a, b, c = RuleTask(8, 0.2, 0).table, RuleTask(8, 0.2, 0).table, RuleTask(8, 0.2, 1).table
    assert a.shape == (8, 8) and a.dtype == np.int64
    assert a.min() >= 0 and a.max() < 8
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_noise_free_streams_follow_the_rule_exactly():
    task = RuleTask(vocab=5, noise=0.0, seed=3)
    x = task.sample(64, 40, np.random.default_rng(0))
    t = task.table
    for i in range(2, 40):
        np.testing.assert_array_equal(x[:, i], t[x[:, i - 2], x[:, i - 1]])


def test_noise_rate_matches_epsilon():
    # A symbol breaks the rule only when the noise draws a different symbol: rate ε·(V−1)/V.
    task = RuleTask(vocab=8, noise=0.2, seed=0)
    x = task.sample(2000, 50, np.random.default_rng(1))
    broken = np.mean(x[:, 2:] != task.targets(x)[:, :-1])
    assert broken == pytest.approx(0.2 * 7 / 8, abs=0.01)


def test_targets_are_the_rule_applied_to_the_last_two_symbols():
    task = RuleTask(vocab=4, noise=0.5, seed=2)
    x = np.array([[0, 1, 2, 3, 0], [3, 3, 1, 0, 2]])
    tg = task.targets(x)
    assert tg.shape == (2, 4)
    for r in range(2):
        for j in range(4):
            assert tg[r, j] == task.table[x[r, j], x[r, j + 1]]
    with pytest.raises(EncodingError, match="at least 2 symbols"):  # one symbol: no target
        task.targets(np.array([[1]]))


def test_order_sensitive_fraction_by_brute_force():
    task = RuleTask(vocab=6, noise=0.2, seed=5)
    t = task.table
    pairs = [(a, b) for a in range(6) for b in range(6) if a != b]
    expected = sum(t[a, b] != t[b, a] for a, b in pairs) / len(pairs)
    assert task.order_sensitive_fraction() == pytest.approx(expected)
    # The default language really is order-dependent.
    assert RuleTask().order_sensitive_fraction() > 0.75


def test_loss_floor_is_the_entropy_of_the_next_symbol():
    # V = 8, ε = 0.2: the rule's symbol has probability 0.8 + 0.2/8 = 0.825, each other 0.025.
    p = np.array([0.825] + [0.025] * 7)
    assert RuleTask(8, 0.2).loss_floor() == pytest.approx(-(p * np.log(p)).sum(), rel=1e-12)
    assert RuleTask(8, 0.2).loss_floor() == pytest.approx(0.80426, abs=1e-5)
    assert RuleTask(8, 0.0).loss_floor() == 0.0
    # All noise: nothing to learn, the floor is ln V.
    assert RuleTask(8, 1.0).loss_floor() == pytest.approx(math.log(8))


def test_last_symbol_baseline_by_hand():
    # Current symbols (positions ≥ 1) and their targets: after 0 come targets 1, 1, 2 (best guess 1: 2 right);
    # after 1 comes 0 (1 right).  3 of 4.
    x = np.array([[5, 0, 0, 1, 0]])
    targets = np.array([[1, 1, 0, 2]])
    assert last_symbol_baseline(x, targets, vocab=6) == pytest.approx(3 / 4)


def test_bad_task_parameters_are_refused():
    with pytest.raises(ValueError, match="vocab"):
        RuleTask(vocab=1)
    with pytest.raises(ValueError, match="noise"):
        RuleTask(noise=1.5)


# -- helpers for the views ----------------------------------------------------------------------------
@pytest.mark.parametrize("window", [1, 3, 10])
def test_moving_average_against_a_loop(window):
    v = np.random.default_rng(0).normal(size=37)
    want = [v[max(0, i - window + 1): i + 1].mean() for i in range(v.size)]
    np.testing.assert_allclose(moving_average(v, window), want, rtol=1e-12)


@pytest.mark.parametrize("window", [1, 4, 5])
def test_centred_average_against_a_loop(window):
    v = np.random.default_rng(1).normal(size=23)
    want = [v[max(0, i - (window - 1) // 2): min(v.size, i + window // 2 + 1)].mean() for i in range(v.size)]
    np.testing.assert_allclose(centred_average(v, window), want, rtol=1e-12)
    assert moving_average([], 3).size == 0 and centred_average([], 3).size == 0


def test_rule_facts_match_the_runner_streams():
    f = rule_facts(8, 0.2, 0, 64, 48)
    assert f.chance == 1 / 8
    assert 1 / 8 < f.last_symbol_baseline < 1.0
    assert f.loss_floor == pytest.approx(RuleTask(8, 0.2).loss_floor())
    assert f.order_sensitive_fraction == RuleTask(8, 0.2, 0).order_sensitive_fraction()


# -- config and state -----------------------------------------------------------------------------------
def test_default_lengths_reach_eight_times_the_training_length():
    assert default_eval_lengths(32) == (32, 48, 64, 96, 128, 192, 256)
    assert standard_lengths(8) == (8, 12, 16, 24, 32, 48, 64)
    assert LabConfig(train_len=16).eval_lens == standard_lengths(16)


def test_config_is_canonical_and_validated():
    cfg = LabConfig(schemes=("alibi", "nope"), eval_lens=(64, 32, 64))
    assert cfg.schemes == ("nope", "alibi") and cfg.eval_lens == (32, 64) and cfg.max_eval_len == 64
    with pytest.raises(LabError, match="at least one scheme"):
        LabConfig(schemes=())
    with pytest.raises(LabError, match="unknown scheme"):
        LabConfig(schemes=("no_such_scheme",))
    with pytest.raises(LabError, match=r"test length must be in \[2, 256\]"):
        LabConfig(train_len=32, eval_lens=(257,))
    with pytest.raises(LabError, match="divisible by 2 × heads"):
        LabConfig(d_model=36, heads=4)
    assert LabConfig.from_dict(cfg.to_dict()) == cfg


def test_state_defaults_limits_and_clamping():
    st = LabState()
    assert st.schemes == SCHEMES and st.eval_lens == standard_lengths(32)
    with pytest.raises(StateError, match="at least one scheme"):
        LabState(schemes=())
    with pytest.raises(StateError, match="8 × L = 128"):
        LabState(train_len=16, eval_lens=(16, 200))
    # The standard lengths follow a new L_train; custom lengths keep what still fits.
    assert st.clamped(train_len=16).eval_lens == standard_lengths(16)
    custom = LabState(eval_lens=(32, 100, 250))
    assert custom.clamped(train_len=16).eval_lens == (32, 100)
    assert LabState(eval_lens=(64, 32)).eval_lens == (32, 64)
    assert LabConfig.from_state(st).schemes == SCHEMES


def test_state_round_trips_through_json_and_set():
    from explorer.state import from_dict, to_dict, with_value

    st = LabState().clamped(scheme_rope=False, train_len=16, eval_lens=(16, 64), steps=300, seed=7)
    d = json.loads(json.dumps(to_dict(st)))
    assert d["eval_lens"] == [16, 64] and "rope" not in d["schemes"]
    assert from_dict(LabState, d) == st
    assert with_value(st, "eval_lens", "16,32,128").eval_lens == (16, 32, 128)
    with pytest.raises(StateError, match="8 × L = 128"):
        with_value(st, "eval_lens", "16,200")


# -- results --------------------------------------------------------------------------------------------
def _result(status="done") -> LabResult:
    cfg = LabConfig(schemes=("learned", "alibi"), train_len=8, eval_lens=(8, 16), steps=3)
    learned = SchemeResult("learned", "done", 3, (2.0, 1.5, 1.2), 0.1, 0.01,
                           (LengthResult(8, "ok", 0.75, 1.1),
                            LengthResult(16, "cannot run", None, None, "no row")),
                           (0.5, 1.0))
    alibi_lengths = (LengthResult(8, "ok", 1.0, 0.9), LengthResult(16, "ok", 0.875, 0.95))
    alibi = SchemeResult("alibi", status, 3, (2.0, 1.4, float("nan")), 0.1, 0.01,
                         alibi_lengths if status == "done" else ())
    return LabResult(cfg, status, (learned, alibi), "cpu", "x", 1, 0.3, 0.125, 0.4, 0.8, 0.9,
                     ((0, 1), (1, 0)))


def test_result_json_round_trip_keeps_cannot_run_as_no_number():
    r = _result()
    d = json.loads(r.to_json())
    cell = d["schemes"][0]["lengths"][1]
    assert cell == {"length": 16, "status": "cannot run", "accuracy": None, "loss": None, "reason": "no row"}
    assert d["schemes"][1]["losses"][2] is None  # NaN is not JSON: null
    back = LabResult.from_json(r.to_json())
    gone = back.scheme("learned").at(16)
    assert gone.status == "cannot run" and gone.accuracy is None
    assert back.scheme("alibi").at(16).accuracy == 0.875
    assert back.config == r.config and back.table == r.table


@pytest.mark.parametrize("text, match", [
    ("{", "not valid JSON"),
    ('{"format": "other"}', "not a PE Explorer Lab result"),
    ('{"format": "pe-explorer-lab", "version": 99}', "unsupported"),
    ('{"format": "pe-explorer-lab", "version": 1, "schemes": []}', "incomplete"),
])
def test_bad_result_files_are_refused_with_a_reason(text, match):
    with pytest.raises(LabError, match=match):
        LabResult.from_json(text)


def test_headline_names_every_scheme_and_cannot_run():
    # ALiBi keeps 87.5 % of … 100 %: less than 90 % of its score at L, so it "drops".
    assert headline(_result()) == "Next-symbol rule: ALiBi drops to 88 % at 2×L; Learned cannot run past L."
    assert headline(_result("cancelled")) == "Next-symbol rule: Learned cannot run past L. (run cancelled)"
