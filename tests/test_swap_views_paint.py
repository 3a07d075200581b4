"""Token swap views redo per slider step only what the step changed (axes and ranges stay)."""

from __future__ import annotations

import numpy as np

from explorer.panels.swap.axis import TokenAxis
from explorer.panels.swap.views import AttentionMap, QueryBars


def test_token_axis_keeps_its_drawn_ticks_for_the_same_labels(qtbot):
    axis = TokenAxis("bottom")
    axis.set_labels(["the", "cat", "sat"], {3.5: "Σ"})
    axis.picture = drawn = object()  # what pyqtgraph keeps between paints
    axis.set_labels(["the", "cat", "sat"], {3.5: "Σ"})
    assert axis.picture is drawn
    axis.set_labels(["the", "dog", "sat"], {3.5: "Σ"})
    assert axis.picture is None and axis.labels() == ["the", "dog", "sat"]


def test_a_slider_step_redraws_the_values_not_the_axes_or_the_range(qtbot, monkeypatch):
    tokens = ["a", "b", "c", "d"]
    amap, bars = AttentionMap("attention"), QueryBars()
    qtbot.addWidget(amap)
    qtbot.addWidget(bars)
    w = np.full((4, 4), 0.25)
    amap.set_data(w, w.sum(axis=1), tokens)
    bars.set_data(w[0], w[1], tokens, 0, "")
    calls = []
    vb = bars.getPlotItem().getViewBox()
    monkeypatch.setattr(vb, "setRange", lambda *a, **k: calls.append("range"))
    for axis in (amap.x_axis, amap.y_axis, bars.x_axis):
        axis.picture = "drawn"
    w2 = np.tril(np.ones((4, 4)))
    w2 /= w2.sum(axis=1, keepdims=True)  # another α: other weights, the same sentence
    amap.set_data(w2, w2.sum(axis=1), tokens)
    bars.set_data(w2[3], w2[2], tokens, 0, "")
    assert calls == [] and all(a.picture == "drawn" for a in (amap.x_axis, amap.y_axis, bars.x_axis))
    np.testing.assert_array_equal(amap.image.image, w2.astype(np.float32))
    bars.set_data(np.ones(5) / 5, np.ones(5) / 5, tokens + ["e"], 0, "")  # a longer sentence: shown whole
    assert calls == ["range"]
