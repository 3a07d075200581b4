"""The token-swap experiment (no Qt): the equivariance identity, how each scheme and the causal mask
break it, row sums in both masking orders, deterministic embeddings, and the verdict texts."""

import dataclasses
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from explorer import jobs
from explorer.encodings import apply_rope, sinusoidal
from explorer.encodings.learned import LearnedTable
from explorer.jobs.swap import (
    EQUIVARIANCE_TOL,
    SwapRequest,
    embed,
    forward,
    keeps_distances,
    projections,
    swap_permutation,
    swapped,
    token_embedding,
)
from explorer.schemes.alibi import alibi_bias, alibi_slopes
from explorer.state import SwapState

#: "Large": a million times the rounding tolerance, and far above float64 noise (~1e-16).
LARGE = 1e-3
SCHEMES = ("sinusoidal", "learned", "rope", "alibi")


def run(**kw):
    return jobs.run(SwapRequest(SwapState(**kw)))


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# -- embeddings and set-up ------------------------------------------------------------------------
def test_same_word_same_vector_everywhere():
    a = token_embedding("dog", 32)
    np.testing.assert_array_equal(a, token_embedding("dog", 32))
    e = embed(["dog", "bites", "dog"], 32)
    np.testing.assert_array_equal(e[0], e[2])
    np.testing.assert_array_equal(e[0], a)
    assert not np.allclose(e[0], e[1])
    # Another sentence, another place: still the same vector.
    np.testing.assert_array_equal(embed(["man", "bites", "dog"], 32)[2], a)


def test_embed_keeps_each_word_once_and_hands_out_copies():
    from explorer.jobs.swap import _kept_embedding

    first = embed(["the", "cat", "the"], 24)
    hits = _kept_embedding.cache_info().hits
    first[0] += 1.0  # a caller writing into its matrix must not change the next one
    again = embed(["the", "cat"], 24)
    np.testing.assert_array_equal(again, np.stack([token_embedding("the", 24), token_embedding("cat", 24)]))
    assert again.flags.writeable
    assert _kept_embedding.cache_info().hits == hits + 2  # both words made once, by the first call


def test_embedding_depends_on_the_word_only():
    vecs = {w: token_embedding(w, 16) for w in ("dog", "Dog", "dogs", "man", "ü")}
    for w1 in vecs:
        for w2 in vecs:
            if w1 != w2:
                assert not np.allclose(vecs[w1], vecs[w2])
    # N(0, 1) entries: mean near 0, spread near 1 over a long vector.
    big = token_embedding("statistics", 20000)
    assert abs(big.mean()) < 0.05 and abs(big.std() - 1) < 0.05


def test_projections_are_seeded_and_scaled():
    a, b = projections(64, 3), projections(64, 3)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
        assert not x.flags.writeable  # kept for the next step: no caller may write into them
    assert not np.allclose(projections(64, 4)[0], a[0])
    assert not np.allclose(a[0], a[1])
    # N(0, 1/d): variance of the entries ≈ 1/d.
    assert np.var(np.concatenate([w.ravel() for w in a])) == pytest.approx(1 / 64, rel=0.1)


def test_swap_permutation_moves_each_token_to_its_new_place():
    tokens = ["a", "b", "c", "d", "e"]
    after = swapped(tokens, 1, 3)
    assert after == ["a", "d", "c", "b", "e"] and tokens == ["a", "b", "c", "d", "e"]
    perm = swap_permutation(5, 1, 3)
    assert [after[perm[t]] for t in range(5)] == tokens


@pytest.mark.parametrize("n,i,j,keeps", [
    (2, 0, 1, True),   # two tokens: the swap is the mirror
    (3, 0, 2, True),   # ends of three: the mirror
    (3, 0, 1, False),
    (4, 0, 3, False),  # ends of four: |0−1| becomes |3−1|
    (5, 1, 3, False),
])
def test_keeps_distances(n, i, j, keeps):
    assert keeps_distances(swap_permutation(n, i, j)) is keeps
    assert keeps_distances(np.arange(n))


