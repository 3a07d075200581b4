"""What the app imports (counts, never times), and how it uses other packages: only through their public API.

The window path and every panel import no superqt, qtpy or pygments (the app owns its few small widgets:
explorer/widgets/sliders.py, flow_layout.py), no torch and no importlib.metadata; no module of explorer/
writes ``sys.modules`` or imports a private (``_``-prefixed) module of another package.
"""

from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: Packages the app no longer uses (superqt's sliders and flow layout became its own widgets).
NOT_USED = ("superqt", "qtpy", "pygments")


def _run(code: str) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_window_path_and_the_panels_import_no_superqt_qtpy_pygments_torch_or_metadata():
    got = _run(
        "import json, sys\n"
        "import explorer.app, explorer.main_window\n"
        "m = sys.modules\n"
        "window = {'torch': 'torch' in m, 'exporters': 'pyqtgraph.exporters' in m,"
        " 'metadata': 'importlib.metadata' in m}\n"
        "from explorer.panels import PANELS, load_panel_class\n"
        "for _pid, _title, spec in PANELS:\n"
        "    load_panel_class(spec)\n"
        f"unused = sorted({{n.split('.')[0] for n in m}} & set({NOT_USED!r}))\n"
        "print(json.dumps({'window': window, 'unused': unused}))"
    )
    assert got == {"window": {"torch": False, "exporters": False, "metadata": False}, "unused": []}


# -- how explorer/ uses other packages: read from its source ---------------------------------------------
def _is_private(dotted: str) -> bool:
    """A name with a ``_x`` part (dunder names such as ``__future__`` are not private)."""
    return any(p.startswith("_") and not p.startswith("__") for p in dotted.split("."))


def _is_sys_modules(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "modules" and isinstance(node.value, ast.Name)
            and node.value.id == "sys")


def foreign_use_problems(source: str, where: str = "<source>") -> list[str]:
    """Imports of another package's private modules (or names), imports of packages the app does not use,
    and writes to ``sys.modules``, in ``source``."""
    problems: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        imported: list[str] = []
        if isinstance(node, ast.Import):
            imported = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__")):
            imported = [node.args[0].value]
        foreign = [n for n in imported if n.split(".")[0] != "explorer"]
        private = [n for n in foreign if _is_private(n)]
        if private:
            problems.append((line, f"imports the private {private[0]}"))
        if any(n.split(".")[0] in NOT_USED for n in foreign):
            problems.append((line, f"imports {foreign[0]}"))
        targets: list[ast.AST] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        if any(isinstance(t, ast.Subscript) and _is_sys_modules(t.value) for t in targets):
            problems.append((line, "writes sys.modules"))
        if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Subscript) and _is_sys_modules(t.value.value)
               for t in targets):
            problems.append((line, "sets an attribute of a module in sys.modules"))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_sys_modules(node.func.value)
                and node.func.attr in ("update", "setdefault", "pop", "popitem", "clear", "__setitem__",
                                       "__delitem__")):
            problems.append((line, f"writes sys.modules ({node.func.attr})"))
    return [f"{where}:{n}: {what}" for n, what in sorted(problems, key=lambda p: p[0])]


def test_no_module_of_explorer_writes_sys_modules_or_imports_a_private_module_of_another_package():
    problems = []
    for path in sorted((ROOT / "explorer").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        problems += foreign_use_problems(path.read_text(encoding="utf-8"), where)
    assert problems == []


def test_the_source_check_finds_each_kind_of_problem():
    bad = (
        "import sys, importlib\n"
        "from superqt.sliders._labeled import SliderLabel\n"
        "from pyqtgraph.graphicsItems import _private\n"
        "import numpy._core\n"
        "importlib.import_module('superqt.utils._misc')\n"
        "sys.modules['superqt'] = object()\n"
        "sys.modules.setdefault('qtpy.QtCore', None)\n"
        "del sys.modules['x']\n"
        "from qtpy.QtCore import Signal\n"
        "sys.modules['superqt.utils'].signals_blocked = None\n"
    )
    found = foreign_use_problems(bad)
    assert [p.split(":")[1] for p in found] == ["2", "2", "3", "4", "5", "5", "6", "7", "8", "9", "10"], found
    fine = ("from __future__ import annotations\nimport sys\nfrom ._helpers import _x\n"
            "from explorer.widgets import _private\nprint(sys.modules.get('torch'), 'superqt' in sys.modules)\n")
    assert foreign_use_problems(fine) == []


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
