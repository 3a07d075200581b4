"""Run every step's check of a lesson headless: the claims, the computed values, pass/fail (no Qt).

``pe-explorer lesson --check`` and the test suite use it; the Lesson pane runs one step's check at a time
through the compute service (:class:`explorer.lessons.checks.CheckRequest`).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from .checks import CheckError, CheckResult, run_check
from .format import Lesson, format_reveal


@dataclass(frozen=True)
class StepReport:
    lesson: str
    number: int
    title: str
    claims: tuple[str, ...]
    result: CheckResult | None
    error: str = ""
    reveal: str = ""

    @property
    def passed(self) -> bool:
        return self.result is not None and self.result.passed and not self.error

    def as_dict(self) -> dict:
        out = {"lesson": self.lesson, "step": self.number, "title": self.title, "claims": list(self.claims),
               "passed": self.passed}
        if self.result is not None:
            out.update(self.result.as_dict())
            out["passed"] = self.passed
        if self.error:
            out["error"] = self.error
        if self.reveal:
            out["reveal"] = self.reveal
        return out


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: every control or format character (escape sequences, carriage
    returns and newlines that could forge a "PASS" line, bidirectional overrides) shown as ``\\x1b``,
    ``\\n``, ``\\u202e`` …, so a lesson file can neither retitle nor clear the terminal nor rewrite a line."""
    out = []
    for ch in str(text):
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"):
            out.append(ch.encode("unicode_escape").decode("ascii") if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)


def json_printable(doc: str) -> str:
    """A JSON document safe to print: the control and format characters JSON leaves as they are inside its
    strings (DEL and the C1 controls such as U+009B, bidirectional overrides, line separators) written as
    ``\\uXXXX`` escapes: the same JSON.  (JSON escapes C0 controls in strings itself; the C0 left are its
    own line breaks.)"""
    return "".join(f"\\u{ord(ch):04x}" if 0x7F <= ord(ch) <= 0x9F or unicodedata.category(ch) in ("Cf", "Zl", "Zp")
                   else ch for ch in doc)


def check_step(lesson: Lesson, number: int) -> StepReport:
    """Run step ``number`` (1-based) of ``lesson``; a check that fails to run is reported, not raised."""
    step = lesson.steps[number - 1]
    try:
        result = run_check(step.check, step.params)
    except (CheckError, ValueError, ArithmeticError) as exc:
        return StepReport(lesson.name, number, step.title, step.claims, None, f"{type(exc).__name__}: {exc}")
    error = ""
    q = step.question
    if q is not None and q.kind == "number" and not isinstance(result.values.get(q.value), (int, float)):
        error = f"the question's value {q.value!r} is not a number"
    return StepReport(lesson.name, number, step.title, step.claims, result, error,
                      format_reveal(step.reveal, result.values) if step.reveal else "")


def check_lesson(lesson: Lesson) -> list[StepReport]:
    """Every step's report, in order."""
    return [check_step(lesson, n) for n in range(1, len(lesson.steps) + 1)]
