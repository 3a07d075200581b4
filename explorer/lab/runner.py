"""Train once per scheme, test at every length, report progress; pause and cancel between steps.

:func:`run_experiment` is plain Python (no Qt): the panel runs it as a long job of the compute service
(on a service-owned ``pe-lab`` worker), the CLI on the main thread, the tests directly.  It checks its
:class:`LabControl` before every training step and every evaluation chunk (each a few milliseconds
to a few tens of milliseconds on a laptop CPU), so Cancel takes effect well within a second and
Pause holds the run where it is.

Fair comparison: every scheme sees the same rule table, the same training batches (one seeded numpy
stream per run), the same initial weights where the architectures share them (torch's generator
reseeded before each model is built) and the same test streams.

The sequence tasks (copy, reverse, addition, sort) train on instances of 1 … L symbols (right-padded;
loss on the answer tokens only) and are tested on instances of exactly each test length, scored by
exact match (the whole answer right) and per-token accuracy, with the true answer fed in (the same as
greedy decoding for exact match: see :func:`~explorer.lab.task.exact_match`).

Testing the rule at several lengths from one pass: the model is causal, so its prediction at position t depends
only on tokens 0 … t.  Running it once on streams of the longest test length and averaging the first
L − 1 scored positions gives exactly what running it on the length-L prefixes would (a test checks
this), and also the accuracy at each position for the by-position plot.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import schemes as registry
from ..jobs.control import JobControl
from .grid_run import evaluate_grid, grid_loss, mean_tokens
from .grid_task import GridTask
from .results import (
    Cancelled,
    LabConfig,
    LabError,
    LabResult,
    LengthResult,
    SchemeResult,
)
from .task import RuleTask, SequenceTask, exact_match, last_symbol_baseline, make_task

#: Warm-up share of the steps (linear), before the cosine decay of the learning rate.
WARMUP = 0.1
#: The learning rate ends at this fraction of its peak.
FINAL_LR = 0.05
#: Gradient-norm clip: keeps the early, high-learning-rate steps of a tiny model from blowing up.
CLIP = 1.0
#: Largest attention tensor (batch × heads × L × L elements) one evaluation chunk may build.
EVAL_CHUNK_ELEMENTS = 2**23


class LabControl(JobControl):
    """Pause/cancel flags for a Lab run (a :class:`~explorer.jobs.control.JobControl` that raises the
    Lab's own :class:`~explorer.lab.results.Cancelled`), checked by :func:`run_experiment` between steps."""

    cancelled_error = Cancelled


@dataclass(frozen=True)
class Progress:
    """A progress report.

    ``phase`` is "train", "eval", "scheme done" or "done"; ``new_losses`` holds the training losses of
    steps ``first_step`` … since the previous report for this scheme; ``eta_s`` is None until there is
    enough to estimate from.
    """

    phase: str
    scheme: str
    scheme_index: int
    n_schemes: int
    step: int
    steps: int
    first_step: int
    new_losses: tuple[float, ...]
    fraction: float
    elapsed_s: float
    eta_s: float | None
    scheme_result: SchemeResult | None = None
    device: str = ""


def resolve_device(requested: str) -> str:
    """"auto" → "cuda" when torch sees a GPU, else "cpu"; "cuda" without one is an error."""
    import torch

    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested == "cuda" and not torch.cuda.is_available():
        raise LabError("device cuda was asked for, but torch sees no GPU")
    return requested


def lr_factor(step: int, steps: int) -> float:
    """Learning-rate multiplier at 0-based ``step`` of ``steps``: linear warm-up, then cosine decay.

    ``w = max(1, round(WARMUP·steps))``; ``(step + 1)/w`` for step < w, then
    ``FINAL_LR + (1 − FINAL_LR)·½(1 + cos(π·(step − w)/(steps − w)))`` (the usual warm-up + cosine schedule).
    """
    w = max(1, round(WARMUP * steps))
    if step < w:
        return (step + 1) / w
    span = max(1, steps - w)
    return FINAL_LR + (1.0 - FINAL_LR) * 0.5 * (1.0 + math.cos(math.pi * min(1.0, (step - w) / span)))


def _cost(tokens: float, length: float, d_model: int) -> float:
    # Work per token ∝ 12·d² (projections, MLP) + 2·L·d (scores, weighted sum): ∝ 1 + L/(6d).
    return tokens * (1.0 + length / (6.0 * d_model))


def run_experiment(
    config: LabConfig,
    control: LabControl | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    *,
    threads: int | None = 1,
    report_every_s: float = 0.1,
) -> LabResult:
    """Train one model per scheme of ``config`` at ``train_len`` and test it at every ``eval_lens``.

    Parameters
    ----------
    config : LabConfig
    control : LabControl, optional
        Pause/cancel flags; on cancel the run stops at the next step and returns what it has, with
        ``status == "cancelled"``.
    on_progress : callable, optional
        Called (on this thread) with a :class:`Progress` at most every ``report_every_s`` seconds while
        training, and at every phase change.
    threads : int or None
        torch intra-op threads on the CPU for this run (restored afterwards); None leaves torch's setting.
        One is the default: a model this small is dominated by per-operation overhead, and more threads
        only add synchronisation (measured on the 2-core development machine, default run: 43 s on one
        thread, 154 s on two while other work shared the cores).  It also leaves a core for the UI.

    Returns
    -------
    LabResult
    """
    import torch  # lazily: never on the path that opens the window

    from .model import TinyTransformer

    control = control or LabControl()
    cfg = config
    device = resolve_device(cfg.device)
    previous_threads = torch.get_num_threads()
    if threads is not None and device == "cpu":
        torch.set_num_threads(max(1, int(threads)))
    t_start = time.perf_counter()
    cpu_start = time.process_time()
    paused0 = control.paused_seconds
    task = make_task(cfg.task, vocab=cfg.vocab, noise=cfg.noise, seed=cfg.seed,
                     reverse_answer=cfg.reverse_answer)
    n_sch = len(cfg.schemes)
    l_max = cfg.max_eval_len
    l_tr = cfg.train_len
    if isinstance(task, RuleTask):
        # The test streams: one more symbol than the longest length, so the last position has a next symbol.
        x_eval = task.sample(cfg.eval_batch, l_max + 1, np.random.default_rng([cfg.seed, 2]))
        rule_eval = task.targets(x_eval[:, :l_max])  # (B, l_max − 1): target of position t = 1 … l_max − 1
        next_eval = x_eval[:, 2:]  # the symbol that actually came next, same positions
        baseline = last_symbol_baseline(x_eval[:, :l_max], rule_eval, cfg.vocab)
        tokens, model_len = cfg.vocab, l_tr
    elif isinstance(task, GridTask):
        # The same test grids for every scheme: one seeded stream per side.
        grid_eval = {n: task.sample(cfg.eval_batch, n, np.random.default_rng([cfg.seed, 2, n])) for n in cfg.eval_lens}
        baseline = math.nan
        tokens, model_len = cfg.vocab, l_tr * l_tr - 1  # the learned table: one row per cell read of the largest grid
    else:
        # The same test instances for every scheme: one seeded stream per length.
        seq_eval = {n: task.instances(cfg.eval_batch, n, np.random.default_rng([cfg.seed, 2, n]))
                    for n in cfg.eval_lens}
        baseline = math.nan
        tokens, model_len = task.n_tokens, task.input_len(l_tr)  # the learned table: one row per input token

    def run_len(scheme: str) -> int:
        most = registry.get(scheme).max_positions(model_len)  # a learned table has no row past L_train
        if isinstance(task, RuleTask):
            return l_max if most is None else min(l_max, most)
        if isinstance(task, GridTask):
            return max((n for n in cfg.eval_lens if most is None or n * n - 1 <= most), default=0)
        return max((n for n in cfg.eval_lens if most is None or task.input_len(n) <= most), default=0)

    if isinstance(task, RuleTask):
        train_cost = cfg.steps * _cost(3 * cfg.batch * l_tr, l_tr, cfg.d_model)
        eval_costs = {s: _cost(cfg.eval_batch * run_len(s), run_len(s), cfg.d_model) for s in cfg.schemes}
    elif isinstance(task, GridTask):
        m_tr = mean_tokens(l_tr)
        train_cost = cfg.steps * _cost(3 * cfg.batch * m_tr, m_tr, cfg.d_model)
        eval_costs = {s: sum(_cost(cfg.eval_batch * (n * n - 1), n * n - 1, cfg.d_model)
                             for n in cfg.eval_lens if n <= run_len(s)) for s in cfg.schemes}
    else:
        m_tr = task.input_len(l_tr)
        train_cost = cfg.steps * _cost(3 * cfg.batch * m_tr, m_tr, cfg.d_model)
        eval_costs = {s: sum(_cost(cfg.eval_batch * task.input_len(n), task.input_len(n), cfg.d_model)
                             for n in cfg.eval_lens if n <= run_len(s)) for s in cfg.schemes}
    total = n_sch * train_cost + sum(eval_costs.values())
    done_cost = 0.0
    last_report = -math.inf

    def active_elapsed() -> float:
        return time.perf_counter() - t_start - (control.paused_seconds - paused0)

    def report(phase, scheme, idx, step, first, losses, extra_cost=0.0, result=None, force=False):
        nonlocal last_report
        if on_progress is None:
            return False
        now = time.perf_counter()
        if not force and now - last_report < report_every_s:
            return False
        last_report = now
        frac = min(1.0, (done_cost + extra_cost) / total) if total > 0 else 1.0
        el = active_elapsed()
        eta = el / frac * (1.0 - frac) if frac > 0.02 and el > 0.3 else None
        on_progress(Progress(phase, scheme, idx, n_sch, step, cfg.steps, first, tuple(losses), frac, el,
                             eta, result, device))
        return True

    results: list[SchemeResult] = []
    status = "done"
    try:
        for idx, scheme in enumerate(cfg.schemes):
            losses: list[float] = []
            reported = 0
            t_train = time.perf_counter()
            try:
                # Same starting point for every scheme where shapes agree; the global generator is
                # restored afterwards so nothing else in the app sees a changed random state.
                with torch.random.fork_rng(devices=[]):
                    torch.manual_seed(cfg.seed)
                    model = TinyTransformer(scheme, vocab=tokens, d_model=cfg.d_model, heads=cfg.heads,
                                            layers=cfg.layers, train_len=model_len,
                                            params=cfg.params_of(scheme)).to(device)
                opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)
                sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(s, cfg.steps))
                rng = np.random.default_rng([cfg.seed, 1])
                model.train()
                step_cost = train_cost / cfg.steps
                for step in range(cfg.steps):
                    control.checkpoint()
                    loss = _training_loss(model, task, cfg, rng, device)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
                    opt.step()
                    sched.step()
                    losses.append(float(loss.item()))
                    done_cost += step_cost
                    if report("train", scheme, idx, step + 1, reported, losses[reported:], force=step == 0):
                        reported = len(losses)
            except Cancelled:
                results.append(SchemeResult(scheme, "cancelled", len(losses), tuple(losses),
                                            time.perf_counter() - t_train))
                report("train", scheme, idx, len(losses), reported, losses[reported:], force=True)
                raise
            train_s = time.perf_counter() - t_train
            if reported < len(losses):
                report("train", scheme, idx, len(losses), reported, losses[reported:], force=True)
                reported = len(losses)
            t_eval = time.perf_counter()
            n_done = len(losses)

            def on_chunk(share, scheme=scheme, idx=idx, n_done=n_done):
                report("eval", scheme, idx, cfg.steps, n_done, (), extra_cost=share * eval_costs[scheme])

            if isinstance(task, GridTask):
                lengths, per_pos = evaluate_grid(model, task, cfg, grid_eval, run_len(scheme), device, control,
                                                 on_chunk)
            elif isinstance(task, RuleTask):
                lengths, per_pos = _evaluate(model, scheme, cfg, x_eval, rule_eval, next_eval, run_len(scheme),
                                             device, control, on_chunk)
            else:
                lengths, per_pos = _evaluate_sequences(model, task, cfg, seq_eval, run_len(scheme), device,
                                                       control, on_chunk)
            done_cost += eval_costs[scheme]
            trained = model.position.trained_table()  # the learned table, for its views (None: no table)
            res = SchemeResult(scheme, "done", cfg.steps, tuple(losses), train_s,
                               time.perf_counter() - t_eval, lengths, per_pos,
                               position_table=() if trained is None else tuple(map(tuple, trained.tolist())),
                               weights=registry.get(scheme).lab_weights(model.position))
            results.append(res)
            report("scheme done", scheme, idx, cfg.steps, len(losses), (), result=res, force=True)
            del model, opt
    except Cancelled:
        status = "cancelled"
    finally:
        if threads is not None and device == "cpu":
            torch.set_num_threads(previous_threads)
    result = LabResult(
        config=cfg,
        status=status,
        schemes=tuple(results),
        device=device,
        torch_version=str(torch.__version__),  # a plain str: a TorchVersion would import torch where it is unpickled
        threads=torch.get_num_threads() if threads is None else max(1, int(threads)),
        seconds=active_elapsed(),
        chance=1.0 / (task.symbols if isinstance(task, SequenceTask) else cfg.vocab),
        last_symbol_baseline=baseline,
        # The sequence tasks have one right answer: nothing stops a model reaching zero loss.
        loss_floor=task.loss_floor() if isinstance(task, RuleTask) else 0.0,
        order_sensitive_fraction=task.order_sensitive_fraction() if isinstance(task, RuleTask) else math.nan,
        table=tuple(tuple(int(v) for v in row) for row in task.table) if isinstance(task, RuleTask) else (),
        cpu_seconds=time.process_time() - cpu_start,
    )
    if on_progress is not None:
        last = cfg.schemes[-1] if not results else results[-1].scheme
        on_progress(Progress("done", last, n_sch - 1, n_sch, cfg.steps, cfg.steps, 0, (),
                             1.0 if status == "done" else done_cost / total, active_elapsed(), 0.0,
                             device=device))
    return result


