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
    p.add_argument("--runs", type=whole(1, 20), default=None,
                   help="drags per case, the median reported (default 3; 1 with --quick or --profile)")
    p.add_argument("--profile", metavar="CASE",
                   help="run one case (PANEL or PANEL:SIZE, e.g. waves or 'waves:N=8192 d=1024') and write its "
                        "frame split, frame by frame, and a profile of the UI thread during a drag")
    p.add_argument("--profile-out", metavar="F.json",
                   help="where --profile writes (default bench-profile-PANEL-SIZE.json; the profile beside it, .prof)")
    p.add_argument("--out", metavar="F.json", help="also write the JSON report to this file")
    from ..cli import add_renderer_option

    add_renderer_option(p)
    p.set_defaults(func=_run)


def _run(args) -> int:
    from ..cli import UsageError

    if args.steps is not None and not 2 <= args.steps <= 10000:
        raise UsageError(f"--steps must be between 2 and 10000, got {args.steps}")
    if args.profile_out is not None and not args.profile:
        raise UsageError("--profile-out needs --profile CASE")
    if args.profile and args.scale:
        raise UsageError("--profile runs one case: leave out --scale")
    from ..interrupts import check, deferred_sigint

    # The suite's modules import Qt: a KeyboardInterrupt raised inside PySide6's first import (shiboken's
    # signature bootstrap) aborted the process (SIGABRT "could not initialize", a SIGSEGV).  Ctrl+C is only
    # noted until the imports are done, and raised where the suite looks.
    with deferred_sigint():
        from ..bench import CASES, QUICK_CASES, main
        from ..bench.profile import default_path, find_case, profile_path

        check()
        if args.profile:
            try:
                case = find_case(args.profile, QUICK_CASES if args.quick else CASES)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            args.profile_out = args.profile_out or default_path(case)
        prof = None if args.profile_out is None else str(profile_path(args.profile_out))
        _check_outputs(args.out, args.profile_out, prof)  # before the suite runs, not after
        from ..widgets.renderer import choose

        choose(args.renderer)  # the suite's window and its fresh start-up processes
        return main(args)


def _check_outputs(*paths: str | None) -> None:
    from ..cli import UsageError
    from ..fileio import OutputError, check_output

    for path in paths:
        if path is not None:
            try:
                check_output(path)
            except OutputError as exc:
                raise UsageError(str(exc)) from None
