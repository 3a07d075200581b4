"""The Token-swap panel with pytest-qt: drag-and-drop swap, Swap button, Undo, toggles, views, hooks."""

import dataclasses
import math

import numpy as np
import pytest
from PySide6.QtCore import QByteArray, QMimeData, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QTransform
from PySide6.QtWidgets import QAbstractSlider, QApplication, QLineEdit

from explorer.panels.held_scale import HOLD_SLACK
from explorer.panels.swap.axis import TokenAxis
from explorer.panels.swap.panel import SwapPanel, after_html, map_title
from explorer.panels.swap.scale import held_difference_scale
from explorer.panels.swap.values import ValueText
from explorer.panels.swap.views import difference_title, scale_text, sum_column, symmetric_scale
from explorer.state import SwapState
from explorer.theme import cielab_lightness, screen_theme
from explorer.widgets.token_chips import MIME_TYPE, TokenChips


@pytest.fixture
def panel(qtbot, service):
    p = SwapPanel(service)
    qtbot.addWidget(p)
    p.resize(1400, 850)
    p.show()
    qtbot.waitUntil(lambda: p.has_drawn, timeout=20000)
    yield p
    p.shutdown()


def _computed(st):
    # Query and head shown are display choices: changing them redraws without a new request.
    return dataclasses.replace(st, query=0, head=0)


def settle(qtbot, p):
    """Wait until the result on screen belongs to the panel's current state."""
    qtbot.waitUntil(lambda: p.has_drawn and _computed(p.last_response.request.state) == _computed(p.state),
                    timeout=20000)


