"""The app's plot axis: tick labels that never run together, SI log ticks, and a label that shrinks rather than
being cut.  Every plot of the app is built with it (``PlotItem(axisItems=...)``), colour bars included.

* Linear horizontal axes space their ticks by their labels' width too: pyqtgraph spaces ticks by the axis'
  length only, so presenter-size labels on a narrow plot ran together ("200400600800").
* :meth:`Axis.set_si_log_ticks`: in log mode, labels at decades only ("1", "100", "10k", "1M"; every 2nd or
  3rd decade on a short axis), 2 and 5 only when less than a decade shows, the minor ticks unlabelled
  (pyqtgraph labelled its 2 … 9 minor ticks too: "3·10¹4·10¹5·10¹").
* Whatever chose the ticks (pyqtgraph's spacing, a view's ``setTicks``), a tick label is drawn only where it keeps
  :data:`TICK_GAP` px from the labels drawn before it (the major ticks first) and lies whole inside the axis and its
  plot's widget (pyqtgraph draws every label, so fixed ticks on a short axis ran together: "1.00.750.5", and clips
  the ones past the axis' ends or the widget's); the tick itself stays.
* An axis label longer than its axis is shortened first (:meth:`Axis.label_forms`: its trailing "(…)" left out,
  then cut at a word), the whole title in the axis's tooltip, so a presenter-size title stays at the body text's
  size; only a label no form of which fits is drawn smaller (down to
  :data:`~explorer.widgets.titles.AXIS_LABEL_MIN_SCALE`), centred again: pyqtgraph centres it whatever its length,
  so "slower ◀ pair i ▶ FASTER" on a short plot was cut at both ends and ran into the plot above.
* Its label takes the theme's colour and size (:meth:`Axis.set_look`), whatever style a view passes, and a
  fixed width or height a view gives it (to line plots up) is for zoom 1 in a normal theme: it grows with the text.
  :meth:`Axis.reserve_tick_text` keeps a vertical axis as wide as given labels need, so new ticks never lay its
  plot out again.
"""

from __future__ import annotations

import contextlib
import html
import math
import re
from collections.abc import Iterator

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QPixmapCache
from PySide6.QtWidgets import QGraphicsItem

from ..theme import LABEL_PT, Theme
from .frame_probe import timed
from .log_ticks import label_room, log_tick_strings, log_tick_values, nice_at_least, tick_font
from .titles import AXIS_LABEL_MIN_SCALE, elided, plain

_NUDGE = 5  # pyqtgraph's own offset of an axis label from the axis' outer edge
#: The least gap (px) between two tick labels drawn side by side (or one above the other).
TICK_GAP = 3.0
#: Room (px) around an axis' rect for what pyqtgraph strokes on its edge (the axis line, up to 8 px wide).
_STROKE_ROOM = 4
#: The least room (KB) Qt's picture cache is given for the axes' pictures: a 4K window's Waves tab keeps about 15 MB.
PICTURES_KB = 64 * 1024
_TAG = re.compile(r"<[^>]+>")
_OPERATORS = set("/·×*+-−=÷:,")


