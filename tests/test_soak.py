"""Thousands of live updates must not crash the interpreter (the reason for our Qt pin)."""

import subprocess
import sys
from pathlib import Path


def test_thousands_of_live_updates():
    script = Path(__file__).with_name("soak_live_updates.py")
    proc = subprocess.run([sys.executable, str(script), "5000"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"live updates crashed (rc {proc.returncode}):\n{proc.stderr[-2000:]}"
    assert "survived 5000 updates" in proc.stdout
