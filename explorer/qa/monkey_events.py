"""The widget-level events of the GUI monkey (sliders, boxes, combos, buttons, plots, tabs, docks, token
chips), mixed into :class:`explorer.qa.monkey.Monkey`."""

from __future__ import annotations

import hashlib
import random
from typing import TYPE_CHECKING

from .monkey_checks import LIST_TEXT, NUMBER_TEXT, PROCESS_SHARE, WORDS, _clip, _qt, process, type_text

if TYPE_CHECKING:
    from PySide6.QtCore import QCoreApplication

    from ..main_window import MainWindow


class WidgetEvents:
    """Events on the widgets of the window's panels (needs ``window``, ``rng``, ``counts``, ``log``)."""

    window: MainWindow
    rng: random.Random
    _event_key: str
    _excluded: set[int]

    @property
    def _app(self) -> QCoreApplication | None:
        return _qt()[2].QApplication.instance()

    def _usable(self, cls, *, within=None) -> list:
        """Visible, enabled widgets of type ``cls`` inside the panels (or ``within``)."""
        roots = [within] if within is not None else list(self.window.panels.values())
        out = []
        for root in roots:
            for w in root.findChildren(cls):
                if w.isVisible() and w.isEnabled() and id(w) not in self._excluded:
                    out.append(w)
        return out

    def _pick(self, widgets: list):
        """One of ``widgets``, chosen by this event's key and each widget's :meth:`_ident` (rendezvous hashing):
        a widget added or removed elsewhere changes only the events that would pick it, never the rest of the
        walk, which an index into the list would shift."""
        key = self._event_key
        return min(widgets, key=lambda w: hashlib.blake2b(f"{key}|{self._ident(w)}".encode(), digest_size=8).digest())

    def _ident(self, w) -> str:
        """A name for ``w`` that stays the same across runs: its object name (or class and place among its
        siblings of that class) and those of its parents up to the window."""
        parts = []
        while w is not None and w is not self.window:
            parent = w.parentWidget()
            name = w.objectName()
            if not name:
                kin = [c for c in (parent.children() if parent is not None else ()) if type(c) is type(w)]
                name = f"{type(w).__name__}#{kin.index(w) if w in kin else 0}"
            parts.append(name)
            w = parent
        return "/".join(reversed(parts))

    def _name(self, w) -> str:
        pid = self.window.stage.panel_of(w) or "window"
        label = w.objectName() or type(w).__name__
        tip = w.toolTip().split("\n")[0][:40] if hasattr(w, "toolTip") else ""
        text = w.text()[:30] if hasattr(w, "text") and callable(w.text) else ""
        return f"{pid}:{label}" + (f"[{text}]" if text else f"({tip})" if tip else "")

    def _leaf_sliders(self) -> list:
        QtWidgets = _qt()[2]
        sliders = self._usable(QtWidgets.QAbstractSlider)
        return [s for s in sliders if not isinstance(s, QtWidgets.QScrollBar)
                and not [c for c in s.findChildren(QtWidgets.QAbstractSlider)]]

    # -- actions -----------------------------------------------------------------------------------
    def slider_drag(self):
        sliders = self._leaf_sliders()
        if not sliders:
            return None
        s = self._pick(sliders)
        lo, hi = s.minimum(), s.maximum()
        whole = isinstance(lo, int) and isinstance(hi, int)  # a QAbstractSlider subclass may give floats
        steps = self.rng.randint(1, 6)
        s.setSliderDown(True)  # the handle grabbed: sliderPressed
        values = []
        for _ in range(steps):
            if self.rng.random() < 0.5:
                v = self.rng.randint(lo, hi) if whole else round(self.rng.uniform(lo, hi), 3)
            else:
                v = min(hi, max(lo, s.value() + self.rng.randint(-5, 5) * (1 if whole else s.singleStep())))
            s.setSliderPosition(v)
            values.append(v)
            if self.rng.random() < PROCESS_SHARE:
                process(self._app)
        s.setSliderDown(False)  # let go: sliderReleased
        return f"drag {self._name(s)} through {values}"

    def slider_keys(self):
        QtCore, _, _, QtTest = _qt()
        sliders = self._leaf_sliders()
        if not sliders:
            return None
        s = self._pick(sliders)
        keys = [QtCore.Qt.Key.Key_Left, QtCore.Qt.Key.Key_Right, QtCore.Qt.Key.Key_Up, QtCore.Qt.Key.Key_Down,
                QtCore.Qt.Key.Key_PageUp, QtCore.Qt.Key.Key_PageDown, QtCore.Qt.Key.Key_Home,
                QtCore.Qt.Key.Key_End]
        pressed = [self.rng.choice(keys) for _ in range(self.rng.randint(1, 4))]
        for k in pressed:
            QtTest.QTest.keyClick(s, k)
        return f"keys {[k.name for k in pressed]} on {self._name(s)}"

    def type_number(self):
        QtCore, _, QtWidgets, QtTest = _qt()
        boxes = self._usable(QtWidgets.QAbstractSpinBox)
        edits = [e for e in self._usable(QtWidgets.QLineEdit) if e.validator() is not None
                 and not isinstance(e.parentWidget(), QtWidgets.QAbstractSpinBox)]
        kinds: dict[str, list] = {}
        for t in boxes + edits:  # each kind of box equally often, however many there are of each
            kinds.setdefault(type(t).__name__, []).append(t)
        if not kinds:
            return None
        w = self._pick(kinds[self.rng.choice(sorted(kinds))])
        text = self.rng.choice(NUMBER_TEXT)
        w.selectAll()
        type_text(w, text)
        enter = self.rng.random() < 0.85
        if enter:
            QtTest.QTest.keyClick(w, QtCore.Qt.Key.Key_Return)
        else:  # or arrow keys in a spin box
            QtTest.QTest.keyClick(w, self.rng.choice([QtCore.Qt.Key.Key_Up, QtCore.Qt.Key.Key_Down,
                                                      QtCore.Qt.Key.Key_PageUp]))
        return f"type {text!r}{' ⏎' if enter else ' then an arrow'} into {self._name(w)}"

    def type_words(self):
        QtCore, _, QtWidgets, QtTest = _qt()
        edits = [e for e in self._usable(QtWidgets.QLineEdit) if e.validator() is None
                 and not isinstance(e.parentWidget(), QtWidgets.QAbstractSpinBox)]
        if not edits:
            return None
        e = self._pick(edits)
        swap = self.window.panels.get("swap")
        if swap is not None and e is getattr(swap, "sentence_edit", None):
            r = self.rng.random()
            if r < 0.1:
                text = ""
            elif r < 0.2:
                text = " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(65, 80)))  # too long
            elif r < 0.25:
                text = "w" * 500
            else:
                text = " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(1, 12)))
        else:
            text = self.rng.choice(LIST_TEXT)
        e.selectAll()
        type_text(e, text)
        QtTest.QTest.keyClick(e, QtCore.Qt.Key.Key_Return)
        return f"type {_clip(repr(text), 60)} ⏎ into {self._name(e)}"

    def combo(self):
        QtWidgets = _qt()[2]
        combos = [c for c in self._usable(QtWidgets.QComboBox) if c.count() > 0]
        if not combos:
            return None
        c = self._pick(combos)
        i = self.rng.randrange(c.count())
        c.setCurrentIndex(i)  # what choosing an entry in the open list does
        return f"choose {c.itemText(i)[:40]!r} in {self._name(c)}"

    def check_box(self):
        QtWidgets = _qt()[2]
        boxes = self._usable(QtWidgets.QCheckBox)
        if not boxes:
            return None
        b = self._pick(boxes)
        b.click()
        return f"click {self._name(b)} -> {b.isChecked()}"

    def button(self):
        QtWidgets = _qt()[2]
        buttons = [b for b in self._usable(QtWidgets.QPushButton)]
        if not buttons:
            return None
        b = self._pick(buttons)
        b.click()
        return f"click {self._name(b)}"

    def plot_mouse(self):
        QtCore, QtGui, QtWidgets, QtTest = _qt()
        import pyqtgraph as pg

        views = self._usable(pg.GraphicsView)
        if not views:
            return None
        v = self._pick(views)
        vp = v.viewport()
        pos = QtCore.QPoint(self.rng.randrange(max(1, vp.width())), self.rng.randrange(max(1, vp.height())))
        kind = self.rng.choice(("click", "click", "double", "wheel"))
        left, plain = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier
        if kind == "click":
            QtTest.QTest.mouseClick(vp, left, plain, pos)
        elif kind == "double":
            QtTest.QTest.mouseDClick(vp, left, plain, pos)
        else:
            delta = self.rng.choice((-240, -120, 120, 240))
            gpos = vp.mapToGlobal(pos)
            ev = QtGui.QWheelEvent(QtCore.QPointF(pos), QtCore.QPointF(gpos), QtCore.QPoint(0, 0),
                                   QtCore.QPoint(0, delta), QtCore.Qt.MouseButton.NoButton,
                                   QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.ScrollPhase.NoScrollPhase,
                                   False)
            QtWidgets.QApplication.sendEvent(vp, ev)
        return f"{kind} at ({pos.x()}, {pos.y()}) on plot {self._name(v)}"

    def tab(self):
        QtCore, _, QtWidgets, QtTest = _qt()
        bars = [b for b in self.window.findChildren(QtWidgets.QTabBar)
                if b.isVisible() and b.isEnabled() and b.count() > 1]
        if not bars:
            return None
        bar = self._pick(bars)
        i = self.rng.randrange(bar.count())
        QtTest.QTest.mouseClick(bar, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                                bar.tabRect(i).center())
        owner = "panel" if self.window.stage.panel_of(bar) else "docks"
        return f"click tab {bar.tabText(i)!r} ({owner})"

    def dock(self):
        QtCore = _qt()[0]
        w = self.window
        docks = list(w.docks.values())
        d = self.rng.choice(docks)
        what = self.rng.choice(("float", "float", "hide-show", "tabify", "area", "split", "reset", "raise",
                                "resize"))
        docked = [x for x in docks if not x.isFloating() and not x.isHidden()]
        if what == "float":
            d.setFloating(not d.isFloating())
            return f"dock {d.objectName()} floating={d.isFloating()}"
        if what == "hide-show":
            d.toggleViewAction().trigger()
            return f"dock {d.objectName()} {'hidden' if d.isHidden() else 'shown'} (View menu)"
        if what == "tabify" and len(docked) >= 2:
            a, b = self.rng.sample(docked, 2)
            w.tabifyDockWidget(a, b)
            return f"tabify {b.objectName()} onto {a.objectName()}"
        if what == "split" and len(docked) >= 2:
            a, b = self.rng.sample(docked, 2)
            o = self.rng.choice((QtCore.Qt.Orientation.Horizontal, QtCore.Qt.Orientation.Vertical))
            w.splitDockWidget(a, b, o)
            return f"split {a.objectName()} | {b.objectName()} {o.name}"
        if what == "area":
            area = self.rng.choice((QtCore.Qt.DockWidgetArea.LeftDockWidgetArea,
                                    QtCore.Qt.DockWidgetArea.RightDockWidgetArea,
                                    QtCore.Qt.DockWidgetArea.TopDockWidgetArea,
                                    QtCore.Qt.DockWidgetArea.BottomDockWidgetArea))
            w.addDockWidget(area, d)
            return f"move {d.objectName()} to {area.name}"
        if what == "reset":
            w.reset_layout()
            return "View → Reset layout"
        if what == "resize" and not w.isFullScreen():
            size = (self.rng.randint(640, 1920), self.rng.randint(480, 1200))
            w.resize(*size)
            return f"resize the window to {size[0]} × {size[1]}"
        pid = self.rng.choice(list(w.panels))
        w.show_panel(pid)
        return f"bring {pid} to the front"

    def swap_tokens(self):
        QtCore, _, QtWidgets, QtTest = _qt()
        swap = self.window.panels.get("swap")
        if swap is None or not swap.isVisible():
            return None
        chips = [c for c in swap.chips.chips() if c.isVisible()]
        if len(chips) < 2:
            return None
        how = self.rng.choice(("click", "drop", "undo"))
        if how == "undo":
            if not swap.undo_button.isEnabled():
                return None
            swap.undo_button.click()
            return "swap: Undo"
        a, b = self.rng.sample(chips, 2)
        if how == "click":
            QtTest.QTest.mouseClick(a, QtCore.Qt.MouseButton.LeftButton)
            QtTest.QTest.mouseClick(b, QtCore.Qt.MouseButton.LeftButton)
            if swap.swap_button.isEnabled():
                swap.swap_button.click()
            return f"swap: click chips {a.index}, {b.index}, then Swap"
        from PySide6.QtGui import QDropEvent

        ev = QDropEvent(QtCore.QPointF(b.rect().center()), QtCore.Qt.DropAction.MoveAction, a.mime_data(),
                        QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier)
        QtWidgets.QApplication.sendEvent(b, ev)
        return f"swap: drop chip {a.index} onto chip {b.index}"
