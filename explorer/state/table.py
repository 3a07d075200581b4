"""Parameters of the Learned-table panel: the seeded stand-in table, the 3-D view's angles, a probed position.

The state holds no file path: a preset or a session can never make the app read a file.  A
checkpoint is opened only by the user (File → Open checkpoint…, or ``--checkpoint PATH``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import PanelState, param

#: The panel's views, in tab order.
VIEWS = ("heatmap", "similarity", "pca", "spectrum", "norms")


@dataclass(frozen=True)
class TableState(PanelState):
    """What the Learned-table panel shows besides the table itself."""

    rows: int = param(256, lo=2, hi=4096, log=True, label="rows (stand-in)",
                      help="positions of the seeded random table shown when no checkpoint is open")
    d_model: int = param(64, lo=2, hi=1024, log=True, label="d (stand-in)")
    seed: int = param(0, lo=0, hi=2**31 - 1, label="seed")
    yaw: float = param(35.0, lo=-180.0, hi=180.0, label="turn (°)")
    pitch: float = param(20.0, lo=-90.0, hi=90.0, label="tilt (°)")
    probe: int = param(1024, lo=0, hi=2**31 - 1, label="ask for position",
                       help="the row of this position, if the table has one")
