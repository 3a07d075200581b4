"""Pictures out of the app: PNG (1×/2×/4× or a width), SVG, the clipboard; names and atomic writes.

Everything here works on live widgets and plots on the UI thread and is used by the export menus,
the main window and the headless ``pe-explorer export`` command alike.

* A plot (one pyqtgraph view) goes through pyqtgraph's ``ImageExporter`` / ``SVGExporter``.
* A whole panel or the whole window is rendered with ``QWidget.render`` into an image whose
  device-pixel ratio is the export scale (text and vectors stay sharp), or into an SVG with
  ``QSvgGenerator``.
* While a picture is taken the plots are restyled for it — the print theme if asked for, and pen
  widths multiplied by the export scale (pyqtgraph's cosmetic pens stay one device pixel wide in a
  larger image, so a 4× export would otherwise have hair-thin lines) — and restored right after.
* Files are written atomically (:mod:`explorer.fileio`): a failed write leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..fileio import OutputError, atomic_write_bytes
from ..theme import LIGHT, Theme

#: The export scales offered in the menus.
SCALES = (1, 2, 4)
#: Largest image side we agree to render (a 16k × 10k RGBA image is already 640 MB).
MAX_SIDE = 16384
IMAGE_FORMATS = (".png", ".svg")


class ExportError(Exception):
    """An export could not be made; the message is for the user (one line)."""


@dataclass(frozen=True)
class Look:
    """How the screen looks now (so an export can restyle and then restore it).

    ``ui_pt`` is the base point size of the widgets' text before theme and zoom (the app font).
    """

    theme: Theme = LIGHT
    zoom: float = 1.0
    ui_pt: float = 0.0

    @property
    def base_pt(self) -> float:
        if self.ui_pt > 0:
            return self.ui_pt
        from PySide6.QtWidgets import QApplication

        pt = QApplication.font().pointSizeF()
        return pt if pt > 0 else 10.0


# -- names ---------------------------------------------------------------------------------------
def slug(text: str, limit: int = 40) -> str:
    """File-name-safe lower-case words joined by '-' ("Attention before" -> "attention-before")."""
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"[^0-9A-Za-z.]+", "-", text).strip("-.").lower()
    return text[:limit].rstrip("-") or "plot"


def plot_title(view) -> str:
    from ..widgets.plot_data import plot_title as _title

    return _title(view)


def plot_name(panel, view) -> str:
    """A short name for ``view`` within ``panel`` (its title, else ``plot<N>``)."""
    title = plot_title(view)
    if title:
        return slug(title)
    views = list(panel.plots()) if panel is not None else []
    n = views.index(view) + 1 if view in views else 1
    return f"plot{n}"


def default_name(panel, view=None, *, scale: float = 1, ext: str = ".png") -> str:
    """``<panel basename>[_<plot>][@2x].ext``, e.g. ``waves_d512_base10000_heatmap@2x.png``."""
    base = panel.export_basename() if panel is not None else "pe-explorer"
    if view is not None:
        base += "_" + plot_name(panel, view)
    if scale and scale != 1:
        base += f"@{scale:g}x"
    return base + ext


def shown_plots(root) -> list[str]:
    """What ``root`` (a plot, a panel or the window) shows, by the plots' stable names (:func:`.slide.plot_key`):
    ``root`` itself if it is a plot, else its plots on screen (the tab shown), top to bottom, left to right.
    Every exported picture carries this list (PNG text "Plots", SVG description), so what left the app can be
    checked against what was on stage."""
    import pyqtgraph as pg
    from PySide6.QtCore import QPoint

    from ..panels.base import Panel
    from .slide import plot_key

    if isinstance(root, pg.GraphicsView):
        views = [root]
    else:
        views = [v for v in root.findChildren(pg.PlotWidget)
                 if v.isVisibleTo(root) and v.width() > 1 and v.height() > 1]
        views.sort(key=lambda v: (v.mapTo(root, QPoint(0, 0)).y(), v.mapTo(root, QPoint(0, 0)).x()))
    names = []
    for v in views:
        panel = v.parentWidget()
        while panel is not None and not isinstance(panel, Panel):
            panel = panel.parentWidget()
        names.append(plot_key(panel, v) if panel is not None else v.objectName() or "plot")
    return names


def _described(image, root):
    """``image`` with the names of the plots it shows in its "Plots" text (written into the PNG)."""
    image.setText("Software", "PE Explorer")
    image.setText("Plots", ", ".join(shown_plots(root)))
    return image


# -- restyling for an export ---------------------------------------------------------------------
def _views_in(widget) -> list:
    import pyqtgraph as pg

    if isinstance(widget, pg.GraphicsView):
        return [widget]
    return [v for v in widget.findChildren(pg.GraphicsView) if v.isVisible() or not widget.isVisible()]


def _panels_in(widget) -> list:
    from ..panels.base import Panel

    if isinstance(widget, Panel):
        return [widget]
    return widget.findChildren(Panel)


def settle_placements(view) -> None:
    """Place now the legends and labels of ``view``'s plot that a change asked to place on the next turn of the
    event loop: an export taken in the same turn as a change drew them where they were."""
    item = getattr(view, "getPlotItem", lambda: None)()
    for placer in (getattr(item, "legend_placer", None), getattr(item, "annotations", None)):
        if placer is not None:
            placer.flush()


@contextlib.contextmanager
def export_look(root, screen: Look, theme: Theme | None = None, *, pen_scale: float = 1.0) -> Iterator[None]:
    """Restyle ``root`` (a plot, panel or window) for an export, and restore the screen look after.

    ``theme`` None keeps the screen theme (only pen widths are scaled by ``pen_scale``).  Text sizes
    never change: an export shows what the screen shows, at the chosen resolution.
    """
    import pyqtgraph as pg
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QPalette

    from ..widgets.axis import painted_afresh
    from ..widgets.renderer import raster_viewports
    from ..widgets.styling import style_plot, style_widgets

    target = theme or screen.theme
    views = _views_in(root)
    restyle = target != screen.theme
    panels = _panels_in(root) if restyle else []
    widgets = restyle and not isinstance(root, pg.GraphicsView)
    had_palette = root.testAttribute(Qt.WidgetAttribute.WA_SetPalette)
    old_palette = QPalette(root.palette())
    try:
        if widgets:
            style_widgets(root, target, ui_pt=screen.base_pt, zoom=screen.zoom, set_root_font=False)
        for p in panels:
            p.apply_theme(target)
        for v in views:
            style_plot(v, target, zoom=screen.zoom, pen_scale=pen_scale)
            settle_placements(v)
        # A widget's render draws its plots' viewports: on raster, the same picture whichever renderer paints the
        # screen (a plot alone is exported from its scene, whatever its viewport).
        with raster_viewports([] if isinstance(root, pg.GraphicsView) else views), painted_afresh(views):
            yield
    finally:
        if widgets:
            style_widgets(root, screen.theme, ui_pt=screen.base_pt, zoom=screen.zoom, set_root_font=False)
            # Give the palette back to the parent's care unless the root had its own.
            root.setPalette(old_palette if had_palette else QPalette())
        for p in panels:
            p.apply_theme(screen.theme)
        for v in views:
            style_plot(v, screen.theme, zoom=screen.zoom)


@contextlib.contextmanager
def svg_ready(root) -> Iterator[None]:
    """Plot titles as one run of plain text while an SVG is written: a rich-text title becomes one
    ``<text>`` per format run, placed with Qt's metrics, which other renderers space differently."""
    import pyqtgraph as pg

    from .svg import plain_text

    labels = []
    for v in _views_in(root):
        item = v.getPlotItem() if hasattr(v, "getPlotItem") else None
        label = getattr(item, "titleLabel", None)
        text = getattr(label, "text", "") or ""
        if label is not None and "<" in text:
            labels.append((label, text))
    # Markers drawn from pyqtgraph's symbol atlas become one <image> of the whole atlas squeezed into each
    # marker's box (Qt's SVG engine ignores the source rectangle): draw them as vector paths instead.
    scatters = [it for v in _views_in(root) if v.scene() is not None for it in v.scene().items()
                if isinstance(it, pg.ScatterPlotItem) and it.opts.get("useCache")]
    try:
        for label, text in labels:
            label.setText(html.escape(plain_text(text)))  # a title is HTML: what it says must stay text
        for it in scatters:
            it.opts["useCache"] = False
        yield
    finally:
        for label, text in labels:
            label.setText(text)
        for it in scatters:
            it.opts["useCache"] = True


# -- plots ---------------------------------------------------------------------------------------
@contextlib.contextmanager
def key_shown(view) -> Iterator[None]:
    """While a plot is exported alone, its key (``view.export_key()``: the rich text of a key that sits outside
    the plot, in the panel; else its legend's names where the legend was left out for room) is drawn in a row under
    the plot, wrapped to its width, in the axes' colour."""
    from PySide6.QtWidgets import QGraphicsProxyWidget, QLabel

    from ..widgets.legend_place import legend_key
    from ..widgets.log_ticks import tick_font

    make = getattr(view, "export_key", None)
    item = getattr(view, "getPlotItem", lambda: None)()
    placer = getattr(item, "legend_placer", None)
    text = make() if callable(make) else legend_key(placer.legend) if placer and placer.hidden_for_room else ""
    if not text or item is None:
        yield
        return
    label = QLabel(text)
    label.setWordWrap(True)
    label.setObjectName("exportKey")
    axis = item.getAxis("bottom")
    label.setFont(tick_font(axis))  # as large as the axis's numbers, under which it sits
    colour = axis.textPen().color().name()
    label.setStyleSheet(f"QLabel {{ color: {colour}; background: transparent; padding: 2px 6px; }}")
    label.setFixedWidth(max(int(item.width()), 80))
    label.setFixedHeight(label.heightForWidth(label.width()))
    proxy = QGraphicsProxyWidget()
    proxy.setWidget(label)
    row = item.layout.rowCount()
    item.layout.addItem(proxy, row, 0, 1, 3)
    item.layout.activate()
    try:
        yield
    finally:
        item.layout.removeItem(proxy)
        if proxy.scene() is not None:
            proxy.scene().removeItem(proxy)
        proxy.deleteLater()
        item.layout.activate()