def run_as_long_job(config: LabConfig, experiment: Callable, control: LabControl,
                    report: Callable[[Progress], None]) -> LabResult:
    """``experiment(config, control, report)``: the Lab panel's long job of the compute service.

    A module-level function, so that ``functools.partial(run_as_long_job, config, run_experiment)``
    pickles and the training runs in a child process of its own (torch never loads in the UI process).
    """
    return experiment(config, control, report)


def _training_loss(model, task, cfg, rng, device):
    """Cross-entropy of one training batch: every scored rule position, or every answer token."""
    import torch

    if isinstance(task, GridTask):
        return grid_loss(model, task, cfg, rng, device)
    if isinstance(task, RuleTask):
        batch = torch.from_numpy(task.sample(cfg.batch, cfg.train_len + 1, rng)).to(device)
        logits = model(batch[:, :-1])
        # Position 0 has one symbol only: no rule can predict what follows, so it is not scored.
        return torch.nn.functional.cross_entropy(logits[:, 1:].reshape(-1, cfg.vocab), batch[:, 2:].reshape(-1))
    inp, tgt, mask = task.training_batch(cfg.batch, cfg.train_len, rng)
    logits = model(torch.from_numpy(inp).to(device))
    m = torch.from_numpy(mask).to(device)
    return torch.nn.functional.cross_entropy(logits[m], torch.from_numpy(tgt).to(device)[m])


