"""The matplotlib baselines: what a notebook user does — on the full data, and redrawing its figure after a
slider change as ipywidgets and ipympl do — and our reduced figure."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from ..interrupts import check as check_interrupt


def _matplotlib():
    try:
        import matplotlib

        matplotlib.use("Agg", force=True)
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None
    return Figure, FigureCanvasAgg


def figure_items(panel) -> list:
    """What the panel shows, per plot: images, curves, markers and bars (the display data, not the widgets)."""
    import pyqtgraph as pg

    plots = []
    for pw in panel.visible_plots():
        items: list[tuple[str, np.ndarray | tuple[np.ndarray, np.ndarray]]] = []
        for it in pw.getPlotItem().items:
            if isinstance(it, pg.ImageItem) and it.image is not None:
                items.append(("image", np.asarray(it.image)))
            elif isinstance(it, pg.PlotDataItem):
                x, y = it.getOriginalDataset()
                if x is not None and y is not None and len(x):
                    items.append(("curve", (np.asarray(x), np.asarray(y))))
            elif isinstance(it, (pg.PlotCurveItem, pg.ScatterPlotItem)) and it.isVisible():
                x, y = it.getData()  # the Waves lanes and spectrum: curves and markers of their own
                if x is not None and y is not None and len(x):
                    kind = "curve" if isinstance(it, pg.PlotCurveItem) else "points"
                    items.append((kind, (np.asarray(x), np.asarray(y))))
            elif isinstance(it, pg.BarGraphItem):
                opts = it.opts
                if opts.get("x") is not None and opts.get("height") is not None:
                    items.append(("bars", (np.asarray(opts["x"]), np.asarray(opts["height"]))))
        if items:
            plots.append(items)
    return plots


def _grid(n: int) -> tuple[int, int]:
    cols = min(n, 3)
    return (n + cols - 1) // cols, cols


def reduced_update_ms(panel, repeats: int = 3) -> dict:
    """Per update: recompute the panel's jobs and redraw the display-resolution figure (a new one) with Agg."""
    mpl = _matplotlib()
    layout = figure_items(panel)
    if mpl is None or not layout:
        return {"p50": float("nan")}
    Figure, FigureCanvasAgg = mpl
    from .. import jobs
    from ..jobs.misc import WarmUpRequest

    # The panel's jobs ran in the compute process: torch is imported here, outside the timing, with
    # the one intra-op thread the compute process uses (its default pool crawls on a loaded 2-core machine).
    jobs.run(WarmUpRequest())
    rows, cols = _grid(len(layout))
    samples = []
    for _ in range(repeats):
        check_interrupt()
        t0 = time.perf_counter()
        for req in panel.requests(panel.state):
            full = dataclasses.replace(req, preview=False) if hasattr(req, "preview") else req
            jobs.run(full)
        fig = Figure(figsize=(12.8, 8.0), dpi=100)
        FigureCanvasAgg(fig)
        for k, items in enumerate(layout):
            ax = fig.add_subplot(rows, cols, k + 1)
            for kind, data in items:
                if kind == "image":
                    ax.imshow(data, aspect="auto", cmap="RdBu_r", interpolation="nearest")
                elif kind == "curve":
                    ax.plot(*data, lw=1)
                elif kind == "points":
                    ax.plot(*data, "o", ms=3)
                else:
                    ax.bar(*data)
        fig.canvas.draw()
        samples.append((time.perf_counter() - t0) * 1e3)
    return {"p50": float(np.median(samples))}


def _waves_full(panel) -> list:
    """Waves in a notebook: the whole N × d table (imshow) and each chosen pair's sine over all N
    positions (lines), computed by the same encoding code for the current parameters."""
    from ..encodings import sinusoidal

    st = panel.state
    table = sinusoidal(st.n_positions, st.d_model, st.base, st.variant)  # what a notebook computes: numpy
    x = np.arange(st.n_positions)
    lines = [(x, table[:, min(2 * i, st.d_model - 1)]) for i in st.pairs]
    return [([table], []), ([], lines)]


def notebook_arrays(panel) -> list:
    """Per visible plot, its exact full-resolution numbers (the panel's export data): 2-D tables and
    (x, y) lines over every position — what a notebook computes and plots.  Waves' export holds a
    large table as block extremes, so its notebook is written out (:func:`_waves_full`)."""
    if panel.panel_id == "waves":
        return _waves_full(panel)
    out = []
    for pw in panel.visible_plots():
        try:
            data = panel.export_data(pw)
        except Exception:  # noqa: BLE001 - a plot with nothing exportable is left out
            continue
        arrays = {k: np.asarray(v) for k, v in data.items() if np.asarray(v).dtype.kind in "fiub"}
        images = [a for a in arrays.values() if a.ndim == 2 and min(a.shape) > 1]
        cols = {k: a for k, a in arrays.items() if a.ndim == 1 and len(a)}
        x = cols.pop("x", None)
        lines = [(x if x is not None and len(x) == len(y) else np.arange(len(y)), y) for y in cols.values()]
        if images or lines:
            out.append((images, lines))
    return out


