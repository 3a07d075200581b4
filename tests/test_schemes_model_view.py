"""The Schemes panel's "A model's RoPE" view: its job's numbers against brute force, and the view itself
(pick a shipped model, open a config file, refuse a bad one; the state never holds a path)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from explorer.encodings import apply_rope
from explorer.encodings.rope_config import load_shipped, shipped
from explorer.schemes.rope_model_tab import (
    ModelRopeRequest,
    block_stats,
    expected_score,
    extended_length,
    log_blocks,
    model_rope,
)
from explorer.state import SchemesState


def test_expected_score_is_the_trace_of_the_rotation():
    """S(Δ) = E[(aR_m q)·(aR_n q)]/E|q|² over q ~ N(0, I): a²·(the rotated part of trace R(Δ)) + the pass-through
    dims, over d — checked against the rotation apply_rope itself makes of the identity."""
    for cid in ("pythia-1.4b", "gpt-oss-20b", "phi-3-mini-128k"):
        m = load_shipped(cid)
        length = extended_length(m)
        theta, att = m.frequencies(length)
        d, passed = m.head_dim, m.head_dim - m.rotary_dim
        for delta in (0, 1, 7, 5000):
            rotated = apply_rope(np.eye(d), positions=np.full(d, float(delta)), base=m.base, convention="halves",
                                 scaling=replace(m.scaling, seq_len=length), rotary_dim=m.rotary_dim)
            trace = float(np.trace(rotated))  # a·Σ 2cos(Δθ′_i) + the pass-through dims
            got = expected_score(np.array([float(delta)]), theta, att, d)[0]
            assert got == pytest.approx((att * (trace - passed) + passed) / d, abs=1e-12), (cid, delta)


def test_block_stats_are_exact_over_every_distance():
    values = np.sin(np.arange(1, 1001) * 0.37)
    edges = log_blocks(1000, 40)
    assert edges[0] == 1 and edges[-1] == 1001 and np.all(np.diff(edges) >= 1)
    mean, lo, hi = block_stats(values, edges)
    for k in range(edges.size - 1):
        block = values[edges[k] - 1:edges[k + 1] - 1]
        assert mean[k] == pytest.approx(block.mean(), abs=1e-14)
        assert lo[k] == block.min() and hi[k] == block.max()


def test_job_numbers_for_every_shipped_model():
    for cid in shipped():
        r = model_rope(ModelRopeRequest(cid))
        m = load_shipped(cid)
        theta, att = m.frequencies(r.l_ext)
        np.testing.assert_array_equal(r.theta, theta)
        np.testing.assert_array_equal(r.theta_plain, m.plain())
        assert r.attention_factor == att
        if m.layers is None:  # a model whose layers differ names its layer types instead
            assert f"attention factor {att:.4g}" in r.summary
        first = m.softmax_scale * expected_score(np.array([1.0]), theta, att, m.head_dim)[0]
        assert r.scaled[0][0] == pytest.approx(first, abs=0.2)
        assert r.kept + r.divided <= theta.size
    deepseek = model_rope(ModelRopeRequest("deepseek-v3"))
    assert deepseek.attention_factor == 1.0 and deepseek.l_orig == 4096 and deepseek.l_ext == 163840
    llama = model_rope(ModelRopeRequest("llama-3.1-8b"))
    assert (llama.kept, llama.divided, llama.l_orig, llama.l_ext) == (29, 29, 8192, 131072)


# -- the view --------------------------------------------------------------------------------------------
@pytest.fixture
def panel(qtbot, service):
    from explorer.panels.schemes import SchemesPanel
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    p = SchemesPanel(service, SchemesState(l_train=64, l_eval=256, view="model"))
    qtbot.addWidget(p)
    p.resize(1300, 800)
    p.show()
    _wait(qtbot, p)
    yield p
    p.shutdown()


def _wait(qtbot, p) -> None:
    qtbot.waitUntil(lambda: p.has_drawn and p.service.idle(), timeout=20000)
    qtbot.wait(10)


def test_view_shows_the_chosen_model(qtbot, panel):
    view = panel.view("model")
    assert view.response is not None and view.response.model.name == "Llama 3.1 8B"
    idx = view.combo.findData("gpt-oss-20b")
    view.combo.setCurrentIndex(idx)
    view.combo.activated.emit(idx)
    _wait(qtbot, panel)
    assert panel.state.model == "gpt-oss-20b"
    r = view.response
    assert r.model.name == "gpt-oss-20b"
    assert "attention factor 1.347" in panel.view("model").score.getPlotItem().titleLabel.text
    assert "32" in view.summary.notes() and "131,072" in view.summary.notes()
    x, y = view.curves["freq_model"].getData()
    np.testing.assert_allclose(10**y, r.theta, rtol=1e-12)  # a log axis holds log10 of the data
    assert "9 of 32 pairs keep" in view.info.text()


def test_open_model_config_keeps_the_fields_not_the_path(qtbot, panel, tmp_path):
    cfg = tmp_path / "mine" / "config.json"
    cfg.parent.mkdir()
    cfg.write_text(json.dumps({"hidden_size": 512, "num_attention_heads": 8, "rope_theta": 50000.0,
                               "max_position_embeddings": 4096,
                               "rope_scaling": {"rope_type": "linear", "factor": 2.0}}))
    panel.view("model").ask_config_path = lambda: str(cfg)
    panel.view("model").open_button.click()
    _wait(qtbot, panel)
    assert str(tmp_path) not in panel.state.model
    assert json.loads(panel.state.model)["rope_scaling"]["factor"] == 2.0
    view = panel.view("model")
    assert view.combo.currentText() == "opened: mine"
    assert view.response.model.base == 50000.0
    # A bad file: one line in the banner, the model shown stays.
    bad = tmp_path / "bad.json"
    bad.write_text('{"rope_theta": NaN}')
    before = panel.state.model
    view.ask_config_path = lambda: str(bad)
    view.open_button.click()
    assert panel.state.model == before
    assert "NaN" in panel.banner.text() and "\n" not in panel.banner.text()
    # Back to a shipped one: the "opened" entry goes.
    view.combo.activated.emit(view.combo.findData("mistral-7b-v0.1"))
    _wait(qtbot, panel)
    assert view.combo.findData("") == -1 and panel.state.model == "mistral-7b-v0.1"


def test_state_refuses_a_bad_model_in_one_line():
    from explorer.state import StateError

    with pytest.raises(StateError) as exc:
        SchemesState(model='{"rope_theta": 1e4, "head_dim": 8, "max_position_embeddings": 64, '
                           '"rope_scaling": {"rope_type": "su"}}')
    assert "rope_type" in str(exc.value) and "\n" not in str(exc.value)
    with pytest.raises(StateError):
        SchemesState(model="/etc/passwd")  # a path is never read: it is not a shipped id


def test_model_view_strip_states_the_models_rule_with_its_numbers():
    """View 6's formula strip is the model's rule (it showed the fifteen scheme formulas): llama3's wavelength
    bands, YaRN's ramp and attention factor, each with the numbers the job computes with."""
    from explorer.encodings.rope import llama3_band_edges, yarn_correction_range
    from explorer.panels.schemes.formula import formula_lines
    from explorer.schemes.rope_model_text import model_formula

    every = SchemesState(view="model", model="llama-3.1-8b").clamped(**{"show_alibi": True, "show_scaled_rope": True})
    assert formula_lines(every) == [model_formula("llama-3.1-8b")]
    llama = load_shipped("llama-3.1-8b")
    hi_w, lo_w = llama3_band_edges(llama.scaling)
    text = model_formula("llama-3.1-8b")
    assert "llama3, s = 8" in text and f"λ &gt; {lo_w:,.0f}" in text and f"λ &lt; {hi_w:,.0f}" in text
    assert (lo_w, hi_w) == (8192.0, 2048.0) and "g = (8,192/λ − 1)/(4 − 1)" in text
    assert "500,000<sup>−2i/128</sup>" in text
    for cid in shipped():
        m = load_shipped(cid)
        line = model_formula(cid)
        assert m.rope_type in line, cid
        if m.rope_type == "yarn":
            lo, hi = yarn_correction_range(m.rotary_dim, m.base, m.scaling)
            assert f"pair {lo:g} to 1 at pair {hi:g}" in line
            assert f"attention factor {model_rope(ModelRopeRequest(cid)).attention_factor:.4g}" in line
    assert "Model" in model_formula("no-such-model")
