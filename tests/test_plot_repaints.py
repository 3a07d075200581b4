"""What a plot repaints when little changes: the region around the change, never the whole plot or its layout."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from explorer.widgets import annotation_place
from explorer.widgets.plots import make_plot


class _WholePaints(QObject):
    """Counts a viewport's paints that cover all of it."""

    def __init__(self, viewport) -> None:
        super().__init__()
        self.viewport, self.whole, self.paints = viewport, 0, 0
        viewport.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
            self.whole += event.rect() == self.viewport.rect()
        return False


def test_a_one_point_update_repaints_around_it_not_the_whole_plot(qtbot):
    """A plot with texts to keep placed (an annotated line) repaints only around a moved one-point scatter.  Its
    placer listened to the scene's ``changed`` signal, which makes Qt route the scene's updates through it and
    repaint the whole plot for an item whose rect is null for a moment (a one-point scatter's, during setData):
    the Waves spectrum's picked-pair ring repainted the whole plot at every drag step."""
    plot = make_plot()
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.setRange(xRange=(0, 10), yRange=(0, 10), padding=0)
    plot.addItem(pg.InfiniteLine(angle=0, pos=2.0, label="a bound"))
    ring = pg.ScatterPlotItem(size=20, pen=pg.mkPen("k", width=2.5))
    plot.addItem(ring)
    plot.show()
    ring.setData([5.0], [5.0])
    qtbot.waitExposed(plot)
    qtbot.wait(2 * annotation_place.EVERY_MS)  # the label placed
    quiet = _WholePaints(plot.viewport())  # and nothing left to paint (a late layout or expose repaints it whole)
    for _ in range(20):
        seen = quiet.paints
        qtbot.wait(150)
        if quiet.paints == seen:
            break
    count = _WholePaints(plot.viewport())
    for i in range(10):
        ring.setData([5.0], [5.0 + 0.1 * i])
        QApplication.processEvents()
    # Only around the point, old place and new (the old wiring: the whole plot every time; one stray whole repaint
    # of a loaded machine's platform is not what this is about).
    assert count.paints >= 5 and count.whole <= 1



def test_new_data_under_a_label_moves_it(qtbot):
    """The plot's texts are placed again when its data changes (its repaint asks for it), not only when its range
    or size does."""
    plot = make_plot()
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.setRange(xRange=(0, 10), yRange=(0, 10), padding=0)
    line = pg.InfiniteLine(angle=0, pos=5.0, label="a bound", labelOpts={"position": 0.5})
    plot.addItem(line)
    curve = pg.PlotDataItem([0.0, 10.0], [9.5, 9.5])
    plot.addItem(curve)
    plot.show()
    qtbot.waitExposed(plot)
    qtbot.wait(2 * annotation_place.EVERY_MS)
    label = line.label
    assert label.isVisible()
    before = label.sceneBoundingRect()
    # A band of curve over the label's place (the line's middle) and just above it.
    x = np.linspace(3.0, 7.0, 200)
    curve.setData(np.repeat(x, 2), np.tile([4.0, 6.5], x.size))
    qtbot.waitUntil(lambda: not label.isVisible() or label.sceneBoundingRect() != before, timeout=2000)


def test_the_spectrums_axis_keeps_its_width_as_new_wavelengths_show(qtbot):
    """pyqtgraph widens an axis when a wider tick label first shows, and lays the whole plot out again: the
    spectrum's λ axis did so once a drag (the drag's longest turn), when 2π·base first passed 100k."""
    from PySide6.QtGui import QFontMetricsF

    from explorer.jobs.waves import CurvesRequest, compute_curves
    from explorer.panels.waves.views_table import SpectrumView
    from explorer.state import WavesState

    view = SpectrumView()
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    axis = view.plot.getPlotItem().getAxis("left")
    widths = set()
    for base in (1e4, 1e5, 1e6, 1e7):
        st = WavesState().clamped(base=base)
        view.show_curves(compute_curves(CurvesRequest(st.n_positions, st.d_model, base, st.variant, pairs=(0, 1))), st)
        QApplication.processEvents()
        widths.add(axis.width())
    assert len(widths) == 1, widths
    # Its labels up to 2π·10⁷ fit the room kept (none is left out for want of width).
    metrics = QFontMetricsF(axis.style["tickFont"])
    assert metrics.horizontalAdvance("100M") <= axis.style["tickTextWidth"] < axis.width()


