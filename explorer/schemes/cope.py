"""Contextual position encoding (CoPE; Golovneva, Wang, Weston & Sukhbaatar 2024, "Contextual Position Encoding:
Learning to Count What's Important", arXiv 2405.18719; reference code facebookresearch/RAM ``projects/cope``).

Position depends on content: query i decides, for every key t, how much t counts as one step,

    g_it = σ(q_i·k_t / √d) · m_it          (m: the causal mask, 1 where t ≤ i; all ones without it),
    p_ij = Σ_{t ≥ j} g_it                   (the count of what lies from key j up to the query: a reversed cumsum),

clamped at P − 1 (``npos`` = P positions, the reference's block size + 1).  Each integer position has a learned
vector e[p] (d); a fractional one interpolates the logits, and the term joins the score before the 1/√d:

    z_ij = (1 − w)·q_i·e[⌊p_ij⌋] + w·q_i·e[⌈p_ij⌉],   w = p_ij − ⌊p_ij⌋,
    a_ij = (q_i·k_j + z_ij) / √d            (the reference's default, ``cope_nodiv`` false).

With gates that are all 1 the count is i − j + 1 and CoPE is a learned relative embedding; gates that open only
on some tokens (a full stop, a noun) count sentences or nouns instead — what lets a model attend to "the 2nd
sentence back" wherever it starts.  The Lab's torch module follows the same formula.

- **Schemes panel** (content removed the panel's way: q = k = c): every gate is σ(|c|²/√d), so p_ij = g·(i − j + 1)
  and ΔS_ij = c·e[p_ij]/√d — a relative scheme whose step is g instead of 1; with random content the gates are
  ≈ 1 and CoPE looks like a learned relative table.  The embeddings e are seeded N(0, 1) (untrained).
- **Token swap**: the real gates of the sentence's queries and keys, their counts p_ij (the panel shows both, before
  and after the swap), and the term they add.  Without the causal mask the count runs from key j to the sentence's
  end, as the reference code's does when it is given no mask.
- **Lab**: a table e of train_len + 1 vectors per layer (shared by the heads, as the reference code's), trained;
  a count past it is clamped to its last row.
"""

from __future__ import annotations

import math

import numpy as np

from ..encodings.blocks import Blocks, relative_block_means
from ..encodings.errors import EncodingError, check_int
from .base import (
    Curve,
    NoSnippet,
    NotShown,
    Parameter,
    Scheme,
    Source,
    SwapTerms,
    content_vectors,
    lab_position_class,
)
from .query import Query, SchemesSetup, SwapSetup


def sigmoid(x: np.ndarray) -> np.ndarray:
    """σ(x) = 1/(1 + e^(−x)), without overflow for large |x| (−inf gives 0)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def gates(q: np.ndarray, k: np.ndarray, causal: bool = True) -> np.ndarray:
    """g (..., n, n): σ(q_i·k_t/√d), times the causal mask when ``causal``; q, k (..., n, d)."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    d = q.shape[-1]
    g = sigmoid(q @ np.swapaxes(k, -1, -2) / np.sqrt(d))
    if causal:
        n = q.shape[-2]
        g = g * np.tril(np.ones((n, n)))
    return g


def positions(g: np.ndarray, npos: int) -> np.ndarray:
    """p_ij = Σ_{t ≥ j} g_it (reversed cumulative sum over keys), clamped at ``npos`` − 1."""
    p = np.flip(np.cumsum(np.flip(g, -1), -1), -1)
    return np.minimum(p, check_int("npos", npos, minimum=1) - 1)


