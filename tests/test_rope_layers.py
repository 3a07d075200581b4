"""Models whose layers differ (Gemma 2/3, Llama 4, Qwen3, SmolLM3, Cohere 2, OLMo 3) against transformers itself:
its layer types, NoPE layers, windows and chunks, each layer type's inverse frequencies (its rope init functions per
layer type, recompiled in float64 by ``hf_reference``) and Llama 4's attention temperature, from its attention
module.  The shipped configs and configs the app does not ship."""

from __future__ import annotations

import inspect
import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from cli_run import run_cli  # noqa: E402
from hf_reference import hf_config, reference  # noqa: E402
from transformers import masking_utils  # noqa: E402
from transformers.models.llama4 import modeling_llama4 as llama4  # noqa: E402

from explorer.encodings import EncodingError  # noqa: E402
from explorer.encodings.rope_config import layer_rope, load_shipped, parse_config, shipped  # noqa: E402

RTOL = 1e-12

#: Shipped configs whose layers differ -> the transformers model type that reads them.
LAYERED = {"gemma-3-4b": "gemma3_text", "llama-4-scout": "llama4_text"}

#: Configs the app does not ship (real models' position fields, as their config.json gives them).
UNSHIPPED = {
    "Gemma 3 1B (Hub layout: rope_local_base_freq)": ("gemma3_text", {
        "model_type": "gemma3_text", "hidden_size": 1152, "num_attention_heads": 4, "num_key_value_heads": 1,
        "head_dim": 256, "num_hidden_layers": 26, "max_position_embeddings": 32768, "sliding_window": 512,
        "sliding_window_pattern": 6, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0, "rope_scaling": None}),
    "Gemma 3 27B (Hub layout, linear 8)": ("gemma3_text", {
        "model_type": "gemma3_text", "hidden_size": 5376, "num_attention_heads": 32, "num_key_value_heads": 16,
        "head_dim": 128, "num_hidden_layers": 62, "max_position_embeddings": 131072, "sliding_window": 1024,
        "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0}}),
    "Gemma 2 9B": ("gemma2", {
        "model_type": "gemma2", "hidden_size": 3584, "num_attention_heads": 16, "head_dim": 256,
        "num_hidden_layers": 42, "max_position_embeddings": 8192, "sliding_window": 4096, "rope_theta": 10000.0}),
    "Qwen3 with a sliding window": ("qwen3", {
        "model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
        "num_hidden_layers": 36, "max_position_embeddings": 40960, "rope_theta": 1000000.0,
        "use_sliding_window": True, "sliding_window": 4096, "max_window_layers": 28}),
    "SmolLM3 3B": ("smollm3", {
        "model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4,
        "num_hidden_layers": 36, "max_position_embeddings": 65536, "rope_theta": 5000000.0,
        "no_rope_layers": [1, 1, 1, 0] * 9}),
    "Cohere 2 (Command R7B)": ("cohere2", {
        "model_type": "cohere2", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
        "max_position_embeddings": 8192, "rope_theta": 50000.0, "sliding_window": 4096,
        "sliding_window_pattern": 4}),
    "Llama 4 without no_rope_layers (interval 4), plain RoPE": ("llama4_text", {
        "model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128,
        "num_hidden_layers": 48, "max_position_embeddings": 1048576, "rope_theta": 500000.0,
        "attention_chunk_size": 8192}),
    "OLMo 3 style: YaRN on the sliding layers only": ("olmo3", {
        "model_type": "olmo3", "hidden_size": 512, "num_attention_heads": 8, "num_hidden_layers": 8,
        "max_position_embeddings": 65536, "sliding_window": 4096,
        "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"] * 2,
        "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0},
                            "sliding_attention": {"rope_type": "yarn", "factor": 8.0, "rope_theta": 500000.0,
                                                  "original_max_position_embeddings": 8192}}}),
}


