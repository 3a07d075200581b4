"""The Lesson dock of the main window: built when first shown, docked beside the panels or floating.

:class:`LessonDock` is the part of :class:`explorer.main_window.MainWindow` that owns it (``window.lessons``).
The dock is made at start-up (an empty placeholder: the saved layout needs it), the
:class:`~explorer.lesson_pane.LessonPane` only when the dock is first on screen (View → Lesson, Ctrl+L), so
start-up pays nothing for it.  Its visibility is part of the saved window layout.

"Show me" sets a step's scene through :meth:`~explorer.session.Session.apply_preset` (one undoable change;
the scene strip shows the step), opens a saved Lab result when the step names one (its curves in the Lab, or
the position table it trained in the Learned-table panel), and rings the plot the step points at for a few
seconds (scrolled into view, the ring clipped to the part on screen).  Opening another lesson leaves the
previous lesson's scene (its title goes from the scene strip).  Which lesson and step were on screen is kept
in the settings (``lesson/name``, ``lesson/step``) and shown again when the pane is next built.  On a screen
too narrow for the panels and the pane side by side (the panels keep the width they are tested to fit,
:data:`PANEL_MIN_WIDTH`), the dock floats instead, never over the panel's controls nor over the plot the step
rings (the rightmost place that covers neither); moved or docked by hand, it stays where it is put.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QDockWidget,
    QFrame,
    QLineEdit,
    QScrollArea,
    QScrollBar,
    QTabBar,
    QToolBar,
    QWidget,
)

from .lessons.format import Lesson, LessonError, Step, builtin_lessons, data_dir, load_lesson
from .presets import Preset
from .settings import OutputError, SettingsError, save_settings, setting

if TYPE_CHECKING:
    from .lesson_pane import LessonPane

log = logging.getLogger(__name__)

#: The width every panel is known to fit (tests/test_layout_fit.py: the smallest screen width, normal and
#: presenter mode): the dock stays beside the panels only while they keep at least this much.
PANEL_MIN_WIDTH = {False: 1024, True: 1280}
RING_MS = 2500
#: The least height and width of a floating pane placed between the controls and the ringed plot.
MIN_FLOAT_HEIGHT, MIN_FLOAT_WIDTH = 200, 300
#: The settings that remember the lesson and step on screen (a shipped lesson's name; the step, 0-based).
LESSON_KEY, STEP_KEY = "lesson/name", "lesson/step"
#: A lesson step's scene is a preset named "lesson:<lesson name>:<step>".
SCENE_PREFIX = "lesson:"


class LessonDock:
    """The Lesson dock and its actions, a part of the window (it reads the window's service, look, session,
    dialogs, panels and stage).  The dock is made now (hidden), its pane when the dock is first on screen."""

    def __init__(self, window) -> None:
        self.window = window
        self.pane: LessonPane | None = None
        self._ring: QFrame | None = None
        self._ring_target: tuple[str | None, str] = (None, "")
        self._auto_floated = False
        self._float_geometry: QRect | None = None
        dock = QDockWidget("Lesson", window)
        dock.setObjectName("dock_lesson")
        holder = QWidget(dock)
        holder.setObjectName("placeholder_lesson")
        dock.setWidget(holder)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        # The right-hand dock area takes the right corners: the pane runs the window's full height beside
        # the panels (they fill the top area), not under them.
        self.window.setCorner(Qt.Corner.TopRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.window.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        dock.hide()
        dock.visibilityChanged.connect(self._on_visible)
        dock.topLevelChanged.connect(self._on_top_level)
        self._placing = False
        self.placed_by_hand = False
        self.dock = dock
        self.errors: list[str] = []

    # -- building --------------------------------------------------------------------------------
    def _on_visible(self, visible: bool) -> None:
        if visible:
            self.ensure_pane()
            self.place()
            QTimer.singleShot(0, self.place)  # once the dock area has laid itself out

    def ensure_pane(self):
        """The pane, built on first use (styled for the current look)."""
        if self.pane is not None:
            return self.pane
        from PySide6.QtGui import QPalette

        from .lesson_pane import LessonPane
        from .widgets.styling import style_widgets

        try:
            lessons = builtin_lessons()
        except LessonError as exc:  # a broken shipped lesson is a bug: keep the pane usable and say so
            lessons, self.errors = [], [str(exc)]
            self.window._status(f"Lessons not loaded: {exc}", 15000)
        pane = LessonPane(self.window.service, lessons, set_scene=self.set_scene, open_lesson=self.open_file,
                          parent=self.dock)
        old = self.dock.widget()
        self.dock.setWidget(pane)
        if old is not None and old is not pane:
            old.deleteLater()
        self.pane = pane
        # Setting a scene relays the window out, which gave the dock area back its old share: place it again.
        pane.revealed.connect(self.place_soon)
        pane.stepChanged.connect(self.place_soon)
        self._resume(pane)
        pane.stepChanged.connect(self._remember_step)
        pane.lessonChanged.connect(self._on_lesson_changed)
        look = self.window.look
        style_widgets(pane, look.theme, ui_pt=look.ui_pt, zoom=look.zoom, set_root_font=False)
        pane.setPalette(QPalette())
        self._on_look(look.theme)
        self.window.themeChanged.connect(self._on_look)
        return pane

    def _resume(self, pane) -> None:
        """Show the lesson and step the settings remember (a shipped lesson still there; the step clamped)."""
        if self.window.settings_problem is not None:
            return
        name, step = setting(LESSON_KEY, ""), setting(STEP_KEY, 0.0)
        lesson = next((x for x in pane.lessons if x.builtin and x.name == name), None)
        if lesson is not None:
            pane.set_lesson(lesson, max(0, min(int(step), len(lesson.steps))))

    def _remember_step(self, index: int) -> None:
        pane = self.pane
        if pane is None or pane.lesson is None or not pane.lesson.builtin:
            return  # a lesson file of one's own is not reopened by a setting
        if self.window.settings_problem is not None:
            return
        try:
            save_settings({LESSON_KEY: pane.lesson.name, STEP_KEY: float(index)})
        except (OutputError, SettingsError) as exc:
            log.warning("could not remember the lesson step: %s", exc)

    def _on_lesson_changed(self, lesson: Lesson) -> None:
        """Another lesson: the previous lesson's scene is left (its title goes from the scene strip)."""
        scene = self.window.session.scene
        if scene is not None and scene.name.startswith(SCENE_PREFIX) \
                and not scene.name.startswith(f"{SCENE_PREFIX}{lesson.name}:"):
            self.window.session.leave_scene()
        self._ring_target = (None, "")
        ring = self._ring
        if ring is not None:
            ring.hide()

    def _on_look(self, theme) -> None:
        if self.pane is not None:
            # A floating dock is a window of its own: the window's font and palette do not reach it by themselves.
            self.dock.setFont(self.window.font())
            self.dock.setPalette(self.window.palette())
            self.pane.apply_theme(theme)
            self.place()

    def _on_top_level(self, _floating: bool) -> None:
        if not self._placing:
            self.placed_by_hand = True

    def place_soon(self, *_args) -> None:
        QTimer.singleShot(0, self.place)

    def place(self) -> None:
        """Docked beside the panels when the window is wide enough, else floating off the step's plot."""
        dock = self.dock
        if not dock.isVisible() or self.pane is None:
            return
        want = max(self.pane.minimumSizeHint().width(), min(self.window.width() // 4, 480))
        if self.placed_by_hand:  # floated or docked by hand: it stays so, as wide as it was made
            dock.setMaximumWidth(16777215)
            return
        look = self.window.look
        narrow = self.window.width() - want < PANEL_MIN_WIDTH[bool(look.presenter)] * max(1.0, look.zoom)
        # Restored, not cleared: floating shows the dock again, which places it from inside this call, and the
        # inner call's "done" made the outer setFloating's topLevelChanged look like a move by hand.
        was, self._placing = self._placing, True
        try:
            self._set_floating(dock, narrow, want)
        finally:
            self._placing = was

    def _set_floating(self, dock, narrow: bool, want: int) -> None:
        if narrow and (not dock.isFloating() or self._float_is_ours(dock)):
            if not dock.isFloating():
                dock.setFloating(True)
                self._auto_floated = True
            want = max(want, min(self.window.width() // 3, 420))  # over the panels anyway: room to read
            place = self._float_place(want)
            if dock.geometry() != place:
                dock.setGeometry(place)
            self._float_geometry = dock.geometry()
        elif not narrow and dock.isFloating() and self._auto_floated:
            dock.setFloating(False)
            self._auto_floated = False
        # Docked, it keeps its width (the window gave a dock with no central widget beside it any spare width
        # at each relayout); floating, it may be as wide as the user likes.
        dock.setMaximumWidth(want if not dock.isFloating() else 16777215)
        if not dock.isFloating():
            # Both sides of the split: with no central widget, resizing the pane alone leaves it wide.
            beside = self.window.docks[self.window.current_panel_id()]
            self.window.resizeDocks([beside, dock], [max(1, self.window.width() - want), want],
                                    Qt.Orientation.Horizontal)

    def _float_is_ours(self, dock) -> bool:
        """Floated by the window and not moved or resized by hand since."""
        placed = self._float_geometry
        if not self._auto_floated or placed is None:
            return False
        g = dock.geometry()  # a window manager may nudge a new window by its frame: that is not a move by hand
        return max(abs(g.left() - placed.left()), abs(g.top() - placed.top()), abs(g.right() - placed.right()),
                   abs(g.bottom() - placed.bottom())) <= 48

    def _float_place(self, want: int) -> QRect:
        """Where the floating pane goes (global coordinates): off the panel's controls and off the plot the step
        rings, between the toolbars and the status bar.  Of the columns (right to left, as wide as ``want`` or
        narrower) and the gaps of a column between the controls and the ringed plot, the largest that covers
        neither; else the one that covers the least of them."""
        win = self.window
        top = max([tb.geometry().bottom() + 1 for tb in win.findChildren(QToolBar)
                   if tb.isVisible() and win.toolBarArea(tb) == Qt.ToolBarArea.TopToolBarArea] or [60])
        bottom = win.statusBar().geometry().top() if win.statusBar().isVisible() else win.height()
        height = max(240, bottom - top - 4)
        target = self._target_rect()
        controls = self._controls_rects()
        places = []
        narrow = max(self.pane.minimumSizeHint().width() if self.pane else 0, MIN_FLOAT_WIDTH)
        for width in sorted({want, min(want, narrow)}, reverse=True):
            for x in range(max(0, self.window.width() - width - 4), -1, -20):  # right to left
                column = QRect(x, top + 2, width, height)
                places.append(column)
                # The gaps of this column between the controls and the ringed plot that cross it.
                edges = sorted((r.top(), r.bottom()) for r in controls + [target] if r.intersects(column))
                y = top + 2
                for lo, hi in edges + [(bottom, bottom)]:
                    if lo - 4 - y >= MIN_FLOAT_HEIGHT:
                        places.append(QRect(x, y, width, lo - 4 - y))
                    y = max(y, hi + 4)

        def cost(r: QRect) -> tuple[int, int, int]:
            return _overlap(r, target), sum(_overlap(r, c) for c in controls), -r.width() * r.height()

        best = min(places, key=cost)  # stable: the rightmost of the equally good ones
        return QRect(self.window.mapToGlobal(best.topLeft()), best.size())

    def _controls_rects(self) -> list[QRect]:
        """The controls of the panel on screen, in window coordinates: every visible slider, box, button, menu,
        text field and tab bar (its sidebar and the rows above its plots)."""
        panel = self.window.panels[self.window.current_panel_id()]
        kinds = (QAbstractSlider, QAbstractSpinBox, QAbstractButton, QComboBox, QLineEdit, QTabBar)
        widgets = [b for b in panel.sidebars() if b.isVisible()] + [
            w for w in panel.findChildren(QWidget) if isinstance(w, kinds) and not isinstance(w, QScrollBar)
            and (isinstance(w, QTabBar) or not w.objectName().startswith("qt_")) and w.isVisible()]  # qt_: a corner
        return [r for r in (visible_rect(w, self.window) for w in widgets) if not r.isEmpty()]

    def _target(self):
        """The plot the current step rings, if its panel is on screen."""
        panel_id, name = self._ring_target
        if panel_id is None or panel_id != self.window.current_panel_id():
            return None
        from .export.slide import named_plots

        plot = dict(named_plots(self.window.panels[panel_id])).get(name)
        return plot if plot is not None and plot.isVisible() else None

    def _target_rect(self) -> QRect:
        plot = self._target()
        return QRect() if plot is None else visible_rect(plot, self.window)

    # -- actions ---------------------------------------------------------------------------------
    def show(self, lesson: Lesson | None = None, index: int = 0):
        """Show the dock (building the pane) and, if given, ``lesson`` at step ``index``."""
        self.dock.show()
        self.dock.raise_()
        pane = self.ensure_pane()
        if lesson is not None:
            pane.add_lesson(lesson) if lesson not in pane.lessons else pane.set_lesson(lesson, index)
            if index:
                pane.go(index)
        self.place()
        QTimer.singleShot(0, self.place)
        return pane

    def open_file(self, path: str | None = None) -> bool:
        path = path or self.window.dialogs.ask_lesson_path()
        if not path:
            return False
        try:
            lesson = load_lesson(path)
        except LessonError as exc:
            self.window.dialogs.show_error("Lesson not opened", f"{exc}\n\nNothing was changed.")
            return False
        except Exception as exc:  # noqa: BLE001 - a reader bug must not take the window down with it
            log.exception("reading %s", path)
            self.window.dialogs.show_error("Lesson not opened", f"{Path(path).name}: {type(exc).__name__}")
            return False
        self.show(lesson)
        self.window._status(f"Opened the lesson “{lesson.title}” ({len(lesson.steps)} steps)")
        return True

    def next(self) -> None:
        if self.pane is not None and self.dock.isVisible():
            self.pane.go_next()

    def back(self) -> None:
        if self.pane is not None and self.dock.isVisible():
            self.pane.go_back()

    # -- scenes ----------------------------------------------------------------------------------
    def set_scene(self, step: Step, lesson: Lesson) -> bool:
        """Set ``step``'s scene: the panels' parameters, panel and view as one undoable change (the scene
        strip shows the step), a saved Lab result if it names one, and a ring round its plot."""
        scene = step.scene
        if scene is None:
            return False
        number = next((n for n, s in enumerate(lesson.steps) if s is step), 0)
        # The notes are read as rich text by the scene strip: the step's text escaped shows as it is written.
        preset = Preset(name=f"{SCENE_PREFIX}{lesson.name}:{number}", title=f"{lesson.title} — {step.title}",
                        description=step.text, state=scene.state, panel=scene.panel, view=scene.view)
        if not self.window.session.apply_preset(preset):
            return False
        if scene.results and scene.panel is not None:
            try:
                self._show_saved_result(scene.panel, data_dir() / scene.results)
            except Exception as exc:  # noqa: BLE001 - a result that cannot be shown: say so, keep the step
                self.window._status(f"Lesson: the saved result {scene.results} could not be shown: {exc}", 10000)
        self._ring_target = (scene.panel, scene.highlight) if scene.highlight else (None, "")
        if scene.highlight and scene.panel is not None:
            QTimer.singleShot(60, self._ring_highlight)
        for ms in (80, 400):  # a panel built for the scene lays itself out after this call: place the pane again
            QTimer.singleShot(ms, self.place)
        return True

    def _show_saved_result(self, panel_id: str, path: Path) -> None:
        """A saved Lab result: its curves in the Lab, or the position table it trained in the Learned table."""
        if panel_id != "table":
            self.window.panels[panel_id].load_results(str(path))
            return
        import numpy as np

        from .lab import LabResult
        from .panels.lab_table import first_trained_table

        found = first_trained_table(LabResult.from_file(path).schemes)
        if found is None:
            raise ValueError(f"{path.name} holds no trained position table")
        self.window.panel_docks.show_learned_table(np.asarray(found[0]), found[1])

    def _ring_highlight(self) -> None:
        panel_id, name = self._ring_target
        if panel_id is None:
            return
        plot = self._target()
        if plot is None:
            self.window._status(f"Lesson: no plot named {name} on screen (see pe-explorer export --list-plots)")
            return
        scroll_into_view(plot)
        self.place()  # off the plot now that it is where it will stay
        ring = self._ring
        if ring is None:
            ring = QFrame(self.window)
            ring.setObjectName("lessonRing")
            ring.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
            ring.setStyleSheet("#lessonRing { border: 4px solid #f59e0b; border-radius: 6px; "
                               "background: transparent; }")
            self._ring = ring
            # One timer, restarted per ring: an earlier step's timer hid the next step's ring early.
            self._ring_timer = QTimer(ring)
            self._ring_timer.setSingleShot(True)
            self._ring_timer.timeout.connect(ring.hide)
        # Round the part of the plot on screen, never over what lies beyond its scroll area (the formula strip).
        ring.setGeometry(visible_rect(plot, self.window))
        ring.show()
        ring.raise_()
        self._ring_timer.start(RING_MS)


def _overlap(a: QRect, b: QRect) -> int:
    c = a.intersected(b)
    return 0 if c.isEmpty() else c.width() * c.height()


def visible_rect(widget: QWidget, window: QWidget) -> QRect:
    """The part of ``widget`` on screen, in ``window``'s coordinates: clipped by every parent up to the window
    (a scroll area's viewport among them)."""
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    w = widget.parentWidget()
    while w is not None and w is not window:
        rect = rect.intersected(QRect(w.mapTo(window, QPoint(0, 0)), w.size()))
        w = w.parentWidget()
    return rect


def scroll_into_view(widget: QWidget) -> None:
    """Scroll every scroll area that holds ``widget`` so that as much of it as fits is in view (its top when
    it is taller than the view).  Not ``QScrollArea.ensureWidgetVisible``: for a plot (a QGraphicsView) it
    looks at the scene's input cursor, which is always "in view", and scrolls nothing."""
    w = widget.parentWidget()
    while w is not None:
        inner = w.widget() if isinstance(w, QScrollArea) else None
        if isinstance(w, QScrollArea) and inner is not None and inner.isAncestorOf(widget):
            r = QRect(widget.mapTo(inner, QPoint(0, 0)), widget.size())
            for bar, lo, hi, size in ((w.verticalScrollBar(), r.top(), r.bottom(), w.viewport().height()),
                                      (w.horizontalScrollBar(), r.left(), r.right(), w.viewport().width())):
                if lo < bar.value() or hi - lo + 1 > size:
                    bar.setValue(lo)
                elif hi >= bar.value() + size:
                    bar.setValue(hi - size + 1)
        w = w.parentWidget()
