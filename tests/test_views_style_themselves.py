"""Views style themselves (issue 26): nothing of pyqtgraph is wrapped, replaced or stamped, the widgets import
each other without a circle, and every item of every plot has the look its plot's styler gave it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pyqtgraph as pg
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPLORER = ROOT / "explorer"
#: Names under which the code reaches other libraries' classes.
FOREIGN_ROOTS = {"pg", "pyqtgraph", "QtCore", "QtGui", "QtWidgets", "PySide6", "superqt", "shiboken6"}


def _pyqtgraph_methods() -> set[str]:
    """Names of the methods pyqtgraph defines on its graphics classes and widgets, and Qt's virtuals they
    override (painting, events, geometry): what a wrapper or a replacement would be assigned to."""
    names: set[str] = set()
    for name in dir(pg):
        cls = getattr(pg, name)
        if not (isinstance(cls, type) and issubclass(cls, (pg.GraphicsItem, pg.GraphicsView))):
            continue
        for klass in cls.__mro__:
            for attr, value in vars(klass).items():
                if attr.startswith("__") or not callable(value):
                    continue
                if klass.__module__.startswith("pyqtgraph") or attr.endswith("Event") or attr in _QT_VIRTUALS:
                    names.add(attr)
    return names


_QT_VIRTUALS = {"paint", "boundingRect", "shape", "itemChange", "sizeHint", "setGeometry"}


def _root(node) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def patches(source: str, methods: set[str]) -> list[str]:
    """Where ``source`` replaces a method of another library's class or instance, or stamps an attribute on it:
    ``setattr`` on anything but ``self`` (or ``cls`` inside ``__init_subclass__``: the class being made), writes
    into an object's ``__dict__``, assignments to attributes of
    classes reached through a foreign module (``pg.AxisItem.x = …``, or a name bound to one), a method name of
    pyqtgraph assigned on anything but ``self``, and ``_pe_`` attributes."""
    tree = ast.parse(source)
    out = []
    foreign_names: set[str] = set()
    for node in ast.walk(tree):  # names bound to a foreign class: cls = pg.AxisItem
        if isinstance(node, ast.Assign) and _root(node.value) in FOREIGN_ROOTS and \
                isinstance(node.value, ast.Attribute):
            foreign_names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    own_class = {id(call) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) and fn.name == "__init_subclass__"
                 for call in ast.walk(fn)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            first = node.args[0].id if node.args and isinstance(node.args[0], ast.Name) else None
            if not (first == "self" or (first == "cls" and id(node) in own_class)):
                out.append(f"line {node.lineno}: setattr on another object")
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) and t.value.attr == "__dict__":
                key = t.slice.value if isinstance(t.slice, ast.Constant) else None
                if not (isinstance(key, str) and key.startswith("__") and key.endswith("__")):
                    out.append(f"line {node.lineno}: writes into an object's __dict__")
            if not isinstance(t, ast.Attribute):
                continue
            root = _root(t)
            if root in FOREIGN_ROOTS or root in foreign_names:
                out.append(f"line {node.lineno}: assigns {t.attr} on a class of another library")
            elif t.attr in methods and root != "self":
                out.append(f"line {node.lineno}: replaces method {t.attr} of another object")
            if t.attr.startswith("_pe_"):
                out.append(f"line {node.lineno}: stamps {t.attr}")
    for m in re.finditer(r"""["']_pe_\w+["']""", source):
        out.append(f"line {source.count(chr(10), 0, m.start()) + 1}: names a _pe_ attribute")
    return out


@pytest.fixture(scope="module")
def methods():
    return _pyqtgraph_methods()


def test_no_method_of_another_library_is_replaced_and_nothing_is_stamped(methods):
    found = []
    for path in sorted(EXPLORER.rglob("*.py")):
        found += [f"{path.relative_to(ROOT)}: {p}" for p in patches(path.read_text(encoding="utf-8"), methods)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("bad", [
    "def wrap(item, f):\n    setattr(item, 'setPen', f)",
    "import pyqtgraph as pg\npg.AxisItem.tickSpacing = lambda *a: []",
    "import pyqtgraph as pg\ncls = pg.AxisItem\ncls.logTickValues = print",
    "def f(label, g):\n    label.__dict__['setText'] = g",
    "def f(label, g):\n    label.setText = g",
    "def f(item):\n    item._pe_memo = {}",
    "def f(item):\n    return item.__dict__.get('_pe_hooked')",
    "def f(cls):\n    setattr(cls, 'setPen', print)",  # cls outside __init_subclass__ is any class
])
def test_the_check_finds_each_kind_of_patch(methods, bad):
    assert patches(bad, methods), bad


def test_the_check_leaves_our_own_attributes_alone(methods):
    ok = ("class V:\n    def __init__(self, plot):\n        self.plot = plot\n        self.plot.hover_owned = True\n"
          "        setattr(self, 'dragging', False)\n        main.__dict__['__spec__'] = None\n"
          "    def __init_subclass__(cls, **kw):\n        setattr(cls, 'snippet', None)\n")
    assert patches(ok, methods) == []


def _imports(path: Path) -> set[str]:
    """The explorer.widgets modules ``path`` imports, anywhere in it (functions included)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:  # from .x import …
                out.add(node.module.split(".")[0])
            elif node.level == 1:
                out.update(a.name for a in node.names)
            elif node.module and node.module.startswith("explorer.widgets."):
                out.add(node.module.split(".")[2])
    return out


def test_the_widgets_import_each_other_without_a_circle():
    folder = EXPLORER / "widgets"
    graph = {p.stem: _imports(p) & {q.stem for q in folder.glob("*.py")} for p in folder.glob("*.py")}
    seen, done = [], set()

    def visit(m: str) -> None:
        if m in done:
            return
        assert m not in seen, " → ".join([*seen[seen.index(m):], m])
        seen.append(m)
        for n in sorted(graph.get(m, ())):
            visit(n)
        seen.pop()
        done.add(m)

    for module in sorted(graph):
        visit(module)


def _every_plot(win, qtbot):
    """Every plot of the window, each panel's every view built and drawn (the walk of the colour test)."""
    from test_colour_meaning import _walk

    from explorer.widgets.plots import Plot

    for _where, _plot in _walk(win, qtbot):
        pass
    return [(p, f"{p.objectName() or p.title() or type(p).__name__}") for p in win.findChildren(Plot)]


def test_every_item_of_every_plot_has_its_styler_look(qtbot, main_window):
    """Dark presenter, every panel and tab drawn, then every lecture scene (new pairs, schemes, lengths): each
    item was added through its plot, and no view changed a pen or a text colour behind its plot's styler (the
    item would keep the light theme's look)."""
    from explorer import presets as pr

    win = main_window
    win.resize(1920, 1080)
    qtbot.waitUntil(lambda: win.all_drawn, timeout=60000)
    win.acts["actDark"].trigger()
    win.look.set_presenter(True)
    try:
        plots = _every_plot(win, qtbot)
        for scene in pr.builtin_presets():
            assert win.session.apply_preset(scene)
            qtbot.waitUntil(lambda s=scene: win.panels[s.panel].has_drawn and win.service.idle(), timeout=60000)
        win.session.leave_scene()
        problems = [f"{name}: {p}" for plot, name in plots for p in plot.styler.drifted(plot.scene())]
        assert len(plots) >= 30
        assert not problems, "\n".join(problems)
    finally:
        win.look.set_presenter(False)
        win.acts["actDark"].trigger()


def test_the_look_check_sees_a_pen_set_behind_the_styler(qtbot):
    from explorer.theme import DARK
    from explorer.widgets.plots import Plot
    from explorer.widgets.theming import theme_bus

    theme_bus().set_look(DARK)
    plot = Plot("t")
    qtbot.addWidget(plot)
    curve = plot.plot([0, 1], [1, 0], pen=pg.mkPen("#202020", width=2))
    assert plot.styler.drifted(plot.scene()) == []
    curve.setPen(pg.mkPen("#202020", width=2))  # the light pen, set directly: dark would draw it dark
    assert plot.styler.drifted(plot.scene()) == ["PlotDataItem: pen changed directly"]
    plot.styler.set_pen(curve, pg.mkPen("#202020", width=2))
    assert plot.styler.drifted(plot.scene()) == []
    stray = pg.InfiniteLine(0.5)
    plot.getPlotItem().getViewBox().addItem(stray)  # not through the plot: never styled
    assert plot.styler.drifted(plot.scene()) == ["InfiniteLine: not adopted"]


def test_a_fixed_axis_width_grows_with_the_text_whenever_it_is_given(qtbot):
    """A view lines plots up with a fixed axis width at zoom 1; given in presenter mode it is scaled at once."""
    from explorer.theme import LIGHT, PRESENTER_LIGHT
    from explorer.widgets.plots import Plot
    from explorer.widgets.theming import theme_bus

    theme_bus().set_look(PRESENTER_LIGHT)
    plot = Plot("t")
    qtbot.addWidget(plot)
    axis = plot.getPlotItem().getAxis("left")
    axis.setWidth(60)
    assert axis.fixedWidth == round(60 * PRESENTER_LIGHT.font_scale)
    theme_bus().set_look(LIGHT)
    assert axis.fixedWidth == 60
