"""What leaves the app is what is shown (issue 27, item 4): every route of export — the Export menu, its shortcut,
headless ``export --preset`` and ``--scene`` — writes the scene's panel, tab and plot in focus (``export --preset
"Relative position as rotation" --slide 1080`` wrote the table tab); the Token-swap slide keeps its Before row; a
plot exported alone carries its key; SVG clips every item to its plot; a slide's text is readable on a projector.

Every picture names the plots it shows (PNG text "Plots", SVG ``<desc>``): the tests read that list, and check
the pictures themselves where the list could not tell (sizes, text sizes, clip paths)."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QMenu

from explorer.cli import main
from explorer.commands.export import LAYOUT_HEIGHT, LAYOUT_WIDTH
from explorer.export import slide as sl

SVG = "{http://www.w3.org/2000/svg}"
#: The plots of the Waves panel's "Relative position" tab, which scene 3 opens (the table tab has heatmap, waves,
#: spectrum).
ROTATION_TAB = {"rotation", "vector", "similarity", "matrix"}
#: What scene 3 puts on the stage: the rotation, in focus.
SCENE_3 = {"rotation"}


def _plots_png(path) -> list[str]:
    text = QImage(str(path)).text("Plots")
    return [p for p in text.split(", ") if p]


def _plots_svg(path) -> list[str]:
    desc = ET.parse(str(path)).getroot().find(SVG + "desc")
    text = (desc.text or "") if desc is not None else ""
    return [p for p in text.partition("Plots: ")[2].split(", ") if p]


def _export(capsys, tmp_path, name, *args) -> str:
    out = tmp_path / name
    rc = main(["export", *args, "--out", str(out)])
    assert rc == 0, capsys.readouterr().err
    return str(out)


# -- headless: --preset and --scene ----------------------------------------------------------------------------------
def test_the_issues_command_exports_the_rotation_tab_not_the_table(qtbot, tmp_path, capsys):
    out = _export(capsys, tmp_path, "slide.png", "--preset", "Relative position as rotation", "--slide", "1080")
    assert set(_plots_png(out)) == SCENE_3
    img = QImage(out)
    assert (img.width(), img.height()) == (1920, 1080)


def test_a_scene_without_a_plot_in_focus_exports_its_whole_tab(qtbot, tmp_path, capsys):
    """Scene 3 with its focus taken out: the Relative-position tab, every plot of it, not the table tab."""
    from explorer.presets import find_scene

    data = json.loads(find_scene("3").path.read_text(encoding="utf-8"))
    data.pop("layout", None)
    data["title"] = "Rotation tab"
    path = tmp_path / "tab.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = _export(capsys, tmp_path, "tab.png", "--preset", str(path))
    assert set(_plots_png(out)) == ROTATION_TAB


@pytest.mark.parametrize("ref", ["3", "relative-position-as-rotation", "Relative position as rotation"])
def test_a_scene_by_number_or_name_is_exported_with_its_panel_and_tab(qtbot, tmp_path, capsys, ref):
    out = _export(capsys, tmp_path, "scene.svg", "--scene", ref)
    assert set(_plots_svg(out)) == SCENE_3


def test_a_headless_export_leaves_no_widget_for_the_interpreters_exit(qtbot, tmp_path, capsys):
    """Scene 6 (the Schemes panel, some schemes shown): once the image is written the panel and every plot of it
    are deleted.  Left as windows, PySide deleted them at the interpreter's exit, and a plot's scene torn down
    then crashed the process after the image was written (exit 139, 1 run in 2)."""
    def windows() -> set[int]:  # the widgets of no parent (menus aside: pyqtgraph's are made so), by C++ address
        return {shiboken6.getCppPointer(w)[0] for w in QApplication.topLevelWidgets()
                if w.parent() is None and not isinstance(w, QMenu)}

    before = windows()
    _export(capsys, tmp_path, "scene6.png", "--scene", "6")
    assert windows() - before == set()


def test_scene_arguments_that_make_no_sense_exit_2_with_one_line(qtbot, tmp_path, capsys):
    for args in (["--scene", "9"], ["--scene", "no such scene"], ["--scene", "1", "--preset", "permutation"], []):
        try:
            rc = main(["export", *args, "--out", str(tmp_path / "x.png")])
        except SystemExit as exc:  # argparse's own refusals
            rc = exc.code
        assert rc == 2, args
        err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
        assert err and "Traceback" not in "\n".join(err)
        assert len(err) <= 3, err  # argparse prints its usage lines before the one that says what is wrong
    assert not list(tmp_path.iterdir())


def test_another_panel_takes_only_the_scenes_numbers(qtbot, tmp_path, capsys):
    out = _export(capsys, tmp_path, "swap.png", "--scene", "3", "--panel", "swap")
    assert "before-map" in _plots_png(out)


def _focus_preset(tmp_path) -> str:
    path = tmp_path / "focus.json"
    path.write_text(json.dumps({"version": 2, "title": "The spectrum alone", "panel": "waves", "view": "table",
                                "layout": {"focus": "spectrum"}, "panels": {}}), encoding="utf-8")
    return str(path)


def test_a_scenes_plot_in_focus_is_what_a_headless_export_writes(qtbot, tmp_path, capsys):
    preset = _focus_preset(tmp_path)
    panel = _export(capsys, tmp_path, "panel.png", "--preset", preset)
    assert _plots_png(panel) == ["spectrum"]
    img = QImage(panel)  # laid out as it fills the stage: at the panel's size, not its small tile
    assert img.width() == LAYOUT_WIDTH and img.height() > LAYOUT_HEIGHT * 0.8
    slide = _export(capsys, tmp_path, "slide.png", "--preset", preset, "--slide", "1080")
    assert _plots_png(slide) == ["spectrum"]
    svg = _export(capsys, tmp_path, "plot.svg", "--preset", preset)
    assert _plots_svg(svg) == ["spectrum"]
    other = _export(capsys, tmp_path, "waves.png", "--preset", preset, "--plot", "waves")  # asked for: that one
    assert _plots_png(other) == ["waves"]


# -- the window: menu and shortcut, compared with headless ---------------------------------------------------------
def _saving(win, path):
    def ask(_title, _default, _ext):
        return str(path)

    win.exporter.ask_save_path = ask


def _press_ctrl_e(qtbot, win) -> None:
    """Export → Panel by its shortcut, as a lecturer presses it (the keyboard on the window, no control)."""
    assert any(s.toString() == "Ctrl+E" for s in win.acts["actExportPanel"].shortcuts())
    focused = win.focusWidget()
    if focused is not None:
        focused.clearFocus()
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)
    win.setFocus()
    qtbot.keyClick(win, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)


def test_the_window_and_the_headless_export_of_a_scene_show_the_same_plots(qtbot, main_window, tmp_path, capsys):
    from explorer.presets import find_scene

    win = main_window
    assert win.session.apply_preset(find_scene("3"))
    qtbot.waitUntil(lambda: not win.panels["waves"].waiting, timeout=60000)
    shortcut = tmp_path / "shortcut.png"
    _saving(win, shortcut)
    _press_ctrl_e(qtbot, win)
    slide_png = tmp_path / "slide.png"
    _saving(win, slide_png)
    win.exports.fill_menu(win.menus["Export"])
    (slide,) = win.menus["Export"].findChildren(QMenu, "peSlideMenu", Qt.FindChildOption.FindDirectChildrenOnly)
    next(a for a in slide.actions() if a.text().startswith("PNG")).trigger()
    headless = _export(capsys, tmp_path, "headless.png", "--scene", "3")
    assert set(_plots_png(shortcut)) == set(_plots_png(slide_png)) == set(_plots_png(headless)) == SCENE_3
    qtbot.waitUntil(win.service.idle, timeout=60000)


def test_with_a_plot_in_focus_the_menu_shortcut_and_slide_export_that_plot(qtbot, main_window, tmp_path, capsys):
    from explorer.presets import load_preset

    win = main_window
    assert win.session.apply_preset(load_preset(_focus_preset(tmp_path)))
    assert win.stage.now().plot == "spectrum"
    names = {}
    for route in ("shortcut", "slide", "menu svg"):
        path = tmp_path / f"{route}.{'svg' if 'svg' in route else 'png'}"
        _saving(win, path)
        win.exports.fill_menu(win.menus["Export"])
        if route == "shortcut":
            _press_ctrl_e(qtbot, win)
        elif route == "slide":
            (sub,) = win.menus["Export"].findChildren(QMenu, "peSlideMenu", Qt.FindChildOption.FindDirectChildrenOnly)
            next(a for a in sub.actions() if a.text().startswith("PNG")).trigger()
        else:
            panel_menu = next(m for m in win.menus["Export"].findChildren(
                QMenu, options=Qt.FindChildOption.FindDirectChildrenOnly) if m.title().startswith("Panel"))
            next(a for a in panel_menu.actions() if a.text().startswith("SVG")).trigger()
        names[route] = _plots_svg(path) if path.suffix == ".svg" else _plots_png(path)
    headless = _export(capsys, tmp_path, "headless.png", "--preset", _focus_preset(tmp_path))
    assert names == {"shortcut": ["spectrum"], "slide": ["spectrum"], "menu svg": ["spectrum"]}
    assert _plots_png(headless) == ["spectrum"]
    win.acts["actBack"].trigger()
    qtbot.waitUntil(win.service.idle, timeout=60000)


# -- the Token-swap slide ------------------------------------------------------------------------------------------
def test_the_swap_slide_keeps_the_sentence_before_the_swap(qtbot, main_window):
    """The slide dropped the chips (they are buttons) and with them the "Before" label: it began with an orphan
    "After" row."""
    from PySide6.QtWidgets import QLabel

    win = main_window
    win.show_panel("swap")
    panel = win.panels["swap"]
    hidden = set(sl.slide_hidden(panel))
    before = next(w for w in panel.findChildren(QLabel) if w.text() == "<b>Before</b>")
    after = next(w for w in panel.findChildren(QLabel) if w.text() == "<b>After</b>")
    assert panel.chips_area not in hidden and before not in hidden and after not in hidden
    assert panel.swap_button in hidden and panel.undo_button in hidden and panel.sentence_edit in hidden
    qtbot.waitUntil(win.service.idle, timeout=60000)


# -- a plot alone carries its key ----------------------------------------------------------------------------------
def _distance_preset(tmp_path) -> str:
    """Scene 6 (RoPE and scaled RoPE, beyond L_train: hatched) on the Score-vs-distance tab, at an eighth of its
    lengths (what is drawn is the same; every curve at L = 32,768 cost each export 20 s)."""
    from explorer.presets import find_scene

    data = json.loads(find_scene("6").path.read_text(encoding="utf-8"))
    data.update(view="distance", title="Distance")
    data["panels"]["schemes"].update(l_train=512, l_eval=4096)
    data.pop("layout", None)  # the scene's own plot in focus is on another tab
    path = tmp_path / "distance.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_plot_exported_alone_carries_its_key(qtbot, tmp_path, capsys):
    """The distance plot's key is a label above it in the panel (its legend of fifteen entries was cut); exported
    alone, the plot named none of its curves."""
    preset = _distance_preset(tmp_path)
    svg = _export(capsys, tmp_path, "top.svg", "--preset", preset, "--plot", "distance-top")
    texts = " ".join((t.text or "") for t in ET.parse(svg).getroot().iter(SVG + "text")).replace("\xa0", " ")
    assert "RoPE" in texts and "Scaled RoPE" in texts, texts
    png = _export(capsys, tmp_path, "top.png", "--preset", preset, "--plot", "distance-top")
    assert _plots_png(png) == ["distance-top"]


# -- SVG clips every item to its plot ------------------------------------------------------------------------------
def _matrix(text: str | None) -> tuple:
    m = re.match(r"\s*(matrix|translate)\(([^)]*)\)", text or "")
    if not m:
        return (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    v = [float(x) for x in re.split(r"[\s,]+", m.group(2).strip())]
    return tuple(v) if m.group(1) == "matrix" else (1.0, 0.0, 0.0, 1.0, v[0], v[1] if len(v) > 1 else 0.0)


def _times(m, n) -> tuple:
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2,
            a * e2 + c * f2 + e, b * e2 + d * f2 + f)


def _box(m, clip) -> tuple:
    nums = [float(v) for el in clip for v in re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?",
                                                          " ".join(el.get(k, "") for k in ("d", "points")).strip() or
                                                          f"{el.get('x')} {el.get('y')} "
                                                          f"{float(el.get('x')) + float(el.get('width'))} "
                                                          f"{float(el.get('y')) + float(el.get('height'))}")]
    a, b, c, d, e, f = m
    pts = [(a * x + c * y + e, b * x + d * y + f) for x, y in zip(nums[::2], nums[1::2], strict=False)]
    return min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts)


def _hatch_clips(data: bytes) -> list:
    """For every shape filled with a texture pattern (the hatching), the box it is clipped to (None: not clipped)."""
    root = ET.fromstring(data)
    clips = {c.get("id"): c for c in root.iter(SVG + "clipPath")}
    out = []

    def walk(el, m, clip):
        m = _times(m, _matrix(el.get("transform")))
        ref = re.match(r"^url\(#([^)]+)\)$", el.get("clip-path", ""))
        if ref and ref.group(1) in clips:
            box = _box(m, clips[ref.group(1)])
            clip = box if clip is None else (max(clip[0], box[0]), max(clip[1], box[1]),
                                             min(clip[2], box[2]), min(clip[3], box[3]))
        if el.get("fill", "").startswith("url(#") and "pattern" in el.get("fill") and el.tag == SVG + "g":
            out.append(clip)
        for child in el:
            walk(child, m, clip)

    walk(root, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), None)
    return out


def test_a_panels_svg_clips_the_hatching_to_its_plots(qtbot, tmp_path, capsys, monkeypatch):
    """Whole-panel SVGs let the hatching spill over the legend, the tab bar and the formula strip: no clip reached
    the file.  Every hatched shape must be clipped to a box inside one of the plots' drawing areas."""
    import pyqtgraph as pg
    from PySide6.QtCore import QPoint

    from explorer.export import images

    boxes = []
    original = images.widget_svg

    def spy(widget, **kw):
        for v in widget.findChildren(pg.PlotWidget):
            if v.isVisibleTo(widget):
                r = v.mapFromScene(v.getPlotItem().getViewBox().sceneBoundingRect()).boundingRect()
                at = v.mapTo(widget, QPoint(0, 0))
                boxes.append((at.x() + r.left(), at.y() + r.top(), at.x() + r.right() + 1, at.y() + r.bottom() + 1))
        return original(widget, **kw)

    monkeypatch.setattr(images, "widget_svg", spy)
    out = _export(capsys, tmp_path, "panel.svg", "--preset", _distance_preset(tmp_path))
    assert boxes
    clips = _hatch_clips(Path(out).read_bytes())
    assert clips, "no hatching in the distance view"
    for clip in clips:
        assert clip is not None, "a hatched shape is not clipped"
        assert any(clip[0] >= b[0] - 2 and clip[1] >= b[1] - 2 and clip[2] <= b[2] + 2 and clip[3] <= b[3] + 2
                   for b in boxes), (clip, boxes)


