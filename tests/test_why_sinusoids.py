"""The Waves panel's "Why sinusoids?" tab: every number it shows is scorecard()'s, its colours survive dark and print.

A small request (d = 16, N up to 256) keeps these tests quick; the tab's own request differs only in its sizes.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from explorer import jobs
from explorer.encodings.candidates import CANDIDATES, PROPERTIES, scorecard
from explorer.jobs.why import GROWTH_N, ScorecardRequest, ScorecardResponse, short
from explorer.theme import DARK, LIGHT, PRINT

SMALL = ScorecardRequest(d=16, n_values=(16, 64, 256), offset=4, n_fit=64)


@pytest.fixture(scope="module")
def small():
    return jobs.run(SMALL), scorecard(d=16, n_values=(16, 64, 256), offset=4, n_fit=64)


def _value(text: str) -> float:
    return float(text.lstrip("×").replace(",", ""))


def _measured(row, prop: str) -> float:
    big = max(row.bounded_max)
    return {"bounded": row.bounded_max[big], "consistent": row.consistent, "unique": row.unique,
            "smooth": row.smooth, "linear": row.linear_residual}[prop]


def test_the_job_reports_scorecards_numbers(small):
    r, card = small
    assert isinstance(r, ScorecardResponse) and r.card == card
    for kind in CANDIDATES:
        row = card.row(kind)
        for prop in PROPERTIES:
            passed, number, detail = r.cells[kind][prop]
            assert passed == row.passes()[prop], (kind, prop)
            assert _value(number) == pytest.approx(_measured(row, prop), rel=0.06, abs=1e-300), (kind, prop)
            assert number.lstrip("×") in detail
        ns, ratio, biggest = r.growth[kind]
        assert ns.tolist() == [16, 64, 256] and ratio.dtype == np.float64
        assert ratio.tolist() == [row.bounded_ratio[n] for n in (16, 64, 256)]
        assert biggest.tolist() == [row.bounded_max[n] for n in (16, 64, 256)]
    # Only the sinusoids pass every test; each other candidate fails one at least.
    assert all(p for p, *_ in r.cells["sinusoidal"].values())
    assert all(not all(p for p, *_ in r.cells[k].values()) for k in CANDIDATES if k != "sinusoidal")


def test_the_tab_asks_for_the_issues_sizes():
    from explorer.panels.waves.views_why import WhyView

    q = WhyView.REQUEST
    assert max(q.n_values) == 131072 and q.n_values == GROWTH_N and q.base == 10000.0


@pytest.mark.parametrize(("x", "text"), [(0, "0"), (1.0, "1"), (0.9373855, "0.937"), (131071, "1.3e5"),
                                         (7.54e-14, "7.5e-14"), (0.00674, "6.7e-3"), (float("inf"), "∞")])
def test_short_numbers(x, text):
    assert short(x) == text


def test_the_table_shows_the_numbers_and_follows_the_theme(qtbot, small):
    from explorer.panels.waves.views_why import CELL_COLOURS, WhyView
    from explorer.widgets.theming import theme_bus

    r, card = small
    view = WhyView()
    qtbot.addWidget(view)
    view.resize(1000, 500)
    view.show()
    view.show_result(r)
    t = view.table
    assert [t.horizontalHeaderItem(j).text() for j in range(t.columnCount())] == ["raw p", "p/N", "binary", "sin/cos"]
    assert t.rowCount() == len(PROPERTIES)
    for j, kind in enumerate(CANDIDATES):
        row = card.row(kind)
        for i, prop in enumerate(PROPERTIES):
            mark, number = t.item(i, j).text().split("\n")
            assert mark == ("✓" if row.passes()[prop] else "✗")
            assert _value(number) == pytest.approx(_measured(row, prop), rel=0.06, abs=1e-300)
            assert ("passes" if row.passes()[prop] else "fails") in t.item(i, j).toolTip()
    np.testing.assert_array_equal(view.curves[0].getOriginalDataset()[1], r.growth["integer"][1])
    data = view.export_data(view.plot)
    assert data["N"].dtype == np.float64 and data["N"].tolist() == [16, 64, 256]
    assert data["sinusoidal: max ‖PE(p)‖ / √d"].tolist() == r.growth["sinusoidal"][1].tolist()
    assert view.export_data(object()) is None

    def colours():
        item = t.item(PROPERTIES.index("linear"), CANDIDATES.index("integer"))
        return item.background().color().name(), item.foreground().color().name()

    bus = theme_bus()
    try:
        for theme in (DARK, PRINT, LIGHT):
            bus.set_look(theme)
            assert colours() == CELL_COLOURS[(theme.dark, False)]
    finally:
        bus.set_look(LIGHT)


def _luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour[k:k + 2], 16) / 255 for k in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_cell_colours_are_readable_and_distinct_in_grey():
    from explorer.panels.waves.views_why import CELL_COLOURS

    for bg, fg in CELL_COLOURS.values():
        hi, lo = sorted((_luminance(bg), _luminance(fg)), reverse=True)
        assert (hi + 0.05) / (lo + 0.05) >= 7  # WCAG AAA: the back row reads it
    # The verdict never rests on hue alone: ✓ / ✗ is in every cell (checked above).


def test_the_panel_tab_computes_once_shown(qtbot, service, monkeypatch, small):
    from explorer.panels.waves import WavesPanel
    from explorer.panels.waves.views_why import WhyView

    monkeypatch.setattr(WhyView, "REQUEST", SMALL)
    p = WavesPanel(service)
    qtbot.addWidget(p)
    p.resize(1280, 720)
    p.show()
    try:
        qtbot.waitUntil(lambda: p.has_drawn, timeout=30000)
        assert p.latest_request("waves.why") is None  # nothing asked before the tab is shown
        assert "why" in p.view_ids
        p.show_view("why")
        assert p.current_view() == "why"
        qtbot.waitUntil(lambda: p.why.response is not None, timeout=30000)
        assert p.why.response.request == SMALL
        assert p.why.table.item(0, 0).text().startswith("✗")  # raw p is unbounded
        assert p.export_data(p.why.plot)["N"].tolist() == [16, 64, 256]
        # Dragging a slider does not ask again (the table does not depend on the sliders).
        before = p.latest_request("waves.why")
        p.set_state(dataclasses.replace(p.state, base=500000.0))
        assert p.latest_request("waves.why") is before
    finally:
        p.shutdown()
