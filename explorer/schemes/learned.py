"""A learned absolute position table, one row per trained position (GPT-2, BERT): nothing past its last row."""

from __future__ import annotations

import functools

import numpy as np

from ..encodings.blocks import additive_block_means, distance_grid
from ..encodings.learned import LearnedTable, RealRows, check_rows, learned_table
from ..encodings.table_stats import fit_width
from .base import (
    BAND_POINTS,
    Curve,
    NoEncoding,
    NoSnippet,
    NotShown,
    Parameter,
    Scheme,
    Source,
    SwapTerms,
    band,
    band_queries,
    content_vectors,
    lab_position_class,
)
from .query import Query, SchemesSetup, SwapSetup

#: Rows of the Token-swap panel's table: one for each place a sentence can have (its 64-token limit).
SWAP_TABLE_ROWS = 64

#: Largest learned table (L_train × d numbers) the live Schemes panel builds (128 MiB of float64).
LEARNED_LIVE_MAX = 2**24
#: Real learned tables for scale: (model, L_train, d_model) -> L_train·d_model numbers.
MODEL_TABLES = (("GPT-2", 1024, 768), ("BERT-base", 512, 768))


@functools.lru_cache(maxsize=2)
def table(l_train: int, head_dim: int, seed: int) -> LearnedTable:
    """The seeded table (cached: the same for every request with these three numbers)."""
    return LearnedTable(l_train, head_dim, seed)


@functools.lru_cache(maxsize=8)
def _swap_table(d_model: int, seed: int) -> LearnedTable:
    # One table per (d, seed) with a row for each of the places a sentence can have.
    return LearnedTable(SWAP_TABLE_ROWS, d_model, seed)


def too_large(l_train: int, head_dim: int) -> str:
    """Why the live panel does not build this learned table ("" when it does)."""
    if l_train * head_dim > LEARNED_LIVE_MAX:
        return (f"learned table L_train × d = {l_train} × {head_dim} = {l_train * head_dim:,} numbers is "
                f"more than the live view builds ({LEARNED_LIVE_MAX:,}); lower L_train or d")
    return ""


def model_tables_text() -> str:
    """'GPT-2 1,024 × 768 = 786,432; BERT-base 512 × 768 = 393,216' (computed, not typed)."""
    return "; ".join(f"{name} {lt:,} × {dm:,} = {lt * dm:,}" for name, lt, dm in MODEL_TABLES)


def real_rows(req) -> RealRows | None:
    """The real table a request carries, resolved by its job (None: the seeded one)."""
    t = getattr(req, "table", None)
    return t if isinstance(t, RealRows) else None


def rows_of(req):
    """The table the Schemes views of ``req`` draw: the real one it carries, else the seeded one (``lookup``)."""
    return real_rows(req) or table(req.l_train, req.head_dim, req.seed)


def row_limit(req) -> int:
    """M: the first position with no row (the real table's rows, else L_train)."""
    real = real_rows(req)
    return real.positions if real is not None else int(req.l_train)


def table_name(req) -> str:
    """Whose table: "GPT-2 (checkpoint)", "Lab: …", or "seeded random"."""
    real = real_rows(req)
    return real.name if real is not None else "seeded random"


def too_large_for(req) -> str:
    """:func:`too_large` for the seeded table ("" for a real one: its file already passed the size checks)."""
    return "" if real_rows(req) is not None else too_large(req.l_train, req.head_dim)


