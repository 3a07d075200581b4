"""The main window: docks, menus, layout persistence, first results, clean shutdown, --screenshot."""

import os
import subprocess
import sys

import numpy as np
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QDockWidget

from explorer import __version__
from explorer.panels import PANELS


def test_every_panel_is_a_real_dock_and_draws_a_first_result(qtbot, main_window):
    assert set(main_window.docks) >= {"waves", "swap", "schemes"}
    for panel_id, dock in main_window.docks.items():
        assert dock.objectName() == f"dock_{panel_id}"
        f = dock.features()
        for feat in (QDockWidget.DockWidgetFeature.DockWidgetMovable,
                     QDockWidget.DockWidgetFeature.DockWidgetFloatable,
                     QDockWidget.DockWidgetFeature.DockWidgetClosable):
            assert f & feat
    qtbot.waitUntil(lambda: main_window.all_drawn, timeout=60000)


def test_view_menu_brings_panels_back_and_resets_docks(qtbot, main_window):
    """View → a panel brings it to the front, also after its dock was closed (Qt's own toggle, which this
    menu held before, hid a panel whose tab was behind another)."""
    titles = {a.text().replace("&", ""): a for a in main_window.menus["View"].actions()}
    for _, title, _ in PANELS:
        assert title in titles
    dock = main_window.docks["schemes"]
    titles["Schemes"].trigger()
    assert dock.isVisible() and main_window.stage.panel_id() == "schemes"
    dock.close()
    assert dock.isHidden()
    titles["Schemes"].trigger()
    assert not dock.isHidden() and main_window.stage.panel_id() == "schemes"
    dock.setFloating(True)
    main_window.docks["swap"].close()
    titles["Reset layout"].trigger()
    assert not dock.isFloating()
    assert all(not d.isHidden() for d in main_window.docks.values())
    qtbot.waitUntil(main_window.service.idle, timeout=60000)


def test_about_names_the_version(main_window):
    assert __version__ in main_window.help.about_text()


def test_layout_is_saved_and_restored(qtbot):
    from explorer.main_window import MainWindow

    w1 = MainWindow(restore_layout=True)  # only a run that loaded the layout saves it
    qtbot.addWidget(w1)
    w1.show()
    w1.docks["schemes"].hide()
    w1.close()
    w2 = MainWindow(restore_layout=True)
    qtbot.addWidget(w2)
    w2.show()
    try:
        assert w2.docks["schemes"].isHidden()
        assert not w2.docks["waves"].isHidden()
    finally:
        w2.close()


def test_closing_stops_the_service(qtbot):
    from explorer.main_window import MainWindow

    w = MainWindow(restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    w.close()
    w.service.worker_thread.join(60)  # a job still running (torch's first import) ends first
    assert not w.service.worker_thread.is_alive()


def test_a_job_error_shows_in_the_panel_banner(qtbot, main_window):
    panel = main_window.panels["waves"]
    qtbot.waitUntil(lambda: panel.has_drawn, timeout=30000)

    class Broken:
        key = "waves.broken"

    panel.submit(Broken())  # the panel's own request: its error comes back to it
    qtbot.waitUntil(lambda: panel.banner.isVisible(), timeout=5000)
    assert "Broken" in panel.banner.text()


def _nonblank(path):
    img = QImage(str(path))
    assert not img.isNull()
    ptr = img.convertToFormat(QImage.Format.Format_RGB32)
    arr = np.frombuffer(ptr.constBits(), dtype=np.uint8).reshape(ptr.height(), ptr.bytesPerLine())
    return img.width(), img.height(), float(arr.std())


def test_screenshot_command(tmp_path):
    out = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "explorer", "--screenshot", str(out)], env=env,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    w, h, std = _nonblank(out)
    assert w >= 800 and h > 500 and std > 10  # the offscreen screen is 800 wide; the window fits it


def test_screenshot_to_missing_folder_is_a_clear_error(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "explorer", "--screenshot", str(tmp_path / "no" / "x.png")],
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "does not exist" in proc.stderr and "Traceback" not in proc.stderr


def test_window_opens_without_importing_torch():
    code = ("import os, sys; os.environ['QT_QPA_PLATFORM']='offscreen';"
            "from PySide6.QtWidgets import QApplication; app=QApplication([]);"
            "import explorer.main_window as m;"
            "print('torch' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False", proc.stderr
