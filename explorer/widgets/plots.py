"""pyqtgraph set-up done once, and the app's plot: :class:`Plot` (and :class:`Heatmap` on it).

A :class:`Plot` is built with the app's own pieces: its axes are :class:`~explorer.widgets.axis.Axis` (passed
to the plot item as ``axisItems``), its title a :class:`~explorer.widgets.titles.TitleLabel`, its items kept by
a :class:`~explorer.widgets.styler.Styler`; it carries the "Export" submenu and the presenter pointer readout
from its constructor, and restyles itself — background, axes, title and every item it holds — in one
:meth:`Plot.restyle`, on the theme's ``themeChanged`` (shown or hidden) and around an export.  A view gives
its items light-theme pens when it makes them and adds them to the plot; a pen it changes later goes
through ``plot.styler`` (``set_pen``, ``set_text_colour`` …).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QLabel, QMenu, QSizePolicy

from ..theme import Theme
from .annotation_place import AnnotationPlacer
from .axis import app_axes
from .frame_probe import timed
from .image import ImageItem
from .legend_place import LegendPlacer
from .plain import shorten
from .pointer import PointerReadout, reading
from .renderer import ENV as RENDERER_ENV
from .renderer import use_renderer
from .styler import Styler
from .theming import theme_bus
from .titles import TitleLabel, full_title

_configured = False

#: A perceptually uniform diverging map for signed values (readable for colour-blind viewers,
#: and its lightness still orders values in grey-scale print).
DIVERGING = "CET-D1A"
#: Sequential map for non-negative values.
SEQUENTIAL = "viridis"


#: Why OpenGL was asked for (``$PE_EXPLORER_RENDERER``) and not used (None: it was not asked for, or it is used).
renderer_problem: str | None = None


def configure_pyqtgraph() -> None:
    """Global pyqtgraph options: row-major images (arrays are positions × dimensions), antialiasing, and the
    renderer of the plots made from now on (:mod:`explorer.widgets.renderer`, ``$PE_EXPLORER_RENDERER``)."""
    global _configured, renderer_problem
    if _configured:
        return
    pg.setConfigOptions(imageAxisOrder="row-major", antialias=True, background="w", foreground="k")
    _configured = True
    try:
        renderer_problem = use_renderer()[1]
    except ValueError as exc:  # a misspelt $PE_EXPLORER_RENDERER: said, and raster
        use_renderer("raster")
        renderer_problem = f"${RENDERER_ENV}: {exc}"


def colormap(name: str = DIVERGING) -> pg.ColorMap:
    return pg.colormap.get(name)


class AppPlotItem(pg.PlotItem):
    """The plot item of a :class:`Plot`: the app's axes and title, and every item added kept by ``styler``."""

    titleLabel: pg.LabelItem  # noqa: N815 - pyqtgraph's name (a TitleLabel here)
    legend: pg.LegendItem | None

    def __init__(self, styler: Styler, axis_items: dict | None = None, **kwargs) -> None:
        self.styler = styler
        #: Keeps the view's texts inside it, off the data and apart (made with the first text).
        self.annotations: AnnotationPlacer | None = None
        self.legend_placer: LegendPlacer | None = None
        self._ready = False
        super().__init__(axisItems=app_axes(axis_items), **kwargs)
        for name in ("top", "right"):  # pyqtgraph shows every axis it is given
            if name not in (axis_items or {}):
                self.hideAxis(name)
        # The title over the whole width (axis included), not only over the data column; never wider than it.
        self.layout.removeItem(self.titleLabel)
        self.titleLabel.setParentItem(None)
        self.titleLabel = TitleLabel(parent=self)
        self.layout.addItem(self.titleLabel, 0, 0, 1, 3)  # left axis, data, right axis: not a colour bar
        self.setTitle(None)
        self._ready = True
        for name in ("left", "bottom", "right", "top"):
            styler.adopt(self.getAxis(name))

    def addItem(self, item, *args, in_legend: bool = True, **kwargs) -> None:  # noqa: N802 - pyqtgraph API
        """pyqtgraph's, the item kept by the styler; ``in_legend=False``: a named curve with no legend row (the
        plot's legend lists every named curve it is given)."""
        super().addItem(item, *args, **kwargs)
        if not in_legend and self.legend is not None:
            self.legend.removeItem(item)
        self.styler.adopt(item)
        if self.annotations is None and isinstance(item, (pg.TextItem, pg.InfiniteLine)):
            self.annotations = AnnotationPlacer(self)
        if self.annotations is not None:
            self.annotations.schedule()

    def addLegend(self, offset=(30, 30), *, under: bool = False, **kwargs):  # noqa: N802 - pyqtgraph API
        """The plot's legend, kept off the data by a :class:`~explorer.widgets.legend_place.LegendPlacer`;
        ``under``: always under the plot, shown while it has entries and fits."""
        legend = self.legend
        if legend is None:  # placed by the placer, not anchored to the corner ``offset`` names
            legend = pg.LegendItem(offset=None, **kwargs)
            legend.setParentItem(self.vb)
            self.legend = legend
        self.styler.adopt(legend)
        if self.legend_placer is None or self.legend_placer.legend is not legend:
            self.legend_placer = LegendPlacer(self, legend, offset, under=under)
        return legend

    def setAxisItems(self, axisItems=None) -> None:  # noqa: N802,N803 - pyqtgraph API
        super().setAxisItems(axisItems)
        if self._ready:
            for axis in (axisItems or {}).values():
                self.styler.adopt(axis)