def test_a_heatmap_given_the_data_it_shows_repaints_nothing(qtbot):
    """The same matrix again (a Token swap drag of α under NoPE, where α changes no number) leaves the plot as it
    is; a matrix that differs in one cell, or a NaN moved, is drawn; the exported numbers are the float64 ones."""
    from explorer.widgets.plot_data import plot_arrays
    from explorer.widgets.plots import Heatmap

    plot = Heatmap("scores", levels=(0.0, 1.0))
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.show()
    data = np.linspace(0.0, 1.0, 64 * 64).reshape(64, 64) / 3
    data[5, 7] = np.nan
    plot.set_matrix(data, rect=(0, 0, 64, 64))
    qtbot.waitExposed(plot)
    QApplication.processEvents()
    paints = _WholePaints(plot.viewport())
    plot.set_matrix(data.copy(), rect=(0, 0, 64, 64))  # equal, NaN and all
    QApplication.processEvents()
    assert paints.paints == 0
    for cell in ((63, 63), (5, 7), (0, 0)):
        changed = data.copy()
        changed[cell] = 0.9 if not np.isnan(changed[cell]) else 0.2
        plot.set_matrix(changed, rect=(0, 0, 64, 64))
        QApplication.processEvents()
        assert paints.paints >= 1, cell
        paints.paints = 0
        plot.set_matrix(data, rect=(0, 0, 64, 64))
        QApplication.processEvents()
    # The same rect over a new shape (the learned table's spectrum: 0.5 is the top of every even row count) is
    # scaled to it again: pyqtgraph scales an image to its rect from the image's own size.
    taller = np.zeros((128, 64))
    plot.set_matrix(taller, rect=(0, 0, 64, 64))
    drawn = plot.image.mapRectToParent(plot.image.boundingRect())
    assert (drawn.width(), drawn.height()) == (64, 64)
    exact = 1 / 3 * np.ones((2, 2))
    plot.set_matrix(exact)
    plot.set_matrix(exact.copy())
    np.testing.assert_array_equal(next(v for v in plot_arrays(plot).values() if v.ndim == 2), exact)


class _Paints(QObject):
    """The regions a widget paints, in its window's coordinates."""

    def __init__(self, widget) -> None:
        super().__init__()
        self.widget, self.rects = widget, []
        widget.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            r = event.rect()
            self.rects.append(r.translated(obj.mapTo(obj.window(), r.topLeft()) - r.topLeft()))
        return False

    def over(self, area) -> int:
        """How many of its paints covered some of ``area`` (window coordinates)."""
        return sum(r.intersects(area) for r in self.rects)


def test_a_label_that_changes_in_a_panel_repaints_nothing_above_the_panel(main_window, qtbot):
    """The formula strip and the verdict have rounded corners, so Qt paints what lies behind them first: that was
    the dock, title bar and all (0.26 ms a time), at every change of their numbers during a drag.  The panel fills
    its own background, and the repaint stops there."""
    main_window.resize(1280, 720)
    main_window.show_panel("swap")
    panel = main_window.panels["swap"]
    qtbot.waitUntil(lambda: panel.has_drawn, timeout=20000)
    qtbot.wait(100)
    strip = panel.formula
    area = strip.rect().translated(strip.mapTo(main_window, strip.rect().topLeft()))
    counts = {name: _Paints(w) for name, w in (("dock", main_window.docks["swap"]), ("window", main_window),
                                                ("panel", panel), ("strip", strip))}
    for k in range(4):
        strip.setText(f"<i>x</i> = {k}.25 · α")
        QApplication.processEvents()
        qtbot.wait(20)
    assert counts["strip"].over(area) >= 4 and counts["panel"].over(area) >= 4  # painted, from the panel up
    assert counts["dock"].over(area) == 0 and counts["window"].over(area) == 0
