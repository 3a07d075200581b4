"""Writing arrays and files safely (no Qt): atomic writes and the --out formats.

Every write goes to a temporary file in the target folder and is then renamed over the
target, so a failing write (full disk, killed process) never leaves a partial file and
never destroys the previous one.
"""

from __future__ import annotations

import io
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np

ARRAY_FORMATS = (".npy", ".csv", ".json")
#: Largest array written as text (CSV/JSON).  Text costs 10–25 times the array's memory while it is
#: built (JSON: a Python float per number, then the string), so an array near the maths layer's
#: MAX_ELEMENTS (1 GiB of float64) would need 10–25 GiB: refused, with .npy (the array's own size)
#: offered instead.  16.7 M numbers are about 0.4 GB of text.
MAX_TEXT_ELEMENTS = 2**24


class OutputError(OSError):
    """A file could not be written (the message names the path and why)."""


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file and a rename; raise :class:`OutputError`."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"cannot write {target}: folder {folder} does not exist")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise OutputError(f"cannot write {target}: {reason}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return target


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def _json_safe(x):
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, list):
        return [_json_safe(v) for v in x]
    return x


def array_to_json_obj(arr: np.ndarray) -> dict:
    """``{"shape": [...], "data": nested lists}``; −inf/inf/NaN become null (JSON has no infinity)."""
    a = np.asarray(arr)
    return {"shape": list(a.shape), "data": _json_safe(a.tolist())}


def check_array_format(path: str | os.PathLike, ndim: int | None = None) -> str:
    """The output format from the extension; raise ValueError for an unknown one or CSV of 3-D data."""
    ext = Path(path).suffix.lower()
    if ext not in ARRAY_FORMATS:
        raise ValueError(f"--out must end in {', '.join(ARRAY_FORMATS)}; got {str(path)!r}")
    if ext == ".csv" and ndim is not None and ndim > 2:
        raise ValueError(f"CSV holds 1-D or 2-D data; this result is {ndim}-D — use .npy or .json")
    return ext


def encode_array(path: str | os.PathLike, arr: np.ndarray, meta: dict | None = None) -> bytes:
    """Serialise ``arr`` in the format given by ``path``'s extension."""
    ext = check_array_format(path, np.ndim(arr))
    a = np.asarray(arr)
    if ext != ".npy" and a.size > MAX_TEXT_ELEMENTS:
        raise ValueError(
            f"{a.size:,} numbers are too many for {ext[1:].upper()}: text output is limited to "
            f"{MAX_TEXT_ELEMENTS:,} numbers (it needs 10–25 times the memory of the array); use .npy"
        )
    if ext == ".npy":
        buf = io.BytesIO()
        np.save(buf, a)
        return buf.getvalue()
    if ext == ".csv":
        text = io.StringIO()
        np.savetxt(text, np.atleast_2d(a) if a.ndim == 1 else a, delimiter=",", fmt="%.17g")
        if a.ndim == 1:
            text = io.StringIO("\n".join(f"{v:.17g}" for v in a) + "\n")
        return text.getvalue().encode()
    obj = {**(meta or {}), **array_to_json_obj(a)}
    return json.dumps(obj).encode()


def write_array(path: str | os.PathLike, arr: np.ndarray, meta: dict | None = None) -> Path:
    """Atomically write ``arr`` as .npy, .csv (1-D/2-D) or .json."""
    return atomic_write_bytes(path, encode_array(path, arr, meta))
