"""Colour maps without Qt: lookup tables equal to pyqtgraph's, so jobs can hand the UI finished RGBA images.

The view then only uploads (``ImageItem.setImage`` of a uint8 RGBA array takes no lookup on the UI
thread).  The maps are pyqtgraph's own files (``pyqtgraph/colors/maps/<name>.csv``), found without
importing pyqtgraph (which would import Qt), and interpolated the way ``ColorMap.getLookupTable``
does, byte for byte (tests compare the two).
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..encodings.errors import EncodingError

#: Entries of the lookup tables (indexing one is ~10× faster than interpolating per cell).
LUT_SIZE = 1024


def _maps_folder() -> Path:
    spec = importlib.util.find_spec("pyqtgraph")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise EncodingError("pyqtgraph's colour maps are not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "colors" / "maps"


@lru_cache(maxsize=16)
def stops(name: str) -> np.ndarray:
    """The colour stops of map ``name`` as (n, 3) uint8, read as pyqtgraph reads them (CSV maps)."""
    path = _maps_folder() / f"{name}.csv"
    if not path.is_file():
        raise EncodingError(f"unknown colour map {name!r}")
    rows = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line[0] == ";":
            continue
        comp = line.split(";", 1)[0].split(",")
        if len(comp) >= 3:
            rows.append([int(255 * float(c) + 0.5) for c in comp[:3]])
    return np.array(rows, dtype=np.int64)


@lru_cache(maxsize=16)
def lookup_table(name: str, size: int = LUT_SIZE) -> np.ndarray:
    """(size, 3) uint8, equal to ``pg.colormap.get(name).getLookupTable(0, 1, size, alpha=False)``."""
    ints = stops(name)
    # pyqtgraph keeps each stop as a QColor (16 bits a channel, read back as a float32 fraction) and
    # turns it into bytes by truncation, then interpolates the bytes and truncates again.
    frac = (ints * 257).astype(np.float32) / np.float32(65535)
    stop_bytes = (frac.astype(np.float64) * 255).astype(np.uint8)
    pos = np.linspace(0.0, 1.0, len(ints))
    x = np.linspace(0.0, 1.0, size)
    out = np.empty((size, 3), dtype=np.uint8)
    for ch in range(3):
        out[:, ch] = np.interp(x, pos, stop_bytes[:, ch])
    out.flags.writeable = False
    return out


#: Grey that an overview cell turns to when its block spans the whole range [−1, 1].
SPREAD_GREY = np.array([0.42, 0.42, 0.42])


#: Steps of a cell's spread in :func:`overview_rgba` (its mix with grey): each byte within one of the exact mix.
SPREAD_STEPS = 256


def overview_rgba(mins: np.ndarray, maxs: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """RGBA (uint8) for min/max overview cells: colour of the mid-range, mixed with grey by the spread.

    Spread (max − min)/2 is 0 for a block whose values agree and 1 for a block that runs through all
    of [−1, 1]; ``lut`` is a (n, 3) uint8 lookup table over [−1, 1] (e.g. :func:`lookup_table`).  Each cell
    is one look-up in a table of every (colour, spread step) pair, four bytes at once.
    """
    n = lut.shape[0]
    table = _mixed_table(np.ascontiguousarray(lut, dtype=np.uint8).tobytes(), n)
    mid = np.add(mins, maxs, dtype=np.float32, order="C")
    mid *= np.float32(0.5)
    np.clip(mid, -1.0, 1.0, out=mid)
    mid += np.float32(1.0)
    mid *= np.float32((n - 1) / 2)
    index = np.rint(mid, out=mid).astype(np.intp)
    if mins is not maxs:  # one value per cell (a full-resolution tile) has no spread: the first n entries
        spread = np.subtract(maxs, mins, dtype=np.float32)
        spread *= np.float32((SPREAD_STEPS - 1) / 2)
        np.clip(spread, 0.0, SPREAD_STEPS - 1, out=spread)
        index += np.rint(spread, out=spread).astype(np.intp) * n
    return table[index].view(np.uint8).reshape(index.shape + (4,))


@lru_cache(maxsize=8)
def _mixed_table(lut_bytes: bytes, n: int) -> np.ndarray:
    """(SPREAD_STEPS · n,) uint32 of RGBA bytes: entry s·n + i is colour i mixed with grey by s / (SPREAD_STEPS − 1)."""
    rgb = np.frombuffer(lut_bytes, dtype=np.uint8).reshape(n, 3).astype(np.float32)
    grey = (255 * SPREAD_GREY).astype(np.float32)
    spread = (np.arange(SPREAD_STEPS, dtype=np.float32) / np.float32(SPREAD_STEPS - 1))[:, None, None]
    out = np.empty((SPREAD_STEPS, n, 4), dtype=np.uint8)
    out[..., :3] = np.rint(rgb + spread * (grey - rgb))  # (1 − s)·rgb + s·grey, in bytes
    out[..., 3] = 255
    table = out.reshape(-1, 4).view(np.uint32).reshape(-1)
    table.flags.writeable = False
    return table
