"""Layering rules: the maths, state and jobs never import Qt; torch never loads with the window."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_linter_contracts_hold():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "import-linter is part of the test extra"
    proc = subprocess.run([exe, "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_maths_imports_neither_qt_nor_torch():
    code = ("import sys, explorer.encodings, explorer.state, explorer.jobs;"
            "from explorer import jobs; jobs._load_all();"
            "bad=[m for m in sys.modules if m.split('.')[0] in ('PySide6','pyqtgraph','superqt','torch')];"
            "print(bad)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr
