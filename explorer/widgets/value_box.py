"""Typed values that answer: one reading of typed numbers and one way of saying "no" for every value box.

Every box where a value is typed (spin boxes, the sliders' boxes (:mod:`.value_slider`), the list boxes)
goes through here, so a bad value gets the same answer everywhere:

- a red outline and a one-line reason just under the box ("base must be 10 … 10⁷");
- the box shows the value in use again: text that is not a number is put back, a number out of range is
  clamped to the nearest end (and a value the panel adjusts, e.g. d_model to a multiple of 2 × heads, is
  shown as adjusted);
- every clamp or refusal is named in the main window's status bar ("base: 1e400 is out of range; using
  10⁷");
- numbers are read the locale's way first ("0,5" in German, "1.000"), then the C way ("1e3", "0.5"), then
  a lone decimal comma ("0,5" anywhere): a typed comma never turns 0,5 into 5;
- Ctrl+Z / Ctrl+Shift+Z (Ctrl+Y) in a box with no pending edit of its own undo and redo the app's last
  change; while the box holds typing that is not applied yet they undo that typing, like any text box.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QEvent, QLocale, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QValidator
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QLineEdit,
    QMainWindow,
    QSpinBox,
    QWidget,
)

#: The outline and reason colour: red that keeps >= 3:1 on white and on near-black.
PROBLEM_COLOUR = "#d62728"
#: How long the reason stays under the box (ms); the outline goes with it, or with the next good value.
REASON_MS = 8000
STATUS_MS = 8000

_C_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_COMMA_DECIMAL = re.compile(r"[+-]?[0-9]*,[0-9]+")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


# -- reading and writing numbers ---------------------------------------------------------------------
def parse_number(text: str, locale: QLocale | None = None) -> float | None:
    """The number typed in ``text``, or None if it is not one (NaN included).

    Too large for a float ("1e400", a 400-digit integer) reads as ±inf, which any range then clamps.
    """
    t = text.strip().replace("\u2212", "-")
    for space in (" ", "\u00a0", "\u202f"):
        t = t.replace(space, "")
    if not t or len(t) > 100000:
        return None
    value: float | None = None
    loc = locale if locale is not None else QLocale()
    if _C_NUMBER.fullmatch(t) is None or loc.decimalPoint() != ".":
        v, ok = loc.toDouble(t)
        if ok and not (math.isinf(v) and not re.search(r"inf", t, re.IGNORECASE)):
            value = v
    if value is None and _C_NUMBER.fullmatch(t):
        value = float(t)  # Python's float: exact, and inf past the float range
    if value is None and _COMMA_DECIMAL.fullmatch(t):
        value = float(t.replace(",", "."))
    if value is None and t.lower().lstrip("+-") in ("inf", "infinity"):
        value = -math.inf if t.startswith("-") else math.inf
    if value is None or math.isnan(value):
        return None
    return value


def nice(value: float) -> str:
    """A bound as a reader wants it: 10⁷ for large powers of ten, whole numbers in full, else 6 digits."""
    if value != 0 and math.isfinite(value) and abs(value) >= 1e4:
        e = math.log10(abs(value))
        if abs(e - round(e)) < 1e-12:
            return ("−" if value < 0 else "") + "10" + str(round(e)).translate(_SUPERSCRIPT)
    if math.isfinite(value) and value == int(value):
        return str(int(value)).replace("-", "−")
    return f"{value:.6g}".replace("-", "−")


def clip_text(text: str, n: int = 14) -> str:
    t = text.strip()
    return t if len(t) <= n else t[: n - 1] + "…"


def field_name(box: QWidget) -> str:
    """The label of ``box``'s row in a QFormLayout above it (e.g. "base"), else its tooltip's first words."""
    w: QWidget | None = box
    while w is not None:
        parent = w.parentWidget()
        if parent is None:
            break
        lay = parent.layout()
        for form in ([lay] if isinstance(lay, QFormLayout) else []) + parent.findChildren(QFormLayout):
            name = _form_label(form, box)
            if name:
                return name
        w = parent
    return box.objectName() or "value"


def _form_label(form: QFormLayout, box: QWidget) -> str:
    for row in range(form.rowCount()):
        field = form.itemAt(row, QFormLayout.ItemRole.FieldRole)
        label = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
        if field is not None and label is not None and _holds(field, box) and isinstance(lab := label.widget(), QLabel):
            return lab.text().replace("&", "").rstrip(": ")
    return ""


def _holds(item: QLayoutItem | None, box: QWidget) -> bool:
    if item is None:
        return False
    w = item.widget()
    if w is not None:
        return w is box or w.isAncestorOf(box)
    lay = item.layout()
    if isinstance(lay, QLayout):
        return any(_holds(lay.itemAt(i), box) for i in range(lay.count()))
    return False


def status(widget: QWidget, message: str) -> None:
    """Show ``message`` in the status bar of the main window holding ``widget`` (if there is one)."""
    w: QWidget | None = widget
    while w is not None and not isinstance(w, QMainWindow):
        w = w.parentWidget()
    if isinstance(w, QMainWindow):
        w.statusBar().showMessage(message, STATUS_MS)


# -- the answer next to the box ----------------------------------------------------------------------
class Feedback(QObject):
    """The red outline and the reason under one box (one per box: :func:`feedback`)."""

    def __init__(self, box: QWidget) -> None:
        super().__init__(box)
        self.box = box
        self.reason: str | None = None
        self.last_status: str | None = None
        self._sheet: str | None = None
        self._label: QLabel | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.clear)
        box.installEventFilter(self)  # the reason goes when its box does (another tab, a hidden sidebar)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Hide:
            label = self.label()
            if label is not None:
                label.hide()
        return False

    def refuse(self, reason: str, message: str) -> None:
        """Outline the box, show ``reason`` under it and ``message`` in the status bar."""
        self.reason = reason
        if self._sheet is None:
            self._sheet = self.box.styleSheet()
        kind = "QAbstractSpinBox" if isinstance(self.box, QAbstractSpinBox) else "QLineEdit"
        self.box.setStyleSheet(f"{kind} {{ border: 2px solid {PROBLEM_COLOUR}; border-radius: 2px; }}")
        self.box.setProperty("valueProblem", True)
        self._show_label(reason)
        self.note(message)
        self._timer.start(REASON_MS)

    def note(self, message: str) -> None:
        """Name a clamp or an adjustment in the status bar (no outline)."""
        self.last_status = message
        status(self.box, message)

    def clear(self) -> None:
        self._timer.stop()
        self.reason = None
        if self._sheet is not None:
            self.box.setStyleSheet(self._sheet)
            self._sheet = None
        self.box.setProperty("valueProblem", False)
        label = self.label()
        if label is not None:
            label.hide()

    def label(self) -> QLabel | None:
        """The reason's label, while it exists.  It is a child of the box's window, which may be a floating
        dock: when that window is destroyed the label goes before the box's last Hide event reaches this
        filter, and touching it there raised inside Qt's teardown (the process died of SIGSEGV)."""
        return self._label if self._label is not None and shiboken6.isValid(self._label) else None

    def _show_label(self, text: str) -> None:
        top = self.box.window()
        lab = self.label()
        if lab is None or lab.parentWidget() is not top:
            lab = self._label = QLabel(top)
            lab.setObjectName("valueReason")
            lab.setTextFormat(Qt.TextFormat.PlainText)
            lab.setAutoFillBackground(True)
            lab.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        lab.setText(text)
        lab.setStyleSheet(f"QLabel {{ color: {PROBLEM_COLOUR}; padding: 0 3px; }}")
        lab.adjustSize()
        below = self.box.mapTo(top, self.box.rect().bottomLeft())
        x = min(max(0, below.x()), max(0, top.width() - lab.width()))
        y = below.y() + 1
        if y + lab.height() > top.height():  # no room below: above the box
            y = max(0, self.box.mapTo(top, self.box.rect().topLeft()).y() - lab.height() - 1)
        lab.move(x, y)
        lab.setVisible(self.box.isVisible())  # a box on a hidden tab keeps its outline, not a floating line
        lab.raise_()


