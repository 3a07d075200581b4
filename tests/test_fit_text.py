"""Text that fits its room (issue 14): plot titles elided, never widening a plot; tick labels that do not
run together; the formula strip kept to two lines; the Lab's legends only where they fit, one key otherwise."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF

from explorer.widgets.formula_strip import FormulaStrip, lines_at
from explorer.widgets.log_ticks import nice_at_least, thinned
from explorer.widgets.plots import make_plot
from explorer.widgets.titles import full_title

LONG = "Accuracy by position (length 256, mean of 4 streams, every scheme that ran)"


def _min_width(plot) -> float:
    return plot.getPlotItem().effectiveSizeHint(Qt.SizeHint.MinimumSize).width()


def test_a_long_title_is_elided_and_never_widens_its_plot(qtbot):
    plot = make_plot(LONG, x="position", y="accuracy")
    qtbot.addWidget(plot)
    plot.resize(260, 200)
    plot.show()
    qtbot.waitExposed(plot)
    pi = plot.getPlotItem()
    qtbot.waitUntil(lambda: pi.titleLabel.text.endswith("…"), timeout=2000)
    assert _min_width(plot) < 200  # pyqtgraph made it the title's width (~560 px)
    assert pi.width() <= plot.viewport().width() + 0.5
    shown = pi.titleLabel.item.mapRectToScene(pi.titleLabel.item.boundingRect())
    assert shown.left() >= 0 and shown.right() <= plot.viewport().width()
    assert full_title(pi) == LONG  # export names and data files keep the whole title
    plot.resize(1200, 300)  # room again: the whole title comes back
    qtbot.waitUntil(lambda: pi.titleLabel.text == LONG, timeout=2000)
    pi.setTitle("Short")
    assert pi.titleLabel.text == "Short" and full_title(pi) == "Short"


def test_rich_titles_show_whole_where_they_fit_and_as_plain_elided_text_where_not(qtbot):
    rich = "Bound Σ<sub>j</sub> |S<sub>j</sub>(Δ)| over every distance the model never saw in training, k&lt;j"
    plot = make_plot(rich)
    qtbot.addWidget(plot)
    plot.resize(1400, 200)
    plot.show()
    qtbot.waitExposed(plot)
    pi = plot.getPlotItem()
    qtbot.waitUntil(lambda: pi.titleLabel.text == rich, timeout=2000)
    plot.resize(240, 200)
    qtbot.waitUntil(lambda: pi.titleLabel.text.endswith("…"), timeout=2000)
    assert "<sub>" not in pi.titleLabel.text and pi.titleLabel.text.startswith("Bound Σj")
    assert full_title(pi) == rich


def test_named_ticks_are_thinned_so_labels_never_overlap():
    ticks = [(float(v), str(v)) for v in (32, 48, 64, 96, 128, 192, 256)]
    width = {t: 10.0 * len(t) for _v, t in ticks}.__getitem__
    at = zip((32, 48, 64, 96, 128, 192, 256), (0, 20, 35, 55, 70, 90, 105), strict=True)
    pixel = {float(v): x for v, x in at}.__getitem__
    shown = thinned(ticks, pixel, width, keep=("64",), gap=4)
    assert ("64", "256") == tuple(t for _v, t in shown if t in ("64", "256"))  # kept first, then the ends
    xs = [(pixel(v), width(t)) for v, t in shown]
    assert all(b[0] - a[0] >= (a[1] + b[1]) / 2 + 4 for a, b in zip(xs, xs[1:], strict=False))
    roomy = thinned(ticks, lambda v: v * 10, width)
    assert roomy == ticks  # every label where they all fit


@pytest.mark.parametrize("step, nice", [(0.7, 1), (1, 1), (1.01, 2), (3.9, 5), (394, 500), (5001, 10000)])
def test_nice_steps(step, nice):
    assert nice_at_least(step) == pytest.approx(nice)


def test_linear_tick_labels_leave_room_on_a_narrow_plot(qtbot):
    plot = make_plot("x", x="key position j")
    qtbot.addWidget(plot)
    axis = plot.getPlotItem().getAxis("bottom")
    font = QFont()
    font.setPointSizeF(18)  # presenter size
    axis.setStyle(tickFont=font)
    levels = axis.tickSpacing(0.0, 1023.0, 150.0)
    labels = [f"{v:g}" for v in range(0, 1024, int(levels[0][0]))]
    need = max(QFontMetricsF(font).horizontalAdvance(t) for t in labels)
    assert 150.0 / (1023.0 / levels[0][0]) >= need  # each label has its width (it was 200 apart: 29 px)
    wide = axis.tickSpacing(0.0, 1023.0, 1500.0)
    assert wide[0][0] <= 200  # a wide plot keeps pyqtgraph's spacing


def test_formula_strip_steps_its_font_down_to_keep_two_lines(qtbot):
    strip = FormulaStrip()
    qtbot.addWidget(strip)
    strip.setWordWrap(True)
    strip.setTextFormat(Qt.TextFormat.RichText)
    strip.resize(700, 200)
    strip.show()
    text = ("x<sub>t+1</sub> = T[x<sub>t−1</sub>, x<sub>t</sub>] · " * 6).strip(" ·")
    strip.setText(text)
    strip.set_look(lambda pt: f"QLabel {{ font-size: {pt:g}pt; }}", 24.0, 12.0)
    assert 16.8 <= strip.point_size() < 24.0  # smaller than wanted, never below 70 % of it
    font = QFont(strip.font())
    font.setPointSizeF(strip.point_size())
    assert lines_at(text, font, 700 - 16) <= 2.5 or strip.point_size() == pytest.approx(16.8)
    strip.setText("short")
    assert strip.point_size() == 24.0  # room again: the size asked for
    strip.setText("a<br>b<br>c")  # a formula per line keeps its lines at the size asked for
    assert strip.point_size() == 24.0


def test_lab_legends_give_way_to_one_key_on_a_small_plot(qtbot):
    from explorer.panels.lab import LabPanel
    from explorer.service import ComputeService

    service = ComputeService(warm_up=False)
    panel = LabPanel(service)
    qtbot.addWidget(panel)
    panel.resize(1900, 1000)
    panel.show()
    qtbot.waitExposed(panel)
    schemes = ["nope", "sinusoidal", "learned", "rope", "alibi"]
    panel.loss_view.prepare(schemes, 100, 0.8, 2.5)
    legend = panel.loss_view.legend
    qtbot.waitUntil(lambda: legend.isVisible(), timeout=3000)
    assert len(legend.items) == len(schemes)  # one row per scheme: its trailing mean, not each step's loss
    assert not panel.key.isVisible()
    panel.resize(900, 420)  # a small projector's share
    qtbot.waitUntil(lambda: not legend.isVisible(), timeout=3000)
    assert panel.loss_view.placer.hidden_for_room and legend.maximumHeight() == 0  # its room given back
    qtbot.waitUntil(lambda: panel.key.isVisible(), timeout=3000)
    assert all(n in panel.key.text() for n in ("NoPE", "Sinusoidal", "Learned", "RoPE", "ALiBi"))
    panel.resize(1900, 1000)
    qtbot.waitUntil(lambda: legend.isVisible() and not panel.key.isVisible(), timeout=3000)
    service.stop()


def _left_axis(qtbot, title: str, height: int):
    plot = make_plot("x", y=title)
    qtbot.addWidget(plot)
    plot.resize(400, height)
    plot.show()
    qtbot.waitExposed(plot)
    return plot, plot.getPlotItem().getAxis("left")


def _inside(axis) -> bool:
    shown = axis.label.mapRectToItem(axis, axis.label.boundingRect())
    return shown.top() >= -1 and shown.bottom() <= axis.size().height() + 1


def test_an_axis_label_longer_than_its_axis_is_shortened_at_a_word_whole_in_its_tooltip(qtbot):
    """A title longer than its axis loses its trailing "(…)", then words from its end, and keeps its size: the
    presenter-size title shrank to 15 px on a 21-px body (issue 27); the whole title is the axis's tooltip."""
    plot, axis = _left_axis(qtbot, "cross-entropy of the model (nats)", 800)
    qtbot.waitUntil(lambda: axis.label.scale() == 1.0, timeout=2000)  # room enough: whole, full size
    assert axis.label.toPlainText().strip() == "cross-entropy of the model (nats)" and not axis.toolTip()
    plot.resize(400, 290)
    qtbot.waitUntil(lambda: axis.label.toPlainText().strip() == "cross-entropy of the model", timeout=2000)
    assert axis.label.scale() == 1.0 and axis.toolTip() == "cross-entropy of the model (nats)" and _inside(axis)
    plot.resize(400, 200)
    qtbot.waitUntil(lambda: axis.label.toPlainText().strip().endswith("…"), timeout=2000)
    shown = axis.label.toPlainText().strip()
    assert "cross-entropy of the model".startswith(shown[:-1]) and shown[:-1].endswith(("entropy", "of", "the"))
    assert axis.label.scale() == 1.0 and _inside(axis)
    plot.resize(400, 800)  # room again: the whole title, the tooltip gone
    qtbot.waitUntil(lambda: "(nats)" in axis.label.toPlainText(), timeout=2000)
    assert not axis.toolTip()
    plot.getPlotItem().setLabel("left", "a new title")  # a new label is fitted from its own whole text
    qtbot.waitUntil(lambda: axis.label.toPlainText().strip() == "a new title", timeout=2000)
    font = axis.label_font()
    assert axis.label_forms("accuracy (%)", font, 1000) == ["accuracy"]
    assert axis.label_forms("PE(p)·PE(p+Δ) / (d/2)", font, 1000) == []  # a divisor is not a note
    assert axis.label_forms("similarity (PE(p)·PE(p+Δ) / (d/2))", font, 1000) == ["similarity"]
    assert axis.label_forms("f(x)", font, 1000) == []  # a call, not a note


