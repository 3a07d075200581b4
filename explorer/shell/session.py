"""The session and presets of the main window: all panels' parameters, lecture scenes, the user's
presets and the last session (saved on close, restored at start).

:class:`Session` is a part of the main window; it takes what it needs in its constructor.  Every change goes
through the undo controller as one step (all panels, or — on error — none); questions go through the window's
:class:`~explorer.shell.dialogs.Dialogs`, which tests replace.
"""

from __future__ import annotations

import datetime
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import QMainWindow, QMenu

from ..export.scene import set_ranges, set_splitters
from ..presets import (
    Preset,
    PresetError,
    PresetExists,
    builtin_presets,
    load_preset,
    save_preset,
    save_user_preset,
    user_dir,
    user_presets,
)
from ..settings import config_dir
from ..state import PANEL_STATES, AppState
from ..widgets.plain import plain_tip, shorten

log = logging.getLogger(__name__)

SESSION_FILE = "session.json"
DEFAULT_TITLE = "PE Explorer — how transformers learn word order"


def _aside_name(path: Path, why: str = "rejected") -> Path:
    """``session.<why>-<date>.json`` beside ``path`` (``-2``, ``-3``, … if taken)."""
    day = datetime.date.today().isoformat()
    for n in range(1, 1000):
        aside = path.with_name(f"{path.stem}.{why}-{day}{'' if n == 1 else f'-{n}'}{path.suffix}")
        if not (aside.exists() or aside.is_symlink()):
            return aside
    return path.with_name(f"{path.stem}.{why}-{datetime.datetime.now():%Y-%m-%dT%H%M%S.%f}{path.suffix}")


def _menu_text(text: str) -> str:
    """``text`` for a menu entry: one line, at most 120 characters, "&" shown (not a keyboard mnemonic)."""
    return shorten(" ".join(str(text).split()), 120).replace("&", "&&")


#: The session file was not read by this run (--reset-layout): it is replaced, whoever wrote it.
_UNREAD = object()


def _stamp(path: Path) -> tuple | None:
    """What tells one writing of ``path`` from another (every save renames a new file over it); None if absent."""
    try:
        st = path.lstat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)



