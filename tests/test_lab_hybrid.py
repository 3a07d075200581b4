"""The Lab's scheme settings (issue 19): which layers of the RoPE/NoPE hybrid rotate, and the layer count.

A scheme declares its Lab-settable parameters (``Scheme.lab_parameters``); the Lab state, the run config,
the results file, the panel and ``pe-explorer lab --scheme-param`` carry them.  The test ids are read from
the registry where they can be: the hybrid is the scheme whose Lab module drops RoPE per layer.
"""

from __future__ import annotations

import json

import pytest

from explorer import cli
from explorer import schemes as registry
from explorer.lab import LabConfig, LabError, LabResult, run_experiment
from explorer.state import StateError
from explorer.state.base import from_dict, to_dict
from explorer.state.lab import LabState

SETTABLE = [(s, q) for s in registry.lab_ids() for q in registry.get(s).lab_parameters]
HYBRID = "rope_nope"
TINY = dict(train_len=8, eval_lens=(8, 16), steps=4, d_model=16, heads=2, batch=4, eval_batch=4, device="cpu")


def test_the_hybrid_declares_its_interval_and_no_other_scheme_changes():
    assert [(s, q.name) for s, q in SETTABLE] == [(HYBRID, "nope_every")]
    assert registry.get(HYBRID).lab_parameters[0].default == 2  # the Lab's old, fixed pattern
    assert registry.get(HYBRID).record()["lab_parameters"] == ["nope_every"]  # pe-explorer schemes --json
    assert LabConfig(schemes=("rope", "alibi")).scheme_params == ()
    assert LabConfig(schemes=(HYBRID,)).scheme_params == ((HYBRID, "nope_every", 2),)


def _rotations(model, n=6):
    """Which blocks of ``model`` got rotary tables in a forward pass (a pre-hook on each block)."""
    import torch

    seen: list[bool] = []
    hooks = [b.register_forward_pre_hook(lambda _m, args: seen.append(args[1] is not None)) for b in model.blocks]
    with torch.no_grad():
        model(torch.zeros((1, n), dtype=torch.long))
    for h in hooks:
        h.remove()
    return seen


@pytest.mark.parametrize("layers, k, want", [
    (2, None, [True, False]),  # the default: RoPE in layer 1, none in layer 2 (as before)
    (4, 4, [True, True, True, False]),  # Llama 4 / SmolLM3: NoPE every 4th layer
    (4, 2, [True, False, True, False]),
    (3, 1, [False, False, False]),  # every layer NoPE
    (3, 5, [True, True, True]),  # k past the layers: RoPE everywhere
])
def test_the_model_rotates_only_in_the_chosen_layers(layers, k, want):
    from explorer.lab.model import TinyTransformer

    params = {} if k is None else {"nope_every": k}
    model = TinyTransformer(HYBRID, vocab=8, d_model=16, heads=2, layers=layers, train_len=8, params=params)
    assert _rotations(model) == want
    rope = TinyTransformer("rope", vocab=8, d_model=16, heads=2, layers=layers, train_len=8)
    assert _rotations(rope) == [True] * layers


def test_a_run_trains_the_pattern_it_was_given_and_its_file_says_so(monkeypatch):
    import explorer.lab.model as model_mod

    built = []

    class Recording(model_mod.TinyTransformer):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            built.append(self)

    monkeypatch.setattr(model_mod, "TinyTransformer", Recording)
    cfg = LabConfig(schemes=(HYBRID,), layers=4, scheme_params={HYBRID: {"nope_every": 4}}, **TINY)
    res = run_experiment(cfg)
    assert [_rotations(m) for m in built] == [[True, True, True, False]]  # the trained model itself
    d = json.loads(res.to_json())
    assert d["config"]["layers"] == 4
    assert d["config"]["scheme_params"] == {HYBRID: {"nope_every": 4}}
    assert d["schemes"][0]["setting"] == "RoPE in layers 1, 2, 3; NoPE in layer 4 (of 4; NoPE every 4th layer)"
    back = LabResult.from_json(res.to_json())
    assert back.config == cfg and back.config.setting(HYBRID).startswith("RoPE in layers 1, 2, 3;")


