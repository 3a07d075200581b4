"""T5's bucketed relative position bias: one learned scalar per head and distance bucket (Raffel et al. 2020).

Buckets exactly as T5's ``_relative_position_bucket`` (Hugging Face ``modeling_t5.py``), for the relative
position r = j − i (key minus query):

* bidirectional (encoder): half the buckets for r > 0, half for r ≤ 0, then on |r|;
* causal (decoder): r = −min(r, 0) (the future is masked anyway);
* of the B buckets left, the first B/2 are exact distances 0 … B/2 − 1; the rest grow logarithmically up to
  ``max_distance``, and every distance from there on shares the last bucket.

The logarithm is taken in float32, as T5 does, so the bucket edges match the reference exactly.
"""

from __future__ import annotations

import math

import numpy as np

from ..encodings.blocks import relative_block_means
from ..encodings.errors import EncodingError, check_int, check_size
from .base import (
    Curve,
    Parameter,
    PlotSpec,
    Scheme,
    SnippetPart,
    Source,
    SwapTerms,
    future_mask,
    lab_position_class,
)
from .query import Query, SchemesSetup, SwapSetup

NUM_BUCKETS = 32
MAX_DISTANCE = 128


def relative_position_bucket(relative_position, bidirectional: bool = True, num_buckets: int = NUM_BUCKETS,
                             max_distance: int = MAX_DISTANCE) -> np.ndarray:
    """T5's bucket index of each relative position r = j − i (an int array of the same shape)."""
    check_buckets(num_buckets, max_distance)
    r = np.asarray(relative_position, dtype=np.int64)
    buckets = np.zeros(r.shape, dtype=np.int64)
    nb = int(num_buckets)
    if bidirectional:
        nb //= 2
        buckets += (r > 0).astype(np.int64) * nb
        r = np.abs(r)
    else:
        r = -np.minimum(r, 0)
    max_exact = nb // 2
    is_small = r < max_exact
    with np.errstate(divide="ignore"):
        scaled = (np.log(r.astype(np.float32) / np.float32(max_exact))
                  / np.float32(math.log(max_distance / max_exact)) * np.float32(nb - max_exact))
    large = max_exact + np.where(is_small, 0, scaled).astype(np.int64)
    large = np.minimum(large, nb - 1)
    return buckets + np.where(is_small, r, large)


def check_buckets(num_buckets: int, max_distance: int) -> None:
    """Refuse bucket settings T5's formula cannot use (it divides by log(max_distance / exact buckets))."""
    nb = check_int("num_buckets", num_buckets, minimum=4, maximum=1024)
    md = check_int("max_distance", max_distance, minimum=2, maximum=2**31)
    if md <= nb // 2:
        raise EncodingError(f"max_distance ({md}) must exceed the exact buckets ({nb // 4} … {nb // 2}); "
                            f"use max_distance ≥ num_buckets")


def bucket_values(heads: int, num_buckets: int, seed: int) -> np.ndarray:
    """The seeded, untrained bias table (heads, num_buckets) ~ N(0, 1): one scalar per head and bucket."""
    return np.random.default_rng([seed, 5]).standard_normal((heads, num_buckets))


def bucket_edges(buckets: np.ndarray, distance: np.ndarray) -> list[tuple[float, str]]:
    """(distance, label) where the bucket index changes along ``distance`` (the first distance of each)."""
    change = np.flatnonzero(np.diff(buckets)) + 1
    return [(float(distance[k]), f"b{int(buckets[k])}") for k in change]


#: Copy as Python: T5's ``_relative_position_bucket`` (the log in float32, as T5) and the seeded table.
BUCKET_SNIPPET = """\
def bucket(r, bidirectional):
    \"\"\"T5's bucket of each relative position r = j − i (Raffel et al. 2020; HF modeling_t5.py).\"\"\"
    r = np.asarray(r, dtype=np.int64)
    nb, out = num_buckets, np.zeros(r.shape, dtype=np.int64)
    if bidirectional:
        nb //= 2
        out += (r > 0).astype(np.int64) * nb
        r = np.abs(r)
    else:
        r = -np.minimum(r, 0)
    exact = nb // 2  # distances 0 … exact − 1 get a bucket each, the rest logarithmic ones
    with np.errstate(divide="ignore"):
        scaled = (np.log(r.astype(np.float32) / np.float32(exact))
                  / np.float32(math.log(max_distance / exact)) * np.float32(nb - exact))
    large = np.minimum(exact + np.where(r < exact, 0, scaled).astype(np.int64), nb - 1)
    return out + np.where(r < exact, r, large)"""
SCORE_SNIPPET = """


table = np.random.default_rng([seed, 5]).standard_normal((heads, num_buckets))[alibi_head]  # b[bucket]
rel = np.subtract.outer(pos, pos).T  # j − i
delta_s = table[bucket(rel, not causal)]
if causal:
    delta_s = np.where(rel > 0, np.nan, delta_s)  # no key after its query"""
