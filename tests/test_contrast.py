"""Themes pass a contrast check a hall can see: slider track, handle, focus ring and text ≥ 3:1 (WCAG 1.4.11).

Measured on rendered pixels of a real slider and value box in every screen theme, not on constants.
"""

from __future__ import annotations

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
