"""Configs that pass every field check and then failed in the maths (issue #25, finding 5), and YaRN's required
factor: each is refused in one clear line, or computed correctly, in ``data``, ``--config`` and ``export --preset``.
"""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
from cli_run import run_cli

from explorer.encodings import EncodingError, RopeScaling, yarn_correction_range
from explorer.encodings.rope_config import parse_config

ROPE = {"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64}
LONGROPE_L1 = {**ROPE, "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0] * 4,
                                        "long_factor": [2.0] * 4, "original_max_position_embeddings": 1}}
YARN_TINY_BETA = {**ROPE, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": 1e-308,
                                           "original_max_position_embeddings": 16}}
LONGROPE_TINY = {**ROPE, "rope_scaling": {"rope_type": "longrope", "short_factor": [5e-324] * 4,
                                          "long_factor": [5e-324] * 4, "original_max_position_embeddings": 16}}
YARN_NO_FACTOR = {**ROPE, "rope_scaling": {"rope_type": "yarn", "original_max_position_embeddings": 16}}

REFUSED = {
    "longrope L_orig 1": (LONGROPE_L1, "original_max_position_embeddings) of at least 2"),
    "longrope tiny factors": (LONGROPE_TINY, "short_factor must be at least 0.001"),
    "yarn without factor": (YARN_NO_FACTOR, "factor is missing"),
}


def _one_line(msg: str) -> str:
    assert "\n" not in msg.strip() and "Traceback" not in msg and len(msg) < 400, msg
    return msg


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_in_one_line(name):
    config, words = REFUSED[name]
    with pytest.raises(EncodingError) as exc:
        parse_config(config)
    assert words in _one_line(str(exc.value))


def test_yarn_with_a_tiny_beta_is_computed_not_overflowed():
    """L_orig/(2π·1e-308) overflows a float; the correction dim is d·ln(L_orig/(2πβ))/(2 ln b) all the same."""
    model = parse_config(YARN_TINY_BETA)
    inv, att = model.frequencies()
    assert np.all(np.isfinite(inv)) and np.all(inv > 0) and att == pytest.approx(0.1 * math.log(4) + 1)
    mpmath.mp.dps = 50
    exact = 8 * mpmath.log(mpmath.mpf(16) / (mpmath.mpf("1e-308") * 2 * mpmath.pi)) / (2 * mpmath.log(10000))
    low, _high = yarn_correction_range(8, 1e4, RopeScaling("yarn", 4.0, 16, beta_fast=1e-308, truncate=False))
    assert low == pytest.approx(float(exact), rel=1e-12)


def test_yarn_factor_null_is_derived_as_transformers_does():
    config = {**ROPE, "max_position_embeddings": 64,
              "rope_scaling": {"rope_type": "yarn", "factor": None, "original_max_position_embeddings": 16}}
    assert parse_config(config).scaling.factor == 4.0  # max_position_embeddings / L_orig


# -- the three entry points ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(REFUSED))
def test_data_rope_frequencies_refuses_in_one_line(name, tmp_path, capsys):
    config, words = REFUSED[name]
    (tmp_path / "c.json").write_text(json.dumps(config))
    out = tmp_path / "f.json"
    rc, err = run_cli(["data", "rope-frequencies", "--config", str(tmp_path / "c.json"), "--out", str(out)], capsys)
    assert rc == 2 and words in _one_line(err) and not out.exists()


def test_data_rope_frequencies_computes_the_tiny_beta(tmp_path, capsys):
    (tmp_path / "c.json").write_text(json.dumps(YARN_TINY_BETA))
    out = tmp_path / "f.json"
    rc, err = run_cli(["data", "rope-frequencies", "--config", str(tmp_path / "c.json"), "--out", str(out)], capsys)
    assert rc == 0, err
    want = parse_config(YARN_TINY_BETA).frequencies()[0]
    np.testing.assert_array_equal(json.loads(out.read_text())["inv_freq"], want)


@pytest.mark.parametrize("name", list(REFUSED))
def test_app_config_flag_refuses_in_one_line(name, tmp_path, capsys):
    config, words = REFUSED[name]
    (tmp_path / "c.json").write_text(json.dumps(config))
    rc, err = run_cli(["--config", str(tmp_path / "c.json")], capsys)
    assert rc == 2 and words in _one_line(err)


@pytest.mark.parametrize("name", list(REFUSED))
def test_export_preset_refuses_in_one_line(name, tmp_path, capsys):
    config, words = REFUSED[name]
    preset = {"version": 1, "panels": {"schemes": {"model": json.dumps(config), "view": "model"}}}
    (tmp_path / "p.json").write_text(json.dumps(preset))
    out = tmp_path / "o.png"
    rc, err = run_cli(["export", "--panel", "schemes", "--preset", str(tmp_path / "p.json"), "--out", str(out)], capsys)
    assert rc == 2 and words in _one_line(err) and not out.exists()
