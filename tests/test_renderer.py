"""The plots' renderer: raster by default, OpenGL where asked for and available, the same exports either way."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage

from explorer.cli import build_parser
from explorer.widgets import renderer


def test_the_renderer_is_named_checked_and_raster_by_default(monkeypatch):
    monkeypatch.delenv(renderer.ENV, raising=False)
    assert renderer.renderer_name() == "raster"
    monkeypatch.setenv(renderer.ENV, " OpenGL ")
    assert renderer.renderer_name() == "opengl"
    assert renderer.renderer_name("raster") == "raster"  # --renderer before the environment
    with pytest.raises(ValueError, match="raster, opengl"):
        renderer.renderer_name("vulkan")
    assert build_parser().parse_args(["--renderer", "opengl"]).renderer == "opengl"
    assert build_parser().parse_args(["bench", "--renderer", "raster"]).renderer == "raster"


def test_opengl_where_there_is_none_falls_back_to_raster_and_says_why(qapp):
    assert qapp.platformName() == "offscreen"
    if renderer.opengl_problem() is None:  # the offscreen platform has OpenGL where it can reach a display (GLX)
        pytest.skip("OpenGL can be had here (a display is reachable)")
    try:
        used, problem = renderer.use_renderer("opengl")
        assert used == "raster" and "offscreen" in problem
        assert not pg.getConfigOption("useOpenGL")
    finally:
        renderer.use_renderer("raster")
    assert renderer.use_renderer("raster") == ("raster", None)


_UNDER_X = textwrap.dedent("""
    import os, sys
    from explorer.app import make_app
    from explorer.widgets.plots import configure_pyqtgraph
    import explorer.widgets.plots as plots
    app = make_app([])
    configure_pyqtgraph()
    import pyqtgraph as pg
    from explorer.export.images import render_widget
    from explorer.panels.waves import WavesPanel
    from explorer.service import ComputeService
    from explorer.state import WavesState
    from explorer.widgets.renderer import renderer_of
    service = ComputeService(warm_up=False)
    panel = WavesPanel(service, WavesState().clamped(n_positions=256, d_model=64))
    panel.resize(1200, 800)
    panel.show()
    end = __import__("time").time() + 60
    def settled():
        return (panel.has_drawn and not panel.waiting and service.idle() and not panel._range_timer.isActive()
                and not panel._stale_timer.isActive())
    while not settled() and __import__("time").time() < end:
        app.processEvents()
    panel.frames.flush()
    views = panel.findChildren(pg.GraphicsView)
    print("renderer", renderer_of(views), plots.renderer_problem, flush=True)
    render_widget(panel, width=1200).save(sys.argv[1])
    print("after", renderer_of(views), flush=True)
    panel.shutdown()
    service.stop(5.0)
""")


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run not installed (scripts/system-deps.sh)")
def test_under_x_opengl_paints_the_plots_and_a_panel_exports_the_same_picture_as_raster(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update(QT_QPA_PLATFORM="xcb", PE_EXPLORER_COMPUTE="thread")
    out = {}
    for name in ("raster", "opengl"):
        env[renderer.ENV] = name
        path = tmp_path / f"{name}.png"
        proc = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", sys.executable, "-c", _UNDER_X,
                               str(path)], env=env, capture_output=True, text=True, timeout=240)
        assert proc.returncode == 0, proc.stderr[-3000:]
        lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
        if name == "opengl" and "None" not in lines["renderer"]:
            pytest.skip(f"no OpenGL under this X server: {lines['renderer']}")
        assert lines["renderer"].split()[0] == name  # the plots' viewports are what was asked for
        assert lines["after"] == name  # and again after the export
        out[name] = QImage(str(path))
    assert not out["raster"].isNull() and out["raster"].size() == out["opengl"].size()
    assert out["raster"] == out["opengl"]  # an export does not depend on what paints the screen
