"""Small graphics pieces of the Schemes panel: hatching, masks, labels, colours and plot styling."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QPolygonF,
    QTransform,
)
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsPolygonItem

from ... import schemes as registry
from ...theme import mask_colour
from ...widgets.log_ticks import tick_font
from ...widgets.plots import make_plot as _make_plot
from ...widgets.styler import mapped_colour
from ...widgets.theming import current_theme


def scheme_colour(scheme: str) -> str:
    """The scheme's one colour in every view (from its record; Okabe–Ito, safe for colour-vision deficiency)."""
    return registry.get(scheme).colour if scheme in registry.ids() else "#202020"
#: Marks "past L_train" everywhere: hatching and lines.
BEYOND_COLOUR = QColor(60, 60, 60)


def _hatch_pixmap(spacing: int = 24, width: float = 1.2, colour: QColor | None = None) -> QPixmap:
    """One tile of the "beyond L_train" hatching: thin, sparse lines (at 12 px and 1.6 px they covered
    three quarters of every default score matrix like a grille and moiréd with RoPE's stripes)."""
    pm = QPixmap(spacing, spacing)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    c = QColor(colour if colour is not None else BEYOND_COLOUR)
    c.setAlpha(150)
    p.setPen(QPen(c, width))
    for off in (-spacing, 0, spacing):  # three segments so the tiles join into unbroken diagonals
        p.drawLine(QPointF(off, spacing), QPointF(off + spacing, 0))
    p.end()
    return pm


class HatchItem(QGraphicsPathItem):
    """Diagonal hatching over a region given in data coordinates, drawn at a fixed on-screen spacing.

    The brush is scaled by the inverse of the view's zoom, so the stripes keep the same width and
    spacing however the plot is zoomed (a plain texture brush would stretch with the data).
    """

    def __init__(self) -> None:
        super().__init__()
        self._pixmap = _hatch_pixmap()
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setZValue(20)

    def set_colour(self, colour) -> None:
        """Stripe colour (light stripes on a dark theme)."""
        self._pixmap = _hatch_pixmap(colour=QColor(colour))
        self.update()

    def set_rects(self, rects) -> None:
        """Hatch the union of ``rects`` (x, y, w, h); empty rectangles are skipped."""
        path = QPainterPath()
        path.setFillRule(Qt.FillRule.WindingFill)
        for x, y, w, h in rects:
            if w > 0 and h > 0:
                path.addRect(QRectF(x, y, w, h))
        self.setPath(path.simplified())

    def paint(self, painter, option, widget=None) -> None:  # noqa: D102 - Qt override
        t = painter.transform()
        sx, sy = t.m11() or 1.0, t.m22() or 1.0
        brush = QBrush(self._pixmap)
        brush.setTransform(QTransform(1.0 / sx, 0.0, 0.0, 1.0 / sy, 0.0, 0.0))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(brush)
        painter.drawPath(self.path())


class FutureMask(QGraphicsPolygonItem):
    """The causal mask: a veil over keys j > i (upper-right triangle of an i × j matrix) in the theme's mask
    colour (:func:`explorer.theme.mask_colour`: never the look of zero)."""

    def __init__(self) -> None:
        super().__init__()
        self.set_theme(current_theme())
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setZValue(10)

    def set_theme(self, theme) -> None:
        self.setBrush(QBrush(QColor(*mask_colour(theme))))

    def set_size(self, n: float) -> None:
        self.setPolygon(QPolygonF([QPointF(0, 0), QPointF(n, 0), QPointF(n, n)]))


class Note(pg.TextItem):
    """An annotation inside a plot that remembers its whole text (:func:`fit_note` may show less of it) and
    whether its view wants it shown where there is room."""

    full_note = ""
    wanted = False
    #: Placed and shown by its view alone, never moved or hidden by the plot's annotation placer: a note that stands
    #: in for a plot's missing data must be read whatever else is on the plot.
    self_placed = False


def label(text: str = "", *, colour: str = "#202020", fill: str | None = "#ffffffd8", anchor=(0.5, 0.5),
          size: int = 11, bold: bool = False) -> Note:
    """A readable text item (light box behind it) for annotations inside plots."""
    item = Note(text, color=colour, anchor=anchor, fill=pg.mkBrush(fill) if fill else None)
    font = QFont()
    font.setPointSize(size)
    font.setBold(bold)
    item.setFont(font)
    item.setZValue(30)
    return item


def make_plot(title: str = "", *, x: str = "", y: str = "") -> pg.PlotWidget:
    """A themed PlotWidget (the shared factory: light grid, menus kept for export, no SI prefixes)."""
    return _make_plot(title, x=x, y=y)