class ColourBar(pg.ColorBarItem):
    """pyqtgraph's colour bar on the app's axes (its label shrinks to fit, like every axis label)."""

    def setAxisItems(self, axisItems=None) -> None:  # noqa: N802,N803 - pyqtgraph API
        super().setAxisItems(app_axes(axisItems))


class Plot(pg.PlotWidget):
    """The app's plot widget (see the module).

    Parameters
    ----------
    title, x, y : str
        The title and the bottom and left axis labels.
    grid : bool
        A light grid.
    si_prefix : bool
        Keep pyqtgraph's SI prefixes on the axes (off by default: "(x0.001)" on a log axis reads as a
        different quantity).
    buttons : bool
        Keep the "A" auto-range button (off where it would jump away from a requested range).
    axis_items : dict
        Custom axes by name (e.g. token axes); the rest are :class:`~explorer.widgets.axis.Axis`.
    plot_item : pyqtgraph.PlotItem
        An existing plot item to show instead (a colour bar of its own).
    """

    #: The key that names this plot's items when it sits outside the plot (a label above it in the panel): a
    #: function giving its rich text, set by the view.  A picture of this plot alone draws it under the plot.
    export_key = None

    def __init__(self, title: str = "", *, x: str = "", y: str = "", grid: bool = True, si_prefix: bool = False,
                 buttons: bool = True, axis_items: dict | None = None, plot_item=None, parent=None) -> None:
        configure_pyqtgraph()
        bus = theme_bus()
        self.styler = Styler(bus.theme, bus.zoom)
        item = AppPlotItem(self.styler, axis_items) if plot_item is None else plot_item
        super().__init__(parent=parent, plotItem=item)
        self._background = ""
        self._pointer: PointerReadout | None = None
        #: The view's own hover code points on this plot (the default readout keeps out of its way).
        self.hover_owned = False
        pi = self.getPlotItem()
        if plot_item is None:
            self._set_up(pi, title, x, y, grid, si_prefix, buttons)
        else:
            self.styler.adopt(plot_item)
        self.export_menu = self._add_export_menu(pi.getViewBox())
        # pyqtgraph's own "Export..." dialog painted the plot without the export's look and theme, and from the pictures
        # kept of its axes and titles (images in its SVG): the app's Export submenu is the one.
        self.scene().contextMenu = []
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        bus.themeChanged.connect(self._on_theme_changed)
        self.restyle()

    def _set_up(self, pi, title, x, y, grid, si_prefix, buttons) -> None:
        if title:
            pi.setTitle(title)
        for name, text in (("bottom", x), ("left", y)):
            if not si_prefix:
                pi.getAxis(name).enableAutoSIPrefix(False)
            if text:
                pi.setLabel(name, text)
        if grid:
            pi.showGrid(x=True, y=True, alpha=0.2)
        if not buttons:
            pi.hideButtons()  # the "A" auto-range button would jump away from a requested range

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        # The viewport's paint: the scene's repaint, which the bench times per plot (nothing more when off).
        timed("plot", self, super().paintEvent, event)
        # What the paint shows may have moved under the plot's texts and legend: they look again (at most every
        # EVERY_MS while changes keep coming; nothing to do when nothing they depend on changed).
        self._schedule_placers()

    def prepare_paint(self) -> None:
        """Do now what pyqtgraph does first at the paint (``GraphicsScene.prepareForPaint``: a view box's new range,
        and with it the transforms of the texts on its lines): done at the paint, it marks items dirty after Qt has
        processed the scene's changes, and Qt processes the scene and paints the plot a second time (the Waves
        spectrum at each drag step that grows its range).  Call it where a draw may change a range."""
        scene = self.scene()
        if scene is not None:
            scene.prepareForPaint()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._schedule_placers()  # a plot shown again: its texts placed for what changed while it was hidden

    def _schedule_placers(self) -> None:
        pi = self.getPlotItem()
        for placer in (getattr(pi, "annotations", None), getattr(pi, "legend_placer", None)):
            if placer is not None:
                placer.schedule()

    # -- the look ---------------------------------------------------------------------------------
    def restyle(self, theme: Theme | None = None, zoom: float | None = None, *, pen_scale: float = 1.0) -> None:
        """Style the plot and every item it holds for ``theme`` at ``zoom`` (default: the current look);
        ``pen_scale`` multiplies line widths (an export at 2× or 4×).  Cheap when nothing changed."""
        bus = theme_bus()
        theme = theme or bus.theme
        zoom = bus.zoom if zoom is None else zoom
        if self._background != theme.background:
            self.setBackground(theme.background)
            self._background = theme.background
        title = getattr(self.getPlotItem(), "titleLabel", None)
        if isinstance(title, TitleLabel):
            title.set_look(theme, zoom)
        self.styler.restyle(theme, zoom, pen_scale)

    def _on_theme_changed(self, _theme) -> None:
        if not shiboken6.isValid(self):
            return
        top = self.window()
        if top.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide) and top.isHidden():
            # A window (or a plot of its own) that was shown and then closed: it will not be seen again,
            # and its items may already be on their way out.
            return
        self.restyle()

    # -- the view's own helpers -------------------------------------------------------------------
    def title(self) -> str:
        """The whole title (the plot may show it elided)."""
        return full_title(self.getPlotItem())

    def set_title(self, text: str) -> None:
        """Show ``text`` as the title unless it already is (a new title lays the plot out again)."""
        if self.title() != text:
            self.getPlotItem().setTitle(text)

    def add_colour_bar(self, image, values, cmap, *, width: int = 14, label: str | None = None) -> ColourBar:
        """A fixed-level colour bar beside the plot driving ``image`` (an ImageItem or a list of them)."""
        bar = ColourBar(values=values, colorMap=colormap(cmap) if isinstance(cmap, str) else cmap,
                        interactive=False, width=width, label=label)
        bar.setImageItem(image, insert_in=self.getPlotItem())
        self.styler.adopt(bar)
        return bar

    # -- the export menu and the pointer ------------------------------------------------------------
    def _add_export_menu(self, vb) -> QMenu | None:
        """One "Export" submenu in the right-click menu, filled when it opens by whichever export controller
        claims the plot."""
        menu = getattr(vb, "menu", None)
        if menu is None:
            return None
        sub = QMenu("E&xport", menu)
        sub.setObjectName("peExportMenu")
        sub.setToolTipsVisible(True)
        sub.aboutToShow.connect(self._on_export_menu_about_to_show)
        menu.addSeparator()
        menu.addMenu(sub)
        return sub

    def _on_export_menu_about_to_show(self) -> None:
        menu = self.export_menu
        if menu is not None:  # it is: this is its aboutToShow
            theme_bus().fill_export_menu(self, menu)

    @property
    def pointer(self) -> PointerReadout | None:
        """The presenter readout, once made (None before)."""
        return self._pointer

    def own_pointer(self) -> PointerReadout:
        """The presenter readout, for the view's own hover code (the default readout leaves the plot to it)."""
        self.hover_owned = True
        return self._make_pointer()

    def setViewport(self, widget) -> None:  # noqa: N802 - Qt override
        """A new viewport (the renderer switched, an export's raster for a GL plot) keeps the presenter readout's
        event filter."""
        super().setViewport(widget)
        pointer = getattr(self, "_pointer", None)  # (pyqtgraph sets the first viewport before our __init__ runs)
        if pointer is not None and shiboken6.isValid(pointer):
            self.viewport().installEventFilter(pointer)

    def _make_pointer(self) -> PointerReadout:
        if self._pointer is None or not shiboken6.isValid(self._pointer):
            self._pointer = PointerReadout(self)
        return self._pointer

    def _on_mouse_moved(self, scene_pos) -> None:
        """The default presenter readout: the nearest curve point or the image cell under the cursor."""
        if self.hover_owned or not theme_bus().theme.high_contrast:
            return
        text, at = reading(self, QPointF(scene_pos))
        if self._pointer is None and not text:
            return
        pointer = self._make_pointer()
        if text:
            pointer.show_at(at, text)
        else:
            pointer.hide()


