"""The session and presets of the main window: all panels' parameters, lecture scenes, the user's
presets and the last session (saved on close, restored at start).

:class:`SessionMixin` is the part of :class:`explorer.main_window.MainWindow` that owns them.  Every
change goes through the undo controller as one step (all panels, or — on error — none); dialogs go
through the window's small ``ask_*``/``show_error`` methods so tests can replace them.
"""

from __future__ import annotations

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
    builtin_presets,
    load_preset,
    save_preset,
    save_user_preset,
    user_dir,
    user_presets,
)
from .settings import config_dir, home_folder
from .state import PANEL_STATES, AppState

SESSION_FILE = "session.json"
DEFAULT_TITLE = "PE Explorer — how transformers learn word order"


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
            act = m.addAction(f"&{n}  {preset.title}")
            act.setToolTip(preset.description)
            act.setStatusTip(preset.description[:200])
            act.triggered.connect(lambda _=False, p=preset: self.apply_preset(p))
        for err in self._builtin_errors:
            m.addAction(f"⚠ {err}").setEnabled(False)
        m.addSection("My presets")
        mine, broken = user_presets()
        for preset in mine:
            act = m.addAction(preset.title)
            act.setToolTip(preset.description or str(preset.path))
            act.triggered.connect(lambda _=False, p=preset: self.apply_preset(p))
        for err in broken:
            m.addAction(f"⚠ {err}").setEnabled(False)
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
        return AppState().replace(**{pid: p.state for pid, p in self.panels.items() if pid in PANEL_STATES})

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
        self._set_scene(preset)
        if preset.panel in self.docks:
            self.show_panel(preset.panel)
        self._status(f"Loaded “{preset.title}”")
        return True

    def load_preset_file(self, path: str | Path) -> bool:
        """Load a preset file: everything or (with a clear message) nothing."""
        try:
            preset = load_preset(path)
        except PresetError as exc:
            self.show_error("Preset not loaded", f"{exc}\n\nNothing was changed.")
            return False
        return self.apply_preset(preset)

    def _set_scene(self, preset: Preset | None) -> None:
        self._scene = preset
        if preset is None or not (preset.description or preset.builtin):
            self.scene_bar.hide()
            self.setWindowTitle(DEFAULT_TITLE if preset is None else f"PE Explorer — {preset.title}")
            return
        self.scene_title.setText(preset.title)
        self.scene_text.setText(preset.description)
        self.scene_bar.show()
        self.setWindowTitle(f"PE Explorer — {preset.title}")

    def reset_current_panel(self) -> None:
        pid = self.current_panel_id()
        panel = self.panels[pid]
        if self.undo.set_states({pid: panel.state_cls()}, f"Reset {self.titles.get(pid, pid)}"):
            self._status(f"{self.titles.get(pid, pid)}: back to the defaults (Ctrl+Z to undo)")

    def reset_all_panels(self) -> None:
        if self.set_app_state(AppState(), "Reset all panels"):
            self._status("All panels back to the defaults (Ctrl+Z to undo)")

    def session_path(self) -> Path:
        return config_dir() / SESSION_FILE

    def save_session(self) -> None:
        scene = self._scene
        save_preset(
            self.session_path(),
            self.app_state(),
            title=scene.title if scene else "",
            description=scene.description if scene else "",
            panel=self.current_panel_id(),
        )

    def restore_session(self) -> bool:
        """Load the parameters saved when the app last closed (not an undo step)."""
        path = self.session_path()
        if not path.is_file():
            return False
        try:
            preset = load_preset(path)
        except PresetError as exc:
            self._status(f"Last session not restored: {exc}", 15000)
            return False
        try:
            self.undo.set_states(
                {pid: preset.state.get(pid) for pid in self.panels if pid in PANEL_STATES}, "Restore session"
            )
        except Exception as exc:  # noqa: BLE001 - start with defaults rather than not at all
            self._status(f"Last session not restored: {exc}", 15000)
            return False
        self.undo.clear()
        if preset.title:
            self._scene = Preset(
                preset.title, preset.title, preset.description, preset.state, preset.panel, False
            )
            self.scene_title.setText(preset.title)
            self.scene_text.setText(preset.description)
            self.setWindowTitle(f"PE Explorer — {preset.title}")
        if preset.panel in self.docks:
            self.show_panel(preset.panel)
        return True

    # -- dialogs (small methods so tests can replace them) ---------------------------------------
    def show_error(self, title: str, message: str) -> None:
        QMessageBox.warning(self, title, message)

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
        try:
            path = save_user_preset(
                title, self.app_state(), description=description, panel=self.current_panel_id()
            )
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
            save_preset(
                path, self.app_state(), title=Path(path).stem.replace("_", " "), panel=self.current_panel_id()
            )
        except PresetError as exc:
            self.show_error("Preset not saved", str(exc))
            return False
        self._status(f"Saved {path}")
        return True

    def open_presets_folder(self) -> None:
        folder = user_dir()
        folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
