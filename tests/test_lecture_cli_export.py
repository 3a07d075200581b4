"""``pe-explorer export``: a panel rendered headless to PNG/SVG; every bad argument exits 2 with one line."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtGui import QImage

from explorer import presets as pr
from explorer.cli import main


def _run(capsys, *args):
    rc = main(["export", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def _one_line_error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_png_at_a_width_with_sets_in_any_order(qtbot, capsys, tmp_path):
    out = tmp_path / "waves.png"
    rc, _, err = _run(
        capsys,
        "--panel",
        "waves",
        "--set",
        "position=900",
        "--set",
        "n_positions=1024",
        "--set",
        "base=500000",
        "--width",
        "800",
        "--out",
        str(out),
    )
    assert rc == 0, err
    img = QImage(str(out))
    assert img.width() == 800 and img.height() == 500
    px = np.frombuffer(img.convertToFormat(QImage.Format.Format_RGBA8888).constBits(), np.uint8)
    assert px.std() > 10
    assert [p.name for p in tmp_path.iterdir()] == ["waves.png"]


def test_svg_from_a_builtin_scene_with_an_override(qtbot, capsys, tmp_path):
    out = tmp_path / "schemes.svg"
    rc, _, err = _run(
        capsys,
        "--panel",
        "schemes",
        "--preset",
        "stretching-rope-to-long-contexts",
        "--set",
        "scaling=ntk",
        "--out",
        str(out),
    )
    assert rc == 0, err
    root = ET.fromstring(out.read_bytes())
    assert root.tag.endswith("svg")
    texts = " ".join(e.text or "" for e in root.iter())
    assert "NTK" in texts


def test_one_plot_from_a_preset_file(qtbot, capsys, tmp_path):
    preset = pr.find_preset("permutation_problem")
    path = pr.save_preset(tmp_path / "mine.json", preset.state)
    out = tmp_path / "plot.png"
    rc, _, err = _run(
        capsys,
        "--panel",
        "swap",
        "--preset",
        str(path),
        "--plot",
        "1",
        "--width",
        "600",
        "--theme",
        "print",
        "--out",
        str(out),
    )
    assert rc == 0, err
    img = QImage(str(out))
    assert img.width() == 600
    assert img.pixelColor(1, 1).lightness() > 245  # the print theme's white background


def test_dependent_values_follow_but_set_values_never_change(qtbot, capsys, tmp_path):
    # position stays 10 < 64 = N; pairs (up to 48) must shrink below d_model/2 = 8: they are not --set.
    out = tmp_path / "w.png"
    rc, _, err = _run(
        capsys,
        "--panel",
        "waves",
        "--set",
        "d_model=16",
        "--set",
        "n_positions=64",
        "--width",
        "300",
        "--out",
        str(out),
    )
    assert rc == 0, err and out.is_file()


@pytest.mark.parametrize(
    "args,expected",
    [
        (
            ["--panel", "waves", "--set", "bse=5"],
            "--set bse: unknown key for waves; valid: n_positions, d_model",
        ),
        (
            ["--panel", "waves", "--set", "base"],
            "--set needs KEY=VALUE, got 'base'; valid keys for waves: n_positions",
        ),
        (
            ["--panel", "waves", "--set", "base=abc"],
            "base must be a finite number, got 'abc'; valid: base: float in",
        ),
        (
            ["--panel", "waves", "--set", "base=1e9"],
            "base must be at most 1e+07, got 1e+09; valid: base: float in [10, 1e+07]",
        ),
        (["--panel", "waves", "--set", "d_model=7"], "d_model must be even"),
        (["--panel", "schemes", "--set", "scaling=magic"], "valid: scaling: one of linear|ntk|yarn|llama3"),
        (["--panel", "waves", "--set", "position=300"], "--set position: position must be below N = 256"),
        (["--panel", "swap", "--set", "swap_i=1", "--set", "swap_j=1"], "swap I and J must be two different"),
        (
            ["--panel", "waves", "--preset", "nope"],
            "--preset: no preset named 'nope'; valid: permutation_problem",
        ),
        (["--panel", "waves", "--width", "5"], "--width must be between 64 and 16384 pixels; got 5"),
        (["--panel", "waves", "--plot", "99"], "--plot must be between 1 and"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(qtbot, capsys, tmp_path, args, expected):
    out = tmp_path / "x.png"
    rc, _, err = _run(capsys, *args, "--out", str(out))
    assert rc == 2
    line = _one_line_error(err)
    assert line.startswith("pe-explorer export: error: ")
    assert expected in line, line
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "name,text,expected",
    [
        ("truncated.json", '{"version": 1, "panels": {"waves": {"base": 10', "not valid JSON"),
        ("version.json", '{"version": 3, "panels": {}}', "unsupported state version 3"),
        ("range.json", '{"version": 1, "panels": {"waves": {"base": 1}}}', "waves: base must be at least 10"),
        ("unknown.json", '{"version": 1, "panels": {"lecture": {}}}', "unknown panel(s) lecture"),
    ],
)
def test_malformed_preset_exits_2(capsys, tmp_path, name, text, expected):
    (tmp_path / name).write_text(text)
    rc, _, err = _run(
        capsys, "--panel", "waves", "--preset", str(tmp_path / name), "--out", str(tmp_path / "o.png")
    )
    assert rc == 2
    line = _one_line_error(err)
    assert f"--preset: {name}: " in line and expected in line, line
    assert not (tmp_path / "o.png").exists()


@pytest.mark.parametrize(
    "args,expected",
    [
        (["--panel", "lab", "--out", "x.png"], "argument --panel: invalid choice: 'lab'"),
        (["--panel", "waves"], "one of the arguments --out --list-plots --python is required"),
        (
            ["--panel", "waves", "--width", "wide", "--out", "x.png"],
            "argument --width: must be a whole number, got 'wide'",
        ),
    ],
)
def test_usage_errors_exit_2(capsys, args, expected):
    with pytest.raises(SystemExit) as info:
        main(["export", *args])
    _, err = capsys.readouterr()
    assert info.value.code == 2
    assert expected in _one_line_error(err)


@pytest.mark.parametrize(
    "out,expected",
    [
        ("x.jpg", "--out must end in .png or .svg; got 'x.jpg'"),
        (
            "/nonexistent-folder/x.png",
            "cannot write /nonexistent-folder/x.png: folder /nonexistent-folder does not exist",
        ),
    ],
)
def test_bad_output_exits_2(capsys, out, expected):
    rc, _, err = _run(capsys, "--panel", "waves", "--out", out)
    assert rc == 2 and expected in _one_line_error(err)


def test_headless_in_a_fresh_process(tmp_path):
    out = tmp_path / "swap.png"
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.pop("DISPLAY", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "explorer",
            "export",
            "--panel",
            "swap",
            "--set",
            "scheme=rope",
            "--width",
            "640",
            "--out",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    assert QImage(str(out)).width() == 640
