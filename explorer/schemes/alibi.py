"""ALiBi: a per-head linear penalty −m_h·(i − j) on the scores, no position vectors (Press et al. 2022).

Press, Smith & Lewis 2022, "Train Short, Test Long" (ICLR): no positional vectors at all; head h adds
``−m_h · (i − j)`` to the score of query i and key j, with the slopes m_h of :func:`alibi_slopes`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..encodings.blocks import Blocks, alibi_block_means, blocks, distance_grid
from ..encodings.errors import EncodingError, check_int, check_size
from .base import Curve, Parameter, Scheme, SnippetPart, Source, SwapTerms, lab_position_class, num_html
from .query import Query, SchemesSetup, SwapSetup
from .tabs import SchemeTab

MODES = ("causal", "symmetric")


def _power_of_two_slopes(n: int) -> list[float]:
    # 2^(-8k/n), k = 1..n: a geometric sequence starting at 2^(-8/n).
    start = 2.0 ** (-8.0 / n)
    return [start ** (k + 1) for k in range(n)]


def alibi_slopes(n_heads: int) -> np.ndarray:
    """Head slopes m_h, shape ``(n_heads,)``.

    For n a power of two: ``m_k = 2^(-8k/n)``, k = 1 … n (8 heads: 1/2, 1/4, …, 1/256).
    Otherwise the paper's rule (and its reference code ``get_slopes``): the n' = 2^⌊log2 n⌋ slopes
    of the nearest lower power of two, followed by every other slope (k = 1, 3, 5, …) of 2n',
    until there are n.  NOT the first n slopes of the next power of two.
    """
    n = check_int("heads", n_heads, minimum=1, maximum=4096)
    if n & (n - 1) == 0:
        return np.array(_power_of_two_slopes(n), dtype=np.float64)
    lower = 2 ** math.floor(math.log2(n))
    extra = _power_of_two_slopes(2 * lower)[0::2][: n - lower]
    return np.array(_power_of_two_slopes(lower) + extra, dtype=np.float64)


def alibi_bias(n_heads: int, positions: int, mode: str = "causal") -> np.ndarray:
    """Bias tensor B[h, i, j], shape ``(H, N, N)``.

    ``causal``: −m_h·(i − j) for j ≤ i, −inf for j > i (the future is masked, never biased).
    ``symmetric``: −m_h·|i − j| (encoder-style use).
    """
    if mode not in MODES:
        raise EncodingError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    slopes = alibi_slopes(n_heads)
    n = check_int("positions", positions, minimum=1)
    check_size(slopes.size, n, n, what="ALiBi bias")
    i = np.arange(n, dtype=np.float64)
    dist = i[:, None] - i[None, :]
    if mode == "symmetric":
        return -slopes[:, None, None] * np.abs(dist)[None] + 0.0  # + 0.0: no "-0.0" on the diagonal
    bias = -slopes[:, None, None] * dist[None] + 0.0
    bias[:, dist < 0] = -np.inf
    return bias


#: The "window" of an ALiBi head: the nearest keys that hold this share of the last query's weight.
WINDOW_SHARE = 0.9
#: Cells per axis of each head's tile in the ALiBi tab's bias mosaic, and of its attention heatmap.
TILE_CELLS = 96
ATTENTION_CELLS = 256
#: Distances in the tab's weight profiles (every one up to this many; a stride beyond).
PROFILE_POINTS = 32768
#: The bias colours saturate here: a key whose logit is 10 lower gets e^−10 ≈ 4.5·10⁻⁵ of the weight.
CLIP = 10.0


def slope_text(m: float) -> str:
    """A slope as a fraction when it is 1/2^k (all of them for power-of-two head counts)."""
    k = -math.log2(m)
    if abs(k - round(k)) < 1e-12:
        return f"1/{2 ** round(k)}"
    return f"{m:.3g}"


def attention_blocks(slope: float, n: int, keys: Blocks, queries: np.ndarray, causal: bool) -> np.ndarray:
    """Share of query i's attention in each key block, for softmax_j(−m·(i − j)) with content removed.

    Causal: keys j ≤ i, Σ_{j=s}^{t} e^{−m(i−j)} = e^{−m(i−t)}·(1 − e^{−m(t−s+1)})/(1 − e^{−m});
    symmetric: −m·|i − j| over all n keys.  Exact; NaN marks a key block wholly in the future.
    """
    m = float(slope)
    i = queries.astype(np.float64)[:, None]
    s = keys.starts.astype(np.float64)[None, :]
    e = (keys.starts + keys.counts - 1).astype(np.float64)[None, :]

    def left(a, b):  # Σ_{j=a}^{b} e^{−m(i−j)} · (1 − e^{−m}), for a ≤ b ≤ i (0 where b < a)
        with np.errstate(invalid="ignore", over="ignore"):
            v = np.exp(-m * (i - b)) * -np.expm1(-m * (b - a + 1))
        return np.where(b >= a, v, 0.0)

    def right(a, b):  # Σ_{j=a}^{b} e^{−m(j−i)} · (1 − e^{−m}), for i < a ≤ b
        with np.errstate(invalid="ignore", over="ignore"):
            v = np.exp(-m * (a - i)) * -np.expm1(-m * (b - a + 1))
        return np.where(b >= a, v, 0.0)

    mass = left(s, np.minimum(e, i))
    z = -np.expm1(-m * (i + 1))  # keys 0 … i
    if causal:
        out = mass / z
        out[np.broadcast_to(s > i, out.shape)] = np.nan
        return out
    mass = mass + right(np.maximum(s, i + 1), e)
    z = z + right(i + 1, np.full_like(i, n - 1.0))
    return mass / z


def profiles(slopes: np.ndarray, n: int, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The last query's weights w(Δ) = e^{−mΔ}(1 − e^{−m})/(1 − e^{−mn}) (Δ = 0 … n−1; causal and
    symmetric agree: the last query has no future), and each head's window: the fewest nearest keys
    holding ``WINDOW_SHARE`` of its weight, k = ⌈−ln(1 − share·(1 − e^{−mn}))/m⌉."""
    m = slopes[:, None]
    z = -np.expm1(-m * n)
    prof = np.exp(-m * dist[None, :]) * -np.expm1(-m) / z
    k = np.ceil(-np.log1p(-WINDOW_SHARE * z[:, 0]) / slopes - 1e-9)
    return prof, np.minimum(k, n)