class Learned(Scheme):
    id = "learned"
    title = "Learned"
    colour = "#E69F00"
    symbol = "t"
    order = 30
    description = "A trained table with one row per position 0 … L_train − 1, added to the token embedding."
    sources = (
        Source("Radford et al. 2019, “Language Models are Unsupervised Multitask Learners” (GPT-2)", 2019,
               "https://openai.com/research/better-language-models"),
        Source("Devlin et al. 2019, “BERT”, NAACL", 2019, "https://arxiv.org/abs/1810.04805"),
    )
    kind = "input"
    relative = False
    bounded = True
    parameters = (
        Parameter("head_dim", 64, 2, 1024, "width d", field="head_dim"),
        Parameter("l_train", 512, 2, 131072, "rows (L_train)", field="l_train"),
    )
    depends_on = ("head_dim", "l_train", "content", "seed")
    used_by = "GPT-2 (Radford et al. 2019) and BERT (Devlin et al. 2019, NAACL)"
    where = "added to the input: one trained table row per position"
    relation = "absolute"
    swap_label = "learned (added)"
    swap_note = "α × a learned row per position added to each embedding (GPT-2, BERT); seeded, untrained."
    in_lab = True
    lab_note = "a trained table with one row per position 0 … L−1: nothing past L"

    def max_positions(self, train_len: int) -> int | None:
        return int(train_len)

    def past_training(self, req: Query) -> str:
        if real_rows(req) is not None:
            return (f"no row for positions ≥ {row_limit(req):,} ({table_name(req)}: M = {row_limit(req):,}): "
                    "the model cannot run past M at all")
        return f"no row for positions ≥ {req.l_train:,}: the model cannot run past L_train at all"

    def display_title(self, req: Query | None = None) -> str:
        return f"{self.title} · {table_name(req)}" if real_rows(req) is not None else self.title

    def matrix_title(self, req: Query) -> str:
        return f"{self.title} · {table_name(req)}"

    def missing_note(self, req: Query) -> str:
        return f"no row\nfor p ≥ {row_limit(req):,}" if req.l_eval > row_limit(req) else ""

    def formula_line(self, st: SchemesSetup) -> str:
        return (f"<b>Learned</b>: x<sub>p</sub> = e<sub>p</sub> + P[p], one trained row per position p = 0 … "
                f"{st.l_train - 1:,} ({st.l_train * st.head_dim:,} numbers); no row for p ≥ {st.l_train:,}")

    def parameters_added(self, req: Query) -> int:
        real = real_rows(req)
        if real is not None:
            return real.positions * real.width
        return int(req.l_train) * int(req.head_dim)

    def parameters_text(self, req: Query) -> str:
        real = real_rows(req)
        if real is not None:
            return f"M × D = {real.positions:,} × {real.width:,} = {self.parameters_added(req):,} ({real.name})"
        return f"L_train × d = {req.l_train:,} × {req.head_dim} = {self.parameters_added(req):,}"

    # -- Schemes panel ------------------------------------------------------------------------------
    def score_blocks(self, req: Query, bl):
        d = req.head_dim
        why = too_large_for(req)
        if why:
            raise NotShown(why)
        c = content_vectors(d, req.content, req.seed)
        valid = bl.starts + bl.counts <= row_limit(req)  # a block with any position ≥ M has no row
        m = np.full((bl.n, bl.n), np.nan)
        if valid.any():
            last = int(bl.starts[valid][-1] + bl.counts[valid][-1])
            rows = rows_of(req).lookup(np.arange(last))
            pbar = np.add.reduceat(rows, bl.starts[valid], axis=0) / bl.counts[valid][:, None]
            k = int(valid.sum())
            m[:k, :k] = additive_block_means(pbar, c.mean(axis=0), d)
        return m

    def curve_length(self, req: Query) -> int:
        return min(row_limit(req), int(req.l_eval))  # no rows past M: no pairs to average

    def distance_curve(self, req: Query, max_points):
        why = too_large_for(req)
        if why:
            empty = np.zeros(0)
            return Curve(empty, empty, note=why)
        return super().distance_curve(req, max_points)

    def distance_values(self, req: Query, dist):
        d, n = req.head_dim, self.curve_length(req)
        cbar = content_vectors(d, req.content, req.seed).mean(axis=0)
        # Exact mean via the table's autocorrelation along positions (FFT).
        rows = rows_of(req).lookup(np.arange(n))
        f = np.fft.rfft(rows, n=2 * n, axis=0)
        auto = np.fft.irfft((f * f.conj()).real.sum(axis=1), n=2 * n)[:n]  # Σ_i P_i·P_{i−Δ}
        u = rows @ cbar
        cu = np.concatenate([[0.0], np.cumsum(u)])
        cross = (cu[n] - cu[dist]) + cu[n - dist]
        mean = ((cross + auto[dist]) / (n - dist)) / np.sqrt(d)

        def score(q, keys):
            return (u[q] + u[keys] + rows[keys] @ rows[q]) / np.sqrt(d)

        band_d, _ = distance_grid(n, min(dist.size, BAND_POINTS))
        lo, hi = band(band_d, band_queries(n), score)
        return Curve(dist, mean, lo=lo, hi=hi, band_distance=band_d)

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        return SwapTerms(added=_swap_table(d_model, seed).lookup(n))

    uses_table = True

    def swap_terms_with_table(self, table, n, d_model, heads, seed, causal):
        if table is None:
            return self.swap_terms(n, d_model, heads, seed, causal)
        return SwapTerms(added=fit_width(table, n, d_model))

    def swap_reason_with_table(self, st: SwapSetup, table_name: str) -> str:
        return (f"α × row p of a real trained table ({table_name}, its first d_model principal directions) is "
                f"added to every embedding (α = {st.alpha:g}): the swapped words pick up each other's rows.")

    def swap_reason(self, st: SwapSetup) -> str:
        return (f"α × a learned row per position is added to every embedding (α = {st.alpha:g}; a seeded, "
                "untrained table): the swapped words pick up each other's rows.")

    def score_snippet(self, req: Query):
        if getattr(req, "table", None) is not None:
            return NoSnippet("a real table (a checkpoint's or the Lab's) cannot be written into a program; "
                             "Export → Save numbers gives the data")
        return NoSnippet("the table is drawn by torch's random generator, which numpy cannot reproduce; "
                         "Export → Save numbers gives the data")

    def swap_snippet(self, st: SwapSetup):
        return NoSnippet("the table is drawn by torch's random generator, which numpy cannot reproduce; "
                         "Export → Save numbers gives the data")

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        return {"input": f"Q, K, V = X·W<sub>Q</sub>, X·W<sub>K</sub>, X·W<sub>V</sub> with "
                         f"X = E + {st.alpha:.2f}·P[pos] (a learned table)"}

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        import torch
        from torch import nn

        class LearnedPosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def __init__(self, *args) -> None:
                super().__init__(*args)
                self.table = nn.Embedding(self.train_len, self.d_model)

            def add(self, x):
                return x + self.table(torch.arange(x.shape[1], device=x.device))

            def trained_table(self):
                return self.table.weight.detach().to("cpu", torch.float64).numpy().copy()

            def check_length(self, n: int) -> None:
                if n > self.train_len:
                    try:
                        check_rows(np.array([n - 1]), self.train_len)
                    except ValueError as exc:
                        raise NoEncoding(str(exc)) from None

        return LearnedPosition(self, d_model, heads, train_len)

    # -- CLI --------------------------------------------------------------------------------------
    def add_data_commands(self, subparsers, cli) -> None:
        p = subparsers.add_parser(self.id, help="rows of a seeded learned table, or a checkpoint's table, (N, D); "
                                                "N > M fails")
        p.add_argument("--max-positions", type=cli.whole(), metavar="M", help="rows of the seeded table")
        p.add_argument("--positions", type=cli.whole(), metavar="N",
                       help="rows to write (positions 0 … N-1); with --checkpoint, all of them by default")
        p.add_argument("--d-model", type=cli.whole(), metavar="D", help="width of the seeded table")
        p.add_argument("--seed", type=cli.whole(), default=0, metavar="S")
        p.add_argument("--checkpoint", metavar="PATH",
                       help="a .safetensors file, a .bin/.pt state dict, a Hugging Face model folder or cache entry: "
                            "write its learned position table (float64) instead of a seeded one")
        p.add_argument("--tensor", metavar="NAME", help="with --checkpoint: the 2-D tensor to write "
                                                        "(default: wpe / position_embeddings / embed_positions)")
        cli.out(p)
        p.set_defaults(func=functools.partial(_data_command, cli=cli))