class Axis(pg.AxisItem):
    """A pyqtgraph axis with the app's tick spacing, log ticks and label fitting (see the module)."""

    def __init__(self, orientation: str, **kwargs) -> None:
        self._si_log = False
        self._look: tuple[Theme, float] | None = None
        self._fixed: dict[str, int | None] = {"width": None, "height": None}
        self._reserved: tuple[str, ...] = ()  # tick texts a vertical axis is kept wide enough for
        self._shown_form: str | None = None  # the shorter form of the label drawn (None: the whole label)
        self._fitting = False
        self._placing_labels = False
        self._rect_kept: tuple | None = None  # (geometry, what else the rect depends on, the rect): boundingRect
        super().__init__(orientation, **kwargs)
        # Kept as a picture in the view's pixels, painted again only when the axis changes: an image or a curve
        # that changes beside it (inward ticks reach into the plot) repainted every axis of its plot at every
        # drag step, each a replay of its tick lines and texts (Token swap: 14 axes a step, about 1 ms).
        self._keep_picture()
        self.label.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)  # its own picture (the axis' is not)
        # A label's text changes without a resize (a new title for the axis): fit it then too.
        self.label.document().contentsChanged.connect(self._on_label_changed)

    def _keep_picture(self) -> None:
        """Keep the axis as a picture of the view's pixels.  Qt keeps item pictures in one cache, 10 MB by default;
        a gridded axis' picture is its whole plot's size, and a picture pushed out is drawn afresh at every paint:
        the cache is given room for a window of large plots."""
        if QPixmapCache.cacheLimit() < PICTURES_KB:
            QPixmapCache.setCacheLimit(PICTURES_KB)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    @property
    def picture(self):
        """pyqtgraph's recorded ticks and labels (None: record them again at the next paint)."""
        return self._picture

    @picture.setter
    def picture(self, value) -> None:
        self._picture = value
        # The kept picture of the view is out of date too: paint again.  Not from inside the recording itself
        # (pyqtgraph drops the picture it is making when it sizes the axis for its labels, then keeps it).
        if value is None and self.cacheMode() != QGraphicsItem.CacheMode.NoCache and not self._placing_labels:
            self.update()

    def boundingRect(self):  # noqa: N802 - Qt override
        # pyqtgraph strokes the axis line on the edge of this rect, half of it outside; cached as a picture (see
        # __init__) only what lies inside is kept, and a colour bar's frame lost half its width.  Not while the
        # ticks are worked out: pyqtgraph draws no tick label this rect does not hold (see generateDrawSpecs).
        # Kept while the axis' geometry and style are the same: Qt asks about 4 times per axis per repaint
        # (Token swap: 60 times a drag step), and pyqtgraph works it out again each time.  An axis with a grid
        # reaches over its view, which may move alone: worked out every time.
        geometry, style = self.geometry(), self.style
        depends = (self._placing_labels, self.grid, style["tickLength"], style["hideOverlappingLabels"],
                   self.orientation)
        kept = self._rect_kept
        if kept is not None and kept[1] == depends and kept[0] == geometry and self.grid is False:
            return QRectF(kept[2])
        rect = super().boundingRect()
        if not self._placing_labels:
            rect = rect.adjusted(-_STROKE_ROOM, -_STROKE_ROOM, _STROKE_ROOM, _STROKE_ROOM)
        self._rect_kept = (geometry, depends, QRectF(rect))
        return rect

    def paint(self, p, opt, widget) -> None:  # noqa: D102 - Qt override
        # Tick lines and labels: the bench times them apart from the rest of the plot's repaint.
        timed("axes", self, super().paint, p, opt, widget)

    def set_si_log_ticks(self, on: bool = True) -> None:
        """Use the SI decade ticks of this module while the axis is in log mode."""
        self._si_log = bool(on)
        self.picture = None
        self.update()

    def set_look(self, theme: Theme, zoom: float) -> None:
        """The theme's label colour and size from now on, and a fixed width or height a view gave the axis
        grown with the text (the theme's styling calls this)."""
        self._look = (theme, float(zoom))
        if self._fixed["width"] is not None:
            super().setWidth(self._scaled(self._fixed["width"]))
        if self._fixed["height"] is not None:
            super().setHeight(self._scaled(self._fixed["height"]))

    def _scaled(self, size: int | None) -> int | None:
        if size is None or self._look is None:
            return size
        theme, zoom = self._look
        return int(round(size * theme.font_scale * zoom))

    def setWidth(self, w=None) -> None:  # noqa: N802 - pyqtgraph API
        """Reserve ``w`` px for the ticks and their labels at zoom 1 in a normal theme (the text grows with the
        theme and zoom, and so does the width); None: as much as the text needs."""
        self._fixed["width"] = w
        super().setWidth(self._scaled(w))

    def reserve_tick_text(self, *texts: str) -> None:
        """Keep this vertical axis as wide as the widest of ``texts`` needs in its tick font, whatever ticks show,
        at every look: pyqtgraph widens an axis when a wider label first shows, and the whole plot is laid out and
        repainted again (the Waves spectrum's λ axis, once a drag, when the range first reached "100k": the drag's
        longest turn).  The texts given must be the widest the axis can show: a wider label would run into the
        axis' title."""
        self._reserved = tuple(texts)
        self._apply_reserved()

    def setStyle(self, **kwds) -> None:  # noqa: N802 - pyqtgraph API
        super().setStyle(**kwds)
        if "tickFont" in kwds and self._reserved:
            self._apply_reserved()  # the room the texts take in the new font

    def _apply_reserved(self) -> None:
        metrics = QFontMetricsF(tick_font(self))
        room = math.ceil(max(metrics.horizontalAdvance(t) for t in self._reserved))
        super().setStyle(autoExpandTextSpace=False, tickTextWidth=room)

    def setHeight(self, h=None) -> None:  # noqa: N802 - pyqtgraph API
        """The height's counterpart of :meth:`setWidth`."""
        self._fixed["height"] = h
        super().setHeight(self._scaled(h))

    def label_forms(self, text: str, font: QFont, room: float) -> list[str]:
        """Shorter forms of the plain label ``text`` the axis may show when the whole does not fit ``room`` px in
        ``font``, longest first: without its trailing "(…)", then that cut at a word to fit."""
        forms = []
        bare = without_trailing_note(text)
        if bare and bare != text and bare[-1] not in _OPERATORS:  # "PE(p)·PE(p+Δ) / (d/2)" keeps its divisor
            forms.append(bare)
        cut = _word_cut(forms[-1] if forms else text, font, room)
        return forms + ([cut] if cut else [])

    def full_label(self) -> str:
        """The whole label as plain text, its runs of spaces one (as the label draws them); shown whole, or
        shortened with this in the tooltip."""
        return " ".join(plain(pg.AxisItem.labelString(self)).split())

    def show_label_form(self, form: str | None) -> bool:
        """Draw ``form`` (plain text, a shorter form of the label) in the label's style, or the whole label
        (None); the tooltip holds the whole label while a shorter one is drawn.  True: the drawn text changed."""
        if form == self._shown_form:
            return False
        self._shown_form = form
        self._fitting = True
        try:
            self.label.setHtml(self.labelString())
        finally:
            self._fitting = False
        self.setToolTip(self.full_label() if form is not None else "")
        return True

    def label_font(self) -> QFont:
        """The font the label is drawn in (its style's size)."""
        font = QFont(self.label.font())
        size = str(self.labelStyle.get("font-size", ""))
        if size.endswith("pt"):
            try:
                font.setPointSizeF(float(size[:-2]))
            except ValueError:
                pass
        return font

    # -- pyqtgraph's hooks ------------------------------------------------------------------------
    def labelString(self) -> str:  # noqa: N802 - pyqtgraph API
        whole = super().labelString()
        if self._shown_form is None:
            return whole
        style = ";".join(f"{k}: {v}" for k, v in self.labelStyle.items())
        return f"<span style='{style}'>{html.escape(self._shown_form, quote=False)}</span>"

    def setLabel(self, text=None, units=None, unitPrefix=None, **kwargs) -> None:  # noqa: N802,N803 - pyqtgraph API
        self._shown_form = None  # a new label: fitted from its whole text again
        if self._look is not None:
            theme, zoom = self._look
            kwargs = {**kwargs, "color": theme.foreground, "font-size": f"{theme.point_size(LABEL_PT, zoom):g}pt"}
        super().setLabel(text, units, unitPrefix, **kwargs)

    def tickSpacing(self, minVal, maxVal, size):  # noqa: N802,N803 - pyqtgraph API
        levels = super().tickSpacing(minVal, maxVal, size)
        if self.orientation not in ("top", "bottom") or self.logMode or self._tickSpacing is not None:
            return levels
        dif = abs(maxVal - minVal)
        if not levels or not math.isfinite(dif) or dif <= 0 or size <= 0:
            return levels
        allowed = max(1.0, size / label_room(self, minVal, maxVal))  # labels side by side
        if dif / levels[0][0] <= allowed:
            return levels
        major = nice_at_least(dif / allowed)
        minor = major / (2 if f"{major:.0e}"[0] == "2" else 5)
        return [(major, 0), (minor, 0)]

    def generateDrawSpecs(self, p):  # noqa: N802 - pyqtgraph API
        self._placing_labels = True
        try:
            specs = super().generateDrawSpecs(p)
        finally:
            self._placing_labels = False
        if specs is None:
            return specs
        axis_spec, tick_specs, text_specs = specs
        return axis_spec, tick_specs, spaced_labels(text_specs, self.orientation, self._label_bounds())

    def _label_bounds(self):
        """Where a tick label may be drawn: inside the axis (with pyqtgraph's overhang at its ends) and inside what
        its plot shows (a colour bar's end label reached past its widget's edge and was drawn cut)."""
        bounds = pg.AxisItem.boundingRect(self)  # (not the stroke's room around it)
        scene = self.scene()
        views = scene.views() if scene is not None else []
        if views:
            view = views[0]
            shown = self.mapRectFromScene(view.mapToScene(view.viewport().rect()).boundingRect())
            bounds = bounds.intersected(shown)
        return bounds

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # noqa: N802,N803 - pyqtgraph API
        if self._si_log:
            return log_tick_values(self, minVal, maxVal, size)
        return super().logTickValues(minVal, maxVal, size, stdTicks)

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph API
        if self._si_log:
            return log_tick_strings(values, scale, spacing)
        return super().logTickStrings(values, scale, spacing)

    def resizeEvent(self, ev=None) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(ev)
        fit_axis_label(self)

    def _on_label_changed(self) -> None:
        if not self._fitting:
            fit_axis_label(self)


