"""Run N live pyqtgraph updates (setData / setImage) offscreen; exit 0 if the process survives.

Used by tests/test_soak.py in a subprocess, so a fatal interpreter error (PySide6 6.12.0's
QObject.property() reference bug: "Fatal Python error: none_dealloc" after ~1-2k updates)
fails the test instead of killing the test session.
"""

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pyqtgraph as pg  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def main(n: int) -> int:
    app = QApplication.instance() or QApplication([])
    pg.setConfigOptions(imageAxisOrder="row-major")
    w = pg.GraphicsLayoutWidget()
    plot = w.addPlot()
    curve = plot.plot()
    bars = pg.BarGraphItem(x=np.arange(8), height=np.ones(8), width=0.8)
    plot.addItem(bars)
    img = pg.ImageItem()
    w.addPlot(row=1, col=0).addItem(img)
    w.resize(400, 300)
    w.show()
    x = np.linspace(0, 10, 500)
    for i in range(n):
        curve.setData(x, np.sin(x + i * 0.01))
        bars.setOpts(height=np.sin(np.arange(8) + i * 0.1))
        img.setImage(np.sin(np.add.outer(x[:64], x[:64] + i * 0.01)), autoLevels=False, levels=(-1, 1))
        if i % 10 == 0:
            app.processEvents()
    app.processEvents()
    w.close()
    print(f"survived {n} updates")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000))
