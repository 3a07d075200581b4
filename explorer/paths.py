"""Finding the app's resources the same way from a checkout, an installed wheel and a bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    """The folder that holds presets/, icons/, …

    Tried in order: a PyInstaller bundle (``sys._MEIPASS/resources``), the installed
    package (``explorer/resources``, put there by the wheel), and a source checkout
    (``<repo>/resources``).
    """
    meipass = getattr(sys, "_MEIPASS", None)
    candidates = []
    if meipass:
        candidates.append(Path(meipass) / "resources")
    here = Path(__file__).resolve().parent
    candidates += [here / "resources", here.parent / "resources"]
    for c in candidates:
        if c.is_dir():
            return c
    return candidates[-1]


def resource_path(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)