def _evaluate_sequences(model, task: SequenceTask, cfg, seq_eval, n_run, device, control, on_chunk):
    """Exact match, per-token accuracy and loss at each test length ≤ ``n_run``; "cannot run" past it.

    Returns the per-length results and the accuracy at each answer token of the longest length run.
    """
    import torch

    todo = [n for n in cfg.eval_lens if n <= n_run]
    weights = {n: task.input_len(n) ** 2 for n in todo}
    total, done = float(sum(weights.values())) or 1.0, 0.0
    out: list[LengthResult] = []
    per_pos: tuple[float, ...] = ()
    model.eval()
    with torch.no_grad():
        for n in cfg.eval_lens:
            if n not in weights:
                out.append(model.not_run(n, task.input_len(n), n_run))
                continue
            toks, ans = seq_eval[n]
            m = task.input_len(n)
            cols = torch.from_numpy(task.prompt_positions(n)).to(device)
            b_all = toks.shape[0]
            chunk = max(1, min(b_all, EVAL_CHUNK_ELEMENTS // (cfg.heads * m * m)))
            pred = np.zeros(ans.shape, dtype=np.int64)
            ce = np.zeros(ans.shape, dtype=np.float64)
            for lo in range(0, b_all, chunk):
                control.checkpoint()
                hi = min(b_all, lo + chunk)
                x = torch.from_numpy(toks[lo:hi]).to(device)
                logits = model(x[:, :-1])[:, cols]  # the outputs that predict the answer's tokens
                pred[lo:hi] = logits.argmax(-1).cpu().numpy()
                ce[lo:hi] = torch.nn.functional.cross_entropy(
                    logits.transpose(1, 2).float(), x[:, cols + 1], reduction="none").cpu().numpy()
                on_chunk(min(1.0, (done + weights[n] * hi / b_all) / total))
            done += weights[n]
            right = pred == ans
            out.append(LengthResult(n, "ok", float(right.mean()), float(ce.mean()), exact=exact_match(pred, ans)))
            per_pos = tuple(float(v) for v in right.mean(axis=0))  # the longest length run, in the end
    return tuple(out), per_pos


def _evaluate(model, scheme, cfg, x_eval, rule_eval, next_eval, n_run, device, control, on_chunk):
    """Accuracy and loss per position on the test streams up to ``n_run``; then per test length."""
    import torch

    b_all = x_eval.shape[0]
    chunk = max(1, min(b_all, EVAL_CHUNK_ELEMENTS // (cfg.heads * n_run * n_run)))
    correct = np.zeros((b_all, n_run - 1), dtype=bool)
    ce = np.zeros((b_all, n_run - 1), dtype=np.float64)
    model.eval()
    with torch.no_grad():
        for lo in range(0, b_all, chunk):
            control.checkpoint()
            hi = min(b_all, lo + chunk)
            x = torch.from_numpy(x_eval[lo:hi, :n_run]).to(device)
            logits = model(x)[:, 1:]  # positions 1 … n_run − 1
            pred = logits.argmax(-1).cpu().numpy()
            correct[lo:hi] = pred == rule_eval[lo:hi, : n_run - 1]
            nxt = torch.from_numpy(next_eval[lo:hi, : n_run - 1]).to(device)
            ce[lo:hi] = torch.nn.functional.cross_entropy(
                logits.transpose(1, 2).float(), nxt, reduction="none").cpu().numpy()
            on_chunk(hi / b_all)
    per_pos = correct.mean(axis=0)
    out = []
    for n in cfg.eval_lens:
        if n <= n_run:
            out.append(LengthResult(n, "ok", float(correct[:, : n - 1].mean()), float(ce[:, : n - 1].mean())))
        else:
            out.append(model.not_run(n, n, n_run))
    return tuple(out), tuple(float(v) for v in per_pos)
