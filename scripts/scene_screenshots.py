"""Write the guide's pictures of the lecture scenes: each built-in scene at 1280×720 in presenter mode, light and
dark, as ``docs/images/scenes/scene-N-THEME.png`` (the window as a projector shows it).

Run from a checkout: ``QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/scene_screenshots.py``.  The settings
folder is a temporary one, so the user's session and look are left alone.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "images" / "scenes"
SCREEN = (1280, 720)


def _settle(app, ms: int) -> None:
    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.005)


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["PE_EXPLORER_HOME"] = tempfile.mkdtemp(prefix="pe-scenes-")
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QApplication

    from explorer import presets as pr
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    app = QApplication.instance() or QApplication(sys.argv[:1])
    configure_pyqtgraph()
    win = MainWindow(restore_layout=False)
    win.screen_limit = QSize(*SCREEN)
    win.show()
    win.look.set_presenter(True)
    win.fit_to_screen()
    _settle(app, 300)
    OUT.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        win.look.set_base_theme(theme)
        for n, scene in enumerate(pr.builtin_presets(), 1):
            if not win.session.apply_preset(scene):
                print(f"scene {n}: not applied", file=sys.stderr)
                return 1
            deadline = time.monotonic() + 60
            while not (win.panels[scene.panel].has_drawn and win.service.idle()) and time.monotonic() < deadline:
                _settle(app, 20)
            _settle(app, 400)
            path = OUT / f"scene-{n}-{theme}.png"
            if not win.grab().save(str(path)):
                print(f"{path}: not written", file=sys.stderr)
                return 1
            print(path.relative_to(ROOT))
    win.look.set_presenter(False)
    win.close()
    for worker_thread in win.service.threads():  # a job still running ends first
        worker_thread.join(60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
