"""pyqtgraph's exporters work on our pinned Qt (pyqtgraph 0.14.0's SVG export breaks on Qt >= 6.11)."""

import xml.etree.ElementTree as ET

import numpy as np
import pyqtgraph as pg
from pyqtgraph.exporters import ImageExporter, SVGExporter


def test_svg_export_of_closed_paths_parses(qtbot):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    x = np.linspace(0, 6, 100)
    w.plot(x, np.sin(x), fillLevel=0, brush=(50, 50, 200, 80))  # a closed, filled path
    w.addItem(pg.BarGraphItem(x=np.arange(5), height=np.arange(5) + 1.0, width=0.6))
    w.resize(400, 300)
    w.show()
    qtbot.waitExposed(w)
    svg = SVGExporter(w.getPlotItem()).export(toBytes=True)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    paths = [e for e in root.iter() if e.tag.endswith("path")]
    assert paths, "no paths exported"


def test_png_export_has_requested_width(qtbot):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.plot([0, 1, 2], [1, 3, 2])
    w.resize(400, 300)
    w.show()
    exp = ImageExporter(w.getPlotItem())
    exp.parameters()["width"] = 800
    img = exp.export(toBytes=True)
    assert img.width() == 800
