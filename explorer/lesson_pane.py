"""The Lesson pane: one step at a time — text, a prediction, then "Show me" with the numbers just computed.

The pane only renders and asks: the scene is set by the window (``set_scene``, one undoable change, as a
lecture scene), the check runs in the compute service (:class:`~explorer.lessons.checks.CheckRequest`), and
its :class:`~explorer.lessons.checks.CheckResult` is shown when it comes back.  Results are kept per
request, so stepping back to a step already shown reveals it again at once.

Keys: ← / → and Page Up / Page Down go back and on when the pane has the keyboard (a slider or a text box
with focus keeps its arrow keys: only keys nobody used reach the pane); the window adds Alt+← / Alt+→.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from .lessons.checks import CheckRequest, CheckResult
from .lessons.format import Lesson, Step, format_reveal
from .widgets.plain import plain_tip

log = logging.getLogger(__name__)

#: Box colours (background, border, text) for light and dark: the prediction's verdict (right, wrong, or none
#: made: neutral grey), a wrong claim in a text, a failed check.
BOXES = {
    False: {"right": ("#dcfce7", "#15803d", "#052e16"), "wrong": ("#fee2e2", "#b91c1c", "#450a0a"),
            "none": ("#f1f5f9", "#64748b", "#0f172a"),
            "text": ("#fef3c7", "#b45309", "#1c1917"), "fail": ("#fee2e2", "#b91c1c", "#450a0a")},
    True: {"right": ("#052e16", "#4ade80", "#dcfce7"), "wrong": ("#450a0a", "#f87171", "#fee2e2"),
           "none": ("#1e293b", "#94a3b8", "#f1f5f9"),
           "text": ("#422006", "#fbbf24", "#fef3c7"), "fail": ("#450a0a", "#f87171", "#fee2e2")},
}


def box_sheet(dark: bool, kind: str) -> str:
    """A rounded box's style sheet in the colours of ``kind`` (no font: the window's font reaches it)."""
    bg, border, fg = BOXES[dark][kind]
    return (f"QLabel {{ background: {bg}; color: {fg}; border: 2px solid {border}; border-radius: 6px; "
            f"padding: 6px; }}")


def parse_number(text: str) -> float | None:
    """A typed prediction as a number ("54,410", "5.4e4", "13 %" -> 0.13); None if it is not one."""
    t = text.strip().replace("\u2212", "-").replace("_", "").replace(" ", "")
    percent = t.endswith("%")
    t = t.rstrip("%")
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", t):
        t = t.replace(",", "")
    try:
        value = float(t)
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return value / 100.0 if percent else value


def shown_number(v) -> str:
    """A number for a student: 54,410 and 6.2832 and 2.2e-16, not 5.441e+04."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return str(v)
    a = abs(float(v))
    if a == 0 or 0.01 <= a < 1000:
        return f"{v:.4g}"
    if 1000 <= a < 1e12:
        return f"{v:,.0f}"
    return f"{v:.2e}"


def _wrapping_policy() -> QSizePolicy:
    """Any width (a long line never widens the pane), and a height for that width: setting a policy drops
    the height-for-width flag that ``setWordWrap`` set, and a wrapped label was then cut to one line's height."""
    policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    policy.setHeightForWidth(True)
    return policy


class _OptionLabel(QLabel):
    """An option's text, wrapped; a click picks its radio button."""

    def __init__(self, text: str, button: QRadioButton, parent=None) -> None:
        super().__init__(text, parent)
        self._button = button
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(_wrapping_policy())

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._button.setChecked(True)
        super().mousePressEvent(event)


