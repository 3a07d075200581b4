"""Small pure helpers that turn a Lab result into what the panel and the CLI show (no torch, no Qt)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .results import SCHEME_LABELS, LabResult, RuleFacts
from .task import RuleTask, last_symbol_baseline


def moving_average(values, window: int) -> np.ndarray:
    """Trailing mean over the last ``window`` values (fewer at the start), same length as ``values``.

    ``out[i] = mean(values[max(0, i − window + 1) … i])`` — trailing, so a live curve never looks ahead.
    """
    v = np.asarray(values, dtype=np.float64)
    w = max(1, int(window))
    if v.size == 0:
        return v.copy()
    c = np.concatenate(([0.0], np.cumsum(v)))
    i = np.arange(1, v.size + 1)
    lo = np.maximum(0, i - w)
    return (c[i] - c[lo]) / (i - lo)


def centred_average(values, window: int) -> np.ndarray:
    """Centred mean over ``window`` neighbours (shrinking at the ends), same length as ``values``."""
    v = np.asarray(values, dtype=np.float64)
    w = max(1, int(window))
    if v.size == 0:
        return v.copy()
    c = np.concatenate(([0.0], np.cumsum(v)))
    i = np.arange(v.size)
    lo = np.maximum(0, i - (w - 1) // 2)
    hi = np.minimum(v.size, i + w // 2 + 1)
    return (c[hi] - c[lo]) / (hi - lo)


def rule_facts(vocab: int, noise: float, seed: int, eval_batch: int, max_len: int) -> RuleFacts:
    """The task's reference numbers for a config, before any training (a few milliseconds of numpy).

    The test streams are drawn exactly as :func:`~explorer.lab.runner.run_experiment` draws them, so the
    "last symbol only" baseline shown before a run is the one the run will report.
    """
    task = RuleTask(vocab, noise, seed)
    x = task.sample(eval_batch, max_len + 1, np.random.default_rng([seed, 2]))
    rule = task.targets(x[:, :max_len])
    return RuleFacts(chance=1.0 / vocab,
                     last_symbol_baseline=last_symbol_baseline(x[:, :max_len], rule, vocab),
                     loss_floor=task.loss_floor(),
                     order_sensitive_fraction=task.order_sensitive_fraction())


def task_facts(cfg) -> RuleFacts:
    """A config's reference numbers before any training: :func:`rule_facts` for the rule; for a sequence
    task, chance per answer token, no last-symbol baseline (NaN), a loss floor of 0 (one right answer)."""
    if cfg.task == "rule":
        return rule_facts(cfg.vocab, cfg.noise, cfg.seed, cfg.eval_batch, cfg.max_eval_len)
    symbols = 10 if cfg.task == "addition" else cfg.vocab
    return RuleFacts(chance=1.0 / symbols, last_symbol_baseline=math.nan, loss_floor=0.0,
                     order_sensitive_fraction=math.nan)


def cell_text(v: float) -> str:
    """A score for a narrow cell, in whole percent: never "100" for less than all nor "0" for more than none."""
    if v >= 1.0:
        return "100"
    if v <= 0.0:
        return "0"
    if v >= 0.995:
        return ">99"
    if v < 0.005:
        return "<1"
    return f"{100 * v:.0f}"


def fmt_percent(v: float | None) -> str:
    return "—" if v is None else f"{100.0 * v:.1f} %"


#: A scheme "learned" the task when its score at the training length reaches this.
LEARNED = 0.5
#: A scheme "holds" its score at a length while it keeps this share of its score at the training length.
HOLD_SHARE = 0.9
#: Below this (and above 0) a score is shown as "<1 %": "0 %" is kept for exactly none right.
SMALL = 0.005


def score(result: LabResult, scheme_result, length: int) -> float | None:
    """The task's headline score of a scheme at a length: exact match for the sequence tasks, per-token
    accuracy for the rule; ``None`` where it did not run."""
    r = scheme_result.at(length)
    if r is None or not r.ran:
        return None
    return r.exact if result.config.scored_by_exact_match else r.accuracy


def metric_name(result: LabResult) -> str:
    return "exact match" if result.config.scored_by_exact_match else "accuracy"


def _times(n: int, train_len: int) -> str:
    return "L" if n == train_len else f"{n / train_len:.3g}×L"


def _pct(v: float) -> str:
    if 0.0 < v < SMALL:
        return "<1 %"
    if 0.0 < 1.0 - v < SMALL:
        return ">99 %"
    return f"{100 * v:.0f} %"


@dataclass(frozen=True)
class SchemeFinding:
    """What one scheme did: its score at L, how far it held it, and where it fell (or could not run)."""

    scheme: str
    at_train: float | None
    held_to: int | None  # the longest length up to which every tested length kept HOLD_SHARE of at_train
    first_drop: int | None  # the first length past held_to, or None if it held to the end
    drop_score: float | None
    zero_at: int | None  # the first length where the score is 0 (none right)
    cannot_run_from: int | None
    top_score: float | None  # the score at the longest length it ran


def findings(result: LabResult) -> list[SchemeFinding]:
    """One :class:`SchemeFinding` per finished scheme, computed from the result's numbers."""
    cfg = result.config
    out = []
    lens = sorted(cfg.eval_lens)
    base_len = cfg.train_len if cfg.train_len in lens else lens[0]
    for s in result.schemes:
        if s.status != "done":
            continue
        at_l = score(result, s, base_len)
        ran = [(n, v) for n in lens if (v := score(result, s, n)) is not None]
        blocked = [n for n in lens if (r := s.at(n)) is not None and not r.ran]
        held, drop, drop_v = None, None, None
        if at_l is not None and at_l >= LEARNED:
            for n, v in ran:
                if n < base_len:
                    continue
                if v >= HOLD_SHARE * at_l:
                    held = n
                else:
                    drop, drop_v = n, v
                    break
        zero = next((n for n, v in ran if n > base_len and v <= 0.0), None)
        out.append(SchemeFinding(s.scheme, at_l, held, drop, drop_v, zero, min(blocked) if blocked else None,
                                 ran[-1][1] if ran else None))
    return out


