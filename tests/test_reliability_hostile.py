"""The hostile pass of issue 25, as real starts of the app: what a file or the environment does must never
crash it, hang it, or keep it from starting.

- ``--checkpoint <a refused file> --screenshot`` says why at once (it waited 121 s, then "panels did not
  draw within 120 s").
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from checkpoint_files import helix, write_safetensors

pytestmark = pytest.mark.timeout(300)


def _env(home, **extra) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PE_EXPLORER_HOME": str(home)}
    env.pop("PE_EXPLORER_COMPUTE", None)  # the app as users run it: its compute process
    env.update(extra)
    return env


def _app(args, env, timeout=90) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explorer", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_a_refused_checkpoint_ends_a_screenshot_at_once_with_its_reason(tmp_path):
    bad = write_safetensors(tmp_path / "no_table.safetensors", {"h.0.mlp.weight": helix(8, 4)})
    out = tmp_path / "shot.png"
    proc = _app(["--checkpoint", str(bad), "--screenshot", str(out)], _env(tmp_path / "home"))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"pe-explorer: error: {bad}: no position table found among 1 tensors (no wpe / "
                     "position_embeddings / embed_positions); pick one with --tensor NAME"], proc.stderr
    assert not out.exists()
