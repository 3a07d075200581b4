"""Hostile text for the tests, and every place the app shows text, found by walking the live widgets.

A string from a file, a config, a checkpoint, a preset, a session, a lesson or the user's typing must be
shown as the characters it holds.  :data:`SHORT` holds ``<b>⚑pe</b>``, an ``<img>``, a ``<style>`` and
entities: wherever it is shown as text, the flag ⚑pe stands right after a literal ``<b>``; where Qt took it
for HTML the ``<b>`` is gone (the text went bold, the image was loaded).

:func:`text_sinks` lists every text on screen with whether Qt reads it as rich text: every ``QLabel`` (its
text format), every tooltip (widgets, actions, tabs, combo and table items, graphics items: Qt takes any of
them for HTML when it looks like it), combo items, tab titles, window titles, status bars, text edits, and the
text items of every plot scene (pyqtgraph's titles, axis labels, legends and text items, as rendered).
:func:`violations` says where the flag shows without its ``<b>``, or where a text holding it is longer
than the app shows.  Nothing is listed by hand: a new label, tooltip or plot title is found as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt  # Qt::mightBeRichText lives in QtGui
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QGraphicsTextItem,
    QGraphicsView,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
)

#: The flag every hostile string carries.
FLAG = "⚑pe"
#: The most characters of one hostile string a screen text may hold (the app shows 2,000; headroom for
#: the words around it).
LONGEST_SHOWN = 3000


def short(image: Path | str = "x.png") -> str:
    """A hostile string: markup, an image (a harmless file here), a style sheet, entities."""
    return f'<b>{FLAG}</b><img src="{image}"><style>*{{color:red}}</style>&amp;&lt;i&gt;'


def long(image: Path | str = "x.png") -> str:
    """:func:`short` and 100 kB more."""
    return short(image) + "x" * 100_000


def word() -> str:
    """A hostile word: no spaces (it survives being split into words), no slash (it can name a file)."""
    return f"<b>{FLAG}&amp;<i>"


@dataclass(frozen=True)
class Sink:
    where: str
    raw: str
    rich: bool

    @property
    def shown(self) -> str:
        """The text as it reads on screen."""
        if not self.rich:
            return self.raw
        doc = QTextDocument()
        doc.setHtml(self.raw)
        return doc.toPlainText()


def _auto(text: str) -> bool:
    return bool(text) and GuiQt.mightBeRichText(text)


def _label_rich(label: QLabel) -> bool:
    fmt = label.textFormat()
    return fmt in (Qt.TextFormat.RichText, Qt.TextFormat.MarkdownText) or (
        fmt == Qt.TextFormat.AutoText and _auto(label.text()))


def _name(obj) -> str:
    chain, w = [], obj
    while w is not None and len(chain) < 4:
        chain.append(f"{type(w).__name__}#{w.objectName()}" if w.objectName() else type(w).__name__)
        w = w.parent() if hasattr(w, "parent") else None
    return " < ".join(chain)


def _model_sinks(view: QAbstractItemView, where: str, out: list[Sink]) -> None:
    model = view.model()
    if model is None:
        return
    from PySide6.QtCore import QModelIndex

    try:
        cols = min(model.columnCount(QModelIndex()), 60)
    except TypeError:  # a list model keeps columnCount private: one column
        cols = 1
    rows = min(model.rowCount(QModelIndex()), 300)
    for r in range(rows):
        for c in range(cols):
            ix = model.index(r, c)
            text = model.data(ix, Qt.ItemDataRole.DisplayRole)
            if isinstance(text, str) and text:
                out.append(Sink(f"{where} item ({r}, {c})", text, False))
            tip = model.data(ix, Qt.ItemDataRole.ToolTipRole)
            if isinstance(tip, str) and tip:
                out.append(Sink(f"{where} item ({r}, {c}) tooltip", tip, _auto(tip)))
    for orient in (Qt.Orientation.Horizontal, Qt.Orientation.Vertical):
        for k in range(min(cols if orient == Qt.Orientation.Horizontal else rows, 300)):
            text = model.headerData(k, orient, Qt.ItemDataRole.DisplayRole)
            if isinstance(text, str) and text:
                out.append(Sink(f"{where} header {k}", text, False))


def _scene_sinks(view: QGraphicsView, where: str, out: list[Sink], seen: set) -> None:
    scene = view.scene()
    if scene is None or id(scene) in seen:
        return
    seen.add(id(scene))
    for item in scene.items():
        if isinstance(item, QGraphicsTextItem):  # pyqtgraph titles, axis labels, legends, text items: as drawn
            out.append(Sink(f"{where} text item {type(item.parentItem()).__name__}", item.toPlainText(), False))
        tip = item.toolTip()
        if tip:
            out.append(Sink(f"{where} {type(item).__name__} tooltip", tip, _auto(tip)))


def text_sinks(app: QApplication | None = None) -> list[Sink]:
    """Every text the app's widgets show now (see the module docstring)."""
    out: list[Sink] = []
    scenes: set = set()
    actions: set = set()
    for w in (app or QApplication.instance()).allWidgets():
        where = _name(w)
        if isinstance(w, QLabel):
            out.append(Sink(where, w.text(), _label_rich(w)))
        for tip, what in ((w.toolTip(), "tooltip"), (w.whatsThis(), "what's this")):
            if tip:
                out.append(Sink(f"{where} {what}", tip, _auto(tip)))
        if w.isWindow() and w.windowTitle():
            out.append(Sink(f"{where} window title", w.windowTitle(), False))
        if isinstance(w, QMainWindow) and w.statusBar().currentMessage():
            out.append(Sink(f"{where} status bar", w.statusBar().currentMessage(), False))
        if isinstance(w, QAbstractButton) and w.text():
            out.append(Sink(f"{where} text", w.text(), False))
        if isinstance(w, (QTextEdit, QPlainTextEdit)):
            out.append(Sink(f"{where} document", w.toPlainText(), False))
        if isinstance(w, QComboBox):
            for i in range(min(w.count(), 2000)):
                out.append(Sink(f"{where} item {i}", w.itemText(i), False))
                tip = w.itemData(i, Qt.ItemDataRole.ToolTipRole)
                if isinstance(tip, str) and tip:
                    out.append(Sink(f"{where} item {i} tooltip", tip, _auto(tip)))
        if isinstance(w, QTabBar):
            for i in range(w.count()):
                out.append(Sink(f"{where} tab {i}", w.tabText(i), False))
                if w.tabToolTip(i):
                    out.append(Sink(f"{where} tab {i} tooltip", w.tabToolTip(i), _auto(w.tabToolTip(i))))
        if isinstance(w, QAbstractItemView) and not isinstance(w, QComboBox):
            _model_sinks(w, where, out)
        if isinstance(w, QGraphicsView):
            _scene_sinks(w, where, out, scenes)
        for act in w.actions():
            if id(act) in actions:
                continue
            actions.add(id(act))
            name = f"{where} action {act.objectName() or act.text()[:30]!r}"
            if act.text():
                out.append(Sink(f"{name} text", act.text(), False))
            if act.toolTip():
                out.append(Sink(f"{name} tooltip", act.toolTip(), _auto(act.toolTip())))
            if act.statusTip():
                out.append(Sink(f"{name} status tip", act.statusTip(), False))
    return out


def violations(sinks: list[Sink]) -> list[str]:
    """Where a hostile string was read as HTML, or is shown longer than the app shows any such text."""
    bad = []
    for s in sinks:
        if FLAG not in s.raw:
            continue
        shown = s.shown
        k = shown.find(FLAG)
        while k >= 0:
            if not shown[:k].endswith("<b>"):
                bad.append(f"{s.where}: read as rich text: {shown[max(0, k - 20):k + 40]!r}")
                break
            k = shown.find(FLAG, k + 1)
        if len(shown) > LONGEST_SHOWN:
            bad.append(f"{s.where}: {len(shown):,} characters shown")
    return bad
