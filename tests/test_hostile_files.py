"""A hostile-file corpus fed to every reader of the app (issue 16).

Each crafted file — numbers of 400 and 5,000 digits, ``"panel": []``, NaN/Infinity literals, strings
for numbers, truncated JSON, binary garbage, a pickle, a QSettings ``@Variant`` value, nesting 100,000
deep, a file over the size cap, a FIFO, a folder, ``/dev/zero`` — goes to the preset reader, the
user's presets folder, the session reader and the settings reader (``settings.json`` and an old
``window.ini``).  Each time: one line of error (or the bad key ignored, or — for the few files that
are fine after all — loaded), never an exception out of the app's API, never a hang (a FIFO must not
block: every test has a timeout), and nothing executed (a pickle that would create a marker file).
The window-level cases (the session at start, ``load_preset_file``) are in
tests/test_reliability_lost_work.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import random
from pathlib import Path

import pytest

from explorer import fileio
from explorer import presets as pr
from explorer import settings as st
from explorer.state import PANEL_STATES, AppState, StateError
from explorer.state.base import fields

pytestmark = pytest.mark.timeout(60)

GOOD = json.loads(AppState().to_json())


def _doc(**panels) -> dict:
    return {"version": 2, "panels": panels}


def _text(obj) -> str:
    return json.dumps(obj)


class _Marker:
    """Unpickling this creates the marker file: a reader that unpickles is caught."""

    path = ""

    def __reduce__(self):
        return (open, (self.path, "w"))


def _pickle_bytes(marker: Path) -> bytes:
    m = _Marker()
    m.path = str(marker)
    return pickle.dumps(m)


def _variant_ini(marker: Path) -> bytes:
    """A window.ini line as QSettings writes a Python object: a pickle inside ``@Variant(...)``."""
    payload = _pickle_bytes(marker)
    head = b"\0\0\0\x7f\0\0\0\x18PySide::PyObjectWrapper\0\0\0\0" + bytes([len(payload)])
    body = "".join(f"\\x{b:x}" for b in head + payload)
    return f'[view]\nzoom="@Variant({body})"\ntheme=dark\n'.encode()


#: name -> (file bytes, what a preset/session reader must do: "refuse" or "load").
def corpus(marker: Path) -> dict[str, tuple[bytes, str]]:
    big = "1" + "0" * 399
    huge = "1" + "0" * 4999
    rng = random.Random(16)
    c = {
        "int_400_digits": (_text(_doc(waves={"d_model": 0})).replace("0}", big + "}"), "refuse"),
        "int_5000_digits": (_text(_doc(waves={"d_model": 0})).replace("0}", huge + "}"), "refuse"),
        "negative_int_400_digits": (
            '{"version": 2, "panels": {"waves": {"offset": -%s}}}'.replace("%s", big), "refuse"
        ),
        "float_400_digits": ('{"version": 2, "panels": {"waves": {"base": %s.5}}}'.replace("%s", big), "refuse"),
        "float_1e400": ('{"version": 2, "panels": {"waves": {"base": 1e400}}}', "refuse"),
        "nan_literal": ('{"version": 2, "panels": {"waves": {"base": NaN}}}', "refuse"),
        "infinity_literal": ('{"version": 2, "panels": {"waves": {"base": Infinity}}}', "refuse"),
        "minus_infinity": ('{"version": 2, "panels": {"waves": {"token_scale": -Infinity}}}', "refuse"),
        "version_400_digits": ('{"version": %s, "panels": {}}'.replace("%s", big), "refuse"),
        "version_3": (_text({"version": 3, "panels": {}}), "refuse"),
        "version_text": (_text({"version": "2", "panels": {}}), "refuse"),
        "version_float": (_text({"version": 2.0, "panels": {}}), "refuse"),
        "panel_list": (_text({**_doc(), "panel": []}), "refuse"),
        "panel_object": (_text({**_doc(), "panel": {"a": 1}}), "refuse"),
        "panel_number": (_text({**_doc(), "panel": 10**30}), "refuse"),
        "title_list": (_text({**_doc(), "title": ["x"]}), "refuse"),
        "description_number": (_text({**_doc(), "description": 5}), "refuse"),
        "panels_list": (_text({"version": 2, "panels": []}), "refuse"),
        "panels_null": (_text({"version": 2, "panels": None}), "refuse"),
        "panel_state_list": (_text(_doc(waves=[1, 2])), "refuse"),
        "d_model_text": (_text(_doc(waves={"d_model": "64"})), "refuse"),
        "pairs_texts": (_text(_doc(waves={"pairs": ["1", "2"]})), "refuse"),
        "pairs_400_digits": ('{"version": 2, "panels": {"waves": {"pairs": [%s]}}}'.replace("%s", big), "refuse"),
        "pairs_nested": (_text(_doc(waves={"pairs": [[1], [2]]})), "refuse"),
        "pairs_200000": (_text(_doc(waves={"pairs": [0] * 200_000})), "refuse"),
        "bool_for_int": (_text(_doc(waves={"d_model": True})), "refuse"),
        "schemes_dict": (_text(_doc(schemes={"schemes": {"rope": 1}})), "refuse"),
        "scheme_param_400_digits": (
            '{"version": 2, "panels": {"schemes": {"scheme_params": {"t5": {"num_buckets": %s}}}}}'.replace("%s", big),
            "refuse",
        ),
        "scheme_param_text": (_text(_doc(schemes={"scheme_params": {"t5": {"num_buckets": "16"}}})), "refuse"),
        "unknown_key_10k": (_text({**_doc(), "k" * 10_000: 1}), "refuse"),
        "many_unknown_params": (_text(_doc(waves={f"x{i}": i for i in range(5000)})), "refuse"),
        "duplicate_key": ('{"version": 2, "version": 2, "panels": {}}', "refuse"),
        "truncated": (_text(GOOD)[:-7], "refuse"),
        "plain_text": ("Week 3: bring the RoPE slides\n", "refuse"),
        "empty": ("", "refuse"),
        "whitespace": ("  \n\t\n", "refuse"),
        "top_level_list": ("[1, 2, 3]", "refuse"),
        "top_level_string": ('"version 2"', "refuse"),
        "nested_100000": ("[" * 100_000 + "]" * 100_000, "refuse"),
        "nested_objects_50": ('{"a":' * 50 + "1" + "}" * 50, "refuse"),
        "binary_garbage": (rng.randbytes(4096), "refuse"),
        "png_header": (b"\x89PNG\r\n\x1a\n" + rng.randbytes(512), "refuse"),
        "utf16": (_text(GOOD).encode("utf-16"), "refuse"),
        "latin1_title": (json.dumps({**GOOD, "title": "Woche 3 für Anfänger"}, ensure_ascii=False).encode("latin-1"),
                         "refuse"),
        "pickle": (_pickle_bytes(marker), "refuse"),
        "qsettings_variant": (_variant_ini(marker), "refuse"),
        "over_the_cap": (b'{"version": 2, "panels": {}, "description": "' + b"x" * (2 << 20) + b'"}', "refuse"),
        # Fine after all: read, and nothing in them can make the app fail later.
        "bom_then_good": (b"\xef\xbb\xbf" + _text(GOOD).encode(), "load"),
        "lone_surrogate_title": ('{"version": 2, "panels": {}, "title": "Week \\ud800 3"}', "load"),
        "good": (_text({**GOOD, "title": "Неделя 3 — RoPE"}), "load"),
    }
    return {k: (v.encode() if isinstance(v, str) else v, outcome) for k, (v, outcome) in c.items()}


#: Not files with content: made by :func:`_make`.
SPECIAL = ("fifo", "folder", "dev_zero", "dev_null", "dangling_symlink")


def _make(path: Path, name: str, content: bytes | None) -> Path:
    if name == "fifo":
        os.mkfifo(path)
    elif name == "folder":
        path.mkdir()
        (path / "x.json").write_text("{}")
    elif name == "dev_zero":
        path.symlink_to("/dev/zero")
    elif name == "dev_null":
        path.symlink_to("/dev/null")
    elif name == "dangling_symlink":
        path.symlink_to(path.parent / "nowhere.json")
    else:
        assert content is not None
        path.write_bytes(content)
    return path


ALL = [*corpus(Path("m")), *SPECIAL]


def _expect(name: str, marker: Path) -> tuple[bytes | None, str]:
    if name in SPECIAL:
        return None, "refuse"
    return corpus(marker)[name]


def _one_line(message: str) -> None:
    assert "\n" not in message and "Traceback" not in message, message
    assert 10 < len(message) < 400, message


# -- the readers ---------------------------------------------------------------------------------------
@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", ALL)
def test_preset_reader(tmp_path, name):
    marker = tmp_path / "MARKER"
    content, outcome = _expect(name, marker)
    path = _make(tmp_path / f"{name}.json", name, content)
    try:
        preset = pr.load_preset(path)
    except pr.PresetError as exc:
        assert outcome == "refuse", f"{name}: {exc}"
        _one_line(str(exc))
        assert path.name in str(exc)
    else:
        assert outcome == "load", f"{name} was accepted"
        pr.preset_json(preset.state, title=preset.title).encode("utf-8")  # and it can be written back
    assert not marker.exists(), "a reader ran code from a file"


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", ALL)
def test_user_presets_folder(name):
    marker = pr.user_dir().parent / "MARKER"
    content, outcome = _expect(name, marker)
    pr.user_dir().mkdir(parents=True)
    pr.save_user_preset("a good one", AppState())
    _make(pr.user_dir() / f"{name}.json", name, content)
    good, bad = pr.user_presets()
    assert "a good one" in [p.title for p in good]
    if outcome == "refuse" and name != "folder":  # a folder named *.json is not a preset: not listed
        assert len(bad) == 1, bad
        _one_line(bad[0])
    assert not marker.exists()


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", ALL)
def test_state_text_reader(name):
    """AppState.from_json (the CLI's --set files and the tests' own path) on the same texts."""
    if name in SPECIAL:
        pytest.skip("a file kind, not a text")
    content, outcome = _expect(name, Path("/nonexistent/m"))
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        pytest.skip("not text")
    try:
        AppState.from_json(text, extra_keys=pr.PRESET_KEYS)
    except StateError as exc:
        _one_line(str(exc))


@pytest.mark.timeout(20)
@pytest.mark.parametrize("as_file", ["settings.json", "window.ini"])
@pytest.mark.parametrize("name", ALL)
def test_settings_reader(name, as_file, caplog):
    """Any file as settings.json or window.ini: the settings that are fine are used, the rest ignored."""
    home = st.config_dir()
    marker = home / "MARKER"
    content, _ = _expect(name, marker)
    _make(home / as_file, name, content)
    with caplog.at_level("WARNING", logger="explorer.settings"):
        values = st.load_settings()
    assert isinstance(values, dict)
    for key, value in values.items():
        assert key in st.SETTINGS and value == st.SETTINGS[key](st._stored(key, value))
    quiet = as_file == "window.ini" and (name == "dangling_symlink" or content is not None and not content.strip())
    if values == {} and not quiet:  # (an old window.ini that is empty or absent is nothing to report)
        assert caplog.records, f"{name}: ignored without a word in the log"
    for rec in caplog.records:
        _one_line(rec.getMessage())
    assert not marker.exists(), "a settings file ran code"


# -- the figures ---------------------------------------------------------------------------------------
WRONG = ([], {}, "7", True, None, 1.5, 10**30, -(10**400), "x" * 10_000, [1.5], [[]], {"a": [1]})


def test_every_key_of_every_panel_with_every_wrong_type(tmp_path):
    """12 wrong values for each of every panel's parameters, each as its own preset file."""
    tried = refused = 0
    for pid, cls in PANEL_STATES.items():
        for key in fields(cls):
            for value in WRONG:
                literal = str(value) if isinstance(value, int) and not isinstance(value, bool) else json.dumps(value)
                text = '{"version": 2, "panels": {"PID": {"KEY": VALUE}}}'
                text = text.replace("PID", pid).replace("KEY", key).replace("VALUE", literal)
                path = tmp_path / f"{pid}-{key}.json"
                path.write_text(text)
                tried += 1
                try:
                    p = pr.load_preset(path)
                except pr.PresetError as exc:
                    refused += 1
                    _one_line(str(exc))
                else:  # a wrong type may be fine by chance (1.5 for a float, [] for a list of names)
                    assert isinstance(p.state, AppState)
    assert tried == sum(len(fields(c)) for c in PANEL_STATES.values()) * len(WRONG)
    assert refused >= tried * 0.9, (tried, refused)
    print(f"wrong types: {tried} files tried, {refused} refused with one line, {tried - refused} in range")


