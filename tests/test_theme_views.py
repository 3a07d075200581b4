"""Views style themselves: presenter mode reaches plots on hidden tabs, and items made later get the theme."""

from __future__ import annotations

import pyqtgraph as pg
import pytest

from explorer.theme import LABEL_PT, LIGHT, PRESENTER_LIGHT, TICK_PT, TITLE_PT


def _pen_width(item) -> float:
    return pg.mkPen(item.opts["pen"]).widthF()


def _tick_pt(plot) -> float:
    return plot.getPlotItem().getAxis("bottom").style["tickFont"].pointSizeF()


def _title_pt(plot) -> str:
    return plot.getPlotItem().titleLabel.opts["size"]


@pytest.fixture
def hidden_schemes(qtbot, main_window):
    """The Schemes distance view built but on a sub-tab that is not current, and the Schemes dock closed."""
    qtbot.waitUntil(lambda: main_window.all_drawn, timeout=60000)
    panel = main_window.panels["schemes"]
    view = panel.view("distance")  # built now; the Schemes panel shows another view
    assert panel.tabs.currentWidget() is not view.parentWidget()
    main_window.show_panel("waves")
    main_window.docks["schemes"].close()  # the whole panel hidden too
    qtbot.waitUntil(lambda: not panel.isVisible(), timeout=5000)
    assert not view.isVisible()
    return main_window, panel, view


def test_presenter_mode_restyles_plots_on_hidden_tabs(hidden_schemes):
    window, panel, view = hidden_schemes
    plot = view.top
    curve = next(i for i in plot.getPlotItem().items if isinstance(i, pg.PlotDataItem) and i.opts["pen"] is not None)
    base_width = _pen_width(curve)
    assert _tick_pt(plot) == LIGHT.point_size(TICK_PT)
    assert _title_pt(plot) == f"{LIGHT.point_size(TITLE_PT):g}pt"

    window.look.set_presenter(True)
    assert not view.isVisible()  # still hidden: nothing drew it
    assert _pen_width(curve) == pytest.approx(base_width * PRESENTER_LIGHT.line_scale)
    assert _tick_pt(plot) == PRESENTER_LIGHT.point_size(TICK_PT)
    assert _title_pt(plot) == f"{PRESENTER_LIGHT.point_size(TITLE_PT):g}pt"
    # Captions under plots follow it too (the info label's style sheet sets its own size).
    assert f"{round(11 * PRESENTER_LIGHT.font_scale, 1):g}pt" in view.info.styleSheet()
    waves_readout = window.panels["waves"].waves.readout
    assert waves_readout.font().pointSizeF() == PRESENTER_LIGHT.point_size(11)

    window.look.set_presenter(False)
    assert _pen_width(curve) == pytest.approx(base_width)
    assert _tick_pt(plot) == LIGHT.point_size(TICK_PT)
    assert _title_pt(plot) == f"{LIGHT.point_size(TITLE_PT):g}pt"
    assert waves_readout.font().pointSizeF() == LIGHT.point_size(11)


def test_items_added_after_a_theme_change_get_the_current_theme(qtbot, hidden_schemes):
    window, panel, view = hidden_schemes
    window.look.set_presenter(True)
    pi = view.top.getPlotItem()
    # A curve, a line, a text item and an axis label made now, after the change, with light-theme values.
    curve = pi.plot([0, 1, 2], [0, 1, 0], pen=pg.mkPen("#0072B2", width=2.0))
    line = pg.InfiniteLine(1.0, pen=pg.mkPen("#202020", width=1.0))
    pi.addItem(line)
    text = pg.TextItem("note")
    font = text.textItem.font()
    font.setPointSizeF(10)
    text.setFont(font)
    pi.addItem(text)
    pi.setLabel("bottom", "a new label")
    assert _pen_width(curve) == pytest.approx(2.0 * PRESENTER_LIGHT.line_scale)
    assert line.pen.widthF() == pytest.approx(1.0 * PRESENTER_LIGHT.line_scale)
    assert text.textItem.font().pointSizeF() == pytest.approx(10 * PRESENTER_LIGHT.font_scale)
    axis = pi.getAxis("bottom")
    assert f"{PRESENTER_LIGHT.point_size(LABEL_PT):g}pt" in axis.label.toHtml()
    # A panel replacing a pen later (through its plot's styler): the new pen is the base, scaled by the theme
    # (not compounded).
    styler = view.top.styler
    styler.set_pen(curve, pg.mkPen("#E69F00", width=3.0))
    assert _pen_width(curve) == pytest.approx(3.0 * PRESENTER_LIGHT.line_scale)
    curve.setData([0, 1], [1, 0])
    styler.set_pen(curve, pg.mkPen("#E69F00", width=1.5))
    assert _pen_width(curve) == pytest.approx(1.5 * PRESENTER_LIGHT.line_scale)
    window.look.set_presenter(False)
    assert _pen_width(curve) == pytest.approx(1.5)
    assert text.textItem.font().pointSizeF() == pytest.approx(10)

    # A new result draws with the current theme (the view is hidden and no scene is walked).
    window.look.set_presenter(True)
    panel.set_state(panel.state.clamped(l_eval=panel.state.l_eval * 2 if panel.state.l_eval < 4096 else 1024))
    qtbot.waitUntil(lambda: panel.has_drawn, timeout=60000)
    for item in view.top.getPlotItem().items:
        if isinstance(item, pg.PlotDataItem) and item.opts["pen"] is not None and styler.base(item, "pen"):
            assert _pen_width(item) == pytest.approx(styler.base(item, "pen").widthF() * PRESENTER_LIGHT.line_scale)