class LessonPane(QWidget):
    """Steps of one lesson, with Back / Next, a prediction and "Show me" (see the module docstring)."""

    #: The step on screen changed (its 0-based index).
    stepChanged = Signal(int)
    #: A step's check came back and was shown (its result).
    revealed = Signal(object)

    def __init__(self, service, lessons: list[Lesson], *, set_scene: Callable[[Step, Lesson], None] | None = None,
                 open_lesson: Callable[[], None] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonPane")
        self.service = service
        self.lessons = list(lessons)
        self.set_scene = set_scene
        self.lesson: Lesson | None = None
        self.index = 0
        self.dark = False
        self._results: dict[CheckRequest, CheckResult] = {}
        self._predictions: dict[tuple[str, int], object] = {}
        self._waiting: CheckRequest | None = None
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build(open_lesson)
        if self.lessons:
            self.set_lesson(self.lessons[0])

    # -- building --------------------------------------------------------------------------------
    def _build(self, open_lesson) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        top = QHBoxLayout()
        self.picker = QComboBox(self)
        self.picker.setObjectName("lessonPicker")
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.picker.setMinimumContentsLength(8)
        self.picker.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        for x in self.lessons:
            self.picker.addItem(x.title)
        self.picker.currentIndexChanged.connect(self._on_picker_changed)
        top.addWidget(self.picker, 1)
        self.open_button = QPushButton("Open…", self)
        self.open_button.setObjectName("lessonOpen")
        self.open_button.setToolTip("Open a lesson file of your own (docs/lessons.md describes the format)")
        if open_lesson is not None:
            self.open_button.clicked.connect(open_lesson)
        top.addWidget(self.open_button)
        outer.addLayout(top)
        # A thin bar without text (text over its chunk was hard to read in dark themes); the count is in the
        # navigation row.
        self.progress = QProgressBar(self)
        self.progress.setObjectName("lessonProgress")
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(8)
        outer.addWidget(self.progress)

        body = QWidget(self)
        body.setObjectName("lessonBody")
        lay = QVBoxLayout(body)
        lay.setContentsMargins(0, 0, 0, 0)
        self.title = self._wrapped(body, "lessonStepTitle")
        self.text = self._wrapped(body, "lessonStepText")
        self.prompt = self._wrapped(body, "lessonPrompt")
        for w in (self.title, self.text, self.prompt):
            lay.addWidget(w)
        self.options = QWidget(body)
        self.options.setObjectName("lessonOptions")
        # One grid for every option (radio button | wrapped text): a row widget of its own per option lost the
        # wrapped label's height for its width, and a long option was cut.
        self.options_layout = QGridLayout(self.options)
        self.options_layout.setContentsMargins(0, 0, 0, 0)
        self.options_layout.setColumnStretch(1, 1)
        self.group = QButtonGroup(self)
        lay.addWidget(self.options)
        self.number = QLineEdit(body)
        self.number.setObjectName("lessonNumber")
        self.number.returnPressed.connect(self.show_me)
        lay.addWidget(self.number)
        self.show_button = QPushButton("Show me", body)
        self.show_button.setObjectName("lessonShowMe")
        self.show_button.setToolTip("Set up the panel, run this step's check and show the answer")
        self.show_button.clicked.connect(self.show_me)
        lay.addWidget(self.show_button)
        self.verdict = self._wrapped(body, "lessonVerdict")
        self.wrong = self._wrapped(body, "lessonWrong")
        self.reveal = self._wrapped(body, "lessonReveal")
        self.computed = self._wrapped(body, "lessonComputed")
        for w in (self.verdict, self.wrong, self.reveal, self.computed):
            lay.addWidget(w)
        lay.addStretch(1)
        self.scroll = QScrollArea(self)
        self.scroll.setObjectName("lessonScroll")
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(body)
        outer.addWidget(self.scroll, 1)

        nav = QHBoxLayout()
        self.back_button = QPushButton("← Back", self)
        self.back_button.setObjectName("lessonBack")
        self.back_button.clicked.connect(self.go_back)
        self.next_button = QPushButton("Next →", self)
        self.next_button.setObjectName("lessonNext")
        self.next_button.clicked.connect(self.go_next)
        for b in (self.back_button, self.next_button, self.show_button, self.open_button):
            b.setAutoDefault(False)
            b.installEventFilter(self)  # a push button would take ← / → to move focus: they step instead
        self.counter = QLabel(self)
        self.counter.setObjectName("lessonCounter")
        self.counter.setAlignment(Qt.AlignmentFlag.AlignCenter)
        nav.addWidget(self.back_button)
        nav.addWidget(self.counter, 1)
        nav.addWidget(self.next_button)
        outer.addLayout(nav)

    @staticmethod
    def _wrapped(parent: QWidget, name: str) -> QLabel:
        label = QLabel(parent)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setSizePolicy(_wrapping_policy())
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(max(300, self.fontMetrics().averageCharWidth() * 34), 480)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(max(220, self.fontMetrics().averageCharWidth() * 22), 200)

    # -- look ------------------------------------------------------------------------------------
    def apply_theme(self, theme) -> None:
        """Colours of the boxes for ``theme``; the fonts come from the window (presenter mode included)."""
        self.dark = bool(theme.dark)
        base = self.font()
        title = QFont(base)
        title.setBold(True)
        title.setPointSizeF(base.pointSizeF() * 1.2)
        self.title.setFont(title)
        small = QFont(base)
        small.setItalic(True)
        self.computed.setFont(small)
        self._restyle_boxes()

    def _restyle_boxes(self) -> None:
        kind = self.verdict.property("kind") or "right"
        self.verdict.setStyleSheet(box_sheet(self.dark, kind) if self.verdict.text() else "")
        self.wrong.setStyleSheet(box_sheet(self.dark, "text") if self.wrong.text() else "")
        # Qt keeps the font a widget had when it was first given a style sheet and puts it back whenever the
        # sheet changes: that font was the normal-size one, so from step 2 on the boxes shrank in presenter mode.
        for w in (self.verdict, self.wrong):
            w.setFont(self.font())

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == event.Type.FontChange and hasattr(self, "computed"):
            base = self.font()
            title = QFont(base)
            title.setBold(True)
            title.setPointSizeF(base.pointSizeF() * 1.2)
            self.title.setFont(title)
            for w in (self.verdict, self.wrong):  # a style sheet stops the font from propagating
                w.setFont(base)
            small = QFont(base)
            small.setItalic(True)
            self.computed.setFont(small)

    # -- lessons and steps -----------------------------------------------------------------------
    def add_lesson(self, lesson: Lesson) -> None:
        """Add (or replace, by name and file) ``lesson`` and show its first step."""
        for n, x in enumerate(self.lessons):
            if x.name == lesson.name and x.path == lesson.path:
                self.lessons[n] = lesson
                self.picker.setItemText(n, lesson.title)
                break
        else:
            self.lessons.append(lesson)
            self.picker.addItem(lesson.title)
        self.set_lesson(lesson)

    def set_lesson(self, lesson: Lesson, index: int = 0) -> None:
        self._save_prediction()
        self.lesson = lesson
        self.index = 0
        pos = next((n for n, x in enumerate(self.lessons) if x is lesson), -1)
        if pos >= 0 and self.picker.currentIndex() != pos:
            self.picker.blockSignals(True)
            self.picker.setCurrentIndex(pos)
            self.picker.blockSignals(False)
        self.picker.setToolTip(plain_tip(lesson.summary or lesson.title))
        self.go(index)

    def _on_picker_changed(self, index: int) -> None:
        if 0 <= index < len(self.lessons):
            self.set_lesson(self.lessons[index])

    @property
    def step(self) -> Step | None:
        return None if self.lesson is None else self.lesson.steps[self.index]

    def go_back(self) -> None:
        self.go(self.index - 1)

    def go_next(self) -> None:
        self.go(self.index + 1)

    def go(self, index: int) -> None:
        if self.lesson is None:
            return
        if 0 <= self.index < len(self.lesson.steps):
            self._save_prediction()
        n = len(self.lesson.steps)
        self.index = max(0, min(int(index), n - 1))
        step = self.lesson.steps[self.index]
        self._waiting = None
        self.progress.setRange(0, n)
        self.progress.setValue(self.index + 1)
        self.counter.setText(f"{self.index + 1} / {n}")
        self.counter.setToolTip(f"Step {self.index + 1} of {n} — ← and → (or Alt+← / Alt+→) move between steps")
        self.title.setText(step.title)
        self.text.setText(step.text)
        self._show_question(step)
        self.back_button.setEnabled(self.index > 0)
        self.next_button.setEnabled(self.index < n - 1)
        self._clear_answer()
        cached = self._results.get(self._request(step))
        if cached is not None:
            self._reveal(step, cached)
        self.scroll.verticalScrollBar().setValue(0)
        self.stepChanged.emit(self.index)

    def _show_question(self, step: Step) -> None:
        while self.options_layout.count():
            item = self.options_layout.takeAt(0)
            w = item.widget()
            if w is not None:  # hidden now: deleteLater waits for the event loop
                w.hide()
                w.deleteLater()
        for b in self.group.buttons():
            self.group.removeButton(b)
        q = step.question
        self.prompt.setText(f"Predict first: {q.prompt}" if q is not None else "")
        self.prompt.setVisible(q is not None)
        self.options.setVisible(q is not None and q.kind == "choice")
        self.number.setVisible(q is not None and q.kind == "number")
        saved = self._predictions.get(self._where())
        if q is not None and q.kind == "choice":
            for n, text in enumerate(q.options):
                button = QRadioButton(self.options)
                button.setObjectName(f"lessonOption{n}")
                button.setChecked(saved == n)
                self.group.addButton(button, n)
                self.options_layout.addWidget(button, n, 0, Qt.AlignmentFlag.AlignTop)
                self.options_layout.addWidget(_OptionLabel(text, button, self.options), n, 1)
        elif q is not None:
            unit = f" ({q.unit})" if q.unit else ""
            self.number.setPlaceholderText(f"your estimate{unit}")
            self.number.setText("" if saved is None else f"{saved:g}")

    def _where(self) -> tuple[str, int]:
        return ((self.lesson.name if self.lesson else ""), self.index)

    def prediction(self):
        """The student's prediction for this step: an option index, a number, or None."""
        step = self.step
        if step is None or step.question is None:
            return None
        if step.question.kind == "choice":
            n = self.group.checkedId()
            return None if n < 0 else n
        return parse_number(self.number.text())

    def _save_prediction(self) -> None:
        if self.lesson is not None:
            self._predictions[self._where()] = self.prediction()

    def _clear_answer(self) -> None:
        for w in (self.verdict, self.wrong, self.reveal, self.computed):
            w.clear()
            w.hide()
        self._restyle_boxes()

    # -- show me ---------------------------------------------------------------------------------
    @staticmethod
    def _request(step: Step) -> CheckRequest:
        return CheckRequest(step.check, tuple(sorted(step.params.items())))

    def show_me(self) -> None:
        """Set the scene, run the check (or reuse its result) and reveal the answer."""
        step, lesson = self.step, self.lesson
        if step is None or lesson is None:
            return
        self._save_prediction()
        if step.scene is not None and self.set_scene is not None:
            self.set_scene(step, lesson)
        req = self._request(step)
        cached = self._results.get(req)
        if cached is not None:
            self._reveal(step, cached)
            return
        self._clear_answer()
        self.reveal.setText("Computing…")
        self.reveal.show()
        self._waiting = req
        self.service.submit(req, origin=(lesson.name, self.index), on_result=self._on_result,
                            on_error=self._on_error)

    def _on_result(self, result) -> None:
        value = result.value
        self._results[result.request] = value
        if result.request == self._waiting and self.step is not None:
            self._waiting = None
            self._reveal(self.step, value)

    def _on_error(self, failure) -> None:
        if failure.request == self._waiting:
            self._waiting = None
            self._clear_answer()
            self.reveal.setText(f"The check could not run: {failure.message}")
            self.reveal.show()

    def _reveal(self, step: Step, result: CheckResult) -> None:
        q = step.question
        guess = self._predictions.get(self._where())
        lines = []
        if q is not None:
            right = q.judge(guess, result.values)
            if q.kind == "choice":
                answer = q.options[q.answer or 0]
                lines.append("No prediction — the answer: " + answer if right is None else
                             ("Right: " if right else "Not quite — the answer: ") + answer)
            else:
                truth = result.values.get(q.value)
                unit = f" {q.unit}" if q.unit else ""
                shown = shown_number(truth)
                if right is None:
                    lines.append(f"No prediction — the computed answer: {shown}{unit}")
                else:
                    lines.append(f"{'Right' if right else 'Not quite'}: you said {shown_number(guess)}, "
                                 f"the computed answer is {shown}{unit} (within {q.tolerance:.0%} counts)")
            self.verdict.setProperty("kind", "none" if right is None else "right" if right else "wrong")
        elif not result.passed:
            self.verdict.setProperty("kind", "fail")
        if not result.passed:
            lines.append("This check did not bear the claim out with these numbers.")
            self.verdict.setProperty("kind", "fail")
        self.verdict.setText("\n".join(lines))
        self.verdict.setVisible(bool(lines))
        self.wrong.setText(f"A text you may read says: {step.wrong}" if step.wrong else "")
        self.wrong.setVisible(bool(step.wrong))
        self.reveal.setText(format_reveal(step.reveal, result.values) if step.reveal else result.claim)
        self.reveal.show()
        mark = "✓ holds" if result.passed else "✗ fails"
        self.computed.setText(f"Check “{result.name}” {mark}: {result.computed}")
        self.computed.show()
        self._restyle_boxes()
        QTimer.singleShot(0, self._scroll_to_answer)
        self.revealed.emit(result)

    def _scroll_to_answer(self) -> None:
        """The answer in view (in a short pane it starts below the question): its end, then its start."""
        if self.verdict.isVisible() or self.reveal.isVisible():
            self.scroll.ensureWidgetVisible(self.computed, 0, 0)
            self.scroll.ensureWidgetVisible(self.verdict if self.verdict.isVisible() else self.reveal, 0, 8)

    # -- keys ------------------------------------------------------------------------------------
    def _step_key(self, event) -> bool:
        """Step on ← → Page Up / Page Down without modifiers; True if the key was used."""
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        key = event.key()
        if key in (Qt.Key.Key_Right, Qt.Key.Key_PageDown):
            self.go_next()
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_PageUp):
            self.go_back()
        else:
            return False
        return True

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self._step_key(event):
            event.accept()
        else:
            super().keyPressEvent(event)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        return event.type() == event.Type.KeyPress and self._step_key(event)
