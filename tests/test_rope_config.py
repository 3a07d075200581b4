"""Reading a model's RoPE from its config: the fields, the layouts, one line for everything bad, and the CLI.

(The numbers themselves are checked against transformers in tests/test_rope_reference.py.)
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from explorer import cli
from explorer.encodings import EncodingError, RopeScaling, apply_rope, inv_freq, scaled_inv_freq
from explorer.encodings.rope_config import (
    load_shipped,
    parse_config,
    parse_config_text,
    read_config,
    resolve,
    shipped,
    with_overrides,
)

LLAMA = {"hidden_size": 64, "num_attention_heads": 4, "rope_theta": 500000.0, "max_position_embeddings": 1024,
         "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 128}}


def test_fields_are_read_from_either_layout():
    old = parse_config(LLAMA)
    v5 = {k: v for k, v in LLAMA.items() if k not in ("rope_scaling", "rope_theta")}
    v5["rope_parameters"] = {**LLAMA["rope_scaling"], "rope_theta": 500000.0}
    new = parse_config(v5)
    assert old.head_dim == new.head_dim == 16 and old.base == new.base == 500000.0
    np.testing.assert_array_equal(old.frequencies()[0], new.frequencies()[0])
    assert old.original_max_positions == 128 and old.max_positions == 1024


def test_head_dim_and_partial_rotary_names():
    neox = parse_config({"hidden_size": 2048, "num_attention_heads": 16, "rotary_emb_base": 10000,
                         "rotary_pct": 0.25, "max_position_embeddings": 2048})
    assert (neox.head_dim, neox.rotary_dim) == (128, 32)
    ds = parse_config({"qk_rope_head_dim": 64, "hidden_size": 7168, "num_attention_heads": 128,
                       "rope_theta": 10000, "max_position_embeddings": 4096})
    assert ds.head_dim == 64
    np.testing.assert_array_equal(neox.frequencies()[0], inv_freq(32, 10000.0))


def test_defaults_are_transformers_own():
    m = parse_config({"head_dim": 64, "rope_theta": 1e4, "max_position_embeddings": 8192,
                      "rope_scaling": {"type": "yarn", "factor": None, "original_max_position_embeddings": 2048}})
    assert m.scaling.factor == 4.0  # max / original when the factor is null (a missing key is refused)
    assert (m.scaling.beta_fast, m.scaling.beta_slow, m.scaling.truncate) == (32.0, 1.0, True)
    assert m.frequencies()[1] == pytest.approx(0.1 * math.log(4) + 1)


def test_longrope_and_dynamic_depend_on_the_current_length():
    phi = load_shipped("phi-3-mini-128k")
    short, att = phi.frequencies(4096)
    long, att2 = phi.frequencies(4097)
    assert att == att2 == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))
    assert not np.array_equal(short, long)
    theta = inv_freq(96, 1e4)
    np.testing.assert_allclose(long, theta / np.array(phi.scaling.long_factor), rtol=1e-15)
    dyn = parse_config({"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 100,
                        "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})
    np.testing.assert_array_equal(dyn.frequencies(50)[0], inv_freq(8, 1e4))  # inside L_max: plain RoPE
    grown = 1e4 * (2.0 * 400 / 100 - 1) ** (8 / 6)
    np.testing.assert_allclose(dyn.frequencies(400)[0], inv_freq(8, grown), rtol=1e-14)


def test_existing_scalings_unchanged():
    for kind in ("linear", "ntk", "yarn", "llama3"):
        f, att = scaled_inv_freq(64, 1e4, RopeScaling(kind, 4.0, 512))
        assert f.shape == (32,) and att >= 1.0


def test_every_shipped_config_reads_and_round_trips():
    assert len(shipped()) == 10
    for cid in shipped():
        m = load_shipped(cid)
        assert m.name and m.source
        again = resolve(json.dumps(m.fields()))
        np.testing.assert_array_equal(again.frequencies()[0], m.frequencies()[0])
        assert resolve(cid) == m


BAD = [
    ({**LLAMA, "rope_scaling": {**LLAMA["rope_scaling"], "rope_type": "su"}}, "rope_type \"su\" is not one of"),
    ({**LLAMA, "rope_scaling": {**LLAMA["rope_scaling"], "beta_fast": 32}}, "beta_fast is not a field of rope_type"),
    ({**LLAMA, "rope_scaling": {"rope_type": "linear"}}, "factor is missing"),
    ({k: v for k, v in LLAMA.items() if k != "rope_theta"}, "no rope_theta"),
    ({**LLAMA, "rope_theta": "big"}, "rope_theta must be a number"),
    ({**LLAMA, "rope_theta": True}, "rope_theta must be a number"),
    ({**LLAMA, "rope_theta": -5}, "greater than 0"),
    ({**LLAMA, "head_dim": 9}, "must be even"),
    ({**LLAMA, "rope_scaling": "yarn"}, "rope_scaling must be an object"),
    ({**LLAMA, "rope_parameters": {}}, "both rope_scaling and rope_parameters"),
    ({**LLAMA, "rope_scaling": None, "rope_parameters": {"full_attention": {"rope_type": "default"}}},
     "per layer type"),
    ({**LLAMA, "max_position_embeddings": 2**70}, "max_position_embeddings must be"),
    ({**LLAMA, "rope_scaling": {**LLAMA["rope_scaling"], "factor": 0.5}}, "factor must be at least 1"),
    ({**LLAMA, "rope_scaling": {**LLAMA["rope_scaling"], "high_freq_factor": 0.5}}, "must be at least low_freq_factor"),
    ({**LLAMA, "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0], "long_factor": [1.0]}},
     "short_factor has 1 numbers"),
    ({**LLAMA, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "truncate": "no"}}, "truncate must be true"),
    ({**LLAMA, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": 1e300}}, "beta_fast must be at most"),
    ({**LLAMA, "partial_rotary_factor": 1.5}, "partial_rotary_factor must be in"),
    ([1, 2], "must be a JSON object"),
]


@pytest.mark.parametrize("data, words", BAD, ids=[w for _, w in BAD])
def test_bad_configs_are_one_line_naming_the_field(data, words):
    with pytest.raises(EncodingError) as exc:
        parse_config(data)
    msg = str(exc.value)
    assert words in msg and "\n" not in msg and len(msg) < 300


HOSTILE_TEXT = {
    "NaN": '{"rope_theta": NaN, "head_dim": 8, "max_position_embeddings": 8}',
    "400 digits": '{"rope_theta": ' + "9" * 400 + ', "head_dim": 8, "max_position_embeddings": 8}',
    "1e400": '{"rope_theta": 1e400, "head_dim": 8, "max_position_embeddings": 8}',
    "deep": "[" * 100_000 + "]" * 100_000,
    "huge": '{"x": "' + "a" * 2_000_000 + '"}',
    "not json": "rope_theta = 10000",
    "empty": "",
    "repeated key": '{"rope_theta": 1, "rope_theta": 2}',
}


@pytest.mark.parametrize("name", list(HOSTILE_TEXT))
def test_hostile_json_is_one_line(name):
    with pytest.raises(EncodingError) as exc:
        parse_config_text(HOSTILE_TEXT[name])
    assert "\n" not in str(exc.value) and len(str(exc.value)) < 300


def test_hostile_paths_are_one_line(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    (tmp_path / "empty_folder").mkdir()
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text(json.dumps(LLAMA))
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00garbage")
    assert read_config(tmp_path / "model").name == "model"  # a model folder: its config.json
    for p in (fifo, tmp_path / "empty_folder", tmp_path / "nope.json", tmp_path / "bin.json", "/dev/zero"):
        with pytest.raises(EncodingError) as exc:
            read_config(p)
        assert "\n" not in str(exc.value)


def test_overrides_replace_the_configs_values():
    m = load_shipped("gpt-oss-20b")
    t = with_overrides(m, truncate=True, beta_fast=16.0)
    assert t.scaling.truncate and t.scaling.beta_fast == 16.0 and t.scaling.factor == 32.0
    assert with_overrides(None, head_dim=8).rotary_dim == 8
    with pytest.raises(EncodingError, match="--head-dim"):
        with_overrides(None)


# -- the CLI ---------------------------------------------------------------------------------------------
def _run(argv, capsys):
    try:
        rc = cli.main(argv)
    except SystemExit as exc:
        rc = exc.code
    out = capsys.readouterr()
    return rc, out.err


def test_rope_frequencies_writes_float64_inv_freq_and_attention_factor(tmp_path, capsys):
    cfg = shipped()["deepseek-v3"]
    out = tmp_path / "f.json"
    rc, err = _run(["data", "rope-frequencies", "--config", str(cfg), "--out", str(out)], capsys)
    assert rc == 0, err
    doc = json.loads(out.read_text())
    model = load_shipped("deepseek-v3")
    np.testing.assert_array_equal(np.array(doc["inv_freq"]), model.frequencies()[0])  # exact round trip
    assert doc["attention_factor"] == 1.0
    # A flag overrides the config: mscale 0 falls back to YaRN's own 0.1·ln s + 1.
    rc, err = _run(["data", "rope-frequencies", "--config", str(cfg), "--mscale", "0", "--out", str(out)], capsys)
    assert rc == 0, err
    assert json.loads(out.read_text())["attention_factor"] == pytest.approx(0.1 * math.log(40) + 1)


def test_rope_frequencies_seq_len_picks_longrope_table(tmp_path, capsys):
    cfg = shipped()["phi-3-mini-128k"]
    outs = []
    for n in ("100", "100000"):
        out = tmp_path / f"f{n}.json"
        rc, err = _run(["data", "rope-frequencies", "--config", str(cfg), "--seq-len", n, "--out", str(out)], capsys)
        assert rc == 0, err
        outs.append(np.array(json.loads(out.read_text())["inv_freq"]))
    model = load_shipped("phi-3-mini-128k")
    np.testing.assert_array_equal(outs[0], model.frequencies(100)[0])
    np.testing.assert_array_equal(outs[1], model.frequencies(100000)[0])


def test_data_rope_with_config_rotates_like_the_model(tmp_path, capsys):
    cfg = shipped()["pythia-1.4b"]
    x = np.random.default_rng(0).standard_normal((5, 128))
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "r.npy"
    rc, err = _run(["data", "rope", "--config", str(cfg), "--input", str(tmp_path / "x.npy"), "--offset", "7",
                    "--out", str(out)], capsys)
    assert rc == 0, err
    want = apply_rope(x, base=10000.0, convention="halves", offset=7, rotary_dim=32)
    np.testing.assert_array_equal(np.load(out), want)
    np.testing.assert_array_equal(np.load(out)[:, 32:], x[:, 32:])  # the unrotated part passes through
    rc, err = _run(["data", "rope", "--config", str(cfg), "--input", str(tmp_path / "x.npy"), "--head-dim", "64",
                    "--out", str(out)], capsys)
    assert rc == 2 and "head_dim is 64" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, words", [
    (["--config", "{t}/missing.json"], "no such file"),
    (["--config", "{t}"], "folder"),
    (["--config", "{t}/bad.json"], "not valid JSON"),
    (["--head-dim", "8", "--scaling", "llama3", "--factor", "8", "--low-freq-factor", "4",
      "--high-freq-factor", "1"], "must be at least low_freq_factor"),
    (["--head-dim", "8", "--truncate", "maybe"], "invalid choice"),
    (["--head-dim", "7"], "even"),
])
def test_rope_frequencies_errors_are_one_line(argv, words, tmp_path, capsys):
    (tmp_path / "bad.json").write_text("{nope")
    args = [a.replace("{t}", str(tmp_path)) for a in argv]
    rc, err = _run(["data", "rope-frequencies", *args, "--out", str(tmp_path / "o.json")], capsys)
    assert rc == 2
    assert words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.json").exists()


def test_app_flag_config_is_checked_before_any_window(tmp_path, capsys):
    (tmp_path / "bad.json").write_text('{"rope_theta": 1e4, "head_dim": 8, "max_position_embeddings": 64, '
                                       '"rope_scaling": {"rope_type": "yarn", "factor": 4, "mystery": 1}}')
    for path, words in ((tmp_path / "missing.json", "no such file"), (tmp_path / "bad.json", "mystery")):
        rc, err = _run(["--config", str(path)], capsys)
        assert rc == 2 and words in err and len(err.strip().splitlines()) == 1
