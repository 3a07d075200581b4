"""Where the app keeps its settings (window layout, last session): one folder, overridable.

``PE_EXPLORER_HOME`` points it elsewhere (the tests use a temporary folder so they never touch
a user's settings).
"""

from __future__ import annotations

import os
from pathlib import Path


def config_dir() -> Path:
    """The settings folder (created on demand)."""
    env = os.environ.get("PE_EXPLORER_HOME")
    if env:
        path = Path(env)
    else:
        base = os.environ.get("XDG_CONFIG_HOME") or (Path.home() / ".config")
        path = Path(base) / "pe-explorer"
    path.mkdir(parents=True, exist_ok=True)
    return path
