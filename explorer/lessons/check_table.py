"""Live checks on a trained position table: the wall at M, neighbouring rows, principal components (GPT-2's
helix), and spectra.

The table is the one a Lab run trained (its ``position_table``, saved with the result in
``resources/lessons/data``; the Lab's "View learned table" shows the same); the numbers are the Learned-table
panel's own (:mod:`explorer.jobs.table`, :mod:`explorer.encodings.table_stats`), each checked against the
definition written out here, and set beside two yardsticks of the same shape: a random table (what training
started from) and the sinusoidal table (a perfect helix of waves).
"""

from __future__ import annotations

import math

import numpy as np

from .check_schemes import lab_result
from .checks import EPS, CheckError, Param, check, percent, sci

_RESULT = Param("name", "lab_learned_table.json", help="a saved Lab result with a trained position table")


def trained_table(result: str) -> tuple[np.ndarray, str]:
    """(the position table of the first scheme of ``result`` that trained one, that scheme's id)."""
    for s in lab_result(result).schemes:
        if s.position_table:
            return np.asarray(s.position_table, dtype=np.float64), s.scheme
    raise CheckError(f"{result} holds no trained position table (run the Lab with the learned scheme)")


def _loaded(table: np.ndarray):
    from ..encodings.checkpoint import LoadedTable

    return LoadedTable(table=table, name="the Lab's trained table", source="", dtype="float64",
                       config_max=int(table.shape[0]))


def _random_like(table: np.ndarray, seed: int = 0) -> np.ndarray:
    """A table of the same shape as training starts it: N(0, 1) entries (torch's nn.Embedding init)."""
    return np.random.default_rng(seed).standard_normal(table.shape)


def _sinusoidal_like(table: np.ndarray) -> np.ndarray:
    from ..encodings.table_stats import sinusoidal_like

    return sinusoidal_like(table)


def _cost(result: str, **_ignored) -> int:
    return 0  # a saved table is at most MAX_TABLE_VALUES values; its checks hold a few copies of it


@check("table_wall",
       "A learned table has a row for positions 0 … M − 1 and nothing after: the Learned-table panel answers "
       "every position below M and refuses every one from M on, and the model that trained it cannot run at "
       "any test length past M.",
       ("rows", "answered", "refused", "asked_past", "lengths_blocked"), cost=_cost, result=_RESULT)
def table_wall(result: str):
    from ..jobs.table import probe_text

    table, sid = trained_table(result)
    m = table.shape[0]
    t = _loaded(table)

    def probe(p: int) -> str:  # what the Norms tab says when asked for position p
        try:
            return probe_text(t, p)
        except IndexError:
            return "crashed"  # the panel let a position with no row through

    answered = sum(not probe(p).startswith(("refused", "crashed")) for p in range(m))
    past = range(m, m + min(m, 64))
    refused = sum(probe(p).startswith("refused") and f"{m}" in probe(p) for p in past)
    res = lab_result(result)
    runs = res.scheme(sid)
    longer = [n for n in res.config.eval_lens if n > m]
    blocked = sum(1 for n in longer if runs is not None and (r := runs.at(n)) is not None and not r.ran)
    values = {"rows": m, "answered": answered, "refused": refused, "asked_past": len(past),
              "lengths_blocked": blocked}
    ok = answered == m and refused == len(past) and blocked == len(longer) and bool(longer)
    return values, ok, (f"M = {m}: positions 0 … {m - 1} answered: {answered} of {m}; positions {m} … {past[-1]} "
                        f"refused: {refused} of {len(past)}; test lengths past M where the model could not run: "
                        f"{blocked} of {len(longer)}")


@check("table_neighbours",
       "Training made neighbouring rows alike: the mean cosine of rows one position apart is well above a random "
       "table's (which is 0 give or take 1/√(d·(M−1))), and it fades as the rows get farther apart.",
       ("cos_1", "cos_far", "far", "random_cos_1", "spread", "sinusoidal_cos_1", "max_difference", "bound"),
       cost=_cost, compare={"cos_1": "spread", "max_difference": "bound"}, result=_RESULT)