def position_logits(q: np.ndarray, p: np.ndarray, table: np.ndarray) -> np.ndarray:
    """z_ij: q_i·e[p_ij] interpolated between ⌊p_ij⌋ and ⌈p_ij⌉; ``table`` (npos, d) holds e[0 … npos − 1]."""
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2 or table.shape[1] != np.shape(q)[-1]:
        raise EncodingError(f"the position table must be (npos, {np.shape(q)[-1]}), got {table.shape}")
    fixed = np.asarray(q, dtype=np.float64) @ table.T  # (..., n, npos): q_i·e[p] for every integer p
    lo = np.floor(p).astype(np.int64)
    hi = np.ceil(p).astype(np.int64)
    if lo.min(initial=0) < 0 or hi.max(initial=0) >= table.shape[0]:
        raise EncodingError(f"positions run past the table's {table.shape[0]} rows")
    w = p - lo
    return np.take_along_axis(fixed, hi, -1) * w + np.take_along_axis(fixed, lo, -1) * (1.0 - w)


def cope_term(q: np.ndarray, k: np.ndarray, table: np.ndarray, causal: bool = True):
    """(gates, positions, z/√d): what CoPE adds to the scaled scores q·k/√d, with the gates and positions it used."""
    g = gates(q, k, causal)
    p = positions(g, table.shape[0])
    return g, p, position_logits(q, p, table) / np.sqrt(np.shape(q)[-1])


def seeded_table(npos: int, d: int, seed: int) -> np.ndarray:
    """An untrained e[0 … npos − 1] (npos, d): N(0, 1) from a generator of its own, seeded with ``seed`` (the
    reference starts at zeros and learns them; zeros would show nothing)."""
    n = check_int("npos", npos, minimum=1, maximum=1 << 20)
    return np.random.default_rng([check_int("seed", seed, minimum=0), 0xC09E]).standard_normal(
        (n, check_int("d", d, minimum=1, maximum=65536)))


#: Longest L_eval the Schemes panel draws CoPE for (its table has L_eval + 1 rows of d numbers).
COPE_LIVE_MAX = 4096


def panel_offsets(req, length: int) -> np.ndarray:
    """ΔS at the offsets δ = j − i = −(L − 1) … L − 1 for q = k = c (mean over the content vectors): causal, so
    δ > 0 is 0 (masked later); p = g·(1 − δ) for δ ≤ 0, g = σ(|c|²/√d)."""
    d = int(req.head_dim)
    cs = content_vectors(d, req.content, req.seed)
    table = seeded_table(length + 1, d, req.seed)
    delta = np.arange(-(length - 1), length)
    out = np.zeros(delta.size)
    past = delta <= 0
    for c in cs:
        g = sigmoid(np.array(c @ c / math.sqrt(d)))
        p = np.minimum(g * (1.0 - delta[past]), length)
        out[past] += position_logits(c[None, :], p[None, :], table)[0] / math.sqrt(d)
    return out / len(cs)


