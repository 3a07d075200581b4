"""T5's bucketed relative position bias (explorer/schemes/t5.py) against T5's own bucket function."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from explorer import jobs
from explorer import schemes as registry
from explorer.cli import main
from explorer.encodings import EncodingError
from explorer.encodings.blocks import blocks
from explorer.jobs.schemes import build_requests
from explorer.schemes.t5 import bucket_values, relative_position_bucket
from explorer.state import SchemesState, SwapState


def hf_relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """Hugging Face transformers' ``T5Attention._relative_position_bucket`` (modeling_t5.py), verbatim."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


@pytest.mark.parametrize(("buckets", "max_distance"), [(32, 128), (16, 64), (64, 256), (8, 20), (32, 1000)])
@pytest.mark.parametrize("bidirectional", [True, False])
def test_buckets_match_t5_exactly(buckets, max_distance, bidirectional):
    r = np.arange(-5000, 5001)
    want = hf_relative_position_bucket(torch.tensor(r), bidirectional, buckets, max_distance).numpy()
    np.testing.assert_array_equal(relative_position_bucket(r, bidirectional, buckets, max_distance), want)


def test_bucket_landmarks():
    b = relative_position_bucket(np.array([0, -1, -7, -8, -127, -128, -10**6, 1, 200]), True)
    assert b.tolist() == [0, 1, 7, 8, 15, 15, 15, 17, 31]
    causal = relative_position_bucket(np.array([0, -1, -15, -16, -128, -10**6, 5]), False)
    assert causal.tolist() == [0, 1, 15, 16, 31, 31, 0]  # the future (r > 0) folds into bucket 0: masked


def test_bad_bucket_settings_are_refused_with_one_line():
    with pytest.raises(EncodingError, match="num_buckets"):
        relative_position_bucket(np.arange(3), True, 2, 128)
    with pytest.raises(EncodingError, match="max_distance"):
        relative_position_bucket(np.arange(3), True, 32, 8)


def test_t5_is_registered_with_its_traits():
    t5 = registry.get("t5")
    assert (t5.kind, t5.relative, t5.bounded) == ("bias", True, True)
    assert "T5" in t5.used_by and "Flan-T5" in t5.used_by and t5.sources[0].year == 2020
    assert {p.name for p in t5.own_parameters()} == {"num_buckets", "max_distance"}


@pytest.mark.parametrize("causal", [True, False])
def test_score_matrix_is_the_exact_block_mean_of_the_bias(causal):
    n, cells = 300, 40
    st = SchemesState(schemes=("t5",), l_eval=n, l_train=150, causal=causal, heads=4, alibi_head=2, seed=3)
    (req,) = build_requests(st, "matrices")
    m = jobs.run(req).matrix
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    full = bucket_values(4, 32, 3)[2][relative_position_bucket(j - i, not causal)]
    if causal:
        full = np.where(j > i, np.nan, full)
    bl = blocks(n, 256)
    want = np.array([[np.nanmean(full[a:a + ca, b:b + cb]) if np.isfinite(full[a:a + ca, b:b + cb]).any()
                      else np.nan for b, cb in zip(bl.starts, bl.counts, strict=True)]
                     for a, ca in zip(bl.starts, bl.counts, strict=True)])
    np.testing.assert_allclose(m, want, atol=1e-12, equal_nan=True)
    assert cells  # the grid is the panel's (256 cells), not the test's


def test_distance_curve_steps_at_bucket_edges_and_is_flat_past_max_distance():
    st = SchemesState(schemes=("t5",), l_eval=1024, l_train=512).with_scheme_param("t5", "max_distance", 64)
    (req,) = build_requests(st, "distance")
    r = jobs.run(req)
    values = bucket_values(8, 32, 0)[0][relative_position_bucket(-r.distance, False, 32, 64)]
    np.testing.assert_array_equal(r.mean, values)
    assert np.all(r.mean[r.distance >= 64] == r.mean[-1])  # one shared bucket from max_distance on
    # Marks where the logarithmic buckets change (the 16 exact ones change at every distance below 16) …
    edges = [x for x, text in r.marks if text != "max_distance"]
    changes = r.distance[1:][np.diff(relative_position_bucket(-r.distance, False, 32, 64)) != 0]
    assert edges == [float(x) for x in changes if x >= 16] and edges[0] == 16.0
    # … and none past max_distance, where every distance shares the last bucket.
    assert max(x for x, _ in r.marks) <= 64


def test_beyond_training_plot_and_properties():
    st = SchemesState(schemes=("t5",), l_eval=4096, l_train=1024, view="beyond")
    beyond = jobs.run(build_requests(st, "beyond")[0])
    spec = beyond.extras["t5"]
    assert spec.y[spec.x >= 128].min() == spec.y[spec.x >= 128].max() == 31
    props = jobs.run(build_requests(st, "properties")[0])
    assert props.parameters["t5"] == 8 * 32 and "≥ 128" in props.rows[0][4]


def test_token_swap_and_lab_use_the_bias():
    from explorer.jobs.swap import SwapRequest
    from explorer.lab import LabConfig, run_experiment

    r = jobs.run(SwapRequest(SwapState(scheme="t5", sentence="the dog bit the man", swap_i=1, swap_j=4)))
    assert r.verdict == "order-visible"
    cfg = LabConfig(schemes=("t5",), train_len=8, eval_lens=(8, 32), steps=10, d_model=16, heads=2, layers=1,
                    batch=4, eval_batch=4)
    res = run_experiment(cfg).scheme("t5")
    assert len(res.losses) == 10 and all(x.status == "ok" for x in res.lengths)


def test_data_t5_buckets_command(tmp_path, capsys):
    out = tmp_path / "b.npy"
    assert main(["data", "t5-buckets", "--positions", "50", "--bidirectional", "--out", str(out)]) == 0
    pos = np.arange(50)
    np.testing.assert_array_equal(np.load(out), relative_position_bucket(pos[None, :] - pos[:, None], True))
    assert main(["data", "t5-buckets", "--positions", "20", "--buckets", "16", "--max-distance", "32",
                 "--out", str(tmp_path / "c.csv")]) == 0
    assert (tmp_path / "c.csv").read_text().count("\n") >= 20
    assert main(["data", "t5-buckets", "--positions", "20", "--buckets", "2", "--out", str(out)]) == 2
    assert "num_buckets" in capsys.readouterr().err


def test_a_max_distance_below_the_buckets_is_refused_at_the_box(qtbot, service):
    """The GUI monkey found it: T5's max_distance could go below its buckets (the box allows 8), the state
    took it, and the plot failed with "must exceed the exact buckets" while showing the old curve."""
    from explorer.panels.schemes import SchemesPanel
    from explorer.state import SchemesState, StateError
    from explorer.widgets.value_box import feedback

    with pytest.raises(StateError, match="max_distance"):
        SchemesState(scheme_params=(("t5", "max_distance", 8),))  # hidden or shown: T5 could not use it
    panel = SchemesPanel(service)
    qtbot.addWidget(panel)
    panel.set_state(panel.state.clamped(show_t5=True))
    box = panel.param_spins[("t5", "max_distance")]
    before = panel.state
    box.setValue(8)
    assert panel.state == before
    assert box.value() == 128
    assert "max_distance" in (feedback(box).label().text() if feedback(box).label() else "")
    box.setValue(64)
    assert dict(panel.state.params_of("t5"))["max_distance"] == 64
    panel.shutdown()
