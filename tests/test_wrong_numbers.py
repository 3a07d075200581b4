"""Issue 17 §4: numbers the app (or its guide) got wrong, each checked against an independent computation.

Every test here failed on main before its fix (see the commit that added it).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from explorer import jobs
from explorer.encodings.learned import LearnedTable
from explorer.encodings.sinusoidal import frequencies, sinusoidal, wavelengths
from explorer.jobs import schemes as schemes_jobs
from explorer.jobs import waves as waves_jobs
from explorer.jobs.swap import SwapRequest
from explorer.jobs.waves import CurvesRequest, compute_curves, formula_numbers
from explorer.jobs.waves_pick import rotation_readout
from explorer.state import SwapState, WavesState

# The module, not the function the package re-exports under the same name; its new names are looked up
# when a test runs, so that each test fails on its own where a name is missing.
sin_module = importlib.import_module("explorer.encodings.sinusoidal")
ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _text(*paths: str) -> str:
    return "\n".join((ROOT / p).read_text(encoding="utf-8") for p in paths)


# -- 1. swapping two identical words ---------------------------------------------------------------------
IDENTICAL = SwapState(sentence="the dog saw the cat", swap_i=0, swap_j=3, causal=True)


def test_swapping_identical_words_relabels_nothing():
    r = jobs.run(SwapRequest(IDENTICAL))
    # The sentence is unchanged, so the relabelling is the identity and nothing differs.
    np.testing.assert_array_equal(r.permutation, np.arange(5))
    assert r.max_relabel_error == 0.0 and r.max_weight_error == 0.0
    np.testing.assert_array_equal(r.outputs_after_relabelled, r.before.outputs)
    np.testing.assert_array_equal(r.weights_after_relabelled, r.before.weights)
    # The headline says "nothing changes" and gives the number it measured: the two agree.
    assert r.verdict == "no-swap"
    assert "changes nothing" in r.headline and "max difference 0.0e+00" in r.headline


def test_swapping_identical_words_agrees_in_every_view(qtbot, service):
    from explorer.panels.swap.panel import SwapPanel, export_arrays

    p = SwapPanel(service)
    qtbot.addWidget(p)
    p.resize(1400, 850)
    p.show()
    try:
        p.set_state(IDENTICAL)
        qtbot.waitUntil(lambda: p.last_response is not None
                        and p.last_response.request.state.sentence == IDENTICAL.sentence, timeout=20000)
        r = p.last_response
        assert "changes nothing" in p.headline.text() and "0.0e+00" in p.headline.text()
        assert "max |Δ| 0.0e+00" in p.out_diff.title()
        assert not np.any(p.out_diff._data)
        np.testing.assert_array_equal(p.out_after._data, p.out_before._data)
        np.testing.assert_array_equal(p.bars._a, p.bars._b)
        for name in ("bars", "out_after", "out_diff"):
            data = export_arrays(r, name, p.state)
            assert data  # the exported numbers are the ones drawn
        assert not np.any(export_arrays(r, "out_diff", p.state)["after - before [token, component]"])
    finally:
        p.shutdown()


# -- 2. the rotation identity's rounding -------------------------------------------------------------------
@pytest.mark.parametrize(("n", "k", "pair", "measured"), [(256, 8, 2, 2.2e-14), (131072, 8, 1, 1.1e-11)])
def test_rotation_error_grows_with_n_and_omega(n, k, pair, measured):
    omega = float(frequencies(128, 1e4)[pair])
    rot = rotation_readout(omega, k, n)
    assert rot["error"] == pytest.approx(measured, rel=0.1)  # far from 10⁻¹⁶
    # The app's stated scale, (N − 1 + |k|)·ω·ε, is within a small factor of what it measures.
    assert rot["rounding"] == sin_module.rotation_rounding(n, k, omega)
    assert rot["rounding"] / 4 < rot["error"] <= rot["rounding"]


def test_pair_zero_is_the_only_one_near_machine_precision():
    rot = rotation_readout(1.0, 8, 131072)
    assert rot["error"] < 1e-15 and rot["rounding"] == np.finfo(float).eps


def test_the_app_says_the_rotation_error_grows():
    from explorer.panels.waves.formula import formula_html
    from explorer.panels.waves.views_relative import _check_text

    omega = float(frequencies(128, 1e4)[2])
    rot = rotation_readout(omega, 8, 256)
    text = _check_text(rot, 256)
    # The measured error is this machine's: its last digit depends on how its maths library rounds sin and cos
    # (2.2e-14 on one CPU, 2.3e-14 on another); the scale it is compared with is exact.
    assert rot["error"] == pytest.approx(2.2e-14, rel=0.1)
    measured = re.search(r"= <b>([0-9.]+) × 10<sup>-14</sup></b>", text)
    assert measured and float(measured.group(1)) == pytest.approx(rot["error"] * 1e14, abs=0.05), text
    assert "(N−1+|k|)·ω·ε" in text and "4.4 × 10<sup>-14</sup>" in text
    st = WavesState(n_positions=256, d_model=128, pair=2, offset=8)
    assert formula_numbers(st)["rounding"] == pytest.approx(4.38e-14, rel=1e-2)
    assert "= 4.4e-14" in formula_html(st)
    # The strip is redrawn when N or k changes (its rounding scale depends on both).
    from explorer.panels.waves.panel import WavesPanel

    keys = {WavesPanel.formula_inputs(None, dataclasses.replace(st, **c)) for c in ({}, {"n_positions": 512},
                                                                                   {"offset": 9})}
    assert len(keys) == 3
    for doc in ("docs/panels/waves.md", "docs/maths.md"):
        text = _text(doc)
        assert "≈ 10⁻¹⁶, float64 rounding" not in text
        assert "(N − 1 + |k|)·ωᵢ·ε" in text and "1.1·10⁻¹¹" in text


# -- 3. off by one: a cycle inside positions 0 … N−1 --------------------------------------------------------
def test_slow_pairs_counted_over_positions_0_to_n_minus_1():
    lam = wavelengths(64, 1e4)
    # Pair i completes a cycle iff (N − 1)·ω_i ≥ 2π: 24 pairs do not at N = 63.
    slow = int(np.count_nonzero(62 * frequencies(64, 1e4) < 2 * np.pi))
    assert slow == 24 == int(np.count_nonzero(~sin_module.completes_cycle(lam, 63)))
    r = compute_curves(CurvesRequest(63, 64, 1e4, "paper", l_train=63))
    assert (r.slow_pairs, r.unseen_pairs) == (24, 24)
    # The Schemes panel's RoPE pairs (same frequencies at d = 64) use the same rule and agree.
    b = schemes_jobs.beyond(schemes_jobs.BeyondRequest(head_dim=64, base=1e4, l_train=63, l_eval=128))
    assert int((~b.full_turn).sum()) == 24
    # One rule, one function.
    assert waves_jobs.completes_cycle is schemes_jobs.completes_cycle is sin_module.completes_cycle


def test_completes_cycle_at_the_edge():
    assert sin_module.completes_cycle(2 * np.pi, 8).all()  # positions 0 … 7: 7 ≥ 2π
    assert not sin_module.completes_cycle(2 * np.pi, 7).any()  # positions 0 … 6: 6 < 2π
    assert not sin_module.completes_cycle(2.0, 1).any()


# -- 4. the slowest wavelength is not 2π·base ------------------------------------------------------------------
def test_slowest_wavelength_is_stated_with_its_real_value():
    slowest, bound = float(wavelengths(128, 1e4)[-1]), 2 * math.pi * 1e4
    assert f"{slowest:,.0f}" == "54,410" and f"{bound:,.0f}" == "62,832"
    assert round(100 * (1 - slowest / bound)) == 13
    preset = json.loads(_text("resources/presets/02_waves_and_frequencies.json"))
    assert preset["panels"]["waves"]["d_model"] == 128 and preset["panels"]["waves"]["base"] == 1e4
    for where in (preset["description"], _text("docs/lecture.md"), _text("docs/panels/waves.md"), _text("README.md")):
        assert "54,410" in where and "62,832" in where
    claims = _text("README.md", "docs/lecture.md", "docs/panels/waves.md", "docs/maths.md") + preset["description"]
    assert not re.search(r"(≈|almost|just below)\s*2π·base", claims)


# -- 5. t2t is not fairseq's table ---------------------------------------------------------------------------
def _fairseq_embedding(num: int, dim: int, padding_idx: int | None):
    """fairseq's ``SinusoidalPositionalEmbedding.get_embedding``, rewritten here (same arithmetic, float32)."""
    import torch

    half = dim // 2
    scale = math.log(10000) / (half - 1)
    freq = torch.exp(torch.arange(half, dtype=torch.float) * -scale)
    angle = torch.arange(num, dtype=torch.float).unsqueeze(1) * freq.unsqueeze(0)
    emb = torch.cat([torch.sin(angle), torch.cos(angle)], dim=1).view(num, -1)
    if padding_idx is not None:
        emb[padding_idx, :] = 0
    return emb


