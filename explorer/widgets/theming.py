"""The current look: one :class:`ThemeBus` per process holds the theme and text zoom and says when they change.

The main window sets it (:meth:`ThemeBus.set_look`); every plot (:class:`explorer.widgets.plots.Plot`)
connects its own ``restyle`` to :attr:`ThemeBus.themeChanged` when it is made — shown or hidden, on every
tab — and a panel's ``apply_theme(theme)`` is called on the same signal for what lives outside its plots.
:func:`current_theme` gives the theme for anything a view colours by hand (HTML, custom painting).  The bus
also fills a plot's "Export" submenu through whichever export controller claims the plot
(:meth:`ThemeBus.add_menu_provider`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMenu

from ..theme import LIGHT, Theme


class ThemeBus(QObject):
    """The current theme and zoom, ``themeChanged``, fonts that follow them, and the export menus' providers."""

    #: The look changed (the new :class:`~explorer.theme.Theme`); emitted on every :meth:`set_look`.
    themeChanged = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._theme: Theme = LIGHT
        self._zoom = 1.0
        self._providers: list[Callable] = []
        self._fonts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    # -- the look ---------------------------------------------------------------------------------
    @property
    def theme(self) -> Theme:
        return self._theme

    @property
    def zoom(self) -> float:
        return self._zoom

    @property
    def text_scale(self) -> float:
        """How much larger than normal the text is drawn now (presenter's font scale × zoom, never below 1): what a
        view that sizes its plots by their text multiplies its widths by."""
        return max(1.0, self._theme.font_scale * self._zoom)

    def set_look(self, theme: Theme, zoom: float = 1.0) -> None:
        """Make ``theme`` (at text ``zoom``) current and say so: every plot and panel restyles itself."""
        self._theme = theme
        self._zoom = float(zoom)
        self.themeChanged.emit(theme)
        for widget, base_pt in list(self._fonts.items()):
            self._size_font(widget, base_pt)

    def follow_font(self, widget, base_pt: float) -> None:
        """Size ``widget``'s font at ``base_pt`` × the theme's font scale × zoom, now and on every
        change (a caption or readout under a plot, whose font is its own)."""
        self._fonts[widget] = float(base_pt)
        self._size_font(widget, base_pt)

    def _size_font(self, widget, base_pt: float) -> None:
        if not shiboken6.isValid(widget):
            return
        font = widget.font()
        pt = self._theme.point_size(base_pt, self._zoom)
        if font.pointSizeF() != pt:
            font.setPointSizeF(pt)
            widget.setFont(font)

    # -- export menus -----------------------------------------------------------------------------
    def add_menu_provider(self, provider: Callable) -> None:
        """``provider(view, menu) -> bool`` fills a plot's "Export" submenu when the view is its own.

        Kept as a weak method when it is one (a closed window's controller drops out by itself).
        """
        ref = weakref.WeakMethod(provider) if hasattr(provider, "__self__") else (lambda p=provider: p)
        self._providers.append(ref)

    def fill_export_menu(self, view, menu: QMenu) -> bool:
        menu.clear()
        alive = []
        done = False
        for ref in self._providers:
            fn = ref()
            owner = getattr(fn, "__self__", None)
            if fn is None or (isinstance(owner, QObject) and not shiboken6.isValid(owner)):
                continue  # its window has closed
            alive.append(ref)
            if not done and fn(view, menu):
                done = True
        self._providers = alive
        if not done:
            menu.addAction("(export is available in the app window)").setEnabled(False)
        return done


_bus: ThemeBus | None = None


def theme_bus() -> ThemeBus:
    """The process' theme holder (made on first use)."""
    global _bus
    if _bus is None or not shiboken6.isValid(_bus):
        _bus = ThemeBus()
    return _bus


def current_theme() -> Theme:
    """The theme views should draw with now."""
    return theme_bus().theme