# -- the identity -----------------------------------------------------------------------------------
@pytest.mark.parametrize("sentence,i,j,d,heads,seed", [
    ("dog bites man", 0, 2, 16, 1, 0),
    ("dog bites man", 0, 1, 16, 1, 0),
    ("the quick brown fox jumps over the lazy dog", 2, 7, 32, 4, 11),
    ("a b c d e f g h i j k l", 0, 11, 8, 2, 123),
])
def test_nope_without_mask_is_permutation_equivariant(sentence, i, j, d, heads, seed):
    r = run(sentence=sentence, swap_i=i, swap_j=j, d_model=d, heads=heads, seed=seed)
    assert r.max_relabel_error < EQUIVARIANCE_TOL
    assert r.equivariant and r.verdict == "equivariant"
    # The attention map is the old one with rows and columns relabelled, too.
    np.testing.assert_allclose(r.weights_after_relabelled, r.before.weights, atol=1e-12, rtol=0)
    assert r.max_weight_error < 1e-12
    assert "permutation-equivariant" in r.headline and f"{r.max_relabel_error:.1e}" in r.headline


@settings(max_examples=25, deadline=None)
@given(words=hs.lists(hs.sampled_from(["dog", "bites", "man", "cat", "sees", "a", "big", "the"]),
                      min_size=2, max_size=12),
       data=hs.data(),
       heads=hs.sampled_from([1, 2, 4]),
       seed=hs.integers(0, 2**31 - 1))
def test_equivariance_property(words, data, heads, seed):
    n = len(words)
    i = data.draw(hs.integers(0, n - 1))
    j = data.draw(hs.integers(0, n - 1).filter(lambda v: v != i))
    r = run(sentence=" ".join(words), swap_i=i, swap_j=j, d_model=8 * heads, heads=heads, seed=seed)
    assert r.max_relabel_error < EQUIVARIANCE_TOL


def test_relabel_error_is_the_documented_maximum():
    r = run(scheme="rope", sentence="one two three four", swap_i=0, swap_j=3)
    perm = r.permutation
    manual = max(abs(r.after.outputs[perm[t], c] - r.before.outputs[t, c])
                 for t in range(4) for c in range(16))
    assert r.max_relabel_error == pytest.approx(manual, rel=0, abs=0)
    np.testing.assert_array_equal(r.difference, r.after.outputs[perm] - r.before.outputs)


# -- and its breaking ---------------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("sentence,i,j", [
    ("dog bites man", 0, 1),
    ("dog bites the man", 0, 3),
    ("the quick brown fox jumps", 1, 3),
])
def test_every_scheme_sees_a_swap_that_changes_distances(scheme, sentence, i, j):
    r = run(scheme=scheme, sentence=sentence, swap_i=i, swap_j=j, heads=4, d_model=32)
    assert not r.keeps_distances
    assert r.max_relabel_error > LARGE
    assert r.verdict == "order-visible" and not r.equivariant
    assert f"{r.max_relabel_error:.3g}" in r.headline


@pytest.mark.parametrize("scheme", ("sinusoidal", "learned", "rope"))
def test_absolute_and_rotary_schemes_see_even_the_mirror_swap(scheme):
    r = run(scheme=scheme, sentence="dog bites man", swap_i=0, swap_j=2)
    assert r.keeps_distances and r.max_relabel_error > LARGE


def test_symmetric_alibi_cannot_see_a_mirror_swap_but_causal_alibi_can():
    r = run(scheme="alibi", sentence="dog bites man", swap_i=0, swap_j=2, heads=8, d_model=32)
    assert r.keeps_distances and r.max_relabel_error < EQUIVARIANCE_TOL
    assert r.verdict == "equivariant" and "mirrors" in r.headline
    r = run(scheme="alibi", sentence="dog bites man", swap_i=0, swap_j=2, heads=8, d_model=32, causal=True)
    assert r.max_relabel_error > LARGE


def test_single_head_alibi_is_visible_but_gentle():
    # One head gets slope 1/256: clearly above rounding, and the text says why it is small.
    r = run(scheme="alibi", sentence="dog bites man", swap_i=0, swap_j=1)
    assert 1e3 * EQUIVARIANCE_TOL < r.max_relabel_error < 0.05 * r.output_rms
    assert "1/256" in r.explanation and "barely" in r.headline