def _phrase(f: SchemeFinding, cfg, metric: str) -> str:
    name, L = SCHEME_LABELS[f.scheme], cfg.train_len
    if f.at_train is None:
        return f"{name} cannot run at L"
    if f.at_train < LEARNED:
        return f"{name} reaches only {_pct(f.at_train)} at L"
    if f.first_drop is None:
        if f.cannot_run_from is not None:
            return f"{name} cannot run past {_times(f.held_to or L, L)}"
        return f"{name} holds {metric} to {_times(f.held_to or L, L)} ({_pct(f.top_score or 0.0)})"
    drop = f.drop_score or 0.0
    if drop <= 0.0:
        return f"{name} falls to 0 % at {_times(f.first_drop, L)}"
    tail = f", 0 % at {_times(f.zero_at, L)}" if f.zero_at is not None else ""
    return f"{name} drops to {_pct(drop)} at {_times(f.first_drop, L)}{tail}"


def headline(result: LabResult) -> str:
    """What the run found, in one sentence computed from its numbers.

    E.g. "Copy: ALiBi holds exact match to 1.5×L (87 %); NoPE drops to 40 % at 1.5×L; RoPE falls to 0 %
    at 1.5×L; Learned cannot run past L."  Schemes are ordered by how far they held their score (then by
    their score at the longest length they ran); a scheme that never learned the task says so.
    """
    cfg = result.config
    metric = metric_name(result)
    found = findings(result)
    lead = f"{cfg.task_title}: "
    tail = "" if result.status == "done" else " (run cancelled)"
    if not found:
        return lead + "no scheme finished." + tail
    learned = [f for f in found if f.at_train is not None and f.at_train >= LEARNED]
    if not learned:
        best = max(found, key=lambda f: f.at_train or 0.0)
        return (lead + f"no scheme learned the task at L = {cfg.train_len} in {cfg.steps} steps (best "
                f"{metric} {_pct(best.at_train or 0.0)}, {SCHEME_LABELS[best.scheme]}): try more steps." + tail)

    def reach(f: SchemeFinding):
        top = max(cfg.eval_lens) + 1 if f.first_drop is None and f.cannot_run_from is None else (f.held_to or 0)
        # A scheme that ran at the length where it dropped says more than one that could not run there.
        ran_on = f.first_drop is not None or f.cannot_run_from is None
        return (f.at_train is not None and f.at_train >= LEARNED, top, ran_on, f.drop_score or 0.0,
                f.top_score or 0.0)

    ordered = sorted(found, key=reach, reverse=True)
    return lead + "; ".join(_phrase(f, cfg, metric) for f in ordered) + "." + tail