#: A scheme's ``line`` (its record) as a Qt pen style: a variant of another scheme's colour is told apart by it.
LINE_STYLES = {"solid": Qt.PenStyle.SolidLine, "dash": Qt.PenStyle.DashLine, "dot": Qt.PenStyle.DotLine,
               "dashdot": Qt.PenStyle.DashDotLine, "dashdotdot": Qt.PenStyle.DashDotDotLine}
#: Styles for a scheme's score terms drawn apart, in order (all in the scheme's colour): the second and fourth
#: (Transformer-XL's wavy position terms) dashed and dotted, which stay apart where dash and dash-dot blur.
TERM_STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DashDotLine, Qt.PenStyle.DotLine,
               Qt.PenStyle.DashDotDotLine)


def line_style(scheme: str):
    """The Qt pen style of ``scheme``'s curves (solid unless its record says otherwise)."""
    return LINE_STYLES.get(registry.get(scheme).line if scheme in registry.ids() else "solid",
                           Qt.PenStyle.SolidLine)


def pen(scheme: str, width: float = 2.5, style=Qt.PenStyle.SolidLine) -> QPen:
    p = pg.mkPen(scheme_colour(scheme), width=width)
    p.setStyle(style)
    return p


def beyond_line(pos: float, angle: int = 90, text: str = "", *, position: float | None = None,
                size: int | None = 10) -> pg.InfiniteLine:
    """A dashed line at L_train (or another limit), optionally labelled (at ``position`` along it, ``size`` pt)."""
    dash = pg.mkPen(BEYOND_COLOUR, width=1.6, style=Qt.PenStyle.DashLine)
    where = position if position is not None else 0.92 if angle == 90 else 0.08
    opts = {"position": where, "anchors": [(0, 0), (0, 0)], "color": (40, 40, 40)}
    line = pg.InfiniteLine(pos, angle=angle, pen=dash, movable=False, label=text or None, labelOpts=opts)
    if text and size is not None:
        font = QFont()
        font.setPointSize(size)
        line.label.setFont(font)
    line.setZValue(25)
    return line


def theme_info_label(lab, theme) -> None:
    """Size and colour an explanatory label for ``theme`` (its style sheet sets the font itself)."""
    pt = round(11 * theme.font_scale, 1)
    lab.setStyleSheet(f"QLabel {{ font-size: {pt:g}pt; padding: 2px 4px; color: {theme.foreground}; }}")


#: The key's sample of each line style (schemes that share a colour are told apart by it).
KEY_GLYPHS = {"solid": "━━", "dash": "╍╍", "dot": "┅┅", "dashdot": "━┅", "dashdotdot": "━┉"}


def scheme_key(schemes, theme=None) -> str:
    """Rich text naming ``schemes`` in their curves' colours and line styles: the key of a plot of many curves,
    which wraps above the plot (a legend of fifteen entries was cut and covered the curves)."""
    out = []
    for s in schemes:
        sch = registry.get(s)
        c = mapped_colour(scheme_colour(s), theme)
        out.append(f"<span style='white-space:nowrap'><span style='color:{c.name()}; font-weight:700'>"
                   f"{KEY_GLYPHS.get(sch.line, '━━')}</span>&nbsp;{sch.title}</span>")
    return " &nbsp; ".join(out)


def fit_note(item: Note, plot, text: str, room: float = 0.94) -> None:
    """Put ``text`` on the note ``item`` in ``plot``, or its first line when the whole is wider than ``room``
    of the plot's view box, or nothing (hidden) when even that is; the whole is kept for the next fit.
    (At 1280 × 720 presenter the Learned matrix's "no row for p ≥ 512" ran off its small tile.)"""
    from PySide6.QtGui import QFontMetrics

    item.full_note = text
    width = plot.getPlotItem().getViewBox().width() * room
    fm = QFontMetrics(item.textItem.font())

    def fits(t: str) -> bool:
        return max((fm.horizontalAdvance(line) for line in t.split("\n")), default=0) + 8 <= width

    shown = next((t for t in (text, text.split("\n")[0]) if t and fits(t)), "")
    item.setText(shown)
    item.setToolTip(text if shown != text else "")


def refit_note(item: Note, plot) -> None:
    """:func:`fit_note` again with the text last given (after a resize)."""
    fit_note(item, plot, item.full_note)


def fit_colour_bar(widget, bar, minimum: int) -> None:
    """Make a colour bar's own PlotWidget as wide as its ticks and label need in the current fonts (at least
    ``minimum`` px): presenter mode's larger fonts cut a fixed width; and leave half a tick label's height above
    and below the bar, where the labels of its ends (±1.0 on the patch grid's) are drawn."""
    import math

    half = math.ceil(QFontMetricsF(tick_font(bar.axis)).height() / 2) + 1
    bar.setContentsMargins(0, half, 0, half)
    need = bar.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
    widget.setFixedWidth(max(minimum, int(math.ceil(need)) + 4))