# -- slides are readable on a projector ---------------------------------------------------------------------------
def _text_sizes(data: bytes, width: int) -> list[tuple[float, str]]:
    """(pixel size on a picture ``width`` wide, text) of every text in an SVG."""
    root = ET.fromstring(data)
    k = width / float(root.get("viewBox").split()[2])
    out = []

    def walk(el, scale):
        a, b, c, d, _e, _f = _matrix(el.get("transform"))
        scale *= math.sqrt(abs(a * d - b * c))
        if el.tag == SVG + "text" and (el.text or "").strip():
            out.append((float(el.get("font-size")) * scale * k, el.text.strip()))
        for child in el:
            walk(child, scale)

    walk(root, 1.0)
    return out


@pytest.mark.parametrize(("panel", "theme"), [("waves", "light"), ("swap", "light"), ("schemes", "light"),
                                              ("swap", "presenter"), ("schemes", "dark")])
def test_a_default_slide_has_no_small_text(qtbot, tmp_path, capsys, panel, theme):
    """A light-theme 1920-px slide had ~11 px text (the panel laid out at 1920 × 1080 and drawn 1:1).  Body text,
    tick labels and axis titles must be at least MIN_TEXT_PX on a 1080 slide; sub- and superscripts (2/3 of
    their line) at least 2/3 of that."""
    out = _export(capsys, tmp_path, "slide.svg", "--panel", panel, "--slide", "1080", "--theme", theme)
    sizes = _text_sizes(Path(out).read_bytes(), 1920)
    assert len(sizes) > 20
    small = [(round(s, 1), t) for s, t in sizes if s < sl.MIN_TEXT_PX * 2 / 3]
    assert not small, small
    chars = sum(len(t) for _s, t in sizes)
    readable = sum(len(t) for s, t in sizes if s >= sl.MIN_TEXT_PX - 0.01)
    assert readable / chars > 0.9, sorted(sizes)[:20]


