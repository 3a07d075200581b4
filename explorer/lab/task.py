"""The Lab's tasks: the next-symbol rule, four sequence tasks of the length-generalisation literature, and counting.

* ``rule`` (:class:`RuleTask`): next-symbol prediction in a noisy "two-back" formal language (below);
* ``copy``, ``reverse``, ``addition``, ``sort`` (:class:`SequenceTask`): a prompt of n symbols, then the
  answer, as in Kazemnejad et al. 2023 ("The Impact of Positional Encoding on Length Generalization in
  Transformers", NeurIPS): decoder-only models trained on short instances and tested on longer ones,
  scored by exact match (the whole answer right) and per-token accuracy;
* ``marker`` (:class:`SequenceTask` too): the symbol right after the second-last marker of the prompt — a task
  where what matters is a *count* of markers, not a distance in tokens (the kind of task CoPE, Golovneva et al.
  2024, was made for).

numpy only, no torch and no Qt.

The rule's language
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
from ..state.lab import TASK_DEFAULTS, TASK_IDS  # noqa: F401 - re-exported
from .grid_task import GridTask


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


# -- the sequence tasks -------------------------------------------------------------------------------
# TASK_IDS (menu order; ``rule`` is the language above) and TASK_DEFAULTS (L and steps) live with the
# panel's state, which validates them.

#: One line each, shown on screen: why the task tests position.
TASK_WHY = {
    "rule": "Each symbol follows from the two before it, in order: the model must look exactly one "
            "and two steps back, at any length.",
    "copy": "Answer symbol i repeats prompt symbol i, n + 1 places back: the model must find the place "
            "that matches, at distances it never saw in training.",
    "reverse": "Answer symbol i is prompt symbol n + 1 − i: the model must find the mirror place around "
               "the separator, at distances it never saw in training.",
    "addition": "Each answer digit needs the two digits of the same place value, n + 1 apart, and the "
                "carry: the model must line digits up by position.",
    "sort": "Answer symbol i is the i-th smallest: content decides what comes next, position only where "
            "the answer is and how much of it is written — the control task.",
    "marker": "The answer is the symbol right after the second-last marker |: the model must count markers "
              "back from the end — their distance grows with the prompt, their count does not.",
    "grid": "Each cell is the cell above plus the one to its left (mod V): the cell above is one row up at any "
            "size, but a grid's width away in the flattened sequence.",
}

TASK_TITLES = {"rule": "Next-symbol rule", "copy": "Copy", "reverse": "Reverse", "addition": "Addition",
               "sort": "Sorting",
               "marker": "Counting markers", "grid": "Grid (2-D)"}

#: The tasks :class:`SequenceTask` makes (a prompt, "=", an answer).
SEQUENCE_TASKS = tuple(t for t in TASK_IDS if t not in ("rule", "grid"))

#: The marker task's prompts hold 2 markers, or 3 when there are at least this many symbols per marker.
MARKER_SPACING = 2
#: The shortest marker prompt: two markers, each followed by a symbol.
MARKER_MIN_LEN = 2 * MARKER_SPACING


@dataclass(frozen=True)
class SequenceTask:
    """A prompt of n symbols (digits for addition), a separator, then an answer of fixed length.

    Token layout (``BOS`` first, so that a model without positions has a fixed place to start counting)::

        copy, reverse, sort:  BOS x_1 … x_n SEP y_1 … y_n               (2n + 2 tokens)
        addition:             BOS a_1 … a_n PLUS b_1 … b_n SEP s_1 … s_{n+1}  (3n + 4 tokens)
        marker:               BOS x_1 … x_n SEP y                       (n + 3 tokens)

    Symbols are 0 … V−1 (V = ``vocab``; addition always uses the ten digits); ``BOS``, ``SEP`` (``=``),
    ``PLUS`` and ``PAD`` follow.  For addition, a and b are n-digit numbers written most significant
    digit first (leading zeros allowed) and the sum has n + 1 digits, written least significant first
    when ``reverse_answer`` (the carry then flows in the order the digits are written) or most
    significant first otherwise.  The answer length is fixed by n, so nothing needs an end token, and
    scoring with the true answer fed in (teacher forcing) gives exactly what greedy decoding would: the
    whole answer is right under one iff it is right under the other (see :func:`exact_match`).

    Marker prompts (n ≥ :data:`MARKER_MIN_LEN`) are n tokens of which 2 — or 3, with probability ½ when
    n ≥ 6 — are the marker ``|`` (the ``PLUS`` token) and the rest symbols; each marker stands right before a
    symbol (no two markers touch, none ends the prompt), and the answer is the symbol right after the
    second-last marker.  Which token that is depends on where the markers fell; how many markers come after
    it (one) does not.
    """

    kind: str = "copy"
    vocab: int = 8
    reverse_answer: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in SEQUENCE_TASKS:
            raise EncodingError(f"unknown sequence task {self.kind!r}; valid: {', '.join(SEQUENCE_TASKS)}")
        check_int("vocab", self.vocab, minimum=2, maximum=256)
        check_int("seed", self.seed, minimum=0, maximum=2**63 - 1)

    # -- tokens --------------------------------------------------------------------------------------
    @property
    def symbols(self) -> int:
        """How many answer symbols there are: 10 digits for addition, else ``vocab``."""
        return 10 if self.kind == "addition" else self.vocab

    @property
    def min_len(self) -> int:
        """The shortest prompt the task has: 1 symbol, or :data:`MARKER_MIN_LEN` for the marker task."""
        return MARKER_MIN_LEN if self.kind == "marker" else 1

    @property
    def bos(self) -> int:
        return self.symbols

    @property
    def sep(self) -> int:
        return self.symbols + 1

    @property
    def plus(self) -> int:
        return self.symbols + 2

    @property
    def pad(self) -> int:
        return self.symbols + 3

    @property
    def n_tokens(self) -> int:
        """The model's vocabulary: the symbols and BOS, SEP, PLUS, PAD."""
        return self.symbols + 4

    def prompt_len(self, n: int) -> int:
        """Tokens up to and including the separator."""
        return 2 * n + 3 if self.kind == "addition" else n + 2

    def answer_len(self, n: int) -> int:
        return n + 1 if self.kind == "addition" else 1 if self.kind == "marker" else n

    def seq_len(self, n: int) -> int:
        """Tokens of a whole instance of length n (prompt and answer)."""
        return self.prompt_len(n) + self.answer_len(n)

    def input_len(self, n: int) -> int:
        """Tokens the model reads for an instance of length n: all but the last (it predicts each next one)."""
        return self.seq_len(n) - 1

    # -- instances -----------------------------------------------------------------------------------
    def answers(self, prompt_symbols: np.ndarray, second: np.ndarray | None = None) -> np.ndarray:
        """The correct answer to each row of ``prompt_symbols`` (batch, n) (and ``second`` for addition)."""
        x = np.asarray(prompt_symbols)
        if self.kind == "marker":
            return after_second_last(x, self.plus)[:, None]
        if self.kind == "copy":
            return x.copy()
        if self.kind == "reverse":
            return x[:, ::-1].copy()
        if self.kind == "sort":
            return np.sort(x, axis=1)
        if second is None:
            raise EncodingError("addition needs two numbers")
        return add_digits(x, np.asarray(second), reverse_answer=self.reverse_answer)

    def instances(self, batch: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``batch`` instances of length ``n``: (tokens (batch, seq_len(n)), answers (batch, answer_len(n)))."""
        b = check_int("batch", batch, minimum=1)
        n = check_int("length", n, minimum=self.min_len)
        if self.kind == "marker":
            x = self.marker_prompts(b, n, rng)
        else:
            x = rng.integers(0, self.symbols, size=(b, n), dtype=np.int64)
        parts = [np.full((b, 1), self.bos, dtype=np.int64), x]
        if self.kind == "addition":
            y = rng.integers(0, 10, size=(b, n), dtype=np.int64)
            ans = self.answers(x, y)
            parts += [np.full((b, 1), self.plus, dtype=np.int64), y]
        else:
            ans = self.answers(x)
        parts += [np.full((b, 1), self.sep, dtype=np.int64), ans]
        return np.concatenate(parts, axis=1), ans

    def training_batch(self, batch: int, max_n: int, rng: np.random.Generator):
        """A training batch of instances of 1 … ``max_n`` symbols (uniform), right-padded.

        Returns (inputs (batch, input_len(max_n)), targets (same shape), mask (same shape, True where the
        target is an answer token)).  Padding comes after each instance, so a causal model never sees it
        while predicting that instance's tokens; it carries no loss.
        """
        b = check_int("batch", batch, minimum=1)
        top = check_int("max_n", max_n, minimum=1)
        width = self.seq_len(top)
        seq = np.full((b, width), self.pad, dtype=np.int64)
        mask = np.zeros((b, width - 1), dtype=bool)
        if top < self.min_len:
            raise EncodingError(f"{self.kind} prompts have at least {self.min_len} tokens; got max_n = {top}")
        ns = rng.integers(self.min_len, top + 1, size=b)
        for n in np.unique(ns):
            rows = np.flatnonzero(ns == n)
            toks, _ans = self.instances(rows.size, int(n), rng)
            seq[rows, : toks.shape[1]] = toks
            p = self.prompt_len(int(n))
            mask[rows, p - 1: p - 1 + self.answer_len(int(n))] = True
        return seq[:, :-1], seq[:, 1:], mask

    def marker_prompts(self, batch: int, n: int, rng: np.random.Generator) -> np.ndarray:
        """``batch`` marker prompts of n tokens (batch, n): symbols, and 2 or 3 markers each before a symbol."""
        m = np.full(batch, 2, dtype=np.int64)
        if n >= 3 * MARKER_SPACING:
            m += rng.random(batch) < 0.5
        out = np.empty((batch, n), dtype=np.int64)
        for r in range(batch):
            k = int(m[r])
            letters = rng.integers(0, self.symbols, size=n - k, dtype=np.int64)
            # Marker j goes right before letter before[j] (distinct letters), so every marker has a symbol after it.
            before = np.sort(rng.choice(n - k, size=k, replace=False))
            out[r] = np.insert(letters, before, self.plus)
        return out

    def prompt_positions(self, n: int) -> np.ndarray:
        """Indices of the model's outputs that predict the answer tokens of a length-n instance."""
        p = self.prompt_len(n)
        return np.arange(p - 1, p - 1 + self.answer_len(n))


def add_digits(a: np.ndarray, b: np.ndarray, *, reverse_answer: bool) -> np.ndarray:
    """The digits of a + b for rows of n digits each (most significant first): n + 1 digits.

    Added column by column with a carry (no integer overflow at any n); least significant first when
    ``reverse_answer``.
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if a.shape != b.shape or a.ndim != 2:
        raise EncodingError(f"addition needs two (batch, n) digit arrays of one shape; got {a.shape}, {b.shape}")
    rows, n = a.shape
    out = np.zeros((rows, n + 1), dtype=np.int64)  # least significant first
    carry = np.zeros(rows, dtype=np.int64)
    for i in range(n):
        s = a[:, n - 1 - i] + b[:, n - 1 - i] + carry
        out[:, i], carry = s % 10, s // 10
    out[:, n] = carry
    return out if reverse_answer else out[:, ::-1].copy()


def after_second_last(prompts: np.ndarray, marker: int) -> np.ndarray:
    """The token right after the second-last ``marker`` of each row of ``prompts`` (batch, n) → (batch,).

    Every row needs two markers, the second-last one followed by a token.
    """
    x = np.asarray(prompts)
    if x.ndim != 2:
        raise EncodingError(f"need prompts of shape (batch, n); got {x.shape}")
    is_marker = x == marker
    # Markers at or after each place, counted from the end: the second-last marker is the one where this is 2.
    from_end = np.cumsum(is_marker[:, ::-1], axis=1)[:, ::-1]
    hit = is_marker & (from_end == 2)
    rows = hit.any(axis=1)
    if not rows.all() or hit[:, -1].any():
        raise EncodingError("every prompt needs two markers, the second-last one followed by a symbol")
    return x[np.arange(x.shape[0]), hit.argmax(axis=1) + 1]


def exact_match(predicted: np.ndarray, answers: np.ndarray) -> float:
    """Share of rows whose whole predicted answer equals the true one (batch, answer_len) → [0, 1].

    With teacher forcing, row r is all right iff greedy decoding would have written the true answer:
    each step of greedy decoding reads the same prefix the teacher-forced pass read, as long as every
    earlier step was right.
    """
    p, a = np.asarray(predicted), np.asarray(answers)
    if p.shape != a.shape or p.ndim != 2 or p.shape[0] == 0:
        raise EncodingError(f"need predictions and answers of one shape (batch, length); got {p.shape}, {a.shape}")
    return float(np.mean(np.all(p == a, axis=1)))


def make_task(kind: str, *, vocab: int = 8, noise: float = 0.2, seed: int = 0, reverse_answer: bool = True):
    """The task ``kind`` (one of :data:`TASK_IDS`) with these settings."""
    if kind == "rule":
        return RuleTask(vocab, noise, seed)
    if kind == "grid":
        return GridTask(vocab, seed)
    return SequenceTask(kind, vocab, reverse_answer, seed)
