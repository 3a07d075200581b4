"""The Lab keeps the position table its learned-table model trained, and the window shows it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from explorer import schemes as registry  # noqa: E402
from explorer.lab import LabConfig, LabResult, run_experiment  # noqa: E402

#: The Lab schemes with a row per position (a table to view).
TABLED = tuple(s for s in registry.lab_ids() if registry.get(s).max_positions(8) is not None)


@pytest.fixture(scope="module")
def run():
    cfg = LabConfig(schemes=(*TABLED, registry.lab_ids()[0]), train_len=8, eval_lens=(8,), steps=6, eval_batch=8,
                    d_model=16, heads=2)
    return run_experiment(cfg, threads=1)


def test_the_trained_table_is_kept_and_round_trips(run):
    assert TABLED
    for s in run.schemes:
        if s.scheme in TABLED:
            t = np.array(s.position_table)
            assert t.shape == (8, 16) and np.all(np.isfinite(t))
        else:
            assert s.position_table == ()
    back = LabResult.from_json(run.to_json())
    assert back.schemes == run.schemes


def test_view_learned_table_opens_it_in_the_table_panel(qtbot, main_window, run):
    lab = main_window.panels["lab"]
    lab.show_lab_result(run)
    assert lab.table_button.isEnabled()
    assert lab.view_learned_table()
    table = main_window.panels["table"]
    qtbot.waitUntil(lambda: table.info is not None and table.info.kind == "array" and not table.waiting,
                    timeout=30000)
    want = np.array(run.scheme(TABLED[0]).position_table)
    np.testing.assert_array_equal(table.views["heatmap"].plot.image.image, want.astype(np.float32))
    assert table.source_label.text().startswith("Lab: ") and "8 positions × 16" in table.source_label.text()