@dataclass(frozen=True)
class AlibiTab:
    """The ALiBi tab's numbers: slopes, each head's bias as block means, one head's attention, every profile."""

    query: Query  # heads, alibi_head, l_eval, causal
    slopes: np.ndarray  # (H,)
    tiles: np.ndarray  # (H, t, t) block means of each head's bias; NaN = masked future
    tile_block: int
    attention: np.ndarray  # (n, n): share of each row's query attention in each key block
    attention_block: int
    attention_queries: np.ndarray  # the query position each attention row shows
    distance: np.ndarray  # Δ for the profiles
    profiles: np.ndarray  # (H, len(distance)): weight of key at distance Δ for the last query
    windows: np.ndarray  # (H,) nearest keys holding WINDOW_SHARE of the last query's weight
    stride: int


def alibi_tab(q: Query, tile_cells: int = TILE_CELLS, attention_cells: int = ATTENTION_CELLS) -> AlibiTab:
    """Slopes, each head's bias as block means, the chosen head's attention and every head's profile."""
    slopes = alibi_slopes(q.heads)
    tb = blocks(q.l_eval, tile_cells)
    tiles = np.stack([alibi_block_means(float(m), tb, q.causal) for m in slopes])
    ab = blocks(q.l_eval, attention_cells)
    queries = ab.starts + ab.counts - 1  # each row: the query at the end of its block
    att = attention_blocks(float(slopes[q.alibi_head]), q.l_eval, ab, queries, q.causal)
    dist, stride = distance_grid(q.l_eval, PROFILE_POINTS)
    prof, windows = profiles(slopes, q.l_eval, dist)
    return AlibiTab(q, slopes, tiles, tb.size, att, ab.size, queries, dist, prof, windows, stride)


