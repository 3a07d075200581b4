"""The log slider: log mapping, marks that snap and can be clicked, typed values, integer/even rounding."""

import math

import pytest
from PySide6.QtCore import Qt

from explorer.widgets.log_slider import LogSlider, short_label


@pytest.fixture
def base_slider(qtbot):
    s = LogSlider(10, 1e7, value=10000, marks=[10000.0, 500000.0])
    qtbot.addWidget(s)
    s.resize(360, 60)
    s.show()
    qtbot.waitExposed(s)
    return s


def test_positions_are_logarithmic(base_slider):
    s = base_slider
    assert s.position_of(10) == 0 and s.position_of(1e7) == s.slider().maximum()
    # 10^4 sits half-way through 10^1 … 10^7
    assert s.position_of(1e4) == s.slider().maximum() // 2
    s.slider().setValue(s.slider().maximum() // 3)
    assert s.value() == pytest.approx(1000.0, rel=1e-3)


def test_dragging_near_a_mark_lands_exactly_on_it(base_slider):
    s = base_slider
    s.slider().setValue(s.position_of(500000) + 3)
    assert s.value() == 500000.0
    s.slider().setValue(s.position_of(10000) - 2)
    assert s.value() == 10000.0


def test_a_typed_value_is_exact_and_clamped(base_slider, qtbot):
    s = base_slider
    seen = []
    s.valueChanged.connect(seen.append)
    box = s.line_edit()
    box.selectAll()
    qtbot.keyClicks(box, "123456.5")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert s.value() == 123456.5 and seen == [123456.5]
    box.selectAll()
    qtbot.keyClicks(box, "5e9")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert s.value() == 1e7


def test_clicking_a_mark_label_jumps_there(base_slider, qtbot):
    s = base_slider
    ruler = s.ruler()
    (pos, text) = ruler.marks()[1]
    assert text == "500k"
    qtbot.mouseClick(ruler, Qt.MouseButton.LeftButton, pos=ruler.label_rect(pos, text).center())
    assert s.value() == 500000.0


def test_integer_and_even_sliders_round(qtbot):
    n = LogSlider(1, 131072, integer=True)
    d = LogSlider(2, 4096, even=True)
    qtbot.addWidget(n)
    qtbot.addWidget(d)
    n.setValue(1000.4)
    d.setValue(129)
    assert n.value() == 1000 and isinstance(n.value(), int)
    assert d.value() in (128, 130) and d.value() % 2 == 0
    d.slider().setValue(d.slider().maximum())
    assert d.value() == 4096


def test_setvalue_emits_once_and_only_on_change(base_slider):
    seen = []
    base_slider.valueChanged.connect(seen.append)
    base_slider.setValue(20000)
    base_slider.setValue(20000)
    assert seen == [20000.0]


def test_short_labels():
    assert [short_label(v) for v in (10000, 500000, 131072, 8192, 512, 1e6)] == [
        "10k", "500k", "128k", "8k", "512", "1M"]
    assert math.isfinite(float(short_label(0.5)))