def test_an_axis_label_no_form_of_which_fits_is_drawn_smaller_not_cut(qtbot):
    from explorer.widgets.titles import AXIS_LABEL_MIN_SCALE

    plot, axis = _left_axis(qtbot, "slower◀pair◀i▶FASTER", 800)  # one word: no cut at a word
    qtbot.waitUntil(lambda: axis.label.scale() == 1.0, timeout=2000)
    plot.resize(400, 150)
    qtbot.waitUntil(lambda: axis.label.scale() < 1.0, timeout=2000)
    if axis.label.scale() > AXIS_LABEL_MIN_SCALE:
        assert _inside(axis)
    assert "FASTER" in axis.label.toPlainText()  # the whole text, smaller


def test_declutter_hides_the_less_telling_of_two_labels_that_meet(qtbot):
    import pyqtgraph as pg

    from explorer.widgets.titles import declutter

    plot = pg.PlotWidget()  # pyqtgraph's own plot: the app's would move the labels apart before declutter sees them
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.show()
    qtbot.waitExposed(plot)
    first, second, apart = pg.TextItem("L_train = 128"), pg.TextItem("2π: lower bound"), pg.TextItem("N = 256")
    for item, (x, y) in ((first, (0.5, 0.5)), (second, (0.52, 0.5)), (apart, (0.1, 0.9))):
        plot.addItem(item)
        item.setPos(x, y)
    plot.getPlotItem().setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    declutter([first, second, apart])
    assert first.isVisible() and not second.isVisible() and apart.isVisible()
    second.setPos(0.5, 0.1)  # apart now: both shown
    declutter([first, second, apart])
    assert second.isVisible()


