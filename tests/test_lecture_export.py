"""Export: PNG sizes and content, SVG, the clipboard, numbers as CSV/NPY, print theme, GIF sweeps, menus."""

from __future__ import annotations

import io
import sys
import types
import xml.etree.ElementTree as ET

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from explorer import export as ex
from explorer.theme import DARK, LIGHT, PRINT
from explorer.widgets.styling import style_plot


def _pixels(img: QImage) -> np.ndarray:
    img = img.convertToFormat(QImage.Format.Format_RGBA8888)  # bytes in R, G, B, A order
    arr = np.frombuffer(img.constBits(), dtype=np.uint8).reshape(img.height(), img.bytesPerLine())
    return arr[:, : img.width() * 4].reshape(img.height(), img.width(), 4)[..., :3].copy()


def _nonblank(img: QImage) -> bool:
    px = _pixels(img)[::3, ::3].astype(np.uint32)
    colours = np.unique((px[..., 0] << 16) | (px[..., 1] << 8) | px[..., 2])
    return float(px.std()) > 5 and colours.size > 20


@pytest.fixture
def plot(qtbot):
    from explorer.widgets.plots import Plot

    w = Plot("Two waves", grid=False, si_prefix=True)  # an app plot: exports restyle it for their look
    qtbot.addWidget(w)
    x = np.arange(50, dtype=float)
    w.plot(x, np.sin(x / 5), pen=pg.mkPen("k", width=1), name="sin")
    w.plot(x, np.cos(x / 5), pen=pg.mkPen("#0072B2", width=2), name="cos")
    w.getPlotItem().setLabel("bottom", "position p")
    w.resize(400, 300)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def heatmap(qtbot):
    from explorer.widgets.plots import Heatmap

    hm = Heatmap("Signed values", x="column", y="row")
    qtbot.addWidget(hm)
    data = np.linspace(-1, 1, 12).reshape(3, 4)
    hm.set_matrix(data)
    hm.resize(300, 240)
    hm.show()
    qtbot.waitExposed(hm)
    return hm, data


# -- PNG -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("scale", ex.SCALES)
def test_png_scales_are_exact_and_not_blank(plot, scale):
    base = ex.render_plot(plot, scale=1)
    img = ex.render_plot(plot, scale=scale)
    assert (img.width(), img.height()) == (base.width() * scale, pytest.approx(base.height() * scale, abs=1))
    assert _nonblank(img)


def test_png_width_in_pixels(plot):
    img = ex.render_plot(plot, width=1234)
    assert img.width() == 1234 and _nonblank(img)
    ratio = img.height() / img.width()
    base = ex.render_plot(plot)
    assert ratio == pytest.approx(base.height() / base.width(), abs=0.01)


def test_high_resolution_export_thickens_lines_and_restores_the_screen(plot):
    curve = plot.getPlotItem().listDataItems()[1]
    before = curve.opts["pen"].widthF()

    def blue(img):  # pixels of the #0072B2 curve
        px = _pixels(img).astype(int)
        return int(((px[..., 2] > 140) & (px[..., 0] < 80) & (px[..., 2] - px[..., 0] > 90)).sum())

    one, four = blue(ex.render_plot(plot, scale=1)), blue(ex.render_plot(plot, scale=4))
    # A line of length L·s and width w·s covers s² times the area; a cosmetic pen (still one
    # pixel wide at 4×) would cover only s times as much.
    assert four > 10 * one > 0
    assert pg.mkPen(curve.opts["pen"]).widthF() == before


def test_too_large_an_image_is_refused(plot):
    with pytest.raises(ex.ExportError, match="too large"):
        ex.render_plot(plot, width=ex.MAX_SIDE + 1)


def test_png_file_is_written_atomically(plot, tmp_path):
    out = ex.export_view_to_file(plot, tmp_path / "p.png", scale=2)
    img = QImage(str(out))
    assert img.width() == ex.render_plot(plot, scale=2).width()
    assert [p.name for p in tmp_path.iterdir()] == ["p.png"]
    with pytest.raises(ex.ExportError, match="does not exist"):
        ex.export_view_to_file(plot, tmp_path / "missing" / "p.png")
    with pytest.raises(ex.ExportError, match="must end in .png or .svg"):
        ex.export_view_to_file(plot, tmp_path / "p.jpg")


