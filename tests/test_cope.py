"""CoPE (Golovneva et al. 2024) against a second implementation in torch written from the paper's algorithm
(gates σ(q·k/√d) under the causal mask, a reversed cumulative sum, clamped, logits gathered at ⌊p⌋ and ⌈p⌉ and
interpolated: the shape of facebookresearch/RAM's ``ContextPosSelfAttn``), in float64; its properties; Token swap's
counts; the Lab's module against the numpy one; the Schemes panel's ΔS."""

from __future__ import annotations

import math

import numpy as np
import pytest

from explorer import jobs
from explorer import schemes as registry
from explorer.jobs.swap import SwapRequest
from explorer.schemes.cope import cope_term, gates, position_logits, positions, seeded_table, sigmoid
from explorer.state import SwapState

torch = pytest.importorskip("torch")


def _torch_cope(q, k, table, npos):
    """(positions, pos_logits/√d) the paper's way, in torch: q, k (n, d); table (npos, d)."""
    q, k = torch.tensor(q), torch.tensor(k)
    d = q.shape[-1]
    mask = torch.ones(q.shape[0], q.shape[0], dtype=torch.float64).tril()
    g = torch.sigmoid(q @ k.T / math.sqrt(d)) * mask
    pos = g.flip(-1).cumsum(dim=-1).flip(-1).clamp(max=npos - 1)
    fixed = q @ torch.tensor(table).T
    ceil, floor = pos.ceil().long(), pos.floor().long()
    w = pos - floor
    z = fixed.gather(-1, ceil) * w + fixed.gather(-1, floor) * (1 - w)
    return pos.numpy(), (z / math.sqrt(d)).numpy()


@pytest.mark.parametrize("n, d, npos", [(7, 8, 8), (12, 16, 5), (30, 4, 31)])
def test_cope_matches_the_papers_algorithm_in_torch(n, d, npos):
    rng = np.random.default_rng(n)
    q, k = rng.standard_normal((n, d)) * 2, rng.standard_normal((n, d)) * 2
    table = rng.standard_normal((npos, d))
    _g, p, z = cope_term(q, k, table, causal=True)
    ref_p, ref_z = _torch_cope(q, k, table, npos)
    np.testing.assert_allclose(p, ref_p, rtol=0, atol=1e-13)
    np.testing.assert_allclose(z, ref_z, rtol=0, atol=1e-12)


def test_open_gates_count_tokens_and_closed_ones_count_nothing():
    n = 6
    all_open = np.tril(np.ones((n, n)))
    p = positions(all_open, n + 1)
    i, j = np.indices((n, n))
    np.testing.assert_array_equal(np.where(j <= i, p, 0), np.where(j <= i, i - j + 1, 0))
    only_dots = all_open * (np.arange(n)[None, :] % 3 == 2)  # a gate open on every third token: "sentences"
    assert positions(only_dots, n + 1)[5, 0] == 2 and positions(only_dots, n + 1)[5, 3] == 1
    assert positions(all_open, 3).max() == 2  # clamped at npos − 1
    assert sigmoid(np.array([-1000.0, 0.0, 1000.0])).tolist() == [0.0, 0.5, 1.0]  # no overflow


def test_interpolation_hits_the_table_at_whole_positions():
    rng = np.random.default_rng(0)
    q, table = rng.standard_normal((1, 4)), rng.standard_normal((5, 4))
    z = position_logits(q, np.array([[0.0, 1.0, 2.5, 4.0]]), table)[0]
    np.testing.assert_allclose(z, [q[0] @ table[0], q[0] @ table[1], 0.5 * q[0] @ (table[2] + table[3]),
                                   q[0] @ table[4]], atol=1e-14)


def test_token_swap_shows_the_counts_and_a_swap_changes_them():
    st = SwapState(sentence="the cat sat . the dog ran . a bird", swap_i=1, swap_j=5, scheme="cope", causal=True)
    r = jobs.run(SwapRequest(st))
    assert r.before.positions.shape == (1, 10, 10) and r.before.gates.shape == (1, 10, 10)
    assert np.all(np.triu(r.before.positions[0], 1) == 0)  # no count reaches a future key
    np.testing.assert_allclose(np.diag(r.before.positions[0]), np.diag(r.before.gates[0]))  # p_ii = g_ii
    moved = r.after.positions[0][r.permutation][:, r.permutation]
    assert not np.allclose(moved, r.before.positions[0])  # what lies between changed: so did the counts
    assert r.verdict == "order-visible"
    unmasked = jobs.run(SwapRequest(SwapState(sentence="a b c", swap_i=0, swap_j=2, scheme="cope")))
    assert unmasked.before.positions[0][0, 0] > unmasked.before.gates[0][0, 0]  # counts run to the end


def test_lab_module_matches_the_numpy_term():
    sch = registry.get("cope")
    module = sch.lab_module(16, 2, 8)
    module.setup_layers(1)
    rng = np.random.default_rng(3)
    with torch.no_grad():
        module.tables[0].copy_(torch.tensor(rng.standard_normal((8, 9))))
    q, k = rng.standard_normal((1, 2, 6, 8)), rng.standard_normal((1, 2, 6, 8))
    with torch.no_grad():
        got = module.score_extra(0, torch.tensor(q).float(), torch.tensor(k).float()).double().numpy()
    table = module.tables[0].detach().double().numpy().T  # (npos, d)
    for h in range(2):
        np.testing.assert_allclose(got[0, h], cope_term(q[0, h], k[0, h], table)[2], rtol=1e-5, atol=1e-5)
    assert sch.in_lab and not sch.lab_by_default


def test_schemes_panel_draws_it_relative_under_the_mask():
    from explorer.jobs.schemes import DistanceRequest, MatrixRequest

    m = jobs.run(MatrixRequest("cope", l_eval=64, max_cells=64, head_dim=16, causal=True, seed=0))
    assert m.matrix is not None and np.isnan(m.matrix[0, 5])  # a future key
    np.testing.assert_allclose(np.diag(m.matrix, -3), m.matrix[3, 0])  # a function of i − j
    c = jobs.run(DistanceRequest("cope", l_eval=64, head_dim=16, causal=True, seed=0))
    np.testing.assert_allclose(c.mean[:5], [m.matrix[10, 10 - int(dd)] for dd in c.distance[:5]], atol=1e-12)
    off = jobs.run(MatrixRequest("cope", l_eval=64, max_cells=64, head_dim=16, causal=False, seed=0))
    assert off.matrix is None and "causal" in off.note
    assert seeded_table(3, 2, 0).shape == (3, 2) and gates(np.ones((2, 2)), np.ones((2, 2))).shape == (2, 2)


def test_data_swap_writes_copes_counts(tmp_path, capsys):
    import json

    from cli_run import run_cli

    out = tmp_path / "s.json"
    rc, err = run_cli(["data", "swap", "--sentence", "the cat sat . the dog", "--swap", "1", "5", "--scheme", "cope",
                       "--causal", "--out", str(out)], capsys)
    assert rc == 0, err
    doc = json.loads(out.read_text())
    st = SwapState(sentence="the cat sat . the dog", swap_i=1, swap_j=5, scheme="cope", causal=True)
    r = jobs.run(SwapRequest(st))
    np.testing.assert_array_equal(doc["positions_before"], r.before.positions)
    np.testing.assert_array_equal(doc["gates_after"], r.after.gates)
