"""Everything that leaves the app: pictures, numbers and animations, and the controller behind the menus.

* :mod:`.images` — a plot, a panel or the window as PNG (1×/2×/4× or a width) or SVG, the clipboard,
  restyling for an export (print theme, pen widths × scale), names, atomic writes;
* :mod:`.data` — the numbers behind a plot as CSV or NPY;
* :mod:`.sweeps` — sweep animations as GIF or MP4, and the values a sweep may step through;
* :mod:`.slide` — 16:9 slides of a panel or a plot (no controls or hints), stable plot names in on-screen
  order, laying out background tabs; :mod:`.svg` — SVG that renders outside Qt as it does in Qt;
  :mod:`.svg_widgets` — a panel or the window as SVG, every widget clipped to itself and a plot's items to
  its view box; :mod:`.scene` — a scene's tab, splitters and ranges, set the same in the window and headless;
* :mod:`.controller` — :class:`~.controller.ExportController`, the logic behind every Export menu and
  each plot's right-click "Export" submenu, and :mod:`.sweep_dialog`, the dialog that sets up a sweep (each
  imported on its own: they need Qt widgets).

The functions work on live widgets on the UI thread and serve the menus, the main window and the
headless ``pe-explorer export`` command alike.
"""

from .data import DATA_FORMATS, data_bytes, save_data
from .images import (
    IMAGE_FORMATS,
    MAX_SIDE,
    SCALES,
    ExportError,
    Look,
    copy_image,
    default_name,
    export_look,
    export_view_to_file,
    export_widget_to_file,
    image_ext,
    plot_name,
    plot_svg,
    plot_title,
    png_bytes,
    render_plot,
    render_widget,
    slug,
    widget_svg,
    write_bytes,
)
from .slide import SLIDE_SIZES, export_slide, find_plot, named_plots, plot_key
from .sweeps import (
    effective_range,
    gif_bytes,
    mp4_available,
    numeric_fields,
    record_sweep,
    state_with,
    sweep_values,
    wait_drawn,
    write_mp4,
)

__all__ = [
    "DATA_FORMATS", "IMAGE_FORMATS", "MAX_SIDE", "SCALES", "SLIDE_SIZES", "ExportError", "export_slide",
    "find_plot", "named_plots", "plot_key", "Look", "copy_image", "data_bytes", "default_name", "effective_range",
    "export_look", "export_view_to_file", "export_widget_to_file", "gif_bytes", "image_ext",
    "mp4_available", "numeric_fields", "plot_name", "plot_svg", "plot_title", "png_bytes", "record_sweep",
    "render_plot", "render_widget", "save_data", "slug", "state_with", "sweep_values", "wait_drawn",
    "widget_svg", "write_bytes", "write_mp4",
]