def test_a_plot_made_later_is_born_in_the_current_theme(qtbot, hidden_schemes):
    window, panel, _view = hidden_schemes
    window.look.set_presenter(True)
    later = panel.view("beyond")  # a view built only now, in presenter mode
    plot = later.plot_widgets()[0]
    assert _tick_pt(plot) == PRESENTER_LIGHT.point_size(TICK_PT)
    assert plot.backgroundBrush().color().name() == PRESENTER_LIGHT.background
    # It carries the export submenu from birth, filled by this window's controller when opened.
    sub = plot.export_menu
    sub.aboutToShow.emit()
    assert "Save numbers as CSV…" in [a.text() for a in sub.actions()]


def test_no_scene_walk_after_a_draw(qtbot, main_window, monkeypatch):
    """The shell no longer restyles after draws: a draw does not call the whole-view styling."""
    from explorer.widgets.styler import Styler

    qtbot.waitUntil(lambda: main_window.all_drawn, timeout=60000)
    calls = []
    monkeypatch.setattr(Styler, "restyle", lambda *a, **k: calls.append(a))
    panel = main_window.panels["waves"]
    panel.set_state(panel.state.clamped(position=panel.state.position + 1))
    qtbot.waitUntil(lambda: panel.has_drawn, timeout=30000)
    assert calls == []


def test_help_user_guide_opens_the_index(qtbot, main_window, tmp_path, monkeypatch):
    from explorer.shell import help as help_mod
    from explorer.widgets import guide

    folder = guide.docs_dir()
    if not (folder / "index.md").is_file():  # the guide is being written; test with a stand-in
        folder = tmp_path / "docs"
        (folder / "panels").mkdir(parents=True)
        (folder / "index.md").write_text("# PE Explorer guide\n\nSee [Waves](panels/waves.md).\n")
        (folder / "panels" / "waves.md").write_text("# The Waves panel\n\nBack to [the guide](../index.md).\n")
        monkeypatch.setattr(help_mod, "docs_dir", lambda: folder)
    main_window.findChild(type(main_window.acts["actGuide"]), "actGuide").trigger()
    dlg = main_window.help.guide_dialog
    qtbot.waitExposed(dlg)
    index_text = (folder / "index.md").read_text(encoding="utf-8")
    first_heading = next(line.lstrip("# ").strip() for line in index_text.splitlines() if line.startswith("#"))
    assert first_heading in dlg.browser.toPlainText()
    # A relative link to another page navigates inside the guide.
    import re

    link = re.search(r"\]\(([^)#:]+\.md)(#[^)]*)?\)", index_text)
    assert link, "the index links to other pages"
    from PySide6.QtCore import QUrl

    dlg.browser.setSource(dlg.browser.source().resolved(QUrl(link.group(1))))
    target = (folder / link.group(1)).read_text(encoding="utf-8")
    heading = next(line.lstrip("# ").strip() for line in target.splitlines() if line.startswith("#"))
    assert heading in dlg.browser.toPlainText()
    dlg.browser.backward()
    assert first_heading in dlg.browser.toPlainText()
    dlg.close()


def test_user_guide_says_clearly_when_docs_are_missing(qtbot, tmp_path):
    from explorer.widgets.guide import GuideDialog

    dlg = GuideDialog(tmp_path / "nowhere")
    qtbot.addWidget(dlg)
    assert "user guide is not here" in dlg.browser.toPlainText()
    assert not dlg.available