# -- SVG -----------------------------------------------------------------------------------------------
def test_plot_svg_parses_and_has_the_curves(plot):
    root = ET.fromstring(ex.plot_svg(plot))
    assert root.tag.endswith("svg")
    lines = [e for e in root.iter() if e.tag.split("}")[-1] in ("path", "polyline")]
    assert len(lines) >= 2
    assert any("Two waves" in (e.text or "") for e in root.iter())


def test_widget_svg_parses(heatmap):
    hm, _ = heatmap
    root = ET.fromstring(ex.widget_svg(hm, title="hm"))
    assert root.tag.endswith("svg")
    assert any(e.tag.endswith("image") for e in root.iter())  # the heatmap is embedded


# -- clipboard -------------------------------------------------------------------------------------------
def test_copy_to_clipboard(plot):
    QApplication.clipboard().clear()
    img = ex.render_plot(plot, scale=2)
    ex.copy_image(img)
    got = QApplication.clipboard().image()
    assert not got.isNull() and got.width() == img.width()


# -- print theme ------------------------------------------------------------------------------------------
def test_print_theme_exports_white_with_dark_lines_then_restores_the_dark_screen(plot):
    screen = ex.Look(DARK)
    style_plot(plot, DARK)
    dark = ex.render_plot(plot, screen=screen)
    printed = ex.render_plot(plot, screen=screen, theme=PRINT)
    assert _pixels(dark)[2, 2].max() < 60  # dark background as on screen
    assert _pixels(printed)[2, 2].min() > 245  # white background for print
    axis = plot.getPlotItem().getAxis("bottom")
    assert axis.pen().color().lightness() > 128  # the screen is dark again afterwards
    again = ex.render_plot(plot, screen=screen)
    assert np.array_equal(_pixels(again), _pixels(dark))


def test_theme_switches_do_not_compound(plot):
    curve = plot.getPlotItem().listDataItems()[1]
    for theme in (DARK, LIGHT, DARK, LIGHT):
        style_plot(plot, theme)
    pen = pg.mkPen(curve.opts["pen"])
    assert pen.widthF() == 2 and pen.color().name() == "#0072b2"


# -- numbers ----------------------------------------------------------------------------------------------
def test_curve_numbers_to_csv_and_npy(plot):
    from explorer.widgets.plot_data import plot_arrays

    arrays = plot_arrays(plot)
    assert list(arrays) == ["x", "sin", "cos"]
    x = np.arange(50, dtype=float)
    text = ex.data_bytes(arrays, ".csv").decode()
    assert text.splitlines()[0] == "x,sin,cos"
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    np.testing.assert_array_equal(table[:, 0], x)
    np.testing.assert_allclose(table[:, 1], np.sin(x / 5), rtol=0, atol=1e-15)
    rec = np.load(io.BytesIO(ex.data_bytes(arrays, ".npy")), allow_pickle=False)
    np.testing.assert_allclose(rec["cos"], np.cos(x / 5), rtol=0, atol=1e-15)


def test_image_numbers_to_csv_and_npy(heatmap):
    from explorer.widgets.plot_data import plot_arrays

    hm, data = heatmap
    arrays = plot_arrays(hm)
    text = ex.data_bytes(arrays, ".csv").decode()
    np.testing.assert_allclose(np.loadtxt(io.StringIO(text), delimiter=","), data, atol=1e-7)
    arr = np.load(io.BytesIO(ex.data_bytes(arrays, ".npy")), allow_pickle=False)
    np.testing.assert_allclose(arr, data, atol=1e-7)


@pytest.mark.parametrize("names", [("Δ", "≈ k·ω"), ("pair 0 · ω₀",)])
def test_npy_with_names_outside_latin1_is_written_without_a_warning(names):
    """Column names such as "Δ" need NPY format 3.0; NumPy warned when it had to guess that (the GUI monkey's
    export of such a plot raised under the suite's warnings-as-errors)."""
    arrays = {n: np.arange(4.0) + i for i, n in enumerate(names)}
    rec = np.load(io.BytesIO(ex.data_bytes(arrays, ".npy")), allow_pickle=False)  # warnings are errors here
    for i, n in enumerate(names):
        np.testing.assert_array_equal(rec[n] if len(names) > 1 else rec, np.arange(4.0) + i)