def feedback(box: QWidget) -> Feedback:
    """The :class:`Feedback` of ``box`` (made on first use)."""
    fb = box.findChild(Feedback, options=Qt.FindChildOption.FindDirectChildrenOnly)
    return fb if fb is not None else Feedback(box)


def check_number(box: QWidget, text: str, lo: float, hi: float, *, integer: bool = False,
                 name: str | None = None) -> tuple[float | None, bool]:
    """Read ``text`` typed into ``box`` for a value in ``lo … hi``; answer a bad one.

    Returns ``(value, ok)``: the value to use (clamped into the range when the number was outside it)
    or None when nothing should change (not a number: the caller shows the value in use again), and
    whether the text was fine as typed.
    """
    fb = feedback(box)
    label = name or field_name(box)
    span = f"{nice(lo)} … {nice(hi)}"
    v = parse_number(text, box.locale())
    if v is None:
        what = "a whole number" if integer else "a number"
        fb.refuse(f"{label} must be {what}, {span}", f"{label}: “{clip_text(text)}” is not a number; kept as it was")
        return None, False
    if v < lo or v > hi:
        used = lo if v < lo else hi
        fb.refuse(f"{label} must be {span}",
                  f"{label}: {clip_text(text)} is out of range; using {nice(used)} (the "
                  f"{'minimum' if used == lo else 'maximum'})")
        return used, False
    if integer and v != math.floor(v):
        fb.refuse(f"{label} must be a whole number, {span}",
                  f"{label}: {clip_text(text)} is not a whole number; kept as it was")
        return None, False
    fb.clear()
    return v, True