#: Copy as Python: the head slopes (Press et al. 2022, ``get_slopes``) and the bias −m_h·|i − j|.
SLOPES_SNIPPET = """\
def power_of_two_slopes(h):
    start = 2.0 ** (-8.0 / h)  # m_k = 2^(−8k/h), k = 1 … h
    return [start ** (k + 1) for k in range(h)]


lower = 1 << (heads.bit_length() - 1)  # the largest power of two ≤ heads, then every other slope of 2·lower
slopes = np.array(power_of_two_slopes(lower) + power_of_two_slopes(2 * lower)[0::2][: heads - lower])"""
SCORE_SNIPPET = """
m = slopes[alibi_head]
delta = np.subtract.outer(pos, pos).astype(np.float64)  # i − j
# −m·(i − j), the future masked (NaN) when causal; −m·|i − j| otherwise
delta_s = np.where(delta < 0, np.nan, -m * delta) if causal else -m * np.abs(delta)"""
SWAP_SNIPPET = SLOPES_SNIPPET + """
pos = np.arange(n, dtype=np.float64)
bias = -slopes[:, None, None] * np.abs(pos[:, None] - pos[None, :])[None]  # −m_h·|i − j|"""


class ALiBi(Scheme):
    snippet_reads = ("slope",)  # helpers its snippets write out (see Scheme.snippet_reads)
    id = "alibi"
    title = "ALiBi"
    colour = "#D55E00"
    symbol = "star"
    order = 60
    description = "A per-head linear distance penalty −m_h·(i − j) added to the scores; no position vectors."
    sources = (Source("Press, Smith & Lewis 2022, “Train Short, Test Long: Attention with Linear Biases "
                      "Enables Input Length Extrapolation”, ICLR", 2022, "https://arxiv.org/abs/2108.12409"),)
    kind = "bias"
    relative = True
    bounded = False
    parameters = (
        Parameter("heads", 8, 1, 64, "heads", field="heads"),
        Parameter("alibi_head", 0, 0, 63, "head shown", field="alibi_head"),
    )
    depends_on = ("heads", "alibi_head", "causal")
    used_by = ("BLOOM (BigScience 2022, arXiv 2211.05100) and MPT (MosaicML 2023); scheme: Press, Smith & "
               "Lewis 2022 (ICLR)")
    where = "a bias −mₕ·(i − j) on each head's scores (no vectors)"
    relation = "relative"
    swap_label = "ALiBi (score bias)"
    swap_note = "−m·|i−j| added to the scores: a penalty growing with distance (Press et al. 2022)."
    in_lab = True
    lab_note = "a penalty growing with distance added to attention scores (Press et al. 2022)"
    tabs = (SchemeTab("alibi", "ALiBi", "ALiBi", 4, ("heads", "alibi_head", "l_eval", "causal"), alibi_tab,
                      "explorer.panels.schemes.alibi:AlibiView"),)

    def slope(self, req) -> float:
        return float(alibi_slopes(req.heads)[req.alibi_head])

    def past_training(self, req: Query) -> str:
        _, windows = profiles(alibi_slopes(req.heads), req.l_eval, np.zeros(1))
        return (f"the same linear bias at any length (made to extrapolate); heads keep "
                f"{int(WINDOW_SHARE * 100)}% of the last query's weight within the nearest "
                f"{int(windows.min()):,} … {int(windows.max()):,} keys")

    # -- Schemes panel ------------------------------------------------------------------------------
    def formula_line(self, st: SchemesSetup) -> str:
        m = alibi_slopes(st.heads)
        return (f"<b>ALiBi</b>: score + (−m<sub>h</sub>·(i − j)), head {st.alibi_head}: "
                f"m = {num_html(float(m[st.alibi_head]))} ({st.heads} heads: "
                f"{num_html(float(m[0]))} … {num_html(float(m[-1]))})")

    def score_blocks(self, req: Query, bl):
        return alibi_block_means(self.slope(req), bl, req.causal)

    def distance_values(self, req: Query, dist):
        return Curve(dist, -self.slope(req) * dist + 0.0)

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        # −m_h·|i − j|: with the causal mask this equals the causal ALiBi bias on every visible cell.
        pos = np.arange(n, dtype=np.float64)
        dist = np.abs(pos[:, None] - pos[None, :])
        return SwapTerms(bias=-alibi_slopes(heads)[:, None, None] * dist[None])

    def swap_reason(self, st: SwapSetup) -> str:
        slopes = alibi_slopes(st.heads)
        shown = ", ".join(f"{m:.3g}" for m in slopes)
        text = ("ALiBi adds −m·|i−j| to the scores, and the swap changed the distances between the swapped "
                f"words and the others (slope m = {shown}).")
        if st.heads == 1:
            text += (" One head gets the gentlest slope, 1/256, so the bias is tiny over a short sentence;"
                     " with 8 heads the first has m = 1/2.")
        return text

    def swap_invisible(self, st: SwapSetup, keeps_distances):
        if not keeps_distances:
            return None
        return ("ALiBi cannot see this swap — it mirrors the sentence",
                "Without the causal mask ALiBi adds −m·|i−j|, which depends only on the distance between "
                "two tokens. This swap keeps every distance (it mirrors the sentence), so the outputs are "
                "just relabelled. Swap two other tokens, or turn on the causal mask (ALiBi's real "
                "setting), and the difference becomes large.")

    def score_snippet(self, req: Query):
        return SnippetPart(SLOPES_SNIPPET + SCORE_SNIPPET)

    def swap_snippet(self, st: SwapSetup):
        return SnippetPart(SWAP_SNIPPET, defines=("bias",))

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        slopes = ", ".join(slope_text(m) for m in alibi_slopes(st.heads))
        return {"extra": " − m·|i−j|",
                "notes": [f"m = {slopes}" + (" (one per head)" if st.heads > 1 else "")]}

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        import torch

        class AlibiPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def bias(self, n, device, dtype):
                return self.cached("alibi", n, device, lambda: torch.tensor(
                    alibi_bias(self.heads, n, "causal"), dtype=dtype, device=device))

        return AlibiPosition(self, d_model, heads, train_len)

    # -- CLI --------------------------------------------------------------------------------------
    def add_data_commands(self, subparsers, cli) -> None:
        p = subparsers.add_parser(f"{self.id}-slopes", help="ALiBi head slopes, (H,)")
        p.add_argument("--heads", type=cli.whole(), required=True, metavar="H")
        cli.out(p)
        p.set_defaults(func=lambda args: cli.write(args, lambda: alibi_slopes(args.heads), shape=(args.heads,)))

        p = subparsers.add_parser(self.id, help="ALiBi bias, (H, N, N); causal (−inf above the diagonal) unless "
                                                "--symmetric")
        p.add_argument("--heads", type=cli.whole(), required=True, metavar="H")
        p.add_argument("--positions", type=cli.whole(), required=True, metavar="N")
        p.add_argument("--symmetric", action="store_true")
        cli.out(p)

        def run(args) -> int:
            def compute():
                return alibi_bias(args.heads, args.positions, "symmetric" if args.symmetric else "causal")

            meta = {"note": "null marks a masked (-inf) cell"} if not args.symmetric else None
            return cli.write(args, compute, meta, shape=(args.heads, args.positions, args.positions))

        p.set_defaults(func=run)


SCHEME = ALiBi()
