"""The in-plot audit (``plot_audit``) in the suite (issue 27): every check is shown to fail on a plot built broken
for it, and every panel, tab, scene and lesson step is walked at 1280×720 and 1920×1080, normal and presenter,
auditing every plot on stage.

The light theme is walked at every size and mode, the dark theme at the tightest (1280×720 presenter): the audit
reads only geometry, and a dark theme differs from its light twin in colours only (a test below holds the themes'
sizes of text, lines and axes equal).
``PE_AUDIT_ONLY=swap,lesson order_blindness`` walks only the states whose name holds one of those words (while
mending a view); a filtered walk says so in its failure.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pyqtgraph as pg
import pytest
from plot_audit import audit, body_px, tick_texts
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QTabWidget
from window_fixture import module_window, settle

SIZES = [(1280, 720), (1920, 1080)]


# -- each check fails on a plot broken for it --------------------------------------------------------
@pytest.fixture
def plot(qtbot):
    from explorer.widgets.plots import make_plot

    pw = make_plot("A short title", x="x", y="y")
    qtbot.addWidget(pw)
    pw.resize(520, 380)
    pw.show()
    qtbot.wait(30)
    return pw


def _audit(pw, qtbot, **kw) -> list[str]:
    qtbot.wait(40)
    return audit(pw, "bad", line=12.0, **kw)


def test_a_clean_plot_passes(plot, qtbot):
    plot.getPlotItem().plot(np.linspace(0, 1, 50), np.linspace(0, 1, 50) ** 2)
    assert _audit(plot, qtbot) == []


def test_a_title_cut_mid_word_or_without_its_tooltip_fails(plot, qtbot):
    pi = plot.getPlotItem()
    full = "A title far too long for so narrow a plot, which must be shortened somewhere"
    pi.setTitle(full)
    qtbot.wait(30)
    assert _audit(plot, qtbot) == [], "the app's own shortening (whole words, tooltip) is allowed"
    label = pi.titleLabel
    label._fitting = True  # show a mid-word cut, as Qt's elision did
    try:
        label.setText("A title far too lo…")
    finally:
        label._fitting = False
    assert any("cut mid-word" in p for p in _audit(plot, qtbot))
    label.setToolTip("")
    assert any("in no tooltip" in p for p in _audit(plot, qtbot))


def test_a_legend_over_points_bars_or_an_image_fails(plot, qtbot):
    pi = plot.getPlotItem()
    pi.setXRange(0, 1, padding=0)
    pi.setYRange(0, 1, padding=0)
    legend = pg.LegendItem(offset=(5, 5))  # pyqtgraph's own, anchored top left: nothing places it
    legend.setParentItem(pi.getViewBox())
    curve = pi.plot(np.linspace(0, 1, 200), np.linspace(1, 0, 200))  # runs under the top-left corner
    legend.addItem(curve, "a line from the top left")
    assert any("legend" in p and "curve segments" in p for p in _audit(plot, qtbot))
    curve.setData([], [])
    scatter = pg.ScatterPlotItem([0.05], [0.97], size=12)
    pi.addItem(scatter)
    assert any("legend" in p and "points" in p for p in _audit(plot, qtbot))
    pi.removeItem(scatter)
    bars = pg.BarGraphItem(x=[0.1], height=[0.99], width=0.15, brush="b")
    pi.addItem(bars)
    assert any("legend" in p and "bars" in p for p in _audit(plot, qtbot))
    pi.removeItem(bars)
    image = pg.ImageItem(np.ones((4, 4)))
    image.setRect(0, 0, 1, 1)
    pi.addItem(image)
    assert any("legend" in p and "image" in p for p in _audit(plot, qtbot))


def test_a_legend_narrower_than_its_names_fails(plot, qtbot):
    """A legend squeezed into less than its text (one laid out under a narrow plot) cuts its names at its edge."""
    pi = plot.getPlotItem()
    legend = pg.LegendItem(offset=(5, 5))
    legend.setParentItem(pi.getViewBox())
    legend.addItem(pi.plot([5.0], [5.0]), "a name longer than its legend")
    assert not any("is cut" in p for p in _audit(plot, qtbot, size=False))
    legend.setMaximumWidth(40)
    legend.resize(40, legend.geometry().height())
    assert any("'a name longer than its legend' is cut" in p for p in _audit(plot, qtbot, size=False))


def test_the_apps_legend_finds_a_corner_the_data_leaves_empty(plot, qtbot):
    pi = plot.getPlotItem()
    legend = pi.addLegend(offset=(5, 5))
    pi.plot(np.linspace(0, 1, 200), np.linspace(1, 0, 200), name="a line from the top left")
    pi.setXRange(0, 1, padding=0)
    pi.setYRange(0, 1, padding=0)
    qtbot.wait(80)
    assert legend.isVisible() and not any("legend" in p for p in _audit(plot, qtbot))


def test_a_legend_with_no_room_under_a_small_plot_is_named_in_a_key_instead(plot, qtbot, tmp_path):
    """A legend that covers data everywhere goes under the plot; where even there it would take more than its
    share of a small plot's height it is left out, its room given back, and the view's key (and a picture of the
    plot alone) names the curves (at 1280×720 the Beyond tab's legends took half of each plot)."""
    from PySide6.QtWidgets import QGraphicsProxyWidget

    from explorer.export.images import Look, export_look, key_shown
    from explorer.widgets.legend_place import LegendKey

    pi = plot.getPlotItem()
    legend = pi.addLegend(offset=(5, 5))
    x = np.linspace(0, 1, 400)
    for k in range(4):  # curves through every corner and edge middle
        pi.plot(x, (x * (k + 1) * 7.0) % 1.0, name=f"curve number {k} with a long name", pen=("#d55e00", "#0072b2",
                                                                                            "#009e73", "#cc79a7")[k])
    pi.setXRange(0, 1, padding=0)
    pi.setYRange(0, 1, padding=0)
    key = LegendKey()
    qtbot.addWidget(key)
    key.follow([("Zigzags", plot)])
    placer = pi.legend_placer
    qtbot.waitUntil(lambda: placer.outside, timeout=3000)
    assert not placer.hidden_for_room and legend.isVisible() and not key.isVisibleTo(key.parentWidget() or key)
    before = pi.getViewBox().height()
    plot.resize(520, 200)  # the legend's rows would take more than its share
    qtbot.waitUntil(lambda: placer.hidden_for_room, timeout=3000)
    assert not legend.isVisible() and legend.maximumHeight() == 0
    assert "curve number 3 with a long name" in key.text() and "#cc79a7" in key.text() and "Zigzags" in key.text()
    with export_look(plot, Look()), key_shown(plot):  # alone, the plot names its curves under it
        labels = [w.widget().text() for w in plot.scene().items()
                  if isinstance(w, QGraphicsProxyWidget) and w.widget() is not None and w.widget().objectName() ==
                  "exportKey"]
        assert any("curve number 0 with a long name" in t for t in labels)
    plot.resize(520, 900)  # room again: the legend is back, the key goes
    qtbot.waitUntil(lambda: not placer.hidden_for_room and legend.isVisible(), timeout=3000)
    assert not key.text() and pi.getViewBox().height() > before


@pytest.fixture
def raw(qtbot):
    """pyqtgraph's own plot: nothing places its texts."""
    pw = pg.PlotWidget()
    qtbot.addWidget(pw)
    pw.resize(520, 380)
    pw.show()
    pw.getPlotItem().setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    return pw


def _two_lines(pi) -> None:
    for _ in range(2):  # two lines at one height: their labels meet
        pi.addItem(pg.InfiniteLine(0.5, angle=0, label="label at 0.5", labelOpts={"position": 0.5}),
                   ignoreBounds=True)


def test_annotations_that_overlap_leave_the_plot_or_lie_on_data_fail(raw, qtbot):
    pi = raw.getPlotItem()
    _two_lines(pi)
    assert any("overlap" in p for p in _audit(raw, qtbot, size=False))
    for item in list(pi.getViewBox().addedItems):
        pi.removeItem(item)
    out = pg.TextItem("far away", anchor=(0, 0))
    out.setPos(0.97, 0.5)
    pi.addItem(out)
    assert any("'far away' runs out of the plot" in p for p in _audit(raw, qtbot, size=False))
    pi.removeItem(out)
    pi.plot([0, 1], [0.5, 0.5])
    on = pg.TextItem("on the line", anchor=(0.5, 0.5))
    on.setPos(0.5, 0.5)
    pi.addItem(on)
    assert any("'on the line' lies on" in p for p in _audit(raw, qtbot, size=False))


def test_the_apps_plot_moves_its_annotations_apart_inside_and_off_the_data(plot, qtbot):
    pi = plot.getPlotItem()
    pi.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    _two_lines(pi)
    out = pg.TextItem("far away", anchor=(0, 0))
    out.setPos(0.97, 0.5)
    pi.addItem(out)
    pi.plot([0, 1], [0.3, 0.3])
    on = pg.TextItem("on the line", anchor=(0.5, 0.5))
    on.setPos(0.5, 0.3)
    pi.addItem(on)
    qtbot.wait(80)
    assert _audit(plot, qtbot) == []
    assert out.isVisible() and on.isVisible()


def test_a_marker_cut_by_the_plots_edge_fails_and_range_with_room_keeps_it_whole(plot, qtbot):
    from explorer.widgets.symbols import marker_room, range_with_room

    pi = plot.getPlotItem()
    ring = pg.ScatterPlotItem([0.0, 0.5], [0.5, 0.5], size=20, brush=None, pen=pg.mkPen("k", width=2.5))
    pi.addItem(ring)
    pi.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    assert any("1 markers (20 px) cut by the plot's edge" in p for p in _audit(plot, qtbot))
    assert marker_room(ring) == 10 + 1.25 + 1
    range_with_room(pi.getViewBox(), marker_room(ring), (0, 1), (0, 1))
    assert _audit(plot, qtbot) == []


def test_a_text_placed_before_the_legend_came_keeps_off_it(plot, qtbot):
    """The legend's placer may put it after the texts were placed (a plot shown for the first time): nothing of the
    data changed, and the text stayed under the legend (Schemes' Beyond tab at 1280 × 720, 3 walks in 4)."""
    pi = plot.getPlotItem()
    pi.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    note = pg.TextItem("a note in the corner", anchor=(1, 0))
    note.setPos(0.98, 0.98)
    pi.addItem(note)
    qtbot.wait(80)
    assert _audit(plot, qtbot) == []
    legend = pi.addLegend(offset=(-5, 5))
    legend.addItem(pg.PlotDataItem(pen="r"), "a curve not in the plot")  # the data are as they were
    qtbot.wait(80)
    assert legend.isVisible() and _audit(plot, qtbot) == []  # moved, or hidden where no place is left


def test_tick_labels_that_run_together_are_caught_and_the_apps_axis_never_draws_them(plot, qtbot):
    from explorer.widgets.plots import Plot

    pw = Plot("crowded", axis_items={"left": pg.AxisItem("left")})  # pyqtgraph's own axis: no spacing
    qtbot.addWidget(pw)
    pw.resize(300, 130)
    pw.show()
    pi = pw.getPlotItem()
    pi.setYRange(0, 1, padding=0)
    ticks = [[(v, f"{v:g}") for v in np.linspace(0, 1, 11)]]
    pi.getAxis("left").setTicks(ticks)
    assert any("left ticks" in p and "run together" in p for p in _audit(pw, qtbot, size=False))
    plot.getPlotItem().setYRange(0, 1, padding=0)
    plot.resize(300, 130)
    plot.getPlotItem().getAxis("left").setTicks(ticks)  # the app's axis: every other label left out
    qtbot.wait(40)
    drawn = [t for _, t in tick_texts(plot.getPlotItem().getAxis("left"))]
    assert 2 <= len(drawn) < 11 and not any("ticks" in p for p in _audit(plot, qtbot, size=False))


def test_a_token_axis_that_drops_a_token_must_say_so(qtbot):
    from explorer.panels.swap.axis import TokenAxis
    from explorer.widgets.plots import Plot

    pw = Plot("tokens", axis_items={"left": TokenAxis("left")})
    qtbot.addWidget(pw)
    pw.resize(400, 170)
    pw.show()
    pi = pw.getPlotItem()
    axis = pi.getAxis("left")
    words = [f"w{i}" for i in range(30)]
    axis.set_labels(words)
    pi.setYRange(0, 30, padding=0)
    pi.setLabel("left", "token")
    qtbot.wait(80)
    assert axis.hidden_note() and not any("drops" in p for p in _audit(pw, qtbot, size=False))
    axis.hidden_note = lambda: ""  # an axis that thins its labels silently
    assert any("drops" in p for p in _audit(pw, qtbot, size=False))


def test_a_plot_below_a_readable_size_fails(plot, qtbot):
    plot.resize(110, 80)
    assert any("data area" in p for p in _audit(plot, qtbot))


def test_a_small_axis_title_fails_in_presenter_mode(plot, qtbot):
    pi = plot.getPlotItem()
    pi.setLabel("left", "a title")
    assert not any("axis title" in p for p in _audit(plot, qtbot, presenter=True))
    pi.getAxis("left").label.setScale(0.5)
    assert any("left axis title" in p for p in audit(plot, "bad", line=20.0, presenter=True))


def test_an_axis_title_shortened_without_its_tooltip_or_inside_a_word_fails(plot, qtbot):
    pi = plot.getPlotItem()
    pi.setLabel("left", "cross-entropy of the model (nats)")
    axis = pi.getAxis("left")
    plot.resize(520, 150)
    qtbot.waitUntil(lambda: axis.label.toPlainText().strip() != axis.full_label(), timeout=3000)
    assert not any("shortened" in p or "inside a word" in p for p in _audit(plot, qtbot, size=False))
    axis.setToolTip("")
    assert any("without the whole title" in p for p in _audit(plot, qtbot, size=False))
    axis.show_label_form("cross-entr…")
    assert any("inside a word" in p for p in _audit(plot, qtbot, size=False))


# -- the walk ----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def window(tmp_path_factory):
    yield from module_window(tmp_path_factory.mktemp("pe-plot-audit-home"))


def _wait(win, panel_id: str | None = None) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        settle(15)
        if win.service.idle() and (panel_id is None or win.panels[panel_id].has_drawn):
            break
    settle(30)


def _shown_share(win, w) -> float:
    """The share of ``w`` inside every parent (a scroll area's viewport cuts what scrolled away)."""
    r = QRect(w.mapTo(win, w.rect().topLeft()), w.size())
    p = w.parentWidget()
    while p is not None and p is not win:
        r = r.intersected(QRect(p.mapTo(win, p.rect().topLeft()), p.size()))
        p = p.parentWidget()
    return r.width() * r.height() / max(1, w.width() * w.height())


def on_stage(win) -> list:
    """The plots on stage: the plot in focus, else every plot of the panel on stage that is on screen."""
    plot = win.stage.plot()
    if plot is not None:
        return [plot]
    panel = win.stage.panel()
    return [w for w in panel.findChildren(pg.PlotWidget) if w.isVisible() and _shown_share(win, w) > 0.5]


def _look(win, size, presenter: bool, dark: bool = False) -> str:
    win.screen_limit = QSize(*size)
    win.look.set_dark(dark)
    win.look.set_presenter(presenter)
    win.look.apply()
    win.fit_to_screen()
    settle(60)
    return f"{size[0]}x{size[1]} {'presenter' if presenter else 'normal'}"


def _check(win, where: str, presenter: bool) -> list[str]:
    line = body_px(win)
    return [p for plot in on_stage(win)
            for p in audit(plot, f"{where} › {plot.objectName() or plot.title()}", presenter=presenter, line=line)]


def _only() -> list[str]:
    return [w.strip() for w in os.environ.get("PE_AUDIT_ONLY", "").split(",") if w.strip()]


def _wanted(name: str) -> bool:
    return not _only() or any(w in name for w in _only())


def _filtered() -> str:
    return f" (only the states naming {', '.join(_only())})" if _only() else ""


def _states(win):
    """Walk every panel and tab, the six scenes forward and every lesson step's scene; yield a name at each
    (those :func:`_wanted` only)."""
    from explorer import presets as pr
    from explorer.lessons.format import builtin_lessons

    for pid in list(win.panels):
        if not (_wanted(pid) or any(w.startswith(pid) for w in _only())):
            continue
        win.show_panel(pid)
        win.stage.set_focus_plot(None)
        _wait(win, pid)
        tabs = [t for t in win.panels[pid].findChildren(QTabWidget) if t.count() > 1]
        if not tabs:
            yield pid
        for t in tabs:
            for i in range(t.count()):
                if not _wanted(f"{pid}[{t.tabText(i)}]"):
                    continue
                t.setCurrentIndex(i)
                _wait(win)
                yield f"{pid}[{t.tabText(i)}]"
            t.setCurrentIndex(0)
    for n, scene in enumerate(pr.builtin_presets(), 1):
        if not _wanted(f"scene {n}"):
            continue
        assert win.session.apply_preset(scene)
        _wait(win, scene.panel)
        yield f"scene {n}"
    win.session.leave_scene()
    for lesson in builtin_lessons():
        for k, step in enumerate(lesson.steps):
            if step.scene is None or not _wanted(f"lesson {lesson.name} step {k + 1}"):
                continue
            win.lessons.show(lesson, k)
            win.lessons.set_scene(step, lesson)
            _wait(win, step.scene.panel)
            yield f"lesson {lesson.name} step {k + 1}"
    win.lessons.dock.hide()
    win.session.leave_scene()
    win.stage.set_focus_plot(None)


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_plot_on_stage_passes_the_audit(window, size, presenter):
    tag = _look(window, size, presenter)
    faults: list[str] = []
    for where in _states(window):
        faults += _check(window, f"{tag} {where}", presenter)
    assert not faults, f"{len(faults)} in-plot faults{_filtered()}:\n" + "\n".join(dict.fromkeys(faults))


def test_every_plot_on_stage_passes_the_audit_in_dark(window):
    """The dark theme at 1280×720 presenter, every panel, tab, scene and lesson step."""
    size, presenter = (1280, 720), True
    tag = _look(window, size, presenter, dark=True)
    faults: list[str] = []
    for where in _states(window):
        faults += _check(window, f"{tag} dark {where}", presenter)
    _look(window, size, presenter)
    assert not faults, f"{len(faults)} in-plot faults{_filtered()}:\n" + "\n".join(dict.fromkeys(faults))


def test_a_dark_theme_differs_from_its_light_twin_in_colours_only():
    """Sizes of text, lines and axes are the same in both themes of a mode: the audit (geometry) finds in the dark
    what it finds in the light, and the dark walk at one size and mode stands for the others."""
    from explorer.theme import DARK, LIGHT, PRESENTER_DARK, PRESENTER_LIGHT

    sizes = ("font_scale", "line_scale", "axis_width", "high_contrast")
    for light, dark in ((LIGHT, DARK), (PRESENTER_LIGHT, PRESENTER_DARK)):
        assert dark.dark and not light.dark
        assert [getattr(dark, f) for f in sizes] == [getattr(light, f) for f in sizes], (light.name, dark.name)
