"""Limits (issue 10): sizes past what the machine can hold are refused before allocating, with the limit
named, and the app says so instead of freezing.

* In the window: typing the largest sizes into a panel shows what the live view leaves out (the
  Schemes learned table cap, the Waves similarity-matrix limit) while the window keeps answering.
* Every panel path at its largest settings stays far below the maths layer's cap
  (explorer.encodings.errors.MAX_ELEMENTS): no panel can reach it.
* The ``data`` command refuses results past MAX_ELEMENTS before allocating them, and text output
  (CSV/JSON, 10–25 times the array's memory) past explorer.fileio.MAX_TEXT_ELEMENTS.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer

from explorer import jobs
from explorer.cli import main as cli
from explorer.encodings.errors import MAX_ELEMENTS
from explorer.fileio import MAX_TEXT_ELEMENTS
from explorer.jobs.schemes import build_requests
from explorer.jobs.swap import SwapRequest
from explorer.jobs.waves import MATRIX_MAX, requests_for
from explorer.schemes.learned import LEARNED_LIVE_MAX
from explorer.state import SchemesState, SwapState, WavesState
from explorer.state.schemes import views


@pytest.fixture
def window(qtbot):
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    w = MainWindow(restore_layout=False)
    qtbot.addWidget(w)
    w.resize(1440, 900)
    w.show()
    qtbot.waitUntil(lambda: w.all_drawn and w.service.idle(), timeout=60000)
    yield w
    w.close()


class Heartbeat:
    """Counts the UI thread's turns: a 20 ms timer; the longest gap between two ticks is the longest
    time the window did not answer."""

    def __init__(self) -> None:
        self.ticks = []
        self.timer = QTimer()
        self.timer.setInterval(20)
        self.timer.timeout.connect(lambda: self.ticks.append(time.monotonic()))
        self.timer.start()

    def longest_gap(self) -> float:
        self.timer.stop()
        t = np.diff(self.ticks)
        return float(t.max()) if t.size else float("inf")


def _type(qtbot, widget, text: str) -> None:
    widget.selectAll()
    qtbot.keyClicks(widget, text)
    qtbot.keyClick(widget, Qt.Key.Key_Return)


def test_schemes_learned_table_past_the_live_cap_says_so(qtbot, window):
    panel = window.panels["schemes"]
    window.show_panel("schemes")
    beat = Heartbeat()
    _type(qtbot, panel.lt_spin, "131072")
    _type(qtbot, panel.d_spin, "1024")
    assert (panel.state.l_train, panel.state.head_dim) == (131072, 1024)
    assert panel.state.shows("learned") and panel.state.view == "matrices"
    qtbot.waitUntil(lambda: panel.has_drawn and window.service.idle(), timeout=60000)
    gap = beat.longest_gap()
    note = panel.matrix_view.notes["learned"]
    assert note.isVisible()
    text = note.textItem.toPlainText()
    assert "131072 × 1024" in text and f"{LEARNED_LIVE_MAX:,}" in text and "lower L_train or d" in text
    # The other schemes are drawn at this size, and the window kept answering (a freeze would show as a
    # gap of the whole computation; the bound is for a hang, not for speed).
    assert panel.matrix_view.responses["rope"].request.head_dim == 1024
    assert gap < 15.0, f"the window did not answer for {gap:.2f} s"
    print(f"schemes at L_train 131072, d 1024: longest UI pause {gap * 1000:.0f} ms")


def test_waves_at_its_largest_says_what_the_matrix_shows(qtbot, window):
    panel = window.panels["waves"]
    window.show_panel("waves")
    beat = Heartbeat()
    # Past the limits on purpose: the boxes clamp to N = 131072 and d = 4096.
    _type(qtbot, panel.controls.n.line_edit(), "99999999")
    _type(qtbot, panel.controls.d.line_edit(), "1e6")
    assert (panel.state.n_positions, panel.state.d_model) == (131072, 4096)
    assert panel.controls.n.line_edit().text() == "131072"
    qtbot.waitUntil(lambda: panel.has_drawn and window.service.idle(), timeout=60000)
    panel.tabs.setCurrentIndex(1)  # "Relative position": the matrix
    qtbot.waitUntil(lambda: panel.has_drawn and window.service.idle(), timeout=60000)
    gap = beat.longest_gap()
    r = panel.responses["waves.matrix"]
    assert r.size < MATRIX_MAX and r.matrix.shape == (r.size, r.size)
    readout = panel.matrix.readout.text()
    assert f"Showing positions 0–{r.size - 1:,} of N = 131,072" in readout and "off to stay live" in readout
    assert gap < 15.0, f"the window did not answer for {gap:.2f} s"
    print(f"waves at N 131072, d 4096: longest UI pause {gap * 1000:.0f} ms")


def _peak_mib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("panel", ["waves", "schemes", "swap"])
def test_every_panel_at_its_largest_stays_far_below_the_cap(panel):
    """The jobs of each panel at its largest settings: bounded memory, never near MAX_ELEMENTS (1 GiB)."""
    if panel == "waves":
        st = WavesState().clamped(n_positions=131072, d_model=4096, base=1e7, position=131071, offset=-131071,
                                  pairs=tuple(range(2032, 2048)), pair=2047, l_train=131072, p1=131071)
        reqs = requests_for(st, heat_px=(1600, 1600), px=2000)
    elif panel == "schemes":
        st = SchemesState().clamped(head_dim=1024, l_train=131072, l_eval=16 * 131072, heads=64,
                                    alibi_head=63, factor=64.0)
        reqs = [r for v in views() for r in build_requests(st, v)]
    else:
        st = SwapState().clamped(sentence=" ".join(f"w{i}" for i in range(64)), d_model=256, heads=8,
                                 scheme="rope", causal=True)
        reqs = [SwapRequest(st)]
    cap_mib = MAX_ELEMENTS * 8 / 2**20
    for req in reqs:
        peak = _peak_mib(lambda req=req: jobs.run(req))
        assert peak < cap_mib / 2, f"{req.key}: {peak:.0f} MiB"


@pytest.mark.parametrize(
    "args, shape",
    [
        (["sinusoidal", "--positions", "131073", "--d-model", "1024"], "131073 x 1024"),
        (["sinusoidal", "--positions", "1000000000", "--d-model", "4096"], "1000000000 x 4096"),
        (["alibi", "--heads", "8", "--positions", "4097"], "8 x 4097 x 4097"),
        (["learned", "--max-positions", "131073", "--positions", "10", "--d-model", "1024"], "131073 x 1024"),
    ],
)
def test_data_command_refuses_past_max_elements_before_allocating(tmp_path, capsys, args, shape):
    out = tmp_path / "x.npy"
    peak = []

    def run():
        peak.append(cli(["data", *args, "--out", str(out)]))

    mib = _peak_mib(run)
    assert peak == [2]
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert shape in err and "too large" in err and f"{MAX_ELEMENTS:,}" in err, err
    assert mib < 16, f"{mib:.0f} MiB allocated before refusing"
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("ext", [".csv", ".json"])
def test_data_command_refuses_text_output_too_large_for_memory(tmp_path, capsys, ext):
    """16.8 M numbers fit in memory as float64 (134 MB) but not as JSON text built in memory on a laptop."""
    out = tmp_path / f"x{ext}"
    n = MAX_TEXT_ELEMENTS // 1024 + 1
    assert cli(["data", "sinusoidal", "--positions", str(n), "--d-model", "1024", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{n * 1024:,} numbers are too many for {ext[1:].upper()}" in err
    assert f"{MAX_TEXT_ELEMENTS:,}" in err and "use .npy" in err
    assert list(tmp_path.iterdir()) == []
    # .npy is the way out, and it works at that size.
    npy = tmp_path / "x.npy"
    assert cli(["data", "sinusoidal", "--positions", str(n), "--d-model", "1024", "--out", str(npy)]) == 0
    assert np.load(npy, mmap_mode="r").shape == (n, 1024)
