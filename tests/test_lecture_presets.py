"""Presets and the application state: round trips, the built-in scenes, and every malformed file."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from explorer import presets as pr
from explorer.state import PANEL_STATES, AppState, StateError
from explorer.state.base import parse_value, to_dict

BUILTIN_NAMES = (
    "permutation_problem",
    "waves_and_frequencies",
    "relative_position_as_rotation",
    "learned_vs_sinusoidal_beyond_training",
    "rope_vs_alibi",
    "stretching_rope_to_long_contexts",
)


def _changed_state() -> AppState:
    st = AppState()
    return st.replace(
        waves=dataclasses.replace(st.waves, base=500000.0, d_model=256, position=17),
        swap=st.swap.clamped(
            sentence="the cat sat on the mat", swap_i=1, swap_j=4, scheme="rope", causal=True
        ),
        schemes=dataclasses.replace(st.schemes, scaling="ntk", factor=8.0),
    )


# -- the state object ------------------------------------------------------------------------------
def test_app_state_holds_every_panel_and_round_trips():
    st = _changed_state()
    data = json.loads(st.to_json())
    assert data["version"] == 2
    assert set(data["panels"]) == set(PANEL_STATES)
    for pid, cls in PANEL_STATES.items():
        assert set(data["panels"][pid]) == {f.name for f in dataclasses.fields(cls)}
    assert AppState.from_json(st.to_json()) == st
    assert st.get("waves").base == 500000.0


def test_missing_panels_and_keys_take_defaults():
    st = AppState.from_json('{"version": 1, "panels": {"waves": {"base": 500000}}}')
    assert st.waves.base == 500000.0 and st.waves.d_model == AppState().waves.d_model
    assert st.swap == AppState().swap


def test_parse_value_checks_one_field_and_names_the_valid_values():
    from explorer.state import WavesState

    assert parse_value(WavesState, "base", "500000") == 500000.0
    with pytest.raises(StateError, match=r"valid: base: float in \[10, 1e\+07\]"):
        parse_value(WavesState, "base", "1e9")
    with pytest.raises(StateError, match="valid: n_positions"):
        parse_value(WavesState, "bogus", "1")
    # Cross-field rules are not applied here (position vs N is checked when applied together).
    assert parse_value(WavesState, "position", "100000") == 100000


# -- round trips through files -----------------------------------------------------------------------
def test_preset_file_round_trip(tmp_path):
    st = _changed_state()
    path = pr.save_preset(
        tmp_path / "mine.json", st, title="Week 3", description="RoPE at 32k", panel="schemes"
    )
    p = pr.load_preset(path)
    assert p.state == st
    assert (p.title, p.description, p.panel, p.name) == ("Week 3", "RoPE at 32k", "schemes", "mine")
    assert not list(tmp_path.glob("*.part"))


def test_user_presets_are_listed_and_found_by_name():
    st = _changed_state()
    path = pr.save_user_preset("My Lecture: RoPE!", st, description="d")
    assert path.parent == pr.user_dir() and path.name == "my_lecture_rope.json"
    mine, bad = pr.user_presets()
    assert [p.title for p in mine] == ["My Lecture: RoPE!"] and bad == []
    assert pr.find_preset("my-lecture-rope").state == st
    assert pr.find_preset(str(path)).state == st


def test_a_broken_user_preset_is_reported_not_fatal():
    pr.save_user_preset("good", AppState())
    (pr.user_dir() / "bad.json").write_text("{", encoding="utf-8")
    mine, bad = pr.user_presets()
    assert [p.name for p in mine] == ["good"]
    assert len(bad) == 1 and "bad.json" in bad[0] and "not valid JSON" in bad[0]


# -- the built-in lecture scenes -------------------------------------------------------------------
def test_the_six_builtin_scenes_load_in_lesson_order():
    scenes = pr.builtin_presets()
    assert [p.name for p in scenes] == list(BUILTIN_NAMES)
    for p in scenes:
        assert p.builtin and p.title and len(p.description) > 150
        assert p.panel in PANEL_STATES
        raw = json.loads(p.path.read_text(encoding="utf-8"))
        # Full files: every panel, every parameter, so a scene never depends on defaults changing.
        assert set(raw["panels"]) == set(PANEL_STATES), p.name
        for pid, cls in PANEL_STATES.items():
            assert set(raw["panels"][pid]) == {f.name for f in dataclasses.fields(cls)}, (p.name, pid)
        assert to_dict(p.state.get(p.panel)) == raw["panels"][p.panel]


def test_builtin_scenes_are_found_by_name_in_any_spelling():
    assert pr.find_preset("rope-vs-alibi").name == "rope_vs_alibi"
    assert pr.find_preset("05_rope_vs_alibi").name == "rope_vs_alibi"
    assert pr.find_preset("Stretching RoPE to long contexts").name == "stretching_rope_to_long_contexts"
    with pytest.raises(pr.PresetError, match="no preset named 'nope'; valid: permutation_problem"):
        pr.find_preset("nope")


def test_permutation_scene_really_shows_equivariance():
    from explorer import jobs
    from explorer.jobs.swap import SwapRequest

    st = pr.find_preset("permutation_problem").state.swap
    assert st.scheme == "nope" and not st.causal and st.swap_i != st.swap_j
    r = jobs.run(SwapRequest(st))
    assert r.equivariant and r.max_relabel_error < 1e-12
    # ... and the very next step of the lesson breaks it.
    r2 = jobs.run(SwapRequest(dataclasses.replace(st, scheme="sinusoidal")))
    assert not r2.equivariant


def test_waves_scene_spans_fast_to_slow_pairs():
    st = pr.find_preset("waves_and_frequencies").state.waves
    half = st.d_model // 2
    assert st.pairs[0] == 0 and st.pairs[-1] == half - 1  # the fastest and the slowest pair
    assert list(st.pairs) == sorted(st.pairs)


def test_rotation_scene_sets_an_offset_and_a_pair():
    st = pr.find_preset("relative_position_as_rotation").state
    assert st.waves.offset != 0 and 0 < st.waves.pair < st.waves.d_model // 2
    assert st.waves.position + st.waves.offset < st.waves.n_positions
    assert st.schemes.shows("rope") and st.schemes.view == "distance"


def test_beyond_training_scene_asks_past_the_table():
    st = pr.find_preset("learned_vs_sinusoidal_beyond_training").state.schemes
    assert st.shows("learned") and st.shows("sinusoidal") and st.l_eval > st.l_train
    assert st.view == "beyond"


def test_rope_vs_alibi_scene_shows_exactly_those_two():
    st = pr.find_preset("rope_vs_alibi").state.schemes
    assert st.schemes == ("rope", "alibi")


def test_long_context_scene_extends_rope_by_its_factor():
    st = pr.find_preset("stretching_rope_to_long_contexts").state.schemes
    assert st.shows("rope") and st.shows("scaled_rope")
    assert st.l_eval == int(st.factor * st.l_train)  # asked exactly s times further than trained


# -- every malformed file: a clear message, nothing built ----------------------------------------------
GOOD = json.loads(pr.preset_json(AppState(), title="t"))


def _write(tmp_path, text: str | bytes, name: str = "p.json") -> Path:
    p = tmp_path / name
    (p.write_bytes if isinstance(text, bytes) else p.write_text)(text)
    return p


@pytest.mark.parametrize(
    "text,message",
    [
        (json.dumps(GOOD)[:-40], "not valid JSON"),  # truncated
        ("hello, world", "not valid JSON"),
        ("", "the file is empty"),
        ("[1, 2, 3]", "expected a JSON object"),
        (json.dumps({**GOOD, "version": 3}), "unsupported state version 3; this app reads versions 1, 2"),
        (json.dumps({**GOOD, "version": "1"}), "unsupported state version '1'"),
        (json.dumps({**GOOD, "version": True}), "unsupported state version True"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "version"}), "no 'version' field"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "panels"}), "missing 'panels'"),
        (json.dumps({**GOOD, "panels": []}), "'panels' must be an object"),
        (json.dumps({**GOOD, "panels": {"wave": {}}}), "unknown panel(s) wave; valid: waves, swap, schemes"),
        (
            json.dumps({**GOOD, "panels": {"waves": {"bse": 1}}}),
            "waves: unknown parameter(s) bse; valid: n_positions",
        ),
        (json.dumps({**GOOD, "colour": "red"}), "unknown top-level key(s) colour"),
        (json.dumps({**GOOD, "panels": {"waves": {"base": 5}}}), "waves: base must be at least 10, got 5"),
        (json.dumps({**GOOD, "panels": {"waves": {"d_model": 7}}}), "waves: d_model must be even"),
        (
            json.dumps({**GOOD, "panels": {"waves": {"d_model": "64"}}}),
            "waves: d_model must be a whole number",
        ),
        (json.dumps({**GOOD, "panels": {"waves": {"position": 999}}}), "position must be below N = 256"),
        (json.dumps({**GOOD, "panels": {"schemes": {"scaling": "magic"}}}), "scaling must be one of linear"),
        ('{"version": 1, "version": 1, "panels": {}}', "the key 'version' appears twice"),
        ('{"version": 1, "panels": {"waves": {"base": NaN}}}', "finite"),
        (json.dumps({**GOOD, "title": 5}), "'title' must be text"),
        (json.dumps({**GOOD, "panel": "nowhere"}), "'panel' must be one of waves"),
        ("[" * 100000 + "]" * 100000, "nested too deeply"),
    ],
)
def test_malformed_files_give_one_clear_line_and_build_nothing(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(pr.PresetError) as info:
        pr.load_preset(path)
    msg = str(info.value)
    assert message in msg, msg
    assert msg.startswith("p.json: ") and "\n" not in msg and "Traceback" not in msg


def test_binary_file_is_not_a_preset(tmp_path):
    path = _write(tmp_path, b"\x89PNG\r\n\x1a\n\xff\xfe\x00garbage")
    with pytest.raises(pr.PresetError, match="not a text file"):
        pr.load_preset(path)


def test_huge_file_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:  # sparse: no disk needed
        fh.seek(50 * 1024 * 1024)
        fh.write(b"}")
    real_open = open

    def guarded_open(p, *a, **k):
        assert Path(p) != path, "a huge file must not be opened"
        return real_open(p, *a, **k)

    monkeypatch.setattr("builtins.open", guarded_open)
    with pytest.raises(
        pr.PresetError, match=r"huge.json: file too large for a preset \(52.4 MB; at most 1024 KB\)"
    ):
        pr.load_preset(path)


def test_file_growing_past_the_limit_while_read_is_refused(tmp_path, monkeypatch):
    path = _write(tmp_path, json.dumps(GOOD))
    monkeypatch.setattr(pr, "MAX_PRESET_BYTES", 10_000)
    monkeypatch.setattr(
        Path, "stat", lambda self, **k: os.stat_result((0o100644, 0, 0, 1, 0, 0, 10, 0, 0, 0))
    )
    path.write_text(json.dumps(GOOD) + " " * 20_000)
    with pytest.raises(pr.PresetError, match="more than 9 KB"):
        pr.load_preset(path)


def test_unreadable_file(tmp_path, monkeypatch):
    path = _write(tmp_path, json.dumps(GOOD))

    def denied(*_a, **_k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("builtins.open", denied)
    with pytest.raises(pr.PresetError, match=r"cannot read .*p.json: Permission denied"):
        pr.load_preset(path)


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads files without permission"
)
def test_unreadable_file_by_permissions(tmp_path):
    path = _write(tmp_path, json.dumps(GOOD))
    path.chmod(0)
    try:
        with pytest.raises(pr.PresetError, match="Permission denied"):
            pr.load_preset(path)
    finally:
        path.chmod(0o644)


def test_missing_file_folder_and_a_folder_instead_of_a_file(tmp_path):
    with pytest.raises(pr.PresetError, match="no such file"):
        pr.load_preset(tmp_path / "absent.json")
    with pytest.raises(pr.PresetError, match="does not exist"):
        pr.load_preset(tmp_path / "no" / "folder" / "p.json")
    (tmp_path / "d.json").mkdir()
    with pytest.raises(pr.PresetError, match="is a folder, not a preset file"):
        pr.load_preset(tmp_path / "d.json")


def test_missing_user_folder_lists_nothing():
    assert not pr.user_dir().exists()
    assert pr.user_presets() == ([], [])
    assert len(pr.builtin_presets()) == 6


# -- saving: clear message, nothing partial -----------------------------------------------------------
def test_save_into_a_missing_folder(tmp_path):
    with pytest.raises(pr.PresetError, match="folder .* does not exist"):
        pr.save_preset(tmp_path / "nope" / "p.json", AppState())
    assert not (tmp_path / "nope").exists()


def test_save_failure_leaves_no_partial_file_and_keeps_the_old_one(tmp_path, monkeypatch):
    target = pr.save_preset(tmp_path / "p.json", AppState(), title="old")

    def failing_replace(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(pr.PresetError, match="cannot write .*p.json: Permission denied"):
        pr.save_preset(target, _changed_state(), title="new")
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json"]  # no .part left behind
    assert pr.load_preset(target).title == "old"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only folders")
def test_save_into_a_read_only_folder(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(pr.PresetError, match="Permission denied"):
            pr.save_preset(ro / "p.json", AppState())
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


def test_user_folder_that_cannot_be_created(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setattr(pr, "user_dir", lambda: blocker / "presets")
    with pytest.raises(pr.PresetError, match="cannot create the presets folder"):
        pr.save_user_preset("x", AppState())


def test_save_rejects_an_empty_name():
    with pytest.raises(pr.PresetError, match="give the preset a name"):
        pr.save_user_preset("   ", AppState())
