"""The current look, and views that style themselves from it.

One :class:`ThemeBus` per process holds the current :class:`~explorer.theme.Theme` and text zoom
(:func:`theme_bus`, :func:`current_theme`).  The main window sets it (:meth:`ThemeBus.set_look`);
panels and views read it.  A view made by :func:`explorer.widgets.plots.make_plot` (or handed to
:func:`adopt_plot`) is registered here, and then

* is styled at once for the current theme;
* styles every item as it is added to one of its view boxes (``PlotItem.addItem``, ``plot()``,
  ``ViewBox.addItem``), every legend entry as it is added, and re-styles an item when its panel
  changes a pen, a colour, a font, a colour map, a title or an axis label (the item's setter is
  wrapped for that instance: the panel's value becomes the item's *base*, see
  :mod:`explorer.widgets.styling`);
* is restyled, all of it, on :attr:`ThemeBus.themeChanged` — shown or hidden, on every tab;
* gets one "Export" submenu in its right-click menu, filled when opened by whichever export
  controller claims the view (:meth:`ThemeBus.add_menu_provider`).

So nothing walks scenes after a draw.  The API a view uses when it creates an item: nothing beyond
adding it to its plot; :func:`current_theme` gives the theme for anything it colours by hand
(HTML, custom painting), and a panel's ``apply_theme(theme)`` is called on every theme change.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMenu

from ..theme import LIGHT, Theme
from . import styling
from .titles import fit_title

#: pen-like keyword arguments of setData: a change of pen re-styles the item.
_PEN_KWARGS = frozenset(("pen", "symbolPen", "symbolSize", "shadowPen"))


class ThemeBus(QObject):
    """The current theme and zoom, the views that follow them, and ``themeChanged``."""

    #: The look changed (the new :class:`~explorer.theme.Theme`); emitted on every :meth:`set_look`.
    themeChanged = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._theme: Theme = LIGHT
        self._zoom = 1.0
        self._views: weakref.WeakSet = weakref.WeakSet()
        self._providers: list[Callable] = []
        self._fonts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    # -- the look ---------------------------------------------------------------------------------
    @property
    def theme(self) -> Theme:
        return self._theme

    @property
    def zoom(self) -> float:
        return self._zoom

    def set_look(self, theme: Theme, zoom: float = 1.0) -> None:
        """Make ``theme`` (at text ``zoom``) current: listeners first (panels' ``apply_theme``, which
        may set base pens), then every registered view, then it is done."""
        self._theme = theme
        self._zoom = float(zoom)
        self.themeChanged.emit(theme)
        for widget, base_pt in list(self._fonts.items()):
            self._size_font(widget, base_pt)
        self.restyle_all()

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

    def restyle_all(self) -> None:
        for view in list(self._views):
            if not shiboken6.isValid(view):
                continue
            top = view.window()
            if top.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide) and top.isHidden():
                # A window (or a plot of its own) that was shown and then closed: it will not be seen
                # again (a new window styles its own plots), and its items may already be on their way out.
                continue
            self.restyle(view)

    def restyle(self, view, theme: Theme | None = None, *, pen_scale: float = 1.0) -> None:
        """Style ``view`` and all its items for ``theme`` (default: the current one)."""
        if not shiboken6.isValid(view):
            return
        styling.style_plot(view, theme or self._theme, zoom=self._zoom, pen_scale=pen_scale)

    def views(self) -> list:
        """The registered views that are still alive."""
        return [v for v in self._views if shiboken6.isValid(v)]

    # -- views ------------------------------------------------------------------------------------
    def register(self, view) -> None:
        """Make ``view`` (a pyqtgraph GraphicsView) follow the theme; idempotent."""
        if view in self._views:
            return
        self._views.add(view)
        scene = view.scene()
        for item in scene.items() if scene is not None else ():
            _hook_item(item)
        for vb in _view_boxes(view):
            _install_export_menu(view, vb)
        self.restyle(view)

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


def adopt_plot(view, title: str = "", *, x: str = "", y: str = "", grid: bool = True,
               si_prefix: bool = False, buttons: bool = True):
    """Give an existing pyqtgraph view the house look and make it follow the theme.

    The common set-up (title, axis labels, a light grid, SI prefixes off, the "A" button kept or
    hidden) happens once here; sizes and colours come from the current theme and follow it.
    Returns the view.
    """
    from .plots import configure_pyqtgraph

    configure_pyqtgraph()
    pi = view.getPlotItem() if hasattr(view, "getPlotItem") else None
    if pi is not None:
        if title:
            pi.setTitle(title)
        for name, text in (("bottom", x), ("left", y)):
            axis = pi.getAxis(name)
            if not si_prefix:
                axis.enableAutoSIPrefix(False)  # "(x0.001)" on a log axis reads as a different quantity
            if text:
                pi.setLabel(name, text)
        if grid:
            pi.showGrid(x=True, y=True, alpha=0.2)
        if not buttons:
            pi.hideButtons()  # the "A" auto-range button would jump away from a requested range
        from .pointer import auto_pointer

        auto_pointer(view)  # presenter mode: the value under the cursor, large, on every plot
    theme_bus().register(view)
    return view


def adopt_item(item) -> None:
    """Style ``item`` and its children now and follow its panel's later changes (for items put into
    a plot some other way than ``addItem``, e.g. a legend parented by hand)."""
    _style_now(item, tree=True, force=True)


# -- the hooks ---------------------------------------------------------------------------------------
def _guarded(fn) -> None:
    if styling.styling_active():
        return
    with styling.styling_now():
        fn()


def _style_now(item, *, force: bool = False, tree: bool = False) -> None:
    bus = theme_bus()

    def run():
        if tree:
            for it in _walk(item):
                _hook_item(it)
                styling.style_item(it, bus.theme, zoom=bus.zoom, force=force)
        else:
            styling.style_item(item, bus.theme, zoom=bus.zoom, force=force)

    _guarded(run)


def _walk(item):
    stack = [item]
    while stack:
        it = stack.pop()
        yield it
        stack.extend(it.childItems())


def _wrap(item, name: str, after) -> None:
    """Call ``after(item, *args, **kwargs)`` after ``item.name(...)`` (this instance only)."""
    unbound = getattr(type(item), name)
    ref = weakref.ref(item)

    def wrapper(*args, **kwargs):
        obj = ref()
        out = unbound(obj, *args, **kwargs)
        if obj is not None and not styling.styling_active():
            after(obj, *args, **kwargs)
        return out

    setattr(item, name, wrapper)


def _restyle(item, *_a, **_k) -> None:
    _style_now(item, force=True)


def _added(_owner, item, *_a, **_k) -> None:
    _style_now(item, tree=True)


def _data_changed(item, *args, **kwargs) -> None:
    if _PEN_KWARGS.intersection(kwargs):
        _style_now(item, force=True)


def _text_font(item, font, *_a, **_k) -> None:
    from PySide6.QtGui import QFont

    styling.rebase_font(item, QFont(font))
    _style_now(item, force=True)


def _legend_added(legend, *_a, **_k) -> None:
    _style_now(legend, tree=True, force=True)


def _legend_made(plot_item, *_a, **_k) -> None:
    legend = plot_item.legend
    if legend is not None:
        _hook_item(legend)
        _style_now(legend, tree=True, force=True)


_HOOKS = (
    (pg.ColorBarItem, (("setColorMap", _restyle),)),
    (pg.PlotItem, (("setTitle", _restyle), ("addLegend", _legend_made))),
    (pg.ViewBox, (("addItem", _added),)),
    (pg.AxisItem, (("setLabel", _restyle),)),
    (pg.LegendItem, (("addItem", _legend_added),)),
    (pg.TextItem, (("setColor", _restyle), ("setFont", _text_font))),
    (pg.PlotDataItem, (("setPen", _restyle), ("setSymbolPen", _restyle), ("setSymbolSize", _restyle),
                       ("setData", _data_changed))),
    (pg.PlotCurveItem, (("setPen", _restyle), ("setData", _data_changed))),
    (pg.InfiniteLine, (("setPen", _restyle),)),
    (pg.ScatterPlotItem, (("setPen", _restyle), ("setBrush", _restyle))),
    (pg.ImageItem, (("setColorMap", _restyle),)),
)


def _hook_item(item) -> None:
    """Wrap the setters of ``item`` that change what the theme styles (once per item)."""
    d = item.__dict__
    if d.get("_pe_hooked"):
        return
    d["_pe_hooked"] = True
    if isinstance(item, pg.PlotItem):
        fit_title(item)  # a long title is elided, never pushing the plot past its widget
    for cls, methods in _HOOKS:
        if isinstance(item, cls):
            for name, after in methods:
                _wrap(item, name, after)
            break


def _view_boxes(view) -> list:
    if hasattr(view, "getPlotItem"):
        return [view.getPlotItem().getViewBox()]
    scene = view.scene()
    return [it for it in scene.items() if isinstance(it, pg.ViewBox)] if scene is not None else []


def _install_export_menu(view, vb) -> None:
    """One "Export" submenu in ``vb``'s right-click menu, filled when it opens."""
    menu = getattr(vb, "menu", None)
    if menu is None or vb.__dict__.get("_pe_export_menu") is not None:
        return
    sub = QMenu("E&xport", menu)
    sub.setObjectName("peExportMenu")
    sub.setToolTipsVisible(True)
    ref = weakref.ref(view)
    sub.aboutToShow.connect(lambda: ref() is not None and theme_bus().fill_export_menu(ref(), sub))
    menu.addSeparator()
    menu.addMenu(sub)
    vb.__dict__["_pe_export_menu"] = sub
