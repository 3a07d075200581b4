"""Parameter objects: validation, clamping, JSON round-trips, --set parsing (no Qt)."""

import json

import pytest

from explorer.state import (
    AppState,
    SchemesState,
    StateError,
    SwapState,
    WavesState,
    from_dict,
    to_dict,
    with_value,
)


def test_defaults_are_valid_and_round_trip():
    s = AppState()
    assert AppState.from_json(s.to_json()) == s
    assert json.loads(s.to_json())["version"] == 2


@pytest.mark.parametrize("cls,changes", [
    (WavesState, dict(d_model=3)),
    (WavesState, dict(n_positions=0)),
    (WavesState, dict(n_positions=200000)),
    (WavesState, dict(base=5.0)),
    (WavesState, dict(base=float("nan"))),
    (WavesState, dict(variant="vaswani")),
    (WavesState, dict(position=300)),  # >= N
    (SwapState, dict(sentence="   ")),
    (SwapState, dict(swap_j=5)),
    (SwapState, dict(alpha=4.0)),
    (SwapState, dict(d_model=18, heads=4)),
    (SchemesState, dict(l_train=100, l_eval=1601)),
    (SchemesState, dict(factor=0.5)),
    (SchemesState, dict(scaling="rope2")),
])
def test_bad_values_raise_state_error(cls, changes):
    with pytest.raises(StateError):
        cls(**changes)


def test_clamped_pulls_dependents_into_range():
    s = WavesState(n_positions=256, position=200, pairs=(0, 60))
    t = s.clamped(n_positions=100, d_model=64)
    assert t.position == 99 and max(t.pairs) <= 31
    sw = SwapState(sentence="a b c d", swap_i=0, swap_j=3).clamped(sentence="x y")
    assert sw.swap_j == 1 and sw.swap_i == 0


def test_from_dict_is_all_or_nothing():
    with pytest.raises(StateError, match="unknown parameter"):
        from_dict(WavesState, {"base": 500000, "bogus": 1})
    with pytest.raises(StateError, match="whole number"):
        from_dict(WavesState, {"d_model": "64"})
    with pytest.raises(StateError, match="true or false"):
        from_dict(SwapState, {"causal": "yes"})
    assert from_dict(WavesState, {"base": 500000}).base == 500000.0
    assert to_dict(WavesState())["pairs"] == [0, 1, 4, 16]


def test_with_value_parses_text_and_lists_valid_values():
    assert with_value(WavesState(), "base", "500000").base == 500000.0
    assert with_value(SchemesState(), "scaling", "ntk").scaling == "ntk"
    assert with_value(SwapState(), "causal", "true").causal is True
    assert with_value(WavesState(), "pairs", "0,2,5").pairs == (0, 2, 5)
    with pytest.raises(StateError, match="valid: n_positions"):
        with_value(WavesState(), "bse", "1")
    with pytest.raises(StateError, match="one of linear"):
        with_value(SchemesState(), "scaling", "nope")
    with pytest.raises(StateError, match=r"d_model: int in \[2, 4096\] \(even\)"):
        with_value(WavesState(), "d_model", "abc")


@pytest.mark.parametrize("text,msg", [
    ("{", "not valid JSON"),
    ("[]", "expected a JSON object"),
    ('{"version": 99, "panels": {}}', "unsupported state version"),
    ('{"panels": {}}', "unsupported state version"),
    ('{"version": 1, "panels": {"wave": {}}}', "unknown panel"),
    ('{"version": 1, "panels": {"waves": {"d_model": 7}}}', "waves: d_model must be even"),
    ('{"version": 1, "panels": {"waves": {"base": 1e400}}}', "finite"),
])
def test_malformed_state_files(text, msg):
    with pytest.raises(StateError, match=msg):
        AppState.from_json(text)
