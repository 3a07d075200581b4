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
            assert all(isinstance(v, float) and math.isfinite(v) and v >= 0 for v in c[key].values()), (key, c)
        assert isinstance(c["ui_stall_ms_max"], float) and c["ui_stall_ms_max"] >= 0
        assert isinstance(c["superseded"], int) and c["superseded"] >= 0
        assert set(c["matplotlib_ms"]) >= {"p50"} and c["matplotlib_ms"]["p50"] > 0
        assert isinstance(c["speedup_vs_matplotlib"], float) and c["speedup_vs_matplotlib"] > 0
        assert c["steps_shown"] == c["steps"], c  # every drag step ended up on screen
        # Measured in the whole window: painted frames, CPU per process, the notebook (full-data) baseline.
        assert isinstance(c["frames_per_s"], float) and c["frames_per_s"] > 0 and c["paints"] > 0
        assert c["cpu_s"]["ui"] > 0 and isinstance(c["cpu_s"]["children"], list)
        assert c["cpu_s"]["children_total"] >= 0
        assert c["notebook_ms"]["p50"] > 0 and c["notebook_ms"]["values"] > 0
        assert isinstance(c["speedup_vs_notebook"], float) and c["speedup_vs_notebook"] > 0
    waves = next(c for c in report["cases"] if c["panel"] == "waves")  # N = 64, d = 16, four pairs
    assert waves["notebook_ms"]["values"] == 64 * 16 + 4 * 64  # the whole table and every position's sine
    start = report["startup"]  # a fresh start builds only the raised dock's panel and no torch
    assert start["panels_built"] == ["waves"] and not start["torch_imported"]
    assert all(start[k] > 0 for k in ("imports_ms", "main_window_ms", "first_frame_ms", "imports_cpu_ms"))
    assert start["plots_built"] == 3 and start["modules_imported"] > 100  # Waves' first tab only
    imports = report["imports"]
    assert imports["total_ms"] > 0 and imports["top"] and not imports["torch_imported"]
    assert {"module", "self_ms"} <= set(imports["top"][0])


def test_bench_table_and_bad_arguments():
    proc = subprocess.run([sys.executable, "-m", "explorer", "bench", "--steps", "1"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_bench_finds_compute_children_and_parses_importtime():
    """CPU per process counts any child of the UI process; -X importtime output is summed per package."""
    import os
    import time

    from explorer.bench.measure import cpu_delta, process_cpu
    from explorer.bench.startup import parse_importtime

    child = subprocess.Popen([sys.executable, "-c", "import time\nt=time.process_time()\n"
                              "while time.process_time()-t<0.3: pass\ntime.sleep(30)"])
    try:
        before = process_cpu()
        assert child.pid in before and os.getpid() in before
        time.sleep(0.6)
        spent = cpu_delta(before, process_cpu())
        kid = [c for c in spent["children"] if c["pid"] == child.pid]
        assert kid and kid[0]["cpu_s"] >= 0 and spent["children_total"] >= kid[0]["cpu_s"]
    finally:
        child.kill()
        child.wait()
    text = ("import time: self [us] | cumulative | imported package\n"
            "import time:       100 |        100 |     numpy._core\n"
            "import time:       200 |        300 |   numpy\n"
            "import time:       500 |        500 |     PySide6.QtCore\n"
            "import time:        50 |       1350 | explorer.main_window\n")
    got = parse_importtime(text)
    assert got["total_ms"] == 1.35 and got["modules"] == 4 and not got["torch_imported"]
    assert [(t["module"], t["self_ms"]) for t in got["top"]] == [("PySide6", 0.5), ("numpy", 0.3),
                                                                  ("explorer", 0.05)]


def test_a_drag_ends_on_a_new_value_so_its_last_step_is_drawn(qtbot):
    """A drag back to where it began may show nothing new: on a loaded machine no step between was computed and
    the last one equalled what was on screen, so the bench measured no step at all."""
    from PySide6.QtWidgets import QSlider

    from explorer.bench.measure import drag_values

    slider = QSlider()
    qtbot.addWidget(slider)
    slider.setRange(0, 100)
    slider.setValue(20)
    values = drag_values(slider, 12)
    assert len(values) == 12 and values[0] == 20 and all(0 <= v <= 100 for v in values)
    assert max(values) >= 65 and 40 <= values[-1] <= 50  # out across half the range, then halfway back
