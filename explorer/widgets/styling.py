"""How a :class:`~explorer.theme.Theme` reaches what pyqtgraph draws, and the widgets around it.

:func:`style_item` styles one item (an axis, a title, a legend, a text item, a curve or line pen, a
colour map) and :func:`style_plot` a whole view.  Both are memo-based and idempotent: each item keeps
the *base* values its panel set (pens for the light theme) and what was applied last, so restyling
never compounds, a theme already applied is skipped, and a pen the panel replaces later becomes that
item's new base.  Nobody walks scenes after a draw: :mod:`explorer.widgets.theming` styles items as
they are added (and when their pens change) and restyles every registered view on ``themeChanged``.
See :mod:`explorer.theme` for how colours follow a theme.
"""

from __future__ import annotations

import contextlib
import functools

from ..theme import LABEL_PT, TICK_PT, TITLE_PT, Theme, control_sheet, formula_sheet, scene_sheet

#: Depth of styling calls in progress: the setters they call are the theme's, not a panel's, so the
#: creation hooks of :mod:`explorer.widgets.theming` ignore them.
_active = 0


@contextlib.contextmanager
def styling_now():
    """Mark the calls made inside as the styling's own."""
    global _active
    _active += 1
    try:
        yield
    finally:
        _active -= 1


def styling_active() -> bool:
    return _active > 0


def _qt():
    import pyqtgraph as pg
    from PySide6.QtGui import QColor, QFont, QPen

    return pg, QColor, QFont, QPen


def mapped_colour(colour, theme: Theme | None):
    """``colour`` (a name or QColor) opaque, as ``theme`` draws it (as it is when ``theme`` is None): a key's or a
    swatch's colour matching the curves the plots' theming maps."""
    QColor = _qt()[1]
    c = QColor(colour)
    if theme is None:
        return QColor(c.red(), c.green(), c.blue())
    return QColor(*theme.map_colour((c.red(), c.green(), c.blue(), 255))[:3])


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
    already styled for this theme is skipped.  Called when a view is made, on ``themeChanged`` and
    around an export — never after a draw (new items are styled as they are added).
    """
    sig = _signature(theme, zoom, pen_scale)
    vmemo = _memo(view)
    with styling_now():
        if vmemo.applied.get("sig") != sig:
            view.setBackground(theme.background)
            vmemo.applied["sig"] = sig
        scene = view.scene()
        if scene is None:
            return
        for item in scene.items():
            style_item(item, theme, zoom=zoom, pen_scale=pen_scale)


def style_item(item, theme: Theme, *, zoom: float = 1.0, pen_scale: float = 1.0, force: bool = False) -> None:
    """Style one graphics item for ``theme`` (not its children).

    ``force`` restyles an item whose look is applied once per theme (axes, legends, labels) even if
    this theme was applied already — after its panel changed it (a new axis label, say).
    """
    with styling_now():
        _style_item(item, theme, zoom, pen_scale, force)


def _style_item(item, theme: Theme, zoom: float, pen_scale: float, force: bool) -> None:
    pg, QColor, QFont, QPen = _qt()
    sig = _signature(theme, zoom, pen_scale)
    if force:
        _memo(item).applied.pop("sig", None)
    line = theme.line_scale * pen_scale
    if isinstance(item, pg.ColorBarItem):  # before PlotItem: a colour bar is one
        _style_colormap(item, theme, item.colorMap, item.setColorMap)
    elif isinstance(item, pg.AxisItem):
        fg = QColor(theme.foreground)
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
    elif isinstance(item, pg.ScatterPlotItem):
        # A scatter of its own (a PlotDataItem styles the one it holds): its default fill and outline in the
        # theme's colours — unmapped, the Waves similarity dots stayed dark blue on a dark background.
        # Per-point brushes and pens (set as lists) are left as they are.
        if not isinstance(item.parentItem(), pg.PlotDataItem):
            _style_pen_item(item, "pen", item.opts.get("pen"), item.setPen, theme, line / pen_scale, sig)
            _style_symbol_brush(item, item.opts.get("brush"), theme, item.setBrush)
    elif isinstance(item, pg.ImageItem):
        _style_colormap(item, theme, item.getColorMap, item.setColorMap)


def style_tree(item, theme: Theme, *, zoom: float = 1.0, pen_scale: float = 1.0) -> None:
    """Style ``item`` and every item below it (a curve and its label, a legend and its entries)."""
    stack = [item]
    while stack:
        it = stack.pop()
        style_item(it, theme, zoom=zoom, pen_scale=pen_scale)
        stack.extend(it.childItems())


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
        from .titles import full_title

        label.setText(full_title(plot_item))  # the whole title: the label elides it to the plot's width


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
        if "font" not in memo.base or not item.__dict__.get("_pe_hooked"):
            # A hooked item's base font follows its panel's setFont calls; only an unhooked one is
            # re-read here (its font may already carry a theme's scale).
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


def rebase_font(item, font) -> None:
    """Make ``font`` the base font of a text item (its panel set it; the theme scales it)."""
    _memo(item).base["font"] = font


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
        # Not × pen_scale: a marker is drawn whole in the export's scaled painter, so it grows with the
        # image by itself (multiplying too gave 2× exports markers twice the size they should have).
        new = memo.base["symbolSize"] * (1.0 + 0.5 * (theme.line_scale - 1.0))
        if new != size:
            item.setSymbolSize(new)
        memo.applied["symbolSize"] = new
        if opts.get("symbolPen") is not None:
            _style_pen_item(
                item, "symbolPen", pg.mkPen(opts["symbolPen"]), item.setSymbolPen, theme, line / pen_scale, sig
            )
        _style_symbol_brush(item, opts.get("symbolBrush"), theme)


@functools.cache
def _no_brush():
    from PySide6.QtCore import Qt

    return Qt.BrushStyle.NoBrush


def _style_symbol_brush(item, current, theme: Theme, setter=None) -> None:
    """A marker's fill in ``theme``'s colours, like its pen: unmapped, a dark marker (the Waves spectrum's grey,
    "Why sinusoids?"'s brown) vanished on a dark background.  A list (one brush per point) is left as it is."""
    pg, QColor, *_ = _qt()
    if current is None or isinstance(current, list) or getattr(current, "ndim", 0):
        return
    brush = pg.mkBrush(current)
    c = brush.color()
    if brush.style() == _no_brush() or c.alpha() == 0:
        return
    memo = _memo(item)
    if memo.applied.get("symbolBrush") != c.rgba():  # the panel set a new fill: that is the base now
        memo.base["symbolBrush"] = (c.red(), c.green(), c.blue(), c.alpha())
    mapped = QColor(*theme.map_colour(memo.base["symbolBrush"]))
    if mapped.rgba() != c.rgba():
        (setter or item.setSymbolBrush)(pg.mkBrush(mapped))
    memo.applied["symbolBrush"] = mapped.rgba()


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


#: Marks a control whose style sheet is ours (a control with a sheet of its own is left alone).
_CONTROL_SHEET = "_pe_control_sheet"


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