def _lengths(model) -> list:
    return [None, max(1, model.original_max_positions // 2), 4 * model.max_positions]


def _check(model, cfg, where: str) -> None:
    plan = model.layers
    assert plan is not None, where
    assert plan.layer_types == tuple(cfg.layer_types), where
    rotates = getattr(cfg, "no_rope_layers", None)
    assert list(plan.rotates) == ([bool(r) for r in rotates] if rotates else [True] * len(plan.layer_types)), where
    window = getattr(cfg, "sliding_window", None)
    if "sliding_attention" in plan.types:
        assert plan.sliding_window == window, where
    for layer_type, rope in plan.ropes:
        for seq_len in _lengths(rope):
            ours, att = rope.frequencies(seq_len)
            ref, ref_att = reference(cfg, seq_len, layer_type)
            np.testing.assert_allclose(ours, ref, rtol=RTOL, atol=0, err_msg=f"{where} {layer_type} at {seq_len}")
            assert att == pytest.approx(ref_att, rel=RTOL, abs=0), (where, layer_type, seq_len)


def test_every_shipped_layered_config_matches_transformers_per_layer_type():
    assert set(LAYERED) == {c for c in shipped() if load_shipped(c).layers is not None}
    for config_id, model_type in LAYERED.items():
        model = load_shipped(config_id)
        _check(model, hf_config(model_type, json.loads(shipped()[config_id].read_text())), config_id)
        again = parse_config(model.fields())  # what a session keeps reads back to the same model
        assert again == model


@pytest.mark.parametrize("name", list(UNSHIPPED))
def test_configs_not_shipped_match_transformers_per_layer_type(name):
    model_type, fields = UNSHIPPED[name]
    model = parse_config(fields)
    _check(model, hf_config(model_type, fields), name)
    assert parse_config(model.fields()) == model


def test_temperature_tuning_written_as_a_number_is_read_as_true():
    fields = json.loads(shipped()["llama-4-scout"].read_text())
    assert parse_config({**fields, "attn_temperature_tuning": 4}) == load_shipped("llama-4-scout")
    assert parse_config({**fields, "attn_temperature_tuning": False}).layers.temperature is None


def test_mistral_slides_in_every_layer_as_its_mask_does():
    """Mistral has no layer_types: transformers builds the sliding-window mask for every layer when the config
    gives a window (``MistralModel``: ``create_sliding_window_causal_mask if config.sliding_window``)."""
    from transformers.models.mistral import modeling_mistral

    fields = {"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
              "max_position_embeddings": 32768, "rope_theta": 10000.0, "sliding_window": 4096}
    plan = parse_config(fields).layers
    assert plan.layer_types == ("sliding_attention",) * 32 and plan.sliding_window == 4096
    # Every layer's attention reads the one config.sliding_window; the model builds the sliding mask when it is set.
    assert "create_sliding_window_causal_mask" in inspect.getsource(modeling_mistral.MistralModel)
    assert 'getattr(self.config, "sliding_window", None)' in inspect.getsource(modeling_mistral.MistralAttention)
    cfg = hf_config("mistral", fields)
    np.testing.assert_allclose(plan.rope("sliding_attention").frequencies()[0], reference(cfg, None)[0], rtol=RTOL)
    assert parse_config({**fields, "sliding_window": None}).layers is None


def test_gemma_3_reads_two_ropes_and_llama_4_its_nope_layers():
    gemma = load_shipped("gemma-3-4b").layers
    assert gemma.types == ("sliding_attention", "full_attention")
    assert gemma.layers_of("full_attention") == [5, 11, 17, 23, 29] and gemma.reach("sliding_attention") == 1023
    assert (gemma.rope("sliding_attention").base, gemma.rope("full_attention").scaling.factor) == (10000.0, 8.0)
    scout = load_shipped("llama-4-scout").layers
    assert scout.layers_of("full_attention", rotating=False) == list(range(3, 48, 4))
    assert scout.layers_of("chunked_attention", rotating=True) == [k for k in range(48) if k % 4 != 3]
    assert scout.temperature == (8192.0, 0.1) and scout.reach("chunked_attention") == 8191


def test_reach_matches_transformers_masks():
    """Sliding: key j is seen from query i when i − j < W; chunked: when both are in one chunk of C."""
    gemma = load_shipped("gemma-3-4b").layers
    slide = masking_utils.sliding_window_overlay(gemma.sliding_window)
    w = gemma.sliding_window
    assert slide(0, 0, 5000, 5000 - gemma.reach("sliding_attention")) and not slide(0, 0, 5000, 5000 - w)
    scout = load_shipped("llama-4-scout").layers
    chunk = masking_utils.chunked_overlay(scout.chunk_size, torch.zeros(1, dtype=torch.long))
    c = scout.chunk_size
    assert chunk(0, 0, 2 * c - 1, c) and not chunk(0, 0, 2 * c, 2 * c - 1)
    assert scout.reach("chunked_attention") == (2 * c - 1) - c


def test_llama4_temperature_matches_its_attention_module():
    """τ(p) read back from transformers' own NoPE attention layer: with q = k = v = x (identity projections), key 0
    = a and keys 1 … p = b, the logit gap of query p is τ(p)·(b·b − b·a)/√d."""
    from transformers import Llama4TextConfig

    fields = {"hidden_size": 8, "num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 8,
              "num_hidden_layers": 4, "no_rope_layers": [1, 1, 1, 0], "attn_temperature_tuning": True,
              "floor_scale": 4, "attn_scale": 0.3, "use_qk_norm": False, "intermediate_size": 8,
              "intermediate_size_mlp": 8, "vocab_size": 8, "max_position_embeddings": 64, "rope_theta": 10000.0}
    cfg = Llama4TextConfig(**fields)
    cfg._attn_implementation = "eager"
    layer = llama4.Llama4TextAttention(cfg, layer_idx=3).double()
    with torch.no_grad():
        for proj in (layer.q_proj, layer.k_proj, layer.v_proj, layer.o_proj):
            proj.weight.copy_(torch.eye(8, dtype=torch.float64))
    n = 40
    a, b = torch.zeros(8, dtype=torch.float64), torch.zeros(8, dtype=torch.float64)
    a[0], b[0], b[1] = 1.0, 0.5, 1.0
    x = torch.stack([a] + [b] * (n - 1))[None]
    mask = torch.full((n, n), float("-inf"), dtype=torch.float64).triu(1)[None, None]
    with torch.no_grad():
        _, weights = layer(x, position_embeddings=None, attention_mask=mask)
    w = weights[0, 0].numpy()
    p = np.arange(1, n)
    gap = float(b @ b - b @ a) / math.sqrt(8)
    tau_hf = np.log(w[p, p] / w[p, 0]) / gap
    ours = parse_config({**fields, "model_type": "llama4_text"}).layers.temperature_at(p)
    # transformers computes τ from positions.float(): float32, so it agrees to float32's 6e-8, not to 1e-12.
    np.testing.assert_allclose(ours, tau_hf, rtol=2e-7)
    assert ours[0] == 1.0 and ours[-1] > 1.3  # rises every floor_scale = 4 positions


BAD_LAYERS = [
    ({"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64,
      "rope_parameters": {"full_attention": {"rope_type": "default"}}}, "gives no layer_types"),
    ({"head_dim": 8, "max_position_embeddings": 64, "layer_types": ["full_attention", "sliding_attention"],
      "sliding_window": 16, "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1e4}}},
     "no entry for it"),
    ({"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64, "layer_types": ["sliding_attention"] * 2},
     "no sliding_window"),
    ({"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64, "layer_types": ["global"]}, "is not one of"),
    ({"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64, "num_hidden_layers": 3,
      "layer_types": ["full_attention"] * 2}, "2 entries for 3 layers"),
    ({"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64, "no_rope_layers": [1, 2]}, "only 0 and 1"),
    ({"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64, "no_rope_layers": "1101"}, "must be a list"),
    ({"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64, "layer_types": ["full_attention"] * 2000},
     "at most 1,024"),
    ({"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64, "no_rope_layers": [1, 0],
      "attn_temperature_tuning": True, "floor_scale": 0}, "floor_scale must be greater than 0"),
    ({"head_dim": 8, "max_position_embeddings": 64, "layer_types": ["full_attention"],
      "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1e4}, "rope_theta": 5}},
     "mixes per-layer-type entries"),
]


@pytest.mark.parametrize("data, words", BAD_LAYERS, ids=[w for _, w in BAD_LAYERS])
def test_bad_layer_fields_are_one_line(data, words):
    with pytest.raises(EncodingError) as exc:
        parse_config(data)
    assert words in str(exc.value) and "\n" not in str(exc.value) and len(str(exc.value)) < 300


def test_layer_rope_picks_one_type_and_overrides_need_it():
    gemma = load_shipped("gemma-3-4b")
    local = layer_rope(gemma, "sliding_attention")
    assert local.base == 10000.0 and local.layers is None
    with pytest.raises(EncodingError, match="this config's layer types are sliding_attention, full_attention"):
        layer_rope(gemma, "chunked_attention")


# -- data and the model view's job -------------------------------------------------------------------------
def test_data_rope_frequencies_per_layer_type_matches_transformers(tmp_path, capsys):
    for config_id, model_type in LAYERED.items():
        out = tmp_path / f"{config_id}.json"
        argv = ["data", "rope-frequencies", "--config", str(shipped()[config_id]), "--out", str(out)]
        rc, err = run_cli(argv, capsys)
        assert rc == 0, err
        doc = json.loads(out.read_text())
        cfg = hf_config(model_type, json.loads(shipped()[config_id].read_text()))
        assert doc["layer_types"] == list(cfg.layer_types)
        for layer_type, part in doc["per_layer_type"].items():
            ref, att = reference(cfg, None, layer_type)
            np.testing.assert_allclose(part["inv_freq"], ref, rtol=RTOL, atol=0)
            assert part["attention_factor"] == att
    assert doc["attention_temperature"] == {"floor_scale": 8192.0, "attn_scale": 0.1}  # Llama 4 Scout
    assert doc["per_layer_type"]["full_attention"]["nope_layers"] == list(range(3, 48, 4))


def test_data_rope_needs_a_layer_type_for_a_layered_config(tmp_path, capsys):
    x = np.random.default_rng(0).standard_normal((4, 256))
    np.save(tmp_path / "x.npy", x)
    cfg = str(shipped()["gemma-3-4b"])
    base = ["data", "rope", "--config", cfg, "--input", str(tmp_path / "x.npy"), "--out", str(tmp_path / "r.npy")]
    rc, err = run_cli(base, capsys)
    assert rc == 2 and "--layer-type" in err and len(err.strip().splitlines()) == 1
    rc, err = run_cli([*base, "--layer-type", "sliding_attention"], capsys)
    assert rc == 0, err
    from explorer.encodings import apply_rope

    np.testing.assert_array_equal(np.load(tmp_path / "r.npy"), apply_rope(x, base=10000.0, convention="halves"))
    rc, err = run_cli(["data", "rope-frequencies", "--config", cfg, "--base", "5", "--out", str(tmp_path / "f.json")],
                   capsys)
    assert rc == 2 and "--layer-type" in err and len(err.strip().splitlines()) == 1


def test_llama4_rotates_interleaved_pairs_as_its_complex_rotation(tmp_path, capsys):
    """transformers' Llama 4 multiplies (x_2i + i·x_2i+1) by e^{i·p·θ_i}: our interleaved convention."""
    model = layer_rope(load_shipped("llama-4-scout"), "chunked_attention")
    assert model.layout == "interleaved"
    x = np.random.default_rng(1).standard_normal((6, 128))
    np.save(tmp_path / "x.npy", x)
    rc, err = run_cli(["data", "rope", "--config", str(shipped()["llama-4-scout"]), "--layer-type", "chunked_attention",
                    "--input", str(tmp_path / "x.npy"), "--offset", "3", "--out", str(tmp_path / "r.npy")], capsys)
    assert rc == 0, err
    inv, att = model.frequencies()
    pos = torch.arange(3, 9, dtype=torch.float64)
    freqs_cis = torch.polar(torch.ones(6, 64, dtype=torch.float64), pos[:, None] * torch.tensor(inv)) * att
    xt = torch.tensor(x)[None, :, None, :]
    ref, _ = llama4.apply_rotary_emb(xt, xt, freqs_cis[None])
    # Its apply_rotary_emb casts x to float32 (so 1e-6, not 1e-12); the other pairing would differ by O(1).
    np.testing.assert_allclose(np.load(tmp_path / "r.npy"), ref[0, :, 0].numpy(), rtol=0, atol=1e-6)


def test_model_view_job_reads_each_layer_type():
    from explorer.schemes.rope_model_tab import ModelRopeRequest, model_rope

    gemma = model_rope(ModelRopeRequest("gemma-3-4b"))
    curves = {c.layer_type: c for c in gemma.layer_curves}
    assert curves["sliding_attention"].reach == 1023 and len(curves["full_attention"].layers) == 5
    sliding = curves["sliding_attention"].score[0]
    starts = np.round(gemma.distance)  # block centres: past the window the curve is empty
    assert np.all(np.isnan(sliding[starts > 1100])) and not np.any(np.isnan(sliding[starts < 900]))
    scout = model_rope(ModelRopeRequest("llama-4-scout"))
    p, tau = scout.temperature
    assert p[0] == 0 and p[-1] == 10485760 - 1
    np.testing.assert_allclose(tau, np.log1p(np.floor((p + 1) / 8192)) * 0.1 + 1, rtol=0, atol=0)
    assert "12 full NoPE" in scout.summary and scout.rotates.count(False) == 12


HOSTILE = {
    "window 0": {"sliding_window": 0, "layer_types": ["sliding_attention"]},
    "window text": {"sliding_window": "big", "layer_types": ["sliding_attention"]},
    "window 400 digits": {"sliding_window": 10**400, "layer_types": ["sliding_attention"]},
    "chunk -1": {"attention_chunk_size": -1, "layer_types": ["chunked_attention"]},
    "layer type a number": {"layer_types": [1, 2]},
    "no_rope NaN": {"no_rope_layers": [1, float("nan")]},
    "floor_scale NaN": {"no_rope_layers": [1, 0], "attn_temperature_tuning": True, "floor_scale": float("nan")},
    "attn_scale huge": {"no_rope_layers": [1, 0], "attn_temperature_tuning": True, "attn_scale": 1e300},
    "temperature text": {"no_rope_layers": [1, 0], "attn_temperature_tuning": "yes"},
    "layers 400 digits": {"num_hidden_layers": 10**400, "layer_types": ["full_attention"]},
    "merge 0": {"rope_scaling": {"type": "mrope", "mrope_section": [1, 1, 2]},
                "vision_config": {"spatial_merge_size": 0}},
    "tokens/s NaN": {"model_type": "qwen2_5_vl", "rope_scaling": {"type": "mrope", "mrope_section": [1, 1, 2]},
                     "vision_config": {"tokens_per_second": float("nan")}},
    "section negative": {"rope_scaling": {"type": "mrope", "mrope_section": [-1, 3, 2]}},
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_position_fields_are_one_line(name):
    with pytest.raises(EncodingError) as exc:
        parse_config({"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64, **HOSTILE[name]})
    assert "\n" not in str(exc.value) and len(str(exc.value)) < 300 and "Traceback" not in str(exc.value)
