"""What a drag frame does not redo: no relayout for changing text, annotations placed at most every 100 ms,
the Waves spectrum's range, axis and line labels left alone while only the data moves (docs/performance.md).

Counts of work done, never times: the bench measures the milliseconds."""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLabel, QSlider, QVBoxLayout, QWidget

from explorer.panels.waves import WavesPanel
from explorer.state import WavesState
from explorer.widgets import annotation_place
from explorer.widgets.plots import make_plot
from explorer.widgets.text_pin import EVERY_MS, LiveLabel, TextPin

SETTLE_MS = 20000


class _LayoutRequests(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def _column(qtbot):
    outer = QWidget()
    col = QVBoxLayout(outer)
    label = LiveLabel("x = 1")
    label.setWordWrap(True)
    still = QLabel("a label whose text never changes")
    col.addWidget(still)
    slider = QSlider()
    col.addWidget(label)
    col.addWidget(slider)
    qtbot.addWidget(outer)
    outer.resize(300, 200)
    outer.show()
    qtbot.waitExposed(outer)
    pin = TextPin(outer)
    pin.watch(outer)
    requests = _LayoutRequests()
    outer.installEventFilter(requests)
    outer.still = still
    return outer, label, slider, pin, requests


@pytest.mark.parametrize("held", [True, False])
def test_a_label_whose_text_changes_while_a_slider_is_held_relays_out_nothing(qtbot, held):
    outer, label, slider, pin, requests = _column(qtbot)
    if held:
        slider.setSliderDown(True)
        assert pin.pinned
        still_size = (outer.still.minimumSize(), outer.still.maximumSize())
        label.setText("x = 2")  # the first change: the label keeps the size it has from now on
    qtbot.wait(20)
    requests.count = 0
    for k in range(5):
        label.setText(f"x = {10 ** k} and a longer text than before, wrapped over lines " * (k % 2 + 1))
        qtbot.wait(5)
    if held:
        assert requests.count == 0
        # A label whose text did not change is never touched (pinning every label at the grab re-laid out all).
        assert (outer.still.minimumSize(), outer.still.maximumSize()) == still_size
        assert outer.still.minimumSize() != outer.still.maximumSize()
    else:  # the check can fail: without a held slider every change asks the column to lay out again
        assert requests.count >= 4


def test_letting_go_gives_the_label_the_size_its_last_text_needs(qtbot):
    outer, label, slider, pin, _ = _column(qtbot)
    low, high = label.minimumSize(), label.maximumSize()
    slider.setSliderDown(True)
    before = label.height()
    label.setText("a text long enough to need three or four lines in a column three hundred pixels wide " * 3)
    qtbot.wait(20)
    assert label.height() == before  # pinned: cut at its edge while held
    slider.setSliderDown(False)
    assert not pin.pinned
    # Its limits back in a turn of its own, not in the release's batch of posted events (with the last paint).
    assert label.minimumSize() == label.maximumSize() != high
    qtbot.waitUntil(lambda: (label.minimumSize(), label.maximumSize()) == (low, high), timeout=2000)
    qtbot.waitUntil(lambda: label.height() > before, timeout=2000)


def test_a_slider_held_again_before_the_labels_got_their_sizes_back_keeps_them_held(qtbot):
    outer, label, slider, pin, _ = _column(qtbot)
    slider.setSliderDown(True)
    label.setText("x = 2")
    size = label.size()
    slider.setSliderDown(False)
    slider.setSliderDown(True)  # grabbed again at once
    qtbot.wait(20)
    assert label.minimumSize() == label.maximumSize() == size
    slider.setSliderDown(False)
    qtbot.waitUntil(lambda: label.minimumSize() != label.maximumSize(), timeout=2000)


def test_a_wide_wrapped_label_asks_for_no_more_width_after_a_drag_than_before(qtbot):
    outer, label, slider, pin, _ = _column(qtbot)
    outer.resize(900, 200)
    label.setText("a formula strip as wide as its panel, in words that wrap: " * 6)
    qtbot.wait(20)
    before = label.minimumSizeHint().width()
    slider.setSliderDown(True)
    label.setText("a formula strip as wide as its panel, in words that wrap, new numbers: " * 6)
    assert label.minimumSizeHint().width() > before  # worked out within the pinned width
    slider.setSliderDown(False)
    qtbot.waitUntil(lambda: label.minimumSizeHint().width() <= before + 20, timeout=2000)  # worked out anew


def test_a_slider_hidden_while_held_lets_go_at_once(qtbot):
    """Qt sends no release for a slider hidden while held (another panel put on stage from the keyboard, a drawer
    closed): the hide lets go, or the pin (and the UI thread's one core, explorer.service.cores) would stay until a
    slider of the panel was let go again."""
    outer, label, slider, pin, _ = _column(qtbot)
    other = QSlider(outer)
    outer.layout().addWidget(other)
    other.show()
    pin.watch(other.parentWidget())
    slider.setSliderDown(True)
    assert pin.pinned
    slider.hide()  # held, then hidden: its release never comes
    assert not pin.pinned and not pin.holding
    other.setSliderDown(True)
    assert pin.holding
    other.setSliderDown(False)
    assert not pin.pinned and not pin.holding


def test_a_label_deleted_while_pinned_is_skipped_on_release(qtbot):
    outer, label, slider, pin, _ = _column(qtbot)
    slider.setSliderDown(True)
    label.deleteLater()
    qtbot.wait(10)
    slider.setSliderDown(False)
    assert not pin.pinned


def test_a_panel_deleted_while_its_slider_is_held_pins_no_other_label(qtbot):
    outer, label, slider, pin, _ = _column(qtbot)
    slider.setSliderDown(True)
    assert pin.pinned
    outer.deleteLater()  # the panel goes (a window closed mid-drag) with its pin armed
    qtbot.wait(10)
    other = LiveLabel("y = 1")
    qtbot.addWidget(other)
    other.setText("y = 2")  # asks the armed pins whether they cover it: the deleted panel's must not raise
    assert other.text() == "y = 2" and not pin.pinned


def _marked_plot(qtbot):
    """A shown 480 × 320 plot with a vertical line labelled "a mark": the plot (kept by the caller: it has no
    parent), its PlotItem and the line."""
    pw = make_plot("Marks", x="x", y="y")
    qtbot.addWidget(pw)
    pw.resize(480, 320)
    pw.show()
    qtbot.waitExposed(pw)
    pi = pw.getPlotItem()
    line = pg.InfiniteLine(0.5, angle=90, label="a mark", labelOpts={"position": 0.8})
    pi.addItem(line)
    return pw, pi, line


def test_annotations_are_placed_at_most_every_interval_while_changes_keep_coming(qtbot, monkeypatch):
    _pw, pi, _line = _marked_plot(qtbot)
    curve = pi.plot([0, 1], [0, 1])
    placer = pi.annotations
    calls: list[float] = []
    real = placer.place
    monkeypatch.setattr(placer, "place", lambda: (calls.append(time.monotonic()), real())[1])
    placer._timer.timeout.disconnect()
    placer._timer.timeout.connect(placer.place)
    qtbot.wait(annotation_place.EVERY_MS + 50)
    calls.clear()
    # 30 frames of new data, 16 ms apart: about 500 ms, so about five placements, not thirty.  A loaded machine
    # stretches the frames; the placements then come further apart, never closer.
    t0 = time.monotonic()
    for k in range(30):
        curve.setData([0, 1], [0, 1 + 0.01 * k])
        qtbot.wait(16)
    span_ms = (time.monotonic() - t0) * 1e3
    # The last change is placed: nothing is left due once the changes stop.
    qtbot.waitUntil(lambda: not placer._pending and not placer._timer.isActive(), timeout=5000)
    gaps = np.diff(calls) * 1e3
    assert len(calls) >= 2 and gaps.min() >= 0.9 * annotation_place.EVERY_MS  # (coarse timers fire up to 5% early)
    assert len(calls) <= span_ms // annotation_place.EVERY_MS + 3


def test_placing_a_shown_lines_label_again_sets_neither_its_text_nor_its_place_anew(qtbot):
    """Showing a line's label sets its text (a layout) and its place again (pyqtgraph's InfLineLabel): a placement
    shows only the labels it had hidden (a fifth of the Spectrum's placement time went to showing shown labels)."""
    _pw, pi, line = _marked_plot(qtbot)
    curve = pi.plot([0, 1], [0, 0.1])
    placer = pi.annotations
    placer.place()
    assert line.label.isVisible()
    shown = []
    real = line.label.valueChanged
    line.label.valueChanged = lambda: (shown.append(1), real())[1]
    for k in range(3):  # new data each time: each placement tries the label again
        curve.setData([0, 1], [0, 0.1 + 0.01 * k])
        placer.place()
    assert line.label.isVisible() and shown == []


def test_a_first_change_after_a_quiet_spell_is_placed_at_once(qtbot):
    pw = make_plot("Marks", x="x", y="y")
    qtbot.addWidget(pw)
    pw.show()
    qtbot.waitExposed(pw)
    pw.getPlotItem().addItem(pg.InfiniteLine(0.5, angle=90, label="a mark"))
    placer = pw.getPlotItem().annotations
    qtbot.waitUntil(lambda: not placer._timer.isActive(), timeout=2000)
    qtbot.wait(annotation_place.EVERY_MS + 20)
    placer.schedule()
    assert placer._timer.isActive() and placer._timer.remainingTime() == 0


@pytest.fixture
def waves(qtbot, service):
    p = WavesPanel(service, WavesState().clamped(n_positions=256, d_model=64))
    qtbot.addWidget(p)
    p.resize(1440, 860)
    p.show()
    qtbot.waitExposed(p)
    _settle(qtbot, p)
    yield p
    p.shutdown()


def _settle(qtbot, panel):
    """Drawn, nothing asked, and no re-request of its own still to come (a late relayout restarts Waves' range
    timer)."""
    timers = [t for t in (getattr(panel, "_range_timer", None), getattr(panel, "_stale_timer", None)) if t is not None]
    qtbot.waitUntil(lambda: panel.has_drawn and not panel.waiting and panel.service.idle()
                    and not any(t.isActive() for t in timers), timeout=SETTLE_MS)


def test_a_base_drag_inside_a_quarter_decade_leaves_the_spectrums_range(qtbot, waves):
    spectrum = waves.spectrum
    ranges = []
    spectrum.vb.sigRangeChanged.connect(lambda *_: ranges.append(1))
    for base in (10000.0, 10400.0, 10800.0, 11200.0):  # log10(2π·base) stays inside one quarter decade
        waves.set_state(waves.state.clamped(base=base))
        _settle(qtbot, waves)
    assert ranges == []
    top = spectrum.vb.viewRange()[1][1]
    # A wheel zoom by hand lasts until the next result, which sets the range again, as before.
    vp = spectrum.plot.viewport()
    centre = QPointF(vp.width() / 2, vp.height() / 2)
    QApplication.sendEvent(vp, QWheelEvent(centre, vp.mapToGlobal(centre), QPoint(0, 0), QPoint(0, 240),
                                           Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                                           Qt.ScrollPhase.NoScrollPhase, False))
    assert spectrum.vb.viewRange()[1][1] != pytest.approx(top)
    waves.set_state(waves.state.clamped(base=10600.0))
    _settle(qtbot, waves)
    assert spectrum.vb.viewRange()[1][1] == pytest.approx(top)
    waves.set_state(waves.state.clamped(base=10 ** 6))  # 2π·base far above: the range follows
    _settle(qtbot, waves)
    assert spectrum.vb.viewRange()[1][1] > top
    waves.set_state(waves.state.clamped(n_positions=200))  # N changes: its line's label says so
    _settle(qtbot, waves)
    assert spectrum.n_line.label.toPlainText() == "N−1 = 199"


def _curves_drawn(qtbot, panel):
    """While a slider is held (hidden views' requests wait: the panel is never "settled"): the curves of the
    panel's state are drawn."""
    qtbot.waitUntil(lambda: panel.responses["waves.curves"].request.base == panel.state.base
                    and not panel.frames.pending, timeout=SETTLE_MS)


def test_while_held_the_spectrums_range_only_grows_and_fits_again_when_let_go(qtbot, waves):
    spectrum = waves.spectrum
    slider = waves.main_slider()
    waves.set_state(waves.state.clamped(base=10 ** 5))
    _settle(qtbot, waves)
    fitted = spectrum.vb.viewRange()[1][1]
    slider.setSliderDown(True)
    waves.set_state(waves.state.clamped(base=10 ** 4.2))  # held: the lines fall almost a decade, the top stays
    _curves_drawn(qtbot, waves)
    assert spectrum.fast and spectrum.vb.viewRange()[1][1] == pytest.approx(fitted)
    waves.set_state(waves.state.clamped(base=10 ** 5.6))  # held, the lines above the top: it grows
    _curves_drawn(qtbot, waves)
    grown = spectrum.vb.viewRange()[1][1]
    assert grown > fitted
    waves.set_state(waves.state.clamped(base=10 ** 4.2))
    _curves_drawn(qtbot, waves)
    assert spectrum.vb.viewRange()[1][1] == pytest.approx(grown)
    slider.setSliderDown(False)  # let go: the top fits the lines again
    _settle(qtbot, waves)
    assert not spectrum.fast and spectrum.vb.viewRange()[1][1] < fitted - 0.5


@pytest.mark.parametrize("prepared", [True, False])
def test_a_held_drag_that_grows_the_spectrums_range_leaves_nothing_for_the_paint_to_move(qtbot, waves, monkeypatch,
                                                                                         prepared):
    """pyqtgraph applies a new range, and moves the labels of the lines with it, when the scene is about to be
    painted (its prepareForPaint): after Qt has processed the scene's changes, so Qt processed the spectrum again
    and painted it a second time in the same turn.  ``Plot.prepare_paint`` in the draw does it first: straight
    after each draw the view's transform and the lines' labels are where the paint would put them (the check can
    fail: without it they are not, at the steps that grow the range)."""
    from PySide6.QtGui import QTransform

    from explorer.widgets.plots import Plot

    if not prepared:
        monkeypatch.setattr(Plot, "prepare_paint", lambda self: None)
    spectrum = waves.spectrum
    labels = [line.label for line in (spectrum.low, spectrum.high, spectrum.n_line, spectrum.train_line)]
    ready: list[bool] = []
    real = spectrum.show_curves

    def show_curves(r, st):
        real(r, st)
        group = spectrum.vb.childGroup
        before = [QTransform(group.transform())] + [QTransform(label.transform()) for label in labels]
        spectrum.vb.updateMatrix()  # what the paint would do first
        for label in labels:
            label.updateTransform()
        ready.append(before == [group.transform()] + [label.transform() for label in labels])

    monkeypatch.setattr(spectrum, "show_curves", show_curves)
    waves.set_state(waves.state.clamped(base=10 ** 1.2))
    _settle(qtbot, waves)
    ready.clear()
    waves.main_slider().setSliderDown(True)
    grew = 0
    for k in range(6):  # each step's lines pass the top: the range grows at (nearly) every one
        top = spectrum.vb.viewRange()[1][1]
        waves.set_state(waves.state.clamped(base=10 ** (1.6 + 1.0 * k)))
        _curves_drawn(qtbot, waves)
        grew += spectrum.vb.viewRange()[1][1] > top
    waves.main_slider().setSliderDown(False)
    assert grew >= 5 and ready
    if prepared:
        assert all(ready), ready
    else:
        assert ready.count(False) >= grew - 1, ready


def test_a_result_two_shown_plots_draw_is_drawn_a_plot_per_turn(qtbot, waves):
    curves = waves.responses["waves.curves"]
    assert {waves.waves, waves.spectrum} <= set(waves.draw_parts(curves))
    shown = []
    for view in (waves.waves, waves.spectrum):
        real = view.show_curves
        view.show_curves = lambda *a, _real=real, _view=view: (shown.append(_view), _real(*a))[1]
    keys = []
    real_draw = waves.frames._draw
    waves.frames._draw = lambda key, item: (keys.append(key), real_draw(key, item))[1]
    waves.set_state(waves.state.clamped(base=20000.0))
    _settle(qtbot, waves)
    assert waves.spectrum in shown and waves.waves in shown
    # The curves in two turns of their own (a whole result would be one draw of the key "waves.curves").
    assert ("waves.curves", waves.waves) in keys and ("waves.curves", waves.spectrum) in keys
    assert "waves.curves" not in keys
    # A part whose view is hidden now waits for its tab, as a whole result's hidden views do.
    assert waves.draw_parts(waves.responses["waves.heatmap"]) == ()


def test_while_held_a_live_label_shows_a_new_text_at_most_every_interval(qtbot):
    outer, label, slider, pin, _ = _column(qtbot)
    label.setText("x = 2")
    label.setText("x = 3")
    assert label.text() == "x = 3"  # not held: at once, every time
    slider.setSliderDown(True)
    label.setText("x = 4")  # the first change of a hold: at once
    assert label.text() == "x = 4"
    for k in range(5, 9):
        label.setText(f"x = {k}")
    assert label.text() == "x = 4"  # within the interval: the newest waits
    qtbot.waitUntil(lambda: label.text() == "x = 8", timeout=2000)
    label.setText("x = 9")
    slider.setSliderDown(False)  # let go: what waited is shown at once
    assert label.text() == "x = 9"


def test_labels_that_waited_for_the_interval_are_shown_one_at_a_time(qtbot):
    """Live labels that changed together (the Waves readouts and formula strip, every 100 ms of a drag) repainted
    together, in the turn that also painted a plot: the ones that waited now come one a frame apart."""
    outer, first, slider, pin, _ = _column(qtbot)
    shown: list[list[str]] = []  # the texts of both, each time one of them shows a new one

    class Logged(LiveLabel):
        def show_text(self, text: str) -> None:
            super().show_text(text)
            # Both texts at the next turn of the event loop (a 0-ms timer: before any later timer's turn).
            QTimer.singleShot(0, self, lambda: shown.append([label.text() for label in others]))

    others = [Logged("y = 1"), Logged("z = 1")]
    for other in others:
        outer.layout().addWidget(other)
    slider.setSliderDown(True)
    first.setText("x = 2")  # the first change of a hold: at once, and the interval starts
    for label in others:
        label.setText(label.text()[0] + " = 2")  # these wait for its end
    assert [label.text() for label in others] == ["y = 1", "z = 1"]
    qtbot.waitUntil(lambda: others[1].text() == "z = 2", timeout=2000)
    qtbot.waitUntil(lambda: len(shown) == 2, timeout=2000)
    assert shown == [["y = 2", "z = 1"], ["y = 2", "z = 2"]]  # the second not in the first one's turn
    others[0].setText("y = 3")
    others[1].setText("z = 3")
    slider.setSliderDown(False)  # let go: everything that waits, at once
    assert [label.text() for label in others] == ["y = 3", "z = 3"]


def test_letting_go_calls_back_once_and_a_release_without_a_hold_not_at_all(qtbot):
    outer, label, slider, pin, _ = _column(qtbot)
    calls = []
    pin.on_release(lambda: calls.append(pin.pinned))
    slider.setSliderDown(True)
    slider.setSliderDown(False)
    assert calls == [False]  # after the pin let go
    pin.unpin()
    assert calls == [False]


def test_while_held_the_lanes_labels_follow_at_most_every_interval(qtbot, waves):
    from explorer.encodings.sinusoidal import wavelengths

    view = waves.waves

    def show(base):
        st = waves.state.clamped(base=base)
        view.show_state(st, wavelengths(st.d_model, st.base, st.variant))
        return view._lane_labels(view.lanes, st.pair, wavelengths(st.d_model, st.base, st.variant))

    view.fast = True
    first = show(20000.0)
    assert view.lane_labels == first  # the first change of a hold: at once
    for base in (21000.0, 22000.0, 23000.0):
        last = show(base)
    assert view.lane_labels == first and last != first  # within the interval: the newest waits
    qtbot.waitUntil(lambda: view.lane_labels == last, timeout=2000)
    show(25000.0)  # waits for the timer ...
    fewer = waves.state.clamped(base=26000.0, pairs=(0, 1), pair=0)
    view.show_state(fewer, wavelengths(fewer.d_model, fewer.base, fewer.variant))  # ... fewer lanes: at once
    assert len(view.lane_labels) == 2
    qtbot.wait(EVERY_MS + 50)
    assert len(view.lane_labels) == 2  # what waited was older: not shown over the new lanes
    final = show(30000.0)
    view.fast = False  # let go: the last step's labels, now
    assert view.lane_labels == final
    show(40000.0)
    assert view.lane_labels != final  # not held: every change at once


def test_new_data_draws_no_new_symbols(qtbot, waves):
    spectrum, lanes = waves.spectrum, waves.waves
    atlases = [spectrum.dots.fragmentAtlas, spectrum.lane_points.fragmentAtlas, spectrum.pick_point.fragmentAtlas,
               lanes.markers.fragmentAtlas]
    sizes = [len(a) for a in atlases]
    assert all(sizes)
    for base in (12000.0, 14000.0, 16000.0):
        waves.set_state(waves.state.clamped(base=base))
        _settle(qtbot, waves)
    # The same symbols, pens and brushes: drawn once (a colour given as a string was a new brush, and a new
    # symbol in the atlas, at every update).
    assert [len(a) for a in atlases] == sizes


def test_a_value_box_given_the_text_it_shows_is_left_alone(qtbot):
    from explorer.widgets.sliders import LabeledFloatSlider

    s = LabeledFloatSlider()
    qtbot.addWidget(s)
    s.setRange(0.0, 3.0)
    s.setValue(1.5)
    box = s.line_edit()
    box.setCursorPosition(1)
    s.setValue(1.5)  # the same value, the same text: the box is not set again (a repaint, the cursor moved)
    assert box.cursorPosition() == 1
    s.setValue(2.0)
    assert box.text() == s.line_edit().text() != "1.50" and box.cursorPosition() == len(box.text())


def test_a_heatmap_given_the_levels_it_has_leaves_its_colour_bar_alone(qtbot, monkeypatch):
    import numpy as np

    from explorer.widgets.plots import Heatmap

    h = Heatmap("levels", levels=(-1.0, 1.0))
    qtbot.addWidget(h)
    calls = []
    real = h.colorbar.setLevels
    monkeypatch.setattr(h.colorbar, "setLevels", lambda *a, **k: (calls.append(a), real(*a, **k))[1])
    data = np.zeros((4, 4))
    h.set_matrix(data, levels=(-1.0, 1.0))
    h.set_matrix(data, levels=(-2.0, 2.0))
    h.set_matrix(data + 1, levels=(-2.0, 2.0))
    assert len(calls) == 1 and h.colorbar.levels() == (-2.0, 2.0)  # only the change laid the bar's axis out


class _SidebarWork(QObject):
    """Counts the layout requests that reach ``sidebar`` or a widget inside it, and the paints of its spin boxes
    (an application-wide filter)."""

    def __init__(self, sidebar) -> None:
        super().__init__()
        self.sidebar = sidebar
        self.layouts = 0
        self.box_paints = 0
        self.changed: set = set()  # the boxes whose value the step changed (their repaint is due)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind in (QEvent.Type.LayoutRequest, QEvent.Type.Paint) and isinstance(obj, QWidget) \
                and (obj is self.sidebar or self.sidebar.isAncestorOf(obj)):
            if kind == QEvent.Type.LayoutRequest:
                self.layouts += 1
            elif isinstance(obj, QAbstractSpinBox) and obj not in self.changed:
                self.box_paints += 1
        return False


@pytest.mark.parametrize("panel_id", ["waves", "swap", "schemes"])
def test_a_held_slider_lays_its_sidebar_out_again_at_no_step_and_repaints_no_box(qtbot, main_window, panel_id):
    """The controls show each step's state; a spin box given the range or the value it has must neither lay the
    sidebar out again nor repaint (Qt does both unless the panel leaves it alone)."""
    from explorer.bench.measure import drag_values, main_slider

    main_window.resize(1600, 1800)  # every box of the sidebar on screen, where a repaint would be seen
    main_window.show_panel(panel_id)
    panel = main_window.panels[panel_id]
    _settle(qtbot, panel)
    slider = main_slider(panel)
    values = drag_values(slider, 8)
    work = _SidebarWork(panel.sidebars()[0])
    boxes = [b for b in panel.sidebars()[0].findChildren(QAbstractSpinBox) if b.isVisible()]
    assert boxes and all(not b.visibleRegion().isEmpty() for b in boxes)
    app = QApplication.instance()
    app.installEventFilter(work)
    try:
        slider.setSliderDown(True)
        slider.setValue(values[0])
        qtbot.wait(50)  # the first change pins the live labels (it may lay out once)
        work.layouts = work.box_paints = 0
        for v in values[1:]:
            before = {b: b.value() for b in boxes}
            slider.setValue(v)
            work.changed = {b for b in boxes if b.value() != before[b]}
            qtbot.wait(20)
        assert (work.layouts, work.box_paints) == (0, 0)
        work.changed = set()
        # The checks can fail: a range or a value given again the Qt way (what each step did before) lays the
        # sidebar out and repaints the box.
        spin = next(s for s in panel.sidebars()[0].findChildren(QAbstractSpinBox) if s.isVisible())
        spin.setRange(spin.minimum(), spin.maximum())
        qt_class = next(c for c in type(spin).__mro__ if c.__module__.startswith("PySide6"))
        qt_class.setValue(spin, spin.value())  # QSpinBox's or QDoubleSpinBox's own
        qtbot.wait(20)
        assert work.layouts >= 1 and work.box_paints >= 1
    finally:
        app.removeEventFilter(work)
        slider.setSliderDown(False)
    _settle(qtbot, panel)


@pytest.fixture
def no_cursor_blink():
    """The focused box's text cursor blinks every half second, and each blink repaints the box's window: a CI run
    counted one inside the 20 ms a test looks."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    flash = app.cursorFlashTime()
    app.setCursorFlashTime(0)
    yield
    app.setCursorFlashTime(flash)


def test_a_spin_box_given_the_value_it_shows_is_left_alone(qtbot, no_cursor_blink):
    from explorer.widgets.value_box import DoubleSpinBox, SpinBox

    for box, same, other in ((SpinBox(), 7, 8), (DoubleSpinBox(decimals=3), 2.5004, 2.75)):
        qtbot.addWidget(box)
        box.setRange(0, 10)
        box.setValue(7 if isinstance(box, SpinBox) else 2.5)
        changed = []
        box.valueChanged.connect(changed.append)
        updates = _Updates()
        box.installEventFilter(updates)
        box.show()
        qtbot.waitExposed(box)
        for _ in range(100):  # until the first paints are done (later on a loaded machine): 50 ms without one
            updates.count = 0
            qtbot.wait(50)
            if updates.count == 0:
                break
        box.setValue(same)  # the value shown (a double's within its decimals)
        qtbot.wait(20)
        assert updates.count == 0 and changed == []
        box.setValue(other)
        qtbot.wait(20)
        assert updates.count >= 1 and changed == [other] and box.value() == other
    # As Qt does it: a double rounds half away from zero as its text does (Python's round() would keep 0.12), and
    # typing not applied yet is cleared by the value given again.
    box = DoubleSpinBox(decimals=2)
    qtbot.addWidget(box)
    box.setValue(0.12)
    box.setValue(0.125)
    assert box.value() == pytest.approx(0.13)
    box.lineEdit().setText("0.5")
    box.setValue(0.13)
    assert box.text() == box.textFromValue(0.13) and box.value() == pytest.approx(0.13)


class _Updates(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() in (QEvent.Type.Paint, QEvent.Type.UpdateRequest):
            self.count += 1
        return False


def test_a_cells_number_is_laid_out_once_per_font(qtbot):
    """Token swap's numbers: a text drawn again (the next step of a drag) is not laid out again."""
    from PySide6.QtGui import QImage, QPainter

    from explorer.panels.swap.values import ValueText

    item = ValueText()
    plot = make_plot()
    qtbot.addWidget(plot)
    plot.addItem(item)
    plot.resize(400, 400)
    plot.setXRange(-0.5, 2.5, padding=0)
    plot.setYRange(-0.5, 2.5, padding=0)
    plot.show()
    qtbot.waitExposed(plot)
    laid: list[str] = []
    layout = item._static

    def counting(text):
        if text not in item._laid_out:
            laid.append(text)
        return layout(text)

    item._static = counting
    xs, ys = np.meshgrid(np.arange(3.0), np.arange(3.0))

    def draw(values) -> None:
        item.set_items(xs, ys, values)
        image = QImage(plot.viewport().size(), QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        plot.render(painter)
        painter.end()

    draw(np.full(9, 0.25))
    assert laid == ["0.25"]
    draw(np.r_[np.full(8, 0.25), 0.5])  # the next step: one new number
    assert laid == ["0.25", "0.50"]
    item.set_point_size(14.0)  # a new font lays them out again
    draw(np.full(9, 0.25))
    assert laid == ["0.25", "0.50", "0.25"]


def test_set_range_keeps_an_end_as_qt_does_and_skips_the_range_it_has(qtbot):
    from PySide6.QtWidgets import QSpinBox

    from explorer.widgets.ranges import set_range

    box = QSpinBox()
    qtbot.addWidget(box)
    box.setRange(2, 10)
    assert not set_range(box, 2, 10) and not set_range(box, hi=10) and not set_range(box)
    assert set_range(box, hi=1) and (box.minimum(), box.maximum()) == (1, 1)  # as setMaximum(1)
    box.setRange(2, 10)
    assert set_range(box, lo=12) and (box.minimum(), box.maximum()) == (12, 12)  # as setMinimum(12)
    assert set_range(box, lo=4, hi=8) and (box.minimum(), box.maximum()) == (4, 8)


def test_a_held_drag_over_a_long_table_lays_the_explanations_out_again_at_no_step(qtbot, main_window):
    """The heatmap's note counts the columns a drag step's overview drew as [−1, 1]: those change at every step
    of a long table, and each change laid out the explanations pane it is shown in."""
    from explorer.bench.measure import drag_values
    from explorer.widgets.sidebar import ExplainPane

    main_window.resize(1440, 900)  # the bench's window: the explanations pane beside the plots
    main_window.show_panel("waves")
    panel = main_window.panels["waves"]
    panel.set_state(panel.state.clamped(n_positions=131072, d_model=128))
    _settle(qtbot, panel)
    pane = panel.findChild(ExplainPane)
    assert panel.heatmap.note in pane.labels() and panel.heatmap.note.isVisible()
    requests = _LayoutRequests()
    pane.widget().installEventFilter(requests)
    slider = panel.main_slider()
    notes = set()
    try:
        slider.setSliderDown(True)
        values = drag_values(slider, 12)
        slider.setValue(values[4])
        qtbot.waitUntil(lambda: not panel.frames.pending and panel.responses["waves.heatmap"].request.preview,
                        timeout=SETTLE_MS)
        qtbot.wait(EVERY_MS + 50)  # the first change pins the live labels (it may lay out once)
        requests.count = 0
        for v in values[5:]:
            slider.setValue(v)
            qtbot.waitUntil(lambda: not panel.frames.pending, timeout=SETTLE_MS)
            qtbot.wait(EVERY_MS // 2)
            notes.add(panel.heatmap.note.text())
        assert len(notes) >= 2  # the note did change during the drag
        assert requests.count == 0
    finally:
        slider.setSliderDown(False)
        pane.widget().removeEventFilter(requests)
    _settle(qtbot, panel)

