"""``pe-explorer bench``: the shipped performance suite (see explorer/bench.py)."""

from __future__ import annotations

from .args import whole


def add_parser(sub) -> None:
    p = sub.add_parser("bench", help="run the performance suite offscreen and print a table (or --json)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--quick", action="store_true", help="tiny sizes and few steps (seconds; for tests)")
    p.add_argument("--steps", type=whole(), default=None, help="drag steps (default 120; 12 with --quick)")
    p.add_argument("--scale", action="store_true",
                   help="also drag each panel at four sizes per axis (minutes; the guide's scale table)")
    p.add_argument("--out", metavar="F.json", help="also write the JSON report to this file")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from ..cli import UsageError

    if args.steps is not None and not 2 <= args.steps <= 10000:
        raise UsageError(f"--steps must be between 2 and 10000, got {args.steps}")
    if args.out is not None:
        from ..fileio import OutputError, check_output

        try:
            check_output(args.out)  # before the suite runs, not after
        except OutputError as exc:
            raise UsageError(str(exc)) from None
    from ..interrupts import check, deferred_sigint

    # The suite's modules import Qt: a KeyboardInterrupt raised inside PySide6's first import (shiboken's
    # signature bootstrap) aborted the process (SIGABRT "could not initialize", a SIGSEGV).  Ctrl+C is only
    # noted until the imports are done, and raised where the suite looks.
    with deferred_sigint():
        from ..bench import main

        check()
        return main(args)
