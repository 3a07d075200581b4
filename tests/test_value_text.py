"""Token swap's cell numbers: where each is drawn, in which colour, and at what cost per repaint."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetricsF, QImage, QPainter, QTransform

from explorer.panels.swap.values import ValueText, text_colour_on_viridis


class _Recording(QPainter):
    """A painter that records the pens it is given and where each text goes."""

    def __init__(self, image: QImage) -> None:
        super().__init__(image)
        self.pens: list[str] = []
        self.texts: list[tuple[float, float, str, str]] = []

    def setPen(self, colour) -> None:  # noqa: N802 - Qt override
        self.pens.append(colour.name())
        super().setPen(colour)

    def drawStaticText(self, point, text) -> None:  # noqa: N802 - Qt override
        self.texts.append((point.x(), point.y(), text.text(), self.pen().color().name()))
        super().drawStaticText(point, text)


@pytest.mark.parametrize("transform", [QTransform(45, 0, 0, 45, 20, 20), QTransform(40, 0, 0, -38, 15, 360),
                                       QTransform(44, 3, -2, 43, 30, 25),
                                       QTransform(45, 0, 0.001, 0, 45, 0.0005, 20, 20, 1)],
                         ids=["scale and shift", "flipped", "sheared", "projective"])
def test_each_number_is_centred_on_its_cell_in_its_colour_with_one_pen_per_colour(qapp, transform):
    values = np.random.default_rng(3).random(64)
    xs, ys = (a.ravel().astype(float) for a in np.meshgrid(np.arange(8), np.arange(8)))
    vt = ValueText()
    vt.set_colour_rule(text_colour_on_viridis)
    vt.set_items(xs, ys, values)
    vt.viewRect = lambda: None  # not in a view: every point is drawn
    image = QImage(420, 420, QImage.Format.Format_ARGB32_Premultiplied)
    painter = _Recording(image)
    painter.setTransform(transform)
    try:
        vt.paint(painter)
    finally:
        painter.end()
    assert sorted(painter.pens) == ["#000000", "#ffffff"]  # two colours: two pens, not one per number
    h = QFontMetricsF(vt._font).height()
    want = {}
    for x, y, v in zip(xs, ys, values, strict=True):
        pt = transform.map(QPointF(x, y))
        text, colour = f"{v:.2f}", text_colour_on_viridis(v).name()
        st, w, th = vt._static(text)
        want[(round(pt.x() - w / 2, 6), round(pt.y() - h / 2 + (h - th) / 2, 6))] = (text, colour)
    got = {(round(x, 6), round(y, 6)): (text, colour) for x, y, text, colour in painter.texts}
    assert got == want and len(painter.texts) == 64