def drop(chip, mime):
    """Deliver a drag-enter and a drop of ``mime`` onto ``chip``, as Qt does at the end of a drag."""
    pos = chip.rect().center()
    enter = QDragEnterEvent(pos, Qt.DropAction.MoveAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(chip, enter)
    accepted = enter.isAccepted()
    ev = QDropEvent(QPointF(pos), Qt.DropAction.MoveAction, mime, Qt.MouseButton.LeftButton,
                    Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(chip, ev)
    return accepted


def test_first_view_is_the_equivariance_lesson(panel):
    r = panel.last_response
    assert r.verdict == "equivariant" and panel.headline.verdict == "equivariant"
    assert "permutation-equivariant" in panel.headline.text()
    assert "#0f5323" in panel.headline.styleSheet()  # green
    assert [c.word for c in panel.chips.chips()] == ["dog", "bites", "man"]
    assert [c.swap_role for c in panel.chips.chips()] == [True, False, True]
    assert panel.before_map.y_axis.labels() == ["dog", "bites", "man"]
    assert panel.after_map.x_axis.labels() == ["man", "bites", "dog"]
    np.testing.assert_array_equal(panel.before_map.image.image, r.before.weights[0].astype(np.float32))
    assert "√16" in panel.formula.text()


def test_drag_one_chip_onto_another_swaps_them(qtbot, panel):
    src, dst = panel.chips.chip(0), panel.chips.chip(1)
    assert drop(dst, src.mime_data())
    assert (panel.state.swap_i, panel.state.swap_j) == (0, 1)
    assert panel.chips.chip(1).swap_role and not panel.chips.chip(2).swap_role
    after = panel.after_label.text()
    assert after.index("bites") < after.index("dog") < after.index("man")
    settle(qtbot, panel)
    assert panel.last_response.after.tokens == ["bites", "dog", "man"]
    assert panel.after_map.y_axis.labels() == ["bites", "dog", "man"]
    assert panel.undo_button.isEnabled()


def test_drops_that_are_not_a_swap_are_refused(panel):
    chip = panel.chips.chip(1)
    # Onto itself.
    assert not drop(chip, chip.mime_data())
    # From another chip row (another panel's chips).
    other = TokenChips()
    other.set_tokens(["x", "y", "z"])
    assert not drop(chip, other.chip(0).mime_data())
    other.deleteLater()
    # Plain text, and garbage in our format.
    plain = QMimeData()
    plain.setText("dog")
    assert not drop(chip, plain)
    bad = QMimeData()
    bad.setData(MIME_TYPE, QByteArray(b"nonsense"))
    assert not drop(chip, bad)
    assert (panel.state.swap_i, panel.state.swap_j) == (0, 2)
    assert not panel.undo_button.isEnabled()


def test_select_two_and_press_swap_then_undo(qtbot, panel):
    assert not panel.swap_button.isEnabled()
    qtbot.mouseClick(panel.chips.chip(1), Qt.MouseButton.LeftButton)
    assert panel.chips.selected() == (1,) and not panel.swap_button.isEnabled()
    qtbot.mouseClick(panel.chips.chip(2), Qt.MouseButton.LeftButton)
    assert panel.chips.selected() == (1, 2) and panel.swap_button.isEnabled()
    qtbot.mouseClick(panel.swap_button, Qt.MouseButton.LeftButton)
    assert (panel.state.swap_i, panel.state.swap_j) == (1, 2)
    assert panel.chips.selected() == () and not panel.swap_button.isEnabled()
    settle(qtbot, panel)
    assert panel.last_response.after.tokens == ["dog", "man", "bites"]
    qtbot.mouseClick(panel.undo_button, Qt.MouseButton.LeftButton)
    assert (panel.state.swap_i, panel.state.swap_j) == (0, 2)
    assert not panel.undo_button.isEnabled()
    settle(qtbot, panel)
    assert panel.last_response.after.tokens == ["man", "bites", "dog"]


def test_clicking_a_third_chip_keeps_the_last_two(qtbot, panel):
    for k in (0, 1, 2):
        qtbot.mouseClick(panel.chips.chip(k), Qt.MouseButton.LeftButton)
    assert panel.chips.selected() == (1, 2)
    qtbot.mouseClick(panel.chips.chip(2), Qt.MouseButton.LeftButton)  # click again: deselect
    assert panel.chips.selected() == (1,)
    panel.chips.chip(0).setFocus()
    qtbot.keyClick(panel.chips.chip(0), Qt.Key.Key_Space)
    assert panel.chips.selected() == (1, 0)


def test_sentence_edit_rebuilds_chips_and_undo_brings_it_back(qtbot, panel):
    panel.sentence_edit.setText("the cat chased a small mouse")
    panel.sentence_edit.editingFinished.emit()
    assert [c.word for c in panel.chips.chips()] == ["the", "cat", "chased", "a", "small", "mouse"]
    assert panel.count_label.text() == "6 / 64 tokens"
    settle(qtbot, panel)
    assert panel.last_response.before.tokens[1] == "cat"
    assert [panel.query_combo.itemText(k) for k in range(2)] == ["0 · the", "1 · cat"]
    panel.undo()
    assert panel.state.sentence == "dog bites man" and panel.sentence_edit.text() == "dog bites man"


def test_bad_sentence_shows_the_banner_and_keeps_the_state(qtbot, panel):
    panel.sentence_edit.setText(" ".join(f"w{k}" for k in range(70)))
    panel.sentence_edit.editingFinished.emit()
    assert not panel.banner.isHidden() and "at most 64" in panel.banner.text()
    assert panel.state.sentence == "dog bites man"


def test_causal_toggle_breaks_the_identity_and_says_why(qtbot, panel):
    assert not panel.late_check.isEnabled()
    panel.causal_check.setChecked(True)
    assert panel.state.causal and panel.late_check.isEnabled()
    settle(qtbot, panel)
    r = panel.last_response
    assert r.verdict == "order-visible" and panel.headline.verdict == "order-visible"
    assert "#7a2e06" in panel.headline.styleSheet()  # warm
    assert f"{r.max_relabel_error:.3g}" in panel.headline.text()
    text = panel.explanation.text()
    assert "Haviv et al. 2022" in text and "Kazemnejad et al. 2023" in text
    assert "M<sub>ij</sub> = −∞" in panel.formula.text()
    assert panel.export_basename() == "swap_nope_d16_causal"


def test_mask_after_softmax_shows_rows_that_do_not_sum_to_one(qtbot, panel):
    panel.causal_check.setChecked(True)
    panel.late_check.setChecked(True)
    settle(qtbot, panel)
    r = panel.last_response
    sums = panel.before_map.sums.image[:, 0]
    np.testing.assert_allclose(sums, r.before.row_sums[0].astype(np.float32))
    assert sums[0] < 0.99 and sums[-1] == pytest.approx(1.0)
    texts = panel.before_map.sum_values.texts()
    assert texts[-1] == "1.000" and texts[0] == f"{r.before.row_sums[0, 0]:.3f}"
    assert "weights of query" in panel.before_map.cell_text(sum_column(3)[0] + 0.1, 0.5)
    assert "⊙ 1[j ≤ i]" in panel.formula.text()
    assert panel.export_basename() == "swap_nope_d16_causal-late"
    # Back to masking before the softmax: every row sums to 1 again.
    panel.late_check.setChecked(False)
    settle(qtbot, panel)
    np.testing.assert_allclose(panel.before_map.sums.image[:, 0], 1.0, atol=1e-6)


def test_an_alpha_step_leaves_the_row_sums_alone(qtbot, panel, monkeypatch):
    """Softmax's rows sum to 1 whatever α is: a drag step repaints the weights, not the Σ column and its numbers."""
    panel.set_state(panel.state.clamped(scheme="sinusoidal"))
    settle(qtbot, panel)
    amap = panel.before_map
    calls = []
    monkeypatch.setattr(amap.sums, "setImage", lambda *a, **k: calls.append("setImage"))
    monkeypatch.setattr(amap.sum_values, "update", lambda *a: calls.append("update"))
    weights = amap.image.image.copy()
    panel.set_state(panel.state.clamped(alpha=panel.state.alpha / 2 + 0.05))
    settle(qtbot, panel)
    assert not np.array_equal(amap.image.image, weights)  # the step drew
    assert calls == []
    texts = amap.sum_values.texts()
    assert texts and set(texts) == {"1.000"}


def test_a_held_alpha_drag_lays_the_panel_out_again_at_no_step(qtbot, panel):
    """With sinusoidal PE the verdict's and the explanation's numbers change at every step of an α drag; while the
    slider is held they keep their size and change at most every interval (each change laid the panel, its dock
    and the window out again), and letting go shows the last step's words."""
    from PySide6.QtCore import QEvent, QObject

    from explorer.bench.measure import drag_values, main_slider
    from explorer.widgets.text_pin import EVERY_MS

    class Layouts(QObject):
        count = 0

        def eventFilter(self, obj, event):  # noqa: N802 - Qt override
            self.count += event.type() == QEvent.Type.LayoutRequest
            return False

    panel.set_state(panel.state.clamped(scheme="sinusoidal"))
    settle(qtbot, panel)
    slider = main_slider(panel)
    layouts = Layouts()
    panel.installEventFilter(layouts)
    shown = set()
    try:
        slider.setSliderDown(True)
        values = drag_values(slider, 16)
        slider.setValue(values[2])
        settle(qtbot, panel)
        qtbot.wait(EVERY_MS + 50)  # the first change pins the live labels (it may lay out once)
        layouts.count = 0
        for v in values[3:]:
            slider.setValue(v)
            settle(qtbot, panel)
            shown.add(panel.headline.text())
        assert len(shown) >= 2  # the verdict's numbers did change during the drag
        assert layouts.count == 0
    finally:
        slider.setSliderDown(False)
        panel.removeEventFilter(layouts)
    qtbot.waitUntil(lambda: panel.headline.text().endswith(panel.last_response.headline), timeout=EVERY_MS * 5)
    assert panel.explanation.text() == panel.last_response.explanation


@pytest.mark.parametrize("scheme,term,name", [
    ("sinusoidal", "PE(pos)", "swap_sinusoidal_a1_d16"),
    ("learned", "P[pos]", "swap_learned_a1_d16"),
    ("rope", "R<sub>i</sub>q<sub>i</sub>", "swap_rope_d16"),
    ("alibi", "− m·|i−j|", "swap_alibi_d16"),
])
def test_scheme_picker_changes_the_verdict_formula_and_name(qtbot, panel, scheme, term, name):
    panel.scheme_combo.setCurrentIndex(panel.scheme_combo.findData(scheme))
    assert panel.state.scheme == scheme
    panel.swap(0, 1)  # not a mirror: every scheme sees it
    settle(qtbot, panel)
    assert panel.last_response.verdict == "order-visible"
    assert term in panel.formula.text()
    assert panel.export_basename() == name


def test_alpha_is_a_real_slider_with_a_value_box(qtbot, panel):
    slider = panel.main_slider()
    assert isinstance(slider.slider(), QAbstractSlider)  # a real QSlider inside, with the box beside it
    assert (slider.minimum(), slider.maximum()) == (0.0, 3.0)
    slider.setValue(2.5)
    assert panel.state.alpha == pytest.approx(2.5)
    # Set from the state (e.g. a preset): the value box follows, without feeding back.
    panel.set_state(panel.state.clamped(alpha=0.75))
    box = slider.findChildren(QLineEdit)[0]
    assert float(box.text()) == pytest.approx(0.75)
    assert slider.value() == pytest.approx(0.75)
    panel.set_state(panel.state.clamped(scheme="sinusoidal"))
    settle(qtbot, panel)
    assert "0.75·PE" in panel.formula.text()


def test_heads_d_model_and_head_shown(qtbot, panel):
    panel.heads_spin.setValue(4)
    assert panel.state.heads == 4 and panel.state.d_model == 16
    panel.d_spin.setValue(20)
    assert panel.state.d_model in (16, 24)  # snapped to a multiple of 8
    panel.head_spin.setValue(3)
    assert panel.state.head == 2
    settle(qtbot, panel)
    r = panel.last_response
    np.testing.assert_array_equal(panel.before_map.image.image, r.before.weights[2].astype(np.float32))
    assert "head 3/4" in panel.before_map.title()
    assert "_h4" in panel.export_basename()


def test_query_bars_show_the_chosen_words_weights_before_and_after(qtbot, panel):
    panel.set_state(panel.state.clamped(scheme="rope"))
    settle(qtbot, panel)
    panel.query_combo.setCurrentIndex(1)
    assert panel.state.query == 1
    r = panel.last_response
    np.testing.assert_allclose(panel.bars.before.opts["height"], r.before.weights[0, 1])
    np.testing.assert_allclose(panel.bars.after.opts["height"], r.weights_after_relabelled[0, 1])
    # The after bar of key "man" is the after-sentence weight of "bites" on "man", wherever it went.
    assert panel.bars.after.opts["height"][2] == r.after.weights[0, 1, 0]
    # Clicking a row of the "before" map chooses the query too.
    panel.before_map.rowClicked.emit(2)
    assert panel.state.query == 2 and panel.query_combo.currentIndex() == 2


def test_output_views_show_before_after_relabelled_and_difference(qtbot, panel):
    r = panel.last_response
    np.testing.assert_array_equal(panel.out_before.image.image, r.before.outputs.astype(np.float32))
    np.testing.assert_array_equal(panel.out_after.image.image, r.outputs_after_relabelled.astype(np.float32))
    np.testing.assert_array_equal(panel.out_diff.image.image, r.difference.astype(np.float32))
    assert f"{r.max_relabel_error:.1e}" in panel.out_diff.title()
    # NoPE: "after, moved back" is "before" to the last bit of float32 display precision.
    np.testing.assert_allclose(panel.out_after.image.image, panel.out_before.image.image, atol=1e-6)


def test_hover_readout_names_the_cell(panel):
    text = panel.before_map.cell_text(2.5, 1.5)
    assert "query “bites” (1) → key “man” (2)" in text
    assert f"{panel.last_response.before.weights[0, 1, 2]:.4f}" in text
    panel._on_view_hovered(text)
    assert panel.readout.text() == text


def test_sixty_four_tokens_render(qtbot, panel):
    words = [f"w{k}" for k in range(64)]
    panel.set_state(panel.state.clamped(sentence=" ".join(words), swap_i=3, swap_j=60, query=63))
    settle(qtbot, panel)
    assert len(panel.chips.chips()) == 64
    assert panel.before_map.image.image.shape == (64, 64)
    # The chip area stays at most two rows high and scrolls.
    row = panel.chips.chip(0).sizeHint().height()
    assert panel.chips_area.height() <= 2 * row + 6 + 4
    assert "…" in panel.after_label.text() and "w60" in panel.after_label.text()


def test_a_500_letter_word_neither_widens_the_panel_nor_eats_the_plots(qtbot, panel):
    """Found by the GUI monkey: one word of 500 letters made the "After" line (and the map's tick
    labels) 7,000 px wide, forcing the main window far past the screen — after which every dock
    relayout crept 6 px at a time and the window stalled for minutes."""
    long = "w" * 500
    panel.set_state(panel.state.clamped(sentence=f"dog {long} man", swap_i=0, swap_j=2))
    settle(qtbot, panel)
    assert panel.minimumSizeHint().width() < 900
    chip = panel.chips.chip(1)
    assert chip.word == long and long in chip.toolTip() and chip.sizeHint().width() < 400
    assert panel.after_label.minimumSizeHint().width() < 600 and "…" in panel.after_label.text()
    label = panel.before_map.y_axis.labels()[1]
    assert label.startswith("wwww") and "…" in label and len(label) <= 10
    assert panel.before_map.y_axis.labels()[0] == "dog"  # short words are left alone
    assert all(len(panel.query_combo.itemText(k)) < 40 for k in range(panel.query_combo.count()))


def test_short_word_keeps_short_words_and_both_ends_of_long_ones():
    from explorer.widgets.token_chips import short_word

    assert short_word("bites") == "bites" and short_word("x" * 24) == "x" * 24
    long = "a" * 10 + "m" * 480 + "z" * 10
    shown = short_word(long)
    assert len(shown) == 24 and shown.startswith("a" * 10) and shown.endswith("z" * 8) and "…" in shown
    assert len(short_word(long, 10)) == 10


def test_token_axis_thins_labels_to_fit():
    ax = TokenAxis("left")
    ax.set_labels([f"t{k}" for k in range(64)])
    assert ax.label_step(2000, 64) == 1
    assert ax.label_step(160, 64) > 1
    (_, values), = ax.tickValues(0, 64, 160)
    assert values[0] == 0.5 and len(values) < 64
    assert ax.tickStrings([0.5, 3.5], 1, 1) == ["t0", "t3"]


def test_cell_numbers_show_only_when_they_fit():
    vt = ValueText()
    vt.set_items([0.5], [0.5], [0.25])
    assert vt.texts() == ["0.25"]
    assert vt.visible_texts(QTransform.fromScale(80, 40))
    assert not vt.visible_texts(QTransform.fromScale(8, 4))


def test_helpers_for_titles_and_the_after_sentence():
    assert map_title("Before", ["dog", "bites", "man"], "") == "Before: “dog bites man”"
    assert map_title("Before", ["w"] * 30, " (head 1/2)") == "Attention before (head 1/2)"
    st = SwapState(sentence="dog bites man", swap_i=0, swap_j=2)
    assert after_html(st).startswith("<b style") and "man" in after_html(st).split("</b>")[0]
    long = SwapState(sentence=" ".join(f"w{k}" for k in range(40)), swap_i=0, swap_j=30)
    text = after_html(long)
    assert text.count("…") == 2 and "w33" in text and "w10" not in text


def test_zooming_a_long_map_shows_its_numbers_and_survives_a_slider_drag(qtbot, panel):
    words = [f"w{k}" for k in range(64)]
    panel.set_state(panel.state.clamped(sentence=" ".join(words), swap_i=3, swap_j=60, scheme="sinusoidal"))
    settle(qtbot, panel)
    m = panel.before_map
    vb = m.getPlotItem().getViewBox()
    qtbot.wait(50)
    # 64 × 64 cells: too small for numbers.
    assert not m.values.visible_texts(m.values.deviceTransform(m.viewportTransform()))
    vb.setRange(xRange=(0, 3), yRange=(0, 3), padding=0)
    qtbot.wait(50)
    assert m.values.visible_texts(m.values.deviceTransform(m.viewportTransform()))
    panel.main_slider().setValue(2.0)
    settle(qtbot, panel)
    (x0, x1), (y0, y1) = vb.viewRange()
    assert x1 - x0 < 4 and y1 - y0 < 4  # the lecturer's zoom is kept while dragging α
    # A new sentence length shows the whole map again.
    panel.set_state(panel.state.clamped(sentence="dog bites man"))
    settle(qtbot, panel)
    (x0, x1), _ = vb.viewRange()
    assert x1 - x0 > 3.5


def test_export_data_gives_the_exact_numbers(qtbot, panel):
    panel.set_state(panel.state.clamped(scheme="rope", causal=True, query=1))
    settle(qtbot, panel)
    r = panel.last_response
    d = panel.export_data(panel.before_map)
    np.testing.assert_array_equal(d["weights before [query, key]"], r.before.weights[0])
    np.testing.assert_array_equal(d["row sums"], r.before.row_sums[0])
    d = panel.export_data(panel.bars)
    np.testing.assert_array_equal(d["weight after"], r.weights_after_relabelled[0, 1])
    d = panel.export_data(panel.out_diff)
    np.testing.assert_array_equal(d["after - before [token, component]"], r.difference)
    assert {len(panel.export_data(p)) > 0 for p in panel.plots()} == {True}


# -- the difference map's own symmetric colour scale (issue 27): RoPE's difference of ~0.3 was near-white on
# the outputs' scale; a difference of rounding noise still reads as zero; dark themes draw zero dark.
def _drawn(qtbot, p, **changes):
    p.set_state(p.state.clamped(**changes))
    qtbot.waitUntil(lambda: p.last_response.request.state.scheme == p.state.scheme
                    and (p.last_response.request.state.swap_i, p.last_response.request.state.swap_j)
                    == (p.state.swap_i, p.state.swap_j), timeout=20000)
    return p.last_response



def test_a_small_difference_gets_its_own_symmetric_scale_said_on_screen(qtbot, panel):
    r = _drawn(qtbot, panel, scheme="rope", swap_i=0, swap_j=1)
    top = float(np.abs(r.difference).max())
    outputs = float(max(np.abs(r.before.outputs).max(), np.abs(r.outputs_after_relabelled).max()))
    assert 1e-6 < top < 0.5 * outputs  # a difference the outputs' scale washed out
    lo, hi = panel.out_diff.colorbar.levels()
    assert lo == -hi and top <= hi < 1.1 * top, (lo, hi, top)  # the data's own max, rounded up at 2 digits
    assert math.isclose(hi, float(scale_text(hi)))
    said = f"±{scale_text(hi)}"
    assert said in panel.out_diff.title(), panel.out_diff.title()
    assert [t for _v, t in panel.out_diff.colorbar.axis._tickLevels[0]] == [f"−{scale_text(hi)}", "0",
                                                                           f"+{scale_text(hi)}"]
    # The other maps keep the outputs' shared scale (and the attention maps their [0, 1]).
    assert panel.out_before.colorbar.levels() == panel.out_after.colorbar.levels() == (-outputs, outputs)
    assert panel.before_map.colorbar.levels() == (0.0, 1.0)
    assert panel.out_before.colorbar.axis._tickLevels is None


def test_no_difference_reads_as_zero_not_as_blown_up_noise(qtbot, panel):
    r = panel.last_response  # NoPE: the outputs move with their words, to the last bit
    assert r.verdict == "equivariant" and np.abs(r.difference).max() < 1e-9
    outputs = float(max(np.abs(r.before.outputs).max(), np.abs(r.outputs_after_relabelled).max()))
    lo, hi = panel.out_diff.colorbar.levels()
    assert lo == -hi and outputs <= hi < 1.1 * outputs  # the outputs' scale: noise stays the colour of zero
    assert panel.out_diff.title().startswith("After − before: 0")
    assert f"{r.max_relabel_error:.1e}" in panel.out_diff.title()


@pytest.mark.parametrize(("values", "scale"), [
    ([0.3412, -0.1], 0.35), ([-0.35], 0.35), ([0.1], 0.1), ([1.234], 1.3), ([123.4], 130.0),
    ([0.00123], 0.0013), ([0.0, 0.0], None), ([1e-16, -3e-17], None), ([np.nan, np.nan], None),
    ([np.nan, 0.2, -np.inf], 0.2),
])
def test_the_scale_is_the_largest_finite_size_rounded_up(values, scale):
    got = symmetric_scale(np.array(values), 1e-9)
    assert got == (None if scale is None else pytest.approx(scale, rel=1e-12))


def test_the_title_says_the_scale_or_that_there_is_none():
    assert difference_title(np.array([0.3, -0.1]), 0.35, 0.3) == "After − before: ±0.35"
    assert difference_title(np.zeros(3), None, 0.0) == "After − before: 0 (max |Δ| 0.0e+00)"
    assert difference_title(np.full(3, np.nan), None, math.nan) == "After − before: not a number"
    assert [scale_text(s) for s in (0.35, 12.0, 130.0, 3.4e-5, 0.0)] == ["0.35", "12", "130", "3.4e-05", "0"]


@pytest.mark.parametrize("presenter", [False, True], ids=["dark", "presenter-dark"])
def test_dark_themes_draw_zero_dark(qtbot, panel, presenter):
    """A diverging map's zero was CET-D1A's near-white on the dark themes: glaring blocks where nothing changed."""
    from explorer.widgets.theming import theme_bus

    theme = screen_theme("dark", presenter=presenter)
    theme_bus().set_look(theme)
    panel.apply_theme(theme)  # what the window does on themeChanged
    for m in (panel.before_map, panel.after_map):  # a row that sums to exactly 1 was a white block too
        one = m.sums.getColorMap().map(np.array([1.0]), mode="byte")[0][:3]
        assert float(cielab_lightness(np.array(one))) < 25, one
    for out_map in (panel.out_before, panel.out_after, panel.out_diff):
        for cmap in (out_map.image.getColorMap(), out_map.colorbar.colorMap()):
            zero = cmap.map(np.array([0.5]), mode="byte")[0][:3]
            assert float(cielab_lightness(np.array(zero))) < 25, (out_map.title(), cmap.name, zero)
    theme_bus().set_look(screen_theme("light"))
    panel.apply_theme(screen_theme("light"))
    zero = panel.out_diff.image.getColorMap().map(np.array([0.5]), mode="byte")[0][:3]
    assert float(cielab_lightness(np.array(zero))) > 85  # light: zero is the light page it sits on


def test_while_a_slider_is_held_the_output_scale_only_grows_and_is_exact_again_when_let_go(qtbot, panel):
    def outputs_max():
        r = panel.last_response
        return float(max(np.abs(r.before.outputs).max(), np.abs(r.outputs_after_relabelled).max()))

    def drawn(**changes):
        panel.set_state(panel.state.clamped(**changes))
        qtbot.waitUntil(lambda: panel.last_response.request.state == panel.state and not panel.waiting,
                        timeout=20000)
        return panel.out_before.colorbar.levels()[1]

    _drawn(qtbot, panel, scheme="sinusoidal")
    exact = drawn(alpha=1.0)
    assert exact == pytest.approx(outputs_max())
    _handle(panel).setSliderDown(True)
    held = [drawn(alpha=a) for a in (0.9, 0.8, 0.7)]
    assert held == [exact] * 3  # the data stay inside the scale: the colour bar's axis is left as it is
    assert panel.out_after.colorbar.levels()[1] == exact  # one scale for before and after
    grown = drawn(alpha=2.5)  # held, the data beyond the scale: it grows, for both
    assert grown > exact and panel.out_after.colorbar.levels() == panel.out_before.colorbar.levels()
    drawn(alpha=1.0)
    _handle(panel).setSliderDown(False)  # let go: the data's own largest value again
    qtbot.waitUntil(lambda: panel.out_before.colorbar.levels()[1] == pytest.approx(outputs_max()), timeout=5000)
    assert panel.out_before.colorbar.levels()[1] < grown


def test_while_a_slider_is_held_the_difference_scale_and_its_title_are_held_and_exact_again_when_let_go(
        qtbot, panel):
    def drawn(**changes):
        panel.set_state(panel.state.clamped(**changes))
        qtbot.waitUntil(lambda: panel.last_response.request.state == panel.state and not panel.waiting,
                        timeout=20000)
        r = panel.last_response
        return panel.out_diff.colorbar.levels()[1], panel.out_diff.title(), float(np.abs(r.difference).max())

    _drawn(qtbot, panel, scheme="sinusoidal")
    exact, title, top = drawn(alpha=1.0)
    assert exact == symmetric_scale(panel.last_response.difference, 1e-9) and f"±{scale_text(exact)}" in title
    _handle(panel).setSliderDown(True)
    held = [drawn(alpha=a) for a in (0.98, 0.96, 0.94)]
    assert all(top <= scale for scale, _t, top in held)  # every difference stays inside the colours shown
    assert {(scale, t) for scale, t, _top in held} == {(exact, title)}  # the bar's ticks and the title stay put
    grown, grown_title, top = drawn(alpha=3.0)  # beyond the scale: it grows, rounded as the title says it
    assert top <= grown and grown == float(scale_text(grown)) and f"±{scale_text(grown)}" in grown_title
    assert [t for _v, t in panel.out_diff.colorbar.axis._tickLevels[0]][2] == f"+{scale_text(grown)}"
    shrunk, _t, top = drawn(alpha=0.2)  # far below it: it shrinks again (a held scale is never 1.5× the data's)
    assert top <= shrunk < grown
    _handle(panel).setSliderDown(False)  # let go: the difference's own scale again
    qtbot.waitUntil(lambda: panel.out_diff.colorbar.levels()[1]
                    == symmetric_scale(panel.last_response.difference, 1e-9), timeout=5000)
    assert panel.out_diff.title() == difference_title(panel.last_response.difference,
                                                      panel.out_diff.colorbar.levels()[1],
                                                      panel.last_response.max_relabel_error)


@pytest.mark.parametrize(("shown", "needed", "kept"), [
    (0.35, 0.3, 0.35), (0.35, 0.35, 0.35), (0.35, 0.24, 0.35), (0.35, 0.2, 0.22), (0.35, 0.36, 0.4),
    (None, 0.3, 0.3), (0.35, None, None), (None, None, None),
])
def test_a_held_difference_scale_holds_the_data_within_its_slack_and_reads_in_two_digits(shown, needed, kept):
    got = held_difference_scale(shown, needed)
    assert got == (None if kept is None else pytest.approx(kept, rel=1e-12))
    if got is not None:
        assert needed <= got <= HOLD_SLACK * needed and float(scale_text(got)) == got


def _handle(panel):
    """The QSlider inside the panel's main slider (what a hand holds)."""
    from PySide6.QtWidgets import QAbstractSlider

    return panel.main_slider().findChildren(QAbstractSlider)[0]


def test_a_held_slider_measures_the_maps_again_only_for_new_words(qtbot, panel, monkeypatch):
    """The maps' cells are fitted to their axes after new words or a new text size; an α step while a slider is held
    changes no axis and asks for no fit (it was a timer and a walk over every map at each drag step), and letting go
    asks for one."""
    fits = []
    monkeypatch.setattr(panel.maps_grid, "schedule_fit", lambda: fits.append(panel.state.alpha))

    def drawn(**changes):
        panel.set_state(panel.state.clamped(**changes))
        qtbot.waitUntil(lambda: panel.last_response.request.state == panel.state and not panel.waiting,
                        timeout=20000)

    _drawn(qtbot, panel, scheme="sinusoidal")
    _handle(panel).setSliderDown(True)
    fits.clear()
    drawn(alpha=0.9)
    drawn(alpha=0.8)
    assert fits == []  # held, the same words: no fit
    drawn(sentence="a cat sat")
    assert fits == [0.8]  # held, new words: fitted
    _handle(panel).setSliderDown(False)
    qtbot.waitUntil(lambda: len(fits) == 2, timeout=5000)  # let go: fitted again


def test_a_result_is_drawn_in_two_turns_the_attention_maps_first_then_the_outputs(qtbot, panel):
    """Six plots repainted in one turn were the panel's longest stall: the maps and bars are drawn and painted, then
    the outputs; until then each plot shows, and exports, the result it was drawn from."""
    old = _drawn(qtbot, panel, scheme="sinusoidal")
    seen = []
    real = panel.frames._draw

    def draw(key, item):
        real(key, item)
        seen.append((key, panel.shown_response("before"), panel.shown_response("out_diff"),
                     panel.export_data(panel.out_diff)["after - before [token, component]"]))

    panel.frames._draw = draw
    new = _drawn(qtbot, panel, swap_i=1, swap_j=2)
    qtbot.waitUntil(lambda: not panel.waiting)
    assert new is not old
    assert [key[1] for key, *_ in seen] == ["attention", "outputs"]
    (_k, attention, outputs, exported), (_k2, attention2, outputs2, exported2) = seen
    assert attention is new and outputs is old and np.array_equal(exported, old.difference)
    assert attention2 is outputs2 is new and np.array_equal(exported2, new.difference)
