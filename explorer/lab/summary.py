"""Small pure helpers that turn a Lab result into what the panel and the CLI show (no torch, no Qt)."""

from __future__ import annotations

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


def fmt_percent(v: float | None) -> str:
    return "—" if v is None else f"{100.0 * v:.1f} %"


def headline(result: LabResult) -> str:
    """One sentence: each scheme's accuracy at the training length and at the longest test length."""
    cfg = result.config
    top = cfg.max_eval_len
    parts = []
    for s in result.schemes:
        if s.status != "done":
            parts.append(f"{SCHEME_LABELS[s.scheme]} cancelled")
            continue
        at_train = s.at(cfg.train_len) if cfg.train_len in cfg.eval_lens else None
        far = s.at(top)
        far_txt = fmt_percent(far.accuracy) if far is not None and far.ran else "cannot run"
        if at_train is not None and at_train.ran and top != cfg.train_len:
            parts.append(f"{SCHEME_LABELS[s.scheme]} {fmt_percent(at_train.accuracy)} → {far_txt}")
        else:
            parts.append(f"{SCHEME_LABELS[s.scheme]} {far_txt}")
    if not parts:
        return "No scheme finished."
    if cfg.train_len in cfg.eval_lens and top != cfg.train_len:
        lead = f"Accuracy at L = {cfg.train_len} → at {top} ({top / cfg.train_len:g} × L): "
    else:
        lead = f"Accuracy at {top}: "
    return lead + ", ".join(parts) + ("" if result.status == "done" else " (run cancelled)")