@pytest.mark.parametrize("i,j", [(0, 1), (0, 3), (1, 2), (2, 3)])
def test_causal_mask_breaks_equivariance_even_without_positions(i, j):
    r = run(sentence="dog bites the man", swap_i=i, swap_j=j, causal=True)
    assert r.max_relabel_error > LARGE
    assert r.verdict == "order-visible"
    assert "Haviv et al. 2022" in r.explanation and "Kazemnejad et al. 2023" in r.explanation


def test_causal_swap_leaves_tokens_outside_the_swap_alone():
    # Tokens before I see the same prefix, and tokens after J see the same set: their outputs keep.
    r = run(sentence="a b c d e f", swap_i=1, swap_j=4, causal=True, seed=5)
    d = np.abs(r.difference).max(axis=1)
    assert d[0] < EQUIVARIANCE_TOL and d[5] < EQUIVARIANCE_TOL
    assert d[1:5].max() > LARGE


@pytest.mark.parametrize("scheme", ("sinusoidal", "learned"))
def test_alpha_zero_switches_the_added_scheme_off(scheme):
    r = run(scheme=scheme, alpha=0.0, sentence="dog bites man", swap_i=0, swap_j=1)
    assert r.max_relabel_error < EQUIVARIANCE_TOL
    assert "α = 0" in r.headline


def test_larger_alpha_shows_order_more():
    errs = [run(scheme="sinusoidal", alpha=a, swap_i=0, swap_j=1).max_relabel_error for a in (0.01, 0.1, 1.0)]
    assert errs[0] < errs[1] < errs[2]
    assert errs[0] > 1e3 * EQUIVARIANCE_TOL


# -- row sums in both masking orders ------------------------------------------------------------------
@pytest.mark.parametrize("scheme", ("nope",) + SCHEMES)
@pytest.mark.parametrize("causal", (False, True))
def test_rows_sum_to_one_when_masking_before_the_softmax(scheme, causal):
    r = run(scheme=scheme, causal=causal, sentence="one two three four five", swap_i=0, swap_j=4, heads=2)
    for run_ in (r.before, r.after):
        np.testing.assert_allclose(run_.row_sums, 1.0, rtol=0, atol=1e-12)
        np.testing.assert_allclose(run_.weights.sum(-1), run_.row_sums, rtol=0, atol=0)
        if causal:
            assert np.all(np.triu(run_.weights, 1) == 0)


@pytest.mark.parametrize("scheme", ("nope",) + SCHEMES)
def test_rows_do_not_sum_to_one_when_masking_after_the_softmax(scheme):
    st = SwapState(scheme=scheme, causal=True, mask_after_softmax=True, sentence="one two three four five",
                   swap_i=0, swap_j=4, heads=2)
    late = forward(st.tokens, st)
    full = forward(st.tokens, dataclasses.replace(st, causal=False, mask_after_softmax=False))
    # Softmax over every key, then the future zeroed: row i keeps the weights of keys j ≤ i.
    np.testing.assert_allclose(late.row_sums, np.tril(full.weights).sum(-1), rtol=0, atol=1e-12)
    assert np.all(late.row_sums[:, :-1] < 1 - 1e-6)
    np.testing.assert_allclose(late.row_sums[:, -1], 1.0, atol=1e-12)
    r = jobs.run(SwapRequest(st))
    assert r.min_row_sum == pytest.approx(min(r.before.row_sums.min(), r.after.row_sums.min()))
    assert "sum to less than 1" in r.explanation and f"{r.min_row_sum:.3f}" in r.explanation