def test_docs_dir_prefers_the_packaged_guide(tmp_path):
    from explorer.widgets.guide import docs_dir

    pkg = tmp_path / "site" / "explorer"
    (pkg / "docs").mkdir(parents=True)
    (tmp_path / "site" / "docs").mkdir()
    (tmp_path / "site" / "docs" / "index.md").write_text("# stray")
    assert docs_dir(pkg) == tmp_path / "site" / "docs"  # only the one with an index counts
    (pkg / "docs" / "index.md").write_text("# packaged")
    assert docs_dir(pkg) == pkg / "docs"


def test_a_scatter_of_its_own_follows_the_theme(qtbot, main_window):
    """The Waves similarity dots (a bare ScatterPlotItem, not a PlotDataItem's symbols) stayed dark blue on
    the dark background; now their fill is mapped like every pen, and set back in light."""
    from PySide6.QtGui import QColor

    from explorer.panels.waves.common import P_COLOUR
    from explorer.theme import DARK

    waves = main_window.panels["waves"]
    dots = waves.similarity.dots  # builds its tab
    light = QColor(P_COLOUR)
    assert dots.opts["brush"].color() == light
    main_window.acts["actDark"].trigger()
    want = QColor(*DARK.map_colour((light.red(), light.green(), light.blue(), 255)))
    assert want != light  # the dark theme does map this blue
    assert dots.opts["brush"].color() == want
    styler = waves.similarity.plot.styler
    styler.set_brush(dots, pg.mkBrush("#e66100"))  # a panel's new fill is the base, mapped at once
    orange = QColor("#e66100")
    assert dots.opts["brush"].color() == QColor(*DARK.map_colour((orange.red(), orange.green(), orange.blue(), 255)))
    styler.set_brush(dots, pg.mkBrush(P_COLOUR))
    main_window.acts["actDark"].trigger()
    assert dots.opts["brush"].color() == light


def test_the_lab_swatches_are_the_colours_its_plots_draw(qtbot, main_window):
    """The Lab's "Schemes to train" swatches used the light colours in dark theme too."""
    from PySide6.QtGui import QColor

    from explorer.panels.lab.common import SCHEME_COLOURS
    from explorer.theme import DARK

    lab = main_window.panels["lab"]

    def swatch(s):
        return lab.scheme_checks[s].icon().pixmap(14, 14).toImage().pixelColor(7, 7)

    main_window.acts["actDark"].trigger()
    changed = 0
    for s, cb in lab.scheme_checks.items():
        if cb.icon().pixmap(14, 14).toImage().pixelColor(0, 0).alpha() == 0:
            continue  # a line sample (dashed or dotted), not a filled square
        c = QColor(SCHEME_COLOURS[s])
        want = QColor(*DARK.map_colour((c.red(), c.green(), c.blue(), 255)))
        assert swatch(s) == want, s
        changed += want != c
    assert changed >= 3
    main_window.acts["actDark"].trigger()
    assert all(swatch(s) == QColor(SCHEME_COLOURS[s]) for s, cb in lab.scheme_checks.items()
               if cb.icon().pixmap(14, 14).toImage().pixelColor(0, 0).alpha() != 0)


def test_markers_grow_with_the_theme_as_a_curves_symbols_do(qtbot):
    """The Waves spectrum's markers are scatters of their own: presenter mode scales them as it scales a
    PlotDataItem's symbols, and a new drag step's data keeps that size."""
    from explorer.widgets.plots import Plot
    from explorer.widgets.symbols import Markers

    plot = Plot()
    qtbot.addWidget(plot)
    symbols = plot.plot([0, 1], [0, 1], pen=None, symbol="o", symbolSize=11)
    markers = Markers(size=11, pen=pg.mkPen("#c8c8c8", width=1.0))
    plot.addItem(markers)
    plain = pg.ScatterPlotItem(size=11)
    plot.addItem(plain)
    markers.setData([0.0, 1.0], [1.0, 0.0])
    plot.styler.restyle(PRESENTER_LIGHT)
    grown = symbols.opts["symbolSize"]
    assert grown > 11
    assert markers.opts["size"] == pytest.approx(grown)
    assert plain.opts["size"] == 11  # a plain scatter keeps its size, as before
    markers.setData([0.5], [0.5])  # a drag step
    assert [p.size() for p in markers.points()] == pytest.approx([grown])
    assert _pen_width(markers) == pytest.approx(PRESENTER_LIGHT.line_scale)
    plot.styler.restyle(LIGHT)
    assert markers.opts["size"] == 11 and symbols.opts["symbolSize"] == 11
