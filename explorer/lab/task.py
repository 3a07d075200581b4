"""The Lab's synthetic task: next-symbol prediction in a noisy "two-back" formal language (numpy, no Qt).

The language
------------
A fixed random table ``T`` (V × V, entries in 0 … V−1) decides each symbol from the two before it,
*in order*::

    x_{t+1} = T[x_{t−1}, x_t]        with probability 1 − ε,
    x_{t+1} ~ uniform(0 … V−1)       with probability ε (noise).

Why this task
-------------
* **The answer depends on order.**  ``T[a, b] ≠ T[b, a]`` for most pairs (a random table: about
  (V − 1)/V of them, see :meth:`RuleTask.order_sensitive_fraction`), so a model must know which of
  the last two symbols came first; one that sees only the current symbol can do no better than
  :func:`last_symbol_baseline`.
* **Length generalisation is meaningful.**  The rule is the same at every position, so a model that
  learned "look one step back" works at any length, while one that learned "at position 17, look at
  16" has nothing to go on past the training length.  It is the formal-language analogue of the
  language-modelling experiment of Press, Smith & Lewis 2022 ("Train Short, Test Long", ICLR), who
  trained at length L and measured perplexity at longer lengths.
* **The noise** (ε = 0.2 by default) keeps the stream from settling into a cycle (a deterministic
  rule on V² states would soon repeat, and a model could then just copy the period); every position
  still has a well-defined correct prediction, the rule's ``T[x_{t−1}, x_t]``.  The best possible
  cross-entropy is the entropy of the noise, :meth:`RuleTask.loss_floor`.

Scoring: at position t (1 ≤ t ≤ L − 1) the model has read x_0 … x_t and is right if its most
likely next symbol equals ``T[x_{t−1}, x_t]``.  Position 0 has no rule target (one symbol only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..encodings.errors import EncodingError, check_int, check_real


@dataclass(frozen=True)
class RuleTask:
    """The two-back language: vocabulary ``vocab``, noise ``noise``, table drawn from ``seed``."""

    vocab: int = 8
    noise: float = 0.2
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("vocab", self.vocab, minimum=2, maximum=256)
        check_real("noise", self.noise, at_least=0.0, at_most=1.0)
        check_int("seed", self.seed, minimum=0, maximum=2**63 - 1)

    @property
    def table(self) -> np.ndarray:
        """T[a, b] = the symbol that follows (a, b), shape (V, V), int64; a fixed function of the seed."""
        # A stream of its own ("table") so that the table does not change with batch sizes or steps.
        rng = np.random.default_rng([self.seed, 0x7AB1E])
        return rng.integers(0, self.vocab, size=(self.vocab, self.vocab), dtype=np.int64)

    def order_sensitive_fraction(self) -> float:
        """Share of ordered pairs a ≠ b with T[a, b] ≠ T[b, a]: how often swapping them changes the answer."""
        t = self.table
        off = ~np.eye(self.vocab, dtype=bool)
        return float(np.mean((t != t.T)[off]))

    def loss_floor(self) -> float:
        """The smallest expected cross-entropy (nats) of any predictor: the entropy of the next symbol given
        the rule's prediction, ``−(1−ε+ε/V)·ln(1−ε+ε/V) − (V−1)·(ε/V)·ln(ε/V)``."""
        v, e = self.vocab, self.noise
        p_rule = 1.0 - e + e / v
        p_other = e / v
        h = -p_rule * math.log(p_rule)
        if p_other > 0:
            h -= (v - 1) * p_other * math.log(p_other)
        return h

    def sample(self, batch: int, length: int, rng: np.random.Generator) -> np.ndarray:
        """``batch`` streams of ``length`` symbols, shape (batch, length), int64.

        x_0 and x_1 are uniform; every later symbol follows the rule or, with probability ε, is uniform.
        """
        b = check_int("batch", batch, minimum=1)
        n = check_int("length", length, minimum=1)
        x = np.empty((b, n), dtype=np.int64)
        x[:, : min(2, n)] = rng.integers(0, self.vocab, size=(b, min(2, n)))
        t = self.table
        for i in range(2, n):
            rule = t[x[:, i - 2], x[:, i - 1]]
            noisy = rng.random(b) < self.noise
            x[:, i] = np.where(noisy, rng.integers(0, self.vocab, size=b), rule)
        return x

    def targets(self, x: np.ndarray) -> np.ndarray:
        """The rule's prediction after each position t ≥ 1: ``T[x_{t−1}, x_t]``, shape (batch, length − 1).

        Column j holds the target of position t = j + 1.
        """
        x = np.asarray(x)
        if x.ndim != 2 or x.shape[1] < 2:
            raise EncodingError(f"need streams of at least 2 symbols, shape (batch, length); got {x.shape}")
        return self.table[x[:, :-1], x[:, 1:]]


def last_symbol_baseline(x: np.ndarray, targets: np.ndarray, vocab: int) -> float:
    """Best accuracy of any predictor that sees only the current symbol x_t (not the one before it).

    For each symbol b it predicts the target most often seen after b in these streams, so this is an
    upper bound, on exactly this data, for a model that ignores order entirely.  ``x`` is (batch, L),
    ``targets`` (batch, L − 1) from :meth:`RuleTask.targets`.
    """
    cur = np.asarray(x)[:, 1:].ravel()
    tgt = np.asarray(targets).ravel()
    if cur.size == 0:
        raise EncodingError("no scored positions")
    counts = np.zeros((vocab, vocab), dtype=np.int64)
    np.add.at(counts, (cur, tgt), 1)
    return float(counts.max(axis=1).sum() / cur.size)