def test_default_settings_change_nothing_and_other_schemes_carry_none():
    plain = run_experiment(LabConfig(schemes=(HYBRID, "rope"), **TINY))
    explicit = run_experiment(LabConfig(schemes=(HYBRID, "rope"), scheme_params={HYBRID: {"nope_every": 2}}, **TINY))
    assert [s.losses for s in plain.schemes] == [s.losses for s in explicit.schemes]
    other = run_experiment(LabConfig(schemes=(HYBRID, "rope"), scheme_params={HYBRID: {"nope_every": 1}}, **TINY))
    assert other.scheme("rope").losses == plain.scheme("rope").losses  # RoPE's run is untouched by the hybrid's k
    assert other.scheme(HYBRID).losses != plain.scheme(HYBRID).losses
    d = {s["scheme"]: s for s in json.loads(plain.to_json())["schemes"]}
    assert "setting" not in d["rope"] and d[HYBRID]["setting"].startswith("RoPE in layer 1; NoPE in layer 2 (of 2")
    assert plain.config.to_dict()["scheme_params"] == {HYBRID: {"nope_every": 2}}


@pytest.mark.parametrize("bad, why", [
    ({"nosuch": {"k": 1}}, "unknown scheme"),
    ({HYBRID: {"layer": 1}}, "no Lab setting 'layer'"),  # a Schemes-panel parameter, not a Lab one
    ({HYBRID: {"nope_every": 0}}, "must be 1 … 64"),
    ({HYBRID: {"nope_every": 2.5}}, "whole number"),
    ({HYBRID: {"nope_every": True}}, "must be a number"),
    ({HYBRID: {"nope_every": 10**400}}, "401 digits"),
    ({HYBRID: 4}, "must map each scheme"),
    ("text", "must map each scheme"),
])
def test_bad_settings_are_refused_in_one_line(bad, why):
    with pytest.raises(LabError, match=why) as info:
        LabConfig(schemes=(HYBRID,), scheme_params=bad)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200


def test_the_state_carries_layers_and_settings_and_old_states_load():
    st = LabState(layers=4).with_scheme_param(HYBRID, "nope_every", 4)
    assert st.params_of(HYBRID) == {"nope_every": 4}
    saved = to_dict(st)
    assert saved["layers"] == 4 and saved["scheme_params"] == {HYBRID: {"nope_every": 4}}
    assert from_dict(LabState, json.loads(json.dumps(saved))) == st
    old = {k: v for k, v in to_dict(LabState()).items() if k not in ("layers", "scheme_params")}
    assert from_dict(LabState, old) == LabState()  # a file from before: 2 layers, the default pattern
    cfg = LabConfig.from_state(st.clamped(**{f"scheme_{HYBRID}": True}))
    assert cfg.layers == 4 and cfg.params_of(HYBRID) == {"nope_every": 4}
    assert LabConfig.from_state(st).scheme_params == ()  # the hybrid not ticked: nothing to carry
    for bad in ({HYBRID: {"nope_every": 65}}, {HYBRID: {"layer": 1}}, {"nosuch": {"k": 1}}):
        with pytest.raises(StateError):
            LabState(scheme_params=bad)
    with pytest.raises(StateError):
        LabState(layers=9)


def _cli(args, capsys):
    try:
        rc = cli.main(["lab", *args])
    except SystemExit as exc:
        rc = exc.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_trains_the_chosen_layers_and_prints_them(capsys, tmp_path):
    out = tmp_path / "r.json"
    rc, text, err = _cli(["--schemes", f"rope,{HYBRID}", "--layers", "4", "--scheme-param",
                          f"{HYBRID}.nope_every=4", "--train-len", "8", "--eval-lens", "8,16", "--steps", "10",
                          "--quiet", "--device", "cpu", "--out", str(out)], capsys)
    assert rc == 0, err
    assert "RoPE in layers 1, 2, 3; NoPE in layer 4" in text
    res = LabResult.from_file(out)
    assert res.config.layers == 4 and res.config.params_of(HYBRID) == {"nope_every": 4}


@pytest.mark.parametrize("args, why", [
    (["--scheme-param", f"{HYBRID}.nope_every=0"], "between 1 and 64"),
    (["--scheme-param", f"{HYBRID}.nope_every=two"], "whole number"),
    (["--scheme-param", f"{HYBRID}.nope_every=" + "9" * 400], "400-digit"),
    (["--scheme-param", f"{HYBRID}.layer=1"], "no Lab setting"),
    (["--scheme-param", "nosuch.k=1"], "no Lab setting"),
    (["--scheme-param", "nope_every=4"], "SCHEME.NAME=VALUE"),
    (["--schemes", "rope", "--scheme-param", f"{HYBRID}.nope_every=4"], "does not train"),
    (["--layers", "0"], "--layers"),
    (["--layers", "9"], "--layers"),
])
def test_cli_refuses_bad_settings_in_one_line(args, why, capsys):
    rc, _out, err = _cli(["--steps", "10", *args], capsys)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and why in err, err