def name_adjustment(box: QWidget, typed: float, used: float, *, name: str | None = None) -> None:
    """Say in the status bar that ``typed`` became ``used`` (the panel's own rule, e.g. a multiple of 2·heads)."""
    if typed == used or (used != 0 and abs(typed - used) <= 1e-9 * abs(used)):
        return
    label = name or field_name(box)
    feedback(box).note(f"{label}: {nice(typed)} is not possible here; using {nice(used)}")


# -- Ctrl+Z / Ctrl+Shift+Z from a box --------------------------------------------------------------
def _undo_kind(event: QKeyEvent) -> str | None:
    if event.matches(QKeySequence.StandardKey.Undo):
        return "actUndo"
    if event.matches(QKeySequence.StandardKey.Redo):
        return "actRedo"
    mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
    ctrl, shift = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
    if event.key() == Qt.Key.Key_Z and mods == ctrl | shift or event.key() == Qt.Key.Key_Y and mods == ctrl:
        return "actRedo"
    return None


def has_pending_edit(box: QWidget) -> bool:
    """True while ``box`` holds typing that is not applied yet (its own undo then has something to do)."""
    if isinstance(box, QSpinBox):
        return box.text() != box.prefix() + box.textFromValue(box.value()) + box.suffix()
    if isinstance(box, QDoubleSpinBox):
        return box.text() != box.prefix() + box.textFromValue(box.value()) + box.suffix()
    if isinstance(box, QLineEdit):
        return box.isModified()
    return False


def _app_action(widget: QWidget, name: str) -> QAction | None:
    w: QWidget | None = widget
    while w is not None and not isinstance(w, QMainWindow):
        w = w.parentWidget()
    return w.findChild(QAction, name) if w is not None else None


class _UndoRouter(QObject):
    """Sends Ctrl+Z / Ctrl+Shift+Z from a value box with no pending edit to the app's Undo / Redo."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) or not isinstance(obj, QWidget):
            return False
        if not isinstance(event, QKeyEvent):  # both kinds are key events
            return False
        which = _undo_kind(event)
        if which is None:
            return False
        box = parent if isinstance(parent := obj.parentWidget(), QAbstractSpinBox) else obj
        if has_pending_edit(box):
            return False  # the box undoes its own typing
        action = _app_action(box, which)
        if action is None:
            return False
        event.accept()  # ShortcutOverride: the key comes to the box, and so to this filter, once
        if kind == QEvent.Type.KeyPress:
            action.trigger()
        return True


_router: _UndoRouter | None = None


def route_undo(box: QWidget) -> None:
    """Let Ctrl+Z / Ctrl+Shift+Z in ``box`` (and its inner line edit) reach the app's undo stack."""
    global _router
    if _router is None:
        _router = _UndoRouter()
    box.installEventFilter(_router)
    inner = box.findChild(QLineEdit) if isinstance(box, QAbstractSpinBox) else None
    if inner is not None:
        inner.installEventFilter(_router)


class AnyText(QValidator):
    """Lets any text be typed (the box answers on Enter); marks a line edit as a value box."""

    def validate(self, text: str, pos: int):  # noqa: D102 - Qt override
        return QValidator.State.Acceptable, text, pos