def spaced_labels(text_specs: list, orientation: str, bounds) -> list:
    """The tick labels of ``text_specs`` (pyqtgraph's (rect, flags, text), major ticks first) that lie inside
    ``bounds`` and keep :data:`TICK_GAP` px from every label kept before them."""
    vertical = orientation in ("left", "right")
    inside = bounds.adjusted(-0.5, -0.5, 0.5, 0.5)
    kept: list = []
    for spec in text_specs:
        rect = spec[0]
        if not inside.contains(rect):
            continue
        grown = rect.adjusted(0, -TICK_GAP, 0, TICK_GAP) if vertical else rect.adjusted(-TICK_GAP, 0, TICK_GAP, 0)
        if any(grown.intersects(other[0]) for other in kept):
            continue
        kept.append(spec)
    return kept


def without_trailing_note(text: str) -> str:
    """``text`` without the parenthesis that ends it, set apart by a space (nested ones included): "accuracy (%)"
    → "accuracy"; ``text`` itself where it does not end in one."""
    text = text.rstrip()
    if not text.endswith(")"):
        return text
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth == 0:  # a note stands apart ("accuracy (%)"); "f(x)" is a call
            return text[:i].rstrip() if i > 0 and text[i - 1].isspace() else text
    return text


def _word_cut(text: str, font: QFont, width: float) -> str | None:
    """``text`` cut at a word to ``width`` px with "…", or None where only a cut inside a word would fit."""
    cut = elided(text, font, width)
    kept = cut[:-1]
    if cut == text or not kept or not text.startswith(kept) or not text[len(kept)].isspace():
        return None
    return cut


