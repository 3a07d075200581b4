"""The house keeps its shape: ruff and mypy pass, every module sits in a layer, no file or class grows too big."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "explorer"
MAX_FILE_LINES = 600
MAX_CLASS_LINES = 400


def _tool(name: str) -> str:
    exe = shutil.which(name, path=str(Path(sys.executable).parent))
    assert exe, f"{name} is part of the test extra (pyproject.toml)"
    return exe


def test_ruff_passes():
    proc = subprocess.run([_tool("ruff"), "check", "--no-cache", "explorer", "tests"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


@pytest.mark.timeout(600)
def test_mypy_passes_on_the_whole_package():
    # One fresh run (no cache to go stale): about 27 s of CPU on the 2-core machine, 3 s more than the Qt-free
    # packages alone cost (PySide6's and numpy's stubs are most of it).
    proc = subprocess.run([_tool("mypy"), "--no-incremental", "--config-file", str(ROOT / "pyproject.toml")],
                          cwd=ROOT, capture_output=True, text=True, timeout=580)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_mypy_sees_every_module():
    # The check above covers the shell and the panels only while the config names the whole package and
    # nothing turns checks off for a part of it.
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert mypy["files"] == ["explorer"]
    assert "exclude" not in mypy and "disable_error_code" not in mypy
    assert mypy["check_untyped_defs"] and mypy["warn_unused_ignores"] and mypy["no_implicit_optional"]
    overrides = mypy.get("overrides", [])
    assert not [o for o in overrides if o.get("ignore_errors") or o.get("disable_error_code")], overrides


def test_every_module_is_in_the_layers_contract():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")["layers"]
    named = {m.strip() for layer in layers for m in layer.replace("|", ":").split(":")}
    modules = {f"explorer.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")}
    packages = {f"explorer.{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    missing = sorted((modules | packages) - named)
    assert not missing, f"not in any layer of the import-linter contract: {', '.join(missing)}"


def _sources():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_file_over_600_lines():
    big = {str(p.relative_to(ROOT)): n for p in _sources()
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES}
    assert not big, f"split by responsibility: {big}"


def test_no_class_over_400_lines():
    big = {}
    for p in _sources():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES:
                big[f"{p.relative_to(ROOT)}:{node.name}"] = node.end_lineno - node.lineno + 1
    assert not big, f"split by responsibility: {big}"


def test_the_size_checks_can_fail(tmp_path):
    # The AST walk above really measures classes (a guard against a check that cannot fail).
    src = "class Big:\n" + "    x = 1\n" * (MAX_CLASS_LINES + 1)
    node = next(n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ClassDef))
    assert node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES
