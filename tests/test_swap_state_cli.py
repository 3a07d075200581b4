"""Token-swap state (limits, clamping) and `pe-explorer data swap` (JSON fields, every error path)."""

import json

import numpy as np
import pytest

from explorer import cli, jobs
from explorer.jobs.swap import SwapRequest
from explorer.state import StateError, SwapState, from_dict, to_dict
from explorer.state.swap import valid_d_model


# -- state --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw,msg", [
    (dict(sentence=""), "at least one word"),
    (dict(sentence=" ".join(["w"] * 65)), "at most 64"),
    (dict(swap_i=1, swap_j=1), "two different"),
    (dict(swap_j=3), "below the number of tokens"),
    (dict(query=3), "below the number of tokens"),
    (dict(d_model=2), "at least 4"),
    (dict(d_model=258), "at most 256"),
    (dict(d_model=12, heads=4), "divisible by 2 × heads"),
    (dict(heads=2, head=2), "below the number of heads"),
    (dict(alpha=3.5), "at most 3"),
    (dict(scheme="no_such_scheme"), "one of"),
])
def test_state_refuses_bad_values(kw, msg):
    with pytest.raises(StateError, match=msg):
        SwapState(**kw)


def test_one_word_sentence_is_valid_with_nothing_to_swap():
    st = SwapState(sentence="hello", swap_i=0, swap_j=0)
    assert st.swapped_tokens == ["hello"]


@pytest.mark.parametrize("d,heads,expected", [
    (16, 1, 16), (17, 1, 18), (18, 4, 16), (20, 4, 24), (4, 3, 6), (256, 3, 252), (255, 7, 252), (2, 1, 4),
])
def test_valid_d_model_snaps_to_a_multiple_of_twice_the_heads(d, heads, expected):
    assert valid_d_model(d, heads) == expected
    SwapState(d_model=expected, heads=heads)  # and it is accepted


def test_clamped_keeps_everything_valid():
    st = SwapState(sentence="a b c d e", swap_i=1, swap_j=4, query=4, heads=4, d_model=32, head=3)
    st2 = st.clamped(sentence="x y", heads=3)
    assert (st2.swap_i, st2.swap_j, st2.query) == (1, 0, 1)
    assert st2.d_model == 30 and st2.head == 2
    assert st.clamped(swap_i=4).swap_j != 4
    with pytest.raises(StateError):
        st.clamped(sentence="   ")


def test_swapped_tokens_and_json_round_trip():
    st = SwapState(sentence="dog bites man", swap_i=0, swap_j=2, heads=2, head=1, causal=True)
    assert st.swapped_tokens == ["man", "bites", "dog"]
    assert from_dict(SwapState, json.loads(json.dumps(to_dict(st)))) == st
    # Older files without the new "head" field still load.
    old = {k: v for k, v in to_dict(SwapState()).items() if k != "head"}
    assert from_dict(SwapState, old).head == 0


# -- CLI ------------------------------------------------------------------------------------------------
def run(args, capsys):
    rc = cli.main(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_writes_every_field(tmp_path, capsys):
    f = tmp_path / "swap.json"
    rc, _, err = run(["data", "swap", "--sentence", "dog bites man", "--swap", "0", "2", "--scheme", "rope",
                      "--causal", "--d-model", "8", "--seed", "3", "--out", str(f)], capsys)
    assert rc == 0, err
    doc = json.loads(f.read_text())
    assert doc["tokens_before"] == ["dog", "bites", "man"]
    assert doc["tokens_after"] == ["man", "bites", "dog"]
    w_b, w_a = np.array(doc["weights_before"]), np.array(doc["weights_after"])
    o_b, o_a = np.array(doc["outputs_before"]), np.array(doc["outputs_after"])
    assert w_b.shape == w_a.shape == (1, 3, 3) and o_b.shape == o_a.shape == (3, 8)
    perm = doc["permutation"]
    assert perm == [2, 1, 0]
    # max_relabel_error is exactly the documented maximum over tokens and components.
    assert doc["max_relabel_error"] == np.abs(o_a[perm] - o_b).max()
    assert doc["max_relabel_error"] > 1e-3 and doc["equivariant"] is False
    # And the numbers are those of the job.
    r = jobs.run(SwapRequest(SwapState(sentence="dog bites man", swap_i=0, swap_j=2, scheme="rope",
                                       causal=True, d_model=8, seed=3)))
    np.testing.assert_array_equal(w_b, r.before.weights)
    np.testing.assert_array_equal(o_a, r.after.outputs)
    assert doc["headline"] == r.headline and doc["verdict"] == "order-visible"
    np.testing.assert_allclose(doc["row_sums_before"], 1.0, atol=1e-12)


def test_cli_nope_is_equivariant(tmp_path, capsys):
    f = tmp_path / "swap.json"
    rc, _, err = run(["data", "swap", "--sentence", "the cat sat on the mat", "--swap", "1", "5",
                      "--out", str(f)], capsys)
    assert rc == 0, err
    doc = json.loads(f.read_text())
    assert doc["max_relabel_error"] < 1e-9 and doc["equivariant"] is True
    assert doc["scheme"] == "nope" and doc["causal"] is False and doc["d_model"] == 16 and doc["seed"] == 0


def test_cli_mask_after_softmax_rows(tmp_path, capsys):
    f = tmp_path / "late.json"
    rc, _, err = run(["data", "swap", "--sentence", "a b c d", "--swap", "0", "3", "--causal",
                      "--mask-after-softmax", "--out", str(f)], capsys)
    assert rc == 0, err
    sums = np.array(json.loads(f.read_text())["row_sums_before"])
    assert np.all(sums[0, :-1] < 1) and sums[0, -1] == pytest.approx(1.0)


BAD = [
    (["--sentence", "", "--swap", "0", "1"], "empty"),
    (["--sentence", "   ", "--swap", "0", "1"], "empty"),
    (["--sentence", "a b", "--swap", "0", "2"], "--swap J = 2 is out of range"),
    (["--sentence", "a b", "--swap", "5", "1"], "--swap I = 5 is out of range"),
    (["--sentence", "a b", "--swap", "-1", "1"], "out of range"),
    (["--sentence", "a b", "--swap", "1", "1"], "two different"),
    (["--sentence", "a", "--swap", "0", "0"], "two different"),
    (["--sentence", " ".join(["w"] * 65), "--swap", "0", "1"], "at most 64"),
    (["--sentence", "a b", "--swap", "0", "1", "--d-model", "2"], "d_model must be at least 4"),
    (["--sentence", "a b", "--swap", "0", "1", "--d-model", "300"], "d_model must be at most 256"),
    (["--sentence", "a b", "--swap", "0", "1", "--d-model", "12", "--heads", "4"], "divisible"),
    (["--sentence", "a b", "--swap", "0", "1", "--alpha", "4"], "alpha must be at most 3"),
    (["--sentence", "a b", "--swap", "0", "1", "--seed", "-1"], "seed must be at least 0"),
    (["--sentence", "a b", "--swap", "0", "1", "--mask-after-softmax"], "--causal"),
    (["--sentence", "a b", "--swap", "0", "1", "--scheme", "no_such_scheme"], "invalid choice"),
    (["--sentence", "a b", "--swap", "0"], "expected 2 arguments"),
    (["--sentence", "a b", "--swap", "0", "x"], "must be a whole number"),
    (["--swap", "0", "1"], "--sentence"),
]


@pytest.mark.parametrize("args,msg", BAD)
def test_cli_bad_arguments_exit_2_with_one_line_and_no_file(tmp_path, capsys, args, msg):
    out = tmp_path / "swap.json"
    try:
        rc = cli.main(["data", "swap", *args, "--out", str(out)])
    except SystemExit as exc:  # argparse's own errors
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert msg in lines[0]
    assert "Traceback" not in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_cli_output_must_be_json_and_writable(tmp_path, capsys):
    rc, _, err = run(["data", "swap", "--sentence", "a b", "--swap", "0", "1",
                      "--out", str(tmp_path / "s.npy")], capsys)
    assert rc == 2 and ".json" in err and len(err.strip().splitlines()) == 1
    rc, _, err = run(["data", "swap", "--sentence", "a b", "--swap", "0", "1",
                      "--out", str(tmp_path / "missing" / "s.json")], capsys)
    assert rc == 2 and "does not exist" in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