def table_neighbours(result: str):
    from ..encodings.table_stats import similarity_by_offset

    table, _sid = trained_table(result)
    m, d = table.shape
    k, mean = similarity_by_offset(table)  # the Similarity tab's curve
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    by_hand = np.array([np.mean(np.sum(unit[: m - j] * unit[j:], axis=1)) for j in range(m)])
    diff = float(np.abs(mean - by_hand).max())
    bound = 16.0 * d * EPS * math.log2(2 * m)
    far = max(2, m // 8)
    rand = float(similarity_by_offset(_random_like(table))[1][1])
    spread = 1.0 / math.sqrt(d * (m - 1))
    sin = float(similarity_by_offset(_sinusoidal_like(table))[1][1])
    values = {"cos_1": float(mean[1]), "cos_far": float(mean[far]), "far": far, "random_cos_1": rand,
              "spread": spread, "sinusoidal_cos_1": sin, "max_difference": diff, "bound": bound}
    ok = diff <= bound and mean[1] > 4 * spread and mean[1] > mean[far] and k[1] == 1
    return values, ok, (
        f"M = {m}, d = {d}: mean cosine of neighbouring rows {mean[1]:.3f} (a random table: {rand:.3f}, give or "
        f"take {spread:.3f}; the sinusoidal table: {sin:.3f}); {far} apart: {mean[far]:.3f}; the panel's curve "
        f"against the cosines written out: {sci(diff)} (rounding allows {sci(bound)})")


@check("table_helix",
       "GPT-2's rows lie on a smooth helix (Wang & Chen 2020): a few principal components hold most of the "
       "table, as they do for the sinusoidal table. The Lab's table, trained for minutes on one small task, "
       "has no such shape: its first three components hold about what they hold in a random table.",
       ("share_3", "random_share_3", "sinusoidal_share_2", "max_difference", "bound"),
       cost=_cost,
       compare={"share_3": "random_share_3", "sinusoidal_share_2": "share_3", "max_difference": "bound"},
       result=_RESULT)
def table_helix(result: str):
    from ..encodings.table_stats import pca

    table, _sid = trained_table(result)
    m, d = table.shape
    coords, share = pca(table, 3)  # the PCA tab's numbers
    centred = table - table.mean(axis=0)
    evals, evecs = np.linalg.eigh(centred.T @ centred)  # the covariance's eigenvectors, written out
    order = np.argsort(evals)[::-1][:3]
    want_share = evals[order] / evals.sum()
    want = centred @ evecs[:, order]
    diff = max(float(np.abs(share - want_share).max()), float(np.abs(np.abs(coords) - np.abs(want)).max()))
    bound = 1e-9 * max(1.0, float(np.abs(want).max()))
    rand = float(pca(_random_like(table), 3)[1].sum())
    sin2 = float(pca(_sinusoidal_like(table), 2)[1].sum())
    values = {"share_3": float(share.sum()), "random_share_3": rand, "sinusoidal_share_2": sin2,
              "max_difference": diff, "bound": bound}
    ok = diff <= bound and share.sum() < 2 * rand and share.sum() < sin2
    return values, ok, (
        f"M = {m}, d = {d}: the first three components hold {percent(share.sum())} of the trained table (a random "
        f"table: {percent(rand)}; the sinusoidal table's first two: {percent(sin2)}); the panel's PCA against the "
        f"covariance's eigenvectors: {sci(diff)} (allowed {sci(bound)})")


@check("table_spectrum",
       "A table's spectrum says how fast each column waves along the positions. Each column of the sinusoidal "
       "table waves at one frequency of a geometric ladder, most of them slow; a random table's columns are "
       "noise, fast as often as slow. Training slowed the Lab table's columns (a lower median frequency than a "
       "random table's), without putting them on the ladder.",
       ("median_frequency", "random_median", "sinusoidal_median", "max_difference", "bound"),
       cost=_cost, compare={"median_frequency": "sinusoidal_median", "max_difference": "bound"}, result=_RESULT)
def table_spectrum(result: str):
    from ..encodings.table_stats import column_power, dominant_frequencies

    table, _sid = trained_table(result)
    m, d = table.shape
    freqs, power = column_power(table)  # the Spectra tab's numbers
    centred = table - table.mean(axis=0)
    p = np.arange(m)
    wave = np.exp(-2j * np.pi * np.outer(np.arange(m // 2 + 1), p) / m)  # Σ_p x_p e^{−2πi f p}, written out
    want = np.abs(wave @ centred) ** 2 / m
    diff = float(np.abs(power - want).max())
    bound = 1e-9 * max(1.0, float(want.max()))
    med = float(np.median(dominant_frequencies(table)))
    rand = float(np.median(dominant_frequencies(_random_like(table))))
    sin = float(np.median(dominant_frequencies(_sinusoidal_like(table))))
    values = {"median_frequency": med, "random_median": rand, "sinusoidal_median": sin, "max_difference": diff,
              "bound": bound}
    ok = diff <= bound and np.allclose(freqs, np.arange(m // 2 + 1) / m) and sin < med < rand / 2
    return values, ok, (
        f"M = {m}, d = {d}: the columns' strongest frequencies have median {med:.3f} cycles per position (a "
        f"random table: {rand:.3f}; the sinusoidal table: {sin:.4f}); the panel's spectra against the Fourier "
        f"sums written out: {sci(diff)} (allowed {sci(bound)})")