def _fairseq_positions(tokens, padding_idx: int):
    """fairseq's ``utils.make_positions``: numbering starts at padding_idx + 1, padding keeps padding_idx."""
    import torch

    mask = tokens.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


def test_fairseq_differs_from_t2t_where_documented():
    import torch

    pad, n, d = 1, 40, 16
    table = _fairseq_embedding(n + pad + 1, d, pad)
    assert table.dtype == torch.float32
    ours = sinusoidal(n + pad + 1, d, 10000.0, "t2t")
    # Offset: a sentence's token p reads row p + padding_idx + 1.
    tokens = torch.tensor([[5, 6, 7, 8]])
    assert _fairseq_positions(tokens, pad).tolist() == [[2, 3, 4, 5]]
    rows = table.numpy().astype(np.float64)
    np.testing.assert_allclose(rows[pad + 1:], ours[pad + 1:], atol=1e-5)  # same numbers, float32 precision
    assert np.abs(rows[:n] - ours[:n]).max() > 0.5  # but not at the same rows
    assert not rows[pad].any() and ours[pad].any()  # the padding row is zeroed
    assert 0 < np.abs(rows[pad + 1:] - ours[pad + 1:]).max() < 1e-5  # float32, not float64
    # Base fixed at 10000: a t2t table at another base is not fairseq's.
    assert np.abs(sinusoidal(n + pad + 1, d, 500000.0, "t2t")[pad + 1:] - rows[pad + 1:]).max() > 0.1
    # d = 2: fairseq divides by d/2 − 1 = 0; tensor2tensor (and we) use max(d/2 − 1, 1).
    with pytest.raises(ZeroDivisionError):
        _fairseq_embedding(4, 2, pad)
    np.testing.assert_array_equal(frequencies(2, 1e4, "t2t"), [1.0])