def full_update_ms(panel, repeats: int = 3) -> dict:
    """The notebook baseline: per update, compute the full data (the panel's exact export arrays — the
    full N × d table, lines over all positions) and update an existing figure (``set_data`` + ``draw``)."""
    mpl = _matplotlib()
    first = notebook_arrays(panel)
    if mpl is None or not first:
        return {"p50": float("nan")}
    Figure, FigureCanvasAgg = mpl
    fig = Figure(figsize=(12.8, 8.0), dpi=100)
    FigureCanvasAgg(fig)
    artists = _plot_arrays(fig, first)
    fig.canvas.draw()
    samples = []
    for _ in range(repeats):
        check_interrupt()
        t0 = time.perf_counter()
        _set_arrays(artists, notebook_arrays(panel))  # the notebook recomputes its arrays for the new parameter
        fig.canvas.draw()
        samples.append((time.perf_counter() - t0) * 1e3)
    return {"p50": float(np.median(samples)), "values": _values(first)}


def _plot_arrays(fig, arrays: list) -> list:
    """The notebook's figure: per plot, its tables as images and its lines; returns the artists per plot."""
    rows, cols = _grid(len(arrays))
    artists = []
    for k, (images, lines) in enumerate(arrays):
        ax = fig.add_subplot(rows, cols, k + 1)
        ims = [ax.imshow(a, aspect="auto", cmap="RdBu_r", interpolation="nearest") for a in images]
        lns = [ax.plot(x, y, lw=1)[0] for x, y in lines]
        artists.append((ims, lns))
    return artists


def _set_arrays(artists: list, arrays: list) -> None:
    """What a notebook does with new numbers: ``set_data`` on the artists it already has."""
    for (ims, lns), (images, lines) in zip(artists, arrays, strict=False):
        for im, a in zip(ims, images, strict=False):
            im.set_data(a)
        for ln, (x, y) in zip(lns, lines, strict=False):
            ln.set_data(x, y)


def _values(arrays: list) -> int:
    return int(sum(a.size for images, _ in arrays for a in images) + sum(len(y) for _, ls in arrays for _, y in ls))


class _FrontEnd:
    """The browser's side of ipympl, in-process: a "draw" message is answered with a draw request (as mpl.js
    does), and the picture sent back (the changed pixels, a PNG) is counted."""

    def __init__(self) -> None:
        self.asked = False
        self.sent: list[int] = []
        self.manager: Any = None  # matplotlib's FigureManagerWebAgg

    def send_json(self, content: dict) -> None:
        if content.get("type") == "draw":
            self.asked = True

    def send_binary(self, blob: bytes) -> None:
        self.sent.append(len(blob))

    def answer(self, force: bool = False) -> None:
        """Answer a "draw" message (or draw anyway): the canvas draws and sends what changed."""
        if self.manager is not None and (self.asked or force):
            self.asked = False
            self.manager.handle_json({"type": "draw"})


def interactive_update_ms(positions: list, updates: int = 8) -> dict:
    """The notebook a lecturer would make, redrawn after a slider change: ``positions`` holds the figure's
    arrays at a few slider positions (computed beforehand: the notebook's computing is not counted), and each
    update moves to the next one as an ipywidgets callback does — ``set_data`` on the existing artists,
    ``fig.canvas.draw_idle()``, ``fig.canvas.flush_events()``.

    ``p50`` is that update in an ipympl figure (``%matplotlib widget``): its canvas is matplotlib's WebAgg core,
    whose ``draw_idle`` asks the front end to draw; the front end's answer (in-process here, as ipympl's
    JavaScript does) is the Agg render and the PNG of the changed pixels sent back (``png_kb``).  ``agg_p50`` is
    the same update on a plain Agg canvas, whose ``draw_idle`` renders at once and sends nothing.  Without PIL
    (no WebAgg core) ``p50`` is the Agg one."""
    if not positions or not positions[0] or _matplotlib() is None:
        return {"p50": float("nan"), "agg_p50": float("nan"), "canvas": "none"}
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12.8, 8.0), dpi=100)
    FigureCanvasAgg(fig)
    agg = _updates(fig, positions, updates, None)
    out = {"p50": agg, "agg_p50": agg, "canvas": "agg", "updates": updates, "positions": len(positions),
           "values": _values(positions[0])}
    front = _FrontEnd()
    try:
        from matplotlib.backends.backend_webagg_core import FigureCanvasWebAggCore, FigureManagerWebAgg
    except ImportError:
        return out
    fig = Figure(figsize=(12.8, 8.0), dpi=100)
    front.manager = FigureManagerWebAgg(FigureCanvasWebAggCore(fig), 1)
    front.manager.add_web_socket(front)
    out["p50"] = _updates(fig, positions, updates, front)
    out["canvas"] = "webagg-core (ipympl's)"
    out["png_kb"] = float(np.median(front.sent[1:] or front.sent) / 1024) if front.sent else float("nan")
    return out


def _updates(fig, positions: list, updates: int, front: _FrontEnd | None) -> float:
    """The median time (ms) of ``updates`` slider changes of ``fig``, moving through ``positions``; ``front``
    answers the canvas's draw requests (None: a canvas that draws in ``draw_idle``)."""
    artists = _plot_arrays(fig, positions[0])
    if front is None:  # the figure as the cell first shows it
        fig.canvas.draw()
    else:
        front.answer(force=True)
    samples = []
    for i in range(updates):
        check_interrupt()
        data = positions[(i + 1) % len(positions)]
        t0 = time.perf_counter()
        _set_arrays(artists, data)
        fig.canvas.draw_idle()
        fig.canvas.flush_events()
        if front is not None:
            front.answer()
        samples.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(samples))
