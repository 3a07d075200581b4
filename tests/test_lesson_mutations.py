"""Every lesson check can fail (issue 29 §2): for each check, a deliberately broken implementation of what it
checks — frequencies reversed, the mask after the softmax, the slopes of the next power of two, a rotation the
wrong way round, a bucket off by one … — makes it fail.  A check that no broken implementation can fail proves
nothing, so every registered check must have an entry here (a new check without one fails the last test).

Each mutation patches our own code (the function the check's panel computes with), never another library.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

from explorer.lessons.checks import CheckError, all_checks, run_check


def _patch(path: str, make):
    """A mutation: replace ``module:attribute`` by ``make(original)``."""
    module_name, attr = path.split(":")

    def apply(monkeypatch):
        module = importlib.import_module(module_name)
        monkeypatch.setattr(module, attr, make(getattr(module, attr)))

    return apply


def _patch_class(module_name: str, cls_name: str, attr: str, make):
    def apply(monkeypatch):
        cls = getattr(importlib.import_module(module_name), cls_name)
        monkeypatch.setattr(cls, attr, make(getattr(cls, attr)))

    return apply


def _reversed_frequencies(orig):
    return lambda d, base=10000.0, variant="paper": orig(d, base, variant)[::-1].copy()


def _t2t_spacing(orig):
    return lambda d, base=10000.0, variant="paper": orig(d, base, "t2t")


def _period_of_8(orig):
    return lambda d, base=10000.0, variant="paper": 2 * np.pi * (np.arange(d // 2) % 4 + 1) / 8.0


def _sin_twice(orig):
    def broken(positions, d, base=10000.0, variant="paper"):
        t = orig(positions, d, base, variant)
        t[:, 1::2] = t[:, 0::2]
        return t
    return broken


def _position_blind(orig):
    def broken(positions, d, base=10000.0, variant="paper"):
        t = orig(positions, d, base, variant)
        return np.repeat(t[:1], len(t), axis=0)
    return broken


def _encode_depends_on_n(orig):
    def broken(kind, positions, n, d, base=10000.0):
        if kind == "sinusoidal":
            return orig(kind, np.asarray(positions, float) * 16.0 / n, n, d, base)
        return orig(kind, positions, n, d, base)
    return broken


def _embed_with_positions(orig):
    return lambda tokens, d: orig(tokens, d) + 0.5 * np.arange(len(tokens))[:, None]


def _attention(**forced):
    def make(orig):
        def broken(q, k, v, *, causal=False, bias=None, mask_after_softmax=False):
            args = {"causal": causal, "bias": bias, "mask_after_softmax": mask_after_softmax}
            args.update({key: (value(args) if callable(value) else value) for key, value in forced.items()})
            return orig(q, k, v, **args)
        return broken
    return make


def _zeros_like_table(orig):
    return lambda *a, **k: np.zeros_like(orig(*a, **k))


def _rotation_backwards(orig):
    return lambda k, omega: orig(k, omega).T


def _squared_positions(orig):
    return lambda x, positions=None, **kw: orig(x, np.arange(len(x), dtype=float) ** 1.5, **kw)


def _theta_off_by_one(orig):
    return lambda d, base=10000.0: base ** (-np.arange(2, d + 2, 2, dtype=np.float64) / d)


def _linear_multiplies(orig):
    def broken(d, base=10000.0, scaling=None):
        theta, att = orig(d, base, scaling)
        return (theta * scaling.factor ** 2, att) if scaling is not None and scaling.kind == "linear" else (theta, att)
    return broken


def _rows_off_by_one(orig):
    def broken(positions, max_positions):
        return orig(positions, max_positions + 1)
    return broken


def _at_training_length(orig):
    return lambda self, length: orig(self, self.lengths[0].length)


def _next_power_of_two_slopes(orig):
    def broken(n):
        p = 1 << (int(n) - 1).bit_length()
        return orig(p)[:n]
    return broken


def _no_config(orig):
    def broken(path):
        from explorer.encodings.errors import EncodingError

        raise EncodingError("no rotary fields")
    return broken


def _bucket_off_by_one(orig):
    def broken(r, bidirectional=True, num_buckets=32, max_distance=128):
        b = orig(r, bidirectional, num_buckets, max_distance)
        return np.minimum(b + (b >= 8), num_buckets - 1)
    return broken


def _kerple_linear(orig):
    def broken(self, n, d_model, heads, seed, causal):
        from explorer.schemes.base import SwapTerms
        from explorer.schemes.kerple import swap_rates

        r1, r2 = swap_rates(heads, seed)
        dist = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
        return SwapTerms(bias=-(r1 * r2)[:, None, None] * dist[None])
    return broken


def _fire_without_progressive(orig):
    def broken(i, j, c, threshold):
        from explorer.schemes.fire import psi

        return psi(np.asarray(i, float) - np.asarray(j, float), c) / psi(threshold, c)
    return broken


def _gamma_half(orig):
    return lambda d: (np.arange(0, int(d), 2, dtype=np.float64) + 0.5 * d) / (1.5 * d)


def _similarity_shifted(orig):
    def broken(table):
        k, mean = orig(table)
        return k, np.roll(mean, -1)
    return broken


def _pca_not_centred(orig):
    def broken(table, k=3):
        P = np.asarray(table, float)
        _, s, vt = np.linalg.svd(P, full_matrices=False)
        return P @ vt[:k].T, s[:k] ** 2 / np.sum(s**2)
    return broken


def _power_not_centred(orig):
    def broken(table):
        P = np.asarray(table, float)
        return np.fft.rfftfreq(P.shape[0]), np.abs(np.fft.rfft(P, axis=0)) ** 2 / P.shape[0]
    return broken


WORDS = {"sentence": "the dog saw a cat", "i": 1, "j": 3, "d_model": 16, "seed": 0}
STRETCH = {"head_dim": 64, "l_train": 512, "factor": 4.0}
LAB = {"result": "lab_two_back.json", "formula": "sinusoidal", "table": "learned"}
TABLE = {"result": "lab_learned_table.json"}

#: check -> (its parameters, [(what is broken, the mutation)]).
MUTATIONS = {
    "swap_equivariance": (WORDS, [("a position leaks into the embeddings",
                                   _patch("explorer.jobs.swap:embed", _embed_with_positions))]),
    "swap_causal_leak": (WORDS, [("the causal mask is ignored",
                                  _patch("explorer.jobs.swap:attention", _attention(causal=False)))]),
    "mask_before_softmax": (WORDS, [("the mask always applied after the softmax", _patch(
        "explorer.jobs.swap:attention", _attention(mask_after_softmax=lambda a: a["causal"])))]),
    "position_in_the_vectors": ({**WORDS, "scheme": "sinusoidal"}, [(
        "the encoding never reaches the layer", _patch("explorer.schemes.sinusoidal:sinusoidal", _zeros_like_table))]),
    "sinusoid_formula": ({"d_model": 64, "positions": 256}, [
        ("frequencies reversed", _patch("explorer.encodings.sinusoidal:frequencies", _reversed_frequencies))]),
    "fastest_pair": ({"d_model": 64}, [
        ("frequencies reversed", _patch("explorer.encodings.sinusoidal:frequencies", _reversed_frequencies))]),
    "largest_wavelength": ({"d_model": 128}, [("tensor2tensor's spacing in the paper's layout",
                                               _patch("explorer.encodings.sinusoidal:frequencies", _t2t_spacing))]),
    "bounded_values": ({"d_model": 32, "positions": 4096}, [
        ("a pair holds sin twice", _patch("explorer.encodings.candidates:sinusoidal", _sin_twice))]),
    "unique_rows": ({"d_model": 16, "positions": 256}, [
        ("frequencies that repeat every 8 positions", _patch("explorer.encodings.sinusoidal:frequencies",
                                                             _period_of_8))]),
    "same_token_two_positions": ({"d_model": 64, "p1": 3, "p2": 40}, [
        ("both positions get the first one's row", _patch("explorer.jobs.waves_pick:sinusoidal", _position_blind))]),
    "consistent_encoding": ({"d_model": 32}, [
        ("the table depends on the length", _patch("explorer.encodings.candidates:encode", _encode_depends_on_n))]),
    "rotation_identity": ({"positions": 512, "k": 8, "pair": 2, "d_model": 64}, [
        ("R(k) turned the wrong way", _patch("explorer.jobs.waves_pick:rotation", _rotation_backwards))]),
    "multi_resolution": ({"near": 3, "far": 2000, "d_model": 64}, [
        ("frequencies reversed", _patch("explorer.encodings.sinusoidal:frequencies", _reversed_frequencies))]),
    "rope_relative": ({"scheme": "rope", "head_dim": 32, "shift": 500}, [
        ("positions turned by p^1.5", _patch("explorer.schemes.rope:apply_rope", _squared_positions))]),
    "rope_unseen_pairs": (STRETCH, [
        ("θ off by one pair", _patch("explorer.encodings.rope:inv_freq", _theta_off_by_one))]),
    "rope_linear_scaling": (STRETCH, [
        ("linear scaling multiplies by s", _patch("explorer.jobs.schemes:scaled_inv_freq", _linear_multiplies))]),
    "rope_yarn": (STRETCH, [("the attention factor left out",
                             _patch("explorer.encodings.rope:attention_factor_of", lambda orig: lambda sc: 1.0))]),
    "learned_table_refuses": ({"rows": 32, "d_model": 8}, [
        ("the table lets position L through", _patch("explorer.encodings.learned:check_rows", _rows_off_by_one))]),
    "trained_beyond_length": (LAB, [("every length read as the training length",
                                     _patch_class("explorer.lab.results", "SchemeResult", "at", _at_training_length))]),
    "alibi_linear_bias": ({"scheme": "alibi", "heads": 12, "positions": 32}, [
        ("slopes of the next power of two", _patch("explorer.schemes.alibi:alibi_slopes",
                                                    _next_power_of_two_slopes))]),
    "where_position_enters": ({}, [("ALiBi's record says it is added to the input",
                                    _patch_class("explorer.schemes.alibi", "ALiBi", "kind", lambda orig: "input"))]),
    "models_by_scheme": ({"scheme_a": "learned", "models_a": "GPT-2, BERT", "scheme_b": "rope",
                          "models_b": "Llama, Mistral"}, [
        ("the config reader finds no rotary fields", _patch("explorer.encodings.rope_config:read_config", _no_config)),
        ("GPT-2's record moved to RoPE", _patch_class("explorer.schemes.learned", "Learned", "used_by",
                                                      lambda orig: "BERT"))]),
    "t5_buckets": ({"num_buckets": 32, "max_distance": 128, "distances": 4096}, [
        ("a bucket off by one", _patch("explorer.schemes.t5:relative_position_bucket", _bucket_off_by_one))]),
    "kerple_log_bias": ({"heads": 4, "positions": 128}, [
        ("a straight-line penalty", _patch_class("explorer.schemes.kerple", "Kerple", "swap_terms", _kerple_linear))]),
    "fire_normalised": ({"l_train": 32, "factor": 8.0}, [
        ("divided by ψ(L) alone", _patch("explorer.schemes.fire:normalised_distance", _fire_without_progressive))]),
    "xpos_decay": ({"head_dim": 32, "distance": 512}, [
        ("γ = 0.5 instead of 0.4", _patch("explorer.schemes.xpos:xpos_zeta", _gamma_half))]),
    "lab_holds_past_training": ({"result": "lab_after_rope.json", "holds": "alibi, kerple",
                                 "drops": "rope, xpos, t5, fire"}, [
        ("every length read as the training length",
         _patch_class("explorer.lab.results", "SchemeResult", "at", _at_training_length))]),
    "table_wall": (TABLE, [
        ("the table lets position M through", _patch("explorer.jobs.table:check_rows", _rows_off_by_one))]),
    "table_neighbours": (TABLE, [
        ("similarity by offset shifted by one", _patch("explorer.encodings.table_stats:similarity_by_offset",
                                                       _similarity_shifted))]),
    "table_helix": (TABLE, [
        ("PCA of rows not centred", _patch("explorer.encodings.table_stats:pca", _pca_not_centred))]),
    "table_spectrum": (TABLE, [
        ("column spectra not centred", _patch("explorer.encodings.table_stats:column_power", _power_not_centred))]),
}


def _forget_kept_results() -> None:
    """Clear every ``functools`` cache of the app's modules: a broken implementation must reach what it breaks (a
    table kept from an earlier step would hide it), and what it made must not outlive it."""
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("explorer.") and module is not None:
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)) and callable(getattr(value, "cache_info", None)):
                    value.cache_clear()


def _fails(name: str, params: dict) -> bool:
    try:
        return not run_check(name, params).passed
    except (CheckError, ValueError, ArithmeticError, IndexError):
        return True  # the broken implementation stopped the check: it did not pass either


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_check_passes_and_each_broken_implementation_fails_it(name, monkeypatch):
    params, mutations = MUTATIONS[name]
    result = run_check(name, params)
    assert result.passed, (name, result.computed)
    failed = []
    for what, mutate in mutations:
        with monkeypatch.context() as m:
            mutate(m)
            _forget_kept_results()
            try:
                if _fails(name, params):
                    failed.append(what)
            finally:
                _forget_kept_results()
    assert failed == [what for what, _m in mutations], f"{name}: these did not fail it: " + ", ".join(
        w for w, _m in mutations if w not in failed)


def test_every_check_has_a_broken_implementation_that_fails_it():
    assert set(MUTATIONS) == set(all_checks()), sorted(set(all_checks()) ^ set(MUTATIONS))
