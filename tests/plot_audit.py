"""The in-plot audit (not a test module): inside one plot, measured from its items' own scene geometry.

:func:`audit` returns one line per fault it finds in a plot on screen:

* **Titles** — a title shown shorter than its full text must be a whole-word prefix of it followed by "…" (never
  "Learned tabl…"), and the full title must be reachable: the title's tooltip holds it.  The shown text must fit
  the title's own box (nothing cut at the plot's edge).
* **Legends** (every visible ``pg.LegendItem`` of the plot) must cover no data: no curve segment, no scatter
  point (with its symbol), no bar (``pg.BarGraphItem``'s shape) and no image (``pg.ImageItem`` within the view).
* **Annotations** — every visible text in the view (``pg.TextItem``, an ``InfiniteLine``'s label, a Qt text item,
  and items that draw text themselves and say where through ``text_rects()``) must lie inside the view, apart from
  every other annotation and from the legend, and off the curves, scatter points and bars (it may touch them: a bar's
  value sits on its bar; 2 px of slack).
* **Markers** — a scatter point whose centre is in the view must show its whole symbol: none cut by the plot's edge
  (the Waves spectrum's ring on pair 0 was cut in half at 1280 × 720 in presenter mode).
* **Ticks** — each visible axis's tick labels as pyqtgraph draws them (``AxisItem.generateDrawSpecs``: its tick
  values, strings and font metrics) must keep at least :data:`TICK_GAP` px apart and lie inside the axis (which
  clips them) and inside the plot's widget (a colour bar's end label was cut by its widget's edge); an axis that
  labels tokens (``labels()``) must draw every token's label (whole, or shortened to a prefix and "…"), or say in
  its title which ones it labels (``hidden_note()`` shown in its label).
* **Size** — the data area (the view box) must be at least :data:`MIN_LINES` body-text lines tall and
  ``2 × MIN_LINES`` wide: a smaller plot cannot show three labelled ticks a line apart beside its data, nor a
  one-line annotation without covering it (the "90-px stamps" of issue 27).  Colour bars are not plots.
* **Axis titles** in presenter mode must be drawn at least as large as the body text (after any shrinking to fit);
  one shown shorter than its whole text (the app's ``Axis.full_label``) must keep whole words and have the whole
  title in the axis's tooltip.
"""

from __future__ import annotations

import html
import re

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QGraphicsSimpleTextItem, QGraphicsTextItem

from explorer.export.images import settle_placements
from explorer.widgets.annotation_place import text_rect
from explorer.widgets.plot_geometry import PlotData, visible
from explorer.widgets.titles import full_title

#: Tick labels closer than this (px) run together.
TICK_GAP = 2.0
#: The least height of a plot's data area, in lines of body text (twice that is its least width).
MIN_LINES = 5
#: Plots that are colour bars or strips, not data plots (their own size rules are the layout test's).
NOT_PLOTS = {"sharedColourBar", "gridColourBar"}
_TAG = re.compile(r"<[^>]+>")
_SLACK = 2.0


def plain(text: str) -> str:
    return html.unescape(_TAG.sub("", text or "")).strip()


def body_px(widget) -> float:
    """The height of a line of the window's body text."""
    return QFontMetricsF(widget.window().font()).height()


# -- the texts ---------------------------------------------------------------------------------------
def _texts(vb) -> list[tuple[str, QRectF]]:
    """Every visible annotation of the view: (text, scene rectangle)."""
    out = []
    stack = list(vb.childGroup.childItems())
    while stack:
        item = stack.pop()
        if not visible(item):
            continue
        if isinstance(item, pg.TextItem):
            if item.toPlainText().strip():
                out.append((item.toPlainText(), text_rect(item)))
            continue
        if isinstance(item, (QGraphicsTextItem, QGraphicsSimpleTextItem)):
            text = item.toPlainText() if isinstance(item, QGraphicsTextItem) else item.text()
            if text.strip():
                out.append((text, item.sceneBoundingRect()))
            continue
        rects = getattr(item, "text_rects", None)
        if callable(rects):
            out += [(t, item.mapRectToScene(r)) for t, r in rects()]
        stack += list(item.childItems())
    return out


def _shrunk(r: QRectF, by: float = _SLACK) -> QRectF:
    return r.adjusted(by, by, -by, -by)


