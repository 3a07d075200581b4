"""Run every step's check of a lesson headless: the claims, the computed values, pass/fail (no Qt).

``pe-explorer lesson --check`` and the test suite use it; the Lesson pane runs one step's check at a time
through the compute service (:class:`explorer.lessons.checks.CheckRequest`).
"""

from __future__ import annotations

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
