"""``pe-explorer lab``: the Lab's train-short-test-long experiment, headless.

Trains one tiny transformer per scheme on the two-back language at ``--train-len`` and tests it at
``--eval-lens`` (up to 8 × the training length); prints a table, and writes every number (settings,
loss per step, accuracy and loss per length, accuracy per position) to ``--out`` as JSON — the same
file the Lab panel's "Open results…" shows.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ..cli import UsageError
from .args import parse_whole, whole

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


def _schemes(text: str) -> tuple[str, ...]:
    from .. import schemes as registry

    known = registry.lab_ids()
    names = tuple(p for p in text.replace(" ", "").lower().split(",") if p)
    if names == ("all",):
        return known
    bad = [n for n in names if n not in known]
    if bad:
        raise UsageError(f"--schemes: unknown {', '.join(map(repr, bad))}; "
                         f"choose from {', '.join(known)} or all")
    if not names:
        raise UsageError("--schemes needs at least one scheme")
    return names


def add_parser(sub) -> None:
    p = sub.add_parser(
        "lab",
        help="train short, test long: one tiny transformer per scheme, accuracy at longer lengths",
        description="Train a tiny causal transformer (2 layers, d = 64, 4 heads) per positional scheme on "
        "the two-back language x[t+1] = T[x[t-1], x[t]] (1 symbol in 5 random) at the training length, then "
        "measure next-symbol accuracy on streams up to 8 × that length. The learned table cannot run past "
        "its last row: such lengths are reported as \"cannot run\".",
    )
    p.add_argument("--schemes", default="all", metavar="LIST",
                   help="comma-separated scheme ids (see pe-explorer schemes; default: all)")
    p.add_argument("--train-len", type=whole(), default=32, metavar="L",
                   help="training length, 8 … 128 (default 32)")
    p.add_argument("--eval-lens", default=None, metavar="LIST",
                   help="comma-separated test lengths, each ≤ 8 × L (default: L × 1, 1.5, 2, 3, 4, 6, 8)")
    p.add_argument("--steps", type=whole(), default=600, metavar="N",
                   help="training steps per scheme, 10 … 20000 (default 600)")
    p.add_argument("--seed", type=whole(), default=0, metavar="S",
                   help="seed for the rule, the data and the weights (default 0)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: the GPU when torch sees one, else the CPU")
    p.add_argument("--threads", type=whole(), default=1, metavar="T",
                   help="torch CPU threads (default 1: fastest for a model this small)")
    p.add_argument("--out", metavar="F.json", help="write the full results as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=_run)


def _config(args):
    from ..lab import LabConfig, LabError
    from ..state import StateError
    from ..state.lab import LabState, standard_lengths

    chosen = _schemes(args.schemes)
    lens = _int_list(args.eval_lens) if args.eval_lens is not None else None
    try:
        st = LabState(
            schemes=chosen,
            train_len=args.train_len,
            eval_lens=lens if lens is not None else standard_lengths(min(max(args.train_len, 1), 1024)),
            steps=args.steps,
            seed=args.seed,
        )
        return LabConfig.from_state(st, device=args.device)
    except (StateError, LabError) as exc:
        raise UsageError(_flag_names(str(exc))) from None


def _flag_names(message: str) -> str:
    # State fields are named as the CLI's flags.
    for field, flag in (("train_len", "--train-len"), ("eval_lens", "--eval-lens"), ("steps", "--steps"),
                        ("seed", "--seed"), ("test lengths", "--eval-lens")):
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


def table(result) -> str:
    """The accuracy table as text: one row per scheme, one column per test length."""
    from ..lab import SCHEME_LABELS, fmt_percent

    cfg = result.config
    heads = [f"{n}{'*' if n == cfg.train_len else ''}" for n in cfg.eval_lens]
    width = max(11, *(len(h) + 2 for h in heads))
    lines = ["scheme".ljust(12) + "".join(h.rjust(width) for h in heads)]
    for s in result.schemes:
        cells = []
        for n in cfg.eval_lens:
            r = s.at(n)
            if s.status != "done" or r is None:
                cells.append("cancelled")
            else:
                cells.append(fmt_percent(r.accuracy) if r.ran else "cannot run")
        lines.append(SCHEME_LABELS[s.scheme].ljust(12) + "".join(c.rjust(width) for c in cells))
    lines.append(f"(* = training length; chance {fmt_percent(result.chance)}, knowing only the last "
                 f"symbol {fmt_percent(result.last_symbol_baseline)}; best possible loss "
                 f"{result.loss_floor:.3f} nats)")
    return "\n".join(lines)


def _run(args) -> int:
    cfg = _config(args)
    _check_out(args.out)
    if not 1 <= args.threads <= 256:
        raise UsageError(f"--threads must be between 1 and 256, got {args.threads}")
    from ..fileio import OutputError, atomic_write_text
    from ..lab import LabError, headline, run_experiment

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

    try:
        result = run_experiment(cfg, on_progress=progress, threads=args.threads)
    except LabError as exc:
        raise UsageError(str(exc)) from None
    print(table(result))
    print(headline(result))
    plural = "s" if result.threads > 1 else ""
    print(f"{result.seconds:.1f} s on {result.device} ({result.threads} thread{plural})")
    if args.out:
        try:
            atomic_write_text(args.out, result.to_json())
        except OutputError as exc:
            raise UsageError(str(exc)) from None
    return 0
