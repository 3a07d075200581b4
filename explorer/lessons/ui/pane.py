"""The Lesson pane: one step at a time — text, a prediction, then "Show me" with the numbers just computed.

The pane only renders and asks: the scene is set by the window (``set_scene``, one undoable change, as a
lecture scene), the check runs in the compute service (:class:`~explorer.lessons.checks.CheckRequest`), and
its :class:`~explorer.lessons.checks.CheckResult` is shown when it comes back.

No answer before a prediction: a step's answer is shown only after "Show me" on that step (which says
"without predicting" until the student picks or types one: skipping is explicit).  Results are kept per
request and answers per step, so stepping back to a step already shown reveals it again at once, and a
step that shares its check with another one still waits for its own "Show me".  Each step keeps its own
prediction; a lesson opened anew starts with nothing ticked.  After the last step, "Finish" shows the
lesson's summary (predictions right and skipped, the claims checked) and offers the next lesson.

Keys: ← / → and Page Up / Page Down go back and on when the pane has the keyboard (a slider or a text box
with focus keeps its arrow keys: only keys nobody used reach the pane); the window adds Alt+← / Alt+→.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QRadioButton,
    QWidget,
)

from ...widgets.plain import plain_tip
from ..checks import CheckRequest, CheckResult
from ..format import Lesson, Step, format_reveal
from .parts import (  # noqa: F401 - BOXES, box_sheet, parse_number, shown_number: imported from here
    BOXES,
    SHOW,
    SKIP,
    LessonPaneView,
    _OptionLabel,
    box_sheet,
    parse_number,
    shown_number,
    summary_lines,
)

log = logging.getLogger(__name__)


class LessonPane(LessonPaneView):
    """Steps of one lesson, with Back / Next, a prediction and "Show me" (see the module docstring)."""

    #: The step on screen changed (its 0-based index; the number of steps: the lesson's summary).
    stepChanged = Signal(int)
    #: Another lesson is on screen (the Lesson).
    lessonChanged = Signal(object)
    #: A step's check came back and was shown (its result).
    revealed = Signal(object)

    def __init__(self, service, lessons: list[Lesson], *, set_scene: Callable[[Step, Lesson], object] | None = None,
                 open_lesson: Callable[[], object] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonPane")
        self.service = service
        self.lessons = list(lessons)
        self.set_scene = set_scene
        self.lesson: Lesson | None = None
        self.index = 0
        self.dark = False
        self._results: dict[CheckRequest, CheckResult] = {}
        self._predictions: dict[tuple, object] = {}
        #: (lesson key, step) whose answer was asked for ("Show me"), and how each prediction was judged.
        self._shown: set[tuple] = set()
        self._verdicts: dict[tuple, bool | None] = {}
        #: The (lesson key, step) the question widgets show now (None: none, nothing to keep from them).
        self._at: tuple | None = None
        self._waiting: CheckRequest | None = None
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build(open_lesson)
        if self.lessons:
            self.set_lesson(self.lessons[0])

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

    @staticmethod
    def key(lesson: Lesson) -> tuple:
        """What tells one lesson from another (two files may hold lessons of the same name)."""
        return (lesson.name, str(lesson.path or ""))

    def set_lesson(self, lesson: Lesson, index: int = 0) -> None:
        """Show ``lesson`` at step ``index`` (its summary when ``index`` is the number of steps)."""
        self._save_prediction()
        self._at = None  # the question widgets belong to no step until go() builds them for this lesson
        changed = self.lesson is None or self.key(lesson) != self.key(self.lesson)
        self.lesson = lesson
        self.index = 0
        pos = next((n for n, x in enumerate(self.lessons) if x is lesson), -1)
        if pos >= 0 and self.picker.currentIndex() != pos:
            self.picker.blockSignals(True)
            self.picker.setCurrentIndex(pos)
            self.picker.blockSignals(False)
        self.picker.setToolTip(plain_tip(lesson.summary or lesson.title))
        self.go(index)
        if changed:
            self.lessonChanged.emit(lesson)

    def _on_picker_changed(self, index: int) -> None:
        if 0 <= index < len(self.lessons):
            self.set_lesson(self.lessons[index])

    @property
    def step(self) -> Step | None:
        if self.lesson is None or not 0 <= self.index < len(self.lesson.steps):
            return None  # no lesson, or its summary
        return self.lesson.steps[self.index]

    @property
    def finished(self) -> bool:
        """The summary after the last step is on screen."""
        return self.lesson is not None and self.index == len(self.lesson.steps)

    def next_lesson(self) -> Lesson | None:
        """The lesson after this one in the picker (None after the last)."""
        pos = next((n for n, x in enumerate(self.lessons) if self.lesson is not None and x is self.lesson), -1)
        return self.lessons[pos + 1] if 0 <= pos < len(self.lessons) - 1 else None

    def start_next_lesson(self) -> None:
        following = self.next_lesson()
        if following is not None:
            self.set_lesson(following)

    def go_back(self) -> None:
        self.go(self.index - 1)

    def go_next(self) -> None:
        self.go(self.index + 1)

    def go(self, index: int) -> None:
        """Show step ``index`` (clamped; the number of steps is the summary)."""
        if self.lesson is None:
            return
        self._save_prediction()
        n = len(self.lesson.steps)
        self.index = max(0, min(int(index), n))
        self._waiting = None
        self.progress.setRange(0, n)
        self.progress.setValue(min(self.index + 1, n))
        self.back_button.setEnabled(self.index > 0)
        self.next_button.setEnabled(self.index < n)
        self.next_button.setText("Finish →" if self.index == n - 1 else "Next →")
        if self.index == n:
            self._at = None
            self._show_summary()
        else:
            step = self.lesson.steps[self.index]
            self.pages.setCurrentIndex(0)
            self.counter.setText(f"{self.index + 1} / {n}")
            self.counter.setToolTip(f"Step {self.index + 1} of {n} — ← and → (or Alt+← / Alt+→) move between steps")
            self.title.setText(step.title)
            self.text.setText(step.text)
            self._at = self._where()
            self._show_question(step)
            self._clear_answer()
            cached = self._results.get(self._request(step)) if self._where() in self._shown else None
            if cached is not None:  # shown before on this very step: the answer again, at once
                self._reveal(step, cached)
        self.scroll_area.verticalScrollBar().setValue(0)
        self.stepChanged.emit(self.index)

    def _show_summary(self) -> None:
        lesson = self.lesson
        assert lesson is not None
        self.pages.setCurrentIndex(1)
        self.counter.setText("Done")
        self.counter.setToolTip("The lesson's summary — ← goes back to its last step")
        self.summary_title.setText(f"Lesson finished: {lesson.title}")
        self.summary_text.setText("\n".join(summary_lines(lesson, self._verdicts, self._shown, self.key(lesson))))
        following = self.next_lesson()
        self.next_lesson_button.setVisible(following is not None)
        self.next_lesson_title.setVisible(following is not None)
        if following is not None:
            self.next_lesson_title.setText(f"Next lesson: {following.title}. {following.summary}".strip())
            self.next_lesson_button.setToolTip(plain_tip(following.title))

    def _show_question(self, step: Step) -> None:
        while self.options_layout.count():
            item = self.options_layout.takeAt(0)
            w = item.widget() if item is not None else None
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
        self.number.blockSignals(True)
        self.number.clear()
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
        self.number.blockSignals(False)
        self._on_prediction_changed()

    def _on_prediction_changed(self, *_args) -> None:
        step = self.step
        asks = step is not None and step.question is not None
        self.show_button.setText(SKIP if asks and self.prediction() is None else SHOW)
        self.show_button.setToolTip("Set up the panel, run this step's check and show the answer"
                                    + (" (you have not predicted yet: pick or type an answer first)"
                                       if self.show_button.text() == SKIP else ""))

    def _where(self) -> tuple:
        return ((self.key(self.lesson) if self.lesson else ("", "")), self.index)

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
        """Keep what the question widgets hold, for the step they were built for (and no other)."""
        if self._at is not None and self._at == self._where():
            self._predictions[self._at] = self.prediction()

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
        self._shown.add(self._where())
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
            self._verdicts[self._where()] = right
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
            self.scroll_area.ensureWidgetVisible(self.computed, 0, 0)
            self.scroll_area.ensureWidgetVisible(self.verdict if self.verdict.isVisible() else self.reveal, 0, 8)

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
