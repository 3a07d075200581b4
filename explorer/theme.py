"""Themes: light, dark, presenter (high contrast, big text, thick lines) and print.

A :class:`Theme` is a small frozen description (colours, scales, colour-map names).  The generic
styling here reaches everything a panel draws with pyqtgraph — plot backgrounds, axes and their
fonts, titles, legends, text items, curve and line pens, colour maps — so a panel needs its own
``apply_theme(theme)`` hook only for what lives outside the plots (HTML labels with fixed colours,
custom-painted items).

How colours follow a theme.  Panels pick their pens for the light theme (pyqtgraph is configured
with a white background).  The generic pass keeps each item's *base* pen (what the panel set) and
derives the pen for the current theme from it: widths are multiplied by ``line_scale`` (and by the
export scale while a high-resolution image is rendered, because pyqtgraph's cosmetic pens stay one
device pixel wide however large the image), neutral colours (greys, black) follow the foreground,
and chromatic colours are clamped in lightness so they stay readable on the theme's background.
When a panel replaces a pen later (a new curve, a highlight), the next pass takes the new pen as
that item's base.

Colour maps.  Signed values use a perceptually uniform diverging map.  The screen default is
CET-D1A (blue-white-red; red/blue stays distinct for the common red-green colour blindnesses), whose
lightness is symmetric about zero — so in grey-scale print +x and −x look alike.  The print theme
and the "grey-scale safe maps" option therefore switch to CET-D7 (blue-grey-yellow, a *linear*
diverging map: CIELAB lightness rises monotonically from 30 to 90, and the blue-yellow axis is the
one colour-blind viewers keep) and cividis for non-negative values (monotonic lightness, designed
for colour-vision deficiency).  Source: P. Kovesi, "Good colour maps: how to design them",
arXiv:1509.03700 (2015); J. R. Nuñez et al., "Optimizing colormaps with consideration for color
vision deficiency", PLOS ONE 13(7) (2018).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

#: The colour-map names the panels use (see :mod:`explorer.widgets.plots`); themes map them.
SCREEN_DIVERGING = "CET-D1A"
SCREEN_SEQUENTIAL = "viridis"
#: Monotonic-lightness maps that survive grey-scale print and colour-vision deficiency.
SAFE_DIVERGING = "CET-D7"
SAFE_SEQUENTIAL = "cividis"

#: Base point sizes at zoom 1 in the normal themes (presenter multiplies them by its font_scale).
TICK_PT = 10.0
LABEL_PT = 11.0
TITLE_PT = 12.0

ZOOM_STEPS = (0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 1.8, 2.0, 2.4)


@dataclass(frozen=True)
class Theme:
    """Everything the styling needs to know about one look.

    Attributes
    ----------
    name : str
        Identifier stored in the settings ("light", "dark", "presenter-light", …).
    label : str
        Menu text.
    dark : bool
        True for a dark background (the Qt palette is switched too).
    background, foreground : str
        Plot background and text/axis colour (hex).
    panel_background, panel_text : str
        Window colours for the Qt palette (only used when ``dark`` or ``high_contrast``).
    grid_alpha : float
        Opacity of grid lines in [0, 1].
    font_scale, line_scale, axis_width : float
        Multipliers for all text, for curve pen widths, and the width of axis lines in pixels.
    neutral_min_l, neutral_max_l : float
        Lightness range (HSL, 0 … 1) that neutral colours are mapped into.
    colour_min_l, colour_max_l : float
        Lightness range that chromatic colours are clamped into.
    invert_neutrals : bool
        Map a neutral colour's lightness L to 1 − L (black curves become white on dark themes).
    diverging, sequential : str
        Colour maps replacing :data:`SCREEN_DIVERGING` / :data:`SCREEN_SEQUENTIAL`.
    high_contrast : bool
        Presenter variants: pure black/white, bold formula strip.
    """

    name: str
    label: str
    dark: bool
    background: str
    foreground: str
    panel_background: str
    panel_text: str
    grid_alpha: float = 0.2
    font_scale: float = 1.0
    line_scale: float = 1.0
    axis_width: float = 1.0
    neutral_min_l: float = 0.0
    neutral_max_l: float = 1.0
    colour_min_l: float = 0.0
    colour_max_l: float = 1.0
    invert_neutrals: bool = False
    diverging: str = SCREEN_DIVERGING
    sequential: str = SCREEN_SEQUENTIAL
    high_contrast: bool = False

    # -- derived ---------------------------------------------------------------------------------
    def presenter(self) -> Theme:
        """The high-contrast, big-text, thick-line variant of this theme (for the back of a hall)."""
        if self.high_contrast:
            return self
        if self.dark:
            return PRESENTER_DARK
        return PRESENTER_LIGHT

    def with_safe_maps(self) -> Theme:
        """This theme with grey-scale- and colour-blind-safe colour maps."""
        return dataclasses.replace(self, diverging=SAFE_DIVERGING, sequential=SAFE_SEQUENTIAL)

    def point_size(self, base_pt: float, zoom: float = 1.0) -> float:
        return round(base_pt * self.font_scale * zoom, 1)

    def map_colour(self, rgba: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        """A light-theme colour as this theme draws it (alpha kept)."""
        r, g, b, a = rgba
        h, s, lum = _rgb_to_hsl(r / 255.0, g / 255.0, b / 255.0)
        chroma = (max(r, g, b) - min(r, g, b)) / 255.0
        if chroma < 0.12:  # a neutral: black, grey, white
            if self.invert_neutrals and lum < 0.5:  # dark greys become light; light ones already suit
                lum = 1.0 - lum
            lum = min(max(lum, self.neutral_min_l), self.neutral_max_l)
            s = 0.0 if chroma < 0.04 else s
        else:
            lum = min(max(lum, self.colour_min_l), self.colour_max_l)
        rr, gg, bb = _hsl_to_rgb(h, s, lum)
        return round(rr * 255), round(gg * 255), round(bb * 255), a

    def map_fill(self, rgba: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        """A light-theme background colour (a label's box) as this theme draws it: light neutral
        fills become the plot background on dark themes so light text stays readable."""
        r, g, b, a = rgba
        if not self.dark:
            return rgba  # the panels chose their fills for a light background
        if max(r, g, b) - min(r, g, b) < 31 and min(r, g, b) > 190:
            c = self.background.lstrip("#")
            return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16), a
        return self.map_colour(rgba)

    def map_colormap_name(self, name: str | None) -> str | None:
        if name == SCREEN_DIVERGING:
            return self.diverging
        if name == SCREEN_SEQUENTIAL:
            return self.sequential
        return name


LIGHT = Theme("light", "Light", False, "#ffffff", "#1a1a1a", "#f3f3f3", "#111111")
DARK = Theme(
    "dark",
    "Dark",
    True,
    "#14171c",
    "#e6e6e6",
    "#22262d",
    "#e6e6e6",
    grid_alpha=0.25,
    invert_neutrals=True,
    neutral_min_l=0.55,
    colour_min_l=0.6,
)
PRESENTER_LIGHT = Theme(
    "presenter-light",
    "Presenter (light, high contrast)",
    False,
    "#ffffff",
    "#000000",
    "#ffffff",
    "#000000",
    grid_alpha=0.3,
    font_scale=1.5,
    line_scale=2.2,
    axis_width=2.0,
    neutral_max_l=0.3,
    colour_max_l=0.45,
    high_contrast=True,
)
PRESENTER_DARK = Theme(
    "presenter-dark",
    "Presenter (dark, high contrast)",
    True,
    "#000000",
    "#ffffff",
    "#000000",
    "#ffffff",
    grid_alpha=0.35,
    font_scale=1.5,
    line_scale=2.2,
    axis_width=2.0,
    invert_neutrals=True,
    neutral_min_l=0.8,
    colour_min_l=0.62,
    high_contrast=True,
)
PRINT = Theme(
    "print",
    "Print (white, dark lines)",
    False,
    "#ffffff",
    "#000000",
    "#ffffff",
    "#000000",
    grid_alpha=0.25,
    line_scale=1.4,
    axis_width=1.2,
    neutral_max_l=0.25,
    colour_max_l=0.5,
    diverging=SAFE_DIVERGING,
    sequential=SAFE_SEQUENTIAL,
)

#: The themes a user can pick as the screen's base look (presenter mode derives from them).
BASE_THEMES = {t.name: t for t in (LIGHT, DARK)}
ALL_THEMES = {t.name: t for t in (LIGHT, DARK, PRESENTER_LIGHT, PRESENTER_DARK, PRINT)}


def screen_theme(base: str = "light", *, presenter: bool = False, safe_maps: bool = False) -> Theme:
    """The theme the window shows for a base name, presenter mode and the colour-map choice."""
    theme = BASE_THEMES.get(base, LIGHT)
    if presenter:
        theme = theme.presenter()
    if safe_maps:
        theme = theme.with_safe_maps()
    return theme


# -- colour helpers (no Qt) ----------------------------------------------------------------------
def _rgb_to_hsl(r: float, g: float, b: float) -> tuple[float, float, float]:
    import colorsys

    h, lum, s = colorsys.rgb_to_hls(r, g, b)
    return h, s, lum


def _hsl_to_rgb(h: float, s: float, lum: float) -> tuple[float, float, float]:
    import colorsys

    return colorsys.hls_to_rgb(h, lum, s)


def cielab_lightness(rgb: np.ndarray) -> np.ndarray:
    """CIELAB L* (0 … 100) of sRGB colours given as 0 … 255 values in the last axis.

    L* = 116 f(Y) − 16 with f(t) = t^(1/3) above (6/29)^3 and linear below; Y is the relative
    luminance of the linearised sRGB channels (IEC 61966-2-1: 0.2126 R + 0.7152 G + 0.0722 B).
    """
    c = np.asarray(rgb, dtype=np.float64)[..., :3] / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    y = lin @ np.array([0.2126, 0.7152, 0.0722])
    f = np.where(y > 216 / 24389, np.cbrt(y), (24389 / 27 * y + 16) / 116)
    return 116 * f - 16


# -- Qt styling ----------------------------------------------------------------------------------
def _qt():
    import pyqtgraph as pg
    from PySide6.QtGui import QColor, QFont, QPen

    return pg, QColor, QFont, QPen


def mapped_pen(base, theme: Theme, width_scale: float):
    """A copy of ``base`` (QPen) in ``theme``'s colours with its width scaled."""
    _, QColor, _, QPen = _qt()
    pen = QPen(base)
    c = base.color()
    r, g, b, a = theme.map_colour((c.red(), c.green(), c.blue(), c.alpha()))
    pen.setColor(QColor(r, g, b, a))
    width = base.widthF() or 1.0  # 0 is a one-pixel cosmetic pen
    pen.setWidthF(width * width_scale)
    return pen


def _pen_key(pen) -> tuple:
    c = pen.color()
    return (c.rgba(), round(pen.widthF(), 3), pen.style().value, pen.isCosmetic())


class _Memo:
    """What the styling remembers about an item: the panel's base values and what it applied."""

    __slots__ = ("base", "applied")

    def __init__(self) -> None:
        self.base: dict = {}
        self.applied: dict = {}


def _memo(item) -> _Memo:
    memo = item.__dict__.get("_pe_theme_memo")
    if memo is None:
        memo = _Memo()
        item.__dict__["_pe_theme_memo"] = memo
    return memo


def _rebase_pen(memo: _Memo, slot: str, current) -> object:
    """The base pen of ``slot``: the current one unless it is exactly what we applied last."""
    applied = memo.applied.get(slot)
    if slot not in memo.base or applied is None or _pen_key(current) != applied:
        memo.base[slot] = current.__class__(current)
    return memo.base[slot]


def _signature(theme: Theme, zoom: float, pen_scale: float) -> tuple:
    return (theme, round(zoom, 4), round(pen_scale, 4))


def style_plot(view, theme: Theme, *, zoom: float = 1.0, pen_scale: float = 1.0) -> None:
    """Style one pyqtgraph view (PlotWidget or any GraphicsView) and every item in its scene.

    ``pen_scale`` multiplies line widths on top of the theme (used while exporting at 2× or 4×).
    Safe and cheap to call repeatedly: base pens are remembered, so nothing compounds, and an item
    already styled for this theme is skipped (the window calls this after every redraw so that
    curves a panel adds later get the theme too).
    """
    pg, QColor, QFont, QPen = _qt()
    sig = _signature(theme, zoom, pen_scale)
    vmemo = _memo(view)
    if vmemo.applied.get("sig") != sig:
        view.setBackground(theme.background)
        vmemo.applied["sig"] = sig
    scene = view.scene()
    if scene is None:
        return
    fg = QColor(theme.foreground)
    line = theme.line_scale * pen_scale
    for item in scene.items():
        if isinstance(item, pg.ColorBarItem):  # before PlotItem: a colour bar is one
            _style_colormap(item, theme, item.colorMap, item.setColorMap)
        elif isinstance(item, pg.AxisItem):
            _once(item, sig, lambda a=item: _style_axis(a, theme, fg, zoom, pen_scale))
        elif isinstance(item, pg.PlotItem):
            _style_plot_item(item, theme, theme.point_size(TITLE_PT, zoom))
        elif isinstance(item, pg.LegendItem):
            _once(item, sig, lambda lg=item: _style_legend(lg, theme))
        elif isinstance(item, pg.LabelItem):
            # Legend entries at tick size: a legend must not cover the curves it names.
            pt = TICK_PT if isinstance(item.parentItem(), pg.LegendItem) else LABEL_PT
            _once(item, sig, lambda lb=item, pt=pt: _style_label(lb, theme, theme.point_size(pt, zoom)))
        elif isinstance(item, pg.TextItem):
            _style_text_item(item, theme, zoom, sig)
        elif isinstance(item, pg.PlotDataItem):
            _style_data_item(item, theme, line, pen_scale, sig)
        elif isinstance(item, pg.PlotCurveItem):
            if not isinstance(item.parentItem(), pg.PlotDataItem):
                _style_pen_item(item, "pen", item.opts["pen"], item.setPen, theme, line, sig)
        elif isinstance(item, pg.InfiniteLine):
            _style_pen_item(item, "pen", item.pen, item.setPen, theme, line, sig)
        elif isinstance(item, pg.ImageItem):
            _style_colormap(item, theme, item.getColorMap, item.setColorMap)


def _once(item, sig, fn) -> None:
    memo = _memo(item)
    if memo.applied.get("sig") != sig:
        fn()
        memo.applied["sig"] = sig


def _style_axis(axis, theme: Theme, fg, zoom: float, pen_scale: float) -> None:
    pg, _, QFont, _ = _qt()
    axis.setPen(pg.mkPen(fg, width=theme.axis_width * pen_scale))
    axis.setTextPen(pg.mkPen(fg))
    tick_font = QFont()
    tick_font.setPointSizeF(theme.point_size(TICK_PT, zoom))
    old = axis.style.get("tickFont")
    if old is None or old.pointSizeF() != tick_font.pointSizeF():
        # The axis only ever grows the space it reserves for tick text; let it shrink again
        # after presenter mode or a zoom-out by resetting the remembered sizes.
        axis.textWidth = 30
        axis.textHeight = 18
        axis.setStyle(tickFont=tick_font)
    # A panel may fix an axis' width (or height) to line plots up; text grows with the theme and
    # zoom, so the fixed size grows with it.
    memo = _memo(axis)
    ratio = theme.font_scale * zoom
    for attr, setter in (("fixedWidth", axis.setWidth), ("fixedHeight", axis.setHeight)):
        current = getattr(axis, attr, None)
        if current is None:
            continue
        if attr not in memo.base or memo.applied.get(attr) != current:
            memo.base[attr] = current
        size = int(round(memo.base[attr] * ratio))
        if size != current:
            setter(size)
        memo.applied[attr] = size
    if axis.grid is not False:
        axis.setGrid(int(255 * theme.grid_alpha))
    if axis.labelText:
        style = dict(axis.labelStyle)
        style["color"] = theme.foreground
        style["font-size"] = f"{theme.point_size(LABEL_PT, zoom):g}pt"
        shown = axis.label.isVisibleTo(axis)  # a panel may hide a label; setLabel would show it
        axis.setLabel(
            axis.labelText,
            axis.labelUnits,
            axis.labelUnitPrefix,
            siPrefixEnableRanges=getattr(axis, "_siPrefixEnableRanges", None),
            unitPower=getattr(axis, "unitPower", 1),
            **style,
        )
        if not shown:
            axis.showLabel(False)


def _style_plot_item(plot_item, theme: Theme, title_pt: float) -> None:
    label = plot_item.titleLabel
    size = f"{title_pt:g}pt"
    if label.opts.get("color") == theme.foreground and label.opts.get("size") == size:
        return  # already styled (checked every pass: a panel's setTitle(size=...) may reset it)
    # Keep the title's colour/size in its options so a later setTitle() keeps the theme.
    label.opts["color"] = theme.foreground
    label.opts["size"] = size
    if label.text:
        label.setText(label.text)


def _style_legend(legend, theme: Theme) -> None:
    pg, *_ = _qt()
    brush = pg.mkBrush(theme.background)
    c = brush.color()
    c.setAlpha(215)
    legend.setBrush(c)
    legend.setPen(pg.mkPen(theme.foreground, width=1))


def _style_label(label, theme: Theme, label_pt: float) -> None:
    if isinstance(label.parentItem(), _qt()[0].PlotItem) and label is label.parentItem().titleLabel:
        return  # the title is the plot item's
    memo = _memo(label)
    memo.base.setdefault("color", label.opts.get("color"))
    base_colour = memo.base["color"]
    if base_colour is None:
        colour = theme.foreground
    else:
        pg, QColor, *_ = _qt()
        c = pg.mkColor(base_colour)
        colour = QColor(*theme.map_colour((c.red(), c.green(), c.blue(), c.alpha()))).name()
    label.opts["color"] = colour
    label.opts["size"] = f"{label_pt:g}pt"
    if getattr(label, "text", ""):
        label.setText(label.text)


def _style_text_item(item, theme: Theme, zoom: float, sig) -> None:
    pg, QColor, QFont, _ = _qt()
    memo = _memo(item)
    current = QColor(item.color).rgba()
    if "color" not in memo.base or memo.applied.get("color") != current:
        memo.base["color"] = QColor(item.color)
        memo.base["font"] = QFont(item.textItem.font())
        memo.base["fill"] = pg.mkBrush(item.fill) if getattr(item, "fill", None) is not None else None
    elif memo.applied.get("sig") == sig:
        return
    c = memo.base["color"]
    colour = QColor(*theme.map_colour((c.red(), c.green(), c.blue(), c.alpha())))
    item.setColor(colour)
    fill = memo.base.get("fill")
    if fill is not None and fill.style() != pg.QtCore.Qt.BrushStyle.NoBrush:
        brush = pg.mkBrush(fill)
        brush.setColor(QColor(*theme.map_fill(fill.color().getRgb())))
        item.fill = brush
        item.update()
    font = QFont(memo.base["font"])
    if font.pointSizeF() > 0:
        font.setPointSizeF(font.pointSizeF() * theme.font_scale * zoom)
    item.setFont(font)
    memo.applied["color"] = colour.rgba()
    memo.applied["sig"] = sig


def _style_pen_item(item, slot: str, current, setter, theme: Theme, line: float, sig) -> None:
    if current is None:
        return
    memo = _memo(item)
    if memo.applied.get(slot) == _pen_key(current) and memo.applied.get(slot + "_sig") == sig:
        return
    base = _rebase_pen(memo, slot, current)
    pen = mapped_pen(base, theme, line)
    setter(pen)
    memo.applied[slot] = _pen_key(pen)
    memo.applied[slot + "_sig"] = sig


def _style_data_item(item, theme: Theme, line: float, pen_scale: float, sig) -> None:
    pg, *_ = _qt()
    opts = item.opts
    if opts.get("pen") is not None:
        _style_pen_item(item, "pen", pg.mkPen(opts["pen"]), item.setPen, theme, line, sig)
    if opts.get("symbol") is not None:
        memo = _memo(item)
        size = opts.get("symbolSize", 10)
        if "symbolSize" not in memo.base or memo.applied.get("symbolSize") != size:
            memo.base["symbolSize"] = size
        new = memo.base["symbolSize"] * (1.0 + 0.5 * (theme.line_scale - 1.0)) * pen_scale
        if new != size:
            item.setSymbolSize(new)
        memo.applied["symbolSize"] = new
        if opts.get("symbolPen") is not None:
            _style_pen_item(
                item, "symbolPen", pg.mkPen(opts["symbolPen"]), item.setSymbolPen, theme, line, sig
            )


def _style_colormap(item, theme: Theme, getter, setter) -> None:
    cmap = getter()
    if cmap is None:
        return
    memo = _memo(item)
    name = getattr(cmap, "name", None)
    if "cmap" not in memo.base or memo.applied.get("cmap") != name:
        memo.base["cmap"] = name
    target = theme.map_colormap_name(memo.base["cmap"])
    if target and target != name:
        setter(target)
    memo.applied["cmap"] = target


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


def _strip_colours(theme: Theme) -> tuple[str, str]:
    bg = "#1f242c" if theme.dark else "#f4f6fa"
    border = "#5a6270" if theme.dark else "#c9d0dc"
    if theme.high_contrast:
        bg = "#000000" if theme.dark else "#ffffff"
        border = theme.foreground
    return bg, border


def formula_sheet(theme: Theme, point_size: float) -> str:
    """Style sheet of a panel's formula strip (``QLabel#formulaStrip``) at ``point_size``."""
    bg, border = _strip_colours(theme)
    weight = "600" if theme.high_contrast else "normal"
    return (
        f"QLabel#formulaStrip {{ font-size: {point_size:g}pt; font-weight: {weight};"
        f" color: {theme.foreground}; background: {bg}; border: 1px solid {border};"
        " border-radius: 4px; padding: 4px 8px; }"
    )


def scene_sheet(theme: Theme, point_size: float) -> str:
    """Style sheet of the lecture-scene strip (``QFrame#sceneBar`` and its two labels)."""
    bg, border = _strip_colours(theme)
    return (
        f"QFrame#sceneBar {{ background: {bg}; border: 1px solid {border}; border-radius: 4px; }}\n"
        f"QLabel#sceneTitle {{ font-size: {point_size * 1.1:.1f}pt; font-weight: 700;"
        f" color: {theme.foreground}; }}\n"
        f"QLabel#sceneText {{ font-size: {point_size:g}pt; color: {theme.foreground}; }}"
    )


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
    strip_pt = round(max(ui_pt * 1.25, 11.0) * theme.font_scale * zoom, 1)
    named = set()
    for label in root.findChildren(QLabel, "formulaStrip"):
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


def style_panel(panel, theme: Theme, *, zoom: float = 1.0, pen_scale: float = 1.0) -> None:
    """Call the panel's own ``apply_theme`` hook, then style every plot of ``panel`` (generic)."""
    hook = getattr(panel, "apply_theme", None)
    if callable(hook):
        hook(theme)
    for view in panel.plots():
        style_plot(view, theme, zoom=zoom, pen_scale=pen_scale)


def style_new_items(panel, theme: Theme, *, zoom: float = 1.0) -> None:
    """Re-run the generic pass after a panel drew (new curves get the theme; cheap when nothing changed)."""
    for view in panel.plots():
        style_plot(view, theme, zoom=zoom)
