"""A seeded GUI monkey: thousands of random but legal user events fired at the real main window.

What a user can do, the monkey does — on widgets that are visible and enabled, through Qt events
where a user's input is an event: slider drags (pressed, moved, released), arrow/Page/Home/End keys
on sliders, typing into spin boxes and line edits (good numbers, and empty text, letters, NaN, inf,
huge, negative), combo choices, check boxes, buttons, clicks and wheel turns on plots, tab clicks,
dock moves (float, unfloat, hide, show, tabify, move to another side, reset layout), window resizes,
token swaps (chips clicked then Swap, and drops of one chip onto another), the built-in lecture
scenes from the Presets menu, saving and loading presets (good and broken files), undo/redo, resets,
presenter mode, themes, text zoom, full screen, and exports to a folder (PNG, SVG, CSV, NPY,
clipboard, a GIF sweep).  Dialogs are answered the way the window's tests answer them: the window's
small dialog methods are replaced (file names in the given folder, error boxes recorded instead of
shown).  The Lab's Start button is left alone (a run takes a minute), as are its Open/Save buttons
(native file dialogs); every other Lab control is used.

Whenever the monkey waits for the window to settle (:func:`settle`: nothing computing or waiting), and
after the last event, :func:`final_mismatches` checks that every plot shows the result of the current
parameters.

A failure raises :class:`MonkeyFailure` naming the seed, the event number and the last events, so it
can be replayed: ``python -m explorer.monkey --seed S --events N`` (offscreen) runs the same sequence.
Replays are exact up to timing: where a result arrives (or the Waves animation ticks) between two
events can differ, which only changes values, not which events are fired.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

#: Qt messages that are not ours (the offscreen platform says these about top-level windows).
IGNORED_QT_MESSAGES = (
    "This plugin does not support propagateSizeHints",
    "This plugin does not support raise",
)

#: Text typed into number boxes: good values and every kind of bad one.
NUMBER_TEXT = (
    "", "   ", "abc", "NaN", "nan", "inf", "-inf", "1e400", "1e-400", "-5", "-0", "0", "1", "2", "7", "16",
    "64", "128", "512", "1000", "4096", "10000", "500000", "99999999999999999999", "1e9", "3.5", "0.001",
    "1e3", "0x10", "½", "٣", "12abc",
    # Numbers written the way a locale writes them (group separators, decimal commas).
    "1,000", "10,000", "0,5", "2,5",
)
#: Text typed into list boxes (pairs shown, Lab test lengths).
LIST_TEXT = (
    "", "0", "0, 1, 4, 16", "1 2 3", "0;5;9", "-1, 2", "a, b", "1,,2", "63, 0", "99999", "8, 16, 32, 64",
    "16 24 32 48 64 96 128 256", "1e3", "nan", ", ".join(str(i) for i in range(20)),
)
#: Share of events after which the event loop runs (and the window repaints) before the next event.
PROCESS_SHARE = 0.35
WORDS = ("the", "cat", "sat", "on", "mat", "dog", "bites", "man", "a", "ran", "über", "日本", "x", "it")


class MonkeyFailure(AssertionError):
    """Something went wrong; the message says what, with the seed and the last events."""


def _qt():
    from PySide6 import QtCore, QtGui, QtTest, QtWidgets

    return QtCore, QtGui, QtWidgets, QtTest


def process(app, ms: int = 0) -> None:
    """Run the event loop once, or for ``ms`` milliseconds."""
    QtCore, *_ = _qt()
    if ms <= 0:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        return
    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 10)
        time.sleep(0.002)


def type_text(widget, text: str) -> None:
    """Key presses and releases carrying ``text``, one character at a time (any script: QTest's own
    keyClicks accepts ASCII only)."""
    QtCore, QtGui, QtWidgets, _ = _qt()
    for ch in text:
        code = ord(ch.upper()) if " " <= ch <= "~" else QtCore.Qt.Key.Key_unknown
        for kind in (QtCore.QEvent.Type.KeyPress, QtCore.QEvent.Type.KeyRelease):
            ev = QtGui.QKeyEvent(kind, code, QtCore.Qt.KeyboardModifier.NoModifier, ch)
            QtWidgets.QApplication.sendEvent(widget, ev)


def _busy(window) -> bool:
    return not window.service.idle() or not window.all_drawn


def settle(window, timeout_s: float = 120.0, quiet_s: float = 0.4) -> bool:
    """Wait until the service is idle and every panel has drawn, and it stays so for ``quiet_s``
    (single-shot timers — ranges, hidden views, paced requests — fire within that)."""
    QtWidgets = _qt()[2]
    app = QtWidgets.QApplication.instance()
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    while time.monotonic() < deadline:
        process(app, 20)
        if _busy(window):
            quiet_since = None
            continue
        quiet_since = quiet_since or time.monotonic()
        if time.monotonic() - quiet_since >= quiet_s:
            return True
    return False


class DrawnRecorder:
    """Remembers, per panel and key, the request behind the newest result drawn (``Panel.drawn``)."""

    def __init__(self, window) -> None:
        self.drawn: dict[str, dict[str, object]] = {pid: {} for pid in window.panels}
        for pid, panel in window.panels.items():
            panel.drawn.connect(lambda key, pid=pid, panel=panel: self._on_drawn(pid, panel, key))

    def _on_drawn(self, pid, panel, key) -> None:
        req = panel.last_drawn_request
        if req is not None and getattr(req, "key", None) == key:
            self.drawn[pid][key] = req


def final_mismatches(window, recorder: DrawnRecorder) -> list[str]:
    """What does not show the current parameters (empty when every plot is up to date)."""
    out = []
    for pid, panel in window.panels.items():
        st = panel.state
        for req in panel.requests(st):
            got = recorder.drawn[pid].get(req.key)
            if pid == "swap" and got is not None:
                # The query and the head shown are display-only: redrawn from the last result, not computed.
                shown = dataclasses.replace(got.state, query=st.query, head=st.head)
                got = dataclasses.replace(got, state=shown)
            if got != req:
                out.append(f"{pid}: {req.key} shows {_short(got)}; the current parameters ask for "
                           f"{_short(req)}")
        if pid == "waves":
            for req in panel.requests(st):
                r = panel.responses.get(req.key)
                if r is None or r.request != req:
                    out.append(f"waves: responses[{req.key!r}] is for {_short(r and r.request)}")
            if panel._stale:
                out.append(f"waves: views not redrawn: {sorted(type(v).__name__ for v in panel._stale)}")
        if pid == "lab" and panel.result is None and not panel.running:
            rows, cols = panel.table.rowCount(), panel.table.columnCount()
            if (rows, cols) != (len(st.eval_lens), len(st.schemes)):
                out.append(f"lab: results table is {rows} × {cols}, the settings give "
                           f"{len(st.eval_lens)} lengths × {len(st.schemes)} schemes")
            if f"Train at L = {st.train_len}," not in panel.task_label.text():
                out.append(f"lab: task text does not say L = {st.train_len}")
        want = panel.formula_text(st)
        if panel.formula.text() != want:
            out.append(f"{pid}: the formula strip shows other numbers than the current parameters give")
    return out


def _short(x) -> str:
    return _clip(repr(x), 300)


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclasses.dataclass
class Counts:
    events: int = 0
    #: Events per action that acted on something / found nothing to act on (e.g. no chips on screen).
    by_action: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    skipped: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    #: How often every plot was checked against the current parameters (mid-run and at the end).
    checks: int = 0
    seconds: collections.Counter = dataclasses.field(default_factory=collections.Counter)


class Monkey:
    """Fires random legal events at ``window``; files go to ``folder``.  See the module docstring."""

    def __init__(self, window, seed: int, folder: str | Path) -> None:
        self.window = window
        self.seed = seed
        self.rng = random.Random(seed)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.history: collections.deque[str] = collections.deque(maxlen=20)
        self.messages: list[str] = []  # error boxes the app would have shown
        self.counts = Counts()
        self.recorder = DrawnRecorder(window)
        self._files = 0
        self._problems: list[str] = []
        self._answer_dialogs()
        lab = window.panels.get("lab")
        self._excluded = set()
        if lab is not None:
            self._excluded = {id(lab.start_button), id(lab.open_button), id(lab.save_button)}
        # (weight, action); an action returns a short description of what it did, or None if it
        # found nothing to act on.
        self.actions = [
            (14, self.slider_drag), (10, self.slider_keys), (10, self.type_number), (5, self.type_words),
            (6, self.combo), (5, self.check_box), (5, self.button), (5, self.plot_mouse),
            (5, self.tab), (4, self.dock), (4, self.swap_tokens), (1, self.preset), (1, self.preset_file),
            (5, self.undo_redo), (1, self.reset), (1.5, self.look), (1, self.export), (3, self.wait),
        ]
        self._total_weight = sum(w for w, _ in self.actions)

    # -- dialogs answered without a person -------------------------------------------------------
    def _next_path(self, stem: str, ext: str) -> str:
        self._files += 1
        return str(self.folder / f"{self._files:05d}-{stem}{ext}")

    def _answer_dialogs(self) -> None:
        w = self.window
        w.show_error = lambda title, message: self.messages.append(f"{title}: {message}")
        w.ask_save_path = lambda default: self._next_path("preset", ".json")
        w.ask_open_path = lambda: self._pick_preset_file()
        w.ask_preset_details = lambda: (self.rng.choice(("Monkey", "Week 3 — RoPE", "x" * 40)), "notes")
        w.exporter.ask_save_path = lambda title, default, ext: self._next_path("export", ext)
        w.exporter.ask_width = lambda current: self.rng.choice((16, 320, 800, 1600))
        w.exporter.show_error = lambda message: self.messages.append(f"Export failed: {message}")

    def _pick_preset_file(self) -> str | None:
        saved = sorted(self.folder.glob("*.json"))
        broken = self.folder / "broken.json"
        if not broken.exists():
            broken.write_text('{"version": 1, "panels": {"waves": {"base": 5}}}', encoding="utf-8")
        choices = [str(p) for p in saved] + [str(broken), str(self.folder / "missing.json")]
        return self.rng.choice(choices)

    # -- what is on screen -------------------------------------------------------------------------
    def _usable(self, cls, *, within=None) -> list:
        """Visible, enabled widgets of type ``cls`` inside the panels (or ``within``)."""
        roots = [within] if within is not None else list(self.window.panels.values())
        out = []
        for root in roots:
            for w in root.findChildren(cls):
                if w.isVisible() and w.isEnabled() and id(w) not in self._excluded:
                    out.append(w)
        return out

    def _name(self, w) -> str:
        pid = self.window._panel_of(w) or "window"
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
        s = self.rng.choice(sliders)
        lo, hi = s.minimum(), s.maximum()
        whole = isinstance(lo, int) and isinstance(hi, int)  # superqt's float sliders give floats
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
        s = self.rng.choice(sliders)
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
        w = self.rng.choice(kinds[self.rng.choice(sorted(kinds))])
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
        e = self.rng.choice(edits)
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
        c = self.rng.choice(combos)
        i = self.rng.randrange(c.count())
        c.setCurrentIndex(i)  # what choosing an entry in the open list does
        return f"choose {c.itemText(i)[:40]!r} in {self._name(c)}"

    def check_box(self):
        QtWidgets = _qt()[2]
        boxes = self._usable(QtWidgets.QCheckBox)
        if not boxes:
            return None
        b = self.rng.choice(boxes)
        b.click()
        return f"click {self._name(b)} -> {b.isChecked()}"

    def button(self):
        QtWidgets = _qt()[2]
        buttons = [b for b in self._usable(QtWidgets.QPushButton)]
        if not buttons:
            return None
        b = self.rng.choice(buttons)
        b.click()
        return f"click {self._name(b)}"

    def plot_mouse(self):
        QtCore, QtGui, QtWidgets, QtTest = _qt()
        import pyqtgraph as pg

        views = self._usable(pg.GraphicsView)
        if not views:
            return None
        v = self.rng.choice(views)
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
        bar = self.rng.choice(bars)
        i = self.rng.randrange(bar.count())
        QtTest.QTest.mouseClick(bar, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                                bar.tabRect(i).center())
        owner = "panel" if self.window._panel_of(bar) else "docks"
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

    def preset(self):
        w = self.window
        w._fill_presets_menu()  # what opening the menu does (aboutToShow)
        acts = [a for a in w.presets_menu.actions()
                if a.isEnabled() and not a.isSeparator() and a.menu() is None
                and a not in (w.act_open_preset, w.act_save_preset, w.act_save_preset_file,
                              w.act_open_presets_folder)]
        if not acts:
            return None
        a = self.rng.choice(acts)
        a.trigger()
        return f"Presets → {a.text().replace('&', '')!r}"

    def preset_file(self):
        w = self.window
        what = self.rng.choice(("save file", "save mine", "open"))
        if what == "save file":
            w.act_save_preset_file.trigger()
        elif what == "save mine":
            w.act_save_preset.trigger()
        else:
            w.act_open_preset.trigger()
        return f"File → {what}"

    def undo_redo(self):
        w = self.window
        act = self.rng.choice((w.act_undo, w.act_undo, w.act_redo))
        act.trigger()
        return f"Edit → {act.objectName()}"

    def reset(self):
        w = self.window
        act = self.rng.choice((w.act_reset_panel, w.act_reset_panel, w.act_reset_all))
        act.trigger()
        return f"Edit → {act.objectName()}"

    def look(self):
        w = self.window
        acts = [w.act_presenter, w.act_presenter, w.act_dark, w.act_safe_maps, w.act_zoom_in, w.act_zoom_out,
                w.act_zoom_reset, w.act_fullscreen, *w.theme_actions.values()]
        a = self.rng.choice(acts)
        a.trigger()
        return f"View → {a.objectName()}"

    def export(self):
        w = self.window
        what = self.rng.choice(("panel png", "panel svg", "window png", "plot png", "plot svg", "plot csv",
                                "plot npy", "copy panel", "copy plot", "panel width", "gif"))
        panel = w.current_panel()
        ex = w.exporter
        if what == "panel png":
            w.export_current_panel(scale=self.rng.choice((1, 2)))
        elif what == "panel svg":
            w.export_current_panel(ext=".svg")
        elif what == "window png":
            w.export_window(scale=1)
        elif what == "copy panel":
            w.copy_current_panel()
        elif what == "panel width":
            w.export_current_panel(ask_width=True)
        elif what == "gif":
            fields = [f for f in ("position", "factor", "alpha", "seed", "steps") if hasattr(panel.state, f)]
            if not fields:
                return None
            from .export import ExportError, sweep_values

            name = fields[0]
            try:
                from .export.controller import effective_range

                lo, hi = effective_range(panel.state, name)
                values = sweep_values(type(panel.state), name, lo, hi, 3)
            except (ExportError, ValueError) as exc:
                return f"gif of {panel.panel_id}.{name} not offered: {exc}"
            ex.record_animation(panel, name, values, width=240, fps=4, path=self._next_path("sweep", ".gif"))
            what += f" of {panel.panel_id}.{name} {values}"
        else:
            plots = [p for p in panel.plots() if p.isVisible()]
            if not plots:
                return None
            view = self.rng.choice(plots)
            if what == "copy plot":
                ex.copy_plot(view)
            elif what in ("plot png", "plot svg"):
                ex.save_plot(panel, view, ext="." + what.split()[1], scale=1)
            else:
                ex.save_plot_data(panel, view, "." + what.split()[1])
        return f"export {what} ({panel.panel_id})"

    def wait(self):
        if self.rng.random() < 0.5:
            waves = self.window.panels.get("waves")
            if settle(self.window, timeout_s=5.0, quiet_s=0.05) and not (waves is not None and waves.playing):
                # Settled: every plot must show the current parameters now, not only at the end.
                bad = final_mismatches(self.window, self.recorder)
                if bad:
                    self._problems.append("after waiting until drawn, not every plot shows the current "
                                          "parameters:\n  " + "\n  ".join(bad))
                self.counts.checks += 1
                return "wait until drawn, then check every plot"
            return "wait until drawn (still busy)"
        ms = self.rng.choice((20, 60, 200))
        process(self._app, ms)
        return f"wait {ms} ms"

    # -- running -------------------------------------------------------------------------------------
    @property
    def _app(self):
        return _qt()[2].QApplication.instance()

    def _choose(self):
        x = self.rng.random() * self._total_weight
        for weight, action in self.actions:
            x -= weight
            if x < 0:
                return action
        return self.actions[-1][1]

    def _fail(self, what: str, index: int) -> MonkeyFailure:
        last = "\n".join(f"  {e}" for e in self.history)
        return MonkeyFailure(
            f"{what}\n\nGUI monkey, seed {self.seed}, at event {index}. "
            f"The last {len(self.history)} events:\n"
            f"{last}\nReplay: python -m explorer.monkey --seed {self.seed} --events {index + 1}"
        )

    def run(self, events: int, *, progress=None) -> Counts:
        """Fire ``events`` random events; raise :class:`MonkeyFailure` on an exception, a Qt warning
        or an exception escaping to the event loop."""
        from PySide6.QtCore import qInstallMessageHandler

        problems = self._problems

        def on_message(mode, context, message):
            if mode.name not in ("QtDebugMsg", "QtInfoMsg") and not message.startswith(IGNORED_QT_MESSAGES):
                problems.append(f"Qt {mode.name}: {message}")
            if previous is not None:
                previous(mode, context, message)

        def on_exception(kind, value, tb):
            problems.append("exception escaped to the event loop:\n" +
                            "".join(traceback.format_exception(kind, value, tb)))
            if previous_hook is not None and previous_hook is not sys.__excepthook__:
                previous_hook(kind, value, tb)

        previous = qInstallMessageHandler(on_message)
        previous_hook, sys.excepthook = sys.excepthook, on_exception
        try:
            for i in range(events):
                action = self._choose()
                name = action.__name__
                self.history.append(f"#{i} {name}: …")
                t0 = time.perf_counter()
                try:
                    desc = action()
                    # Input often comes faster than the screen repaints: the loop runs after some
                    # events, so others queue up and are handled (and drawn) together.
                    if self.rng.random() < PROCESS_SHARE:
                        process(self._app)
                except Exception:  # noqa: BLE001 - reported with the seed and the events before it
                    raise self._fail(f"{name} raised:\n{traceback.format_exc()}", i) from None
                self.history[-1] = _clip(f"#{i} {name}: {desc or '(nothing to act on)'}")
                self.counts.events += 1
                (self.counts.by_action if desc else self.counts.skipped)[name] += 1
                self.counts.seconds[name] += time.perf_counter() - t0
                if problems:
                    raise self._fail(problems[0], i)
                if progress is not None:
                    progress(i)
            # Let go: stop the Waves animation if the monkey left it playing (a lecturer would).
            waves = self.window.panels.get("waves")
            if waves is not None and waves.playing:
                waves.stop_play()
                self.history.append("stop the Waves animation")
            if not settle(self.window):
                raise self._fail("the window did not settle within 120 s after the last event", events)
            if problems:
                raise self._fail(problems[0], events)
        finally:
            qInstallMessageHandler(previous)
            sys.excepthook = previous_hook
        return self.counts

    def check_final(self) -> None:
        """Raise :class:`MonkeyFailure` unless every plot shows the result of the final parameters."""
        bad = final_mismatches(self.window, self.recorder)
        self.counts.checks += 1
        if bad:
            raise self._fail("after the last event, not every plot shows the final parameters:\n  " +
                             "\n  ".join(bad), self.counts.events)


def main(argv: list[str] | None = None) -> int:
    """Replay a monkey run outside the test suite (offscreen); exit 1 on a failure."""
    import os

    parser = argparse.ArgumentParser(prog="python -m explorer.monkey", description="Replay the GUI monkey.")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--events", type=int, required=True)
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.mkdtemp(prefix="pe-monkey-")
    os.environ["PE_EXPLORER_HOME"] = home  # never the user's settings or presets
    from .app import make_app
    from .main_window import MainWindow
    from .widgets.plots import configure_pyqtgraph

    make_app()
    configure_pyqtgraph()
    window = MainWindow(restore_layout=False)
    monkey = Monkey(window, args.seed, Path(home) / "files")
    window.show()
    try:
        monkey.run(args.events)
        monkey.check_final()
    except MonkeyFailure as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        window.close()
    print(f"{monkey.counts.events} events, no failure (seed {args.seed}); every plot checked against "
          f"the parameters {monkey.counts.checks} times")
    c = monkey.counts
    for name, n in c.by_action.most_common():
        print(f"  {name:12s} {n:5d} events ({c.skipped[name]} found nothing to act on), "
              f"{c.seconds[name]:6.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
