"""Plot titles that never widen their plot: elided to the plot's width, the full text kept.

pyqtgraph makes a title's text width the plot item's minimum width, and puts the title over the
data column only; a long title (or a presenter-mode font) on a narrow plot then pushes the whole
plot item past its widget's right edge, where the axis, the colour bar and the title are cut off.
Every app plot's title is a :class:`TitleLabel`: it spans the plot's full width, its minimum width is
zero, and its text is shortened at a word boundary ("Accuracy by position (length 256, …") to the width there
is, the whole title then in its tooltip; :func:`full_title` gives the whole text (for export names, tooltips and
the data files).  Its colour and size are the
theme's (:meth:`TitleLabel.set_look`), whatever a view passes to ``setTitle``.
"""

from __future__ import annotations

import html
import re

import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSizeF, Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsItem

from ..theme import TITLE_PT

_TAG = re.compile(r"<[^>]+>")
_MARGIN = 8  # px kept free at each end of the title


def plain(text: str) -> str:
    """Rich text as the characters it reads: tags dropped, entities unescaped."""
    return html.unescape(_TAG.sub("", text or ""))


def full_title(plot_item) -> str:
    """The whole title of ``plot_item`` (the plot may show it elided); "" when it has none."""
    label = getattr(plot_item, "titleLabel", None)
    if isinstance(label, TitleLabel):
        return label.full
    return getattr(label, "text", "") or ""


def elided(text: str, font: QFont, width: float) -> str:
    """``text`` shortened at the right to ``width`` px in ``font``, at a word boundary, with "…" (rich text is
    returned whole: its tags cannot be cut).  A first word that does not fit alone is the one thing cut."""
    if not text or _TAG.search(text):
        return text
    metrics = QFontMetricsF(font)
    width = max(24.0, width)
    if metrics.horizontalAdvance(text) <= width:
        return text
    cut = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
    shown = cut[:-1] if cut.endswith("…") else cut
    if len(shown) < len(text) and not text[len(shown)].isspace() and not shown[-1:].isspace():
        words = shown.rsplit(None, 1)
        if len(words) == 2:
            shown = words[0]
    return shown.rstrip() + "…"


class TitleLabel(pg.LabelItem):
    """A plot's title, elided to the plot's width, in the theme's colour and size; ``full`` is the whole text.

    ``setText`` (what ``PlotItem.setTitle`` calls) takes the whole title; the label shows as much of it as fits
    and fits it again whenever its width changes.
    """

    def __init__(self, parent=None) -> None:
        self.full = ""
        self._height = 0.0
        self._fitting = False
        self._themed = False
        super().__init__("", size=f"{TITLE_PT:g}pt", parent=parent)
        self.geometryChanged.connect(self.fit)
        # Kept as a picture of the view's pixels, as the axes are: laid out and drawn again at every repaint of its
        # plot, the title's text document was a tenth of a heatmap's repaint during a drag.
        self.item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def set_look(self, theme, zoom: float = 1.0) -> None:
        """The theme's colour and title size (kept in the label's options, so every new title has them)."""
        size = f"{theme.point_size(TITLE_PT, zoom):g}pt"
        self._themed = True
        if self.opts.get("color") == theme.foreground and self.opts.get("size") == size:
            return
        self.setAttr("color", theme.foreground)
        self.setAttr("size", size)
        if self.full:
            self.setText(self.full)

    def setText(self, text, **args) -> None:  # noqa: N802 - pyqtgraph API
        if self._fitting:
            super().setText(text, **args)
            return
        if self._themed:  # the theme owns colour and size
            args.pop("size", None)
            args.pop("color", None)
        self.full = text or ""
        super().setText(text, **args)
        self._relayout()
        self.fit()

    def updateMin(self) -> None:  # noqa: N802 - pyqtgraph API
        """The text's height, any width (pyqtgraph's minimum width is the whole text's)."""
        self._height = self.itemRect().height()
        self.setMinimumWidth(0)
        self.setMinimumHeight(self._height)
        self.updateGeometry()

    def sizeHint(self, hint, constraint=None) -> QSizeF:  # noqa: N802 - Qt override
        if hint == Qt.SizeHint.MaximumSize:
            return QSizeF(-1, -1)
        if hint in (Qt.SizeHint.MinimumSize, Qt.SizeHint.PreferredSize):
            # Read from the instance's dict: a plot torn down while Qt lays it out may have had the label's
            # attributes cleared by the garbage collector first (pyqtgraph's own LabelItem then raised inside
            # Qt's layout: issue 25's contrast flake).
            return QSizeF(0, self.__dict__.get("_height", 0.0))
        return QSizeF(0, 0)

    def _relayout(self) -> None:
        """Give the view's central item its view's size again: a title wider than the plot had made
        Qt clamp the item to that width, and nothing else resizes it until the window does."""
        item = self.parentItem()
        scene = self.scene()
        for view in scene.views() if scene is not None and item is not None else ():
            central = getattr(view, "centralWidget", None)
            rect = getattr(view, "range", None)
            if central is None or rect is None or not (central is item or central.isAncestorOf(item)):
                continue
            if central.geometry() != rect:
                central.setGeometry(rect)

    def fit(self) -> None:
        """Elide the title to the label's present width (on every resize and every new title).

        Rich text (sub- and superscripts) is shown whole when it fits, else as elided plain text."""
        if self._fitting or not self.full:
            return
        avail = self.width() - 2 * _MARGIN
        if avail <= 0:
            return
        font = QFont(self.item.font())
        size = str(self.opts.get("size") or "")
        if size.endswith("pt"):
            try:
                font.setPointSizeF(float(size[:-2]))
            except ValueError:
                pass
        self._fitting = True
        try:
            if _TAG.search(self.full):
                if self.text != self.full:
                    self.setText(self.full)
                if self.item.boundingRect().width() <= avail:
                    self.setToolTip("")
                    return
            # The title as the characters it reads (a quoted word may hold "<" and "&"), elided, and escaped
            # again: the label takes HTML.
            whole = plain(self.full)
            short = elided(whole, font, avail)
            shown = html.escape(short, quote=False)
            if shown != self.text:
                self.setText(shown)
            self.setToolTip(whole if short != whole else "")
        finally:
            self._fitting = False


#: The smallest share of its size an axis label is drawn at to fit its axis (below that it is cut).
AXIS_LABEL_MIN_SCALE = 0.6


def declutter(labels) -> None:
    """Show each of ``labels`` (graphics items, most important first) only where it does not overlap one
    shown before it: two line labels on a short plot (L_train's and the lower bound's) printed over each
    other; the line itself stays, and says what it is through its dash and the labels that remain."""
    placed: list[QRectF] = []
    for label in labels:
        label.setVisible(True)
        rect = label.sceneBoundingRect()
        clash = any(rect.intersects(other) for other in placed)
        label.setVisible(not clash)
        if not clash:
            placed.append(rect)
