"""Themes: light, dark, presenter (high contrast, big text, thick lines) and print.

A :class:`Theme` is a small frozen description (colours, scales, colour-map names).  This module holds no Qt:
the themes, the colour arithmetic and the style-sheet text.  The Qt side lives in
:mod:`explorer.widgets.theming` (the current theme and ``themeChanged``), :mod:`explorer.widgets.styler`
(how a theme reaches a plot's items) and :mod:`explorer.widgets.plots` (the plot, which restyles itself on
``themeChanged``), so a panel needs its own ``apply_theme(theme)`` hook only for what lives outside the
plots (HTML labels with fixed colours, custom-painted items).

How colours follow a theme.  Panels pick their pens for the light theme (pyqtgraph is configured
with a white background).  Each plot's styler keeps each item's *base* pen (what the panel set) and
derives the pen for the current theme from it: widths are multiplied by ``line_scale`` (and by the
export scale while a high-resolution image is rendered, because pyqtgraph's cosmetic pens stay one
device pixel wide however large the image), neutral colours (greys, black) follow the foreground,
and chromatic colours are clamped in lightness so they stay readable on the theme's background.
When a panel replaces a pen later (a highlight), it gives the new light-theme pen to the plot's styler,
which keeps it as that item's base.

Colour maps.  Signed values use a perceptually uniform diverging map.  The screen default is
CET-D1A (blue-white-red; red/blue stays distinct for the common red-green colour blindnesses), whose
lightness is symmetric about zero — so in grey-scale print +x and −x look alike.  The print theme
and the "grey-scale safe maps" option therefore switch to CET-D7 (blue-grey-yellow, a *linear*
diverging map: CIELAB lightness rises monotonically from 30 to 90, and the blue-yellow axis is the
one colour-blind viewers keep) and cividis for non-negative values (monotonic lightness, designed
for colour-vision deficiency).  Source: P. Kovesi, "Good colour maps: how to design them",
arXiv:1509.03700 (2015); J. R. Nuñez et al., "Optimizing colormaps with consideration for color
vision deficiency", PLOS ONE 13(7) (2018).  The dark themes use CET-D4 (blue-black-red) instead: its zero is
near-black as CET-D1A's is near-white, so on a dark background zero recedes into it as it does on white, where
CET-D1A's zero drew glaring white blocks.
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
#: The dark themes' diverging map: zero near-black, ±1 at CIELAB L* 55 (P. Kovesi's diverging_bkr_55_10_c35).
DARK_DIVERGING = "CET-D4"

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
    diverging=DARK_DIVERGING,
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
    diverging=DARK_DIVERGING,
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


#: The colour each diverging map gives zero (sRGB; :func:`pyqtgraph.colormap.get` at 0.5).
ZERO_COLOUR = {SCREEN_DIVERGING: (238, 227, 232), SAFE_DIVERGING: (144, 144, 144), DARK_DIVERGING: (34, 31, 33)}


def mask_colour(theme: Theme) -> tuple[int, int, int, int]:
    """The veil over masked cells (the causal future) of a score matrix, as RGBA: never the look of zero.

    The screen map's zero is near-white, so a grey veil (the values stay visible beneath it, dimmed) sets
    the future apart from zero by about 20 L*.  The print theme's and the grey-scale-safe map (CET-D7) put
    zero at mid-grey, where a grey veil made NoPE's all-zero matrix one grey field; there the masked cells
    are the plot's background, opaque ("blank").  The dark themes' map (CET-D4) puts zero at near-black, the
    background's own look: there a light grey veil lifts the future off it.  tests/test_contrast.py measures the
    rendered cells.
    """
    zero = ZERO_COLOUR.get(theme.diverging, (255, 255, 255))
    lightness = float(cielab_lightness(np.array(zero)))
    if lightness < 30.0:
        return 170, 170, 170, 110
    if lightness < 75.0:
        c = theme.background.lstrip("#")
        return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16), 255
    return 120, 120, 120, 150


def mask_word(theme: Theme) -> str:
    """How a caption names the masked cells in ``theme`` ("grey" or "blank")."""
    return "blank" if mask_colour(theme)[3] == 255 else "grey"


#: The keyboard's focus ring (dark theme: True).  Violet, a hue of its own: the red of a refused value's outline
#: (explorer.widgets.value_box.PROBLEM_COLOUR) and the amber of a lesson's ring must not be mistaken for it.
FOCUS_COLOURS = {False: "#6a1b9a", True: "#d59cf0"}


def control_colours(theme: Theme) -> dict[str, str]:
    """Slider track, filled part, handle, handle outline and value-box border for ``theme``.

    Each is at least 3:1 against the window background (WCAG 2.1 non-text contrast, 1.4.11): Qt's own
    Fusion slider draws its track a shade off the window colour (1.2:1 in light, invisible in presenter
    dark), which a hall cannot see.  tests/test_contrast.py measures the rendered pixels.
    """
    if theme.dark:
        track = "#a3abb8" if theme.high_contrast else "#8b93a1"
        accent = "#7fb2f5" if theme.high_contrast else "#6ea6f1"
        return {"track": track, "fill": accent, "handle": "#e8eaed", "outline": accent, "border": track,
                "focus": FOCUS_COLOURS[True]}
    track = "#5f6368" if theme.high_contrast else "#767676"
    accent = "#0b57d0" if theme.high_contrast else "#1a73e8"
    return {"track": track, "fill": accent, "handle": "#ffffff", "outline": "#174ea6", "border": track,
            "focus": FOCUS_COLOURS[False]}


def control_sheet(theme: Theme) -> str:
    """Style sheet for sliders with the contrast of :func:`control_colours` (value boxes: the app's style)."""
    c = control_colours(theme)
    return (
        f"QSlider::groove:horizontal {{ height: 6px; background: {c['track']}; border-radius: 3px; }}\n"
        f"QSlider::groove:vertical {{ width: 6px; background: {c['track']}; border-radius: 3px; }}\n"
        f"QSlider::sub-page:horizontal {{ background: {c['fill']}; border-radius: 3px; }}\n"
        f"QSlider::add-page:vertical {{ background: {c['fill']}; border-radius: 3px; }}\n"
        f"QSlider::handle:horizontal {{ width: 14px; margin: -6px 0; background: {c['handle']};"
        f" border: 2px solid {c['outline']}; border-radius: 8px; }}\n"
        f"QSlider::handle:vertical {{ height: 14px; margin: 0 -6px; background: {c['handle']};"
        f" border: 2px solid {c['outline']}; border-radius: 8px; }}\n"
        f"QSlider::handle:focus {{ border-color: {c['focus']}; }}"
    )