class Session(QObject):
    """Presets, lecture scenes and the last session of ``window``.

    ``panels``: the window's panels (id -> panel, built on asking; ``state_of``/``defer`` for those not built);
    ``stage``: what is on screen; ``undo``: the undo controller; ``titles``: panel id -> title; ``scene_bar``:
    the strip that shows the scene; ``dialogs``: the window's questions; ``status``: a line in the status bar.
    """

    #: The scene on screen changed (the :class:`~explorer.presets.Preset`, or None once it was left).
    sceneChanged = Signal(object)

    def __init__(self, window: QMainWindow, *, panels, stage, undo, titles: dict[str, str], scene_bar,
                 dialogs, status: Callable[..., None]) -> None:
        super().__init__(window)
        self._window = window
        self.panels = panels
        self.stage = stage
        self.undo = undo
        self.titles = titles
        self.scene_bar = scene_bar
        self.dialogs = dialogs
        self._status = status
        self._scene: Preset | None = None
        self._applying_scene = False
        #: The session file as this run found it (None: absent); a file another window wrote since is kept aside.
        self._session_stamp: tuple | None | object = _UNREAD
        self._pending_ranges: tuple | None = None
        self._ranges_wired = False
        #: This run read the session file (or was told to own it): closing writes it back.
        self.owned = False
        self.builtin, self.builtin_errors = self._load_builtins()
        stage.changed.connect(self._on_stage_changed)

    # -- the Presets menu (filled on opening) -----------------------------------------------------
    @staticmethod
    def _load_builtins() -> tuple[list[Preset], list[str]]:
        try:
            return builtin_presets(), []
        except PresetError as exc:  # a broken built-in is a bug; keep the app usable and say so
            return [], [str(exc)]

    def fill_presets_menu(self, m: QMenu, scene_actions: list[QAction], file_actions: list[QAction],
                          reset_all: QAction) -> None:
        """The lecture scenes and ``scene_actions`` (next, previous), my presets, then ``file_actions`` and
        ``reset_all`` (the menu is filled as it opens: my presets may have changed on disk)."""
        m.clear()
        m.addSection("Lecture scenes")
        for n, preset in enumerate(self.builtin, start=1):
            act = m.addAction(f"&{n}  {_menu_text(preset.title)}")
            act.setToolTip(plain_tip(preset.description))
            act.setStatusTip(shorten(preset.description, 200))
            act.triggered.connect(lambda _=False, p=preset: self.apply_preset(p))
        for err in self.builtin_errors:
            m.addAction(f"⚠ {_menu_text(err)}").setEnabled(False)
        for act in scene_actions:
            m.addAction(act)
        m.addSection("My presets")
        mine, broken = user_presets()
        for preset in mine:  # a preset's title and notes are anyone's text: shown as the characters they hold
            act = m.addAction(_menu_text(preset.title))
            act.setToolTip(plain_tip(preset.description or str(preset.path)))
            act.triggered.connect(lambda _=False, p=preset: self.apply_preset(p))
        for err in broken:
            act = m.addAction(f"⚠ {_menu_text(err)}")
            act.setToolTip(plain_tip(err))
            act.setEnabled(False)
        if not mine and not broken:
            m.addAction("(none yet — Save preset… keeps the current set-up)").setEnabled(False)
        m.addSeparator()
        for act in file_actions:
            m.addAction(act)
        m.addSeparator()
        m.addAction(reset_all)

    # -- state, presets, sessions ----------------------------------------------------------------
    def app_state(self) -> AppState:
        """All panels' parameters now (a panel not built yet: the state it will have)."""
        return AppState().replace(**{pid: self.panels.state_of(pid) for pid in self.panels if pid in PANEL_STATES})

    def set_app_state(self, state: AppState, text: str = "Load parameters") -> bool:
        """Apply ``state`` to every panel as one undoable step (all panels, or — on error — none)."""
        states = {pid: state.get(pid) for pid in self.panels if pid in PANEL_STATES}
        return self.undo.set_states(states, text)

    def apply_preset(self, preset: Preset) -> bool:
        try:
            self.set_app_state(preset.state, f"Load “{preset.title}”")
        except Exception as exc:  # noqa: BLE001 - the panels are back where they were; say what happened
            self.dialogs.show_error("Preset not loaded", f"{preset.title}: {exc}\n\nNothing was changed.")
            return False
        self._status(f"Loaded “{preset.title}”")  # first: what the layout could not find is said over it
        self._applying_scene = True
        try:
            self._open_panel_view(preset)
        finally:
            self._applying_scene = False
        self._set_scene(preset)
        return True

    def load_preset_file(self, path: str | Path) -> bool:
        """Load a preset file: everything or (with a clear message) nothing; never raises."""
        try:
            preset = load_preset(path)
        except PresetError as exc:
            self.dialogs.show_error("Preset not loaded", f"{exc}\n\nNothing was changed.")
            return False
        except Exception as exc:  # noqa: BLE001 - a reader bug must not take the window down with it
            log.exception("reading %s", path)
            self.dialogs.show_error("Preset not loaded", f"{Path(path).name}: {type(exc).__name__}\n\n"
                                    "Nothing was changed.")
            return False
        return self.apply_preset(preset)

    def _open_panel_view(self, preset: Preset) -> None:
        """Bring up the preset's panel, open its view (tab) and arrange it, as the scene needs them."""
        if preset.panel is None or preset.panel not in self.panels:
            return
        panel = self.panels[preset.panel]
        self.stage.put(preset.panel, preset.view)
        # The whole panel first: a plot still in focus (this scene applied again) is out of its place, where
        # neither its name nor the splitters around it are found.
        self.stage.set_focus_plot(None)
        layout = preset.layout or {}
        missing = set_splitters(panel, layout)
        self._pending_ranges = (panel, layout.get("ranges", {})) if layout.get("ranges") else None
        self._apply_pending_ranges()
        focus = layout.get("focus")
        try:
            self.stage.set_focus_plot(focus)  # the scene's plot on the whole stage, or (None) the whole panel
        except ValueError:
            missing.append(str(focus))
            self.stage.set_focus_plot(None)
        if missing:
            self._status(f"“{preset.title}”: nothing named {', '.join(missing)} on {self.titles[preset.panel]}")

    def _apply_pending_ranges(self, *_args) -> None:
        """The scene's axis ranges, once its panel has drawn what the scene's parameters ask for (a result
        that arrives later sets its own range and would undo them)."""
        pending = self._pending_ranges
        if pending is None:
            return
        panel, ranges = pending
        if panel.waiting:
            if not self._ranges_wired:
                for p in self.panels.values():
                    p.drawn.connect(self._apply_pending_ranges)
                self._ranges_wired = True
            return
        self._pending_ranges = None
        for name in set_ranges(panel, ranges):
            self._status(f"Scene: no plot named {name} on this panel (see pe-explorer export --list-plots)")

    def _set_scene(self, preset: Preset | None) -> None:
        """Make ``preset`` the scene on screen (its name in the title, its notes in the scene strip),
        or, with None, leave the scene: name and notes go."""
        self._scene = preset
        if preset is None or not (preset.description or preset.builtin):
            self.scene_bar.hide()
            self._window.setWindowTitle(DEFAULT_TITLE if preset is None else f"PE Explorer — {preset.title}")
        else:
            self.scene_bar.show_scene(preset.title, preset.description)
            self._window.setWindowTitle(f"PE Explorer — {preset.title}")
        self.sceneChanged.emit(preset)

    @property
    def scene(self) -> Preset | None:
        """The lecture scene (or preset) on screen, None once it was left."""
        return self._scene

    def leave_scene(self, why: str = "") -> None:
        """Leave the scene on screen (a reset, or another panel brought up by hand)."""
        self._pending_ranges = None
        if self._scene is None:
            return
        title = self._scene.title
        self._set_scene(None)
        if why:
            self._status(f"Left “{title}”: {why}")

    def _on_stage_changed(self, now) -> None:
        """Another panel came on stage: by hand, that leaves a scene set on another panel."""
        scene = self._scene
        if scene is None or self._applying_scene or not self._window.isVisible():
            return
        if scene.panel is not None and now.panel != scene.panel:
            self.leave_scene(f"{self.titles.get(now.panel, now.panel)} brought to the front")

    def step_scene(self, step: int) -> bool:
        """The next (``step`` = 1) or previous (−1) lecture scene after the one on screen (from the first or last
        when none is); False past either end."""
        names = [p.name for p in self.builtin]
        now = self._scene.name if self._scene is not None else None
        index = names.index(now) + step if now in names else (0 if step > 0 else len(names) - 1)
        if not 0 <= index < len(names):
            self._status("No more lecture scenes this way" if names else "No lecture scenes")
            return False
        return self.apply_preset(self.builtin[index])

    def next_scene(self) -> bool:
        return self.step_scene(1)

    def previous_scene(self) -> bool:
        return self.step_scene(-1)

    def reset_current_panel(self) -> None:
        pid = self.stage.panel_id()
        panel = self.panels[pid]
        if self.undo.set_states({pid: panel.state_cls()}, f"Reset {self.titles.get(pid, pid)}"):
            self.leave_scene()
            self._status(f"{self.titles.get(pid, pid)}: back to the defaults (Ctrl+Z to undo)")

    def reset_all_panels(self) -> None:
        if self.set_app_state(AppState(), "Reset all panels"):
            self.leave_scene()
            self._status("All panels back to the defaults (Ctrl+Z to undo)")

    def session_path(self) -> Path:
        return config_dir() / SESSION_FILE

    def save_session(self) -> None:
        """Write the session file (closing does so only when this run restored the session).

        A session file another window wrote since this run read it (two windows on one settings folder)
        is not replaced: it is kept as ``session.other-<date>.json``, and the terminal says so."""
        path = self.session_path()
        scene = self._scene
        theirs = _stamp(path)
        # A run that never read the session (--reset-layout) replaces whatever is there, as it always did.
        if theirs is not None and theirs != (theirs if self._session_stamp is _UNREAD else self._session_stamp):
            aside = _aside_name(path, "other")
            try:
                path.rename(aside)
            except OSError as exc:
                print(f"pe-explorer: last session not saved: another window saved {path.name} since this one "
                      f"started, and it could not be kept aside ({exc.strerror or exc})", file=sys.stderr)
                return
            print(f"pe-explorer: another window saved {path.name} since this one started; its session is kept "
                  f"as {aside.name}", file=sys.stderr)
        now = self.stage.now()
        save_preset(path, self.app_state(), title=scene.title if scene else "",
                    description=scene.description if scene else "", panel=now.panel, view=now.view)
        self._session_stamp = _stamp(path)

    def _refuse_session(self, path: Path, why: str) -> None:
        """Keep a session file this app cannot use: move it aside (never replace it with defaults)."""
        aside = _aside_name(path)
        try:
            path.rename(aside)
            self._session_stamp = None
        except OSError as exc:
            self.owned = False  # it stays where it is, and this run will not overwrite it
            log.warning("last session not restored (%s); %s kept in place: %s", why, path, exc.strerror or exc)
            self._status(f"Last session not restored: {why} (the file is kept; it will not be overwritten)", 15000)
            return
        log.warning("last session not restored (%s); kept as %s", why, aside)
        self._status(f"Last session not restored: {why} (kept as {aside.name})", 15000)

    def restore_session(self) -> bool:
        """Load the parameters saved when the app last closed (not an undo step).

        The run that calls this owns the session: it is saved when the window closes.  A session
        that cannot be used is moved aside as ``session.rejected-<date>.json``, never overwritten.
        """
        self.owned = True
        path = self.session_path()
        self._session_stamp = _stamp(path)  # the file as this run found it (save_session checks it)
        if not (path.exists() or path.is_symlink()):
            return False
        try:
            preset = load_preset(path)
        except PresetError as exc:
            self._refuse_session(path, str(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - start with defaults rather than not at all
            log.exception("reading %s", path)
            self._refuse_session(path, f"{path.name}: {type(exc).__name__}")
            return False
        try:
            states = {pid: preset.state.get(pid) for pid in self.panels if pid in PANEL_STATES}
            self.undo.set_states(self.panels.defer(states), "Restore session")  # not built yet: built with it
        except Exception as exc:  # noqa: BLE001 - start with defaults rather than not at all
            self._refuse_session(path, f"{path.name}: {exc}")
            return False
        self.undo.clear()
        self._open_panel_view(preset)
        if preset.titled:  # the session was saved inside a scene: come back to it
            self._set_scene(Preset(name=preset.title, title=preset.title, description=preset.description,
                                   state=preset.state, panel=preset.panel, view=preset.view))
        return True

    # -- preset commands -------------------------------------------------------------------------
    def open_preset_file(self) -> bool:
        path = self.dialogs.ask_open_path()
        return self.load_preset_file(path) if path else False

    def save_preset_dialog(self) -> bool:
        scene = self._scene
        details = self.dialogs.ask_preset_details(scene.title if scene and not scene.builtin else "")
        if details is None:
            return False
        title, description = details
        state, now = self.app_state(), self.stage.now()
        try:
            try:
                path = save_user_preset(title, state, description=description, panel=now.panel, view=now.view)
            except PresetExists as exists:
                if not self.dialogs.ask_overwrite(exists.path, title):
                    self._status(f"Not saved: “{title}” is kept as it was")
                    return False
                path = save_user_preset(title, state, description=description, panel=now.panel, view=now.view,
                                        overwrite=True)
        except PresetError as exc:
            self.dialogs.show_error("Preset not saved", str(exc))
            return False
        self._status(f"Saved preset “{title}” ({path})")
        return True

    def save_preset_file(self) -> bool:
        path = self.dialogs.ask_save_path("pe-explorer-preset.json")
        if not path:
            return False
        try:
            now = self.stage.now()
            save_preset(path, self.app_state(), title=Path(path).stem.replace("_", " "), panel=now.panel,
                        view=now.view)
        except PresetError as exc:
            self.dialogs.show_error("Preset not saved", str(exc))
            return False
        self._status(f"Saved {path}")
        return True

    @staticmethod
    def open_presets_folder() -> None:
        folder = user_dir()
        folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
