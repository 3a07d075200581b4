"""Lessons, second pass (issue 29): every number a step shows is the right one, with what it is compared to in
the same line; checks are properties over a range, not one lucky value; a check given a scheme computes that
scheme or refuses it; a hostile lesson file is refused before it can cost much; lesson text reaches a terminal
with its control characters made visible."""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import string

import pytest

from explorer.cli import main
from explorer.lessons.checks import MAX_CHECK_WORK, CheckError, all_checks, run_check
from explorer.lessons.format import (
    LESSON_FORMAT,
    MAX_LESSON_WORK,
    LessonError,
    builtin_lessons,
    find_lesson,
    format_value,
    parse_lesson,
)
from explorer.lessons.report import check_step, printable


def _step(lesson: str, title_start: str):
    x = find_lesson(lesson)
    n = next(n for n, s in enumerate(x.steps, 1) if s.title.startswith(title_start))
    return x, n, x.steps[n - 1]


def _revealed(lesson: str, title_start: str) -> str:
    x, n, _s = _step(lesson, title_start)
    report = check_step(x, n)
    assert report.passed, report.as_dict()
    return report.reveal


# -- wrong or misleading numbers -----------------------------------------------------------------
def test_the_often_quoted_top_wavelength_is_15_5_percent_too_high_not_13_4():
    v = run_check("largest_wavelength", {"d_model": 128}).values
    assert round(v["excess_percent"], 1) == 15.5 and round(v["below_percent"], 1) == 13.4
    assert round(run_check("largest_wavelength", {"d_model": 512}).values["excess_percent"], 2) == 3.66
    text = _revealed("waves_and_frequencies", "The longest wavelength")
    assert "is 15.5 % more than 54,410" in text and "13.4 % too high" not in text


def test_the_top_wavelength_sentence_is_the_papers_own_and_exact_for_tensor2tensor():
    _x, _n, step = _step("waves_and_frequencies", "The longest wavelength")
    assert "§3.5" in step.wrong and "tensor2tensor" in step.wrong and "some texts" not in step.wrong
    v = run_check("largest_wavelength", {"d_model": 128}).values
    assert v["largest_t2t"] == pytest.approx(2 * math.pi * 10000.0, rel=1e-13)
    assert "62,832 = 2π·base" in _revealed("waves_and_frequencies", "The longest wavelength")


def test_mask_step_shows_the_smallest_row_sum_the_panel_shows():
    from explorer.jobs.swap import SwapRequest, compute

    x, n, step = _step("order_blindness", "Mask before")
    panel = compute(SwapRequest(step.scene.state.swap)).min_row_sum  # the Σ column beside the step
    assert f"{panel:.3f}" == "0.297"
    assert "smallest row sum is 0.297" in check_step(x, n).reveal


def test_yes_no_values_and_exact_zeros_read_as_words_and_zero():
    assert format_value(False, "") == "no" and format_value(0.0, ".1e") == "0" and format_value(0, ".3g") == "0"
    for lesson in builtin_lessons():
        for n in range(1, len(lesson.steps) + 1):
            reveal = check_step(lesson, n).reveal
            assert "e+00" not in reveal and not re.search(r"input: [01]\b", reveal), (lesson.name, n, reveal)
    assert "Vectors added to the input: no" in _revealed("where_position_enters", "ALiBi")
    assert "Vector added to the input: no" in _revealed("relative_position_as_rotation", "RoPE")


def test_order_blindness_never_says_there_is_no_other_way_in():
    text = _revealed("order_blindness", "Position has to be")
    assert "no other way in" not in text and "the mask is the one other way in" in text
    assert run_check("position_in_the_vectors", {"scheme": "sinusoidal"}).values["relabel_error_causal"] > 0.1


def test_alibi_slopes_are_a_geometric_series_only_for_a_power_of_two():
    _x, _n, step = _step("where_position_enters", "ALiBi")
    assert "power of two" in step.text and "starts at 2^(−8/H)" not in step.text
    for heads in (3, 6, 12):  # the paper's interleaving, which a plain series from 2^(−8/H) is not
        r = run_check("alibi_linear_bias", {"scheme": "alibi", "heads": heads, "positions": 16})
        assert r.passed and r.values["heads_checked"] == heads


