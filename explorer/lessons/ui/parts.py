"""Small pieces of the Lesson pane: its answer boxes' colours, typed numbers, option labels, and the
end-of-lesson summary (plain text only: nothing a lesson file says is read as rich text)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
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
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from ..format import Lesson

#: "Show me" when a prediction was made (or the step asks none), and when it was not: skipping is explicit.
SHOW, SKIP = "Show me", "Show me without predicting"

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


def summary_lines(lesson, verdicts: dict, shown: set, key) -> list[str]:
    """The end-of-lesson summary as plain lines: predictions right, wrong and skipped, steps not opened, and
    the claims the lesson checked live.  ``verdicts`` maps (key, step) to True/False/None (skipped); ``shown``
    holds the (key, step) pairs whose answer was revealed."""
    asked = [n for n, s in enumerate(lesson.steps) if s.question is not None]
    right = sum(verdicts.get((key, n)) is True for n in asked)
    wrong = sum(verdicts.get((key, n)) is False for n in asked)
    skipped = sum((key, n) in shown and verdicts.get((key, n)) is None for n in asked)
    unseen = sum((key, n) not in shown for n in range(len(lesson.steps)))
    lines = [f"Predictions: {right} right, {wrong} not quite, {skipped} skipped, of {len(asked)} questions."]
    if unseen:
        lines.append(f"{unseen} of {len(lesson.steps)} steps not shown yet: Back to see them.")
    else:
        lines.append(f"All {len(lesson.steps)} steps shown, each settled by a live check.")
    claims = sorted({c for s in lesson.steps for c in s.claims}, key=lambda c: (c[0], int(c[1:])))
    if claims:
        lines.append("Claims checked: " + ", ".join(claims) + " (docs/lessons.md lists them).")
    return lines


class LessonPaneView(QWidget):
    """The Lesson pane's widgets and look: the picker, the step (text, question, Show me, the answer boxes),
    the summary page and the navigation row.  :class:`explorer.lessons.ui.pane.LessonPane` fills them; the slots
    the widgets call (``show_me``, ``go_back`` …) are its."""

    # The lesson pane's: the lessons offered and the slots the widgets call.
    lessons: list[Lesson]
    show_me: Callable[[], None]
    go_back: Callable[[], None]
    go_next: Callable[[], None]
    start_next_lesson: Callable[[], None]
    _on_picker_changed: Callable[[int], None]
    _on_prediction_changed: Callable[..., None]

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

        body, lay = self._page("lessonBody")
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
        self.group.idToggled.connect(self._on_prediction_changed)
        lay.addWidget(self.options)
        self.number = QLineEdit(body)
        self.number.setObjectName("lessonNumber")
        self.number.returnPressed.connect(self.show_me)
        self.number.textChanged.connect(self._on_prediction_changed)
        lay.addWidget(self.number)
        self.show_button = QPushButton(SHOW, body)
        self.show_button.setObjectName("lessonShowMe")
        self.show_button.setToolTip("Set up the panel, run this step's check and show the answer")
        self.show_button.clicked.connect(self.show_me)
        # Its width never widens the pane (a wider page scrolled the pane's text sideways, its left edge cut).
        self.show_button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        lay.addWidget(self.show_button)
        self.verdict = self._wrapped(body, "lessonVerdict")
        self.wrong = self._wrapped(body, "lessonWrong")
        self.reveal = self._wrapped(body, "lessonReveal")
        self.computed = self._wrapped(body, "lessonComputed")
        for w in (self.verdict, self.wrong, self.reveal, self.computed):
            lay.addWidget(w)
        lay.addStretch(1)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(body)
        self.pages.addWidget(self._build_summary())
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("lessonScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(self.pages)
        outer.addWidget(self.scroll_area, 1)

        nav = QHBoxLayout()
        self.back_button = QPushButton("← Back", self)
        self.back_button.setObjectName("lessonBack")
        self.back_button.clicked.connect(self.go_back)
        self.next_button = QPushButton("Next →", self)
        self.next_button.setObjectName("lessonNext")
        self.next_button.clicked.connect(self.go_next)
        for b in (self.back_button, self.next_button, self.show_button, self.open_button, self.next_lesson_button):
            b.setAutoDefault(False)
            b.installEventFilter(self)  # a push button would take ← / → to move focus: they step instead
        self.counter = QLabel(self)
        self.counter.setObjectName("lessonCounter")
        self.counter.setAlignment(Qt.AlignmentFlag.AlignCenter)
        nav.addWidget(self.back_button)
        nav.addWidget(self.counter, 1)
        nav.addWidget(self.next_button)
        outer.addLayout(nav)

    def _build_summary(self) -> QWidget:
        """The page after the last step: what the student did, the claims checked, and the next lesson."""
        page, lay = self._page("lessonSummary")
        self.summary_title = self._wrapped(page, "lessonSummaryTitle")
        self.summary_text = self._wrapped(page, "lessonSummaryText")
        self.next_lesson_title = self._wrapped(page, "lessonNextTitle")  # the title may be long: it wraps
        self.next_lesson_button = QPushButton("Start the next lesson →", page)
        self.next_lesson_button.setObjectName("lessonNextLesson")
        self.next_lesson_button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.next_lesson_button.clicked.connect(self.start_next_lesson)
        for w in (self.summary_title, self.summary_text, self.next_lesson_title, self.next_lesson_button):
            lay.addWidget(w)
        lay.addStretch(1)
        return page

    def _page(self, name: str) -> tuple[QWidget, QVBoxLayout]:
        page = QWidget(self)
        page.setObjectName(name)
        lay = QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        return page, lay

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
        self._set_fonts()
        self._restyle_boxes()

    def _set_fonts(self) -> None:
        """Titles bold and larger, the check's line italic, the boxes at the pane's size (a style sheet stops
        the font from reaching them)."""
        base = self.font()
        title = QFont(base)
        title.setBold(True)
        title.setPointSizeF(base.pointSizeF() * 1.2)
        self.title.setFont(title)
        self.summary_title.setFont(title)
        small = QFont(base)
        small.setItalic(True)
        self.computed.setFont(small)
        for w in (self.verdict, self.wrong):
            w.setFont(base)

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
            self._set_fonts()