def make_plot(title: str = "", *, x: str = "", y: str = "", grid: bool = True, parent=None,
              plot_item=None) -> Plot:
    """A :class:`Plot` with labelled axes, a light grid and the menu kept (export lives there).

    ``plot_item`` puts an existing PlotItem (e.g. a colour bar) in the widget.
    """
    return Plot(title, x=x, y=y, grid=grid, parent=parent, plot_item=plot_item)


class Heatmap(Plot):
    """An ImageItem with a fixed-level colour bar, for matrices (rows = y, columns = x)."""

    def __init__(self, title: str = "", *, x: str = "", y: str = "", levels=(-1.0, 1.0), cmap: str = DIVERGING,
                 parent=None, axis_items: dict | None = None) -> None:
        super().__init__(title, x=x, y=y, grid=False, axis_items=axis_items, parent=parent)
        pi = self.getPlotItem()
        pi.invertY(True)
        self.image = ImageItem(axisOrder="row-major")
        self._rect_shown: tuple | None = None  # (rect, the image's shape) the image was last scaled to
        self.image.setAutoDownsample(True)
        pi.addItem(self.image)
        self.colorbar = self.add_colour_bar(self.image, levels, cmap)

    def set_matrix(self, data: np.ndarray, rect=None, levels=None) -> None:
        """Show ``data`` (NaN cells are drawn transparent); ``rect`` = (x, y, w, h) in data units."""
        from .plot_data import set_image

        set_image(self.image, data, autoLevels=False)  # drawn in float32, exported in float64
        if levels is not None and tuple(float(v) for v in levels) != tuple(self.colorbar.levels()):
            self.colorbar.setLevels(levels)  # (the same levels again would lay the bar's axis out again)
        # pyqtgraph scales the image to the rect from the image's own size: the same rect over a new shape is set again.
        shape = None if self.image.image is None else self.image.image.shape
        if rect is not None and (tuple(rect), shape) != self._rect_shown:
            self._rect_shown = (tuple(rect), shape)
            self.image.setRect(*rect)


class Banner(QLabel):
    """A red strip at the top of a panel that shows the last error; hidden when all is well."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)  # errors echo what a file held
        self.setWordWrap(True)
        self.setStyleSheet("QLabel { background: #fde2e1; color: #8a1c14; padding: 6px; border-radius: 3px; }")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hide()

    def show_error(self, message: str) -> None:
        self.setText(shorten(message, 500))
        self.show()

    def clear_error(self) -> None:
        self.clear()
        self.hide()
