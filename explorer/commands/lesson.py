"""``pe-explorer lesson``: list the lessons, or run every step's live check headless.

``--check`` prints, for every step, the claim, the values its check computed and PASS/FAIL (``--json``:
one JSON document); the exit status is 1 when any check fails, 2 when a lesson file is refused.  Text from a
lesson file reaches the terminal with its control characters made visible (:func:`~explorer.lessons.report.printable`):
a title cannot clear the screen, retitle the terminal or forge a "PASS" line.
"""

from __future__ import annotations

import json

from ..cli import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("lesson", help="list the guided lessons, or check every claim they make, live",
                       description="The guided lessons (resources/lessons, or your own lesson file): --list "
                       "names them; --check runs every step's live check and prints each claim, the computed "
                       "values and pass/fail. See docs/lessons.md for the format and the checks.")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="a lesson file or a built-in lesson's name (default: every built-in lesson)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help="list the lessons and their steps")
    what.add_argument("--check", action="store_true", help="run every step's check; exit 1 if one fails")
    what.add_argument("--list-checks", action="store_true", help="list the checks a lesson file may name")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)


def _lessons(ref: str | None):
    from ..lessons.format import LessonError, builtin_lessons, find_lesson

    try:
        return [find_lesson(ref)] if ref else builtin_lessons()
    except LessonError as exc:
        from ..lessons.report import printable

        raise UsageError(printable(str(exc))) from None


def _print_json(doc) -> None:
    from ..lessons.report import json_printable

    print(json_printable(json.dumps(doc, indent=2, ensure_ascii=False)))


def _list_checks(as_json: bool) -> int:
    from ..lessons.checks import all_checks

    checks = all_checks()
    if as_json:
        rows = [{"name": c.name, "claim": c.claim, "values": list(c.values),
                 "params": {k: p.describe() for k, p in c.params.items()}} for c in checks.values()]
        _print_json({"checks": rows})
        return 0
    for c in checks.values():
        print(f"{c.name}: {c.claim}")
        print(f"  values: {', '.join(c.values)}")
        for k, p in c.params.items():
            print(f"  {k}: {p.describe()}")
    return 0


def _run(args) -> int:
    from ..lessons.report import printable as shown

    if args.list_checks:
        return _list_checks(args.json)
    lessons = _lessons(args.file)
    if not args.check:
        if args.json:
            _print_json({"lessons": [{"name": x.name, "title": x.title, "steps": [
                {"title": s.title, "check": s.check, "claims": list(s.claims)} for s in x.steps]}
                for x in lessons]})
            return 0
        for x in lessons:
            print(f"{shown(x.name)}: {shown(x.title)} ({len(x.steps)} steps)")
            for n, s in enumerate(x.steps, 1):
                claims = f" [{', '.join(s.claims)}]" if s.claims else ""
                print(f"  {n}. {shown(s.title)} — check {s.check}{claims}")
        return 0
    from ..lessons.report import check_lesson

    reports = [r for x in lessons for r in check_lesson(x)]
    failed = [r for r in reports if not r.passed]
    if args.json:
        _print_json({"passed": not failed, "steps": [r.as_dict() for r in reports],
                     "claims": sorted({c for r in reports for c in r.claims})})
    else:
        for r in reports:
            mark = "PASS" if r.passed else "FAIL"
            print(f"{mark}  {shown(r.lesson)} {r.number}. {shown(r.title)}"
                  + (f" [{', '.join(r.claims)}]" if r.claims else ""))
            if r.result is not None:
                print(f"      claim: {r.result.claim}")
                print(f"      computed: {shown(r.result.computed)}")
            if r.error:
                print(f"      error: {shown(r.error)}")
        print(f"{len(reports) - len(failed)} of {len(reports)} checks passed")
    return 1 if failed else 0
