"""The look of the window: base theme, presenter mode, grey-scale-safe maps, text zoom, full screen.

:class:`LookMixin` is the part of :class:`explorer.main_window.MainWindow` that owns the look: it
keeps the choices, saves and restores them with the window settings, styles the window's own
widgets, and hands the resulting :class:`~explorer.theme.Theme` to the theme bus
(:mod:`explorer.widgets.theming`), which restyles every panel and every plot, shown or hidden.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QMenu

from . import export as ex
from .theme import BASE_THEMES, ZOOM_STEPS, Theme, screen_theme
from .widgets.styling import style_widgets
from .widgets.theming import theme_bus


class LookMixin:
    """Theme, presenter mode, colour maps and zoom of the main window (needs ``_status`` and the
    look actions that :class:`explorer.actions.ActionsMixin` builds)."""

    def _init_look(self) -> None:
        self._base_theme = "light"
        self._presenter = False
        self._safe_maps = False
        self._zoom = 1.0
        self._base_font = QFont(QApplication.font())
        self._theme: Theme = screen_theme()

    def _restore_look(self, s: dict) -> None:
        """Take the look from the saved settings ``s`` (:func:`explorer.settings.load_settings`: each
        value is of its kind already; a theme that does not exist or a zoom out of range is not used)."""
        base = s.get("view/theme", "light")
        self._base_theme = base if base in BASE_THEMES else "light"
        self._presenter = bool(s.get("view/presenter", False))
        self._safe_maps = bool(s.get("view/safe_maps", False))
        zoom = s.get("view/zoom", 1.0)
        if not isinstance(zoom, float) or not math.isfinite(zoom):  # never NaN: min/max would keep it
            zoom = 1.0
        self._zoom = min(max(zoom, ZOOM_STEPS[0]), ZOOM_STEPS[-1])
        self._sync_look_actions()

    def _look_settings(self) -> dict:
        """The look, as :func:`explorer.settings.save_settings` keeps it."""
        return {
            "view/theme": self._base_theme,
            "view/presenter": self._presenter,
            "view/safe_maps": self._safe_maps,
            "view/zoom": float(self._zoom),
        }

    @property
    def theme(self) -> Theme:
        return self._theme

    @property
    def presenter(self) -> bool:
        return self._presenter

    @property
    def zoom(self) -> float:
        return self._zoom

    @property
    def _ui_pt(self) -> float:
        pt = self._base_font.pointSizeF()
        return pt if pt > 0 else 10.0

    def look(self) -> ex.Look:
        return ex.Look(self._theme, self._zoom, self._ui_pt)

    def apply_look(self) -> None:
        """Apply the theme, presenter mode and zoom to the window, every panel and every plot.

        The window's widgets are styled here; the panels (``apply_theme``) and every plot — on
        every tab, shown or hidden — follow the theme bus's ``themeChanged`` by themselves.
        """
        theme = screen_theme(self._base_theme, presenter=self._presenter, safe_maps=self._safe_maps)
        self._theme = theme
        style_widgets(self, theme, ui_pt=self._ui_pt, zoom=self._zoom)
        for menu in self.findChildren(QMenu):  # pop-up menus are windows: fonts do not reach them
            menu.setFont(self.font())
        theme_bus().set_look(theme, self._zoom)
        self._sync_look_actions()
        self.themeChanged.emit(theme)

    def _sync_look_actions(self) -> None:
        for act, on in (
            (self.act_presenter, self._presenter),
            (self.act_dark, self._base_theme == "dark"),
            (self.act_safe_maps, self._safe_maps),
        ):
            with QSignalBlocker(act):
                act.setChecked(on)
        for name, act in self.theme_actions.items():
            act.setChecked(name == self._base_theme)

    def set_presenter(self, on: bool) -> None:
        on = bool(on)
        if on == self._presenter:
            self._sync_look_actions()
            return
        self._presenter = on
        self.apply_look()
        self._status("Presenter mode on — F5 to leave, F11 for full screen" if on else "Presenter mode off")

    def toggle_presenter(self) -> None:
        self.set_presenter(not self._presenter)

    def set_base_theme(self, name: str) -> None:
        if name not in BASE_THEMES:
            raise ValueError(f"unknown theme {name!r}; valid: {', '.join(BASE_THEMES)}")
        self._base_theme = name
        self.apply_look()

    def set_safe_maps(self, on: bool) -> None:
        self._safe_maps = bool(on)
        self.apply_look()

    def set_zoom(self, zoom: float) -> None:
        zoom = float(zoom)
        self._zoom = min(max(zoom if math.isfinite(zoom) else 1.0, ZOOM_STEPS[0]), ZOOM_STEPS[-1])
        self.apply_look()
        self._status(f"Text size {self._zoom:.0%}")

    def zoom_in(self) -> None:
        bigger = [z for z in ZOOM_STEPS if z > self._zoom + 1e-9]
        self.set_zoom(bigger[0] if bigger else ZOOM_STEPS[-1])

    def zoom_out(self) -> None:
        smaller = [z for z in ZOOM_STEPS if z < self._zoom - 1e-9]
        self.set_zoom(smaller[-1] if smaller else ZOOM_STEPS[0])

    def zoom_reset(self) -> None:
        self.set_zoom(1.0)

    def set_full_screen(self, on: bool) -> None:
        if on:
            self.showFullScreen()
        else:
            self.showNormal()
        self.act_leave_fullscreen.setEnabled(bool(on))
        with QSignalBlocker(self.act_fullscreen):
            self.act_fullscreen.setChecked(bool(on))
