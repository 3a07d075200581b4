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


def _painted(vt: ValueText, transform: QTransform) -> _Recording:
    """``vt`` painted under ``transform`` by a recording painter (ended)."""
    image = QImage(420, 420, QImage.Format.Format_ARGB32_Premultiplied)
    painter = _Recording(image)  # (the image outlives the painting: kept by this frame until painter.end())
    painter.setTransform(transform)
    try:
        vt.paint(painter)
    finally:
        painter.end()
    return painter


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
    painter = _painted(vt, transform)
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


def _drawn(vt: ValueText, transform: QTransform) -> list[str]:
    return [text for *_, text, _colour in _painted(vt, transform).texts]


def test_the_room_a_number_needs_follows_the_numbers_and_the_font(qapp):
    """The width the widest number needs is worked out once per numbers and font, not at every repaint: new
    numbers or a new size must work it out again."""
    vt = ValueText(fmt=lambda v: f"{v:.2f}")
    vt.viewRect = lambda: None
    fits = QTransform.fromScale(60, 40)
    vt.set_items([0.0, 1.0], [0.0, 0.0], [0.25, 0.5])
    assert vt.visible_texts(fits) and _drawn(vt, fits) == ["0.25", "0.50"]
    vt.set_items([0.0, 1.0], [0.0, 0.0], [0.25, -1234567.5])  # far wider than a 60-px cell
    assert not vt.visible_texts(fits) and _drawn(vt, fits) == []
    vt.set_items([0.0, 1.0], [0.0, 0.0], [0.25, 0.75])
    assert vt.visible_texts(fits)
    vt.set_point_size(40.0)  # a line taller than the 40-px cell
    assert not vt.visible_texts(fits) and _drawn(vt, fits) == []


def test_only_the_numbers_in_view_are_drawn(qapp):
    """Zoomed into a 64-token map, the numbers of the cells out of view (and a cell beyond) are not drawn; with the
    whole map in view, every one is."""
    from PySide6.QtCore import QRectF

    xs, ys = (a.ravel().astype(float) + 0.5 for a in np.meshgrid(np.arange(8), np.arange(8)))
    vt = ValueText()
    vt.set_items(xs, ys, np.full(64, 0.5))
    big = QTransform.fromScale(50, 50)
    vt.viewRect = lambda: QRectF(-0.5, -0.5, 9, 9)
    assert len(_drawn(vt, big)) == 64
    vt.viewRect = lambda: QRectF(2.0, 2.0, 2.0, 2.0)  # cells 2 and 3 across and down, and one beyond each side
    want = sum(1 for x, y in zip(xs, ys, strict=True) if 1.0 <= x <= 5.0 and 0.0 <= y <= 6.0)
    assert len(_drawn(vt, big)) == want < 64