class CoPE(Scheme):
    id = "cope"
    title = "CoPE (contextual)"
    colour = "#B15928"
    symbol = "t3"
    order = 57
    description = "Positions counted by gates on each query–key pair: a key is as far as the tokens the query counts."
    sources = (Source("Golovneva, Wang, Weston & Sukhbaatar 2024, “Contextual Position Encoding: Learning to Count "
                      "What's Important”", 2024, "https://arxiv.org/abs/2405.18719"),)
    kind = "score"
    relative = False
    bounded = True
    parameters = (Parameter("head_dim", 64, 2, 1024, "head dim d", field="head_dim"),)
    depends_on = ("head_dim", "content", "seed", "causal")
    curve_depends_on = depends_on  # its distance curve changes with the mask too (not only the matrix)
    used_by = "research models (Golovneva et al. 2024: counting, selective copy, language modelling)"
    where = "a term inside the score: q·e[p], p a count of gated keys"
    relation = "contextual: p depends on the content between query and key"
    shown_by_default = False
    swap_label = "CoPE (contextual positions)"
    swap_note = "Positions count what the query's gates let through (Golovneva et al. 2024)."
    in_lab = True
    lab_by_default = False
    lab_note = "a count of gated keys picks a learned vector (Golovneva et al. 2024)"

    # -- Schemes panel ------------------------------------------------------------------------------
    def _check(self, req) -> None:
        if not req.causal:
            raise NotShown("CoPE counts the keys up to its query: shown with the causal mask (without one the "
                           "reference code counts to the end of the sequence)")
        if req.l_eval > COPE_LIVE_MAX:
            raise NotShown(f"CoPE is drawn up to L_eval = {COPE_LIVE_MAX:,} (a table of L_eval + 1 vectors)")

    def score_blocks(self, req: Query, bl: Blocks) -> np.ndarray:
        self._check(req)
        return relative_block_means(panel_offsets(req, bl.length), bl, True)

    def distance_values(self, req: Query, dist: np.ndarray) -> Curve:
        try:
            self._check(req)
        except NotShown as exc:
            return Curve(dist, np.full(dist.size, np.nan), note=str(exc))
        length = int(req.l_eval)
        values = panel_offsets(req, length)
        return Curve(dist, values[length - 1 - dist.astype(np.int64)])

    def formula_line(self, st: SchemesSetup) -> str:
        d = st.head_dim
        c = content_vectors(d, st.content, st.seed)[0]
        g = float(sigmoid(np.array(c @ c / math.sqrt(d))))
        return (f"<b>CoPE</b>: g<sub>it</sub> = σ(q<sub>i</sub>·k<sub>t</sub>/√{d}), p<sub>ij</sub> = "
                f"Σ<sub>t≥j</sub> g<sub>it</sub>, score + q<sub>i</sub>·e[p<sub>ij</sub>]/√{d} (e interpolated); "
                f"here q = k = c: g = {g:.4f}, p = g·(i − j + 1)")

    def past_training(self, req: Query) -> str:
        return "a count past the table's last row is clamped to it; counts of rare tokens stay small"

    def parameters_added(self, req: Query) -> int:
        return (int(req.l_train) + 1) * int(req.head_dim)

    def score_snippet(self, req: Query):
        return NoSnippet("CoPE's numbers depend on the content between query and key: no program for them yet")

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        dh = d_model // heads
        table = seeded_table(n + 1, dh, seed)

        def score(q, k):
            return cope_term(q, k, table, causal)[2]

        def contextual(q, k):
            g, p, _z = cope_term(q, k, table, causal)
            return g, p

        return SwapTerms(score=score, contextual=contextual)

    def swap_reason(self, st: SwapSetup) -> str:
        return ("CoPE counts, for each query, the keys its gates let through between a key and itself: moving two "
                "words changes what lies between them and so every count that passes them, and the term q·e[p].")

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        return {"extra": f" + q<sub>i</sub>·e[p<sub>ij</sub>]/√{dh}",
                "notes": [f"p<sub>ij</sub> = Σ<sub>t≥j</sub> σ(q<sub>i</sub>·k<sub>t</sub>/√{dh}): a count of the "
                          "keys the query's gates let through (e: seeded vectors, interpolated)"]}

    def swap_snippet(self, st: SwapSetup):
        return NoSnippet("no program for CoPE's contextual counts yet")

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        class ContextualPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            """One table e (train_len + 1 vectors of the head width) per layer, as facebookresearch/RAM's CoPE."""

            def setup_layers(self, layers: int) -> None:
                import torch
                from torch import nn

                self.npos = self.train_len + 1
                dh = self.d_model // self.heads
                self.tables = nn.ParameterList(nn.Parameter(torch.zeros(dh, self.npos)) for _ in range(layers))

            def score_extra(self, layer, q, k):
                import torch

                n, dh = q.shape[-2], q.shape[-1]
                mask = torch.ones(n, n, device=q.device, dtype=q.dtype).tril()
                gates = torch.sigmoid(q @ k.transpose(-1, -2) / math.sqrt(dh)) * mask
                pos = gates.flip(-1).cumsum(-1).flip(-1).clamp(max=self.npos - 1)
                fixed = q @ self.tables[layer]  # (batch, heads, n, npos)
                lo, hi = pos.floor().long(), pos.ceil().long()
                w = pos - lo
                z = fixed.gather(-1, hi) * w + fixed.gather(-1, lo) * (1 - w)
                return z / math.sqrt(dh)

        return ContextualPosition(self, d_model, heads, train_len)


SCHEME = CoPE()
