"""The shipped benchmark runs on a tiny configuration and reports the documented fields (no timing asserts)."""

import json
import math
import subprocess
import sys


def test_bench_quick_json_has_the_documented_shape(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, "-m", "explorer", "bench", "--quick", "--json", "--out", str(out)],
                          capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert json.loads(out.read_text()) == report
    assert isinstance(report["machine"], dict) and report["machine"]["cores"] >= 1
    assert isinstance(report["window_shown_ms"], float) and report["window_shown_ms"] > 0
    panels = {c["panel"] for c in report["cases"]}
    assert panels == {"waves", "swap", "schemes"}
    for c in report["cases"]:
        assert isinstance(c["size"], str)
        for key in ("compute_ms", "drag_latency_ms"):
            assert set(c[key]) == {"p50", "p95"}
            assert all(isinstance(v, float) and math.isfinite(v) and v >= 0 for v in c[key].values())
        assert isinstance(c["ui_stall_ms_max"], float) and c["ui_stall_ms_max"] >= 0
        assert isinstance(c["superseded"], int) and c["superseded"] >= 0
        assert set(c["matplotlib_ms"]) >= {"p50"} and c["matplotlib_ms"]["p50"] > 0
        assert isinstance(c["speedup_vs_matplotlib"], float) and c["speedup_vs_matplotlib"] > 0
        assert c["steps_shown"] == c["steps"], c  # every drag step ended up on screen


def test_bench_table_and_bad_arguments():
    proc = subprocess.run([sys.executable, "-m", "explorer", "bench", "--steps", "1"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
