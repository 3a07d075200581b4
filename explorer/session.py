"""The session and presets of the main window: all panels' parameters, lecture scenes, the user's
presets and the last session (saved on close, restored at start).

:class:`SessionMixin` is the part of :class:`explorer.main_window.MainWindow` that owns them.  Every
change goes through the undo controller as one step (all panels, or — on error — none); dialogs go
through the window's small ``ask_*``/``show_error`` methods so tests can replace them.
"""

from __future__ import annotations

import datetime
import logging
import sys
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
)

from .presets import (
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
from .settings import config_dir, home_folder
from .state import PANEL_STATES, AppState
from .widgets.plain import ask, plain_tip, shorten, warn

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


def _stamp(path: Path) -> tuple | None:
    """What tells one writing of ``path`` from another (every save renames a new file over it); None if absent."""
    try:
        st = path.lstat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class SessionMixin:
    """Presets, lecture scenes and the last session (needs ``panels``, ``undo``, ``docks``, the scene
    bar and the preset actions)."""

    # -- the Presets menu (filled on opening) -----------------------------------------------------
    def _load_builtins(self) -> tuple[list[Preset], list[str]]:
        try:
            return builtin_presets(), []
        except PresetError as exc:  # a broken built-in is a bug; keep the app usable and say so
            return [], [str(exc)]

    def _fill_presets_menu(self) -> None:
        m = self.presets_menu
        m.clear()
        m.addSection("Lecture scenes")
        for n, preset in enumerate(self._builtin, start=1):
            act = m.addAction(f"&{n}  {_menu_text(preset.title)}")
            act.setToolTip(plain_tip(preset.description))
            act.setStatusTip(shorten(preset.description, 200))
            act.triggered.connect(lambda _=False, p=preset: self.apply_preset(p))
        for err in self._builtin_errors:
            m.addAction(f"⚠ {_menu_text(err)}").setEnabled(False)
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
        for act in (
            self.act_save_preset,
            self.act_save_preset_file,
            self.act_open_preset,
            self.act_open_presets_folder,
        ):
            m.addAction(act)
        m.addSeparator()
        m.addAction(self.act_reset_all)

    # -- state, presets, sessions ----------------------------------------------------------------
    def app_state(self) -> AppState:
        """All panels' parameters now."""
        state_of = getattr(self.panels, "state_of", None)  # a panel not built yet: the state it will have
        return AppState().replace(**{pid: state_of(pid) if state_of else self.panels[pid].state
                                     for pid in self.panels if pid in PANEL_STATES})

    def set_app_state(self, state: AppState, text: str = "Load parameters") -> bool:
        """Apply ``state`` to every panel as one undoable step (all panels, or — on error — none)."""
        states = {pid: state.get(pid) for pid in self.panels if pid in PANEL_STATES}
        return self.undo.set_states(states, text)

    def apply_preset(self, preset: Preset) -> bool:
        try:
            self.set_app_state(preset.state, f"Load “{preset.title}”")
        except Exception as exc:  # noqa: BLE001 - the panels are back where they were; say what happened
            self.show_error("Preset not loaded", f"{preset.title}: {exc}\n\nNothing was changed.")
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
            self.show_error("Preset not loaded", f"{exc}\n\nNothing was changed.")
            return False
        except Exception as exc:  # noqa: BLE001 - a reader bug must not take the window down with it
            log.exception("reading %s", path)
            self.show_error("Preset not loaded", f"{Path(path).name}: {type(exc).__name__}\n\nNothing was changed.")
            return False
        return self.apply_preset(preset)

    def _open_panel_view(self, preset: Preset) -> None:
        """Bring up the preset's panel, open its view (tab) and arrange it, as the scene needs them."""
        if preset.panel not in self.docks:
            return
        panel = self.panels[preset.panel]
        self.show_panel(preset.panel)
        if preset.view is not None:
            panel.show_view(preset.view)
        layout = preset.layout or {}
        missing = self._set_splitters(panel, layout.get("splitters", {}))
        self._pending_ranges = (panel, layout.get("ranges", {})) if layout.get("ranges") else None
        self._apply_pending_ranges()
        if missing:
            self._status(f"“{preset.title}”: nothing named {', '.join(missing)} on {self.titles[preset.panel]}")

    @staticmethod
    def _set_splitters(panel, shares: dict) -> list[str]:
        """Each named splitter of ``panel`` divided in the given shares; the names not found."""
        from PySide6.QtWidgets import QSplitter

        missing = []
        for name, parts in shares.items():
            split = panel.findChild(QSplitter, name)
            if split is None or split.count() != len(parts):
                missing.append(name)
                continue
            total = sum(split.sizes()) or 1000
            split.setSizes([round(total * p / sum(parts)) for p in parts])
        return missing

    def _apply_pending_ranges(self, *_args) -> None:
        """The scene's axis ranges, once its panel has drawn what the scene's parameters ask for (a result
        that arrives later sets its own range and would undo them)."""
        pending = getattr(self, "_pending_ranges", None)
        if pending is None:
            return
        panel, ranges = pending
        if panel.waiting:
            if not getattr(self, "_ranges_wired", False):
                for p in self.panels.values():
                    p.drawn.connect(self._apply_pending_ranges)
                self._ranges_wired = True
            return
        self._pending_ranges = None
        from .export.slide import named_plots

        plots = dict(named_plots(panel))
        for name, axes in ranges.items():
            plot = plots.get(name)
            if plot is None:
                self._status(f"Scene: no plot named {name} on this panel (see pe-explorer export --list-plots)")
                continue
            item = plot.getPlotItem()
            if "x" in axes:
                item.setXRange(*axes["x"], padding=0)
            if "y" in axes:
                item.setYRange(*axes["y"], padding=0)

    def _set_scene(self, preset: Preset | None) -> None:
        """Make ``preset`` the scene on screen (its name in the title, its notes in the scene strip),
        or, with None, leave the scene: name and notes go."""
        self._scene = preset
        if preset is None or not (preset.description or preset.builtin):
            self.scene_bar.hide()
            self.setWindowTitle(DEFAULT_TITLE if preset is None else f"PE Explorer — {preset.title}")
            return
        self.scene_title.setText(preset.title)
        self.scene_text.set_notes(preset.description)
        self.scene_text.set_expanded(False)  # one line; a click shows the rest
        self.scene_bar.show()
        self.setWindowTitle(f"PE Explorer — {preset.title}")

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

    def _on_panel_raised(self, panel_id: str) -> None:
        """A panel came to the front: by hand, that leaves a scene set on another panel."""
        scene = self._scene
        if scene is None or getattr(self, "_applying_scene", False) or not self.isVisible():
            return
        if scene.panel is not None and panel_id != scene.panel:
            self.leave_scene(f"{self.titles.get(panel_id, panel_id)} brought to the front")

    def reset_current_panel(self) -> None:
        pid = self.current_panel_id()
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
        if theirs is not None and theirs != self.__dict__.get("_session_stamp", theirs):
            aside = _aside_name(path, "other")
            try:
                path.rename(aside)
            except OSError as exc:
                print(f"pe-explorer: last session not saved: another window saved {path.name} since this one "
                      f"started, and it could not be kept aside ({exc.strerror or exc})", file=sys.stderr)
                return
            print(f"pe-explorer: another window saved {path.name} since this one started; its session is kept "
                  f"as {aside.name}", file=sys.stderr)
        save_preset(
            path,
            self.app_state(),
            title=scene.title if scene else "",
            description=scene.description if scene else "",
            panel=self.current_panel_id(),
            view=self.panels[self.current_panel_id()].current_view(),
        )
        self._session_stamp = _stamp(path)

    def _refuse_session(self, path: Path, why: str) -> None:
        """Keep a session file this app cannot use: move it aside (never replace it with defaults)."""
        aside = _aside_name(path)
        try:
            path.rename(aside)
            self._session_stamp = None
        except OSError as exc:
            self._session_owned = False  # it stays where it is, and this run will not overwrite it
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
        self._session_owned = True
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
            defer = getattr(self.panels, "defer", None)  # panels not built yet are built with their state
            self.undo.set_states(defer(states) if defer else states, "Restore session")
        except Exception as exc:  # noqa: BLE001 - start with defaults rather than not at all
            self._refuse_session(path, f"{path.name}: {exc}")
            return False
        self.undo.clear()
        self._open_panel_view(preset)
        if preset.titled:  # the session was saved inside a scene: come back to it
            self._set_scene(Preset(name=preset.title, title=preset.title, description=preset.description,
                                   state=preset.state, panel=preset.panel, view=preset.view))
        return True

    # -- dialogs (small methods so tests can replace them) ---------------------------------------
    def show_error(self, title: str, message: str) -> None:
        warn(self, title, message)  # the message names what a file held: as text

    def ask_open_path(self) -> str | None:
        folder = user_dir() if user_dir().is_dir() else home_folder()
        path, _ = QFileDialog.getOpenFileName(self, "Open preset", str(folder), "PE Explorer preset (*.json)")
        return path or None

    def ask_save_path(self, default_name: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save preset to file", str(home_folder() / default_name), "PE Explorer preset (*.json)"
        )
        if path and not Path(path).suffix:
            path += ".json"
        return path or None

    def ask_overwrite(self, path: Path, title: str) -> bool:
        answer = ask(
            self,
            "Replace preset?",
            f"A preset named “{title}” exists already ({path.name}). Replace it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def ask_preset_details(self) -> tuple[str, str] | None:
        dlg = QDialog(self)
        dlg.setWindowTitle("Save preset")
        form = QFormLayout(dlg)
        title = QLineEdit(self._scene.title if self._scene and not self._scene.builtin else "")
        title.setPlaceholderText("e.g. Week 3 — RoPE at 32k")
        desc = QPlainTextEdit()
        desc.setPlaceholderText("What this set-up shows (optional; shown when it is loaded)")
        desc.setFixedHeight(90)
        form.addRow("Name", title)
        form.addRow("Notes", desc)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(dlg.accept)
        buttons.rejected.connect(dlg.reject)
        form.addRow(buttons)
        if dlg.exec() != QDialog.DialogCode.Accepted or not title.text().strip():
            return None
        return title.text().strip(), desc.toPlainText().strip()

    # -- preset commands -------------------------------------------------------------------------
    def open_preset_file(self) -> bool:
        path = self.ask_open_path()
        return self.load_preset_file(path) if path else False

    def save_preset_dialog(self) -> bool:
        details = self.ask_preset_details()
        if details is None:
            return False
        title, description = details
        state, panel = self.app_state(), self.current_panel_id()
        view = self.panels[panel].current_view()
        try:
            try:
                path = save_user_preset(title, state, description=description, panel=panel, view=view)
            except PresetExists as exists:
                if not self.ask_overwrite(exists.path, title):
                    self._status(f"Not saved: “{title}” is kept as it was")
                    return False
                path = save_user_preset(title, state, description=description, panel=panel, view=view,
                                        overwrite=True)
        except PresetError as exc:
            self.show_error("Preset not saved", str(exc))
            return False
        self._status(f"Saved preset “{title}” ({path})")
        return True

    def save_preset_file(self) -> bool:
        path = self.ask_save_path("pe-explorer-preset.json")
        if not path:
            return False
        try:
            pid = self.current_panel_id()
            save_preset(path, self.app_state(), title=Path(path).stem.replace("_", " "), panel=pid,
                        view=self.panels[pid].current_view())
        except PresetError as exc:
            self.show_error("Preset not saved", str(exc))
            return False
        self._status(f"Saved {path}")
        return True

    def open_presets_folder(self) -> None:
        folder = user_dir()
        folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