SWAP_SNIPPET = BUCKET_SNIPPET + """


table = np.random.default_rng([seed, 5]).standard_normal((heads, num_buckets))  # seeded, untrained b_h
pos = np.arange(n)
bias = table[:, bucket(pos[None, :] - pos[:, None], not causal)]  # b_h[bucket(j − i)]"""


class T5Bias(Scheme):
    snippet_reads = ("values", "buckets")  # helpers its snippets write out (see Scheme.snippet_reads)
    id = "t5"
    title = "T5 bias"
    colour = "#00B4E0"  # sky blue turned towards cyan: #56B4E9 shared the sinusoidal blue's hue and the dark
    # themes' lightness clamp made the two one colour (ΔE 9.6; tests/test_colour_meaning.py)
    symbol = "h"
    order = 70
    description = ("A learned scalar per head and distance bucket added to the scores: exact buckets near, "
                   "logarithmic ones far, one shared bucket past max_distance.")
    sources = (
        Source("Raffel et al. 2020, “Exploring the Limits of Transfer Learning with a Unified Text-to-Text "
               "Transformer”, JMLR 21(140)", 2020, "https://arxiv.org/abs/1910.10683"),
        Source("Chung et al. 2022, “Scaling Instruction-Finetuned Language Models” (Flan-T5)", 2022,
               "https://arxiv.org/abs/2210.11416"),
    )
    kind = "bias"
    relative = True
    bounded = True
    parameters = (
        Parameter("heads", 8, 1, 64, "heads", field="heads"),
        Parameter("alibi_head", 0, 0, 63, "head shown", field="alibi_head"),
        Parameter("num_buckets", NUM_BUCKETS, 4, 256, "buckets",
                  help="distance buckets per direction pair (T5: 32)"),
        Parameter("max_distance", MAX_DISTANCE, 8, 65536, "max distance",
                  help="distances from here on share the last bucket (T5: 128)"),
    )
    depends_on = ("heads", "alibi_head", "causal", "seed", "params")
    curve_depends_on = depends_on  # its distance curve changes with the mask too (not only the matrix)
    used_by = "T5 (Raffel et al. 2020, JMLR) and Flan-T5 (Chung et al. 2022)"
    where = "a learned scalar per head and distance bucket added to the scores (no vectors)"
    relation = "relative: the bias depends on the bucket of j − i only"
    swap_label = "T5 bias (score bias)"
    swap_note = "A seeded scalar per head and distance bucket added to the scores (Raffel et al. 2020)."
    in_lab = True
    lab_note = "a learned scalar per head and distance bucket added to the scores (T5, Raffel et al. 2020)"
    # Offered everywhere, ticked by the user: the classic six stay the default comparison.
    shown_by_default = False
    lab_by_default = False

    def buckets(self, req, relative_position, bidirectional: bool) -> np.ndarray:
        return relative_position_bucket(relative_position, bidirectional, self.param(req, "num_buckets"),
                                        self.param(req, "max_distance"))

    def values(self, req) -> np.ndarray:
        return bucket_values(req.heads, self.param(req, "num_buckets"), req.seed)[req.alibi_head]

    def check_setup(self, st: SchemesSetup) -> str:
        nb, md = (dict(st.params_of(self.id))[k] for k in ("num_buckets", "max_distance"))
        try:
            check_buckets(nb, md)
        except EncodingError as exc:
            return f"T5: {exc}"
        return ""

    def parameters_added(self, req: Query) -> int:
        return int(req.heads) * int(self.param(req, "num_buckets"))

    def parameters_text(self, req: Query) -> str:
        return f"heads × buckets = {req.heads} × {self.param(req, 'num_buckets')} = {self.parameters_added(req):,}"

    def past_training(self, req: Query) -> str:
        md = self.param(req, "max_distance")
        return (f"defined at every distance, but every distance ≥ {md:,} shares one bucket: beyond it the "
                "bias is flat, so far keys all look alike")

    # -- Schemes panel ------------------------------------------------------------------------------
    def formula_line(self, st: SchemesSetup) -> str:
        nb, md = (dict(st.params_of(self.id))[k] for k in ("num_buckets", "max_distance"))
        mode = "causal" if st.causal else "bidirectional"
        exact = nb // 2 if st.causal else nb // 4  # bidirectional: half the buckets for each direction
        return (f"<b>T5</b>: score + b<sub>h</sub>[bucket(j − i)], {nb} {mode} buckets: exact below {exact}, "
                f"logarithmic to max_distance = {md:,}, one shared bucket beyond")

    def score_blocks(self, req: Query, bl):
        n = bl.length
        check_size(2 * n - 1, what="T5 bias row")
        delta = np.arange(-(n - 1), n)
        b = self.values(req)[self.buckets(req, delta, not req.causal)]
        return relative_block_means(b, bl, req.causal)

    def distance_values(self, req: Query, dist):
        buckets = self.buckets(req, -dist, not req.causal)
        mean = self.values(req)[buckets]
        # The exact buckets change at every distance: mark only where the logarithmic ones begin.
        exact = self.param(req, "num_buckets") // (2 if req.causal else 4)
        marks = [m for m in bucket_edges(buckets, dist) if m[0] >= exact]
        md = self.param(req, "max_distance")
        if md < dist[-1] and not any(abs(x - md) < 1e-9 for x, _ in marks):
            marks.append((float(md), "max_distance"))
        return Curve(dist, mean, marks=tuple(marks))

    def beyond_plot(self, req: Query):
        n = max(int(req.l_eval), int(req.l_train)) + 1
        dist = np.unique(np.geomspace(1, n, 512).round().astype(np.int64))
        dist = np.concatenate([[0], dist])
        md = self.param(req, "max_distance")
        buckets = self.buckets(req, -dist, not req.causal)
        return PlotSpec(f"T5: distances ≥ max_distance = {md:,} share one bucket", dist.astype(float),
                        buckets.astype(float), "distance Δ = i − j", "bucket index",
                        marks=((float(md), "max_distance"), (float(req.l_train), "L_train")),
                        log_x=True, step=True)

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        pos = np.arange(n)
        rel = pos[None, :] - pos[:, None]  # j − i
        table = bucket_values(heads, NUM_BUCKETS, seed)
        return SwapTerms(bias=table[:, relative_position_bucket(rel, not causal)])

    def swap_reason(self, st: SwapSetup) -> str:
        return ("T5 adds a scalar per head for the bucket of j − i to every score; the swap changed the "
                "offsets between the swapped words and the others, so it changed their buckets.")

    def score_snippet(self, req: Query):
        return SnippetPart(BUCKET_SNIPPET + SCORE_SNIPPET, imports=("math",),
                           params=(("num_buckets", self.param(req, "num_buckets"), "T5's buckets"),
                                   ("max_distance", self.param(req, "max_distance"), "past it one bucket")))

    def beyond_snippet(self, req: Query):
        return SnippetPart(BUCKET_SNIPPET + "\n\n\nx = np.concatenate([[0], np.unique(np.geomspace("
                           "1, max(l_eval, l_train) + 1, 512).round())])  # Δ\n"
                           "y = bucket(-x, not causal).astype(np.float64)  # the bucket of j − i = −Δ",
                           imports=("math",),
                           params=(("num_buckets", self.param(req, "num_buckets"), "T5's buckets"),
                                   ("max_distance", self.param(req, "max_distance"), "past it one bucket")))

    def swap_snippet(self, st: SwapSetup):
        return SnippetPart(SWAP_SNIPPET, defines=("bias",), imports=("math",),
                           params=(("num_buckets", NUM_BUCKETS, "T5's buckets"),
                                   ("max_distance", MAX_DISTANCE, "distances past it share a bucket")))

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        mode = "causal" if st.causal else "bidirectional"
        return {"extra": " + b<sub>h</sub>[bucket(j − i)]",
                "notes": [f"{NUM_BUCKETS} {mode} buckets, max_distance {MAX_DISTANCE} (T5)"]}

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        import torch
        from torch import nn

        class T5Position(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def __init__(self, *args) -> None:
                super().__init__(*args)
                self.table = nn.Embedding(NUM_BUCKETS, self.heads)  # as T5's relative_attention_bias

            def bias(self, n, device, dtype):
                def build():
                    pos = np.arange(n)
                    idx = torch.tensor(relative_position_bucket(pos[None, :] - pos[:, None], False),
                                       device=device)
                    return idx, torch.tensor(future_mask(n), dtype=dtype, device=device)

                idx, mask = self.cached("t5", n, device, build)
                return self.table(idx).permute(2, 0, 1).to(dtype) + mask  # trained: gathered every step

        return T5Position(self, d_model, heads, train_len)

    # -- CLI --------------------------------------------------------------------------------------
    def add_data_commands(self, subparsers, cli) -> None:
        p = subparsers.add_parser(f"{self.id}-buckets", help="T5's bucket index of every (query i, key j), (N, N)")
        p.add_argument("--positions", type=cli.whole(), required=True, metavar="N")
        p.add_argument("--buckets", type=cli.whole(), default=NUM_BUCKETS, metavar="B", help="default 32")
        p.add_argument("--max-distance", type=cli.whole(), default=MAX_DISTANCE, metavar="M", help="default 128")
        p.add_argument("--bidirectional", action="store_true", help="encoder buckets (default: causal)")
        cli.out(p)

        def compute(args):
            n = check_int("positions", args.positions, minimum=1, maximum=32768)
            pos = np.arange(n)
            return relative_position_bucket(pos[None, :] - pos[:, None], args.bidirectional, args.buckets,
                                            args.max_distance)

        p.set_defaults(func=lambda args: cli.write(args, lambda: compute(args),
                                               {"rows": "query i", "columns": "key j",
                                                "value": "bucket of j - i"},
                                               shape=(args.positions, args.positions)))


SCHEME = T5Bias()
