"""``pe-explorer lab``: the Lab's train-short-test-long experiment, headless.

Trains one tiny transformer per scheme on ``--task`` (the two-back rule, copy, reverse, addition or
sorting; ``all`` runs each in turn) at ``--train-len`` and tests it at ``--eval-lens`` (up to 8 × the
training length); prints a table per task and what the run found, and writes every number (settings,
loss per step, exact match, accuracy and loss per length, accuracy per position) to ``--out`` as JSON —
the same file the Lab panel's "Open results…" shows.  ``--json`` prints that JSON instead of the tables.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ..cli import UsageError
from .args import parse_number, parse_whole, whole

#: More test lengths than this is a typo (the state takes at most 12): refused before parsing each one.
_MAX_LIST = 64


def _int_list(text: str) -> tuple[int, ...]:
    parts = [p for p in text.replace(" ", "").split(",") if p]
    if len(parts) > _MAX_LIST:
        raise UsageError(f"--eval-lens takes at most {_MAX_LIST} lengths, got {len(parts)}")
    try:
        return tuple(parse_whole(p) for p in parts)
    except ValueError as exc:
        shown = text if len(text) <= 40 else f"{text[:20]}… ({len(text)} characters)"
        raise UsageError(f"--eval-lens must be whole numbers separated by commas, got {shown!r}: "
                         f"a length {exc}") from None


def _schemes(text: str, task: str = "rule") -> tuple[str, ...]:
    from .. import schemes as registry
    from ..state.lab import task_default_schemes

    known = registry.lab_ids()
    names = tuple(p for p in text.replace(" ", "").lower().split(",") if p)
    if names == ("all",):
        return known
    if names == ("default",):
        return task_default_schemes(task)
    bad = [n for n in names if n not in known]
    if bad:
        raise UsageError(f"--schemes: unknown {', '.join(map(repr, bad))}; "
                         f"choose from {', '.join(known)}, all or default")
    if not names:
        raise UsageError("--schemes needs at least one scheme")
    return names


def _scheme_params(texts) -> dict:
    """``--scheme-param SCHEME.NAME=VALUE`` (repeated) as ``{scheme: {name: value}}``; one line if malformed."""
    from .. import schemes as registry

    out: dict = {}
    for text in texts:
        key, eq, value = text.partition("=")
        sid, dot, name = key.strip().lower().partition(".")
        shown = text if len(text) <= 40 else f"{text[:20]}… ({len(text)} characters)"
        if not (eq and dot and sid and name):
            raise UsageError(f"--scheme-param takes SCHEME.NAME=VALUE (see pe-explorer lab --help), got {shown!r}")
        own = registry.lab_settings_of(sid)
        if name not in own:
            raise UsageError(f"--scheme-param: no Lab setting {key.strip()[:40]!r}; "
                             f"valid: {registry.lab_setting_names()}")
        q = own[name]
        try:
            v = (parse_whole(value, int(q.lo), int(q.hi)) if q.integer else parse_number(value, q.lo, q.hi))
        except ValueError as exc:
            raise UsageError(f"--scheme-param {sid}.{name} {exc}") from None
        out.setdefault(sid, {})[name] = v
    return out


def add_parser(sub) -> None:
    from .. import schemes as registry
    from ..lab.task import TASK_DEFAULTS, TASK_IDS
    from ..state.lab import MAX_LAYERS

    p = sub.add_parser(
        "lab",
        help="train short, test long: one tiny transformer per scheme, scored at longer lengths",
        description="Train a tiny causal transformer (2 layers unless --layers, d = 64, 4 heads) per positional "
        "scheme on a "
        "task at the training length, then test it up to 8 × that length. Tasks: rule (the two-back language "
        "x[t+1] = T[x[t-1], x[t]], 1 symbol in 5 random; next-symbol accuracy), copy, reverse, addition and "
        "sort (trained on prompts of 1 … L symbols, tested on prompts of each test length; exact match = the "
        "whole answer right, and per-token accuracy), marker (counting: the symbol right after the second-last "
        "marker of a prompt of 4 … L tokens; CoPE is trained too by default), grid (2-D: each cell of a grid read "
        "row by row is the cell above plus the one to its left, mod V; trained on sides 3 … L, tested on larger "
        "grids, accuracy per cell; by default NoPE, learned, RoPE and the two 2-D RoPEs), or all of them in turn. The "
        "learned table cannot run past its last row: such lengths are reported as \"cannot run\".",
    )
    p.add_argument("--task", choices=(*TASK_IDS, "all"), default="rule",
                   help="the task (default rule); all: every task in turn, then a tasks × schemes grid")
    p.add_argument("--answer", choices=("reversed", "in-order"), default="reversed",
                   help="addition: the sum written least significant digit first (reversed, default) or not")
    p.add_argument("--schemes", default="default", metavar="LIST",
                   help="comma-separated scheme ids (see pe-explorer schemes), all, or default: the ones the "
                        "Lab panel ticks at first for the task (the default; marker adds cope; grid: nope, learned, "
                        "rope and the 2-D RoPEs)")
    defaults = ", ".join(f"{t} {TASK_DEFAULTS[t][0]}" for t in TASK_IDS)
    p.add_argument("--train-len", type=whole(), default=None, metavar="L",
                   help=f"training length (stream length, symbols per prompt, or grid side up to 16), 8 … 128 "
                        f"(default: {defaults})")
    p.add_argument("--eval-lens", default=None, metavar="LIST",
                   help="comma-separated test lengths, each ≤ 8 × L (default: L × 1, 1.5, 2, 3, 4, 6, 8; "
                        "grid: sides L × 1, 1.25, 1.5, 2, 3, at most 32)")
    steps = ", ".join(f"{t} {TASK_DEFAULTS[t][1]}" for t in TASK_IDS)
    p.add_argument("--steps", type=whole(), default=None, metavar="N",
                   help=f"training steps per scheme, 10 … 20000 (default: {steps})")
    p.add_argument("--seed", type=whole(), default=0, metavar="S",
                   help="seed for the rule, the data and the weights (default 0)")
    p.add_argument("--layers", type=whole(), default=2, metavar="N",
                   help=f"decoder blocks of every model, 1 … {MAX_LAYERS} (default 2)")
    p.add_argument("--scheme-param", action="append", default=[], metavar="SCHEME.NAME=VALUE",
                   help="a scheme's own Lab setting, repeatable: " + ("; ".join(
                       f"{s}.{q.name}: {q.label}, {q.lo:g} … {q.hi:g} (default {q.default:g})"
                       for s, q in registry.lab_settings()) or "none"))
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: the GPU when torch sees one, else the CPU")
    p.add_argument("--threads", type=whole(), default=1, metavar="T",
                   help="torch CPU threads (default 1: fastest for a model this small)")
    p.add_argument("--out", metavar="F.json", help="write the full results as JSON")
    p.add_argument("--json", action="store_true", help="print the full results as JSON instead of the tables")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=_run)


def _configs(args) -> list:
    """One config per task asked for (``--task all``: every task, each at its own default L and steps)."""
    from ..lab.task import TASK_IDS

    tasks = TASK_IDS if args.task == "all" else (args.task,)
    return [_config(args, t) for t in tasks]


def _config(args, task: str):
    from ..lab import LabConfig, LabError
    from ..lab.task import TASK_DEFAULTS
    from ..state import StateError
    from ..state.lab import LabState, task_lengths

    chosen = _schemes(args.schemes, task)
    params = _scheme_params(args.scheme_param)
    idle = [s for s in params if s not in chosen]
    if idle:  # a setting for a scheme that is not trained would silently do nothing
        raise UsageError(f"--scheme-param sets {', '.join(idle)}, which --schemes does not train; add it there")
    lens = _int_list(args.eval_lens) if args.eval_lens is not None else None
    train_len = TASK_DEFAULTS[task][0] if args.train_len is None else args.train_len
    try:
        st = LabState(
            task=task,
            reverse_answer=args.answer == "reversed",
            schemes=chosen,
            train_len=train_len,
            eval_lens=lens if lens is not None else task_lengths(task, min(max(train_len, 1), 1024)),
            steps=TASK_DEFAULTS[task][1] if args.steps is None else args.steps,
            seed=args.seed,
            layers=args.layers,
            scheme_params=tuple((sid, n, v) for sid, named in params.items() for n, v in named.items()),
        )
        return LabConfig.from_state(st, device=args.device)
    except (StateError, LabError) as exc:
        raise UsageError(_flag_names(str(exc))) from None


def _flag_names(message: str) -> str:
    # State fields are named as the CLI's flags.
    for field, flag in (("train_len", "--train-len"), ("eval_lens", "--eval-lens"), ("steps", "--steps"),
                        ("seed", "--seed"), ("test lengths", "--eval-lens"), ("layers", "--layers"),
                        ("scheme_params: ", "--scheme-param ")):
        if message.startswith(field):
            return flag + message[len(field):]
    return message


def _check_out(path: str | None) -> None:
    if path is None:
        return
    from ..fileio import OutputError, check_output

    if Path(path).suffix.lower() != ".json":
        raise UsageError(f"--out must end in .json; got {path!r}")
    try:
        check_output(path)  # before training (minutes), not after: a folder, a read-only place, a device
    except OutputError as exc:
        raise UsageError(f"--out: {exc}") from None


def table(result, metric: str = "accuracy", note: bool = True) -> str:
    """A score table as text: one row per scheme, one column per test length; ``metric`` is "accuracy"
    (per token) or "exact" (the whole answer right)."""
    from ..lab import SCHEME_LABELS, SequenceTask, fmt_percent

    cfg = result.config
    heads = [f"{n}{'*' if n == cfg.train_len else ''}" for n in cfg.eval_lens]
    width = max(11, *(len(h) + 2 for h in heads))
    name_w = max(12, *(len(SCHEME_LABELS[s.scheme]) + 2 for s in result.schemes)) if result.schemes else 12
    what = "exact match" if metric == "exact" else "accuracy per token" if cfg.scored_by_exact_match else "accuracy"
    lines = [f"{cfg.task_title} — {what}", "scheme".ljust(name_w) + "".join(h.rjust(width) for h in heads)]
    for s in result.schemes:
        cells = []
        for n in cfg.eval_lens:
            r = s.at(n)
            if s.status != "done" or r is None:
                cells.append("cancelled")
            else:
                cells.append(fmt_percent(getattr(r, metric)) if r.ran else "cannot run")
        lines.append(SCHEME_LABELS[s.scheme].ljust(name_w) + "".join(c.rjust(width) for c in cells))
    if not note:
        pass
    elif cfg.scored_by_exact_match:
        shortest = SequenceTask(cfg.task, cfg.vocab).min_len
        lines.append(f"(* = training length: trained on prompts of {shortest} … {cfg.train_len} symbols; tested on "
                     f"{cfg.eval_batch} prompts of each length; chance per token {fmt_percent(result.chance)})")
    elif cfg.task == "grid":
        lines.append(f"(* = training side: trained on grids of side 3 … {cfg.train_len}; tested on {cfg.eval_batch} "
                     f"grids of each side; chance per cell {fmt_percent(result.chance)}, as for a model that finds "
                     "only one of the two neighbours)")
    else:
        lines.append(f"(* = training length; chance {fmt_percent(result.chance)}, knowing only the last "
                     f"symbol {fmt_percent(result.last_symbol_baseline)}; best possible loss "
                     f"{result.loss_floor:.3f} nats)")
    return "\n".join(lines)


def grid(results) -> str:
    """Tasks × schemes: each task's score at L and at each multiple of L it was tested at, as text."""
    from ..lab import SCHEME_LABELS, score
    from ..lab.summary import cell_text

    mults = sorted({n / r.config.train_len for r in results for n in r.config.eval_lens})
    heads = ["L" if m == 1 else f"{m:g}×L" for m in mults]
    lines = ["task".ljust(34) + "scheme".ljust(14) + "".join(h.rjust(11) for h in heads)]
    for r in results:
        cfg = r.config
        what = f"{cfg.task_title} ({'exact' if cfg.scored_by_exact_match else 'acc.'})"
        for s in r.schemes:
            cells = []
            for m in mults:
                n = next((n for n in cfg.eval_lens if n / cfg.train_len == m), None)
                res = s.at(n) if n is not None else None
                v = score(r, s, n) if n is not None else None  # None where it did not run
                cells.append("" if res is None else "cannot run" if v is None else f"{cell_text(v)} %")
            lines.append(what[:33].ljust(34) + SCHEME_LABELS[s.scheme][:13].ljust(14)
                         + "".join(c.rjust(11) for c in cells))
            what = ""
    lines.append("(exact match for the sequence tasks, accuracy for the rule; 100 % only when all were right, "
                 ">99 % and <1 % near the ends)")
    return "\n".join(lines)