def test_yarn_step_gives_the_attention_factor():
    text = _revealed("stretching_rope", "YaRN")
    assert "multiplies cos and sin by 1.139" in text and "1.296×" in text


def test_saved_lab_result_never_rounds_99_97_to_100_and_shows_its_yardsticks():
    assert format_value(0.9997479838709677, ".1%") == "99.97%" and format_value(1.0, ".1%") == "100.0%"
    assert format_value(0.0004, ".1%") == "0.04%"
    text = _revealed("learned_vs_formula_beyond_training", "Running is not working")
    assert "99.97% at length 32 (chance is 12.5%)" in text
    assert "38.1%, below even predicting from the last symbol alone (47.5%)" in text


def test_the_rotation_lesson_does_not_ask_if_the_error_is_still_1e_16():
    _x, _n, step = _step("relative_position_as_rotation", "How small")
    assert "10⁻¹⁶" not in step.question.prompt and "still about 10⁻¹⁴" in step.question.prompt


# -- checks that can fail --------------------------------------------------------------------------
@pytest.mark.parametrize("far", [700, 710, 1000, 5000])
def test_fast_and_slow_pairs_hold_at_every_offset_not_only_near_113_turns(far):
    assert run_check("multi_resolution", {"far": far}).passed


def test_rope_relative_computes_the_scheme_it_is_given_or_refuses_it():
    xpos = run_check("rope_relative", {"scheme": "xpos", "head_dim": 32, "shift": 200})
    assert not xpos.passed and xpos.values["norm_change"] > 1e-3  # xPos scales q and k: computed, honestly
    assert run_check("rope_relative", {"scheme": "partial_rope", "head_dim": 32, "shift": 200}).passed
    for scheme in ("kerple", "t5", "alibi", "sinusoidal"):
        with pytest.raises(CheckError, match="does not rotate q and k") as err:
            run_check("rope_relative", {"scheme": scheme})
        assert "\n" not in str(err.value)


def test_alibi_check_given_t5_measures_t5():
    r = run_check("alibi_linear_bias", {"scheme": "t5", "heads": 12, "positions": 32})
    assert not r.passed and r.values["max_deviation"] > 0.1
    with pytest.raises(CheckError, match="not a bias on the scores"):
        run_check("alibi_linear_bias", {"scheme": "rope"})


def test_stretching_rope_is_three_checks_not_one_counted_three_times():
    checks = [s.check for s in find_lesson("stretching_rope").steps]
    assert checks == ["rope_unseen_pairs", "rope_linear_scaling", "rope_yarn"]
    assert "rope_stretch" not in all_checks()


# -- numbers with yardsticks -----------------------------------------------------------------------
def test_every_error_or_percentage_a_step_reveals_has_its_yardstick_in_the_same_sentence():
    """A value shown as an error (…e) or a share (…%) is declared with what it is compared to, and the reveal
    names that value in the same sentence."""
    checks = all_checks()
    missing = []
    for lesson in builtin_lessons():
        for n, step in enumerate(lesson.steps, 1):
            compare = checks[step.check].compare
            yardsticks = set(compare.values())
            for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z“])", step.reveal):
                names = {f: spec for _l, f, spec, _c in string.Formatter().parse(sentence) if f}
                for name, spec in names.items():
                    if not (spec or "").endswith(("e", "%")) or name in yardsticks:
                        continue
                    if compare.get(name) not in names:
                        missing.append(f"{lesson.name} {n}: {{{name}}} without {compare.get(name)}")
    assert not missing, "\n".join(missing)


# -- a hostile lesson is refused before it costs much ----------------------------------------------------
def _doc(steps) -> str:
    return json.dumps({"format": LESSON_FORMAT, "version": 1, "title": "T", "steps": steps})


