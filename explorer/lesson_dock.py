"""The Lesson dock of the main window: built when first shown, docked beside the panels or floating.

:class:`LessonDockMixin` is the part of :class:`explorer.main_window.MainWindow` that owns it.  The dock is
made at start-up (an empty placeholder: the saved layout needs it), the :class:`~explorer.lesson_pane.LessonPane`
only when the dock is first on screen (View → Lesson, Ctrl+L), so start-up pays nothing for it.  Its
visibility is part of the saved window layout.

"Show me" sets a step's scene through :meth:`~explorer.session.SessionMixin.apply_preset` (one undoable change;
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

from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QDockWidget,
    QFileDialog,
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
from .settings import OutputError, SettingsError, home_folder, save_settings, setting

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


class LessonDockMixin:
    """The Lesson dock and its actions (needs the window's service, look, ``apply_preset`` and menus)."""

    lesson_pane = None

    def _make_lesson_dock(self) -> None:
        dock = QDockWidget("Lesson", self)
        dock.setObjectName("dock_lesson")
        holder = QWidget(dock)
        holder.setObjectName("placeholder_lesson")
        dock.setWidget(holder)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        # The right-hand dock area takes the right corners: the pane runs the window's full height beside
        # the panels (they fill the top area), not under them.
        self.setCorner(Qt.Corner.TopRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        dock.hide()
        dock.visibilityChanged.connect(self._on_lesson_visible)
        dock.topLevelChanged.connect(self._on_lesson_top_level)
        self._lesson_placing = False
        self._lesson_placed_by_hand = False
        self.lesson_dock = dock
        self._lesson_errors: list[str] = []

    # -- building --------------------------------------------------------------------------------
    def _on_lesson_visible(self, visible: bool) -> None:
        if visible:
            self.ensure_lesson_pane()
            self._place_lesson_dock()
            QTimer.singleShot(0, self._place_lesson_dock)  # once the dock area has laid itself out

    def ensure_lesson_pane(self):
        """The pane, built on first use (styled for the current look)."""
        if self.lesson_pane is not None:
            return self.lesson_pane
        from PySide6.QtGui import QPalette

        from .lesson_pane import LessonPane
        from .widgets.styling import style_widgets

        try:
            lessons = builtin_lessons()
        except LessonError as exc:  # a broken shipped lesson is a bug: keep the pane usable and say so
            lessons, self._lesson_errors = [], [str(exc)]
            self._status(f"Lessons not loaded: {exc}", 15000)
        pane = LessonPane(self.service, lessons, set_scene=self.set_lesson_scene, open_lesson=self.open_lesson_file,
                          parent=self.lesson_dock)
        old = self.lesson_dock.widget()
        self.lesson_dock.setWidget(pane)
        if old is not None and old is not pane:
            old.deleteLater()
        self.lesson_pane = pane
        # Setting a scene relays the window out, which gave the dock area back its old share: place it again.
        pane.revealed.connect(self._place_lesson_dock_soon)
        pane.stepChanged.connect(self._place_lesson_dock_soon)
        self._resume_lesson(pane)
        pane.stepChanged.connect(self._remember_lesson_step)
        pane.lessonChanged.connect(self._on_lesson_changed)
        style_widgets(pane, self._theme, ui_pt=self._ui_pt, zoom=self._zoom, set_root_font=False)
        pane.setPalette(QPalette())
        self._on_lesson_look(self._theme)
        self.themeChanged.connect(self._on_lesson_look)
        return pane

    def _resume_lesson(self, pane) -> None:
        """Show the lesson and step the settings remember (a shipped lesson still there; the step clamped)."""
        if getattr(self, "settings_problem", None) is not None:
            return
        name, step = setting(LESSON_KEY, ""), setting(STEP_KEY, 0.0)
        lesson = next((x for x in pane.lessons if x.builtin and x.name == name), None)
        if lesson is not None:
            pane.set_lesson(lesson, max(0, min(int(step), len(lesson.steps))))

    def _remember_lesson_step(self, index: int) -> None:
        pane = self.lesson_pane
        if pane is None or pane.lesson is None or not pane.lesson.builtin:
            return  # a lesson file of one's own is not reopened by a setting
        if getattr(self, "settings_problem", None) is not None:
            return
        try:
            save_settings({LESSON_KEY: pane.lesson.name, STEP_KEY: float(index)})
        except (OutputError, SettingsError) as exc:
            log.warning("could not remember the lesson step: %s", exc)

    def _on_lesson_changed(self, lesson: Lesson) -> None:
        """Another lesson: the previous lesson's scene is left (its title goes from the scene strip)."""
        scene = self.session.scene
        if scene is not None and scene.name.startswith(SCENE_PREFIX) \
                and not scene.name.startswith(f"{SCENE_PREFIX}{lesson.name}:"):
            self.session.leave_scene()
        self._lesson_ring_target = (None, "")
        ring = getattr(self, "_lesson_ring", None)
        if ring is not None:
            ring.hide()

    def _on_lesson_look(self, theme) -> None:
        if self.lesson_pane is not None:
            # A floating dock is a window of its own: the window's font and palette do not reach it by themselves.
            self.lesson_dock.setFont(self.font())
            self.lesson_dock.setPalette(self.palette())
            self.lesson_pane.apply_theme(theme)
            self._place_lesson_dock()

    def _on_lesson_top_level(self, _floating: bool) -> None:
        if not self._lesson_placing:
            self._lesson_placed_by_hand = True

    def _place_lesson_dock_soon(self, *_args) -> None:
        QTimer.singleShot(0, self._place_lesson_dock)

    def _place_lesson_dock(self) -> None:
        """Docked beside the panels when the window is wide enough, else floating off the step's plot."""
        dock = self.lesson_dock
        if not dock.isVisible() or self.lesson_pane is None:
            return
        want = max(self.lesson_pane.minimumSizeHint().width(), min(self.width() // 4, 480))
        if self._lesson_placed_by_hand:  # floated or docked by hand: it stays so, as wide as it was made
            dock.setMaximumWidth(16777215)
            return
        narrow = self.width() - want < PANEL_MIN_WIDTH[bool(self.presenter)] * max(1.0, self._zoom)
        # Restored, not cleared: floating shows the dock again, which places it from inside this call, and the
        # inner call's "done" made the outer setFloating's topLevelChanged look like a move by hand.
        was, self._lesson_placing = self._lesson_placing, True
        try:
            self._set_lesson_floating(dock, narrow, want)
        finally:
            self._lesson_placing = was

    def _set_lesson_floating(self, dock, narrow: bool, want: int) -> None:
        if narrow and (not dock.isFloating() or self._lesson_float_is_ours(dock)):
            if not dock.isFloating():
                dock.setFloating(True)
                self._lesson_auto_floated = True
            want = max(want, min(self.width() // 3, 420))  # over the panels anyway: room to read
            place = self._lesson_float_place(want)
            if dock.geometry() != place:
                dock.setGeometry(place)
            self._lesson_float_geometry = dock.geometry()
        elif not narrow and dock.isFloating() and getattr(self, "_lesson_auto_floated", False):
            dock.setFloating(False)
            self._lesson_auto_floated = False
        # Docked, it keeps its width (the window gave a dock with no central widget beside it any spare width
        # at each relayout); floating, it may be as wide as the user likes.
        dock.setMaximumWidth(want if not dock.isFloating() else 16777215)
        if not dock.isFloating():
            # Both sides of the split: with no central widget, resizing the pane alone leaves it wide.
            beside = self.docks[self.current_panel_id()]
            self.resizeDocks([beside, dock], [max(1, self.width() - want), want], Qt.Orientation.Horizontal)

    def _lesson_float_is_ours(self, dock) -> bool:
        """Floated by the window and not moved or resized by hand since."""
        placed = getattr(self, "_lesson_float_geometry", None)
        if not getattr(self, "_lesson_auto_floated", False) or placed is None:
            return False
        g = dock.geometry()  # a window manager may nudge a new window by its frame: that is not a move by hand
        return max(abs(g.left() - placed.left()), abs(g.top() - placed.top()), abs(g.right() - placed.right()),
                   abs(g.bottom() - placed.bottom())) <= 48

    def _lesson_float_place(self, want: int) -> QRect:
        """Where the floating pane goes (global coordinates): off the panel's controls and off the plot the step
        rings, between the toolbars and the status bar.  Of the columns (right to left, as wide as ``want`` or
        narrower) and the gaps of a column between the controls and the ringed plot, the largest that covers
        neither; else the one that covers the least of them."""
        top = max([tb.geometry().bottom() + 1 for tb in self.findChildren(QToolBar)
                   if tb.isVisible() and self.toolBarArea(tb) == Qt.ToolBarArea.TopToolBarArea] or [60])
        bottom = self.statusBar().geometry().top() if self.statusBar().isVisible() else self.height()
        height = max(240, bottom - top - 4)
        target = self._lesson_target_rect()
        controls = self._lesson_controls_rects()
        places = []
        narrow = max(self.lesson_pane.minimumSizeHint().width() if self.lesson_pane else 0, MIN_FLOAT_WIDTH)
        for width in sorted({want, min(want, narrow)}, reverse=True):
            for x in range(max(0, self.width() - width - 4), -1, -20):  # right to left
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
        return QRect(self.mapToGlobal(best.topLeft()), best.size())

    def _lesson_controls_rects(self) -> list[QRect]:
        """The controls of the panel on screen, in window coordinates: every visible slider, box, button, menu,
        text field and tab bar (its sidebar and the rows above its plots)."""
        panel = self.panels[self.current_panel_id()]
        kinds = (QAbstractSlider, QAbstractSpinBox, QAbstractButton, QComboBox, QLineEdit, QTabBar)
        widgets = [b for b in panel.sidebars() if b.isVisible()] + [
            w for w in panel.findChildren(QWidget) if isinstance(w, kinds) and not isinstance(w, QScrollBar)
            and (isinstance(w, QTabBar) or not w.objectName().startswith("qt_")) and w.isVisible()]  # qt_: a corner
        return [r for r in (visible_rect(w, self) for w in widgets) if not r.isEmpty()]

    def _lesson_target(self):
        """The plot the current step rings, if its panel is on screen."""
        panel_id, name = getattr(self, "_lesson_ring_target", (None, ""))
        if panel_id is None or panel_id != self.current_panel_id():
            return None
        from .export.slide import named_plots

        plot = dict(named_plots(self.panels[panel_id])).get(name)
        return plot if plot is not None and plot.isVisible() else None

    def _lesson_target_rect(self) -> QRect:
        plot = self._lesson_target()
        return QRect() if plot is None else visible_rect(plot, self)

    # -- actions ---------------------------------------------------------------------------------
    def show_lesson(self, lesson: Lesson | None = None, index: int = 0):
        """Show the dock (building the pane) and, if given, ``lesson`` at step ``index``."""
        self.lesson_dock.show()
        self.lesson_dock.raise_()
        pane = self.ensure_lesson_pane()
        if lesson is not None:
            pane.add_lesson(lesson) if lesson not in pane.lessons else pane.set_lesson(lesson, index)
            if index:
                pane.go(index)
        self._place_lesson_dock()
        QTimer.singleShot(0, self._place_lesson_dock)
        return pane

    def ask_lesson_path(self) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self, "Open lesson", str(home_folder()), "PE Explorer lesson (*.json)")
        return path or None

    def open_lesson_file(self, path: str | None = None) -> bool:
        path = path or self.ask_lesson_path()
        if not path:
            return False
        try:
            lesson = load_lesson(path)
        except LessonError as exc:
            self.show_error("Lesson not opened", f"{exc}\n\nNothing was changed.")
            return False
        except Exception as exc:  # noqa: BLE001 - a reader bug must not take the window down with it
            log.exception("reading %s", path)
            self.show_error("Lesson not opened", f"{Path(path).name}: {type(exc).__name__}")
            return False
        self.show_lesson(lesson)
        self._status(f"Opened the lesson “{lesson.title}” ({len(lesson.steps)} steps)")
        return True

    def _lesson_next(self) -> None:
        if self.lesson_pane is not None and self.lesson_dock.isVisible():
            self.lesson_pane.go_next()

    def _lesson_back(self) -> None:
        if self.lesson_pane is not None and self.lesson_dock.isVisible():
            self.lesson_pane.go_back()

    # -- scenes ----------------------------------------------------------------------------------
    def set_lesson_scene(self, step: Step, lesson: Lesson) -> bool:
        """Set ``step``'s scene: the panels' parameters, panel and view as one undoable change (the scene
        strip shows the step), a saved Lab result if it names one, and a ring round its plot."""
        scene = step.scene
        if scene is None:
            return False
        number = next((n for n, s in enumerate(lesson.steps) if s is step), 0)
        # The notes are read as rich text by the scene strip: the step's text escaped shows as it is written.
        preset = Preset(name=f"{SCENE_PREFIX}{lesson.name}:{number}", title=f"{lesson.title} — {step.title}",
                        description=step.text, state=scene.state, panel=scene.panel, view=scene.view)
        if not self.apply_preset(preset):
            return False
        if scene.results and scene.panel is not None:
            try:
                self._show_saved_result(scene.panel, data_dir() / scene.results)
            except Exception as exc:  # noqa: BLE001 - a result that cannot be shown: say so, keep the step
                self._status(f"Lesson: the saved result {scene.results} could not be shown: {exc}", 10000)
        self._lesson_ring_target = (scene.panel, scene.highlight) if scene.highlight else (None, "")
        if scene.highlight and scene.panel is not None:
            QTimer.singleShot(60, self._ring_highlight)
        for ms in (80, 400):  # a panel built for the scene lays itself out after this call: place the pane again
            QTimer.singleShot(ms, self._place_lesson_dock)
        return True

    def _show_saved_result(self, panel_id: str, path: Path) -> None:
        """A saved Lab result: its curves in the Lab, or the position table it trained in the Learned table."""
        if panel_id != "table":
            self.panels[panel_id].load_results(str(path))
            return
        import numpy as np

        from .lab import LabResult
        from .panels.lab_table import first_trained_table

        found = first_trained_table(LabResult.from_file(path).schemes)
        if found is None:
            raise ValueError(f"{path.name} holds no trained position table")
        self.panel_docks.show_learned_table(np.asarray(found[0]), found[1])

    def _ring_highlight(self) -> None:
        panel_id, name = getattr(self, "_lesson_ring_target", (None, ""))
        if panel_id is None:
            return
        plot = self._lesson_target()
        if plot is None:
            self._status(f"Lesson: no plot named {name} on screen (see pe-explorer export --list-plots)")
            return
        scroll_into_view(plot)
        self._place_lesson_dock()  # off the plot now that it is where it will stay
        ring = getattr(self, "_lesson_ring", None)
        if ring is None:
            ring = QFrame(self)
            ring.setObjectName("lessonRing")
            ring.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
            ring.setStyleSheet("#lessonRing { border: 4px solid #f59e0b; border-radius: 6px; "
                               "background: transparent; }")
            self._lesson_ring = ring
            # One timer, restarted per ring: an earlier step's timer hid the next step's ring early.
            self._lesson_ring_timer = QTimer(ring)
            self._lesson_ring_timer.setSingleShot(True)
            self._lesson_ring_timer.timeout.connect(ring.hide)
        # Round the part of the plot on screen, never over what lies beyond its scroll area (the formula strip).
        ring.setGeometry(visible_rect(plot, self))
        ring.show()
        ring.raise_()
        self._lesson_ring_timer.start(RING_MS)


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
        if inner is not None and inner.isAncestorOf(widget):
            r = QRect(widget.mapTo(inner, QPoint(0, 0)), widget.size())
            for bar, lo, hi, size in ((w.verticalScrollBar(), r.top(), r.bottom(), w.viewport().height()),
                                      (w.horizontalScrollBar(), r.left(), r.right(), w.viewport().width())):
                if lo < bar.value() or hi - lo + 1 > size:
                    bar.setValue(lo)
                elif hi >= bar.value() + size:
                    bar.setValue(hi - size + 1)
        w = w.parentWidget()