# -- the checks ----------------------------------------------------------------------------------------
def _title(pi, where: str) -> list[str]:
    label = pi.titleLabel
    full = plain(full_title(pi))
    if not full or not visible(label):
        return []
    shown = plain(label.text)
    out = []
    if shown != full:
        prefix = shown[:-1].rstrip() if shown.endswith("…") else None
        if prefix is None or not prefix or not full.startswith(prefix) or not full[len(prefix)].isspace():
            out.append(f"{where}: title cut mid-word: {shown!r} of {full!r}")
        if plain(label.toolTip()) != full:
            out.append(f"{where}: title shortened to {shown!r} and its whole text is in no tooltip")
    text = label.item.mapRectToScene(label.item.boundingRect())
    box = label.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    if text.left() < box.left() or text.right() > box.right():
        out.append(f"{where}: title {shown!r} runs past its plot")
    return out


def _legends(plot, pi, data: PlotData, where: str) -> tuple[list[str], list[QRectF]]:
    out, boxes = [], []
    for item in plot.scene().items():
        if isinstance(item, pg.LegendItem) and visible(item) and item.items:
            box = item.sceneBoundingRect()
            boxes.append(box)
            what = data.covered(_shrunk(box, 1.0))
            if what:
                names = ", ".join(plain(label.text) for _, label in item.items)
                out.append(f"{where}: the legend ({names}) covers {what}")
            shown = plot.mapToScene(plot.viewport().rect()).boundingRect().adjusted(-1, -1, 1, 1)
            if not shown.contains(box):
                out.append(f"{where}: the legend runs out of its plot")
            for _, label in item.items:  # a legend squeezed narrower than its text cuts the names at its edge
                text = label.item.mapRectToScene(label.item.boundingRect())
                if visible(label) and not (shown.contains(text) and box.adjusted(-1, -1, 1, 1).contains(text)):
                    out.append(f"{where}: the legend's {plain(label.text)!r} is cut")
    return out, boxes


def _annotations(pi, data: PlotData, legends: list[QRectF], where: str) -> list[str]:
    vb = pi.getViewBox()
    view = vb.sceneBoundingRect().adjusted(-_SLACK, -_SLACK, _SLACK, _SLACK)
    texts = _texts(vb)
    out = []
    for text, rect in texts:
        if not view.contains(rect):
            out.append(f"{where}: {text!r} runs out of the plot")
        what = data.covered(_shrunk(rect), images=False)
        if what:
            out.append(f"{where}: {text!r} lies on {what}")
        if any(_shrunk(rect).intersects(box) for box in legends):
            out.append(f"{where}: {text!r} lies under the legend")
    for i, (a, ra) in enumerate(texts):
        for b, rb in texts[i + 1:]:
            if _shrunk(ra, 1.0).intersects(_shrunk(rb, 1.0)):
                out.append(f"{where}: {a!r} and {b!r} overlap")
    return out


def _markers(pi, data: PlotData, where: str) -> list[str]:
    view = pi.getViewBox().sceneBoundingRect()
    x0, y0, x1, y1 = view.left(), view.top(), view.right(), view.bottom()
    out = []
    for sx, sy, r in data.points:
        inside = (sx >= x0) & (sx <= x1) & (sy >= y0) & (sy <= y1)
        room = r - _SLACK
        cut = inside & ((sx - room < x0) | (sx + room > x1) | (sy - room < y0) | (sy + room > y1))
        if cut.any():
            out.append(f"{where}: {int(cut.sum())} markers ({2 * r:g} px) cut by the plot's edge")
    return out