def test_mixed_and_ragged_numbers():
    mixed = {"image": np.eye(2), "x": np.arange(3.0)}
    with pytest.raises(ex.ExportError, match="use NPY"):
        ex.data_bytes(mixed, ".csv")
    rec = np.load(io.BytesIO(ex.data_bytes(mixed, ".npy")), allow_pickle=False)
    np.testing.assert_array_equal(rec["image"], np.eye(2))
    ragged = ex.data_bytes(
        {"a x": np.arange(3.0), "a y": np.arange(3.0), "b x": np.arange(2.0)}, ".csv"
    ).decode()
    assert ragged.splitlines()[-1] == "2,2,"
    with pytest.raises(ex.ExportError, match="no data"):
        ex.data_bytes({}, ".csv")
    with pytest.raises(ex.ExportError, match="must end in .csv or .npy"):
        ex.data_bytes({"x": np.ones(2)}, ".xlsx")


# -- whole panels, the window ---------------------------------------------------------------------------
def test_panel_and_window_images(qtbot, main_window):
    qtbot.waitUntil(lambda: main_window.all_drawn, timeout=60000)
    panel = main_window.panels["waves"]
    main_window.show_panel("waves")
    qtbot.wait(50)
    img = ex.render_widget(panel, scale=2)
    assert (img.width(), img.height()) == (panel.width() * 2, panel.height() * 2)
    assert _nonblank(img)
    win = ex.render_widget(main_window, width=800)
    assert win.width() == 800 and _nonblank(win)
    root = ET.fromstring(ex.widget_svg(panel))
    assert root.tag.endswith("svg")
    # Default names carry the panel's parameters.
    view = panel.plots()[0]
    name = ex.default_name(panel, view, scale=2)
    assert name.startswith(panel.export_basename() + "_") and name.endswith("@2x.png")
    assert ex.default_name(panel, ext=".svg") == panel.export_basename() + ".svg"
    assert ex.slug("<b>Attention</b> before the swap!") == "attention-before-the-swap"
    # The MP4 item says why it is disabled where no writer is installed.
    ok, why = ex.mp4_available()
    act = main_window.acts["actSweepMp4"]
    assert act.isEnabled() == ok
    if not ok:
        assert "needs imageio-ffmpeg" in act.text() and why in act.toolTip()


# -- every plot of every panel has the export menu, and it works -------------------------------------------
def test_every_plot_has_an_export_menu_that_writes_files(qtbot, main_window, tmp_path):
    qtbot.waitUntil(lambda: main_window.all_drawn, timeout=60000)
    exporter = main_window.exporter
    written = []

    def ask(_title, default, ext):
        written.append(tmp_path / f"{len(written)}{ext}")
        assert default.endswith(ext)
        return str(written[-1])

    exporter.ask_save_path = ask
    exporter.show_error = lambda m: pytest.fail(m)
    count = 0
    for panel in main_window.panels.values():
        for view in panel.plots():
            # Every ViewBox with a right-click menu (colour bars have none).
            vbs = [i for i in view.scene().items() if isinstance(i, pg.ViewBox) and i.menu is not None]
            for vb in vbs:
                sub = view.export_menu
                assert sub is not None and sub in [a.menu() for a in vb.menu.actions() if a.menu()]
                sub.aboutToShow.emit()  # filled when it opens, by this window's controller
                assert "Save as SVG…" in [a.text() for a in sub.actions()]
                count += 1
    assert count >= 6
    main_window.show_panel("waves")
    qtbot.wait(50)
    panel = main_window.panels["waves"]
    view = next(v for v in panel.plots() if v.isVisible())
    sub = view.export_menu
    sub.aboutToShow.emit()
    actions = {a.text(): a for a in sub.actions()}
    actions["Save as PNG, 2×…"].trigger()
    actions["Save as SVG…"].trigger()
    actions["Save numbers as CSV…"].trigger()
    actions["Save numbers as NPY…"].trigger()
    assert [p.suffix for p in written] == [".png", ".svg", ".csv", ".npy"]
    assert all(p.is_file() and p.stat().st_size > 0 for p in written)
    assert _nonblank(QImage(str(written[0])))


