"""What the window path imports (counts, never times): superqt without its package __init__, qtpy
without its star imports, no pygments, no importlib.metadata; the deferred packages still work."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _run(code: str) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_window_path_leaves_out_superqts_package_pygments_qtpys_star_imports_and_metadata():
    got = _run(
        "import json, sys\n"
        "import explorer.app, explorer.main_window\n"
        "m = sys.modules\n"
        "print(json.dumps({'pygments': 'pygments' in m, 'collapsible': 'superqt.collapsible' in m,"
        " 'combobox': 'superqt.combobox' in m, 'metadata': 'importlib.metadata' in m,"
        " 'qtpy_widgets': type(m.get('qtpy.QtWidgets')).__name__, 'sliders': 'superqt.sliders._labeled' in m,"
        " 'torch': 'torch' in m, 'exporters': 'pyqtgraph.exporters' in m}))"
    )
    assert got == {"pygments": False, "collapsible": False, "combobox": False, "metadata": False,
                   "qtpy_widgets": "_QtpyProxy", "sliders": True, "torch": False, "exporters": False}


def test_superqt_and_qtpy_still_work_whole_after_the_light_import():
    got = _run(
        "import json, sys\n"
        "from explorer.widgets.superqt_lite import QLabeledSlider\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "s = QLabeledSlider(); s.setRange(0, 10); s.setValue(7)\n"
        "import superqt\n"
        "from superqt import QCollapsible, QEnumComboBox\n"
        "from superqt.utils import qthrottled, signals_blocked\n"
        "ns = {}\n"
        "exec('from qtpy.QtWidgets import *', ns)\n"
        "from qtpy import QT_VERSION\n"
        "from qtpy.QtCore import Signal\n"
        "c = QCollapsible()\n"
        "print(json.dumps({'value': s.value(), 'version': superqt.__version__ != 'unknown',"
        " 'star': 'QWidget' in ns, 'qt': bool(QT_VERSION), 'same_signals_blocked':"
        " signals_blocked is sys.modules['explorer.widgets.superqt_lite'].signals_blocked}))"
    )
    assert got == {"value": 7, "version": True, "star": True, "qt": True, "same_signals_blocked": True}


def test_every_superqt_import_in_the_app_goes_through_superqt_lite():
    offenders = []
    for path in (ROOT / "explorer").rglob("*.py"):
        if path.name == "superqt_lite.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            # Private submodules (superqt.sliders._x) are fine once superqt_lite is imported; the
            # package and superqt.utils are not.
            if re.match(r"\s*(from superqt(\.utils)? import|import superqt\s*$|import superqt\.utils\b)", line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []


def test_opening_the_app_parses_its_options_without_importing_the_commands():
    got = _run(
        "import json, sys\n"
        "from explorer.cli import app_args\n"
        "a = app_args(['--panel', 'swap', '--reset-layout', '--screenshot=x.png'])\n"
        "others = [app_args(v) for v in (['data', 'sinusoidal'], ['-h'], ['--bogus'], ['--panel'], ['bench'])]\n"
        "print(json.dumps({'panel': a.panel, 'shot': a.screenshot, 'command': a.command, 'reset': a.reset_layout,"
        " 'others': [o is None for o in others],"
        " 'commands_imported': sorted(n for n in sys.modules if n.startswith('explorer.commands'))}))"
    )
    assert got == {"panel": "swap", "shot": "x.png", "command": None, "reset": True, "others": [True] * 5,
                   "commands_imported": []}
