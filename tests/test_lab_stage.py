"""The Lab on a 1280×720 projector in presenter mode (issue 27): plots that stay readable, a key that names what is
drawn, a formula strip of one line."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

DATA = Path(__file__).resolve().parents[1] / "resources" / "lessons" / "data"


def _presenter_font(widget, pt: float = 16.0) -> None:
    """The body text of presenter mode (a line about 21 px tall where normal text's is 14)."""
    font = widget.font()
    font.setPointSizeF(pt)
    widget.setFont(font)


def _done(schemes):
    from explorer.lab import LengthResult, SchemeResult

    return [SchemeResult(s, "done", 1, (1.0,), 0.0, 0.0,
                         (LengthResult(8, "ok", 0.5, 1.0), LengthResult(16, "ok", 0.5, 1.0)), (0.5,) * 15)
            for s in schemes]


def test_a_legend_is_left_out_where_it_would_leave_no_readable_data_area_and_goes_with_an_export(qtbot):
    """Two rows of legend took a 720p presenter plot's data area to 77 px: the legend shows only where five lines
    of body text remain for the data, and a plot exported alone while its legend is left out carries the key."""
    from explorer.lab import SCHEMES
    from explorer.panels.lab.accuracy_plots import LengthPlot
    from explorer.widgets.plots import configure_pyqtgraph
    from explorer.widgets.readable import readable_size

    configure_pyqtgraph()
    view = LengthPlot()
    qtbot.addWidget(view.plot)
    _presenter_font(view.plot)
    view.plot.resize(420, 230)
    view.plot.show()
    qtbot.waitExposed(view.plot)
    view.prepare([8, 16], 8, 0.125, 0.4)
    view.show_schemes(_done(SCHEMES), 8)
    vb = view.pi.getViewBox()
    want = readable_size(view.plot)[1]
    qtbot.waitUntil(lambda: view.placer.hidden_for_room and vb.height() >= want, timeout=3000)
    key = view.plot.export_key()
    assert all(label in key for label in ("NoPE", "RoPE", "ALiBi"))
    view.plot.resize(900, 620)  # room for the legend and the data
    qtbot.waitUntil(lambda: view.legend.isVisible(), timeout=3000)
    assert vb.height() >= want and view.plot.export_key() == ""


@pytest.fixture
def lab(qtbot, service):
    from explorer.panels.lab import LabPanel
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    p = LabPanel(service)
    qtbot.addWidget(p)
    _presenter_font(p)
    p.resize(1000, 560)
    p.show()
    qtbot.waitExposed(p)
    yield p
    p.shutdown()


def test_the_shared_key_names_the_schemes_of_the_result_shown(lab, qtbot):
    """The key above the plots named the panel's own five schemes over a saved result of six others."""
    views = (lab.loss_view, lab.length_view, lab.position_view)
    qtbot.waitUntil(lambda: any(v.placer.hidden_for_room for v in views), timeout=3000)
    lab.load_results(str(DATA / "lab_after_rope.json"))
    qtbot.waitUntil(lab.key.isVisible, timeout=3000)
    shown = lab.key.text()
    for label in ("RoPE", "xPos", "ALiBi", "Kerple", "T5", "FIRE"):
        assert label in shown, (label, shown)
    assert "NoPE" not in shown and "Sinusoidal" not in shown


def test_the_formula_strip_keeps_to_one_line_in_presenter_mode(lab, qtbot):
    """The Lab's formula was one part (joined by " · "): presenter mode's one-line strip showed all three lines."""
    from explorer.widgets.formula_strip import _parts

    text = lab.formula_text(lab.state)
    parts = _parts(text)
    assert len(parts) >= 4 and parts[0].startswith("x<sub>t+1</sub> = T[")
    import functools

    from explorer.theme import PRESENTER_LIGHT, formula_sheet

    strip = lab.formula
    strip.set_look(functools.partial(formula_sheet, PRESENTER_LIGHT), 21.0, 14.0)
    strip.set_one_line(True)
    qtbot.wait(50)
    assert "more" in strip.shown_text() and "seed" not in strip.shown_text()
    assert "seed 0" in strip.text()  # the whole formula behind "▸ more", in the tooltip and in Copy
