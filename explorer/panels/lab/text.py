"""The Lab panel's words: the task in "What am I looking at?", the formula strip, the model line (no Qt)."""

from __future__ import annotations

from ...lab import SCHEME_LABELS, TASK_WHY, SequenceTask, fmt_percent

#: Each sequence task's instance, as rich text: prompt = answer.
FORMS = {
    "copy": "x<sub>1</sub> … x<sub>n</sub> = x<sub>1</sub> … x<sub>n</sub>",
    "reverse": "x<sub>1</sub> … x<sub>n</sub> = x<sub>n</sub> … x<sub>1</sub>",
    "sort": "x<sub>1</sub> … x<sub>n</sub> = the x in ascending order",
    "addition": "a<sub>1</sub> … a<sub>n</sub> + b<sub>1</sub> … b<sub>n</sub> = the n + 1 digits of a + b",
    "marker": "x<sub>1</sub> … x<sub>n</sub> (2 or 3 of them the marker |) = the symbol after the second-last |",
}


def _form(cfg) -> str:
    form = FORMS[cfg.task]
    if cfg.task == "addition":
        form += ", least significant first" if cfg.reverse_answer else ", most significant first"
    return form


def task_text(cfg, facts) -> str:
    """The task, why it tests position, and what is trained and tested (rich text)."""
    if cfg.task == "grid":
        return (
            "<b>Task: fill in a grid.</b> The model reads a grid of symbols row by row (raster order, as a ViT "
            "reads patches); row 0 and column 0 are random and every other cell is g[y, x] = (g[y−1, x] + "
            f"g[y, x−1]) mod {cfg.vocab}. {TASK_WHY['grid']} 1-D schemes number the cells 0 … s² − 1; the 2-D "
            "RoPE schemes give each cell its (x, y). "
            f"<b>Trained on grids of side 3 … L = {cfg.train_len}, tested on sides up to {cfg.max_eval_len}</b>; "
            "accuracy over the cells the rule sets."
        )
    if cfg.task == "rule":
        return (
            "<b>Task: predict the next symbol.</b> Each symbol is set by the two before it, "
            "<i>in order</i>: x<sub>t+1</sub> = T[x<sub>t−1</sub>, x<sub>t</sub>] "
            f"(a random {cfg.vocab} × {cfg.vocab} table; 1 symbol in {round(1 / cfg.noise)} is noise, "
            "so streams never repeat). Swapping the two changes the answer for "
            f"<b>{fmt_percent(facts.order_sensitive_fraction)}</b> of pairs. The rule is the same at "
            "every position, so “look one back” works at any length — “at position 17, look at 16” "
            f"does not. <b>Train at L = {cfg.train_len}, test up to {cfg.max_eval_len}.</b>"
        )
    task = SequenceTask(cfg.task, cfg.vocab, cfg.reverse_answer)
    symbols = "digits 0–9" if cfg.task == "addition" else f"{task.symbols} symbols"
    return (
        f"<b>Task: {cfg.task_title}.</b> The model reads {_form(cfg)} ({symbols}) and writes the "
        f"answer after “=”. {TASK_WHY[cfg.task]} <b>Trained on prompts of {task.min_len} … L = {cfg.train_len}, "
        f"tested on prompts of exactly each length up to {cfg.max_eval_len}.</b> Exact match: the whole answer right "
        "(scored with the true answer fed in, which for a whole answer is the same as the model writing it "
        "itself); per-token accuracy is in the grid's tooltips."
    )


def formula_text(cfg) -> str:
    """The formula strip: what is scored, and the run's settings, in parts split by "; " (in presenter mode the
    strip keeps the leading parts that fit one line and folds the rest behind "▸ more")."""
    top = cfg.max_eval_len
    if cfg.task == "grid":
        scored = (f"g[y, x] = (g[y−1, x] + g[y, x−1]) mod {cfg.vocab}; accuracy(s): top guess right on the "
                  "cells with x, y ≥ 1 of s × s grids; ")
        trained = f"trained on sides 3 … {cfg.train_len}"
    elif cfg.task == "rule":
        scored = ("x<sub>t+1</sub> = T[x<sub>t−1</sub>, x<sub>t</sub>] (1 time in "
                  f"{round(1 / cfg.noise)}: random); accuracy(L): top guess = T[x<sub>t−1</sub>, x<sub>t</sub>] "
                  "at t = 1 … L−1; ")
        trained = f"trained at L = {cfg.train_len}"
    else:
        scored = f"{_form(cfg)}; exact match(n): every answer token right; "
        trained = f"trained on n = {SequenceTask(cfg.task, cfg.vocab).min_len} … {cfg.train_len}"
    return (f"{scored}{trained} for {cfg.steps} steps, tested up to {top} = {top / cfg.train_len:g} × L; "
            f"{cfg.layers} layers, d = {cfg.d_model}, {cfg.heads} heads, seed {cfg.seed}"
            + "".join(f"; {SCHEME_LABELS[s]}: {cfg.setting(s)}" for s in cfg.schemes if cfg.setting(s)))


def model_text(cfg) -> str:
    """The run's model, and what each trained scheme's own Lab settings did in it (the hybrid's RoPE layers)."""
    what = {"rule": "streams", "grid": "grids"}.get(cfg.task, "prompts")
    settings = "".join(f" {SCHEME_LABELS[s]}: {cfg.setting(s)}." for s in cfg.schemes if cfg.setting(s))
    return (f"Model: {cfg.layers} layers, d = {cfg.d_model}, {cfg.heads} heads, causal; AdamW, peak learning "
            f"rate {cfg.lr:g}, batches of {cfg.batch}; tested on {cfg.eval_batch} {what} per length.{settings}")
