"""Shaw et al. 2018: learned vectors for clipped relative distances, added to the keys (and the values).

"Self-Attention with Relative Position Representations" (NAACL 2018), eqs. (3)–(5):

    e_ij = x_i W^Q (x_j W^K + a^K_ij)ᵀ / √d,     z_i = Σ_j α_ij (x_j W^V + a^V_ij),
    a^K_ij = w^K_clip(j−i, k),  a^V_ij = w^V_clip(j−i, k),  clip(x, k) = max(−k, min(k, x)).

So 2k + 1 learned vectors per layer for keys (and as many for values), shared by the heads.  The score's
position part q_i·w^K_clip(j−i)/√d depends on j − i only and is constant once |j − i| ≥ k: every far key
shares one vector.  The paper (Table 3) found translation quality about the same for every k ≥ 2.

With the content removed (q = k = c at every position, the Schemes panel's convention) the position part is
ΔS(i, j) = c·w^K_clip(j−i)/√d, here with a seeded, untrained table w^K ~ N(0, I) (as the learned table).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..encodings.blocks import relative_block_means
from ..encodings.errors import check_size
from .base import (
    Curve,
    Parameter,
    PlotSpec,
    Scheme,
    SnippetPart,
    Source,
    SwapTerms,
    content_vectors,
    lab_position_class,
)
from .query import Query, SchemesSetup, SwapSetup

#: The default clipping distance (and the Lab's).
CLIP = 16
#: Largest clipping distance offered.
MAX_CLIP = 1024
#: The Token swap's clipping distance: small, so that a sentence of a dozen words reaches it.
SWAP_CLIP = 4


#: Copy as Python: the seeded, untrained vectors w_r, r = −k … k, of width ``{d}`` (``{salt}``: 13 keys, 14 values).
TABLE_SNIPPET = ("{name} = np.random.default_rng([seed, {salt}]).standard_normal((2 * {max_clip} + 1, {d}))"
                 "[{max_clip} - clip_k: {max_clip} + clip_k + 1]  # {what}: row clip_k + r is w_r, r = −k … k\n")
#: Copy as Python: ΔS(i, j) = c̄·w^K_clip(j−i)/√d (NaN for a key after its query with the causal mask).
SCORE_SNIPPET = """\
per_r = w_key @ c.mean(axis=0) / np.sqrt(d)  # c̄·w_r/√d for each clipped offset r
offset = np.subtract.outer(pos, pos).T  # [i, j] = j − i (key minus query)
delta_s = per_r[np.clip(offset, -clip_k, clip_k) + clip_k]  # every |j − i| ≥ k shares one vector
if causal:
    delta_s = np.where(offset > 0, np.nan, delta_s)  # no value for a key after its query"""
#: Copy as Python: the Token-swap layer's relative key term and relative values.
SWAP_SNIPPET = """\
rel = np.clip(np.subtract.outer(np.arange(n), np.arange(n)).T, -clip_k, clip_k) + clip_k  # [i, j]: clip(j − i) + k


def score(q, k):
    \"\"\"q_i·w^K_clip(j−i)/√d_h for every head (the keys themselves are not used).\"\"\"
    qa = q @ w_key.T  # q_i·w_r for every r: (heads, n, 2k + 1)
    return np.take_along_axis(qa, np.broadcast_to(rel, qa.shape[:-1] + (n,)), axis=-1) / np.sqrt(dh)


def value(weights):
    \"\"\"Σ_j a_ij w^V_clip(j−i) for every head: (heads, n, d_h).\"\"\"
    return np.einsum("hij,ijr,rd->hid", weights, np.eye(2 * clip_k + 1)[rel], w_value)"""


def table_snippet(name: str, salt: int, width: str, what: str) -> str:
    return TABLE_SNIPPET.format(name=name, salt=salt, d=width, what=what, max_clip=MAX_CLIP)


def clip_offsets(delta, k: int) -> np.ndarray:
    """clip(δ, k) = max(−k, min(k, δ)) for offsets δ = j − i (key minus query)."""
    return np.clip(np.asarray(delta, dtype=np.int64), -int(k), int(k))


@functools.lru_cache(maxsize=4)
def _table(head_dim: int, seed: int, salt: int) -> np.ndarray:
    # Rows for r = −MAX_CLIP … MAX_CLIP, so that changing k keeps every vector it had (row MAX_CLIP + r).
    return np.random.default_rng([seed, salt]).standard_normal((2 * MAX_CLIP + 1, head_dim))


def relative_vectors(k: int, head_dim: int, seed: int, kind: str = "key") -> np.ndarray:
    """The seeded, untrained w^K (``kind="key"``) or w^V: (2k + 1, d), row k + r is w_r, r = −k … k."""
    rows = _table(head_dim, seed, 13 if kind == "key" else 14)
    return rows[MAX_CLIP - int(k): MAX_CLIP + int(k) + 1]