def _choose_form(axis, room: float) -> bool:
    """Show the longest form of ``axis``' label that fits ``room`` px, else its shortest (drawn smaller).  True:
    the drawn text changed."""
    if not isinstance(axis, Axis):
        return False
    whole = axis.full_label()
    if not whole or _TAG.search(axis.labelText or "") or axis.labelUnits:
        return axis.show_label_form(None)
    font = axis.label_font()
    metrics = QFontMetricsF(font)
    margin = 2 * axis.label.document().documentMargin() + 1
    if metrics.horizontalAdvance(whole) + margin <= room:
        return axis.show_label_form(None)
    forms = axis.label_forms(whole, font, room - margin)
    fitting = [f for f in forms if metrics.horizontalAdvance(f) + margin <= room]
    return axis.show_label_form(fitting[0] if fitting else forms[-1] if forms else None)


def fit_axis_label(axis) -> None:
    """Show the longest form of ``axis``' label that fits its axis (:meth:`Axis.label_forms`); draw the one
    shown smaller (at most down to ``AXIS_LABEL_MIN_SCALE``) where even it is longer, centred on the axis."""
    label = getattr(axis, "label", None)
    if label is None:
        return
    vertical = axis.orientation in ("left", "right")
    room = (axis.size().height() if vertical else axis.size().width()) - 8
    changed = _choose_form(axis, room)
    br = label.boundingRect()
    scale = 1.0 if br.width() <= room or br.width() <= 0 else max(AXIS_LABEL_MIN_SCALE, room / br.width())
    if scale == label.scale() and scale == 1.0 and not changed:
        return
    label.setScale(scale)
    w, h = br.width() * scale, br.height() * scale
    size = axis.size()
    if axis.orientation == "left":
        label.setPos(-_NUDGE, int(size.height() / 2 + w / 2))
    elif axis.orientation == "right":
        label.setPos(int(size.width() - h + _NUDGE), int(size.height() / 2 + w / 2))
    elif axis.orientation == "top":
        label.setPos(int(size.width() / 2 - w / 2), -_NUDGE)
    else:
        label.setPos(int(size.width() / 2 - w / 2), int(size.height() - h + _NUDGE))


def app_axes(given: dict | None = None) -> dict:
    """Four :class:`Axis` items by name, with those in ``given`` (custom ones, e.g. token axes) in their place."""
    axes = {name: Axis(name) for name in ("left", "bottom", "right", "top") if name not in (given or {})}
    axes.update(given or {})
    return axes


@contextlib.contextmanager
def painted_afresh(views) -> Iterator[None]:
    """While inside, the axes, titles and axis labels of ``views`` are painted afresh, not from the pictures kept of
    them on screen (an export: a picture made at the screen's size came out blurred at 2×, and as an image in an
    SVG); each keeps its picture again after."""
    kept = [(item, item.cacheMode()) for v in views if v.scene() is not None for item in v.scene().items()
            if item.cacheMode() != QGraphicsItem.CacheMode.NoCache]
    for item, _mode in kept:
        item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    try:
        yield
    finally:
        for item, mode in kept:
            try:
                item.setCacheMode(mode)
            except RuntimeError:  # deleted meanwhile (its plot closed)
                pass