# -- animations ------------------------------------------------------------------------------------------
def test_sweep_values():
    from explorer.state import WavesState

    assert ex.sweep_values(WavesState, "position", 0, 9, 4) == [0, 3, 6, 9]
    vals = ex.sweep_values(WavesState, "base", 100.0, 10000.0, 3)
    assert vals == pytest.approx([100.0, 1000.0, 10000.0])  # base is a log field: geometric steps
    assert ex.sweep_values(WavesState, "d_model", 64, 70, 4) == [64, 66, 68, 70]
    with pytest.raises(ex.ExportError, match="cannot sweep 'variant'"):
        ex.sweep_values(WavesState, "variant", 0, 1, 3)
    with pytest.raises(ex.ExportError, match="must stay in"):
        ex.sweep_values(WavesState, "base", 1.0, 10.0, 3)


def test_effective_range_follows_cross_field_rules():
    from explorer.export import effective_range
    from explorer.state import WavesState

    st = WavesState()
    assert effective_range(st, "position") == (0, st.n_positions - 1)
    assert effective_range(st, "base") == (10.0, 1e7)


def test_gif_of_a_sweep(qtbot, main_window, tmp_path):
    from PIL import Image

    qtbot.waitUntil(lambda: main_window.all_drawn, timeout=60000)
    panel = main_window.panels["waves"]
    main_window.show_panel("waves")
    before = panel.state
    undo_count = main_window.undo.stack.count()
    out = tmp_path / "sweep.gif"
    ok = main_window.exporter.record_animation(
        panel, "position", [0, 60, 120], width=320, fps=5, path=str(out)
    )
    assert ok, "recording failed"
    with Image.open(out) as im:
        assert im.n_frames == 3 and im.size[0] == 320
        frames = []
        for k in range(3):
            im.seek(k)
            frames.append(np.asarray(im.convert("RGB")).copy())
    assert not np.array_equal(frames[0], frames[2])  # the frames really differ
    assert panel.state == before  # the sweep puts the parameter back
    assert main_window.undo.stack.count() == undo_count  # and is not an undo step


def test_mp4_says_why_it_is_unavailable(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
    ok, why = ex.mp4_available()
    assert not ok and "imageio-ffmpeg" in why
    with pytest.raises(ex.ExportError, match="imageio-ffmpeg"):
        ex.write_mp4(tmp_path / "a.mp4", [QImage(4, 4, QImage.Format.Format_RGB32)])


def test_mp4_is_written_through_imageio_ffmpeg_when_present(monkeypatch, tmp_path):
    sent = []

    def write_frames(path, size, **kwargs):
        def gen():
            with open(path, "wb") as fh:
                while True:
                    frame = yield
                    if frame is None and sent:
                        continue
                    if frame is not None:
                        assert len(frame) == size[0] * size[1] * 3
                        sent.append(frame)
                        fh.write(b"f")

        return gen()

    fake = types.SimpleNamespace(write_frames=write_frames, get_ffmpeg_exe=lambda: "/usr/bin/ffmpeg")
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", fake)
    frames = []
    for k in range(3):
        img = QImage(33, 21, QImage.Format.Format_RGB32)  # odd sides: cropped to even for yuv420p
        img.fill(0xFF000000 + k * 40)
        frames.append(img)
    out = ex.write_mp4(tmp_path / "a.mp4", frames, fps=4)
    assert out.read_bytes() == b"fff" and len(sent) == 3
    assert [p.name for p in tmp_path.iterdir()] == ["a.mp4"]


def test_sweep_dialog_offers_the_panels_numeric_parameters(qtbot, main_window):
    from explorer.export.sweep_dialog import SweepDialog

    panel = main_window.panels["waves"]
    dlg = SweepDialog(panel, main_window)
    qtbot.addWidget(dlg)
    names = [dlg.field_combo.itemData(k) for k in range(dlg.field_combo.count())]
    assert "position" in names and "base" in names and "variant" not in names and "overlay" not in names
    assert dlg.field_combo.currentData() == "position"
    assert (dlg.start.value(), dlg.stop.value()) == (0, panel.state.n_positions - 1)
    dlg.frames.setValue(5)
    opts = dlg.options()
    assert opts["values"] == [0, 64, 128, 191, 255] and opts["ext"] == ".gif" and opts["target"] is None
    ok, _ = ex.mp4_available()
    assert dlg.format.model().item(1).isEnabled() == ok
    # Its width box does not hide QWidget.width() (Qt and the look read a dialog's width).
    assert isinstance(dlg.width(), int) and opts["width"] == dlg.width_spin.value() == 800
