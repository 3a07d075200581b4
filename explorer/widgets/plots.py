"""pyqtgraph set-up done once, and the one plot factory the panels share.

:func:`make_plot` makes every plot of the app: the house set-up (labels, grid, no SI prefixes) once,
and registration with the theme (:mod:`explorer.widgets.theming`), so the plot and every item later
added to it take their pens, fonts and colour maps from the current theme, follow ``themeChanged``,
and carry the export submenu in their right-click menu.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy

from .plain import shorten

_configured = False

#: A perceptually uniform diverging map for signed values (readable for colour-blind viewers,
#: and its lightness still orders values in grey-scale print).
DIVERGING = "CET-D1A"
#: Sequential map for non-negative values.
SEQUENTIAL = "viridis"


def configure_pyqtgraph() -> None:
    """Global pyqtgraph options: row-major images (arrays are positions × dimensions), antialiasing."""
    global _configured
    if _configured:
        return
    pg.setConfigOptions(imageAxisOrder="row-major", antialias=True, background="w", foreground="k")
    from .log_ticks import room_for_labels

    room_for_labels()  # tick labels never run together on a narrow plot
    from .titles import fit_axis_labels

    fit_axis_labels()  # an axis label longer than its axis is drawn smaller, not cut
    _configured = True


def colormap(name: str = DIVERGING) -> pg.ColorMap:
    return pg.colormap.get(name)


def make_plot(title: str = "", *, x: str = "", y: str = "", grid: bool = True, parent=None,
              plot_item=None) -> pg.PlotWidget:
    """A themed PlotWidget with labelled axes, a light grid and the menu kept (export lives there).

    ``plot_item`` puts an existing PlotItem (e.g. a ColorBarItem) in the widget.
    """
    from .theming import adopt_plot

    configure_pyqtgraph()
    w = pg.PlotWidget(parent=parent) if plot_item is None else pg.PlotWidget(parent=parent, plotItem=plot_item)
    return adopt_plot(w, title, x=x, y=y, grid=grid)


class Heatmap(pg.PlotWidget):
    """An ImageItem with a fixed-level colour bar, for matrices (rows = y, columns = x)."""

    def __init__(self, title: str = "", *, x: str = "", y: str = "", levels=(-1.0, 1.0), cmap: str = DIVERGING,
                 parent=None) -> None:
        configure_pyqtgraph()
        super().__init__(parent=parent, title=title)
        pi = self.getPlotItem()
        pi.setLabel("bottom", x)
        pi.setLabel("left", y)
        pi.invertY(True)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setAutoDownsample(True)
        pi.addItem(self.image)
        self.colorbar = pg.ColorBarItem(values=levels, colorMap=colormap(cmap), interactive=False, width=14)
        self.colorbar.setImageItem(self.image, insert_in=pi)
        from .theming import adopt_plot

        adopt_plot(self, grid=False)

    def set_matrix(self, data: np.ndarray, rect=None, levels=None) -> None:
        """Show ``data`` (NaN cells are drawn transparent); ``rect`` = (x, y, w, h) in data units."""
        from .plot_data import set_image

        set_image(self.image, data, autoLevels=False)  # drawn in float32, exported in float64
        if levels is not None:
            self.colorbar.setLevels(levels)
        if rect is not None:
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
