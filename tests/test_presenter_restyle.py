"""F5 restyles everything, on tabs nobody looks at too: fonts and pens grow by the theme's scale and shrink back.

The window shows the Waves panel's first tab; the Lab, Token swap and Waves' other tabs are hidden while presenter
mode goes on and off.  Measured: point sizes (plots, captions, formula strips, legend entries, the Lab table and
its "cannot run" cells, the sentence box, the pointer readout) and pen widths.
"""

from __future__ import annotations

import re

import pyqtgraph as pg
import pytest

from explorer.theme import LIGHT, PRESENTER_LIGHT, TICK_PT

SCALE = PRESENTER_LIGHT.font_scale


def _sheet_pt(widget) -> float:
    m = re.search(r"font-size:\s*([\d.]+)pt", widget.styleSheet())
    assert m, widget.styleSheet()
    return float(m.group(1))


def _legend_pts(legend) -> list[float]:
    return [float(label.opts["size"][:-2]) for _sample, label in legend.items]


def _results(schemes):
    from explorer.lab import LengthResult, SchemeResult

    out = []
    for s in schemes:
        long = LengthResult(16, "cannot run", reason="past the table") if s == "learned" else \
            LengthResult(16, "ok", 0.5, 1.0)
        out.append(SchemeResult(s, "done", 1, (1.0,), 0.0, 0.0, (LengthResult(8, "ok", 0.5, 1.0), long),
                                (0.5,) * 15))
    return out


@pytest.fixture
def hidden(qtbot, main_window):
    """The window on Waves' first tab; the Lab (with half a result drawn) and Token swap hidden."""
    from explorer.lab import SCHEMES

    win = main_window
    qtbot.waitUntil(lambda: win.all_drawn, timeout=60000)
    win.show_panel("waves")
    lab = win.panels["lab"]
    lab.length_view.prepare([8, 16], 8, 0.125, 0.4)
    lab.table.prepare(SCHEMES, [8, 16], 8)
    first = [s for s in SCHEMES if s == "learned"] + [s for s in SCHEMES if s != "learned"][:1]
    lab.length_view.show_schemes(_results(first), 8)
    lab.table.show_schemes(_results(first))
    for pid in ("lab", "swap"):
        win.docks[pid].close()  # hidden altogether
    qtbot.waitUntil(lambda: not lab.isVisible(), timeout=5000)
    assert not lab.isVisible() and not win.panels["swap"].isVisible()
    waves = win.panels["waves"]
    assert waves.tabs.currentIndex() == 0
    return win, [s for s in SCHEMES if s not in first]


def test_presenter_restyles_hidden_panels_and_tabs(qtbot, hidden):
    win, later = hidden
    lab, swap, waves = win.panels["lab"], win.panels["swap"], win.panels["waves"]
    hidden_card = waves.similarity  # on the "Relative position" tab
    assert not hidden_card.isVisible()
    plot, curve = next((p, i) for p in hidden_card.findChildren(pg.PlotWidget) for i in p.getPlotItem().items
                       if isinstance(i, pg.InfiniteLine))
    lab_curve = next(iter(lab.length_view.curves.values()))

    def look():
        muted = next(lab.table.item(r, c) for r in range(lab.table.rowCount())
                     for c in range(lab.table.columnCount())
                     if lab.table.item(r, c) is not None and lab.table.item(r, c).font().italic())
        return {
            "tick": plot.getPlotItem().getAxis("bottom").style["tickFont"].pointSizeF(),
            "pen": curve.pen.widthF(),
            "lab pen": pg.mkPen(lab_curve.opts["pen"]).widthF(),
            "caption": hidden_card.readout.font().pointSizeF(),
            "legend": _legend_pts(lab.length_view.legend)[0],
            "table": lab.table.font().pointSizeF(),
            "table header": lab.table.horizontalHeader().font().pointSizeF(),
            "cannot run cell": muted.font().pointSizeF(),
            "sentence": swap.sentence_edit.font().pointSizeF(),
            "lab formula": _sheet_pt(lab.formula),
            "swap readout": _sheet_pt(swap.readout),
            "why table": waves.why.table.font().pointSizeF(),  # the "Why sinusoids?" tab, never shown here
            "why caption": waves.why.caption.font().pointSizeF(),
        }

    normal = look()
    assert normal["cannot run cell"] == normal["table"]
    win.look.set_presenter(True)
    big = look()
    assert not hidden_card.isVisible() and not lab.isVisible()
    for key, value in normal.items():
        want = PRESENTER_LIGHT.line_scale if "pen" in key else SCALE
        assert big[key] == pytest.approx(value * want, rel=0.02), key

    # Legend entries and curves added while presenter mode is on (the Lab's legend under its axis).
    lab.length_view.show_schemes(_results(later), 8)
    lab.table.show_schemes(_results(later))
    assert _legend_pts(lab.length_view.legend) == [PRESENTER_LIGHT.point_size(TICK_PT)] * len(
        lab.length_view.legend.items)
    for curve_ in lab.length_view.curves.values():
        assert pg.mkPen(curve_.opts["pen"]).widthF() == pytest.approx(3.0 * PRESENTER_LIGHT.line_scale)

    win.look.set_presenter(False)
    assert look() == normal
    assert _legend_pts(lab.length_view.legend) == [LIGHT.point_size(TICK_PT)] * len(lab.length_view.legend.items)


def test_formula_strip_text_has_no_size_of_its_own(hidden):
    """The Waves strip's text once carried an inline 12 pt that beat the strip's style sheet in presenter mode."""
    win, _ = hidden
    for panel in win.panels.values():
        assert "font-size" not in panel.formula.text(), panel


def test_presenter_restyles_the_lesson_pane_docked_floating_and_hidden(qtbot, main_window):
    """The Lesson pane (issue 17): its text, title and coloured boxes grow with F5 and shrink back — docked,
    floating (a window of its own: the window's font does not reach it by itself) and while hidden."""
    win = main_window
    pane = win.lessons.show()
    pane.set_lesson(pane.lessons[1], 2)
    pane.number.setText("1")
    with qtbot.waitSignal(pane.revealed, timeout=30000):
        pane.show_me()

    def look():
        return {name: getattr(pane, name).font().pointSizeF() for name in ("text", "title", "verdict", "wrong",
                                                                            "reveal", "computed", "counter")}

    normal = look()
    assert normal["title"] > normal["text"]
    for floating, hidden in ((False, False), (True, False), (False, True)):
        win.lessons.dock.setFloating(floating)
        win.lessons.dock.setVisible(not hidden)
        win.look.set_presenter(True)
        big = look()
        for key, value in normal.items():
            assert big[key] == pytest.approx(value * SCALE, rel=0.02), (key, floating, hidden)
        win.look.set_presenter(False)
        assert look() == normal, (floating, hidden)
    win.lessons.dock.setFloating(False)
    qtbot.waitUntil(win.service.idle, timeout=60000)
