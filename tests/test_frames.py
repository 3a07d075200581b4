"""One paint per frame: results arriving within a frame are drawn together, the newest of each key once."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QEvent, QObject

from explorer.panels.base import Panel
from explorer.service import Handle, Result
from explorer.widgets.frames import FrameScheduler


class _Sink:
    def __init__(self) -> None:
        self.drawn: list = []

    def draw(self, key, item) -> None:
        self.drawn.append((key, item))


def test_a_burst_of_one_key_is_drawn_once_with_the_newest(qtbot):
    sink = _Sink()
    frames = FrameScheduler(sink.draw)
    for i in range(10):
        frames.post("a", i)
    assert sink.drawn == [] and frames.pending  # nothing drawn inside the burst
    qtbot.waitUntil(lambda: not frames.pending, timeout=2000)
    assert sink.drawn == [("a", 9)]
    assert (frames.frames, frames.draws, frames.coalesced) == (1, 1, 9)


def test_several_keys_in_one_frame_are_drawn_together_in_arrival_order(qtbot):
    sink = _Sink()
    frames = FrameScheduler(sink.draw)
    for i in range(3):
        frames.post("heat", i)
        frames.post("curves", i)
    frames.post("pick", 0)
    qtbot.waitUntil(lambda: not frames.pending, timeout=2000)
    assert sink.drawn == [("heat", 2), ("curves", 2), ("pick", 0)]
    assert frames.frames == 1


def test_after_a_frame_the_next_one_waits_for_the_frame_boundary(qtbot):
    sink = _Sink()
    frames = FrameScheduler(sink.draw, frame_ms=60_000)
    frames.post("a", 1)
    frames.flush()
    frames.post("a", 2)
    # Drawn at the next frame boundary, not at once; a lone result after an idle spell is drawn at once.
    assert frames._timer.isActive() and frames._timer.interval() > 0
    frames.post("a", 3)
    frames._timer.stop()
    frames._turn()  # the boundary's turn, as the timer would run it
    assert sink.drawn == [("a", 1), ("a", 3)] and frames.frames == 2


def test_the_rest_of_a_frame_counts_as_pending_while_its_first_key_is_drawn(qtbot):
    seen = []
    frames: FrameScheduler

    def draw(key, item):
        seen.append((key, item, frames.pending))
        frames.flush()  # re-entered from a draw (e.g. a handler that processes events): no harm
        if (key, item) == ("a", 0):
            frames.post("c", 0)  # a key new to the frame, during it: drawn in it
            frames.post("a", 1)  # a key the frame has drawn: the next frame

    frames = FrameScheduler(draw)
    frames.post("a", 0)
    frames.post("b", 0)
    frames.flush()
    # "Everything drawn" must not be announced while "b" is still to come in this frame.
    assert seen == [("a", 0, True), ("b", 0, True), ("c", 0, True)] and frames.pending  # the newer "a" waits
    qtbot.waitUntil(lambda: not frames.pending, timeout=2000)
    assert seen[-1] == ("a", 1, False) and frames.frames == 2


def test_a_failing_draw_does_not_leave_the_other_keys_undrawn():
    drawn = []

    def draw(key, item):
        drawn.append(key)
        if key == "bad":
            raise ValueError("boom")

    frames = FrameScheduler(draw)
    frames.post("bad", 0)
    frames.post("good", 0)
    try:
        frames.flush()
    except ValueError:
        pass
    assert drawn == ["bad", "good"] and not frames.pending


@dataclass(frozen=True)
class _Req:
    value: int
    key: str = "test.frames"


class _CountingPanel(Panel):
    panel_id = "frames"
    state_cls = int

    def __init__(self, service) -> None:
        super().__init__(service, 0)
        self.shown: list = []
        self.drawn_keys: list = []
        self.drawn.connect(self._on_drawn)

    def requests(self, state):
        return []

    def show_result(self, response) -> None:
        self.shown.append(response)

    def _on_drawn(self, key) -> None:
        self.drawn_keys.append(key)


def test_ten_results_in_one_frame_make_one_draw_of_the_newest(qtbot, service):
    p = _CountingPanel(service)
    qtbot.addWidget(p)
    for i in range(10):
        p._on_result(Result("test.frames", i + 1, _Req(i), i, 1.0, origin=i))
    assert p.shown == [] and p.waiting  # waiting for its frame: not drawn yet, and has_drawn says so
    assert not p.has_drawn
    qtbot.waitUntil(lambda: not p.waiting, timeout=2000)
    assert p.shown == [9] and p.drawn_keys == ["test.frames"]
    assert p.last_drawn_origin == 9 and p.has_drawn
    assert p.frames.draws == 1
    p.shutdown()


def test_redrawing_what_was_drawn_goes_through_the_frames_and_skips_keys_with_a_newer_result_coming(qtbot, service):
    p = _CountingPanel(service)
    qtbot.addWidget(p)
    p._on_result(Result("test.frames", 1, _Req(1), "a", 1.0, origin=1))
    p._on_result(Result("test.other", 1, _Req(1, "test.other"), "b", 1.0, origin=1))
    qtbot.waitUntil(lambda: not p.waiting, timeout=2000)
    assert sorted(p.shown) == ["a", "b"]

    running = Handle(service, _Req(3, "test.other"), 3, 3, None, None)
    running.status = "running"
    p._handles["test.other"] = running  # a newer "b" is on its way: drawn when it comes, not redrawn now
    p.redraw_drawn()
    assert sorted(p.shown) == ["a", "b"] and p.frames.pending  # not drawn in this turn: at the next frame
    qtbot.waitUntil(lambda: not p.frames.pending, timeout=2000)
    assert sorted(p.shown) == ["a", "a", "b"]
    p._handles.clear()
    # A newer result delivered and still waiting for its frame is not replaced by the older one.
    p._on_result(Result("test.frames", 2, _Req(2), "a2", 1.0, origin=2))
    p.redraw_drawn()
    qtbot.waitUntil(lambda: not p.frames.pending, timeout=2000)
    assert p.shown[-2:] in (["a2", "b"], ["b", "a2"]) and p.shown.count("a2") == 1
    p.shutdown()


def test_a_key_whose_plot_cannot_be_told_is_drawn_alone_not_lost(qtbot):
    sink = _Sink()

    def paints(key, _item):
        if key == "odd":
            raise ValueError("no plot for this one")
        return "plot"

    frames = FrameScheduler(sink.draw, paints=paints)
    for key in ("odd", "a", "b"):
        frames.post(key, 0)
    qtbot.waitUntil(lambda: not frames.pending, timeout=2000)
    assert [k for k, _ in sink.drawn] == ["odd", "a", "b"] and frames.draws == 3


def test_a_later_update_runs_in_a_turn_of_its_own_and_a_newer_one_takes_its_place(qtbot, service):
    p = _CountingPanel(service)
    qtbot.addWidget(p)
    ran: list = []
    p._on_result(Result("test.frames", 1, _Req(1), "a", 1.0, origin=1))
    p.later("x", lambda: ran.append("x1"))
    p.later("x", lambda: ran.append("x2"))
    p.later("y", lambda: ran.append("y"))
    assert ran == [] and p.waiting
    p.frames._timer.stop()
    p.frames._turn()
    assert p.shown == ["a"] and ran == []
    p.frames._turn()
    assert ran == ["x2"]
    qtbot.waitUntil(lambda: not p.waiting, timeout=2000)
    assert ran == ["x2", "y"] and p.drawn_keys == ["test.frames"]  # an update is no result: nothing "drawn"
    p.shutdown()


def test_an_item_posted_last_waits_for_every_other_item_even_one_posted_after_it(qtbot):
    sink = _Sink()
    frames = FrameScheduler(sink.draw)
    frames.post("result", 1)
    frames.post("level a", 0, last=True)
    frames.post("level b", 0, last=True)
    frames._timer.stop()
    frames._turn()
    assert [k for k, _ in sink.drawn] == ["result"]
    frames.post("result", 2)  # the next result comes while the levels wait: it is drawn first
    frames._turn()
    frames._turn()
    assert [k for k, _ in sink.drawn] == ["result", "result", "level a"]
    frames.post("level a", 1, last=True)  # a newer one of a key drawn: the next frame, still after the rest
    frames.post("other", 0)  # the next frame's too, but not last: before "level b", still waiting in this one
    qtbot.waitUntil(lambda: not frames.pending, timeout=2000)
    assert sink.drawn[3:] == [("other", 0), ("level b", 0), ("level a", 1)]


class _PaintCounter(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def eventFilter(self, _obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False


def _quiet(panel, service) -> bool:
    """Settled, with no re-request of its own still to come (a late relayout restarts the range timer)."""
    return (panel.has_drawn and not panel.waiting and service.idle() and not panel._range_timer.isActive()
            and not panel._stale_timer.isActive())


def _no_placements(panel) -> None:
    """No annotation placement while paints are counted: one that moves a label repaints its plot, up to 100 ms after
    the paint that asked for it, and a loaded machine can slide that into the count.  Each placer's timer stops and
    is cut from its placement (its signals hold the bound method, so patching the class would not reach them), and
    it counts as due, so nothing starts it again."""
    import pyqtgraph as pg

    from explorer.widgets.plots import AppPlotItem

    placers = [item.annotations for view in panel.findChildren(pg.GraphicsView) for item in view.items()
               if isinstance(item, AppPlotItem) and item.annotations is not None]
    assert placers  # (Waves' plots carry labels)
    for placer in placers:
        placer._timer.stop()
        placer._timer.timeout.disconnect()
        placer._pending = True


def test_a_burst_of_heatmap_results_in_one_frame_is_one_draw_and_one_paint(qtbot, service):
    from explorer.jobs.waves import HeatmapRequest, compute_heatmap
    from explorer.panels.waves import WavesPanel
    from explorer.state import WavesState

    panel = WavesPanel(service, WavesState().clamped(n_positions=4096, d_model=64))
    qtbot.addWidget(panel)
    panel.resize(1200, 800)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: _quiet(panel, service), timeout=20000)
    panel.frames.flush()
    _no_placements(panel)
    panel.frames.frame_ms = 60_000  # one long frame: no timer fires inside the burst, however slow the machine
    # The paint of what was drawn last (pending when has_drawn turned true) is not the burst's: the scenes' queued
    # passes, which send the window's repaint at once, and then whatever else is posted, now.
    QCoreApplication.sendPostedEvents()
    QCoreApplication.sendPostedEvents()
    qtbot.wait(100)
    counter = _PaintCounter()
    viewport = panel.heatmap.plot.viewport()
    viewport.installEventFilter(counter)
    shown = []
    real = panel.heatmap.show_result

    def spy(r):
        shown.append(r)
        real(r)

    panel.heatmap.show_result = spy
    results = [compute_heatmap(HeatmapRequest(4096, 64, 10000.0 + i, "paper", rows=(0, 4096), cols=(0, 64),
                                              max_rows=256, max_cols=64)) for i in range(10)]
    for i, r in enumerate(results):  # ten results, each in its own turn of the event loop
        panel._on_result(Result("waves.heatmap", 100 + i, r.request, r, 1.0, panel.origin))
        qtbot.wait(1)
    assert shown == [] and counter.paints == 0
    panel.frames.flush()  # the frame
    qtbot.waitUntil(lambda: counter.paints >= 1, timeout=5000)
    qtbot.wait(50)
    assert shown == [results[-1]] and counter.paints == 1
    viewport.removeEventFilter(counter)
    panel.shutdown()


def test_a_frame_draws_one_key_per_turn_and_qt_paints_each_keys_plot_before_the_next(qtbot):
    import pyqtgraph as pg
    from PySide6.QtWidgets import QHBoxLayout, QWidget

    host = QWidget()
    row = QHBoxLayout(host)
    plots = [pg.PlotWidget() for _ in range(3)]
    curves = []
    for p in plots:
        row.addWidget(p)
        p.setXRange(0, 10, padding=0)
        p.setYRange(0, 10, padding=0)
        curves.append(p.plot([0, 10], [0, 10]))
    qtbot.addWidget(host)
    host.resize(600, 200)
    host.show()
    qtbot.waitExposed(host)
    qtbot.wait(50)
    order: list[str] = []

    class _Paints(QObject):
        def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
            if event.type() == QEvent.Type.Paint:
                order.append(f"paint {obj.objectName()}")
            return False

    paints = _Paints()
    for k, p in enumerate(plots):
        p.viewport().setObjectName(str(k))
        p.viewport().installEventFilter(paints)

    def draw(key, item):
        curves[key].setData([0, 10], [item, 10 - item])
        order.append(f"draw {key}")

    frames = FrameScheduler(draw)
    frames.painted.connect(lambda: order.append("painted"))
    for item in (1, 2, 3):
        for key in (0, 1, 2):
            frames.post(key, item)
    frames.post(0, 4)  # the newest of key 0 replaces its older item
    qtbot.waitUntil(lambda: not frames.pending, timeout=2000)
    qtbot.waitUntil(lambda: order.count("painted") == 3, timeout=2000)
    draws = [e for e in order if e.startswith("draw")]
    assert draws == ["draw 0", "draw 1", "draw 2"] and frames.frames == 1 and frames.draws == 3
    # Each key's plot is painted before the next key is drawn: no turn of the loop draws and paints all three.
    assert order.index("paint 0") < order.index("draw 1") and order.index("paint 1") < order.index("draw 2")
    # "painted" (where the bench's latency ends) comes once a key's plot is painted, not at its draw.
    assert order.index("paint 0") < order.index("painted") < order.index("draw 1")
    assert order.index("paint 2") < len(order) - 1 - order[::-1].index("painted")
    assert curves[0].getData()[1][0] == 4


def test_a_newer_item_of_a_key_still_to_come_in_the_frame_takes_its_place(qtbot):
    sink = _Sink()
    frames = FrameScheduler(sink.draw)
    frames.post("a", 0)
    frames.post("b", 0)
    frames._timer.stop()
    frames._turn()  # the frame's first turn, as its timer runs it (no event loop: "b" cannot come in between)
    assert sink.drawn == [("a", 0)] and frames._waiting is not None
    frames.post("b", 1)  # "b" is still to come in this frame: drawn there, with the newer item
    frames.post("a", 1)  # "a" was drawn: the next frame
    qtbot.waitUntil(lambda: not frames.pending, timeout=2000)
    assert sink.drawn == [("a", 0), ("b", 1), ("a", 1)] and frames.frames == 2


def test_a_result_that_comes_while_a_key_waits_for_its_paint_waits_too(qtbot):
    sink = _Sink()
    frames = FrameScheduler(sink.draw)
    frames.post("a", 0)
    frames.post("b", 0)
    frames._timer.stop()
    frames._turn()  # the frame's first turn, as its timer runs it (no event loop between here and the checks)
    assert sink.drawn == [("a", 0)] and frames._waiting is not None  # "b" waits until what "a" changed is painted
    frames.post("c", 0)  # a new result: it does not cut the wait short
    assert not frames._timer.isActive() and sink.drawn == [("a", 0)]
    qtbot.waitUntil(lambda: not frames.pending and frames._waiting is None, timeout=2000)  # (c's paint too)
    assert [k for k, _ in sink.drawn] == ["a", "b", "c"]
    qtbot.wait(20)  # past the frame's frame_ms
    frames.post("d", 0)
    frames.post("e", 0)
    frames._timer.stop()
    frames._turn()
    assert frames._waiting is not None
    frames.clear()  # the owner closes while a key waits: nothing more is drawn, nothing is left waiting
    qtbot.wait(30)
    assert [k for k, _ in sink.drawn][-1] == "d" and not frames.pending and frames._waiting is None


def test_the_next_frame_waits_for_the_last_keys_paint_too(qtbot):
    sink = _Sink()
    frames = FrameScheduler(sink.draw, frame_ms=0)
    frames.post("a", 0)
    frames._timer.stop()
    frames._turn()  # the frame's only key
    assert sink.drawn == [("a", 0)] and frames._waiting is not None  # the next frame waits for its paint
    frames.post("a", 1)  # the next frame's item, at once: it waits too
    assert not frames._timer.isActive() and sink.drawn == [("a", 0)]
    qtbot.waitUntil(lambda: not frames.pending, timeout=2000)
    assert sink.drawn == [("a", 0), ("a", 1)] and frames.frames == 2


def test_a_key_new_to_the_frame_joins_it_and_is_drawn_once_the_last_key_is_painted(qtbot):
    """A panel's results for one drag step come back a fraction of a millisecond apart: the first begins a frame,
    the others join it, each drawn in a turn of its own after the key before it is painted, not frame_ms later."""
    sink = _Sink()
    frames = FrameScheduler(sink.draw, frame_ms=60_000)
    frames.post("heat", 0)
    frames._timer.stop()
    frames._turn()  # the frame's only key so far
    assert sink.drawn == [("heat", 0)] and frames._waiting is not None
    frames.post("curves", 0)  # the same step's other results
    frames.post("pick", 0)
    frames.post("heat", 1)  # the next step's: the next frame, a frame_ms after this one began
    assert not frames._timer.isActive()  # all wait for the heatmap's paint
    qtbot.waitUntil(lambda: len(sink.drawn) == 3, timeout=2000)  # long before a 60 s frame boundary
    assert sink.drawn == [("heat", 0), ("curves", 0), ("pick", 0)] and frames.frames == 1
    qtbot.waitUntil(lambda: frames._waiting is None, timeout=2000)
    assert frames._timer.isActive() and frames._timer.remainingTime() > 1000  # "heat" 1: the frame boundary
    assert frames.pending and frames.frames == 1


def test_keys_that_paint_the_same_plot_are_drawn_in_one_turn(qtbot):
    sink = _Sink()
    plot_of = {"lanes": "waves", "spectrum": "spectrum", "markers": "waves", "heat": None, "more": None}
    frames = FrameScheduler(sink.draw, paints=lambda key, _item: plot_of[key])
    for key in ("heat", "spectrum", "lanes", "more"):
        frames.post(key, 0)
    frames._timer.stop()
    frames._turn()
    frames._turn()
    assert [k for k, _ in sink.drawn] == ["heat", "spectrum"]
    frames.post("markers", 1)  # comes after the frame began: waits for the next frame, but its plot's key is next
    frames._turn()
    assert [k for k, _ in sink.drawn][2:] == ["lanes", "markers"]  # one turn, one repaint of "waves"
    assert frames.pending and frames.draws == 4
    qtbot.waitUntil(lambda: not frames.pending, timeout=2000)
    assert [k for k, _ in sink.drawn] == ["heat", "spectrum", "lanes", "markers", "more"] and frames.frames == 1


def test_waves_markers_are_drawn_in_the_lanes_turn_and_the_lanes_painted_once(qtbot, service):
    from explorer.jobs.waves import PickRequest, compute_curves, compute_pick
    from explorer.panels.waves import WavesPanel
    from explorer.state import WavesState

    panel = WavesPanel(service, WavesState())
    qtbot.addWidget(panel)
    panel.resize(1200, 800)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: _quiet(panel, service), timeout=20000)
    _no_placements(panel)
    qtbot.wait(100)
    st = panel.state.clamped(base=20000.0)
    panel.set_state(st, request=False)
    curves_req = next(r for r in panel.requests(st) if r.key == "waves.curves")
    curves = compute_curves(curves_req)
    pick = compute_pick(PickRequest(st.n_positions, st.d_model, st.base, st.variant, position=st.position,
                                    offset=st.offset, pair=st.pair))
    qtbot.wait(100)  # the state's own repaints (the lanes' labels) are not the results'
    order: list[str] = []
    counter = _PaintCounter()
    panel.waves.plot.viewport().installEventFilter(counter)
    for name, view, method in (("lanes", panel.waves, "show_curves"), ("markers", panel.waves, "show_pick"),
                               ("spectrum", panel.spectrum, "show_curves")):
        real = getattr(view, method)
        setattr(view, method, lambda *a, _real=real, _name=name: (order.append(_name), _real(*a))[1])
    panel.frames.painted.connect(lambda: order.append("painted"))
    panel._on_result(Result("waves.curves", 900, curves.request, curves, 1.0, panel.origin))
    panel.frames._timer.stop()
    panel.frames._turn()  # the spectrum first: the lanes wait a turn for the picked values
    panel._on_result(Result("waves.views", 901, pick.request, pick, 1.0, panel.origin))
    assert order == ["spectrum"]
    qtbot.waitUntil(lambda: not panel.frames.pending and order[-1] == "painted", timeout=5000)
    # The markers in the lanes' turn (no paint between them), and the lanes plot painted once for both.
    assert order == ["spectrum", "painted", "lanes", "markers", "painted"]
    assert counter.paints >= 1
    qtbot.wait(50)
    assert counter.paints == 1
    panel.waves.plot.viewport().removeEventFilter(counter)
    panel.shutdown()


def test_a_frame_ended_by_a_flush_or_by_dropping_its_keys_takes_no_more_keys(qtbot):
    sink = _Sink()
    frames = FrameScheduler(sink.draw, frame_ms=0)
    frames.post("a", 0)
    frames._timer.stop()
    frames._turn()
    assert frames._waiting is not None
    frames.flush()  # nothing left to draw: the wait for a's paint is cut short, and that frame is over
    frames.post("b", 0)  # a frame of its own, counted as one
    qtbot.waitUntil(lambda: not frames.pending and frames._waiting is None, timeout=2000)
    assert sink.drawn == [("a", 0), ("b", 0)] and frames.frames == 2
    frames.post("c", 0)
    frames.post("d", 0)
    frames._timer.stop()
    frames._turn()  # c drawn; d still to come in this frame
    frames.drop(lambda key: key == "d")
    qtbot.waitUntil(lambda: frames._waiting is None, timeout=2000)
    qtbot.wait(10)  # the turn that finds nothing left of the frame
    frames.post("e", 0)
    qtbot.waitUntil(lambda: not frames.pending and frames._waiting is None, timeout=2000)
    assert [k for k, _ in sink.drawn] == ["a", "b", "c", "e"] and frames.frames == 4
