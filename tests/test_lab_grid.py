"""The Lab's grid task: grids against a brute-force recount, the 2-D RoPE schemes' Lab modules against the maths
of explorer.encodings.rope2d, config/state/CLI handling, and a tiny run that must beat chance."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.encodings import EncodingError
from explorer.lab import LabConfig, LabError
from explorer.lab.grid_task import MAX_SIDE, GridTask, check_side
from explorer.state.lab import LabState, task_default_schemes, task_lengths


@pytest.mark.parametrize("side", [2, 3, 5, 9])
def test_grids_follow_the_rule_cell_by_cell(side):
    task = GridTask(vocab=5)
    x = task.sample(40, side, np.random.default_rng(side))
    assert x.shape == (40, side * side) and x.min() >= 0 and x.max() < 5
    for b in range(40):
        g = x[b].reshape(side, side)
        for r in range(1, side):
            for c in range(1, side):
                assert g[r, c] == (int(g[r - 1, c]) + int(g[r, c - 1])) % 5
    assert task.check(x, side).all()
    broken = x.copy()
    broken[:, -1] = (broken[:, -1] + 1) % 5
    assert not task.check(broken, side)[:, -1, -1].any()


def test_scored_outputs_are_the_cells_with_a_row_and_a_column_before_them():
    s = 4
    scored = GridTask.scored(s)
    cells = np.flatnonzero(scored) + 1  # output t predicts cell t + 1
    assert sorted(cells.tolist()) == [r * s + c for r in range(1, s) for c in range(1, s)]
    assert GridTask.rows(s)[scored].tolist() == [1, 1, 1, 2, 2, 2, 3, 3, 3]


def test_the_random_border_makes_every_cell_uniform_given_one_neighbour():
    """Knowing only the left neighbour (one step back in 1-D) tells nothing: each pair is about equally common."""
    task = GridTask(vocab=4)
    g = task.sample(3000, 5, np.random.default_rng(0)).reshape(-1, 5, 5)
    left, here = g[:, 1:, :-1][:, :, 1:].ravel(), g[:, 1:, 2:].ravel()
    table = np.zeros((4, 4))
    np.add.at(table, (left, here), 1)
    share = table / table.sum(axis=1, keepdims=True)
    assert np.abs(share - 0.25).max() < 0.03


def test_sides_and_configs_are_checked_in_one_line():
    with pytest.raises(EncodingError, match="grid side from 3 to 32"):
        check_side("side", 40)
    with pytest.raises(EncodingError, match="grid side"):
        GridTask().sample(2, MAX_SIDE + 1, np.random.default_rng(0))
    cfg = LabConfig(task="grid", train_len=8)
    assert cfg.eval_lens == (8, 10, 12, 16, 24) and not cfg.scored_by_exact_match and cfg.task_title == "Grid (2-D)"
    assert LabConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(LabError, match=r"grid side\) must be in \[3, 32\]"):
        LabConfig(task="grid", train_len=8, eval_lens=(8, 40))
    with pytest.raises(LabError, match=r"train_len must be in \[3, 16\]"):
        LabConfig(task="grid", train_len=20)


def test_state_brings_the_grid_s_sides_and_schemes():
    st = LabState().clamped(task="grid")
    assert (st.train_len, st.steps, st.eval_lens) == (8, 1000, task_lengths("grid", 8))
    assert st.schemes == task_default_schemes("grid") and "rope_2d_axial" in st.schemes
    back = st.clamped(task="copy")
    assert back.eval_lens == task_lengths("copy", 8) and "rope_2d_axial" not in back.schemes
    assert st.clamped(train_len=40).train_len == 16  # the grid's largest training side
    assert st.clamped(train_len=12).eval_lens == (12, 15, 18, 24, 32)


def _module(scheme: str, heads: int = 2, d_model: int = 16):
    torch = pytest.importorskip("torch")
    from explorer.lab.model import TinyTransformer

    torch.manual_seed(0)
    return TinyTransformer(scheme, vocab=5, d_model=d_model, heads=heads, layers=2, train_len=15).position


def test_axial_lab_tables_are_the_encodings_angles():
    pytest.importorskip("torch")
    from explorer.encodings.rope2d import angles, axial_frequencies, grid_positions

    pos = _module("rope_2d_axial")
    x, y = pos.grid_rotary(12, 4, 8, "cpu", None)
    (cos, sin), _ = pos.layer(1, (x, y), None)
    fx, fy = axial_frequencies(8, 100.0)
    gx, gy = grid_positions(3, 4)
    want = angles(fx, fy, gx, gy)
    np.testing.assert_allclose(cos.numpy(), np.cos(want), atol=1e-6)
    np.testing.assert_allclose(sin.numpy(), np.sin(want), atol=1e-6)
    # On a line the sequence is one row: x = i, y = 0.
    lx, ly = pos.rotary(5, 8, "cpu", None)
    assert lx.tolist() == [0, 1, 2, 3, 4] and ly.tolist() == [0] * 5


def test_mixed_lab_frequencies_start_at_rope_vit_s_and_train_per_layer():
    pytest.importorskip("torch")
    from explorer.encodings.rope2d import mixed_angles, mixed_frequencies

    pos = _module("rope_2d_mixed", heads=2)
    fx, fy = mixed_frequencies(8, 10.0, mixed_angles(2, 0))
    assert tuple(pos.fx.shape) == (2, 2, 4) and pos.fx.requires_grad
    np.testing.assert_allclose(pos.fx[1].detach().numpy(), fx, atol=1e-7)
    np.testing.assert_allclose(pos.fy[0].detach().numpy(), fy, atol=1e-7)
    x, y = pos.grid_rotary(9, 3, 8, "cpu", None)
    (cos, _sin), _ = pos.layer(0, (x, y), None)
    assert tuple(cos.shape) == (2, 9, 4)  # per head


@pytest.mark.parametrize("scheme", ["rope_2d_axial", "rope_2d_mixed"])
def test_a_2d_score_depends_on_the_offset_on_the_grid_only(scheme):
    """q·k after the rotation is the same for every pair of cells one row apart in one column."""
    torch = pytest.importorskip("torch")
    from explorer.lab.model import rope_rotate

    pos = _module(scheme)
    side = 5
    x, y = pos.grid_rotary(side * side, side, 8, "cpu", None)
    with torch.no_grad():
        (cos, sin), _ = pos.layer(0, (x, y), None)
    gen = torch.Generator().manual_seed(1)
    q, k = torch.randn(8, generator=gen), torch.randn(8, generator=gen)
    n = side * side
    qs = rope_rotate(q.expand(2, n, 8), cos, sin)[0]
    ks = rope_rotate(k.expand(2, n, 8), cos, sin)[0]
    above = [float(qs[r * side + c] @ ks[(r - 1) * side + c]) for r in range(1, side) for c in range(side)]
    np.testing.assert_allclose(above, above[0], atol=1e-5)
    # … and differs from one row apart at a different column (the offset, not the flattened distance, counts).
    diag = float(qs[2 * side + 2] @ ks[side + 1])
    assert abs(diag - above[0]) > 1e-3


def test_a_2d_scheme_needs_a_head_width_it_can_split():
    pytest.importorskip("torch")
    from explorer.lab import run_experiment

    with pytest.raises(LabError, match="multiple of 4"):
        run_experiment(LabConfig(task="grid", schemes=("rope_2d_axial",), train_len=4, eval_lens=(4,), steps=1,
                                 d_model=24, heads=4))


def test_cli_refuses_a_grid_too_large_in_one_line(capsys):
    pytest.importorskip("torch")
    from explorer.cli import main

    assert main(["lab", "--task", "grid", "--eval-lens", "8,40", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "sides 3 … 32" in err


def test_a_tiny_run_beats_chance_and_reports_every_row():
    """Grids of side 3 … 4 over 3 symbols, axial 2-D RoPE, 150 steps: far above chance (1/3) at L."""
    pytest.importorskip("torch")
    from explorer.lab import run_experiment

    cfg = LabConfig(task="grid", schemes=("learned", "rope_2d_axial"), train_len=4, eval_lens=(4, 5), steps=150,
                    vocab=3, d_model=32, heads=2, eval_batch=32)
    result = run_experiment(cfg)
    assert result.status == "done" and result.chance == pytest.approx(1 / 3) and result.loss_floor == 0.0
    axial, learned = result.scheme("rope_2d_axial"), result.scheme("learned")
    assert axial.at(4).accuracy > 2 / 3, axial.at(4).accuracy  # twice chance
    assert len(axial.position_accuracy) == 4  # rows 1 … 4 of the side-5 grid
    assert learned.at(5).status == "cannot run" and len(learned.position_accuracy) == 3
