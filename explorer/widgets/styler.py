"""What one plot's items look like in a theme: the look its view gave each, kept by the plot's styler.

A view draws in the light theme's terms (a black curve, a 2 px line, an 11 pt note); a :class:`Styler`
remembers that *base* look of every item the plot holds (in a dictionary of its own, item -> memo) and
derives from it what the current theme draws: widths × ``line_scale`` (× the export's ``pen_scale``),
colours mapped by :meth:`explorer.theme.Theme.map_colour`, text × ``font_scale`` × zoom, the standard colour
maps swapped for the theme's.  A plot adopts an item when it is added to it (:meth:`adopt`), restyles every
item it holds in :meth:`restyle` on ``themeChanged`` (and around an export), and a view that changes an
item's look later says so through :meth:`set_pen`, :meth:`set_brush`, :meth:`set_text_colour`,
:meth:`set_text_font` or :meth:`set_colormap`, so the new value becomes that item's base.  Nothing of
pyqtgraph is wrapped: the items keep their own methods, and ``setData`` runs no code of ours.

The axes and the title of an app plot are the app's own classes (:class:`explorer.widgets.axis.Axis`,
:class:`explorer.widgets.titles.TitleLabel`): an axis is kept here like any item (:func:`style_axis`), the
title is given its look by its plot.
"""

from __future__ import annotations

import weakref

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPen

from ..theme import LABEL_PT, TICK_PT, Theme
from .symbols import Markers


def mapped_colour(colour, theme: Theme | None) -> QColor:
    """``colour`` (a name or QColor) opaque, as ``theme`` draws it (as it is when ``theme`` is None): a key's or
    a swatch's colour matching the curves the plots' styling maps."""
    c = QColor(colour)
    if theme is None:
        return QColor(c.red(), c.green(), c.blue())
    return QColor(*theme.map_colour((c.red(), c.green(), c.blue(), 255))[:3])


def mapped_pen(base: QPen, theme: Theme, width_scale: float) -> QPen:
    """A copy of ``base`` in ``theme``'s colours with its width scaled."""
    pen = QPen(base)
    c = base.color()
    pen.setColor(QColor(*theme.map_colour((c.red(), c.green(), c.blue(), c.alpha()))))
    width = base.widthF() or 1.0  # 0 is a one-pixel cosmetic pen
    pen.setWidthF(width * width_scale)
    return pen


def _pen_key(pen: QPen) -> tuple:
    c = pen.color()
    return (c.rgba(), round(pen.widthF(), 3), pen.style().value, pen.isCosmetic(), pen.capStyle().value)


def _font_key(font: QFont) -> str:
    return font.toString()


class _Memo:
    """What the styler remembers about one item: its view's base values and what was applied last."""

    __slots__ = ("applied", "base")

    def __init__(self) -> None:
        self.base: dict = {}
        self.applied: dict = {}


def _role(item) -> str | None:
    """Which look ``item`` has (None: nothing of it follows the theme here)."""
    from .titles import TitleLabel

    if isinstance(item, TitleLabel):
        return None  # its plot gives it the look
    for cls, role in _ROLES:
        if isinstance(item, cls):
            if role in ("curve", "scatter", "entry") and isinstance(item.parentItem(), _PARENT[role]):
                return None  # styled with the item that holds it
            return role
    return None


#: The roles, most specific class first (a colour bar is a PlotItem; an InfLineLabel is a TextItem).
_ROLES = (
    (pg.ColorBarItem, "colorbar"),
    (pg.AxisItem, "axis"),
    (pg.LegendItem, "legend"),
    (pg.LabelItem, "entry"),
    (pg.TextItem, "text"),
    (pg.PlotDataItem, "data"),
    (pg.PlotCurveItem, "curve"),
    (pg.InfiniteLine, "line"),
    (Markers, "markers"),
    (pg.ScatterPlotItem, "scatter"),
    (pg.ImageItem, "image"),
)
_PARENT = {"curve": pg.PlotDataItem, "scatter": pg.PlotDataItem, "entry": pg.LegendItem}