def _export_item(view):
    """What pyqtgraph's exporters should export: the plot item of a PlotWidget, else the scene."""
    if hasattr(view, "getPlotItem"):
        return view.getPlotItem()
    return view.scene()


def _check_size(width: int, height: int) -> None:
    if width < 1 or height < 1:
        raise ExportError(f"cannot export an image of {width} × {height} pixels (is the plot shown?)")
    if max(width, height) > MAX_SIDE:
        raise ExportError(f"{width} × {height} pixels is too large: at most {MAX_SIDE} pixels a side")


def render_plot(
    view, *, scale: float = 1.0, width: int | None = None, screen: Look = Look(), theme: Theme | None = None
):
    """One plot as a QImage at ``scale`` × its size on screen, or ``width`` pixels wide."""
    from pyqtgraph.exporters import ImageExporter

    item = _export_item(view)
    exporter = ImageExporter(item)
    src = exporter.getTargetRect()
    if src.width() < 1 or src.height() < 1:
        raise ExportError("the plot has no size yet (is it shown?)")
    if width is not None:
        scale = width / src.width()
    w = int(round(src.width() * scale)) if width is None else int(width)
    h = int(round(src.height() * scale))
    _check_size(w, h)
    with export_look(view, screen, theme, pen_scale=scale), key_shown(view):
        exporter = ImageExporter(item)  # re-read the background after restyling
        exporter.parameters()["width"] = w
        exporter.parameters()["height"] = h
        image = exporter.export(toBytes=True)
    return image