def test_lab_table_headers_and_key_use_the_themes_colours(qtbot):
    """In the dark theme NoPE's grey header was dim on black: the names take their curves' mapped colours."""
    from PySide6.QtGui import QColor

    from explorer.panels.lab import LabPanel
    from explorer.panels.lab.common import SCHEME_COLOURS
    from explorer.service import ComputeService
    from explorer.theme import DARK

    service = ComputeService(warm_up=False)
    panel = LabPanel(service)
    qtbot.addWidget(panel)
    panel.table.prepare(["nope", "rope"], [8, 16], 8)
    panel.apply_theme(DARK)
    header = panel.table.verticalHeaderItem(0).foreground().color()  # schemes are the rows
    r, g, b, _a = DARK.map_colour(QColor(SCHEME_COLOURS["nope"]).getRgb())
    assert header == QColor(r, g, b) and header.lightness() > QColor(SCHEME_COLOURS["nope"]).lightness()
    service.stop()


def test_a_title_cut_where_a_space_falls_keeps_its_last_whole_word(qtbot):
    """Qt's cut can end on the space after a word; that word is whole and stays ("Query “saw”…", not "Query…")."""
    from PySide6.QtGui import QFont, QFontMetricsF

    from explorer.widgets.titles import elided

    font = QFont()
    text = "Query “saw” (2) against every key"
    metrics = QFontMetricsF(font)
    first = int(metrics.horizontalAdvance("Query…")) + 1  # below that the first word is the one thing cut
    for width in range(first, int(metrics.horizontalAdvance(text)), 3):
        shown = elided(text, font, width)
        kept = shown[:-1]
        words = kept.split()
        assert not words or text.split()[: len(words)] == words, (width, shown)
        room = [w for w in range(1, len(text.split())) if metrics.horizontalAdvance(" ".join(text.split()[:w]) + "…")
                <= width]
        assert len(words) == (max(room) if room else len(words)), (width, shown)  # no whole word dropped
