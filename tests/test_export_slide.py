"""Slide-ready export (issue 14): SVG that renders outside Qt as in Qt, 16:9 slides without controls or
hints in the presenter theme, stable plot names in on-screen order, background tabs laid out, the umask."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtGui import QImage

from explorer import export as ex
from explorer.cli import main
from explorer.commands import export as cmd
from explorer.export import slide as sl
from explorer.export.svg import non_scaling_under_stretch, plain_text
from explorer.state import AppState

PANELS = ("waves", "swap", "schemes")


def _pixels(path) -> np.ndarray:
    img = QImage(str(path)).convertToFormat(QImage.Format.Format_RGB888)
    w, h = img.width(), img.height()
    raw = np.frombuffer(img.constBits(), np.uint8, img.bytesPerLine() * h).reshape(h, img.bytesPerLine())
    return raw[:, : w * 3].reshape(h, w, 3).astype(float)


def _blocks(a: np.ndarray, n: int = 8) -> np.ndarray:
    h, w = a.shape[0] // n * n, a.shape[1] // n * n
    return a[:h, :w].reshape(h // n, n, w // n, n, 3).mean(axis=(1, 3))


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert missing: run scripts/system-deps.sh")
@pytest.mark.parametrize("panel", PANELS)
def test_svg_of_every_panel_renders_in_rsvg_as_in_qt(qtbot, tmp_path, panel):
    """Today's main: lines 40 px thick (non-scaling strokes under a 7 × −40 transform), markers squeezed
    from the whole symbol atlas, fonts written in points as pixels: waves differs by 38 on average."""
    state = AppState().get(panel)
    svg, png, rsvg = tmp_path / "p.svg", tmp_path / "qt.png", tmp_path / "rsvg.png"
    assert cmd.render(panel, state, out=str(svg)) == 0
    assert cmd.render(panel, state, out=str(png)) == 0
    data = svg.read_bytes()
    assert non_scaling_under_stretch(data) == 0
    subprocess.run(["rsvg-convert", "-w", "1440", "-h", "900", "-b", "white", "-o", str(rsvg), str(svg)],
                   check=True, timeout=60)
    qt, other = _pixels(png), _pixels(rsvg)
    assert qt.shape == other.shape == (900, 1440, 3)
    full = np.abs(qt - other).mean()
    coarse = np.abs(_blocks(qt) - _blocks(other)).mean()  # text set a pixel apart counts little here
    assert full < 10 and coarse < 3.5, (full, coarse)


def test_plain_text_titles():
    assert plain_text("RoFormer bound Σ<sub>j</sub> |S<sub>j</sub>|, k&lt;j") == "RoFormer bound Σⱼ |Sⱼ|, k<j"
    assert plain_text("10000<sup>−2i/128</sup>") == "10000⁻²ⁱ/¹²⁸"
    assert plain_text("base<sup>2/d</sup>") == "base^2/d"  # no superscript d in Unicode
    assert plain_text("λ<sub>0</sub> = 2π") == "λ₀ = 2π"


def test_slide_of_every_panel_in_presenter_theme_without_controls_or_hints(qtbot, tmp_path, monkeypatch, capsys):
    """--theme presenter works for every panel (it crashed with exit 139 for waves and swap); a slide is
    1920 × 1080, and while it is taken no input, tab bar or "Hover…/Click…" line is shown."""
    from PySide6 import QtWidgets

    from explorer.export import images
    from explorer.widgets.theming import theme_bus

    seen: dict = {}
    original = images.export_widget_to_file

    def spy(widget, path, **kw):
        inputs = (QtWidgets.QAbstractSlider, QtWidgets.QAbstractSpinBox, QtWidgets.QComboBox,
                  QtWidgets.QAbstractButton, QtWidgets.QLineEdit, QtWidgets.QTabBar)
        shown = [w for w in widget.findChildren(QtWidgets.QWidget) if w.isVisibleTo(widget)]
        seen[widget.panel_id] = {
            "size": (widget.width(), widget.height()),
            "inputs": [type(w).__name__ for w in shown if isinstance(w, inputs)],
            "hints": [w.text() for w in shown if isinstance(w, QtWidgets.QLabel) and sl.HINT_RE.match(w.text())],
            "theme": theme_bus().theme.name,
        }
        return original(widget, path, **kw)

    monkeypatch.setattr(images, "export_widget_to_file", spy)
    for panel in PANELS:
        out = tmp_path / f"{panel}.png"
        rc = main(["export", "--panel", panel, "--slide", "1080", "--theme", "presenter", "--out", str(out)])
        assert rc == 0, capsys.readouterr().err
        img = QImage(str(out))
        assert (img.width(), img.height()) == (1920, 1080)
        assert seen[panel]["size"] == (1920, 1080)  # presenter's text is large enough drawn 1:1
        assert seen[panel]["inputs"] == [] and seen[panel]["hints"] == [], seen[panel]
        assert seen[panel]["theme"].startswith("presenter")


def test_a_2160_slide_of_one_plot_scales_markers_and_lines(qtbot, tmp_path, capsys):
    """3840 × 2160 is the 1920 × 1080 slide at twice the resolution: a marker twice as wide, not four times."""
    import pyqtgraph as pg

    from explorer.widgets.plots import configure_pyqtgraph, make_plot

    configure_pyqtgraph()
    pw = make_plot("t")
    qtbot.addWidget(pw)
    pw.resize(400, 300)
    pw.plot([0.5], [0.5], pen=None, symbol="o", symbolSize=10, symbolBrush="r", symbolPen=None)
    pw.plot([0, 1], [0, 1], pen=pg.mkPen("b", width=2))
    pw.show()
    qtbot.waitExposed(pw)

    def marker_width(height):
        path = tmp_path / f"s{height}.png"
        ex.export_slide(pw, path, height, screen=ex.Look())
        a = _pixels(path)
        assert a.shape[:2] == (height, height * 16 // 9)
        red = (a[..., 0] > 180) & (a[..., 1] < 90) & (a[..., 2] < 90)
        return red.any(axis=0).sum()

    small, big = marker_width(1080), marker_width(2160)
    assert 1.7 < big / small < 2.3, (small, big)
    assert pw.size().width() == 400  # put back


def test_list_plots_in_on_screen_order_and_plot_by_name(qtbot, tmp_path, capsys):
    """No --list-plots on main, and --plot N counted the widgets' creation order (1 = the difference map)."""
    assert main(["export", "--panel", "swap", "--list-plots"]) == 0
    names = [ln.split("\t")[0] for ln in capsys.readouterr().out.splitlines()]
    assert names == ["before-map", "after-map", "bars", "out-before", "out-after", "out-diff"]
    assert main(["export", "--panel", "waves", "--list-plots"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = [ln.split("\t")[0] for ln in lines]
    # Tab by tab: the table, relative position, beyond training (its last plot the token norms), why sinusoids.
    assert names[:3] == ["heatmap", "waves", "spectrum"] and names[-2:] == ["token-norms", "why-growth"]
    assert len(set(names)) == len(names) == 12
    # A plot on a background tab is laid out at its real size, not an unshown 640 × 480.
    out = tmp_path / "norms.png"
    assert main(["export", "--panel", "waves", "--plot", "token-norms", "--out", str(out)]) == 0
    img = QImage(str(out))
    assert (img.width(), img.height()) != (640, 480) and img.width() > 100
    assert main(["export", "--panel", "waves", "--plot", "nope", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no such plot; valid: heatmap, waves, spectrum" in err and len(err.strip().splitlines()) == 1


def test_reading_order_reads_a_grid_by_rows_and_columns_by_column():
    grid = [(x, y, 100, 100, f"{r}{c}") for r, y in enumerate((0, 110)) for c, x in enumerate((0, 110, 220))]
    assert sl._reading_order(grid + [(330, 0, 20, 210, "bar")]) == ["00", "01", "02", "10", "11", "12", "bar"]
    columns = [(0, 0, 300, 600, "big"), (310, 0, 300, 350, "top"), (310, 360, 300, 240, "below")]
    assert sl._reading_order(columns) == ["big", "top", "below"]


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_exports_get_the_users_umask_and_keep_an_existing_mode(qtbot, tmp_path, umask_022):
    from explorer.widgets.plots import make_plot

    pw = make_plot("t")
    qtbot.addWidget(pw)
    pw.resize(320, 200)
    pw.plot([0, 1], [0, 1])
    pw.show()
    qtbot.waitExposed(pw)
    for name in ("a.png", "a.svg"):
        ex.export_view_to_file(pw, tmp_path / name, screen=ex.Look())
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o644
    ex.export_slide(pw, tmp_path / "s.png", 1080, screen=ex.Look())
    assert stat.S_IMODE(os.stat(tmp_path / "s.png").st_mode) == 0o644
    kept = tmp_path / "kept.png"
    kept.write_bytes(b"")
    os.chmod(kept, 0o600)
    ex.export_widget_to_file(pw, kept, screen=ex.Look())
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600 and kept.stat().st_size > 0


def test_presenter_slide_in_a_fresh_process(tmp_path):
    """The crash was in a fresh process (exit 139 for waves): one real run, as a lecturer would type it."""
    out = tmp_path / "waves.png"
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.pop("DISPLAY", None)
    proc = subprocess.run(
        [sys.executable, "-m", "explorer", "export", "--panel", "waves", "--theme", "presenter", "--slide", "1080",
         "--out", str(out)],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1920, 1080)


def test_slide_from_the_export_menu_puts_the_window_back(qtbot, main_window, tmp_path):
    """The GUI's Export → Slide (16:9): a 1920 × 1080 picture; the panel keeps its size and sidebar on screen."""
    qtbot.waitUntil(lambda: main_window.all_drawn, timeout=60000)
    main_window.show_panel("swap")
    panel = main_window.current_panel()
    main_window.exports.fill_menu(main_window.menus["Export"])
    slide_menu = main_window.menus["Export"].findChild(type(main_window.menus["Export"]), "peSlideMenu")
    assert slide_menu is not None and any("1920" in a.text() for a in slide_menu.actions())
    before = panel.size()
    hidden = sl.slide_hidden(panel)
    assert hidden and all(w.isVisible() for w in hidden)
    out = tmp_path / "slide.png"
    main_window.exporter.presenter_slides.setChecked(True)
    assert main_window.exporter.save_slide(panel, height=1080, path=str(out))
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1920, 1080)
    assert panel.size() == before and all(w.isVisible() for w in hidden)
