"""Lessons (issue 17 §1): every shipped lesson loads, every step's live check passes, every claim of the
lessons our users read (C1–C16) and every place where they are wrong (W1–W5) is covered by a step, and a
malformed or hostile lesson file is refused with one line."""

from __future__ import annotations

import json
import os
import pickle
import re
from pathlib import Path

import pytest

from explorer.cli import main
from explorer.lessons.checks import CheckError, CheckRequest, all_checks, get_check, run_check
from explorer.lessons.format import (
    LESSON_FORMAT,
    MAX_LESSON_BYTES,
    LessonError,
    builtin_lessons,
    find_lesson,
    format_reveal,
    load_lesson,
    parse_lesson,
)

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = {f"C{n}" for n in range(1, 17)} | {f"W{n}" for n in range(1, 6)}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """``pe-explorer lesson --check --json`` on every shipped lesson (run once for the module)."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["lesson", "--check", "--json"])
    return code, json.loads(out.getvalue())


def test_every_shipped_lesson_checks_out(report):
    code, doc = report
    failed = [f"{s['lesson']} {s['step']}: {s.get('error') or s.get('computed')}" for s in doc["steps"]
              if not s["passed"]]
    assert code == 0 and doc["passed"] and not failed, failed
    lessons = builtin_lessons()
    assert len(lessons) >= 6
    assert len(doc["steps"]) == sum(len(x.steps) for x in lessons)
    for step in doc["steps"]:
        assert step["claim"] and step["computed"] and isinstance(step["values"], dict), step
        assert "{" not in step.get("reveal", ""), step  # every placeholder was filled


def test_every_claim_and_every_wrong_claim_is_covered(report):
    _code, doc = report
    covered = set(doc["claims"])
    assert CLAIMS <= covered, sorted(CLAIMS - covered)
    # The guide's table of claims is the same list (docs/lessons.md).
    table = set(re.findall(r"^\| ([CW]\d{1,2}) \|", (ROOT / "docs" / "lessons.md").read_text(), re.M))
    assert table == CLAIMS


def test_wrong_claims_are_said_and_settled_by_a_number():
    """Each step covering a W claim says what the text gets wrong and reveals computed numbers."""
    for lesson in builtin_lessons():
        for step in lesson.steps:
            if any(c.startswith("W") for c in step.claims):
                assert step.wrong and "{" in step.reveal, (lesson.name, step.title)


def test_the_numbers_the_issue_names():
    assert round(run_check("largest_wavelength", {"d_model": 128}).values["largest"]) == 54410
    assert run_check("fastest_pair", {"d_model": 128}).values["fastest_index"] == 0
    rot = run_check("rotation_identity", {"positions": 131072, "k": 8, "pair": 1, "d_model": 128}).values
    assert 1e-12 < rot["error"] <= rot["bound"]  # honest: far above 1e-16, below N·ω·ε
    leak = run_check("swap_causal_leak").values
    assert leak["between_change"] > 0.1 and leak["after_change"] < 1e-9


def test_every_check_runs_with_its_documented_parameters_and_reports_its_values():
    required = {"position_in_the_vectors": {"scheme": "sinusoidal"}, "rope_relative": {"scheme": "rope"},
                "alibi_linear_bias": {"scheme": "alibi"},
                "trained_beyond_length": {"formula": "sinusoidal", "table": "learned"},
                "models_by_scheme": {"scheme_a": "learned", "models_a": "GPT-2", "scheme_b": "rope",
                                     "models_b": "Llama"},
                "lab_holds_past_training": {"holds": "alibi", "drops": "rope"}}
    small = {"bounded_values": {"positions": 4096},
             "unique_rows": {"positions": 256},
             "t5_buckets": {"distances": 4096}}
    for name, chk in all_checks().items():
        result = run_check(name, {**required.get(name, {}), **small.get(name, {})})
        assert result.passed, (name, result.computed)
        assert set(chk.values) <= set(result.values), name
        json.dumps(result.as_dict())


def test_a_check_runs_as_a_job_and_pickles():
    from explorer import jobs

    req = CheckRequest("fastest_pair", (("d_model", 64),))
    assert pickle.loads(pickle.dumps(req)) == req
    res = jobs.run(req)
    assert pickle.loads(pickle.dumps(res)).values == res.values and res.passed


@pytest.mark.parametrize(("params", "why"), [
    ({"d_model": "128"}, "must be a number"),
    ({"d_model": 1e400 if False else 10**9}, "must be 2 … 4096"),
    ({"d_model": 12.5}, "whole number"),
    ({"d_model": True}, "must be a number"),
    ({"dmodel": 64}, "unknown parameter"),
])
def test_bad_check_parameters_are_refused(params, why):
    with pytest.raises(CheckError, match=why):
        get_check("fastest_pair").resolve(params)
    with pytest.raises(CheckError, match="unknown check"):
        get_check("no_such_check")


def _lesson(**step_changes) -> dict:
    step = {"title": "A", "text": "B", "check": {"name": "fastest_pair"}, "reveal": "{fastest_index}",
            "claims": ["W1"]}
    step.update(step_changes)
    return {"format": LESSON_FORMAT, "version": 1, "title": "T", "steps": [step]}


def test_a_small_lesson_loads_and_judges_predictions():
    q = {"kind": "number", "prompt": "?", "value": "wavelength_first", "tolerance": 0.01}
    lesson = parse_lesson(json.dumps(_lesson(question=q, scene={"preset": "waves_and_frequencies",
                                                                "set": {"waves": {"d_model": 256}}})))
    step = lesson.steps[0]
    assert step.scene.panel == "waves" and step.scene.state.waves.d_model == 256
    values = run_check(step.check, step.params).values
    assert step.question.judge(6.3, values) is True and step.question.judge(7.0, values) is False
    assert format_reveal("{wavelength_first:.2f} and {missing:.1e}", {"wavelength_first": 6.2832}) == "6.28 and ?"
    assert format_reveal("{x:.2f}", {"x": "text"}) == "text"


@pytest.mark.parametrize(("doc", "why"), [
    ("[1, 2]", "not a PE Explorer lesson"),
    ('{"format": "pe-explorer-lesson", "version": 2, "title": "T", "steps": []}', "unsupported lesson version 2"),
    ('{"format": "pe-explorer-lesson", "version": 1, "title": "T", "steps": [], "x": 1}', "unknown key"),
    ('{"format": "pe-explorer-lesson", "version": 1, "title": "T", "steps": []}', "1 to 24 steps"),
    ('{"format": "pe-explorer-lesson", "version": 1, "title": NaN, "steps": []}', "NaN"),
    ('{"format": "pe-explorer-lesson", "version": 1' + ", " + '"n": ' + "9" * 400 + "}", "400 digits"),
    ("[" * 200 + "]" * 200, "nested"),
    (json.dumps(_lesson(check={"name": "rm -rf"})), "unknown check"),
    (json.dumps(_lesson(check={"name": "fastest_pair", "params": {"d_model": "big"}})), "must be a number"),
    (json.dumps(_lesson(check={"name": "fastest_pair", "params": [1]})), "must be an object"),
    (json.dumps(_lesson(reveal="{__class__}")), "does not compute"),
    (json.dumps(_lesson(reveal="{fastest_index!r}")), "use a format"),
    (json.dumps(_lesson(reveal="{fastest_index:>99999}")), "use a format"),
    (json.dumps(_lesson(reveal="{")), "reveal"),
    (json.dumps(_lesson(claims="C1")), "claim ids"),
    (json.dumps(_lesson(title=7)), "'title' must be text"),
    (json.dumps(_lesson(text="x" * 5000)), "at most 1500"),
    (json.dumps(_lesson(question={"kind": "choice", "prompt": "?", "options": ["a"], "answer": 0})), "2 to 6"),
    (json.dumps(_lesson(question={"kind": "choice", "prompt": "?", "options": ["a", "b"], "answer": 2})), "index"),
    (json.dumps(_lesson(question={"kind": "number", "prompt": "?", "value": "nope"})), "value of the step"),
    (json.dumps(_lesson(question={"kind": "essay", "prompt": "?"})), "question.kind"),
    (json.dumps(_lesson(scene={"preset": "no_such_scene"})), "no lecture scene"),
    (json.dumps(_lesson(scene={"panel": "waves", "set": {"waves": {"d_model": -4}}})), "scene.set"),
    (json.dumps(_lesson(scene={"panel": "waves", "view": "nowhere"})), "scene.view"),
    (json.dumps(_lesson(scene={"panel": "waves", "results": "lab_two_back.json"})), "needs"),
    (json.dumps(_lesson(scene={"panel": "lab", "results": "../../etc/passwd"})), "saved Lab result"),
    (json.dumps(_lesson(scene={"highlight": "plot"})), "needs a 'panel'"),
    (json.dumps(_lesson(scene={"focus": "plot"})), "needs a 'panel'"),
    (json.dumps(_lesson(scene={"panel": "waves", "focus": "<img src=x>"})), "scene.focus"),
    (json.dumps(_lesson(scene={"panel": "waves", "focus": 7})), "scene.focus"),
    (json.dumps(_lesson(scene={"panel": "waves", "focus": "waves", "highlight": "spectrum"})), "in focus"),
])
def test_malformed_and_hostile_lessons_are_refused_with_one_line(doc, why):
    with pytest.raises(LessonError) as err:
        parse_lesson(doc)
    message = str(err.value)
    assert why in message and "\n" not in message and len(message) < 400, message


def test_files_that_are_not_lessons_are_refused_by_name(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_LESSON_BYTES + 1))
    empty = tmp_path / "empty.json"
    empty.write_text("")
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    cases = [big, empty, binary, tmp_path / "missing.json", tmp_path]
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.json"
        os.mkfifo(fifo)
        cases.append(fifo)
    for path in cases:
        with pytest.raises(LessonError) as err:
            load_lesson(path)
        assert "\n" not in str(err.value) and path.name in str(err.value), str(err.value)


def test_cli_lists_checks_and_refuses_a_bad_file_in_one_line(tmp_path, capsys):
    assert main(["lesson", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(x.title in listed for x in builtin_lessons())
    assert main(["lesson", "--list-checks", "--json"]) == 0
    names = [c["name"] for c in json.loads(capsys.readouterr().out)["checks"]]
    assert names == list(all_checks())
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_lesson(check={"name": "nope"})))
    assert main(["lesson", "--check", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown check" in err
    assert main(["lesson", "--check", "no-such-lesson"]) == 2
    assert "no lesson named" in capsys.readouterr().err
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_lesson()))
    assert main(["lesson", "--check", str(good)]) == 0
    assert "1 of 1 checks passed" in capsys.readouterr().out
    assert find_lesson("order_blindness").title == "Order blindness"


#: A check's parameter and the panel field that shows the same number under another name.
SAME_AS = {"waves": {"positions": "n_positions", "seed": "token_seed", "k": "offset"},
           "swap": {"i": "swap_i", "j": "swap_j"}}
#: Panel fields a check's value implies: the first head's slope is shown on head 0.
IMPLIED = {("alibi_linear_bias", "slope_first"): {"alibi_head": 0}}
#: Panel fields a check itself implies, asked or not: the scaling method the step is about.
CHECK_SHOWS = {"rope_linear_scaling": {"scaling": "linear"}, "rope_yarn": {"scaling": "yarn"}}


def test_every_scene_shows_the_parameters_its_check_uses():
    """The picture must not contradict the numbers: every check parameter that the scene's panel also shows
    (by name, or by the few names in SAME_AS) is set to the same value by the scene (lesson 6 once showed
    d = 128, L = 4096, s = 8 beside a check at d = 64, L = 512, s = 4)."""
    from explorer.state import to_dict

    problems, compared = [], 0
    for lesson in builtin_lessons():
        for n, step in enumerate(lesson.steps, 1):
            scene = step.scene
            if scene is None or scene.panel is None:
                continue
            shown = to_dict(scene.state.get(scene.panel))
            for name, value in step.params.items():
                field = SAME_AS.get(scene.panel, {}).get(name, name)
                if field in shown:
                    compared += 1
                    if shown[field] != value:
                        problems.append(f"{lesson.name} {n}: check {name} = {value!r}, {scene.panel} {field} = "
                                        f"{shown[field]!r}")
            asked = {step.question.value} if step.question is not None and step.question.kind == "number" else set()
            for (chk, value), fields in IMPLIED.items():
                if step.check == chk and value in asked:
                    problems += [f"{lesson.name} {n}: {scene.panel} {k} = {shown.get(k)!r}, the question needs {v!r}"
                                 for k, v in fields.items() if shown.get(k) != v]
            problems += [f"{lesson.name} {n}: {scene.panel} {k} = {shown.get(k)!r}, the check is about {v!r}"
                         for k, v in CHECK_SHOWS.get(step.check, {}).items() if shown.get(k) != v]
    assert compared >= 20
    assert not problems, "\n".join(problems)
