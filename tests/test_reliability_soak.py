"""Soak (issue 10): ten thousand live updates of every panel in one process; memory must not creep.

Runs ``python -m explorer.qa.soak`` (see explorer/qa/soak.py) in a subprocess, so a fatal interpreter error
fails this test instead of killing pytest.  Per panel: 10,000 updates, of which 100 go through the
panel's whole path (set_state → compute service → show_result, each waited for) and the rest drive
the rendering path directly — the panel's state is set and precomputed results (two or three
parameter sets, alternating) are handed to ``show_result``, with the window repainting every 50
updates — because computing 40,000 results on two cores would take many minutes and test nothing
the direct path does not.  The Lab's updates are training progress reports: one real run, then its
recorded reports replayed run after run.  Resident memory is read after a warm-up (1,000 updates per
panel) and at the end; it must grow by less than 50 MB.

About 3 minutes here in all (2 cores), one process per panel, hence ``slow``; tests/test_soak.py keeps
a 5,000-update pyqtgraph check in the fast set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

UPDATES = 10_000
MAX_GROWTH_MB = 50


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("panel", ["waves", "swap", "schemes", "lab"])
def test_ten_thousand_live_updates_of_a_panel(tmp_path, panel):
    """One process per panel: each is a minute or two here, and a slow machine fails one, not all."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PE_EXPLORER_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "explorer.qa.soak", "--updates", str(UPDATES), "--panels", panel],
                          env=env, capture_output=True, text=True, timeout=840)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert lines, f"the soak died (rc {proc.returncode}):\n{proc.stderr[-3000:]}"
    out = json.loads(lines[-1])
    assert out["exceptions"] == [], out["exceptions"][0]
    assert out["qt_warnings"] == [], out["qt_warnings"]
    assert out["threads_left"] == []
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert set(out["panels"]) == {panel}
    f = out["panels"][panel]
    assert f["updates"] == UPDATES, f
    assert f["real"] >= 100, f
    assert out["rss_growth_mb"] < MAX_GROWTH_MB, out
    print("soak:", json.dumps(out))