def _walk(item):
    stack = [item]
    while stack:
        it = stack.pop()
        yield it
        stack.extend(it.childItems())


class Styler:
    """The items of one plot and the look each was given; applies a theme to all of them.

    Parameters
    ----------
    theme, zoom, pen_scale
        The look items are styled for until the next :meth:`restyle` (``pen_scale`` multiplies line
        widths for an export at 2× or 4×).
    """

    def __init__(self, theme: Theme, zoom: float = 1.0, pen_scale: float = 1.0) -> None:
        self._memos: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.theme, self.zoom, self.pen_scale = theme, float(zoom), float(pen_scale)

    @property
    def signature(self) -> tuple:
        return (self.theme, round(self.zoom, 4), round(self.pen_scale, 4))

    @property
    def line_scale(self) -> float:
        return self.theme.line_scale * self.pen_scale

    # -- what a plot calls ------------------------------------------------------------------------
    def adopt(self, item) -> None:
        """Style ``item`` and everything below it for the current look and keep them (their present pens,
        colours, fonts and colour maps are the base, unless they are what this styler applied)."""
        for it in _walk(item):
            role = _role(it)
            if role is not None:
                memo = self._memos.get(it)
                if memo is None:
                    memo = self._memos[it] = _Memo()
                memo.applied.pop("sig", None)
                self._apply(it, role, memo)

    def restyle(self, theme: Theme, zoom: float = 1.0, pen_scale: float = 1.0) -> None:
        """Give every item kept here the look of ``theme`` at ``zoom`` (an item already in it is left alone)."""
        self.theme, self.zoom, self.pen_scale = theme, float(zoom), float(pen_scale)
        for item, memo in list(self._memos.items()):
            if shiboken6.isValid(item):
                self._apply(item, _role(item), memo)

    def knows(self, item) -> bool:
        return item in self._memos

    def drifted(self, scene) -> list[str]:
        """What in ``scene`` does not have the look this styler gave it: items of a styled kind it never
        adopted (added some other way than through the plot), and pens or text colours changed directly
        since (not through :meth:`set_pen` …).  Empty when every item follows the theme."""
        out = []
        for item in scene.items():
            role = _role(item)
            if role is None:
                continue
            memo = self._memos.get(item)
            name = f"{type(item).__name__} {getattr(item, 'name', lambda: '')() or ''}".strip()
            if memo is None:
                out.append(f"{name}: not adopted")
                continue
            pen = item.pen if role == "line" else item.opts.get("pen") if role in ("data", "curve", "scatter",
                                                                                   "markers") else None
            pen = None if pen is None else pg.mkPen(pen)
            if pen is not None and pen.style() != Qt.PenStyle.NoPen and "pen" in memo.applied and \
                    _pen_key(pen) != memo.applied["pen"]:
                out.append(f"{name}: pen changed directly")
            if role == "text" and memo.applied.get("color") not in (None, QColor(item.color).rgba()):
                out.append(f"{name} {item.toPlainText()!r}: colour changed directly")
            if role == "text" and memo.applied.get("font") not in (None, _font_key(item.textItem.font())):
                out.append(f"{name} {item.toPlainText()!r}: font changed directly")
        return out

    def base(self, item, slot: str):
        """The base (light-theme) value of ``item``'s ``slot`` ("pen", "color", "font", "cmap" …), or None."""
        memo = self._memos.get(item)
        return None if memo is None else memo.base.get(slot)

    def items(self) -> list:
        """The items kept here that still exist."""
        return [it for it in list(self._memos.keys()) if shiboken6.isValid(it)]

    # -- what a view calls when it changes an item's look later -----------------------------------
    def set_pen(self, item, *args, **kwargs) -> None:
        """``item.setPen`` with a light-theme pen (``pg.mkPen`` arguments): the base from now on, drawn mapped."""
        memo = self._memo(item)
        memo.base["pen"] = QPen(pg.mkPen(*args, **kwargs))
        setter = item.setPen
        self._pen_slot(item, memo, "pen", None, setter, self._pen_width(item), fresh=True)

    def set_brush(self, item, *args, **kwargs) -> None:
        """A scatter's fill (or a curve's symbol fill) in light-theme terms, drawn mapped."""
        brush = pg.mkBrush(*args, **kwargs)
        memo = self._memo(item)
        c = brush.color()
        memo.base["symbolBrush"] = (c.red(), c.green(), c.blue(), c.alpha())
        memo.applied.pop("symbolBrush", None)
        setter = item.setBrush if isinstance(item, pg.ScatterPlotItem) else item.setSymbolBrush
        if brush.style() == Qt.BrushStyle.NoBrush or c.alpha() == 0:
            setter(brush)
            return
        self._symbol_brush(item, memo, brush, setter, fresh=True)

    def set_text_colour(self, item, colour) -> None:
        """A text item's colour in light-theme terms."""
        memo = self._memo(item)
        memo.base["color"] = QColor(pg.mkColor(colour))
        self._text(item, memo, rebase=False)

    def set_text_font(self, item, font: QFont) -> None:
        """A text item's font at zoom 1 in a normal theme (the theme scales its size)."""
        memo = self._memo(item)
        memo.base["font"] = QFont(font)
        self._text(item, memo, rebase=False)

    def set_colormap(self, item, cmap) -> None:
        """An image's or colour bar's map by its screen name (the theme may swap it)."""
        memo = self._memo(item)
        name = cmap if isinstance(cmap, str) else getattr(cmap, "name", None)
        memo.base["cmap"] = name
        memo.applied["cmap"] = None
        target = self.theme.map_colormap_name(name)
        item.setColorMap(target if target else cmap)
        memo.applied["cmap"] = target

    # -- applying ---------------------------------------------------------------------------------
    def _memo(self, item) -> _Memo:
        memo = self._memos.get(item)
        if memo is None:
            memo = self._memos[item] = _Memo()
        return memo

    def _pen_width(self, item) -> float:
        # A scatter's outline keeps its width in an export: it is drawn whole in the scaled painter.
        return self.theme.line_scale if isinstance(item, pg.ScatterPlotItem) else self.line_scale

    def _apply(self, item, role: str | None, memo: _Memo) -> None:
        sig = self.signature
        if role == "colorbar":
            self._colormap(item, memo, item.colorMap, item.setColorMap)
        elif role == "image":
            self._colormap(item, memo, item.getColorMap, item.setColorMap)
        elif role in ("axis", "legend", "entry"):
            if memo.applied.get("sig") != sig:
                if role == "axis":
                    style_axis(item, self.theme, self.zoom, self.pen_scale, memo)
                elif role == "legend":
                    style_legend(item, self.theme, self.zoom)
                else:
                    self._label(item, memo)
                memo.applied["sig"] = sig
        elif role == "text":
            self._text(item, memo, rebase=True)
        elif role == "data":
            self._data(item, memo)
        elif role == "curve":
            self._pen_slot(item, memo, "pen", item.opts["pen"], item.setPen, self.line_scale)
        elif role == "line":
            self._pen_slot(item, memo, "pen", item.pen, item.setPen, self.line_scale)
        elif role in ("scatter", "markers"):
            if role == "markers":
                self._marker_size(item, memo, item.opts["size"], item.setSize)
            # Its default fill and outline in the theme's colours: unmapped, the Waves similarity dots stayed
            # dark blue on a dark background.  Per-point brushes and pens (set as lists) are left as they are.
            self._pen_slot(item, memo, "pen", item.opts.get("pen"), item.setPen, self.theme.line_scale)
            self._symbol_brush(item, memo, item.opts.get("brush"), item.setBrush)

    def _pen_slot(self, item, memo: _Memo, slot: str, current, setter, width_scale: float, *,
                  fresh: bool = False) -> None:
        """Pen ``slot`` of ``item`` for the look; ``current`` (the item's pen now) becomes the base unless it is
        what was applied last (a view set it directly), or ``fresh`` says the base was just given."""
        sig = self.signature
        if not fresh:
            if current is None:
                return
            current = pg.mkPen(current)
            applied = memo.applied.get(slot)
            if applied == _pen_key(current) and memo.applied.get(slot + "_sig") == sig:
                return
            if slot not in memo.base or applied is None or _pen_key(current) != applied:
                memo.base[slot] = QPen(current)
        pen = mapped_pen(memo.base[slot], self.theme, width_scale)
        setter(pen)
        memo.applied[slot] = _pen_key(pen)
        memo.applied[slot + "_sig"] = sig

    def _data(self, item, memo: _Memo) -> None:
        opts = item.opts
        if opts.get("pen") is not None:
            self._pen_slot(item, memo, "pen", opts["pen"], item.setPen, self.line_scale)
        if opts.get("symbol") is None:
            return
        self._marker_size(item, memo, opts.get("symbolSize", 10), item.setSymbolSize)
        if opts.get("symbolPen") is not None:
            self._pen_slot(item, memo, "symbolPen", opts["symbolPen"], item.setSymbolPen, self.theme.line_scale)
        self._symbol_brush(item, memo, opts.get("symbolBrush"), item.setSymbolBrush)

    def _marker_size(self, item, memo: _Memo, size, setter) -> None:
        """A curve's symbols or :class:`Markers` at their base size × (1 + ½(line_scale − 1))."""
        if "symbolSize" not in memo.base or memo.applied.get("symbolSize") != size:
            memo.base["symbolSize"] = size
        # Not × pen_scale: a marker is drawn whole in the export's scaled painter, so it grows with the
        # image by itself (multiplying too gave 2× exports markers twice the size they should have).
        new = memo.base["symbolSize"] * (1.0 + 0.5 * (self.theme.line_scale - 1.0))
        if new != size:
            setter(new)
        memo.applied["symbolSize"] = new

    def _symbol_brush(self, item, memo: _Memo, current, setter, *, fresh: bool = False) -> None:
        """A marker's fill in the theme's colours, like its pen: unmapped, a dark marker (the Waves spectrum's
        grey, "Why sinusoids?"'s brown) vanished on a dark background.  A list (one per point) is left alone."""
        if current is None or isinstance(current, list) or getattr(current, "ndim", None):
            return
        brush = pg.mkBrush(current)
        c = brush.color()
        if brush.style() == Qt.BrushStyle.NoBrush or c.alpha() == 0:
            return
        if not fresh and memo.applied.get("symbolBrush") != c.rgba():  # set by the view: that is the base now
            memo.base["symbolBrush"] = (c.red(), c.green(), c.blue(), c.alpha())
        mapped = QColor(*self.theme.map_colour(memo.base["symbolBrush"]))
        if fresh or mapped.rgba() != c.rgba():
            setter(pg.mkBrush(mapped))
        memo.applied["symbolBrush"] = mapped.rgba()

    def _colormap(self, item, memo: _Memo, getter, setter) -> None:
        cmap = getter()
        if cmap is None:
            return
        name = getattr(cmap, "name", None)
        if "cmap" not in memo.base or memo.applied.get("cmap") != name:
            memo.base["cmap"] = name
        target = self.theme.map_colormap_name(memo.base["cmap"])
        if target and target != name:
            setter(target)
        memo.applied["cmap"] = target

    def _label(self, label, memo: _Memo) -> None:
        """A label of its own in a plot (not a title, not a legend's entry): its colour mapped, label size."""
        memo.base.setdefault("color", label.opts.get("color"))
        base_colour = memo.base["color"]
        if base_colour is None:
            colour = self.theme.foreground
        else:
            c = pg.mkColor(base_colour)
            colour = QColor(*self.theme.map_colour((c.red(), c.green(), c.blue(), c.alpha()))).name()
        label.setAttr("color", colour)
        label.setAttr("size", f"{self.theme.point_size(LABEL_PT, self.zoom):g}pt")
        if label.text:
            label.setText(label.text)

    def _text(self, item, memo: _Memo, *, rebase: bool) -> None:
        """A text item (an annotation, a line's label): colour and fill mapped, font × the theme's scale.

        With ``rebase`` a colour or font that is not what was applied last is the view's (set directly): the
        base from now on."""
        sig = self.signature
        if rebase:
            new_colour = "color" not in memo.base or memo.applied.get("color") != QColor(item.color).rgba()
            new_font = "font" not in memo.base or memo.applied.get("font") != _font_key(item.textItem.font())
            if not (new_colour or new_font) and memo.applied.get("sig") == sig:
                return
            if new_colour:
                memo.base["color"] = QColor(item.color)
            if new_font:
                memo.base["font"] = QFont(item.textItem.font())
        memo.base.setdefault("color", QColor(item.color))
        memo.base.setdefault("font", QFont(item.textItem.font()))
        memo.base.setdefault("fill", pg.mkBrush(item.fill) if getattr(item, "fill", None) is not None else None)
        c = memo.base["color"]
        colour = QColor(*self.theme.map_colour((c.red(), c.green(), c.blue(), c.alpha())))
        item.setColor(colour)
        fill = memo.base["fill"]
        if fill is not None and fill.style() != Qt.BrushStyle.NoBrush:
            brush = pg.mkBrush(fill)
            brush.setColor(QColor(*self.theme.map_fill(fill.color().getRgb())))
            item.fill = brush  # TextItem keeps its fill in this attribute (it has no setter)
            item.update()
        font = QFont(memo.base["font"])
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * self.theme.font_scale * self.zoom)
        item.setFont(font)
        memo.applied["color"] = colour.rgba()
        memo.applied["font"] = _font_key(item.textItem.font())
        memo.applied["sig"] = sig