def tick_texts(axis) -> list[tuple[QRectF, str]]:
    """The axis's tick labels as pyqtgraph draws them: (rectangle in the axis's coordinates, text)."""
    image = QImage(4, 4, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [] if specs is None else [(QRectF(r), t) for r, _flags, t in specs[2] if t]


def _ticks(plot, pi, where: str) -> list[str]:
    out = []
    shown = plot.mapToScene(plot.viewport().rect()).boundingRect().adjusted(-1, -1, 1, 1)  # the plot on screen
    for name, entry in pi.axes.items():
        axis = entry["item"]
        if not visible(axis) or not axis.style.get("showValues", True):
            continue
        texts = tick_texts(axis)
        vertical = name in ("left", "right")
        texts.sort(key=lambda rt: rt[0].top() if vertical else rt[0].left())
        for (ra, a), (rb, b) in zip(texts, texts[1:], strict=False):
            gap = rb.top() - ra.bottom() if vertical else rb.left() - ra.right()
            if gap < TICK_GAP:
                out.append(f"{where}: {name} ticks {a!r} and {b!r} run together ({gap:.0f} px apart)")
        bounds = axis.boundingRect().adjusted(-1, -1, 1, 1)
        for rect, text in texts:
            if not bounds.contains(rect):
                out.append(f"{where}: {name} tick {text!r} is cut at the axis' edge")
            elif not shown.contains(axis.mapRectToScene(rect)):
                out.append(f"{where}: {name} tick {text!r} is cut at the plot's edge")
        labels = getattr(axis, "labels", None)
        if callable(labels) and labels():
            drawn = [t for _, t in texts]
            hidden = [t for t in labels() if not any(d == t or d.endswith("…") and len(d) > 1
                                                     and t.startswith(d[:-1]) for d in drawn)]
            note = getattr(axis, "hidden_note", lambda: "")()
            said = note and axis.label.isVisible() and note in axis.label.toPlainText().strip()
            if hidden and not said:
                out.append(f"{where}: the {name} axis drops {', '.join(map(repr, hidden[:6]))} and does not say so")
    return out


def _size(plot, pi, where: str, line: float) -> list[str]:
    if plot.objectName() in NOT_PLOTS:
        return []
    r = pi.getViewBox().sceneBoundingRect()
    if r.height() < MIN_LINES * line or r.width() < 2 * MIN_LINES * line:
        return [f"{where}: the data area is {r.width():.0f}×{r.height():.0f} px, under {2 * MIN_LINES * line:.0f}"
                f"×{MIN_LINES * line:.0f} ({MIN_LINES} lines of {line:.0f}-px text)"]
    return []


def _shortened_axis_title(axis, where: str, name: str) -> list[str]:
    """An axis title drawn shorter than its whole text: whole words, the whole title in the axis's tooltip."""
    full = getattr(axis, "full_label", None)
    shown = axis.label.toPlainText().strip()
    if not callable(full) or shown == full():
        return []
    whole = full()
    out = []
    if plain(axis.toolTip()) != whole:
        out.append(f"{where}: {name} axis title {shown!r} is shortened without the whole title in a tooltip")
    if shown.endswith("…"):
        kept = shown[:-1]
        if not whole.startswith(kept) or len(kept) >= len(whole) or not whole[len(kept)].isspace():
            out.append(f"{where}: {name} axis title {shown!r} is cut inside a word of {whole!r}")
    return out


def _axis_titles(pi, where: str, line: float, presenter: bool = True) -> list[str]:
    out = []
    for name, entry in pi.axes.items():
        axis = entry["item"]
        if not visible(axis) or not axis.label.isVisible() or not axis.label.toPlainText().strip():
            continue
        out += _shortened_axis_title(axis, where, name)
        if not presenter:
            continue
        size = str(axis.labelStyle.get("font-size", ""))
        font = QFont(axis.label.font())
        if size.endswith("pt"):
            font.setPointSizeF(float(size[:-2]))
        drawn = QFontMetricsF(font).height() * axis.label.scale()
        if drawn < line - 0.5:
            out.append(f"{where}: {name} axis title {axis.label.toPlainText().strip()!r} is {drawn:.0f} px, "
                       f"under the body text's {line:.0f}")
    return out


def audit(plot: pg.PlotWidget, name: str = "", *, presenter: bool = False, line: float | None = None,
          size: bool = True) -> list[str]:
    """The faults inside ``plot`` (empty when there are none); ``line``: the body text's line height (default:
    the plot window's font); ``presenter``: check axis titles against it too; ``size``: check the data area."""
    pi = plot.getPlotItem()
    settle_placements(plot)  # a change whose placement is still due on the event loop: the plot is not settled
    where = name or plain(full_title(pi)) or plot.objectName()
    line = body_px(plot) if line is None else line
    data = PlotData(pi)
    problems = _title(pi, where)
    found, legends = _legends(plot, pi, data, where)
    problems += found
    problems += _annotations(pi, data, legends, where)
    problems += _markers(pi, data, where)
    problems += _ticks(plot, pi, where)
    if size:
        problems += _size(plot, pi, where, line)
    problems += _axis_titles(pi, where, line, presenter)
    return problems