# -- the forward pass against an independent reference ------------------------------------------------
@pytest.mark.parametrize("scheme", ("nope",) + SCHEMES)
@pytest.mark.parametrize("causal", (False, True))
def test_forward_matches_a_plain_numpy_reference(scheme, causal):
    st = SwapState(scheme=scheme, causal=causal, sentence="dog bites the man", swap_i=0, swap_j=3,
                   d_model=12, heads=3, alpha=0.7, seed=9)
    n, d, h = 4, 12, 3
    dh = d // h
    x = np.stack([token_embedding(w, d) for w in st.tokens])
    if scheme == "sinusoidal":
        x = x + 0.7 * sinusoidal(n, d)
    elif scheme == "learned":
        x = x + 0.7 * LearnedTable(64, d, 9).lookup(n)
    wq, wk, wv = projections(d, 9)
    q, k, v = x @ wq, x @ wk, x @ wv
    out = np.zeros((n, d))
    slopes = alibi_slopes(h)
    for a in range(h):
        cols = slice(a * dh, (a + 1) * dh)
        qa, ka = q[:, cols], k[:, cols]
        if scheme == "rope":
            qa, ka = apply_rope(qa), apply_rope(ka)
        s = qa @ ka.T / np.sqrt(dh)
        if scheme == "alibi":
            # The causal ALiBi bias carries −inf above the diagonal: it is the mask as well.
            s = s + alibi_bias(h, n, "causal" if causal else "symmetric")[a]
            if not causal:
                np.testing.assert_allclose(alibi_bias(h, n, "symmetric")[a],
                                           -slopes[a] * np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]))
        elif causal:
            s = s + np.where(np.triu(np.ones((n, n)), 1) > 0, -np.inf, 0.0)
        w = softmax(s)
        np.testing.assert_allclose(forward(st.tokens, st).weights[a], w, rtol=1e-12, atol=1e-14)
        out[:, cols] = w @ v[:, cols]
    np.testing.assert_allclose(forward(st.tokens, st).outputs, out, rtol=1e-11, atol=1e-13)


# -- verdict texts -----------------------------------------------------------------------------------
def test_swapping_identical_words_is_reported_not_celebrated():
    r = run(sentence="the cat saw the dog", swap_i=0, swap_j=3)
    assert r.verdict == "no-swap" and r.max_relabel_error == 0.0
    assert "the" in r.headline and "changes nothing" in r.headline


def test_one_word_has_nothing_to_swap():
    r = run(sentence="hello", swap_i=0, swap_j=0, query=0)
    assert r.verdict == "no-swap" and "nothing to swap" in r.headline


def test_equivariance_headline_shows_the_measured_number():
    r = run()
    assert r.headline.startswith("Attention is permutation-equivariant — order is invisible")
    assert "“dog bites man” and “man bites dog” look the same" in r.explanation
    assert f"{r.max_relabel_error:.1e}" in r.headline


def test_explanation_names_the_scheme_mechanism():
    assert "rotates" in run(scheme="rope").explanation
    assert "PE(position)" in run(scheme="sinusoidal").explanation
    assert "learned row" in run(scheme="learned").explanation
    assert "−m·|i−j|" in run(scheme="alibi", swap_j=1).explanation


def test_the_moved_back_arrays_are_made_where_read_not_sent_from_the_compute_process():
    """A reply carries ``after`` and the permutation; the moved-back arrays and the difference are made from them
    on the receiving side (a third of a 64-token reply's bytes, pickled and copied at every drag step)."""
    from multiprocessing.reduction import ForkingPickler

    st = SwapState(sentence="the dog saw the cat near the old red barn", swap_i=1, swap_j=8, scheme="sinusoidal",
                   d_model=16, heads=2)
    r = jobs.run(SwapRequest(st))
    derived = {"weights_after_relabelled", "outputs_after_relabelled", "difference"}
    assert not derived & set(vars(r))  # none made by the job
    got = pickle.loads(ForkingPickler.dumps(r))
    perm = got.permutation
    np.testing.assert_array_equal(got.weights_after_relabelled, got.after.weights[:, perm][:, :, perm])
    np.testing.assert_array_equal(got.outputs_after_relabelled, got.after.outputs[perm])
    np.testing.assert_array_equal(got.difference, got.after.outputs[perm] - got.before.outputs)
    assert np.abs(got.difference).max() == got.max_relabel_error
    assert np.abs(got.weights_after_relabelled - got.before.weights).max() == got.max_weight_error


def test_the_tables_a_drag_step_uses_again_are_kept_read_only_and_exact():
    from explorer.jobs.swap import _kept_matrix
    from explorer.schemes.sinusoidal import _swap_table

    words = ("dog", "bites", "man", "dog")
    e = _kept_matrix(words, 24)
    np.testing.assert_array_equal(e, embed(list(words), 24))
    assert _kept_matrix(words, 24) is e and not e.flags.writeable
    t = _swap_table(7, 16)
    np.testing.assert_array_equal(t, sinusoidal(7, 16))
    assert _swap_table(7, 16) is t and not t.flags.writeable
    with pytest.raises(ValueError):
        t[0, 0] = 1.0  # a caller cannot change what the next step reads
