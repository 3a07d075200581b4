""""Start here": the first-start welcome (the guided lessons, the lecture scenes, a one-minute tour) and the tour.

:class:`Welcome` is the part of :class:`explorer.main_window.MainWindow` that owns them (``window.welcome.dialog``).
The welcome opens once, on the first start of an interactive run whose settings folder works; whatever
the newcomer picks (a scene, the tour, or just closing it) is remembered in ``settings.json``
(``welcome/done``), and Help → Welcome and tour… opens it again.  Nothing here is modal: a lecturer
who starts the app in front of the hall can ignore it and drag a slider.

The tour is a row of callouts, each pointing at one real part of the window (a highlight frame
around it and a box of text beside it) with Back / Next / Done; Esc ends it.  It names the five panels,
rings the controls of the panel on screen (not its explanations), and points at the Lesson button.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabBar,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from ..settings import OutputError, SettingsError, save_settings, setting

log = logging.getLogger(__name__)

WELCOME_KEY = "welcome/done"


@dataclass(frozen=True)
class TourStep:
    """One callout: what it points at (a function of the window, None: the window) and what it says."""

    title: str
    text: str
    target: Callable[[QWidget], QWidget | None]


def _panel_tabs(win) -> QWidget | None:
    """The tab bar that switches between the docked panels."""
    for bar in win.findChildren(QTabBar):
        if bar.isVisible() and bar.count() == len(win.docks) and bar.parent() is win:
            return bar
    return None


def _current(win):
    return win.panels[win.current_panel_id()]


def _sidebar(win) -> QWidget | None:
    """The controls of the panel on screen: its largest visible sidebar (sliders and boxes), never the
    "What am I looking at?" pane, which is a scroll area too."""
    bars = [b for b in _current(win).sidebars() if b.isVisible() and b.width() > 0]
    return max(bars, key=lambda b: b.width() * b.height()) if bars else None


def _first_plot(win) -> QWidget | None:
    plots = [p for p in _current(win).visible_plots() if p.width() > 50]
    return max(plots, key=lambda p: p.width() * p.height()) if plots else None


def _lesson_button(win) -> QWidget | None:
    """The lecture toolbar's Lesson button."""
    bar = _toolbar(win)
    button = bar.findChild(QWidget, "lessonButton") if bar is not None else None
    return button if button is not None and button.isVisible() else None


def _toolbar(win) -> QWidget | None:
    bars = [b for b in win.findChildren(QToolBar) if b.objectName() == "lectureToolBar" and b.isVisible()]
    return bars[0] if bars else None


TOUR: tuple[TourStep, ...] = (
    TourStep("Five panels, one story",
             "Waves shows the sinusoidal table, Token swap why attention needs positions, Schemes every "
             "encoding side by side, Learned table what a trained position table holds, and the Lab trains "
             "short and tests long. Pick one here.", _panel_tabs),
    TourStep("Drag, and everything follows",
             "Every slider and box here changes the plots live. Type a value and press Enter; "
             "Ctrl+Z undoes any change.", _sidebar),
    TourStep("Point at a plot",
             "Hover to read the exact value under the cursor; right-click a plot to export it as PNG, "
             "SVG, CSV or NumPy.", _first_plot),
    TourStep("The formula with today's numbers",
             "The strip under each panel shows its formula with the current parameters substituted.",
             lambda win: _current(win).formula),
    TourStep("Guided lessons",
             "Lesson (Ctrl+L) walks you through the story step by step: predict first, then Show me sets up "
             "the panel and checks the claim live, with the numbers that settle it.", _lesson_button),
    TourStep("In the lecture hall",
             "F5 is presenter mode (large type, thick lines), F11 full screen, and Dark switches the look. "
             "Presets → Lecture scenes sets up each step of the story.", _toolbar),
)


