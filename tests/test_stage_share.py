"""The stage for the hall (issue 27): at a 1280×720 projector in presenter mode the picture gets the screen.

Every built-in lecture scene, applied forward, backward and in a shuffled order, puts its key plot — the plot it
puts in focus (``layout.focus``), else the largest plot of its panel on screen — on at least 40 % of the screen.
Presenter mode moves the menu bar and toolbar out of the way with a way back that is always in reach (F10, said in
the status bar), and what it hides is never saved as the user's layout.
"""

from __future__ import annotations

import random
import time

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QApplication
from test_layout_fit import _settle
from window_fixture import module_window

SCREEN = (1280, 720)
SHARE = 0.40


@pytest.fixture(scope="module")
def window(tmp_path_factory):
    yield from module_window(tmp_path_factory.mktemp("pe-stage-home"), screen=SCREEN, presenter=True)


def key_plot(win, scene):
    """The scene's key plot: the plot it puts in focus, else the largest plot of its panel on screen."""
    import pyqtgraph as pg

    if (scene.layout or {}).get("focus"):
        return win.stage.plot()
    panel = win.panels[scene.panel]
    shown = [p for p in panel.findChildren(pg.PlotWidget) if p.isVisible()]
    return max(shown, key=lambda p: p.width() * p.height(), default=None)


def on_screen_share(win, plot) -> float:
    """The share of the screen the plot covers (its part inside the window)."""
    r = QRect(plot.mapTo(win, plot.rect().topLeft()), plot.size()).intersected(QRect(0, 0, win.width(),
                                                                                     win.height()))
    return r.width() * r.height() / (SCREEN[0] * SCREEN[1])


def _kept_in_sight(win, scene, where: str) -> None:
    """What the panel keeps above a plot in focus (Token swap's verdict) is on screen, not under the plot."""
    from PySide6.QtWidgets import QFrame, QWidget

    panel = win.panels[scene.panel]
    frame = panel.findChild(QFrame, "plotFocus")
    if frame is None or not frame.isVisible():
        return
    for w in panel.findChildren(QWidget):
        if w.property("aboveFocus"):
            r = QRect(w.mapTo(panel, w.rect().topLeft()), w.size())
            assert w.isVisible() and not r.intersects(frame.geometry()), f"{where}: {w.objectName()} is hidden"


def _apply(win, scene) -> None:
    assert win.session.apply_preset(scene)
    deadline = time.monotonic() + 30
    while not (win.panels[scene.panel].has_drawn and win.service.idle()) and time.monotonic() < deadline:
        _settle(20)
    _settle(60)


def test_every_scene_key_plot_gets_40_percent_of_a_720p_presenter_screen_in_every_order(window):
    from explorer import presets as pr

    win = window
    scenes = list(enumerate(pr.builtin_presets(), 1))
    assert len(scenes) >= 6
    shuffled = scenes[:]
    random.Random(27).shuffle(shuffled)
    orders = {"forward": scenes, "backward": scenes[::-1], "shuffled": shuffled}
    short: list[str] = []
    for order, walk in orders.items():
        for n, scene in walk:
            _apply(win, scene)
            plot = key_plot(win, scene)
            assert plot is not None, f"scene {n} ({order}): no plot on screen"
            share = on_screen_share(win, plot)
            _kept_in_sight(win, scene, f"scene {n} ({order})")
            if share < SHARE:
                short.append(f"scene {n} “{scene.title}” ({order}): {plot.objectName() or type(plot).__name__} "
                             f"{plot.width()}×{plot.height()} px = {share:.0%} of the screen")
    win.session.leave_scene()
    win.stage.set_focus_plot(None)
    assert win.frameGeometry().width() <= SCREEN[0] and win.frameGeometry().height() <= SCREEN[1]
    assert not short, "\n".join(short)


def test_presenter_mode_hides_the_bars_and_f10_brings_them_back(window):
    win = window
    assert win.look.presenter
    assert win.menuBar().isHidden() and win.toolbar.isHidden(), "presenter mode keeps the bars"
    hint = win.chrome.hint
    assert hint.isVisible() and "F10" in hint.text(), "nothing says how to bring the menus back"
    bars = win.acts["actBars"]
    assert bars.shortcut().toString() == "F10" and bars in win.actions(), "F10 must work with the menus hidden"
    assert all(dock.titleBarWidget() is not None for dock in win.docks.values()), "a panel dock kept its title"
    readout = win.panels["swap"].readout  # a hint line: "Hover a cell or bar to read its value; …"
    assert readout.isHidden(), "presenter mode kept Token swap's hint line"
    bars.trigger()
    _settle()
    assert win.menuBar().isVisible() and win.toolbar.isVisible()
    bars.trigger()
    _settle()
    assert win.menuBar().isHidden() and win.toolbar.isHidden()
    # Leaving presenter mode gives everything back, whatever was toggled in it.
    win.look.set_presenter(False)
    _settle()
    assert win.menuBar().isVisible() and win.toolbar.isVisible() and not win.chrome.hint.isVisible()
    assert all(dock.titleBarWidget() is None for dock in win.docks.values())
    assert not readout.isHidden()
    win.look.set_presenter(True)
    _settle()
    assert win.menuBar().isHidden() and win.toolbar.isHidden()


