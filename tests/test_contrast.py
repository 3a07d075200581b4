"""Themes pass a contrast check a hall can see: slider track, handle, focus ring and text ≥ 3:1 (WCAG 1.4.11).

Measured on rendered pixels of a real slider and value box in every screen theme, not on constants.
"""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QSlider, QSpinBox, QVBoxLayout, QWidget

from explorer.theme import screen_theme
from explorer.widgets.styling import style_widgets

THEMES = [("light", False), ("dark", False), ("light", True), ("dark", True)]


def luminance(c: QColor) -> float:
    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF())


def contrast(a: QColor, b: QColor) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _best(img, points, bg: QColor) -> float:
    """The strongest contrast against ``bg`` among the pixels at ``points`` (the drawn part, not its edge)."""
    return max(contrast(img.pixelColor(x, y), bg) for x, y in points)


@pytest.mark.parametrize(("base", "presenter"), THEMES)
def test_slider_and_value_box_stand_out_from_the_window(qtbot, base, presenter):
    theme = screen_theme(base, presenter=presenter)
    root = QWidget()
    qtbot.addWidget(root)
    lay = QVBoxLayout(root)
    slider = QSlider(Qt.Orientation.Horizontal)
    slider.setRange(0, 100)
    slider.setValue(25)
    spin = QSpinBox()
    lay.addWidget(slider)
    lay.addWidget(spin)
    root.resize(320, 90)
    style_widgets(root, theme, ui_pt=10.0)
    root.show()
    qtbot.waitExposed(root)
    img = root.grab().toImage()
    bg = img.pixelColor(2, 2)
    assert contrast(bg, QColor(theme.panel_background)) < 1.05  # the corner really is the window colour
    g = slider.geometry()
    y = g.center().y()
    # Track right of the handle, filled part left of it, the handle itself.
    track = [(x, yy) for x in range(g.x() + int(g.width() * 0.6), g.right() - 10, 3) for yy in (y - 1, y, y + 1)]
    fill = [(x, yy) for x in range(g.x() + 8, g.x() + int(g.width() * 0.15), 2) for yy in (y - 1, y, y + 1)]
    handle_x = g.x() + int(g.width() * 0.25)
    handle = [(x, yy) for x in range(handle_x - 14, handle_x + 14) for yy in range(y - 8, y + 9)]
    assert _best(img, track, bg) >= 3.0, "slider track"
    assert _best(img, fill, bg) >= 3.0, "slider fill"
    assert _best(img, handle, bg) >= 3.0, "slider handle"
    s = spin.geometry()
    border = [(s.x() + k, s.y()) for k in range(4, s.width() - 20)] + [(s.x(), s.y() + k) for k in range(3, 10)]
    border += [(x, y + 1) for x, y in border]
    assert _best(img, border, bg) >= 3.0, "value box border"
    # Text in the value box against its own field.
    assert contrast(QColor(theme.panel_text), bg) >= 4.5


@pytest.mark.parametrize(("base", "presenter"), THEMES)
def test_focus_ring_stands_out(qtbot, base, presenter):
    theme = screen_theme(base, presenter=presenter)
    root = QWidget()
    qtbot.addWidget(root)
    lay = QVBoxLayout(root)
    spin = QSpinBox()
    lay.addWidget(spin)
    root.resize(200, 50)
    style_widgets(root, theme, ui_pt=10.0)
    root.show()
    qtbot.waitExposed(root)
    root.activateWindow()
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=2000)
    img = root.grab().toImage()
    bg = img.pixelColor(1, 1)
    s = spin.geometry()
    ring = [(s.x() + k, s.y() + d) for k in range(4, s.width() - 20) for d in (0, 1)]
    assert _best(img, ring, bg) >= 3.0


def _shown(qtbot, widget, theme, size=(260, 60)):
    root = QWidget()
    qtbot.addWidget(root)
    QVBoxLayout(root).addWidget(widget)
    root.resize(*size)
    style_widgets(root, theme, ui_pt=10.0)
    root.show()
    qtbot.waitExposed(root)
    return root


def _indicator_ring(box, root):
    """The pixels on the edge of a check box's square (in ``root``'s coordinates)."""
    from PySide6.QtWidgets import QStyle, QStyleOptionButton

    opt = QStyleOptionButton()
    box.initStyleOption(opt)
    r = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, opt, box).translated(box.pos())
    return [(x, y) for x in range(r.left(), r.right() + 1) for y in (r.top(), r.top() + 1, r.bottom() - 1, r.bottom())]