def style_legend(legend, theme: Theme, zoom: float) -> None:
    """A legend's box in the theme's colours and its entries at tick size (a legend must not cover the curves
    it names); entries added later take the same from the legend's options."""
    brush = pg.mkBrush(theme.background)
    c = brush.color()
    c.setAlpha(215)
    legend.setBrush(c)
    legend.setPen(pg.mkPen(theme.foreground, width=1))
    size = f"{theme.point_size(TICK_PT, zoom):g}pt"
    legend.setLabelTextColor(theme.foreground)
    legend.setLabelTextSize(size)
    for _sample, label in legend.items:
        label.setText(label.text, color=theme.foreground, size=size)


def style_axis(axis, theme: Theme, zoom: float, pen_scale: float, memo) -> None:
    """An axis' line, tick text and label in ``theme``'s colours and sizes; ``memo`` (an object with ``base``
    and ``applied`` dicts) keeps a fixed width or height its view gave it, which grows with the text."""
    from .axis import Axis, fit_axis_label

    if isinstance(axis, Axis):
        axis.set_look(theme, zoom)
    fg = QColor(theme.foreground)
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
    # A view may fix an axis' width (or height) to line plots up; text grows with the theme and
    # zoom, so the fixed size grows with it (the app's Axis does so itself).
    ratio = theme.font_scale * zoom
    fixed = () if isinstance(axis, Axis) else (("fixedWidth", axis.setWidth), ("fixedHeight", axis.setHeight))
    for attr, setter in fixed:
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
        shown = axis.label.isVisibleTo(axis)  # a view may hide a label; setLabel would show it
        axis.setLabel(axis.labelText, axis.labelUnits, axis.labelUnitPrefix,
                      siPrefixEnableRanges=axis.getSIPrefixEnableRanges(), unitPower=axis.unitPower, **style)
        if not shown:
            axis.showLabel(False)
    fit_axis_label(axis)