def test_a_layout_saved_in_presenter_mode_opens_with_its_bars_in_normal_mode(window, tmp_path, monkeypatch):
    """The bars presenter mode hides are not the user's layout: a window that restores a layout saved in presenter
    mode, then leaves it (or never was in it), shows its menu bar and toolbar."""
    from explorer.main_window import MainWindow
    from explorer.settings import load_settings

    monkeypatch.setenv("PE_EXPLORER_HOME", str(tmp_path))
    win = window
    assert win.look.presenter and win.toolbar.isHidden()
    win.save_layout()
    assert win.toolbar.isHidden(), "saving showed the toolbar in presenter mode"
    saved = load_settings()
    assert saved["view/presenter"] is True
    saved_normal = dict(saved)
    other = MainWindow(restore_layout=True, save_on_close=False)
    try:
        other.screen_limit = QSize(*SCREEN)
        other.show()
        _settle(60)
        # Restored in presenter mode: the bars out of the way, F10 and the hint there to bring them back.
        assert other.look.presenter and other.menuBar().isHidden() and other.toolbar.isHidden()
        assert other.chrome.hint.isVisible() and "F10" in other.chrome.hint.text()
        other.look.set_presenter(False)
        _settle()
        assert other.menuBar().isVisible() and other.toolbar.isVisible()
        # The state alone (as a normal-mode start reads it) has the toolbar shown.
        other.restoreState(saved_normal["state"], 3)
        _settle()
        assert other.toolbar.isVisible(), "the saved layout has the toolbar hidden"
    finally:
        other.close()
        QApplication.processEvents()
        other.service.worker_thread.join(60)


def test_the_controls_are_a_drawer_that_does_not_squeeze_the_plots(window):
    import pyqtgraph as pg

    win = window
    from explorer import presets as pr

    scene = pr.builtin_presets()[2]
    _apply(win, scene)
    win.stage.set_focus_plot(None)
    _settle()
    panel = win.panels[scene.panel]
    drawers = panel.sidebar_drawers
    assert drawers and all(d.handle.isVisible() and not d.is_open for d in drawers)
    assert all(d.handle.width() <= 24 for d in drawers)
    plots = [p for p in panel.findChildren(pg.PlotWidget) if p.isVisible()]
    before = {id(p): p.size() for p in plots}
    win.acts["actSidebar"].trigger()  # Ctrl+B: open
    _settle()
    assert all(d.is_open and d.sidebar.isVisible() for d in drawers)
    assert {id(p): p.size() for p in plots} == before, "opening the drawer squeezed the plots"
    drawers[0].handle.click()  # the handle closes it again
    _settle()
    assert not any(d.is_open for d in drawers) and not win.acts["actSidebar"].isChecked()
    # Normal mode: the sidebars back in their places, shown.
    win.look.set_presenter(False)
    _settle()
    assert not panel.sidebar_drawers and all(bar.isVisible() for bar in panel.sidebars())
    win.look.set_presenter(True)
    _settle()
    assert panel.sidebar_drawers and not any(d.is_open for d in panel.sidebar_drawers)


def test_the_formula_strip_is_one_line_in_presenter_mode_with_its_numbers_a_click_away(window):
    from PySide6.QtGui import QFontMetricsF

    from explorer import presets as pr

    win = window
    scene = pr.builtin_presets()[2]
    _apply(win, scene)
    strip = win.panels[scene.panel].formula
    assert strip.one_line
    line = QFontMetricsF(strip.font()).lineSpacing()
    assert strip.contentsRect().height() < 2 * line, f"the strip is {strip.height()} px for {line:.0f}-px lines"
    assert "more" in strip.shown_text() and strip.toolTip(), "the numbers are neither a click nor a hover away"
    strip.linkActivated.emit("more")
    _settle()
    assert "less" in strip.shown_text() and "=" in strip.shown_text()
    strip.linkActivated.emit("less")
    _settle()
    assert "more" in strip.shown_text()
