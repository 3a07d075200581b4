"""The numbers behind a plot, read back from its pyqtgraph items (the default for ``Panel.export_data``)."""

from __future__ import annotations

import re
import weakref

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from .titles import full_title


def plot_title(view) -> str:
    """The plot's title as plain text ("" when it has none)."""
    item = view.getPlotItem() if hasattr(view, "getPlotItem") else None
    text = full_title(item) if item is not None else ""
    return re.sub(r"<[^>]+>", "", text).strip()


#: image item -> the float64 array :func:`set_image` showed in it (in float32).
_EXACT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def set_image(item, data, **options) -> None:
    """Show ``data`` in ``item`` as float32 (half the bytes to draw) and keep the float64 array for export.

    The same data again, with no levels given, changes nothing: pyqtgraph would colour and repaint the same
    picture (a Token swap drag of α under NoPE gave its maps the same numbers at every step)."""
    exact = np.asarray(data, dtype=np.float64)
    if "levels" not in options and _shows(item, exact):
        return
    item.setImage(exact.astype(np.float32), **options)
    _EXACT[item] = exact


def _shows(item, exact: np.ndarray) -> bool:
    """True when ``item`` shows ``exact`` already (what :func:`set_image` gave it, still there)."""
    kept = _EXACT.get(item)
    if kept is None or kept.shape != exact.shape or item.image is None or item.image.shape != exact.shape:
        return False
    flat, old = exact.reshape(-1), kept.reshape(-1)
    step = max(1, flat.size // 64)  # a few cells first: a new picture is told apart without reading it all
    return bool(np.array_equal(flat[::step], old[::step], equal_nan=True)
                and np.array_equal(flat, old, equal_nan=True)
                and _image_data(item) is kept)  # not replaced since by a setImage of someone else's


def _image_data(item) -> np.ndarray:
    """The array behind an image: the float64 one :func:`set_image` kept, if the image still shows it."""
    exact = _EXACT.get(item)
    shown = np.asarray(item.image)
    if exact is not None and exact.shape == shown.shape and np.array_equal(exact.astype(shown.dtype), shown,
                                                                             equal_nan=True):
        return exact
    return shown


def _unique(name: str, taken: dict) -> str:
    out, n = name, 2
    while out in taken:
        out = f"{name} ({n})"
        n += 1
    return out


def plot_arrays(view) -> dict[str, np.ndarray]:
    """Every visible curve's x and y and every image in ``view``'s scene, name -> array.

    Curves that share the same x values are written as one ``x`` column followed by one column
    per curve (named by its legend name, else ``curve 1``, ``curve 2`` …); otherwise each curve
    gets its own ``<name> x`` / ``<name> y`` pair.  Images are their 2-D (or RGB) arrays as set
    with ``setImage`` (rows = the vertical axis).
    """
    scene = view.scene()
    if scene is None:
        return {}
    curves: list[tuple[str, np.ndarray, np.ndarray]] = []
    images: list[np.ndarray] = []
    # Bottom-to-top stacking order: items of equal z come in the order they were added.
    for item in scene.items(Qt.SortOrder.AscendingOrder):
        if not item.isVisible():
            continue
        if isinstance(item, pg.PlotDataItem):
            # The data as given, not getData()'s display copy: that is log10 on a log axis, and thinned by
            # downsampling and clip-to-view.
            data = item.getOriginalDataset()
            x, y = (None, None) if data is None else data
            if x is None or y is None or len(y) == 0:
                continue
            curves.append(
                (item.name() or "", np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
            )
        elif isinstance(item, pg.ImageItem) and item.image is not None:
            images.append(_image_data(item))
        elif isinstance(item, pg.BarGraphItem):
            opts = item.opts
            x = opts.get("x") if opts.get("x") is not None else opts.get("x0")
            h = opts.get("height")
            if x is not None and h is not None:
                curves.append(("bars", np.asarray(x, dtype=np.float64), np.asarray(h, dtype=np.float64)))
    out: dict[str, np.ndarray] = {}
    for k, img in enumerate(images):
        out[_unique("image" if k == 0 else f"image {k + 1}", out)] = img
    if curves:
        names = [c[0] or f"curve {k + 1}" for k, c in enumerate(curves)]
        shared = all(c[1].shape == curves[0][1].shape and np.array_equal(c[1], curves[0][1]) for c in curves)
        if shared:
            out[_unique("x", out)] = curves[0][1]
            for name, (_, _, y) in zip(names, curves, strict=True):
                out[_unique(name, out)] = y
        else:
            for name, (_, x, y) in zip(names, curves, strict=True):
                out[_unique(f"{name} x", out)] = x
                out[_unique(f"{name} y", out)] = y
    return out