def _fast(**params):
    return {"title": "A", "text": "B", "check": {"name": "sinusoid_formula", "params": params}}


def test_a_step_that_asks_for_too_much_work_is_refused_in_one_line():
    with pytest.raises(LessonError) as err:
        parse_lesson(_doc([_fast(d_model=4096, positions=65536)]))
    assert "at most" in str(err.value) and "\n" not in str(err.value)
    for name, chk in all_checks().items():  # every check's default run fits the bound
        assert chk.work(chk.resolve({p: v for p, v in _required(name).items()})) <= MAX_CHECK_WORK, name


def _required(name: str) -> dict:
    return {"position_in_the_vectors": {"scheme": "sinusoidal"}, "rope_relative": {"scheme": "rope"},
            "alibi_linear_bias": {"scheme": "alibi"},
            "trained_beyond_length": {"formula": "sinusoidal", "table": "learned"},
            "models_by_scheme": {"scheme_a": "learned", "models_a": "GPT-2", "scheme_b": "rope",
                                 "models_b": "Llama"},
            "lab_holds_past_training": {"holds": "alibi", "drops": "rope"}}.get(name, {})


def test_a_sentence_too_long_to_swap_every_pair_of_is_refused_before_it_runs():
    step = {"title": "A", "text": "B", "check": {"name": "position_in_the_vectors", "params": {
        "scheme": "sinusoidal", "sentence": " ".join("abcdefghij"), "i": 0, "j": 1}}}
    with pytest.raises(LessonError, match="at most 6") as err:
        parse_lesson(_doc([step]))
    assert "\n" not in str(err.value)


def test_too_many_steps_or_too_much_work_in_all_is_refused_in_one_line():
    with pytest.raises(LessonError, match="1 to 24 steps"):
        parse_lesson(_doc([_fast()] * 25))
    heavy = _fast(d_model=256, positions=65536)  # 4 × 16,384 × 256: the most one step may ask
    with pytest.raises(LessonError) as err:
        parse_lesson(_doc([heavy] * 12))
    assert f"{MAX_LESSON_WORK:,}" in str(err.value) and "\n" not in str(err.value)
    shipped = [sum(s.work for s in x.steps) for x in builtin_lessons()]
    assert max(shipped) <= MAX_LESSON_WORK


def test_a_check_at_its_largest_allowed_size_stays_within_a_few_hundred_megabytes():
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    run_check("sinusoid_formula", {"d_model": 256, "positions": 65536})
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 600, grown_mb


# -- text to a terminal ---------------------------------------------------------------------------
HOSTILE = "Evil\x1b]0;owned\x07\x1b[2J\rPASS  all\u202e\x9b31m"


def test_printable_shows_every_control_character():
    shown = printable(HOSTILE)
    assert not any(c in shown for c in "\x1b\x07\r\n\u202e\x9b")
    assert "\\x1b" in shown and "\\r" in shown and "\\u202e" in shown and shown.startswith("Evil")


@pytest.mark.parametrize("args", [["--list"], ["--check"], ["--check", "--json"], ["--list", "--json"]])
def test_lesson_titles_reach_the_terminal_with_control_characters_visible(tmp_path, args):
    bad = tmp_path / "evil.json"
    bad.write_text(json.dumps({"format": LESSON_FORMAT, "version": 1, "title": HOSTILE, "steps": [
        {"title": HOSTILE, "text": "x", "check": {"name": "fastest_pair", "params": {"d_model": 8}}}]}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["lesson", *args, str(bad)])
    text = out.getvalue()
    assert not any(c in text for c in "\x1b\x07\r\u202e\x9b"), repr(text[:300])
    if "--json" in args:
        assert json.loads(text)  # still the same JSON
    else:
        assert not re.search(r"^PASS  all", text, re.M)


def test_the_guide_lists_every_check_and_its_values():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "lessons.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([a-z0-9_]+)` \| ([a-z0-9_, ]+) \|$", text.split("## The checks")[1], re.M))
    assert rows == {name: ", ".join(c.values) for name, c in all_checks().items()}