def test_the_corpus_size():
    """The guide's figure: files in the corpus, each fed to 4 readers (5 with window.ini)."""
    assert len(ALL) >= 50


# -- the one reading path ------------------------------------------------------------------------------
@pytest.mark.timeout(10)
@pytest.mark.parametrize("kind,words", [
    ("fifo", "is a named pipe (FIFO), not a preset file"),
    ("folder", "is a folder, not a preset file"),
    ("dev_zero", "is a device, not a preset file"),
    ("dangling_symlink", "no such file"),
])
def test_read_path_refuses_what_is_not_a_regular_file_with_the_right_words(tmp_path, kind, words):
    path = _make(tmp_path / "p.json", kind, None)
    with pytest.raises(fileio.InputError, match=words.replace("(", r"\(").replace(")", r"\)")):
        fileio.read_bytes_file(path, what="preset")


@pytest.mark.timeout(10)
def test_a_fifo_swapped_in_after_the_check_does_not_block(tmp_path, monkeypatch):
    """Between the type check and open() the file becomes a FIFO: open() must not wait for a writer."""
    path = tmp_path / "p.json"
    path.write_text("{}")
    real_stat = Path.stat

    def stat_then_swap(self, **kw):
        result = real_stat(self, **kw)
        if self == path:
            path.unlink()
            os.mkfifo(path)
        return result

    monkeypatch.setattr(Path, "stat", stat_then_swap)
    with pytest.raises(fileio.InputError, match="named pipe"):
        fileio.read_bytes_file(path, what="preset")