@pytest.mark.parametrize(("base", "presenter"), THEMES)
def test_check_box_square_stands_out(qtbot, base, presenter):
    """Dark theme's check-box squares were near-invisible (Fusion: field colour, border a shade off the window)."""
    from PySide6.QtWidgets import QCheckBox

    theme = screen_theme(base, presenter=presenter)
    box = QCheckBox("Causal mask")
    root = _shown(qtbot, box, theme)
    img = root.grab().toImage()
    bg = img.pixelColor(1, 1)
    assert _best(img, _indicator_ring(box, root), bg) >= 3.0


@pytest.mark.parametrize(("base", "presenter"), THEMES)
def test_check_box_focus_ring_stands_out(qtbot, base, presenter):
    from PySide6.QtWidgets import QCheckBox

    theme = screen_theme(base, presenter=presenter)
    box = QCheckBox("Causal mask")
    root = _shown(qtbot, box, theme)
    root.activateWindow()
    box.setFocus()
    qtbot.waitUntil(box.hasFocus, timeout=2000)
    img = root.grab().toImage()
    bg = img.pixelColor(1, 1)
    from explorer.theme import control_colours

    focus = QColor(control_colours(theme)["focus"])
    ring = _indicator_ring(box, root)
    assert any(contrast(img.pixelColor(x, y), focus) < 1.1 for x, y in ring), "the focus colour is drawn"
    assert contrast(focus, bg) >= 3.0


@pytest.mark.parametrize(("base", "presenter"), THEMES)
def test_labelled_slider_value_is_readable(qtbot, base, presenter):
    """A labelled slider's value (Token swap's α) was dark grey on a dark window: its box kept the light palette
    it was polished with.  Measured: the text's strongest pixel against the window."""
    from explorer.widgets.sliders import LabeledFloatSlider

    theme = screen_theme(base, presenter=presenter)
    slider = LabeledFloatSlider()
    slider.setRange(0.0, 3.0)
    slider.setValue(1.0)
    root = _shown(qtbot, slider, theme, size=(320, 60))
    # The palette changes after the box was polished (the window switches theme): the case the app meets.
    other = screen_theme("dark" if base == "light" else "light", presenter=presenter)
    style_widgets(root, other, ui_pt=10.0)
    style_widgets(root, theme, ui_pt=10.0)
    qtbot.wait(10)
    img = root.grab().toImage()
    bg = img.pixelColor(1, 1)
    label = slider.line_edit()
    g = label.geometry().translated(label.parentWidget().mapTo(root, label.parentWidget().rect().topLeft()))
    pts = [(x, y) for x in range(g.left(), g.right()) for y in range(g.top(), g.bottom())]
    assert _best(img, pts, bg) >= 4.5


_MASK_THEMES = ["light", "dark", "presenter-light", "presenter-dark", "print", "light+safe", "dark+safe"]


def _theme(name: str):
    from explorer.theme import ALL_THEMES

    base, _, safe = name.partition("+")
    t = ALL_THEMES[base]
    return t.with_safe_maps() if safe else t


def _lab(c: QColor) -> tuple[float, float, float]:
    import numpy as np

    from explorer.theme import cielab_lightness

    return float(cielab_lightness(np.array([c.red(), c.green(), c.blue()]))), c.hueF(), c.saturationF()


@pytest.mark.parametrize("name", _MASK_THEMES)
def test_masked_cells_never_look_like_zero(qtbot, name):
    """NoPE's score matrix is all zeros; under the causal mask it must not read as one field (print: zero is the
    grey of CET-D7, and the mask was grey).  Rendered: a zero cell against a masked cell, CIELAB lightness."""
    import numpy as np

    from explorer.panels.schemes.items import FutureMask
    from explorer.theme import mask_colour
    from explorer.widgets.plots import Heatmap
    from explorer.widgets.theming import theme_bus

    theme = _theme(name)
    theme_bus().set_look(theme)
    hm = Heatmap()
    qtbot.addWidget(hm)
    m = np.zeros((8, 8))  # NoPE: zero everywhere, the future too
    hm.set_matrix(m, rect=(0, 0, 8, 8))
    mask = FutureMask()
    mask.set_size(8)
    hm.getPlotItem().addItem(mask, ignoreBounds=True)
    hm.resize(320, 320)
    hm.show()
    qtbot.waitExposed(hm)
    vb = hm.getPlotItem().getViewBox()
    vb.setRange(xRange=(0, 8), yRange=(0, 8), padding=0)
    qtbot.wait(20)
    img = hm.grab().toImage()

    def at(x, y):
        p = hm.mapFromScene(vb.mapViewToScene(pg.Point(x, y)))
        return img.pixelColor(p.x(), p.y())

    zero, masked = at(1.5, 6.5), at(6.5, 1.5)  # below and above the diagonal (y grows downwards)
    assert abs(_lab(zero)[0] - _lab(masked)[0]) >= 15, (name, zero.name(), masked.name())
    if mask_colour(theme)[3] == 255:
        assert masked.name() == QColor(theme.background).name()  # blank: the paper


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_lesson_boxes_are_readable(qtbot, dark):
    """The Lesson pane's boxes (right, wrong, a text's mistake, a failed check): text ≥ 7:1 on its box, the
    border ≥ 3:1 against the window (issue 17), measured on rendered pixels."""
    from PySide6.QtWidgets import QLabel

    from explorer.lessons.ui.pane import BOXES, box_sheet

    theme = screen_theme("dark" if dark else "light")
    for kind, (bg, border, fg) in BOXES[dark].items():
        assert contrast(QColor(fg), QColor(bg)) >= 7.0, kind
        assert contrast(QColor(border), QColor(theme.panel_background)) >= 3.0, kind
        label = QLabel("Not quite — the answer: 54,410")
        label.setStyleSheet(box_sheet(dark, kind))
        root = _shown(qtbot, label, theme, size=(320, 60))
        img = root.grab().toImage()
        g = label.geometry()
        inside = img.pixelColor(g.x() + 4, g.center().y())
        assert contrast(inside, QColor(bg)) < 1.05, kind  # the box really is drawn in its colour
        text = [(x, y) for x in range(g.x() + 8, g.right() - 8) for y in range(g.y() + 6, g.bottom() - 6)]
        assert _best(img, text, QColor(bg)) >= 4.5, kind


