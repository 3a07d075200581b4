"""The Schemes panel draws what Shaw, Transformer-XL, Kerple and FIRE ask for through the registry's hooks:
Shaw's clipping distance on the matrix and the curve, Transformer-XL's four score terms, Kerple beside ALiBi,
and FIRE from the Lab's trained weights once a run of this session trained it (issue 19)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from explorer.lab import SchemeResult
from explorer.schemes import fire
from explorer.state import SchemesState
from explorer.widgets.titles import full_title

SHOWN = ("transformer_xl", "shaw", "alibi", "kerple", "fire")


@pytest.fixture
def panel(qtbot, service):
    from explorer.panels.schemes import SchemesPanel
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    p = SchemesPanel(service, SchemesState(l_train=32, l_eval=64, schemes=SHOWN,
                                           scheme_params=(("shaw", "k", 8),)))
    qtbot.addWidget(p)
    p.resize(1300, 800)
    p.show()
    _wait(qtbot, p)
    yield p
    p.shutdown()


def _wait(qtbot, p) -> None:
    qtbot.waitUntil(lambda: p.has_drawn and p.service.idle(), timeout=20000)
    qtbot.wait(10)


def test_shaw_marks_its_clipping_distance_on_the_matrix(panel):
    lines = [ln for ln in panel.matrix_view.diagonals["shaw"] if ln.isVisible()]
    assert len(lines) == 1  # causal: the one diagonal i − j = k below the main one
    x, y = lines[0].getData()
    np.testing.assert_allclose(y - x, 8.0)
    assert not any(ln.isVisible() for s, ls in panel.matrix_view.diagonals.items() if s != "shaw" for ln in ls)


def test_distance_view_marks_k_draws_kerple_beside_alibi_and_the_four_terms(qtbot, panel):
    panel.show_view("distance")
    _wait(qtbot, panel)
    view = panel.distance_view
    assert [ln.value() for ln in view.marks["shaw"] if ln.isVisible()] == [8.0]
    top = view.top.getPlotItem().listDataItems()
    assert view.curves["kerple"] in top and view.curves["alibi"] in top  # the same axes
    assert view.curves["kerple"].opts["pen"].style() == Qt.PenStyle.DashLine
    pw, curves = view.term_plots["transformer_xl"]
    assert pw.isVisible() and len(curves) == 4
    styles = {c.opts["pen"].style() for c in curves}
    assert len(styles) == 4  # one line style per term, all in the scheme's colour
    r = view.responses["transformer_xl"]
    np.testing.assert_allclose(sum(c.getData()[1] for c in curves[1:]), r.mean, atol=1e-12)
    assert "split into the terms" in view.info.text()


def test_fire_says_whose_weights_it_draws(qtbot, panel):
    assert full_title(panel.matrix_view.plots["fire"].getPlotItem()) == "FIRE (seeded)"
    w = fire.seeded_weights(4, 7, 16)
    fake = type("Run", (), {"schemes": (SchemeResult("fire", "done", 1, (1.0,), 0.1, weights=fire.pack(w)),)})
    panel.links.remember_weights(fake)  # what the Lab panel does when a run finishes: Schemes redraws at once
    _wait(qtbot, panel)
    assert full_title(panel.matrix_view.plots["fire"].getPlotItem()) == "FIRE (Lab-trained)"
    m = panel.matrix_view.responses["fire"].matrix
    want = fire.fire_bias(64, w)[0]
    np.testing.assert_allclose(m[np.isfinite(want)], want[np.isfinite(want)], atol=1e-12)
