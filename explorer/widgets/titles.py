"""Plot titles that never widen their plot: elided to the plot's width, the full text kept.

pyqtgraph makes a title's text width the plot item's minimum width, and puts the title over the
data column only; a long title (or a presenter-mode font) on a narrow plot then pushes the whole
plot item past its widget's right edge, where the axis, the colour bar and the title are cut off.
Every plot that follows the theme gets a :class:`TitleFit`: the title spans the plot's full width,
its minimum width is zero, and its text is elided ("Accuracy by position (len…") to the width there
is; :func:`full_title` gives the whole text (for export names, tooltips and the data files).
"""

from __future__ import annotations

import html
import re
import weakref

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFont, QFontMetricsF

_TAG = re.compile(r"<[^>]+>")
_MARGIN = 8  # px kept free at each end of the title


def full_title(plot_item) -> str:
    """The whole title of ``plot_item`` (the plot may show it elided); "" when it has none."""
    fit = plot_item.__dict__.get("_pe_title_fit") if plot_item is not None else None
    if fit is not None:
        return fit.full
    return getattr(getattr(plot_item, "titleLabel", None), "text", "") or ""


def elided(text: str, font: QFont, width: float) -> str:
    """``text`` elided at the right to ``width`` px in ``font`` (rich text is returned whole: its
    tags cannot be cut)."""
    if not text or _TAG.search(text):
        return text
    return QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, max(24.0, width))


class TitleFit(QObject):
    """Keeps one plot item's title inside the plot (a child of the item: it lives as long as it)."""

    def __init__(self, plot_item) -> None:
        super().__init__(plot_item)
        self.setObjectName("peTitleFit")
        self._item = weakref.ref(plot_item)
        label = plot_item.titleLabel
        self._label = weakref.ref(label)
        self.full = label.text or ""
        self._busy = False
        plot_item.__dict__["_pe_title_fit"] = self
        # The title over the whole width (axis included), not only over the data column.
        layout = plot_item.layout
        layout.removeItem(label)
        layout.addItem(label, 0, 0, 1, 3)  # left axis, data, right axis: not a colour bar beside them
        label.__dict__["setText"] = self._set_text  # LabelItem.setText, for this label only
        label.__dict__["updateMin"] = self._update_min  # called by LabelItem.setText
        self._update_min()
        label.geometryChanged.connect(self.fit)
        self._relayout()
        self.fit()

    def _set_text(self, text, **args) -> None:
        label = self._label()
        if label is None:
            return
        if not self._busy:
            self.full = text or ""
        type(label).setText(label, text, **args)
        if not self._busy:
            self._relayout()
            self.fit()

    def _update_min(self) -> None:
        """LabelItem.updateMin without its minimum width: the text's height, any width."""
        label = self._label()
        if label is None:
            return
        h = label.itemRect().height()
        label.setMinimumWidth(0)
        label.setMinimumHeight(h)
        label._sizeHint = {Qt.SizeHint.MinimumSize: (0, h), Qt.SizeHint.PreferredSize: (0, h),
                           Qt.SizeHint.MaximumSize: (-1, -1), Qt.SizeHint.MinimumDescent: (0, 0)}
        label.updateGeometry()

    def _relayout(self) -> None:
        """Give the view's central item its view's size again: a title wider than the plot had made
        Qt clamp the item to that width, and nothing else resizes it until the window does."""
        item = self._item()
        scene = item.scene() if item is not None else None
        for view in scene.views() if scene is not None else ():
            central = getattr(view, "centralWidget", None)
            rect = getattr(view, "range", None)
            if central is None or rect is None or not (central is item or central.isAncestorOf(item)):
                continue
            if central.geometry() != rect:
                central.setGeometry(rect)

    def fit(self) -> None:
        """Elide the title to its label's present width (on every resize and every new title).

        Rich text (sub- and superscripts) is shown whole when it fits, else as elided plain text."""
        label = self._label()
        if label is None or self._busy or not self.full:
            return
        avail = label.width() - 2 * _MARGIN
        if avail <= 0:
            return
        font = QFont(label.item.font())
        size = str(label.opts.get("size") or "")
        if size.endswith("pt"):
            try:
                font.setPointSizeF(float(size[:-2]))
            except ValueError:
                pass
        self._busy = True
        try:
            if _TAG.search(self.full):
                if label.text != self.full:
                    type(label).setText(label, self.full)
                if label.item.boundingRect().width() <= avail:
                    return
            # The title as the characters it reads (a quoted word may hold "<" and "&"), elided, and escaped
            # again: the label takes HTML.
            shown = html.escape(elided(html.unescape(_TAG.sub("", self.full)), font, avail), quote=False)
            if shown != label.text:
                type(label).setText(label, shown)
        finally:
            self._busy = False


def fit_title(plot_item) -> TitleFit:
    """Give ``plot_item`` a :class:`TitleFit` (once) and return it."""
    fit = plot_item.__dict__.get("_pe_title_fit")
    return fit if fit is not None else TitleFit(plot_item)


#: The smallest share of its size an axis label is drawn at to fit its axis (below that it is cut).
AXIS_LABEL_MIN_SCALE = 0.6
_NUDGE = 5  # pyqtgraph's own offset of an axis label from the axis' outer edge


def fit_axis_labels() -> None:
    """Axis labels longer than their axis are drawn smaller to fit it (once, for every axis).

    pyqtgraph centres an axis label on its axis whatever its length, so a rotated label on a short plot
    ("slower ◀ pair i ▶ FASTER", "λᵢ (positions, log scale)") was cut at both ends and ran into the
    plot above.  The label keeps its text and is scaled down (to 60 % at most) and centred again.
    """
    import pyqtgraph as pg

    cls = pg.AxisItem
    if getattr(cls, "_pe_fit_labels", False):
        return
    cls._pe_fit_labels = True
    resize, update = cls.resizeEvent, cls._updateLabel

    def resize_event(self, ev=None):
        resize(self, ev)
        _fit_axis_label(self)

    def update_label(self):
        update(self)
        _fit_axis_label(self)

    cls.resizeEvent = resize_event
    cls._updateLabel = update_label


def _fit_axis_label(axis) -> None:
    label = getattr(axis, "label", None)
    if label is None:
        return
    br = label.boundingRect()
    vertical = axis.orientation in ("left", "right")
    room = (axis.size().height() if vertical else axis.size().width()) - 8
    scale = 1.0 if br.width() <= room or br.width() <= 0 else max(AXIS_LABEL_MIN_SCALE, room / br.width())
    if scale == label.scale() and scale == 1.0:
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


def declutter(labels) -> None:
    """Show each of ``labels`` (graphics items, most important first) only where it does not overlap one
    shown before it: two line labels on a short plot (L_train's and the lower bound's) printed over each
    other; the line itself stays, and says what it is through its dash and the labels that remain."""
    placed = []
    for label in labels:
        label.setVisible(True)
        rect = label.sceneBoundingRect()
        clash = any(rect.intersects(other) for other in placed)
        label.setVisible(not clash)
        if not clash:
            placed.append(rect)