def _data_command(args, cli) -> int:
    """``pe-explorer data learned``: the seeded table's rows, or a checkpoint's table (one line on any problem)."""
    if args.checkpoint is None:
        missing = [o for o, v in (("--max-positions", args.max_positions), ("--positions", args.positions),
                                  ("--d-model", args.d_model)) if v is None]
        if missing:
            raise cli.UsageError(f"data learned needs {', '.join(missing)} (or --checkpoint PATH)")
        if args.tensor is not None:
            raise cli.UsageError("--tensor names a tensor of --checkpoint; give --checkpoint PATH too")
        return cli.write(args, lambda: learned_table(args.max_positions, args.positions, args.d_model, args.seed),
                         shape=(args.positions, args.d_model))
    extra = [o for o, v in (("--max-positions", args.max_positions), ("--d-model", args.d_model)) if v is not None]
    if extra:
        raise cli.UsageError(f"{' and '.join(extra)} describe the seeded table; a checkpoint's table has its own size")

    def compute():
        from ..encodings.checkpoint import load_table

        t = load_table(args.checkpoint, args.tensor)
        if args.positions is None:
            return t.table
        check_rows(np.array([args.positions - 1]) if args.positions else np.array([0]), t.positions)
        return t.table[: args.positions]

    return cli.write(args, compute)

SCHEME = Learned()