def test_fairseq_differences_are_documented_next_to_the_variant():
    from explorer.panels.waves.controls import VARIANT_TIPS

    for text in (VARIANT_TIPS["t2t"], _text("docs/maths.md"), _text("docs/schemes.md"), _text("docs/panels/waves.md")):
        for point in ("padding_idx + 1", "10000", "float32", "d = 2"):
            assert point in text, (point, text[:80])


# -- 6. reproducing the learned table -----------------------------------------------------------------------
def _recipe() -> str:
    text = _text("docs/maths.md")
    section = text.split("## Reproducing the learned table", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.parametrize(("m", "d", "seed"), [(64, 16, 0), (7, 3, 5), (512, 64, 1)])
def test_the_documented_recipe_rebuilds_the_learned_table(m, d, seed):
    import torch

    scope = {"seed": seed, "max_positions": m, "d": d}
    state = torch.get_rng_state()
    try:
        exec(_recipe(), scope)  # the guide's own words, run
        float32 = torch.manual_seed(seed) and torch.nn.Embedding(m, d).weight.detach().numpy()
    finally:
        torch.set_rng_state(state)
    np.testing.assert_array_equal(scope["table"], LearnedTable(m, d, seed).lookup(m))
    assert np.abs(float32 - LearnedTable(m, d, seed).lookup(m)).max() > 0.1  # float32 is another stream