def test_read_path_caps_the_size_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    with open(path, "wb") as fh:  # sparse
        fh.seek(5 << 20)
        fh.write(b"}")
    monkeypatch.setattr("builtins.open", lambda *a, **k: pytest.fail("a file over the cap was opened"))
    with pytest.raises(fileio.InputError, match="too large"):
        fileio.read_bytes_file(path, limit=1 << 20)


def test_json_numbers_are_bounded_before_conversion():
    for text in ("1" * 400, "-" + "1" * 5000, "1" * 4301, "0." + "1" * 100):
        with pytest.raises(fileio.InputError, match="digits|characters"):
            fileio.parse_json_text(f'{{"n": {text}}}')
    assert fileio.parse_json_text('{"n": 12345678901234567890}') == {"n": 12345678901234567890}


def test_state_bounds_integers_before_conversion():
    """Python ints that float() cannot take (a CLI --set, a caller) are refused with one line."""
    from explorer.state import WavesState

    for value in (10**400, -(10**400), 2**63):
        with pytest.raises(StateError, match="d_model must be a whole number in range") as info:
            WavesState(d_model=value)
        _one_line(str(info.value))
    with pytest.raises(StateError, match="pairs must be a list of whole numbers"):
        dataclasses.replace(WavesState(), pairs=(1, "2"))  # text is not a number, outside --set
