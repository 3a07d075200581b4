"""The numbers behind a plot as CSV or NPY files."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from .images import ExportError, write_bytes

DATA_FORMATS = (".csv", ".npy")

def data_bytes(arrays: dict[str, np.ndarray], ext: str) -> bytes:
    """The named arrays behind a plot as CSV or NPY.

    CSV: one 2-D array (an image) as its matrix; 1-D arrays as columns under a header row of their
    names (shorter columns padded with empty cells).  NPY (``np.load`` without pickle): one array
    as itself; equal-length 1-D arrays as a structured array (``a["x"]``, ``a["pair 0 sin"]`` …);
    anything else as one structured record with a field per array.
    """
    ext = ext.lower()
    if ext not in DATA_FORMATS:
        raise ExportError(f"data files must end in {' or '.join(DATA_FORMATS)}; got {ext!r}")
    arrays = {str(k): np.asarray(v) for k, v in arrays.items() if v is not None}
    if not arrays:
        raise ExportError("this plot shows no data to export yet")
    for name, a in arrays.items():
        if a.dtype.kind not in "biuf":
            raise ExportError(f"{name!r} is not numeric ({a.dtype}); cannot export it")
    if ext == ".npy":
        buf = io.BytesIO()
        # Names outside Latin-1 (Δ, ≈, ω) need the NPY format 3.0 (NumPy ≥ 1.17 reads it); said here rather than
        # guessed by NumPy, which warns when it guesses.
        wide = any(not _latin1(k) for k in arrays)
        np.lib.format.write_array(buf, _npy_payload(arrays), version=(3, 0) if wide else None, allow_pickle=False)
        return buf.getvalue()
    return _csv(arrays).encode("utf-8")


def _latin1(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def _npy_payload(arrays: dict[str, np.ndarray]) -> np.ndarray:
    if len(arrays) == 1:
        return next(iter(arrays.values()))
    shapes = {a.shape for a in arrays.values()}
    if all(a.ndim == 1 for a in arrays.values()) and len(shapes) == 1:
        n = next(iter(shapes))[0]
        out = np.zeros(n, dtype=[(k, np.float64) for k in arrays])
        for k, a in arrays.items():
            out[k] = a
        return out
    out = np.zeros((), dtype=[(k, np.float64, a.shape) for k, a in arrays.items()])
    for k, a in arrays.items():
        out[k] = a
    return out


def _fmt(v: float) -> str:
    return "" if np.isnan(v) else f"{v:.17g}"


def _csv(arrays: dict[str, np.ndarray]) -> str:
    two_d = {k: a for k, a in arrays.items() if a.ndim == 2}
    one_d = {k: a for k, a in arrays.items() if a.ndim == 1}
    other = [k for k, a in arrays.items() if a.ndim not in (1, 2)]
    if other:
        raise ExportError(f"{other[0]!r} is {arrays[other[0]].ndim}-D; CSV holds tables — use NPY")
    if two_d and (one_d or len(two_d) > 1):
        raise ExportError("this plot holds several tables (an image and curves); CSV holds one — use NPY")
    if two_d:
        (a,) = two_d.values()
        return "\n".join(",".join(_fmt(float(v)) for v in row) for row in a.astype(np.float64)) + "\n"
    names = list(one_d)
    n = max(a.size for a in one_d.values())
    lines = [",".join(_csv_name(k) for k in names)]
    cols = [a.astype(np.float64) for a in one_d.values()]
    for i in range(n):
        lines.append(",".join(_fmt(c[i]) if i < c.size else "" for c in cols))
    return "\n".join(lines) + "\n"


def _csv_name(name: str) -> str:
    return '"' + name.replace('"', '""') + '"' if any(ch in name for ch in ',"\n') else name


def save_data(path: str | Path, arrays: dict[str, np.ndarray]) -> Path:
    return write_bytes(path, data_bytes(arrays, Path(path).suffix))
