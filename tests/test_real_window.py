"""The app on the real xcb platform under Xvfb (not just offscreen)."""

import os
import shutil
import subprocess
import sys

import pytest
from PySide6.QtGui import QImage


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run not installed (scripts/system-deps.sh)")
def test_screenshot_of_a_real_window_under_xvfb(tmp_path):
    out = tmp_path / "real.png"
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["QT_QPA_PLATFORM"] = "xcb"
    proc = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", sys.executable, "-m", "explorer", "--screenshot", str(out)],
        env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    img = QImage(str(out))
    assert not img.isNull() and img.width() > 800
    colours = {img.pixel(x, y) for x in range(0, img.width(), 37) for y in range(0, img.height(), 37)}
    assert len(colours) > 20, "screenshot looks blank"
