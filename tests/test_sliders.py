"""The app's own sliders (explorer/widgets/sliders.py) and flow layout: typed values, keys, drags, digits, ranges."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFormLayout, QMainWindow, QPushButton, QWidget

from explorer.widgets.flow_layout import FlowLayout
from explorer.widgets.sliders import FloatSlider, LabeledFloatSlider, LabeledSlider
from explorer.widgets.value_box import feedback


@pytest.fixture
def form(qtbot):
    """A main window (for the status bar) with a form whose labels name the boxes."""
    win = QMainWindow()
    central = QWidget()
    win.setCentralWidget(central)
    win.resize(480, 200)
    qtbot.addWidget(win)
    return win, QFormLayout(central)


def _shown(qtbot, form, label, slider):
    win, lay = form
    lay.addRow(label, slider)
    win.show()
    qtbot.waitExposed(win)
    return slider


def _alpha(qtbot, form) -> LabeledFloatSlider:
    s = LabeledFloatSlider()
    s.setRange(0.0, 3.0)
    s.setSingleStep(0.05)
    s.setPageStep(0.25)
    s.setDecimals(2)
    return _shown(qtbot, form, "strength", s)


def _position(qtbot, form) -> LabeledSlider:
    s = LabeledSlider()
    s.setRange(0, 255)
    return _shown(qtbot, form, "position", s)


def _type(qtbot, box, text: str) -> None:
    box.setFocus()
    box.selectAll()
    if text:
        qtbot.keyClicks(box, text)
    else:
        qtbot.keyClick(box, Qt.Key.Key_Backspace)
    qtbot.keyClick(box, Qt.Key.Key_Return)


def _status(form) -> str:
    return form[0].statusBar().currentMessage()


# -- typed values ------------------------------------------------------------------------------------------
def test_a_typed_float_is_read_the_locale_way_and_out_of_range_is_clamped_and_named(qtbot, form):
    s = _alpha(qtbot, form)
    seen: list = []
    s.valueChanged.connect(seen.append)
    box = s.line_edit()
    _type(qtbot, box, "0,5")  # a decimal comma in any locale, not 5
    assert s.value() == 0.5 and box.text() == "0.50" and seen == [0.5]
    assert isinstance(seen[0], float)
    _type(qtbot, box, "1e400")  # inf: the maximum, with a red outline and a reason
    assert s.value() == 3.0 and box.text() == "3.00"
    assert box.property("valueProblem") is True and "solid" in box.styleSheet()
    assert feedback(box).reason == "strength must be 0 … 3"
    assert "strength: 1e400 is out of range; using 3 (the maximum)" in _status(form)
    _type(qtbot, box, "1")  # a good value clears the outline
    assert s.value() == 1.0 and box.property("valueProblem") is False and feedback(box).reason is None


@pytest.mark.parametrize("text", ["abc", "NaN", ""])
def test_text_that_is_not_a_number_keeps_the_value(qtbot, form, text):
    s = _alpha(qtbot, form)
    s.setValue(1.25)
    box = s.line_edit()
    _type(qtbot, box, text)
    assert s.value() == 1.25 and box.text() == "1.25"
    assert feedback(box).reason == "strength must be a number, 0 … 3"
    assert "is not a number; kept as it was" in _status(form)


def test_a_typed_value_gets_the_digits_the_box_shows_and_says_so(qtbot, form):
    s = _alpha(qtbot, form)
    _type(qtbot, s.line_edit(), "0.123")
    assert s.value() == 0.12 and s.line_edit().text() == "0.12"
    assert "strength: 0.123 is not possible here; using 0.12" in _status(form)


def test_an_int_slider_clamps_big_numbers_and_refuses_fractions(qtbot, form):
    s = _position(qtbot, form)
    s.setValue(12)
    box = s.line_edit()
    _type(qtbot, box, "1,000")  # a thousand (group separator): clamped, never an exception
    assert s.value() == 255 and box.text() == "255" and isinstance(s.value(), int)
    _type(qtbot, box, "-5")
    assert s.value() == 0
    assert "position: -5 is out of range; using 0 (the minimum)" in _status(form)
    _type(qtbot, box, "0,5")
    assert s.value() == 0 and feedback(box).reason == "position must be a whole number, 0 … 255"


def test_ctrl_z_in_the_box_reaches_the_window_undo_unless_typing_is_pending(qtbot, form):
    from PySide6.QtGui import QAction

    win, _ = form
    undone: list = []
    act = QAction("Undo", win)
    act.setObjectName("actUndo")
    act.triggered.connect(lambda: undone.append(True))
    win.addAction(act)
    s = _position(qtbot, form)
    box = s.line_edit()
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert undone == [True]
    qtbot.keyClicks(box, "7")  # typing not applied yet: Ctrl+Z undoes the typing
    qtbot.keyClick(box, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert undone == [True]


# -- keys, drags, focus ------------------------------------------------------------------------------------
def test_arrow_page_home_and_end_keys_step_a_float_slider_by_its_steps(qtbot, form):
    s = _alpha(qtbot, form)
    s.setValue(1.0)
    seen: list = []
    s.valueChanged.connect(seen.append)
    assert s.focusProxy() is s.slider()  # Tab and a click on the row's label land on the slider
    assert s.slider().focusPolicy() & Qt.FocusPolicy.TabFocus
    for key, want in ((Qt.Key.Key_Right, 1.05), (Qt.Key.Key_Left, 1.0), (Qt.Key.Key_PageUp, 1.25),
                      (Qt.Key.Key_PageDown, 1.0), (Qt.Key.Key_End, 3.0), (Qt.Key.Key_Home, 0.0)):
        qtbot.keyClick(s.slider(), key)
        assert s.value() == pytest.approx(want), key
        assert s.line_edit().text() == f"{want:.2f}"
    assert seen == pytest.approx([1.05, 1.0, 1.25, 1.0, 3.0, 0.0])


def test_a_float_slider_without_a_box_steps_too(qtbot):
    s = FloatSlider()
    qtbot.addWidget(s)
    s.setRange(0.0, 6.0)
    s.setSingleStep(0.05)
    s.setPageStep(1.0)
    s.setValue(2.0)
    qtbot.keyClick(s.slider(), Qt.Key.Key_PageUp)
    assert s.value() == 3.0
    qtbot.keyClick(s.slider(), Qt.Key.Key_Left)
    assert s.value() == pytest.approx(2.95)
    with pytest.raises(AttributeError):
        s.line_edit()


def test_a_drag_says_pressed_moved_released_and_the_box_follows(qtbot, form):
    s = _alpha(qtbot, form)
    events: list = []
    s.sliderPressed.connect(lambda: events.append("pressed"))
    s.sliderReleased.connect(lambda: events.append("released"))
    s.valueChanged.connect(events.append)
    s.setSliderDown(True)  # what the bench and the undo grouping do
    assert s.isSliderDown() and s.slider().isSliderDown()
    s.slider().setSliderPosition(120)  # the handle dragged to position 120: 1.20
    s.slider().setSliderPosition(121)
    s.setSliderDown(False)
    assert events == ["pressed", 1.2, 1.21, "released"]
    assert s.line_edit().text() == "1.21" and not s.isSliderDown()


def test_an_int_slider_emits_ints_and_its_positions_are_its_values(qtbot, form):
    s = _position(qtbot, form)
    seen: list = []
    s.valueChanged.connect(seen.append)
    s.slider().setValue(42)
    assert seen == [42] and isinstance(seen[0], int) and s.value() == 42
    assert (s.minimum(), s.maximum(), s.singleStep()) == (0, 255, 1)
    assert (s.slider().minimum(), s.slider().maximum()) == (0, 255)


# -- digits and ranges -------------------------------------------------------------------------------------
def test_decimals_set_the_grid_of_a_drag_and_the_digits_shown(qtbot, form):
    s = _alpha(qtbot, form)
    assert s.slider().maximum() == 300  # 0 … 3 in hundredths
    s.setDecimals(1)
    assert s.slider().maximum() == 30 and s.decimals() == 1
    s.slider().setValue(7)
    assert s.value() == 0.7 and s.line_edit().text() == "0.7"
    s.setValue(1.25)  # a value set by the program is kept exactly; the slider shows the nearest position
    assert s.value() == 1.25 and s.slider().value() in (12, 13) and s.line_edit().text() in ("1.2", "1.3")
    s.setDecimals(0)
    _type(qtbot, s.line_edit(), "2.5")  # no decimals: a fraction is refused
    assert s.value() == 1.25 and "whole number" in feedback(s.line_edit()).reason


def test_a_new_range_clamps_the_value_and_says_so(qtbot, form):
    s = _alpha(qtbot, form)
    s.setValue(2.5)
    seen: list = []
    s.valueChanged.connect(seen.append)
    s.setRange(0.0, 1.0)
    assert s.value() == 1.0 and seen == [1.0] and s.line_edit().text() == "1.00"
    assert s.slider().value() == s.slider().maximum() == 100
    s.setValue(-4)
    assert s.value() == 0.0
    s.setRange(5.0, 2.0)  # a maximum below the minimum becomes the minimum
    assert (s.minimum(), s.maximum(), s.value()) == (5.0, 5.0, 5.0)


def test_set_with_every_signal_blocked_the_box_still_follows(qtbot, form):
    s = _position(qtbot, form)
    blockers = [QSignalBlocker(w) for w in [s, *s.findChildren(QWidget)]]  # what a panel does while syncing
    s.setValue(99)
    del blockers
    assert s.line_edit().text() == "99" and s.slider().value() == 99


def test_the_box_fits_its_widest_value_and_remeasures_when_the_font_grows(qtbot, form):
    s = _position(qtbot, form)
    s.setRange(-255, 255)
    box = s.line_edit()
    fm = box.fontMetrics()
    assert box.width() > fm.horizontalAdvance("-255") + 8  # the text and the frame
    narrow = box.width()
    big = QFont(s.font())
    big.setPointSizeF(big.pointSizeF() * 2)
    s.setFont(big)  # presenter mode
    assert box.width() > narrow * 1.5


# -- the flow layout -----------------------------------------------------------------------------------------
def test_the_flow_layout_wraps_to_the_width_and_its_height_follows(qtbot):
    holder = QWidget()
    qtbot.addWidget(holder)
    lay = FlowLayout(holder)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setHorizontalSpacing(6)
    lay.setVerticalSpacing(4)
    buttons = []
    for i in range(5):
        b = QPushButton(str(i))
        b.setFixedSize(50, 20)
        lay.addWidget(b)
        buttons.append(b)
    assert lay.count() == 5 and lay.horizontalSpacing() == 6
    assert lay.heightForWidth(400) == 20  # 5 × 50 + 4 × 6 = 274: one line
    assert lay.heightForWidth(120) == 3 * 20 + 2 * 4  # two a line: 50 + 6 + 50 = 106
    holder.resize(120, lay.heightForWidth(120))
    holder.show()
    qtbot.waitExposed(holder)
    assert [(b.x(), b.y()) for b in buttons] == [(0, 0), (56, 0), (0, 24), (56, 24), (0, 48)]
    lay.removeWidget(buttons[0])
    assert lay.count() == 4 and lay.itemAt(4) is None and lay.takeAt(9) is None