@pytest.mark.parametrize(("base", "presenter"), THEMES)
@pytest.mark.parametrize("colour", ["#555", "#8c564b"], ids=["spectrum-grey", "why-binary-brown"])
def test_markers_follow_the_theme(qtbot, base, presenter, colour):
    """A marker's fill is mapped like its line: the Waves spectrum's grey dots and "Why sinusoids?"'s brown
    binary markers were drawn unmapped, dark on black (< 3:1)."""
    from explorer.widgets.styling import style_tree

    theme = screen_theme(base, presenter=presenter)
    pw = pg.PlotWidget(background=theme.background)
    qtbot.addWidget(pw)
    pw.plot([0.5], [0.5], pen=None, symbol="s", symbolSize=40, symbolBrush=colour, symbolPen=None)
    style_tree(pw.getPlotItem(), theme)
    pw.getPlotItem().hideAxis("left")
    pw.getPlotItem().hideAxis("bottom")
    pw.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    pw.resize(120, 120)
    pw.show()
    qtbot.waitExposed(pw)
    img = pw.grab().toImage()
    c = img.width() // 2, img.height() // 2
    assert _best(img, [c, (c[0] + 3, c[1] + 3)], QColor(theme.background)) >= 3.0


@pytest.mark.parametrize(("base", "presenter"), THEMES)
def test_lab_table_grid_lines_stand_out(qtbot, base, presenter):
    """The Lab's results table draws its grid at ≥ 3:1 against its cells: in the dark themes Fusion's grid (a
    shade off the window colour) vanished and ">99>99>99" ran together."""
    from PySide6.QtWidgets import QTableWidgetItem

    from explorer.panels.lab.grid import ResultsGrid

    theme = screen_theme(base, presenter=presenter)
    grid = ResultsGrid(titles=False)
    grid.setRowCount(2)
    grid.setColumnCount(3)
    for r in range(2):
        for col in range(3):
            grid.setItem(r, col, QTableWidgetItem(""))
    root = _shown(qtbot, grid, theme, size=(300, 160))
    grid.set_theme(theme)
    grid.viewport().update()
    qtbot.wait(20)
    img = grid.viewport().grab().toImage()
    y = grid.rowViewportPosition(0) + grid.rowHeight(0) // 2
    x_line = grid.columnViewportPosition(1) - 1
    cell = img.pixelColor(grid.columnViewportPosition(1) + grid.columnWidth(1) // 2, y)
    assert _best(img, [(x_line + dx, y) for dx in (-1, 0, 1)], cell) >= 3.0
    assert root is not None


@pytest.mark.parametrize("base", ["light", "dark"])
@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
def test_the_focus_ring_is_not_the_colour_of_a_refused_value(base, presenter):
    """The focus ring and the red outline of a value that was refused read as two things (issue 27: the focus
    ring looked like the "out of range" outline): their hues are far apart and both stand out from the window."""
    from explorer.theme import ALL_THEMES, control_colours
    from explorer.widgets.value_box import PROBLEM_COLOUR

    theme = ALL_THEMES[base].presenter() if presenter else ALL_THEMES[base]
    focus, problem = QColor(control_colours(theme)["focus"]), QColor(PROBLEM_COLOUR)
    hue_gap = abs(focus.hslHueF() - problem.hslHueF()) * 360
    assert min(hue_gap, 360 - hue_gap) >= 60, (focus.name(), problem.name())
    assert contrast(focus, QColor(theme.background)) >= 3.0
