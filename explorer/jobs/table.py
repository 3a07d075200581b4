"""Learned-table jobs: load a table (seeded stand-in, checkpoint, or the Lab's) and compute one view of it.

A request names its table by a :class:`TableSource` (small, comparable); the table itself is loaded in
the compute process and kept for the next view (:func:`load`).  A checkpoint's source carries the
file's size and modification time, so an edited file is read again.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field

import numpy as np

from ..encodings import table_stats as ts
from ..encodings.checkpoint import LoadedTable, load_table
from ..encodings.errors import EncodingError
from ..encodings.learned import LearnedTable, check_rows
from . import job

#: Largest matrix side drawn as an image (positions are taken with a stride past it).
MAX_IMAGE_SIDE = 2048
#: Largest heatmap drawn (positions × dims), in cells.
MAX_IMAGE_CELLS = 2**22
#: Most rows (positions) a view computes with and draws; past it every s-th row is used, and the view says so.
#: A table may hold 2²⁵ numbers however they are shaped: 16,777,216 × 2 took the similarity tab 73 s and 5.6 GB
#: before the process died, 2²⁵ × 1 crashed the similarity and spectrum tabs; real tables have 512–16,386 rows.
MAX_VIEW_ROWS = 2**15
#: Most rows drawn as dots (the PCA tab): 32,768 coloured dots took the UI thread 5–9 s to draw.
MAX_DOTS = 2**12
VIEWS = ("heatmap", "similarity", "pca", "spectrum", "norms")


@dataclass(frozen=True)
class TableSource:
    """Which table: ``random`` (rows, d, seed), ``file`` (path, tensor, stamp) or ``array`` (the Lab's)."""

    kind: str = "random"
    rows: int = 256
    d_model: int = 64
    seed: int = 0
    path: str = ""
    tensor: str = ""
    stamp: tuple = ()
    label: str = ""
    shape: tuple = ()
    data: bytes = field(default=b"", repr=False)

    @classmethod
    def checkpoint(cls, path: str, tensor: str = "") -> TableSource:
        """A file source stamped with the file's size and time (an edited file is a new source)."""
        path = os.path.abspath(os.path.expanduser(str(path)))  # the compute process reads the same file
        try:
            st = os.stat(path)
            stamp: tuple = (st.st_size, st.st_mtime_ns)
        except OSError:
            stamp = ()
        return cls(kind="file", path=str(path), tensor=tensor, stamp=stamp)

    @classmethod
    def from_array(cls, table: np.ndarray, label: str) -> TableSource:
        a = np.ascontiguousarray(table, dtype=np.float64)
        if a.ndim != 2:
            raise EncodingError(f"a position table is 2-D, got shape {a.shape}")
        return cls(kind="array", label=label, shape=tuple(int(s) for s in a.shape), data=a.tobytes())


@dataclass(frozen=True)
class TableInfo:
    """What the panel says about the table (no arrays)."""

    kind: str
    name: str
    source: str
    dtype: str
    positions: int
    d_model: int
    offset: int = 0
    config_max: int | None = None
    model: str = ""
    tensors: tuple = ()
    text: str = ""
    tensor_count: int = 0


@dataclass(frozen=True)
class TableRequest:
    source: TableSource
    view: str = "heatmap"
    probe: int = 0
    key: str = "table"


@dataclass(frozen=True)
class TableResponse:
    info: TableInfo
    view: str
    arrays: dict
    note: str = ""


@functools.lru_cache(maxsize=4)
def load(source: TableSource) -> LoadedTable:
    """The table ``source`` names (kept for the next views of the same table)."""
    if source.kind == "random":
        t = LearnedTable(source.rows, source.d_model, source.seed).embedding.weight.detach().numpy().copy()
        return LoadedTable(table=t, name=f"seeded random nn.Embedding (seed {source.seed})", source="",
                           dtype="float64", config_max=source.rows)
    if source.kind == "file":
        return load_table(source.path, source.tensor or None)
    if source.kind == "array":
        n = int(np.prod(source.shape)) if source.shape else 0
        if len(source.shape) != 2 or n * 8 != len(source.data):
            raise EncodingError("the table's bytes do not match its shape")
        t = np.frombuffer(source.data, dtype=np.float64).reshape(source.shape).copy()
        if not np.all(np.isfinite(t)):  # a Lab run that diverged (its saved table is null)
            raise EncodingError(f"{source.label or 'the table'} holds NaN or infinite values: nothing to show")
        return LoadedTable(table=t, name=source.label or "table", source="", dtype="float64",
                           config_max=int(source.shape[0]))
    raise EncodingError(f"unknown table source {source.kind!r}")


def info_of(source: TableSource, t: LoadedTable) -> TableInfo:
    if source.kind == "random":
        text = (f"No checkpoint open: a seeded random table ({t.positions:,} × {t.d_model:,}, seed {source.seed}), "
                "untrained")
    elif source.kind == "array":
        text = f"{t.name}: {t.positions:,} positions × {t.d_model:,}"
    else:
        text = t.describe()
    return TableInfo(kind=source.kind, name=t.name, source=t.source, dtype=t.dtype, positions=t.positions,
                     d_model=t.d_model, offset=t.offset, config_max=t.config_max, model=t.model,
                     tensors=t.tensors, text=text, tensor_count=t.tensor_count)


def limit(t: LoadedTable) -> int:
    """M: the first position with no row (the table's rows after the offset)."""
    return t.positions


def probe_text(t: LoadedTable, p: int) -> str:
    """'position 1,024 has no row: …' (the refusal, as the model would give it) or the row's norm."""
    try:
        check_rows(np.array([p]), limit(t))
    except EncodingError as exc:
        return f"refused: {exc}"
    return f"position {p:,} → row {p + t.offset:,} of {t.name}, |P[{p:,}]| = {np.linalg.norm(t.table[p]):.4g}"


def _stride(n: int, most: int) -> int:
    return max(1, -(-n // most))


def view_rows(t: LoadedTable) -> tuple[np.ndarray, int]:
    """(the rows a view uses, s): every s-th row, at most :data:`MAX_VIEW_ROWS` of them (s = 1: all)."""
    s = _stride(t.positions, MAX_VIEW_ROWS)
    return t.table[::s], s


def view_arrays(t: LoadedTable, view: str, probe: int = 0) -> tuple[dict, str]:
    """The arrays of one view of ``t`` (full resolution up to the view and image limits) and a note.

    Every view's arrays hold ``every`` (s: the view used rows 0, s, 2s, …; 1 for all rows); positions and
    offsets are given in the table's own positions, frequencies in cycles per position."""
    P = t.table
    n, d = P.shape
    Q, every = view_rows(t)
    m = Q.shape[0]
    positions = np.arange(0, n, every)
    if view == "heatmap":
        s = max(_stride(n * d, MAX_IMAGE_CELLS), every)
        top = float(np.percentile(np.abs(Q), 99.5)) or 1.0
        return {"table": P[::s], "stride": np.array([s]), "levels": np.array([-top, top]),
                "every": np.array([s])}, ""
    if view == "similarity":
        s = _stride(m, MAX_IMAGE_SIDE)
        U = ts.unit_rows(Q[::s])
        k, mean = ts.similarity_by_offset(Q)
        return {"cosine": U @ U.T, "stride": np.array([s * every]), "offset": k * every, "mean": mean,
                "every": np.array([every])}, ""
    if view == "pca":
        coords, share = ts.pca(Q, 3)
        s = _stride(m, MAX_DOTS)
        return {"coords": coords[::s], "share": share, "position": positions[::s],
                "every": np.array([every * s])}, ""
    if view == "spectrum":
        freqs, power = ts.column_power(Q)
        peak = np.argmax(power[1:], axis=0) if m > 1 else np.zeros(d, int)
        order = np.argsort(peak, kind="stable")
        total = power.sum(axis=0)
        share = np.divide(power, total, out=np.zeros_like(power), where=total > 0)[:, order]
        # log10 of each dim's share of its power: a trained table's few slow waves would leave a linear
        # map one colour; floored at 10⁻⁶ (a share of 0 has no logarithm).
        norm = np.log10(np.maximum(share, 1e-6))
        sin = ts.sinusoidal_like(Q, positions=positions)  # at the positions of the rows used
        return {"freq": freqs / every, "power": norm, "dims": order, "dominant": ts.dominant_frequencies(Q) / every,
                "sinusoidal": ts.dominant_frequencies(sin) / every, "every": np.array([every])}, ""
    if view == "norms":
        return {"position": positions, "norm": ts.row_norms(Q), "limit": np.array([limit(t)]),
                "every": np.array([every])}, probe_text(t, probe)
    raise EncodingError(f"unknown view {view!r}; valid: {', '.join(VIEWS)}")


@job(TableRequest)
def table_job(req: TableRequest) -> TableResponse:
    t = load(req.source)  # a failed read raises and is not kept: fixing the file and retrying works
    arrays, note = view_arrays(t, req.view, req.probe)
    return TableResponse(info=info_of(req.source, t), view=req.view, arrays=arrays, note=note)
