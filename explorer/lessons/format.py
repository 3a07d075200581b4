"""Lesson files: the versioned JSON format, read all-or-nothing (no Qt).

A lesson is ``{"format": "pe-explorer-lesson", "version": 1, "title": …, "summary": …, "steps": [...]}``;
each step has a short ``text``, an optional ``question`` to predict first (multiple choice, or a number
whose answer is one of the check's computed values), the ``scene`` the app sets up on "Show me" (a
built-in lecture scene, a panel and its view, parameters to change), the live ``check`` that settles the
step (a name from :mod:`explorer.lessons.checks` and its parameters), a ``reveal`` text that shows the
check's numbers (``{error:.1e}``), an optional ``wrong`` (what a text our users read gets wrong, which the
numbers correct) and the ``claims`` of docs/lessons.md it covers.  docs/lessons.md documents every key.

Every problem — a missing, huge or unreadable file, text that is not JSON, NaN, a 400-digit number,
nesting too deep, an unknown key, check or parameter, a value of the wrong type or out of range, a reveal
that names a value the check does not compute, a step that asks for more work than
:data:`~explorer.lessons.checks.MAX_CHECK_WORK` or a lesson that asks for more than :data:`MAX_LESSON_WORK`
in all — raises :class:`LessonError` with one line naming the file and the step; nothing is returned.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fileio import InputError, parse_json_text
from ..state import PANEL_STATES, PANEL_VIEWS, AppState, StateError, from_dict, to_dict
from .checks import MAX_CHECK_WORK, CheckError, get_check, percent

LESSON_FORMAT = "pe-explorer-lesson"
LESSON_VERSION = 1
#: A lesson is a few kilobytes: refuse anything far larger before reading it.
MAX_LESSON_BYTES = 256 * 1024
MAX_STEPS, MAX_TITLE, MAX_TEXT, MAX_OPTIONS, MAX_OPTION, MAX_CLAIMS = 24, 120, 1500, 6, 200, 12
#: The work all the steps of one lesson may ask for together (``lesson --check`` runs every one of them).
MAX_LESSON_WORK = 8 * MAX_CHECK_WORK
#: Panels whose scene may show a saved Lab result: the Lab (its curves), the Learned table (its trained table).
RESULT_PANELS = ("lab", "table")
LESSON_KEYS = ("format", "version", "title", "summary", "steps")
STEP_KEYS = ("title", "text", "question", "scene", "check", "reveal", "wrong", "claims")
QUESTION_KEYS = ("kind", "prompt", "options", "answer", "value", "tolerance", "unit")
SCENE_KEYS = ("preset", "panel", "view", "set", "highlight", "focus", "results")
CHECK_KEYS = ("name", "params")
_CLAIM = re.compile(r"^[A-Z][0-9]{1,3}$")
_SPEC = re.compile(r"^,?(\.[0-9]{1,2})?[efgd%]?$")
_PLOT = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,59}$")


class LessonError(ValueError):
    """A lesson file could not be used (one line, naming the file and the step)."""


@dataclass(frozen=True)
class Question:
    """Predict first: ``choice`` (options, the index of the right one) or ``number`` (a check value)."""

    kind: str
    prompt: str
    options: tuple[str, ...] = ()
    answer: int | None = None
    #: For a number question: the check value that is the answer, and the relative tolerance.
    value: str = ""
    tolerance: float = 0.05
    unit: str = ""

    def judge(self, given: Any, values: dict) -> bool | None:
        """Whether ``given`` (an option index, or a number) is right; None when there is nothing to judge."""
        if given is None:
            return None
        if self.kind == "choice":
            return given == self.answer
        truth = values.get(self.value)
        if not isinstance(truth, (int, float)) or isinstance(given, bool):
            return None
        return abs(float(given) - float(truth)) <= self.tolerance * max(abs(float(truth)), 1e-300)


@dataclass(frozen=True)
class Scene:
    """What "Show me" sets up: the panel, its view, and every panel's parameters (a preset's, changed)."""

    state: AppState
    panel: str | None = None
    view: str | None = None
    preset: str = ""
    highlight: str = ""
    #: A plot put on the whole stage (its export name; Esc brings the panel back): the one plot a step is about.
    focus: str = ""
    #: A saved Lab result (a file in resources/lessons/data) the Lab panel shows, or whose trained position table
    #: the Learned-table panel shows.
    results: str = ""


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    check: str
    params: dict = field(default_factory=dict)
    question: Question | None = None
    scene: Scene | None = None
    reveal: str = ""
    wrong: str = ""
    claims: tuple[str, ...] = ()
    #: What its check's run costs (float64 values held at once; see :data:`MAX_LESSON_WORK`).
    work: int = 0


@dataclass(frozen=True)
class Lesson:
    name: str
    title: str
    summary: str
    steps: tuple[Step, ...]
    path: Path | None = None
    builtin: bool = False


# -- small validators ---------------------------------------------------------------------------
def _kind(x: Any) -> str:
    if isinstance(x, bool) or x is None:
        return "true/false" if isinstance(x, bool) else "null"
    kinds: dict[type, str] = {dict: "an object", list: "a list", str: "text"}
    return kinds.get(type(x), "a number")


def _text(obj: dict, key: str, limit: int, *, required: bool = False) -> str:
    v = obj.get(key, "")
    if required and key not in obj:
        raise LessonError(f"'{key}' is missing")
    if not isinstance(v, str) or len(v) > limit:
        raise LessonError(f"'{key}' must be text of at most {limit} characters, got {_kind(v)}"
                          + (f" of {len(v)} characters" if isinstance(v, str) else ""))
    if required and not v.strip():
        raise LessonError(f"'{key}' is empty")
    return v.strip()


def _object(x: Any, what: str, keys: tuple[str, ...]) -> dict:
    if not isinstance(x, dict):
        raise LessonError(f"{what} must be an object, got {_kind(x)}")
    unknown = sorted(str(k)[:40] for k in x if k not in keys)
    if unknown:
        raise LessonError(f"{what}: unknown key(s) {', '.join(map(repr, unknown))}; valid: {', '.join(keys)}")
    return x


def _question(q: Any, check_values: tuple[str, ...]) -> Question:
    q = _object(q, "'question'", QUESTION_KEYS)
    kind = q.get("kind")
    prompt = _text(q, "prompt", MAX_TEXT, required=True)
    if kind == "choice":
        opts = q.get("options")
        if not isinstance(opts, list) or not 2 <= len(opts) <= MAX_OPTIONS or not all(
                isinstance(o, str) and o.strip() and len(o) <= MAX_OPTION for o in opts):
            raise LessonError(f"'question.options' must be 2 to {MAX_OPTIONS} texts of at most {MAX_OPTION} "
                              "characters")
        ans = q.get("answer")
        if isinstance(ans, bool) or not isinstance(ans, int) or not 0 <= ans < len(opts):
            raise LessonError(f"'question.answer' must be the index of the right option, 0 … {len(opts) - 1}")
        extra = sorted(set(q) & {"value", "tolerance", "unit"})
        if extra:
            raise LessonError(f"a choice question has no {', '.join(extra)}")
        return Question("choice", prompt, tuple(o.strip() for o in opts), ans)
    if kind == "number":
        value = q.get("value")
        if not isinstance(value, str) or value not in check_values:
            raise LessonError(f"'question.value' must name a value of the step's check: "
                              f"{', '.join(check_values)}")
        tol = q.get("tolerance", 0.05)
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 < tol <= 1:
            raise LessonError("'question.tolerance' must be a relative tolerance in (0, 1] (0.05 = 5 %)")
        if "options" in q or "answer" in q:
            raise LessonError("a number question takes its answer from the check ('value'), not 'answer'")
        return Question("number", prompt, value=value, tolerance=float(tol), unit=_text(q, "unit", 20))
    raise LessonError(f"'question.kind' must be \"choice\" or \"number\", got {_kind(kind)}")


def _builtin_scene(name: Any):
    from ..presets import builtin_presets

    if not isinstance(name, str):
        raise LessonError(f"'scene.preset' must be the name of a lecture scene, got {_kind(name)}")
    scenes = {p.name: p for p in builtin_presets()}
    if name not in scenes:
        raise LessonError(f"'scene.preset': no lecture scene {name[:40]!r}; valid: {', '.join(scenes)}")
    return scenes[name]


def _scene(s: Any) -> Scene:
    s = _object(s, "'scene'", SCENE_KEYS)
    state, panel, view, preset = AppState(), None, None, ""
    if "preset" in s:
        p = _builtin_scene(s["preset"])
        state, panel, view, preset = p.state, p.panel, p.view, p.name
    if "panel" in s:
        panel = s["panel"]
        if not isinstance(panel, str) or panel not in PANEL_STATES:
            raise LessonError(f"'scene.panel' must be one of {', '.join(PANEL_STATES)}")
        if "preset" in s and "view" not in s:
            view = None
    if "view" in s:
        view = s["view"]
        views = PANEL_VIEWS.get(panel or "", ())
        if not isinstance(view, str) or view not in views:
            raise LessonError(f"'scene.view' of {panel} must be one of {', '.join(views) or '(no views)'}")
    changes = s.get("set", {})
    if not isinstance(changes, dict):
        raise LessonError(f"'scene.set' must be an object of panels, got {_kind(changes)}")
    for pid, fields in changes.items():
        if pid not in PANEL_STATES or not isinstance(fields, dict):
            raise LessonError(f"'scene.set' maps panels ({', '.join(PANEL_STATES)}) to objects of parameters")
        try:
            new: Any = from_dict(PANEL_STATES[pid], {**to_dict(state.get(pid)), **fields}, where=pid)
        except StateError as exc:
            raise LessonError(f"'scene.set': {exc}") from None
        state = state.replace(**{pid: new})
    highlight = s.get("highlight", "")
    if not isinstance(highlight, str) or (highlight and not _PLOT.match(highlight)):
        raise LessonError("'scene.highlight' must be a plot name (pe-explorer export --list-plots)")
    if highlight and panel is None:
        raise LessonError("'scene.highlight' needs a 'panel' (or a 'preset') to look in")
    focus = s.get("focus", "")
    if not isinstance(focus, str) or (focus and not _PLOT.match(focus)):
        raise LessonError("'scene.focus' must be a plot name (pe-explorer export --list-plots)")
    if focus and panel is None:
        raise LessonError("'scene.focus' needs a 'panel' (or a 'preset') to look in")
    if focus and highlight and focus != highlight:
        raise LessonError("'scene.highlight' must be the plot in focus (the others are off the stage)")
    results = s.get("results", "")
    if results:
        if panel not in RESULT_PANELS:
            raise LessonError("'scene.results' (a saved Lab result) needs \"panel\": \"lab\" or \"table\"")
        if not isinstance(results, str) or not re.fullmatch(r"[a-z0-9_\-]{1,60}\.json", results) or not (
                data_dir() / results).is_file():
            shown = results[:40] if isinstance(results, str) else _kind(results)
            raise LessonError(f"'scene.results' must name a saved Lab result in resources/lessons/data, got {shown!r}")
    return Scene(state, panel, view, preset, highlight, focus, results)


def _reveal(text: str, check_values: tuple[str, ...]) -> str:
    try:
        parts = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise LessonError(f"'reveal': {exc} (write {{{{ and }}}} for a brace)") from None
    for _lit, name, spec, conv in parts:
        if name is None:
            continue
        if name not in check_values:
            raise LessonError(f"'reveal' shows {{{name[:40]}}}, which the check does not compute; "
                              f"it computes {', '.join(check_values)}")
        if conv or not _SPEC.match(spec or ""):
            raise LessonError(f"'reveal': {{{name}:{(spec or '')[:20]}}} — use a format like :.3g, :.1e, :,.0f, "
                              ":.1%")
    return text


def _step(raw: Any) -> Step:
    st = _object(raw, "a step", STEP_KEYS)
    title = _text(st, "title", MAX_TITLE, required=True)
    text = _text(st, "text", MAX_TEXT, required=True)
    chk_raw = _object(st.get("check"), "'check'", CHECK_KEYS)
    params = chk_raw.get("params", {})
    if not isinstance(params, dict):
        raise LessonError(f"'check.params' must be an object, got {_kind(params)}")
    try:
        chk = get_check(chk_raw.get("name"))
        resolved = chk.resolve(params)
    except CheckError as exc:
        raise LessonError(str(exc)) from None
    claims = st.get("claims", [])
    if not isinstance(claims, list) or len(claims) > MAX_CLAIMS or not all(
            isinstance(c, str) and _CLAIM.match(c) for c in claims):
        raise LessonError(f"'claims' must be a list of at most {MAX_CLAIMS} claim ids like \"C1\" or \"W2\"")
    question = _question(st["question"], chk.values) if "question" in st else None
    scene = _scene(st["scene"]) if "scene" in st else None
    reveal = _reveal(_text(st, "reveal", MAX_TEXT), chk.values)
    return Step(title, text, chk.name, resolved, question, scene, reveal, _text(st, "wrong", MAX_TEXT),
                tuple(claims), chk.work(resolved))


def parse_lesson(text: str, *, name: str = "lesson", path: Path | None = None, builtin: bool = False) -> Lesson:
    """Parse and validate lesson text; raise :class:`LessonError` (nothing is built on error)."""
    try:
        data = parse_json_text(text, what="lesson")
    except InputError as exc:
        raise LessonError(str(exc)) from None
    if not isinstance(data, dict) or data.get("format") != LESSON_FORMAT:
        raise LessonError(f"not a PE Explorer lesson: expected a JSON object with \"format\": \"{LESSON_FORMAT}\"")
    _object(data, "the lesson", LESSON_KEYS)
    version = data.get("version")
    if type(version) is not int or version != LESSON_VERSION:
        shown = version if type(version) is int else _kind(version)
        raise LessonError(f"unsupported lesson version {shown}; this app reads version {LESSON_VERSION}")
    title = _text(data, "title", MAX_TITLE, required=True)
    summary = _text(data, "summary", MAX_TEXT)
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list) or not 1 <= len(raw_steps) <= MAX_STEPS:
        raise LessonError(f"'steps' must be a list of 1 to {MAX_STEPS} steps")
    steps: list[Step] = []
    for n, raw in enumerate(raw_steps, start=1):
        try:
            steps.append(_step(raw))
        except LessonError as exc:
            raise LessonError(f"step {n}: {exc}") from None
        total = sum(x.work for x in steps)
        if total > MAX_LESSON_WORK:
            raise LessonError(f"step {n}: the steps so far ask for {total:,} values of work; a lesson may ask for "
                              f"at most {MAX_LESSON_WORK:,} in all (fewer or smaller steps)")
    return Lesson(name, title, summary, tuple(steps), path, builtin)


def load_lesson(path: str | Path, *, builtin: bool = False) -> Lesson:
    """Read, parse and validate a lesson file; raise :class:`LessonError` naming the file.

    A lesson answers to its file name without a leading order number, as a preset does
    ("01_order_blindness.json" -> "order_blindness")."""
    from ..presets import preset_name, read_named_file

    return read_named_file(path, limit=MAX_LESSON_BYTES, what="lesson", error=LessonError,
                           parse=lambda text, p: parse_lesson(text, name=preset_name(p), path=p, builtin=builtin))


def builtin_dir() -> Path:
    from ..paths import resource_path

    return resource_path("lessons")


def data_dir() -> Path:
    """Where the lessons' saved results live (resources/lessons/data)."""
    return builtin_dir() / "data"