class TourOverlay(QWidget):
    """A callout over the window: a frame around the step's target and a box of text beside it."""

    def __init__(self, window: QWidget, part: Welcome, steps: tuple[TourStep, ...] = TOUR) -> None:
        super().__init__(window)
        self.setObjectName("tourOverlay")
        self.window_ = window
        self.part = part
        self.steps = steps
        self.index = 0
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.ring = QFrame(window)
        self.ring.setObjectName("tourRing")
        self.ring.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.ring.setStyleSheet("#tourRing { border: 4px solid #f59e0b; border-radius: 6px; background: transparent; }")
        self.box = QFrame(window)
        self.box.setObjectName("tourBox")
        self.box.setStyleSheet("#tourBox { background: #fffbeb; border: 2px solid #f59e0b; border-radius: 8px; }"
                               "#tourBox QLabel { color: #1c1917; background: transparent; }")
        lay = QVBoxLayout(self.box)
        self.heading = QLabel(self.box)
        self.heading.setObjectName("tourHeading")
        self.text = QLabel(self.box)
        self.text.setObjectName("tourText")
        self.text.setWordWrap(True)
        row = QHBoxLayout()
        self.counter = QLabel(self.box)
        self.back = QPushButton("Back", self.box)
        self.next = QPushButton("Next", self.box)
        self.done = QPushButton("Done", self.box)
        for b in (self.back, self.next, self.done):
            b.setAutoDefault(False)
        # Bound methods, not lambdas holding the overlay: no reference cycles through Qt objects.
        self.back.clicked.connect(self.go_back)
        self.next.clicked.connect(self.go_next)
        self.done.clicked.connect(self.finish)
        row.addWidget(self.counter)
        row.addStretch(1)
        row.addWidget(self.back)
        row.addWidget(self.next)
        row.addWidget(self.done)
        lay.addWidget(self.heading)
        lay.addWidget(self.text)
        lay.addLayout(row)
        window.installEventFilter(self)
        self.go(0)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if obj is self.window_ and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self.place()
        elif (obj is self.window_ and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress
              and event.key() == Qt.Key.Key_Escape):
            self.finish()
            return True
        return False

    @property
    def step(self) -> TourStep:
        return self.steps[self.index]

    def target(self) -> QWidget | None:
        try:
            return self.step.target(self.window_)
        except Exception:  # noqa: BLE001 - a missing part of the window: point at nothing, keep going
            log.exception("tour step %d", self.index)
            return None

    def go_back(self) -> None:
        self.go(self.index - 1)

    def go_next(self) -> None:
        self.go(self.index + 1)

    def _set_fonts(self) -> None:
        """The window's font (presenter mode's large type included): the box's style sheet stops it from
        reaching the labels by itself."""
        base = self.window_.font()
        for w in (self.text, self.counter, self.back, self.next, self.done):
            w.setFont(base)
        heading = QFont(base)
        heading.setBold(True)
        heading.setPointSizeF(base.pointSizeF() * 1.25)
        self.heading.setFont(heading)

    def go(self, index: int) -> None:
        self.index = max(0, min(index, len(self.steps) - 1))
        self._set_fonts()
        self.heading.setText(self.step.title)
        self.text.setText(self.step.text)
        self.counter.setText(f"{self.index + 1} / {len(self.steps)}")
        self.back.setEnabled(self.index > 0)
        self.next.setVisible(self.index < len(self.steps) - 1)
        self.place()
        self.box.show()
        self.box.raise_()
        (self.next if self.next.isVisible() else self.done).setFocus()

    def target_rect(self) -> QRect | None:
        """The step's target in window coordinates (None: it is not on screen)."""
        t = self.target()
        if t is None or not t.isVisible():
            return None
        top_left = t.mapTo(self.window_, QPoint(0, 0))
        return QRect(top_left, t.size()).intersected(self.window_.rect())

    def place(self) -> None:
        win = self.window_.rect()
        width = max(260, min(460, win.width() // 3))
        self.box.setFixedWidth(width)
        self.box.adjustSize()
        bw, bh = self.box.width(), self.box.height()
        rect = self.target_rect()
        if rect is None or rect.isEmpty():
            self.ring.hide()
            self.box.move(max(0, (win.width() - bw) // 2), max(0, (win.height() - bh) // 2))
            return
        self.ring.setGeometry(rect.adjusted(-3, -3, 3, 3).intersected(win))
        self.ring.show()
        self.ring.raise_()
        # Beside the target where there is room (below, right, above, left), else over its middle.
        spots = [QPoint(rect.left(), rect.bottom() + 12), QPoint(rect.right() + 12, rect.top()),
                 QPoint(rect.left(), rect.top() - bh - 12), QPoint(rect.left() - bw - 12, rect.top())]
        for p in spots:
            if win.contains(QRect(p.x(), p.y(), bw, bh)):
                self.box.move(p)
                return
        x = min(max(0, rect.center().x() - bw // 2), max(0, win.width() - bw))
        y = min(max(0, rect.center().y() - bh // 2), max(0, win.height() - bh))
        self.box.move(x, y)

    def finish(self) -> None:
        self.window_.removeEventFilter(self)
        for w in (self.ring, self.box, self):
            w.hide()
            w.deleteLater()
        if self.part.tour is self:
            self.part.tour = None


class WelcomeDialog(QDialog):
    """The first-start page: the lecture scenes as buttons, the tour, and "just explore"."""

    def __init__(self, window, part: Welcome) -> None:
        super().__init__(window)
        self.part = part
        self.setObjectName("welcomeDialog")
        self.setWindowTitle("Welcome to PE Explorer")
        self.setModal(False)
        self.setAttribute(Qt.WidgetAttribute.WA_QuitOnClose, False)
        self.choice: str | None = None
        lay = QVBoxLayout(self)
        head = QLabel("<h2>Welcome to PE Explorer</h2>", self)
        lead = QLabel("Self-attention cannot see word order; positional encodings give it one. "
                      "Learn it in a guided lesson, start with a lecture scene, or take the one-minute tour.", self)
        lead.setWordWrap(True)
        lay.addWidget(head)
        lay.addWidget(lead)
        lessons = QHBoxLayout()
        self.lesson_button = QPushButton("Start a guided lesson", self)
        self.lesson_button.setObjectName("welcomeLesson")
        self.lesson_button.setToolTip("Predict first, then see every claim checked live (View → Lesson, Ctrl+L); "
                                      "you go on where you left off")
        self.lesson_button.clicked.connect(self._pick_lesson)
        lessons.addWidget(self.lesson_button)
        note = QLabel("Step by step, from order blindness to what a real model learned.", self)
        note.setWordWrap(True)
        lessons.addWidget(note, 1)
        lay.addLayout(lessons)
        grid = QGridLayout()
        self.scene_buttons: list[QPushButton] = []
        for n, preset in enumerate(window.session.builtin):
            b = QPushButton(f"{n + 1}. {preset.title}", self)
            b.setObjectName(f"welcomeScene{n + 1}")
            b.setToolTip(preset.description)
            b.setProperty("sceneName", preset.name)
            b.clicked.connect(self._pick_scene)
            grid.addWidget(b, n // 2, n % 2)
            self.scene_buttons.append(b)
        lay.addLayout(grid)
        row = QHBoxLayout()
        self.tour_button = QPushButton("Take the one-minute tour", self)
        self.tour_button.setObjectName("welcomeTour")
        self.tour_button.clicked.connect(self._pick_tour)
        self.explore_button = QPushButton("Just explore", self)
        self.explore_button.setObjectName("welcomeExplore")
        self.explore_button.clicked.connect(self._pick_explore)
        row.addWidget(self.tour_button)
        row.addStretch(1)
        row.addWidget(self.explore_button)
        lay.addLayout(row)
        self.again = QCheckBox("Show this at every start", self)
        self.again.setObjectName("welcomeAgain")
        lay.addWidget(self.again)
        self.finished.connect(self._remember)

    def _remember(self, _result=None) -> None:
        self.part.remember(self.again.isChecked())

    def _pick_scene(self) -> None:
        name = self.sender().property("sceneName")
        session = self.part.window.session
        preset = next((p for p in session.builtin if p.name == name), None)
        self._pick(f"scene:{name}", None if preset is None else functools.partial(session.apply_preset, preset))

    def _pick_lesson(self) -> None:
        self._pick("lesson", self.part.window.lessons.show)

    def _pick_tour(self) -> None:
        self._pick("tour", self.part.start_tour)

    def _pick_explore(self) -> None:
        self._pick("explore", None)

    def _pick(self, choice: str, then: Callable[[], object] | None) -> None:
        self.choice = choice
        self.accept()
        if then is not None:
            then()


class Welcome:
    """The first-start welcome and the tour, a part of the window (``window.welcome.dialog``): ``dialog`` and ``tour``
    are the ones on screen, if any."""

    def __init__(self, window) -> None:
        self.window = window
        self.dialog: WelcomeDialog | None = None
        self.tour: TourOverlay | None = None

    def offer(self) -> bool:
        """Open the welcome on a first start (a usable settings folder that has not seen it yet)."""
        if self.window.closed:  # closed before the offer's timer fired (a quick Ctrl+C)
            return False
        if self.window.settings_problem is not None or setting(WELCOME_KEY, False):
            return False
        self.show()
        return True

    def show(self) -> WelcomeDialog:
        if self.dialog is not None:
            self.dialog.close()
        self.dialog = WelcomeDialog(self.window, self)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def close(self) -> None:
        """Close the welcome and end the tour (the window is closing)."""
        if self.tour is not None:
            self.tour.finish()
        if self.dialog is not None:
            self.dialog.close()
            self.dialog = None

    def remember(self, show_again: bool) -> None:
        if self.window.settings_problem is not None:
            return
        try:
            save_settings({WELCOME_KEY: not show_again})
        except (OutputError, SettingsError) as exc:
            log.warning("could not remember the welcome: %s", exc)

    def start_tour(self) -> TourOverlay:
        if self.tour is not None:
            self.tour.finish()
        self.tour = TourOverlay(self.window, self)
        return self.tour
