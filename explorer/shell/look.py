"""The look of the window: base theme, presenter mode, grey-scale-safe maps, text zoom, full screen.

:class:`Look` keeps the choices, saves and restores them with the window settings, styles the window's own
widgets, and hands the resulting :class:`~explorer.theme.Theme` to the theme bus
(:mod:`explorer.widgets.theming`), which restyles every panel and every plot, shown or hidden.  It says
:attr:`Look.changed` after each change; the actions that show the choices follow it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu

from .. import export as ex
from ..theme import BASE_THEMES, ZOOM_STEPS, Theme, screen_theme
from ..widgets.styling import style_widgets
from ..widgets.theming import theme_bus


class Look(QObject):
    """Theme, presenter mode, colour maps, zoom and full screen of ``window``; ``status`` shows a line."""

    #: The look changed (the new :class:`~explorer.theme.Theme`), after the window and the theme bus took it.
    changed = Signal(object)
    #: Full screen was entered or left.
    fullScreenChanged = Signal(bool)

    def __init__(self, window: QMainWindow, status: Callable[..., None]) -> None:
        super().__init__(window)
        self._window = window
        self._status = status
        self.base_theme = "light"
        self.presenter = False
        self.safe_maps = False
        self.zoom = 1.0
        self._base_font = QFont(QApplication.font())
        self.theme: Theme = screen_theme()

    # -- settings --------------------------------------------------------------------------------------
    def restore(self, s: dict) -> None:
        """Take the look from the saved settings ``s`` (:func:`explorer.settings.load_settings`: each value is of
        its kind already; a theme that does not exist or a zoom out of range is not used)."""
        base = s.get("view/theme", "light")
        self.base_theme = base if base in BASE_THEMES else "light"
        self.presenter = bool(s.get("view/presenter", False))
        self.safe_maps = bool(s.get("view/safe_maps", False))
        zoom = s.get("view/zoom", 1.0)
        if not isinstance(zoom, float) or not math.isfinite(zoom):  # never NaN: min/max would keep it
            zoom = 1.0
        self.zoom = min(max(zoom, ZOOM_STEPS[0]), ZOOM_STEPS[-1])

    def settings(self) -> dict:
        """The look, as :func:`explorer.settings.save_settings` keeps it."""
        return {"view/theme": self.base_theme, "view/presenter": self.presenter,
                "view/safe_maps": self.safe_maps, "view/zoom": float(self.zoom)}

    @property
    def ui_pt(self) -> float:
        """The point size of the window's text at 100 % (the zoom and presenter mode scale it)."""
        pt = self._base_font.pointSizeF()
        return pt if pt > 0 else 10.0

    def screen_look(self) -> ex.Look:
        """What exports need to know of the screen's look."""
        return ex.Look(self.theme, self.zoom, self.ui_pt)

    # -- applying --------------------------------------------------------------------------------------
    def apply(self) -> None:
        """Apply the theme, presenter mode and zoom to the window, every panel and every plot.

        The window's widgets are styled here; the panels (``apply_theme``) and every plot — on every tab,
        shown or hidden — follow the theme bus's ``themeChanged`` by themselves.
        """
        theme = screen_theme(self.base_theme, presenter=self.presenter, safe_maps=self.safe_maps)
        self.theme = theme
        style_widgets(self._window, theme, ui_pt=self.ui_pt, zoom=self.zoom)
        for menu in self._window.findChildren(QMenu):  # pop-up menus are windows: fonts do not reach them
            menu.setFont(self._window.font())
        theme_bus().set_look(theme, self.zoom)
        self.changed.emit(theme)

    def set_presenter(self, on: bool) -> None:
        on = bool(on)
        if on == self.presenter:
            self.changed.emit(self.theme)  # the actions show it again
            return
        self.presenter = on
        self.apply()
        self._status("Presenter mode on — F5 to leave, F10 for the menus, F11 for full screen" if on
                     else "Presenter mode off")

    def toggle_presenter(self) -> None:
        self.set_presenter(not self.presenter)

    def set_base_theme(self, name: str) -> None:
        if name not in BASE_THEMES:
            raise ValueError(f"unknown theme {name!r}; valid: {', '.join(BASE_THEMES)}")
        self.base_theme = name
        self.apply()

    def set_dark(self, on: bool) -> None:
        self.set_base_theme("dark" if on else "light")

    def set_safe_maps(self, on: bool) -> None:
        self.safe_maps = bool(on)
        self.apply()

    def set_zoom(self, zoom: float) -> None:
        zoom = float(zoom)
        self.zoom = min(max(zoom if math.isfinite(zoom) else 1.0, ZOOM_STEPS[0]), ZOOM_STEPS[-1])
        self.apply()
        self._status(f"Text size {self.zoom:.0%}")

    def zoom_in(self) -> None:
        bigger = [z for z in ZOOM_STEPS if z > self.zoom + 1e-9]
        self.set_zoom(bigger[0] if bigger else ZOOM_STEPS[-1])

    def zoom_out(self) -> None:
        smaller = [z for z in ZOOM_STEPS if z < self.zoom - 1e-9]
        self.set_zoom(smaller[-1] if smaller else ZOOM_STEPS[0])

    def zoom_reset(self) -> None:
        self.set_zoom(1.0)

    def set_full_screen(self, on: bool) -> None:
        if on:
            self._window.showFullScreen()
        else:
            self._window.showNormal()
        self.fullScreenChanged.emit(bool(on))
