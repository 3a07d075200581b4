"""Soak (issue 10): thousands of live updates of every panel in one process; memory must not creep.

Runs ``python -m explorer.qa.soak`` (see explorer/qa/soak.py) in a subprocess, so a fatal interpreter error
fails this test instead of killing pytest.  Per panel, a share of the updates go through the panel's whole path
(set_state → compute service → show_result, each waited for) and the rest drive the rendering path directly —
the panel's state is set and precomputed results (two or three parameter sets, alternating) are handed to
``show_result``, with the window repainting every 50 updates — because computing tens of thousands of results on
two cores would take many minutes and test nothing the direct path does not.  The Lab's updates are training
progress reports: one real run, then its recorded reports replayed run after run.  Resident memory is read after
a warm-up (1,000 updates per panel) and at the end; it must grow by less than 50 MB.

Two sizes (issue 25: the four full soaks took 262 s of every suite run):

* every run of the suite: 2,500 updates of each panel, all four in one process (about 40 s here);
* the full soak, 10,000 updates of each panel in a process of its own (about 4 minutes):
  ``bash scripts/test.sh -m soak`` (marked ``soak``, which the suite leaves out unless asked for).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

UPDATES = 10_000
CI_UPDATES = 2_500
MAX_GROWTH_MB = 50


def _soak(tmp_path, panels: list[str], updates: int, real: int, timeout: int) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PE_EXPLORER_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "explorer.qa.soak", "--updates", str(updates), "--real", str(real),
                           "--panels", ",".join(panels)], env=env, capture_output=True, text=True, timeout=timeout)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert lines, f"the soak died (rc {proc.returncode}):\n{proc.stderr[-3000:]}"
    out = json.loads(lines[-1])
    assert out["exceptions"] == [], out["exceptions"][0]
    assert out["qt_warnings"] == [], out["qt_warnings"]
    assert out["threads_left"] == []
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert set(out["panels"]) == set(panels)
    for panel in panels:
        f = out["panels"][panel]
        assert f["updates"] == updates, f
        assert f["real"] >= real, f
    assert out["rss_growth_mb"] < MAX_GROWTH_MB, out
    print("soak:", json.dumps(out))
    return out


@pytest.mark.timeout(600)
def test_thousands_of_live_updates_of_every_panel(tmp_path):
    """Every panel in one process, sized for every run of the suite (the full soak is below)."""
    _soak(tmp_path, ["waves", "swap", "schemes", "lab"], CI_UPDATES, 40, 540)


@pytest.mark.slow
@pytest.mark.soak
@pytest.mark.timeout(900)
@pytest.mark.parametrize("panel", ["waves", "swap", "schemes", "lab"])
def test_ten_thousand_live_updates_of_a_panel(tmp_path, panel):
    """The full soak: one process per panel, each a minute or two here, so a slow machine fails one, not all."""
    _soak(tmp_path, [panel], UPDATES, 100, 840)