# -- spin boxes that answer ----------------------------------------------------------------------------
if TYPE_CHECKING:
    _SpinBase = QAbstractSpinBox
else:
    _SpinBase = object


class _Answering(_SpinBase):
    """What :class:`SpinBox` and :class:`DoubleSpinBox` share (mixed in before the Qt class)."""

    _integer = True
    _answered = False

    if TYPE_CHECKING:  # the Qt spin box's (QSpinBox or QDoubleSpinBox), which the mixin comes before
        def prefix(self) -> str: ...
        def suffix(self) -> str: ...
        def minimum(self) -> Any: ...  # int in a SpinBox, float in a DoubleSpinBox
        def maximum(self) -> Any: ...
        def value(self) -> Any: ...
        def textFromValue(self, v: Any) -> str: ...

    def setValue(self, value) -> None:  # noqa: N802 - Qt's name
        """Qt's ``setValue``, except that a box given the value it shows is left alone: Qt repaints it (and the group
        box behind it) even then, and a panel shows its whole state in its controls at each step of a drag (five boxes
        of Schemes' sidebar and their group, every step).  "The value it shows" is Qt's own text for it (a double
        rounds as the box shows it), and typing not applied yet is cleared as Qt clears it."""
        shown = self.value()
        same = value == shown or (not self._integer and self.textFromValue(float(value)) == self.textFromValue(shown))
        if same and not has_pending_edit(self):
            return
        super().setValue(value)  # type: ignore[misc]

    def _setup(self, name: str | None) -> None:
        self._name = name
        # Typed numbers apply on Enter or on leaving the box (typing 256 must not pass through 2 and 25);
        # the arrows and the wheel still step at once.
        self.setKeyboardTracking(False)
        route_undo(self)

    def _clean(self, text: str) -> str:
        t = text
        if self.prefix() and t.startswith(self.prefix()):
            t = t[len(self.prefix()):]
        if self.suffix() and t.endswith(self.suffix()):
            t = t[: -len(self.suffix())]
        return t.strip()

    def _in_range(self, text: str) -> bool:
        v = parse_number(self._clean(text), self.locale())
        return v is not None and self.minimum() <= v <= self.maximum() and (
            not self._integer or v == math.floor(v))

    def validate(self, text: str, pos: int):  # noqa: D102 - Qt override
        # Anything may be typed (a refused key would be lost without a word); Enter answers it.
        state = QValidator.State.Acceptable if self._in_range(text) else QValidator.State.Intermediate
        return state, text, pos

    def valueFromText(self, text: str):  # noqa: N802 - Qt override
        v = parse_number(self._clean(text), self.locale())
        if v is None:
            return self.value()
        v = min(max(v, self.minimum()), self.maximum())
        return int(round(v)) if self._integer else v

    def fixup(self, text: str) -> str:  # noqa: D102 - Qt override
        v, _ok = check_number(self, self._clean(text), self.minimum(), self.maximum(),
                              integer=self._integer, name=self._name)
        self._answered = True
        if v is None:
            return text  # Qt puts the value in use back
        return self.textFromValue(int(v) if self._integer else v)

    def _commit(self, run: Callable[[], None]) -> None:
        text = self._clean(self.text())
        pending = has_pending_edit(self)
        self._answered = False
        run()
        if self._answered or not pending:
            return  # answered by fixup, or nothing was typed
        feedback(self).clear()
        v = parse_number(text, self.locale())
        if v is not None:
            name_adjustment(self, v, float(self.value()), name=self._name)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._commit(lambda: super(_Answering, self).keyPressEvent(event))
            return
        super().keyPressEvent(event)

    def focusOutEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._commit(lambda: super(_Answering, self).focusOutEvent(event))


class SpinBox(_Answering, QSpinBox):
    """A QSpinBox whose typed values answer (see the module); ``name`` defaults to its form label."""

    def __init__(self, parent: QWidget | None = None, *, name: str | None = None, **kwargs) -> None:
        QSpinBox.__init__(self, parent, **kwargs)
        self._setup(name)


class DoubleSpinBox(_Answering, QDoubleSpinBox):
    """A QDoubleSpinBox whose typed values answer (decimal commas too); ``name`` defaults to its label."""

    _integer = False

    def __init__(self, parent: QWidget | None = None, *, name: str | None = None, **kwargs) -> None:
        QDoubleSpinBox.__init__(self, parent, **kwargs)
        self._setup(name)
