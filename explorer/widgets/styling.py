"""How a :class:`~explorer.theme.Theme` reaches the widgets around the plots: palette, fonts, control colours.

The plots style themselves (:class:`explorer.widgets.plots.Plot` and its
:class:`~explorer.widgets.styler.Styler`); :func:`style_plot` restyles one for a look (around an export) and
:func:`style_tree` styles a tree of items once.  See :mod:`explorer.theme` for how colours follow a theme.
"""

from __future__ import annotations

import functools

from ..theme import Theme, control_sheet, formula_sheet, scene_sheet

__all__ = ["palette", "style_controls", "style_plot", "style_tree", "style_widgets"]


def style_plot(view, theme: Theme, *, zoom: float = 1.0, pen_scale: float = 1.0) -> None:
    """Restyle ``view`` (an app :class:`~explorer.widgets.plots.Plot`) and every item it holds for ``theme``;
    ``pen_scale`` multiplies line widths (an export at 2× or 4×)."""
    view.restyle(theme, zoom, pen_scale=pen_scale)


def style_tree(item, theme: Theme, *, zoom: float = 1.0, pen_scale: float = 1.0) -> None:
    """Style ``item`` and every item below it once for ``theme`` (items of a plot that is not the app's)."""
    from .styler import Styler  # (pyqtgraph: not on the window's way to its first frame)

    Styler(theme, zoom, pen_scale).adopt(item)


def palette(theme: Theme):
    """A Qt palette for the theme's window colours (the app's own palette for the light theme)."""
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication

    pal = QPalette(QApplication.palette())
    if not theme.dark and not theme.high_contrast:
        return pal
    win, text = QColor(theme.panel_background), QColor(theme.panel_text)
    base = QColor(theme.background)
    role = QPalette.ColorRole
    if theme.dark:
        button = QColor(win).lighter(130)
        highlight = QColor("#4f8fe6")
        disabled_text = QColor(text).darker(170)
    else:
        button = QColor("#f0f0f0")
        highlight = QColor("#0b57d0")
        disabled_text = QColor("#6b6b6b")
    for r, c in (
        (role.Window, win),
        (role.WindowText, text),
        (role.Base, base),
        (role.AlternateBase, QColor(win).lighter(110) if theme.dark else QColor("#f5f5f5")),
        (role.Text, text),
        (role.Button, button),
        (role.ButtonText, text),
        (role.ToolTipBase, win),
        (role.ToolTipText, text),
        (role.Highlight, highlight),
        (role.HighlightedText, QColor("#ffffff")),
        (role.PlaceholderText, disabled_text),
        (role.Link, highlight),
    ):
        pal.setColor(r, c)
    for r in (role.Text, role.WindowText, role.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, r, disabled_text)
    return pal


#: Marks a control whose style sheet is ours (a control with a sheet of its own is left alone).
_CONTROL_SHEET = "peControlSheet"


def style_controls(root, theme: Theme) -> None:
    """Sliders and value boxes under ``root`` in the theme's high-contrast control colours.

    Sliders get a style sheet each (not the window: a window-wide sheet stops Qt from passing the window's
    font on to the panels); value boxes are outlined by the app's style (:mod:`.control_style`).
    """
    from PySide6.QtWidgets import QAbstractSpinBox, QLineEdit, QSlider

    from .control_style import install

    install(theme)  # value boxes: outlined by the app's style (a sheet would replace their arrows)
    sheet = control_sheet(theme)
    for w in root.findChildren(QSlider):
        if w.styleSheet() and not w.property(_CONTROL_SHEET):
            continue
        w.setStyleSheet(sheet)
        w.setProperty(_CONTROL_SHEET, True)
    # A value box with a style sheet of its own (one outlined while it refuses a value) took the palette it
    # had when its sheet was polished, the light one: its text stayed near-black on a dark window.  Give it the theme's.
    pal = palette(theme)
    for cls in (QLineEdit, QAbstractSpinBox):
        for w in root.findChildren(cls):
            if w.styleSheet():
                w.setPalette(pal)


def style_widgets(root, theme: Theme, *, ui_pt: float, zoom: float = 1.0, set_root_font: bool = True) -> None:
    """Fonts, palette and the few style sheets of a widget tree (a window or a panel).

    Qt stops propagating fonts into a widget that has its own style sheet, so such widgets (an
    error banner, say) get the font set explicitly — unless their sheet sets a font size itself,
    in which case their owner sizes them (a panel's ``apply_theme`` or ``FontChange`` handler).
    """
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QFrame, QLabel, QWidget

    size = round(ui_pt * theme.font_scale * zoom, 1)
    font = QFont(root.font())
    font.setPointSizeF(size)
    if set_root_font:
        root.setFont(font)
    root.setPalette(palette(theme))
    style_controls(root, theme)
    strip_pt = round(max(ui_pt * 1.25, 11.0) * theme.font_scale * zoom, 1)
    named = set()
    floor_pt = round(max(ui_pt * 1.25, 11.0) * zoom, 1)  # normal mode's size: presenter never goes below it
    for label in root.findChildren(QLabel, "formulaStrip"):
        if hasattr(label, "set_look"):  # a FormulaStrip: as large as two lines allow
            label.set_look(functools.partial(formula_sheet, theme), strip_pt, floor_pt)
        else:
            label.setStyleSheet(formula_sheet(theme, strip_pt))
        named.add(id(label))
    for frame in root.findChildren(QFrame, "sceneBar"):
        frame.setStyleSheet(scene_sheet(theme, size))
        named.add(id(frame))
        named.update(id(c) for c in frame.findChildren(QWidget))
    for w in root.findChildren(QWidget):
        if id(w) in named:
            continue
        sheet = w.styleSheet()
        if sheet and "font" not in sheet:
            f = QFont(font)
            f.setWeight(w.font().weight())
            f.setItalic(w.font().italic())
            w.setFont(f)