def builtin_lessons() -> list[Lesson]:
    """The shipped lessons, in order (a broken one raises: it is a bug)."""
    try:
        files = sorted(f for f in builtin_dir().glob("*.json") if f.is_file())
    except OSError:
        return []
    return [load_lesson(f, builtin=True) for f in files]


def find_lesson(ref: str) -> Lesson:
    """A lesson by file path (anything ending in .json or an existing file) or by built-in name."""
    if ref.lower().endswith(".json") or Path(ref).is_file():
        return load_lesson(ref)
    want = ref.strip().lower().replace("-", "_").replace(" ", "_")
    lessons = builtin_lessons()
    for lesson in lessons:
        if lesson.name == want:
            return lesson
    raise LessonError(f"no lesson named {ref[:40]!r}; valid: {', '.join(x.name for x in lessons)} (or a .json file)")


def format_value(v: Any, spec: str) -> str:
    """One value as a reveal shows it: true/false as yes/no, an exact zero as "0" (not "0.0e+00"), and a share
    that is not exactly 1 (or 0) never rounded to "100.0%" (or "0.0%"): it gets the digits that tell it apart."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)) and v == 0 and spec.endswith(("e", "g")):
        return "0"
    m = re.fullmatch(r"(,?)\.(\d{1,2})%", spec)
    if m and isinstance(v, (int, float)):
        return percent(v, int(m.group(2)), bool(m.group(1)))
    try:
        return format(v, spec)
    except (ValueError, TypeError):
        return str(v)


def format_reveal(text: str, values: dict) -> str:
    """``text`` with the check's values filled in (see :func:`format_value`); a value that does not take its
    format is shown plainly."""
    out = []
    for lit, name, spec, _conv in string.Formatter().parse(text):
        out.append(lit)
        if name is None:
            continue
        out.append(format_value(values.get(name, "?"), spec or ""))
    return "".join(out)