def key_term(q: np.ndarray, keys: np.ndarray | None = None, *, wk: np.ndarray, k: int) -> np.ndarray:
    """q_i·w^K_clip(j−i)/√d for one or more heads: q (..., n, d) → (..., n, n) (``keys`` are not used)."""
    n, d = q.shape[-2], q.shape[-1]
    pos = np.arange(n)
    idx = clip_offsets(pos[None, :] - pos[:, None], k) + k  # [i, j]
    qa = q @ wk.T  # (..., n, 2k + 1): q_i·w_r for every r
    return np.take_along_axis(qa, np.broadcast_to(idx, qa.shape[:-1] + (n,)), axis=-1) / math.sqrt(d)


def value_term(weights: np.ndarray, *, wv: np.ndarray, k: int) -> np.ndarray:
    """Σ_j α_ij w^V_clip(j−i): weights (..., n, n) → (..., n, d)."""
    n = weights.shape[-1]
    pos = np.arange(n)
    onehot = np.eye(2 * k + 1)[clip_offsets(pos[None, :] - pos[:, None], k) + k]  # (n, n, 2k + 1)
    return np.einsum("...ij,ijr,rd->...id", weights, onehot, wv)


class Shaw(Scheme):
    snippet_reads = ("offsets",)  # helpers its snippets write out (see Scheme.snippet_reads)
    id = "shaw"
    title = "Shaw (relative)"
    colour = "#8C564B"  # a brown of its own (once the learned table's orange: alike at 720p); dashed as a second cue
    line = "dash"
    symbol = "t1"
    order = 32
    description = ("Learned vectors for the clipped distance clip(j − i, k) added to the keys (and values): "
                   "relative, and every distance past k shares one vector.")
    sources = (Source("Shaw, Uszkoreit & Vaswani 2018, “Self-Attention with Relative Position "
                      "Representations”, NAACL", 2018, "https://arxiv.org/abs/1803.02155"),)
    kind = "score"
    relative = True
    bounded = True
    parameters = (
        Parameter("head_dim", 64, 2, 1024, "head dim d", field="head_dim"),
        Parameter("k", CLIP, 1, MAX_CLIP, "clipping k", help="distances |j − i| ≥ k share one vector "
                  "(Shaw et al.: about the same quality for any k ≥ 2)"),
    )
    depends_on = ("head_dim", "content", "seed", "causal", "params")
    used_by = ("the Transformer of Shaw et al. 2018 (WMT 2014 translation) and Music Transformer (Huang et al. "
               "2019, ICLR); T5 and Transformer-XL refined it")
    where = "inside the score: q·(k + w^K_clip(j−i)), and w^V_clip(j−i) added to the values"
    relation = "relative: depends on clip(j − i, k) only"
    swap_label = "Shaw relative (keys, values)"
    swap_note = ("Seeded vectors for clip(j − i, 4) added to the keys and values (Shaw et al. 2018); "
                 "distances past 4 share one.")
    in_lab = True
    lab_note = "learned vectors for clipped distances added to keys and values (Shaw et al. 2018)"
    shown_by_default = False
    lab_by_default = False

    def clip(self, req) -> int:
        return int(self.param(req, "k"))

    def parameters_added(self, req: Query) -> int:
        return 2 * (2 * self.clip(req) + 1) * int(req.head_dim)

    def parameters_text(self, req: Query) -> str:
        k = self.clip(req)
        return (f"keys and values: 2 × (2k + 1) × d = 2 × {2 * k + 1} × {req.head_dim} = "
                f"{self.parameters_added(req):,} per layer")

    def past_training(self, req: Query) -> str:
        k = self.clip(req)
        return (f"defined at every distance: all |j − i| ≥ k = {k:,} share one vector, so nothing past "
                f"{'L_train' if k < req.l_train else 'k'} is new (and nothing beyond k is told apart)")

    # -- Schemes panel ------------------------------------------------------------------------------
    def formula_line(self, st: SchemesSetup) -> str:
        k = dict(st.params_of(self.id))["k"]
        return (f"<b>Shaw</b>: score = q<sub>i</sub>·(k<sub>j</sub> + w<sup>K</sup><sub>clip(j−i, k)</sub>)/√d, "
                f"k = {k}: {2 * k + 1} learned vectors; |j − i| ≥ {k} all share w<sub>±{k}</sub>")

    def offsets(self, req, delta) -> np.ndarray:
        """ΔS as a function of δ = j − i: c̄·w^K_clip(δ)/√d (c̄: the mean content vector)."""
        k, d = self.clip(req), int(req.head_dim)
        cbar = content_vectors(d, req.content, req.seed).mean(axis=0)
        per_r = relative_vectors(k, d, req.seed) @ cbar / math.sqrt(d)
        return per_r[clip_offsets(delta, k) + k]

    def score_blocks(self, req: Query, bl):
        n = bl.length
        check_size(2 * n - 1, what="Shaw score row")
        return relative_block_means(self.offsets(req, np.arange(-(n - 1), n)), bl, req.causal)

    def matrix_marks(self, req: Query):
        k = self.clip(req)
        if k >= req.l_eval:
            return ()
        marks = ((float(k), f"clipping distance k = {k}: constant beyond"),)
        return marks if req.causal else marks + ((float(-k), f"clipping distance −k = −{k}"),)

    def distance_values(self, req: Query, dist):
        k = self.clip(req)
        marks = ((float(k), f"k = {k}: constant beyond"),) if k < dist[-1] else ()
        return Curve(dist, self.offsets(req, -dist), marks=marks)

    def beyond_plot(self, req: Query):
        k = self.clip(req)
        n = max(int(req.l_eval), int(req.l_train)) + 1
        dist = np.concatenate([[0], np.unique(np.geomspace(1, n, 512).round().astype(np.int64))])
        return PlotSpec(f"Shaw: distances ≥ k = {k} share the vector w_−k", dist.astype(float),
                        clip_offsets(-dist, k).astype(float), "distance Δ = i − j", "vector used: clip(j − i, k)",
                        marks=((float(k), f"k = {k}"), (float(req.l_train), "L_train")), log_x=True, step=True)

    def score_snippet(self, req: Query):
        return SnippetPart(table_snippet("w_key", 13, "d", "the seeded, untrained key vectors") + SCORE_SNIPPET,
                           params=(("clip_k", self.clip(req), "clipping distance k"),))

    def beyond_snippet(self, req: Query):
        return SnippetPart("x = np.concatenate([[0], np.unique(np.geomspace(1, max(l_eval, l_train) + 1, 512)"
                           ".round())])  # Δ\n"
                           "y = np.clip(-x, -clip_k, clip_k)  # the vector used: clip(j − i, k), j − i = −Δ",
                           params=(("clip_k", self.clip(req), "clipping distance k"),))

    def swap_snippet(self, st: SwapSetup):
        return SnippetPart(table_snippet("w_key", 13, "dh", "seeded key vectors")
                           + table_snippet("w_value", 14, "dh", "seeded value vectors") + SWAP_SNIPPET,
                           defines=("score", "value"), params=(("clip_k", SWAP_CLIP, "clipping distance k"),))

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        dh = d_model // heads
        wk = relative_vectors(SWAP_CLIP, dh, seed, "key")
        wv = relative_vectors(SWAP_CLIP, dh, seed, "value")
        return SwapTerms(score=functools.partial(key_term, wk=wk, k=SWAP_CLIP),
                         value=functools.partial(value_term, wv=wv, k=SWAP_CLIP))

    def swap_reason(self, st: SwapSetup) -> str:
        return (f"Shaw's scheme adds a vector for clip(j − i, {SWAP_CLIP}) to every key and value, and the swap "
                "changed the offsets between the swapped words and the others (offsets past "
                f"{SWAP_CLIP} all share one vector).")

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        return {"score": f"q<sub>i</sub>·(k<sub>j</sub> + w<sup>K</sup><sub>clip(j−i)</sub>)/√{dh}",
                "notes": [f"output: Σ<sub>j</sub> a<sub>ij</sub>(v<sub>j</sub> + w<sup>V</sup><sub>clip(j−i)</sub>), "
                          f"clip to ±{SWAP_CLIP}; seeded, untrained vectors"]}

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        import torch
        from torch import nn

        k = CLIP

        class ShawPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            needs_weights = True

            def setup_layers(self, layers: int) -> None:
                dh = self.d_model // self.heads
                # Per layer, shared by the heads (as the paper): 2k + 1 vectors for keys and as many for values.
                self.wk = nn.ModuleList(nn.Embedding(2 * k + 1, dh) for _ in range(layers))
                self.wv = nn.ModuleList(nn.Embedding(2 * k + 1, dh) for _ in range(layers))
                for e in (*self.wk, *self.wv):
                    nn.init.normal_(e.weight, std=dh**-0.5)

            def _index(self, n, device):
                def build():
                    pos = np.arange(n)
                    return torch.tensor(clip_offsets(pos[None, :] - pos[:, None], k) + k, device=device)

                return self.cached("shaw", n, device, build)

            def score_extra(self, layer, q, keys):
                n, dh = q.shape[-2], q.shape[-1]
                qa = q @ self.wk[layer].weight.T.to(q.dtype)  # (b, h, n, 2k + 1)
                idx = self._index(n, q.device).expand(*qa.shape[:-1], n)
                return torch.gather(qa, -1, idx) / dh**0.5

            def value_extra(self, layer, weights):
                n = weights.shape[-1]
                idx = self._index(n, weights.device).expand(weights.shape)
                per_r = torch.zeros(*weights.shape[:-1], 2 * k + 1, dtype=weights.dtype, device=weights.device)
                per_r = per_r.scatter_add(-1, idx, weights)  # Σ of the weights of the keys at each clipped offset
                return per_r @ self.wv[layer].weight.to(weights.dtype)

        return ShawPosition(self, d_model, heads, train_len)


SCHEME = Shaw()