def _run(args) -> int:
    configs = _configs(args)
    _check_out(args.out)
    if not 1 <= args.threads <= 256:
        raise UsageError(f"--threads must be between 1 and 256, got {args.threads}")
    from ..fileio import OutputError, atomic_write_text
    from ..lab import SCHEME_LABELS, LabError, LabGrid, SequenceTask, headline, run_experiment

    last = [0.0]

    def progress(p) -> None:
        if args.quiet:
            return
        now = time.monotonic()
        if p.scheme_result is not None:
            r = p.scheme_result
            print(f"  {p.scheme}: trained {r.steps_done} steps in {r.train_seconds:.1f} s, final loss "
                  f"{sum(r.losses[-20:]) / max(1, len(r.losses[-20:])):.3f}", file=sys.stderr, flush=True)
        elif p.phase == "train" and now - last[0] > 5.0:
            last[0] = now
            eta = "…" if p.eta_s is None else f"{p.eta_s:.0f} s"
            print(f"  {p.scheme} ({p.scheme_index + 1}/{p.n_schemes}): step {p.step}/{p.steps}, "
                  f"{100 * p.fraction:.0f} % done, ETA {eta}", file=sys.stderr, flush=True)

    results = []
    for cfg in configs:
        if not args.quiet and len(configs) > 1:
            print(f"{cfg.task_title}: L = {cfg.train_len}, {cfg.steps} steps", file=sys.stderr, flush=True)
        try:
            result = run_experiment(cfg, on_progress=progress, threads=args.threads)
        except LabError as exc:
            raise UsageError(str(exc)) from None
        results.append(result)
        if not args.json:
            one_token = cfg.scored_by_exact_match and SequenceTask(cfg.task).answer_len(cfg.train_len) == 1
            if cfg.scored_by_exact_match:  # a one-token answer: exact match is the accuracy per token
                print(table(result, "exact", note=one_token))
            if not one_token:
                print(table(result))
            for s in result.schemes:  # the schemes' own Lab settings, in words (the hybrid's RoPE layers)
                if cfg.setting(s.scheme):
                    print(f"{SCHEME_LABELS[s.scheme]}: {cfg.setting(s.scheme)}")
            print(headline(result))
            plural = "s" if result.threads > 1 else ""
            print(f"{result.seconds:.1f} s on {result.device} ({result.threads} thread{plural}), "
                  f"{result.cpu_seconds:.1f} s of CPU time\n")
    text = results[0].to_json() if len(results) == 1 else LabGrid(tuple(results)).to_json()
    if args.json:
        print(text)
    elif len(results) > 1:
        print(grid(results))
    if args.out:
        try:
            atomic_write_text(args.out, text)
        except OutputError as exc:
            raise UsageError(str(exc)) from None
    return 0
