"""Shared pieces of the Waves views: colours, fonts sized for a lecture hall, a plot card, number text."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from ...widgets.lean_items import LeanCurve
from ...widgets.plots import Plot
from ...widgets.text_pin import LiveLabel
from ...widgets.theming import theme_bus

#: Colour per lane (tab10 and tab20b without grey, blue and orange): distinct on a projector and for most
#: colour-blind viewers.  No blue or orange: those are PE(p) and PE(p+k) (and L_train), drawn over the lanes
#: in the same plots, and one colour must not mean two things in one plot.
PAIR_COLOURS = ("#d62728", "#2ca02c", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#637939",
                "#843c39", "#7b4173", "#31a354", "#756bb1")
P_COLOUR = "#1f4e9c"  # PE(p), the picked position
PK_COLOUR = "#e66100"  # PE(p + k)
TRAIN_BRUSH = (230, 97, 0, 40)
TICK_PT, LABEL_PT, TITLE_PT, READOUT_PT = 10, 11, 12, 11


def pair_colour(lane: int) -> str:
    return PAIR_COLOURS[lane % len(PAIR_COLOURS)]


def waves_plot() -> Plot:
    """A plot for a Waves view: no grid, pyqtgraph's SI prefixes kept, no "A" button (it would jump away
    from the requested range); the theme sizes titles, labels and ticks for the back row."""
    return Plot(grid=False, si_prefix=True, buttons=False)


def style_plot(widget: Plot, title: str = "", x: str = "", y: str = "") -> pg.PlotItem:
    """A Waves view's title and axis labels on ``widget`` (a :func:`waves_plot` or a heatmap), no "A" button,
    the right-click menu kept (export lives there) but for pyqtgraph's "Plot Options": its log, FFT, alpha and
    downsampling switches act on PlotDataItems, and the views draw plain curves and markers (a switch raised
    AttributeError) already given log10(λ) where the axis is logarithmic."""
    pi = widget.getPlotItem()
    if title:
        pi.setTitle(title)
    for name, text in (("bottom", x), ("left", y)):
        if text:
            pi.setLabel(name, text)
    pi.hideButtons()
    pi.setMenuEnabled(False, enableViewBoxMenu=True)
    return pi


def grow_curves(plot: pg.PlotItem, curves: list, count: int) -> None:
    """Add curve items to ``plot`` until ``curves`` holds ``count`` of them.

    Plain curve items (:class:`~explorer.widgets.lean_items.LeanCurve`: a drag step's segments drawn in pixels), not
    ``PlotDataItem``s: the compute process sends a lane already clipped to the visible positions and
    min/max-binned to the view's pixels, so a ``PlotDataItem``'s own clipping and downsampling had nothing to do,
    and its ``setData`` cost about 0.2 ms of bookkeeping per lane and drag step (four lanes: 0.8 ms a step)."""
    while len(curves) < count:
        c = LeanCurve()
        # Drawn as separate segments, antialiased or not: Qt strokes one wide antialiased polyline
        # through its path stroker (four lanes at rest cost ~14 ms a repaint here, the floor of a
        # frame) and the same segments in ~6 ms.  The lanes' pens are opaque, so the segments'
        # overlaps at the joins do not show.
        c.setSegmentedLineMode("on")
        plot.addItem(c)
        curves.append(c)


def set_lane(curve: pg.PlotCurveItem, x, y, binned: bool, held: bool, antialias: bool) -> None:
    """Give a lane's curve its points: min/max strokes (``binned``: each block's minimum, then its maximum, at the
    block's centre) are joined in one polyline, whose slanted segments from a block's maximum to the next block's
    minimum cover the same pixels as the vertical strokes, once more.  While a slider is ``held`` only the strokes
    are drawn, each reaching to the next block's minimum, so the pixels covered are the polyline's but for
    the slant across the one pixel between blocks: half the segments (five binned lanes painted in 3.7–3.9 ms
    in place of 5.3–5.6 in a loop here, at N = 8192 and 131 072).  Let go, the polyline again."""
    if binned and held and y.size >= 4:
        mins, maxs = y[0::2], y[1::2]
        after = np.append(mins[1:], mins[-1])  # where the polyline's slant from this block's maximum ends
        y = np.empty_like(y)
        y[0::2], y[1::2] = np.minimum(mins, after), np.maximum(maxs, after)
        curve.setData(x, y, connect="pairs", antialias=antialias)
    else:
        curve.setData(x, y, connect="all", antialias=antialias)


def lane_pen(colour, width: float, antialiased: bool = True):
    """A lane's pen: caps that join the segments a lane is drawn as (see grow_curves).  Round where they are
    antialiased (smooth joins); square where not (a drag step, min/max strokes): without antialiasing the two
    differ in about 1.5 % of a 2-px lane's pixels, and software raster strokes round caps about 3x slower
    (a 2-px segment's round cap is a curve; a square cap is a wider line)."""
    pen = pg.mkPen(colour, width=width)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap if antialiased else Qt.PenCapStyle.SquareCap)
    return pen


def set_title(widget: Plot, title: str) -> None:
    """Set a plot's title unless it already reads so (re-setting re-lays-out and repaints the plot)."""
    widget.set_title(title)


def readout_label(parent: QWidget | None = None) -> QLabel:
    """A rich-text label under a plot for the numbers the view claims."""
    label = LiveLabel(parent)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    theme_bus().follow_font(label, READOUT_PT)  # grows with presenter mode and zoom
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
    label.setObjectName("readout")
    return label


class Card(QWidget):
    """One view: an optional header row, the plot(s), and a readout underneath."""

    #: The user picked something here: a dict of WavesState changes, e.g. {"position": 12}.
    picked = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: True while a slider is held or the animation plays: curves are drawn without
        #: antialiasing then (Qt's wide antialiased strokes cost ~10 ms a plot), with it once settled.
        self.fast = False
        self._shown: dict[str, tuple] = {}
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(2, 2, 2, 2)
        self.layout_.setSpacing(2)
        self.header = QHBoxLayout()
        self.layout_.addLayout(self.header)
        self.body = QHBoxLayout()
        self.layout_.addLayout(self.body, 1)
        self.readout = readout_label(self)
        self.layout_.addWidget(self.readout)

    def aa(self, binned: bool = False) -> bool:
        """Antialias a curve now?  Never for min/max strokes (they fill a band), not while dragging."""
        return not (self.fast or binned)

    def changed(self, part: str, *value) -> bool:
        """True (and remembered) when ``value`` differs from what ``part`` of the view last showed: an item
        given what it already shows would still be re-laid out and repainted (a label's text, a range)."""
        if self._shown.get(part) == value:
            return False
        self._shown[part] = value
        return True

    def forget(self, part: str) -> None:
        """The next :meth:`changed` of ``part`` is True whatever it is given (the user changed what it set)."""
        self._shown.pop(part, None)

    def layout_changed(self, *key) -> bool:
        """True (and remembered) when ``key`` differs from the last call: skip redundant item updates,
        each of which would cost a repaint."""
        return self.changed("layout", *key)


def sci(x: float, digits: int = 2) -> str:
    """x as 'a × 10<sup>b</sup>' (rich text); '0' for exact zero."""
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else str(x)
    exp = int(math.floor(math.log10(abs(x))))
    mant = x / 10**exp
    return f"{mant:.{digits - 1}f} × 10<sup>{exp}</sup>"


def num(x: float, digits: int = 4) -> str:
    """Readable number: up to ``digits`` significant digits, thousands separated, no '1e+05'."""
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e6 or ax < 1e-3:
        return sci(x, 3)
    if ax >= 10 ** digits:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def wavelength_text(lam: float) -> str:
    """λ in positions, with 2π named when it is 2π."""
    if abs(lam - 2 * math.pi) < 1e-9:
        return "2π ≈ 6.283"
    return num(lam, 4)


def pair_cols(state, i: int) -> tuple[int, int]:
    """The table columns of pair ``i`` (sin, cos) in ``state``'s layout."""
    if state.variant == "paper":
        return 2 * i, 2 * i + 1
    return i, i + state.d_model // 2


def click_in(vb: pg.ViewBox, ev) -> tuple[float, float] | None:
    """Data coordinates of a left click inside ``vb``, else None."""
    if ev.button() != Qt.MouseButton.LeftButton or not vb.sceneBoundingRect().contains(ev.scenePos()):
        return None
    pt = vb.mapSceneToView(ev.scenePos())
    return pt.x(), pt.y()