def plot_svg(view, *, screen: Look = Look(), theme: Theme | None = None) -> bytes:
    """One plot as SVG text (bytes)."""
    from pyqtgraph.exporters import SVGExporter

    from .svg import portable_svg

    with export_look(view, screen, theme), svg_ready(view), key_shown(view):
        data = SVGExporter(_export_item(view)).export(toBytes=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    return portable_svg(bytes(data), description=f"Exported from PE Explorer. Plots: {', '.join(shown_plots(view))}")


# -- widgets (a whole panel, the window) ---------------------------------------------------------
def render_widget(
    widget, *, scale: float = 1.0, width: int | None = None, screen: Look = Look(), theme: Theme | None = None
):
    """``widget`` and its children as a QImage at ``scale`` (or ``width`` pixels wide)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QWidget

    size = widget.size()
    if size.width() < 1 or size.height() < 1:
        raise ExportError("nothing to export: the panel has no size (is it shown?)")
    if width is not None:
        scale = width / size.width()
    w = int(width) if width is not None else int(round(size.width() * scale))
    h = int(round(size.height() * scale))
    _check_size(w, h)
    image = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(scale)
    with export_look(widget, screen, theme, pen_scale=scale):
        image.fill(widget.palette().window().color())
        painter = QPainter(image)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            # QWidget.render, not QGraphicsView.render (which would draw only the scene).
            QWidget.render(widget, painter, QPoint(0, 0))
        finally:
            painter.end()
    image.setDevicePixelRatio(1.0)
    return image


def widget_svg(
    widget, *, screen: Look = Look(), theme: Theme | None = None, title: str = "", width: int | None = None
) -> bytes:
    """``widget`` and its children as SVG (plots as vectors, images embedded); ``width``: the picture's
    nominal width in pixels (the drawing is the widget's size, scaled)."""
    from PySide6.QtCore import QSize

    from .svg import portable_svg
    from .svg_widgets import widget_tree_svg

    size = widget.size()
    if size.width() < 1 or size.height() < 1:
        raise ExportError("nothing to export: the panel has no size (is it shown?)")
    out = QSize(int(width), int(round(size.height() * width / size.width()))) if width else size
    with export_look(widget, screen, theme), svg_ready(widget):
        # Fonts are written in points × resolution / 72: at the default 72 dpi a 9-pt label (12 px on a 96-dpi
        # screen) would be written as 9 px, and other renderers would squeeze every line of text.
        data = widget_tree_svg(widget, size=out, title=title or "PE Explorer",
                               description=f"Exported from PE Explorer. Plots: {', '.join(shown_plots(widget))}",
                               resolution=widget.logicalDpiX() or 96)
    return portable_svg(data)


# -- encoding and writing ------------------------------------------------------------------------
def png_bytes(image) -> bytes:
    from PySide6.QtCore import QBuffer, QIODevice

    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise ExportError("could not encode the image as PNG")
    return bytes(buf.data().data())


def image_ext(path: str | Path) -> str:
    ext = Path(path).suffix.lower()
    if ext not in IMAGE_FORMATS:
        raise ExportError(f"image files must end in {' or '.join(IMAGE_FORMATS)}; got {str(path)!r}")
    return ext


def write_bytes(path: str | Path, data: bytes) -> Path:
    try:
        return atomic_write_bytes(path, data)
    except OutputError as exc:
        raise ExportError(str(exc)) from None


def copy_image(image) -> None:
    """Put ``image`` on the clipboard (paste straight into slides)."""
    from PySide6.QtWidgets import QApplication

    QApplication.clipboard().setImage(image)


def export_view_to_file(
    view,
    path: str | Path,
    *,
    scale: float = 1.0,
    width: int | None = None,
    screen: Look = Look(),
    theme: Theme | None = None,
) -> Path:
    """One plot to ``path`` (.png or .svg)."""
    if image_ext(path) == ".svg":
        return write_bytes(path, plot_svg(view, screen=screen, theme=theme))
    return write_bytes(
        path, png_bytes(_described(render_plot(view, scale=scale, width=width, screen=screen, theme=theme), view))
    )


def export_widget_to_file(
    widget,
    path: str | Path,
    *,
    scale: float = 1.0,
    width: int | None = None,
    screen: Look = Look(),
    theme: Theme | None = None,
    title: str = "",
) -> Path:
    """A panel or the window to ``path`` (.png or .svg)."""
    if image_ext(path) == ".svg":
        return write_bytes(path, widget_svg(widget, screen=screen, theme=theme, title=title, width=width))
    return write_bytes(
        path, png_bytes(_described(render_widget(widget, scale=scale, width=width, screen=screen, theme=theme),
                                   widget))
    )