def test_a_scenes_plot_ranges_are_set_headless(qtbot, tmp_path, capsys, monkeypatch):
    """A scene's ``layout.ranges`` zoom a plot in the window; the headless export zooms it the same way."""
    import explorer.export as ex

    seen = {}
    original = ex.export_view_to_file

    def spy(view, path, **kw):
        seen["x"] = view.getPlotItem().viewRange()[0]
        return original(view, path, **kw)

    monkeypatch.setattr(ex, "export_view_to_file", spy)
    path = tmp_path / "zoom.json"
    path.write_text(json.dumps({"version": 2, "title": "Zoomed", "panel": "waves", "view": "table",
                                "layout": {"ranges": {"spectrum": {"x": [2, 9]}}}, "panels": {}}), encoding="utf-8")
    _export(capsys, tmp_path, "spectrum.png", "--preset", str(path), "--plot", "spectrum")
    assert seen["x"] == pytest.approx([2, 9], abs=1e-6)


# -- an export taken in the same turn as a change -------------------------------------------------------------------
def test_an_export_in_the_same_turn_as_a_change_draws_its_labels_placed(qtbot):
    """The plot's labels are placed on the event loop's next turn after a change; an export taken before that
    turn (a script, a shortcut held down) drew two labels on top of each other."""
    import pyqtgraph as pg

    from explorer.export.images import Look, export_look
    from explorer.widgets.plots import make_plot

    pw = make_plot("Two marks", x="x", y="y")
    qtbot.addWidget(pw)
    pw.resize(480, 320)
    pw.show()
    qtbot.waitExposed(pw)
    pi = pw.getPlotItem()
    pi.setXRange(0, 1, padding=0)
    pi.setYRange(0, 1, padding=0)
    qtbot.wait(40)

    def rects():
        return [line.label.sceneBoundingRect() for line in lines]

    lines = [pg.InfiniteLine(0.5 + 0.01 * k, angle=90, label=f"mark number {k}", labelOpts={"position": 0.8})
             for k in range(2)]
    for line in lines:
        pi.addItem(line)
    qtbot.waitUntil(lambda: not rects()[0].intersects(rects()[1]), timeout=3000)  # placed apart
    for line in lines:  # where pyqtgraph puts them: on top of each other
        line.label.setPosition(0.8)
    pi.setXRange(0, 1.01, padding=0)  # a change: the placer is due on the next turn
    assert pi.annotations._pending and rects()[0].intersects(rects()[1])  # due, not yet placed
    with export_look(pw, Look()):
        first, second = rects()
        assert not first.intersects(second)
