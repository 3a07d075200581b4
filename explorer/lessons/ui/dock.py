"""The Lesson dock of the main window: built when first shown, docked beside the panels or floating.

:class:`LessonDock` is the part of :class:`explorer.main_window.MainWindow` that owns it (``window.lessons``).
The dock is made at start-up (an empty placeholder: the saved layout needs it), the
:class:`~explorer.lessons.ui.pane.LessonPane` only when the dock is first on screen (View → Lesson, Ctrl+L), so
start-up pays nothing for it.  Its visibility is part of the saved window layout.

"Show me" sets a step's scene through :meth:`~explorer.shell.session.Session.apply_preset` (one undoable change;
the scene strip shows the step), opens a saved Lab result when the step names one (its curves in the Lab, or
the position table it trained in the Learned-table panel), and rings the plot the step points at for a few
seconds (scrolled into view, the ring clipped to the part on screen).  Opening another lesson leaves the
previous lesson's scene (its title goes from the scene strip).  Which lesson and step were on screen is kept
in the settings (``lesson/name``, ``lesson/step``) and shown again when the pane is next built.  The pane docks at
the window's right edge beside the panels at every size, a quarter of the window wide (the panels narrow; a plot
the step rings is scrolled into view), so it never floats over the panel's controls or the ringed plot and never
changes sides from step to step; floated or docked elsewhere by hand, it stays where it is put.  Only a window too
narrow for the panels' least width and the pane's side by side floats it, along the same right edge.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QScrollArea,
    QToolBar,
    QWidget,
)

from ...presets import Preset
from ...settings import OutputError, SettingsError, save_settings, setting
from ..format import Lesson, LessonError, Step, builtin_lessons, data_dir, load_lesson

if TYPE_CHECKING:
    from .pane import LessonPane

log = logging.getLogger(__name__)

#: The dock area the pane docks in, at every size and for every step (the right corners are the area's: the pane
#: runs the window's full height beside the panels).
SIDE = Qt.DockWidgetArea.RightDockWidgetArea
#: The docked pane is a quarter of the window wide, at most this many pixels.
MAX_WIDTH = 480
RING_MS = 2500
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
        #: How long a step's ring stays round its plot (ms).
        self.ring_ms = RING_MS
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
        self.window.addDockWidget(SIDE, dock)
        dock.hide()
        dock.visibilityChanged.connect(self._on_visible)
        dock.topLevelChanged.connect(self._on_top_level)
        dock.dockLocationChanged.connect(self._on_top_level)  # dragged to another dock area
        self._placing = False
        self._auto_floated = False
        self.placed_by_hand = False
        self.dock = dock
        self.errors: list[str] = []

    # -- building --------------------------------------------------------------------------------
    def _on_visible(self, visible: bool) -> None:
        if visible:
            self.ensure_pane()
            self.place()
            QTimer.singleShot(0, self.dock, self.place)  # once the dock area has laid itself out (not after it is gone)

    def ensure_pane(self):
        """The pane, built on first use (styled for the current look)."""
        if self.pane is not None:
            return self.pane
        from PySide6.QtGui import QPalette

        from ...widgets.styling import style_widgets
        from .pane import LessonPane

        try:
            lessons = builtin_lessons()
        except LessonError as exc:  # a broken shipped lesson is a bug: keep the pane usable and say so
            lessons, self.errors = [], [str(exc)]
            self.window.show_status(f"Lessons not loaded: {exc}", 15000)
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

    def _on_top_level(self, *_args) -> None:
        if not self._placing:
            self.placed_by_hand = True

    def place_soon(self, *_args) -> None:
        QTimer.singleShot(0, self.dock, self.place)

    def width_for_window(self) -> int:
        """How wide the docked pane is: a quarter of the window, at most :data:`MAX_WIDTH`, never under the pane's
        own minimum (its text still wraps to a readable line)."""
        least = self.pane.minimumSizeHint().width() if self.pane is not None else 0
        return max(least, min(self.window.width() // 4, MAX_WIDTH))

    def place(self) -> None:
        """Docked in the right-hand dock area beside the panels, a quarter of the window wide, at every size and for
        every step: never floating over the controls or the ringed plot, never jumping to the other edge.  Floated
        or docked elsewhere by hand, it stays where it was put.  Only a window too narrow for the panels' least width
        and the pane's side by side (1024 px after presenter mode's wider panels) floats it, at the right edge."""
        dock = self.dock
        if not dock.isVisible() or self.pane is None:
            return
        if self.placed_by_hand or (dock.isFloating() and not self._auto_floated):  # floated by hand
            self.placed_by_hand = True
            dock.setMaximumWidth(16777215)
            return
        want = self.width_for_window()
        win = self.window
        self._fold_explanations(win.width() - want)
        panels = max((d.minimumSizeHint().width() for d in win.docks.values()
                      if win.dockWidgetArea(d) != Qt.DockWidgetArea.NoDockWidgetArea), default=0)
        squeezed = panels + self.pane.minimumSizeHint().width() + 12 > win.width()
        # Restored, not cleared: docking shows the dock again, which places it from inside this call, and the
        # inner call's "done" made the outer setFloating's topLevelChanged look like a move by hand.
        was, self._placing = self._placing, True
        try:
            if squeezed:
                self._float_at_right_edge(want)
                return
            if dock.isFloating():
                dock.setFloating(False)
                self._auto_floated = False
            # Docked, it keeps its width (the window gave a dock with no central widget beside it any spare width
            # at each relayout).
            dock.setMaximumWidth(want)
            # Both sides of the split: with no central widget, resizing the pane alone leaves it wide.
            beside = win.docks[win.current_panel_id()]
            if win.dockWidgetArea(dock) != SIDE or win.dockWidgetArea(beside) == Qt.DockWidgetArea.NoDockWidgetArea:
                return  # mid-way through a layout being restored
            win.resizeDocks([beside, dock], [max(1, win.width() - want), want], Qt.Orientation.Horizontal)
        finally:
            self._placing = was

    def _float_at_right_edge(self, want: int) -> None:
        """Floating, as wide as it would dock, along the window's right edge between the toolbars and the status bar
        (the same side as docked, for every step)."""
        dock, win = self.dock, self.window
        if not dock.isFloating():
            dock.setFloating(True)
            self._auto_floated = True
        dock.setMaximumWidth(16777215)
        top = max([tb.geometry().bottom() + 1 for tb in win.findChildren(QToolBar)
                   if tb.isVisible() and win.toolBarArea(tb) == Qt.ToolBarArea.TopToolBarArea] or [0])
        bottom = win.statusBar().geometry().top() if win.statusBar().isVisible() else win.height()
        place = QRect(win.mapToGlobal(QPoint(win.width() - want, top)), QSize(want, max(200, bottom - top)))
        if dock.geometry() != place:
            dock.setGeometry(place)

    def _fold_explanations(self, room: int) -> None:
        """Fold each panel's "What am I looking at?" pane that would not fit the ``room`` left beside the docked pane
        (as the panel folds it itself when it is that narrow): shown, it would hold the panel wider than the room
        and push the window past the screen.  The panel shows it again when it is wide enough."""
        for panel in self.window.panels.values():
            explain = getattr(panel, "explain", None)
            if explain is None or not explain.isVisible():
                continue
            bars = sum(b.width() for b in panel.sidebars() if b.isVisible())
            if room < bars + explain.MIN_WIDTH + panel.PLOT_ROOM:
                explain.setVisible(False)

    def _target(self):
        """The plot the current step rings, if its panel is on screen."""
        panel_id, name = self._ring_target
        if panel_id is None or panel_id != self.window.current_panel_id():
            return None
        from ...export.slide import named_plots

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
        QTimer.singleShot(0, self.dock, self.place)
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
        self.window.show_status(f"Opened the lesson “{lesson.title}” ({len(lesson.steps)} steps)")
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
                        description=step.text, state=scene.state, panel=scene.panel, view=scene.view,
                        layout={"focus": scene.focus} if scene.focus else {})
        if not self.window.session.apply_preset(preset):
            return False
        if scene.results and scene.panel is not None:
            try:
                self._show_saved_result(scene.panel, data_dir() / scene.results)
            except Exception as exc:  # noqa: BLE001 - a result that cannot be shown: say so, keep the step
                self.window.show_status(f"Lesson: the saved result {scene.results} could not be shown: {exc}", 10000)
        self._ring_target = (scene.panel, scene.highlight) if scene.highlight else (None, "")
        if scene.highlight and scene.panel is not None:
            QTimer.singleShot(60, self.dock, self._ring_highlight)
        for ms in (80, 400):  # a panel built for the scene lays itself out after this call: place the pane again
            QTimer.singleShot(ms, self.dock, self.place)
        return True

    def _show_saved_result(self, panel_id: str, path: Path) -> None:
        """A saved Lab result: its curves in the Lab, or the position table it trained in the Learned table."""
        if panel_id != "table":
            self.window.panels[panel_id].load_results(str(path))
            return
        import numpy as np

        from ...lab import LabResult
        from ...panels.lab.table import first_trained_table

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
            self.window.show_status(f"Lesson: no plot named {name} on screen (see pe-explorer export --list-plots)")
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
            self._ring_follower = RingFollower(ring, self.window)
        # Round the part of the plot on screen, never over what lies beyond its scroll area (the formula strip); it
        # follows the plot while it shows (the panel narrows or scrolls as the scene and the docked pane settle).
        self._ring_follower.follow(plot)
        ring.show()
        ring.raise_()
        self._ring_timer.start(self.ring_ms)


class RingFollower(QObject):
    """Keeps a lesson's ring round the part of its plot on screen: a move or resize of the plot or of any widget
    that holds it (a scroll, the panel narrowing beside the docked pane) puts the ring round it again."""

    def __init__(self, ring: QFrame, window: QWidget) -> None:
        super().__init__(ring)
        self._ring, self._window = ring, window
        self._plot: QWidget | None = None
        self._watched: list[QWidget] = []
        self._pending = False

    def follow(self, plot: QWidget) -> None:
        for old in self._watched:
            old.removeEventFilter(self)
        self._plot, self._watched = plot, []
        w: QWidget | None = plot
        while w is not None and w is not self._window:
            w.installEventFilter(self)
            self._watched.append(w)
            w = w.parentWidget()
        self.update()

    def update(self) -> None:
        self._pending = False
        plot = self._plot
        if plot is not None and shiboken6.isValid(plot):
            self._ring.setGeometry(visible_rect(plot, self._window))

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if event.type() in (QEvent.Type.Move, QEvent.Type.Resize) and not self._pending:
            self._pending = True  # one update for a burst of moves, once the layout has settled
            QTimer.singleShot(0, self, self.update)
        return False


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
