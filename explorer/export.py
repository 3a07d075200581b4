"""Images, data and animations out of the app: PNG (1×/2×/4× or a width), SVG, clipboard, CSV/NPY, GIF/MP4.

Everything here works on live widgets and plots on the UI thread and is used by the export menus,
the main window and the headless ``pe-explorer export`` command alike.

* A plot (one pyqtgraph view) goes through pyqtgraph's ``ImageExporter`` / ``SVGExporter``.
* A whole panel or the whole window is rendered with ``QWidget.render`` into an image whose
  device-pixel ratio is the export scale (text and vectors stay sharp), or into an SVG with
  ``QSvgGenerator``.
* While a picture is taken the plots are restyled for it — the print theme if asked for, and pen
  widths multiplied by the export scale (pyqtgraph's cosmetic pens stay one device pixel wide in a
  larger image, so a 4× export would otherwise have hair-thin lines) — and restored right after.
* Files are written atomically (:mod:`explorer.fileio`): a failed write leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import io
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .fileio import OutputError, atomic_write_bytes
from .theme import LIGHT, Theme, style_plot, style_widgets

#: The export scales offered in the menus.
SCALES = (1, 2, 4)
#: Largest image side we agree to render (a 16k × 10k RGBA image is already 640 MB).
MAX_SIDE = 16384
IMAGE_FORMATS = (".png", ".svg")
DATA_FORMATS = (".csv", ".npy")


class ExportError(Exception):
    """An export could not be made; the message is for the user (one line)."""


@dataclass(frozen=True)
class Look:
    """How the screen looks now (so an export can restyle and then restore it).

    ``ui_pt`` is the base point size of the widgets' text before theme and zoom (the app font).
    """

    theme: Theme = LIGHT
    zoom: float = 1.0
    ui_pt: float = 0.0

    @property
    def base_pt(self) -> float:
        if self.ui_pt > 0:
            return self.ui_pt
        from PySide6.QtWidgets import QApplication

        pt = QApplication.font().pointSizeF()
        return pt if pt > 0 else 10.0


# -- names ---------------------------------------------------------------------------------------
def slug(text: str, limit: int = 40) -> str:
    """File-name-safe lower-case words joined by '-' ("Attention before" -> "attention-before")."""
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"[^0-9A-Za-z.]+", "-", text).strip("-.").lower()
    return text[:limit].rstrip("-") or "plot"


def plot_title(view) -> str:
    from .widgets.plot_data import plot_title as _title

    return _title(view)


def plot_name(panel, view) -> str:
    """A short name for ``view`` within ``panel`` (its title, else ``plot<N>``)."""
    title = plot_title(view)
    if title:
        return slug(title)
    views = list(panel.plots()) if panel is not None else []
    n = views.index(view) + 1 if view in views else 1
    return f"plot{n}"


def default_name(panel, view=None, *, scale: float = 1, ext: str = ".png") -> str:
    """``<panel basename>[_<plot>][@2x].ext``, e.g. ``waves_d512_base10000_heatmap@2x.png``."""
    base = panel.export_basename() if panel is not None else "pe-explorer"
    if view is not None:
        base += "_" + plot_name(panel, view)
    if scale and scale != 1:
        base += f"@{scale:g}x"
    return base + ext


# -- restyling for an export ---------------------------------------------------------------------
def _views_in(widget) -> list:
    import pyqtgraph as pg

    if isinstance(widget, pg.GraphicsView):
        return [widget]
    return [v for v in widget.findChildren(pg.GraphicsView) if v.isVisible() or not widget.isVisible()]


def _panels_in(widget) -> list:
    from .panels.base import Panel

    if isinstance(widget, Panel):
        return [widget]
    return widget.findChildren(Panel)


@contextlib.contextmanager
def export_look(root, screen: Look, theme: Theme | None = None, *, pen_scale: float = 1.0) -> Iterator[None]:
    """Restyle ``root`` (a plot, panel or window) for an export, and restore the screen look after.

    ``theme`` None keeps the screen theme (only pen widths are scaled by ``pen_scale``).  Text sizes
    never change: an export shows what the screen shows, at the chosen resolution.
    """
    import pyqtgraph as pg
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QPalette

    target = theme or screen.theme
    views = _views_in(root)
    restyle = target != screen.theme
    panels = _panels_in(root) if restyle else []
    widgets = restyle and not isinstance(root, pg.GraphicsView)
    had_palette = root.testAttribute(Qt.WidgetAttribute.WA_SetPalette)
    old_palette = QPalette(root.palette())
    try:
        if widgets:
            style_widgets(root, target, ui_pt=screen.base_pt, zoom=screen.zoom, set_root_font=False)
        for p in panels:
            p.apply_theme(target)
        for v in views:
            style_plot(v, target, zoom=screen.zoom, pen_scale=pen_scale)
        yield
    finally:
        if widgets:
            style_widgets(root, screen.theme, ui_pt=screen.base_pt, zoom=screen.zoom, set_root_font=False)
            # Give the palette back to the parent's care unless the root had its own.
            root.setPalette(old_palette if had_palette else QPalette())
        for p in panels:
            p.apply_theme(screen.theme)
        for v in views:
            style_plot(v, screen.theme, zoom=screen.zoom)


# -- plots ---------------------------------------------------------------------------------------
def _export_item(view):
    """What pyqtgraph's exporters should export: the plot item of a PlotWidget, else the scene."""
    if hasattr(view, "getPlotItem"):
        return view.getPlotItem()
    return view.scene()


def _check_size(width: int, height: int) -> None:
    if width < 1 or height < 1:
        raise ExportError(f"cannot export an image of {width} × {height} pixels (is the plot shown?)")
    if max(width, height) > MAX_SIDE:
        raise ExportError(f"{width} × {height} pixels is too large: at most {MAX_SIDE} pixels a side")


def render_plot(
    view, *, scale: float = 1.0, width: int | None = None, screen: Look = Look(), theme: Theme | None = None
):
    """One plot as a QImage at ``scale`` × its size on screen, or ``width`` pixels wide."""
    from pyqtgraph.exporters import ImageExporter

    item = _export_item(view)
    exporter = ImageExporter(item)
    src = exporter.getTargetRect()
    if src.width() < 1 or src.height() < 1:
        raise ExportError("the plot has no size yet (is it shown?)")
    if width is not None:
        scale = width / src.width()
    w = int(round(src.width() * scale)) if width is None else int(width)
    h = int(round(src.height() * scale))
    _check_size(w, h)
    with export_look(view, screen, theme, pen_scale=scale):
        exporter = ImageExporter(item)  # re-read the background after restyling
        exporter.parameters()["width"] = w
        exporter.parameters()["height"] = h
        image = exporter.export(toBytes=True)
    return image


def plot_svg(view, *, screen: Look = Look(), theme: Theme | None = None) -> bytes:
    """One plot as SVG text (bytes)."""
    from pyqtgraph.exporters import SVGExporter

    with export_look(view, screen, theme):
        data = SVGExporter(_export_item(view)).export(toBytes=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    return bytes(data)


# -- widgets (a whole panel, the window) ---------------------------------------------------------
def render_widget(
    widget, *, scale: float = 1.0, width: int | None = None, screen: Look = Look(), theme: Theme | None = None
):
    """``widget`` and its children as a QImage at ``scale`` (or ``width`` pixels wide)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QWidget

    size = widget.size()
    if size.width() < 1 or size.height() < 1:
        raise ExportError("nothing to export: the panel has no size (is it shown?)")
    if width is not None:
        scale = width / size.width()
    w = int(width) if width is not None else int(round(size.width() * scale))
    h = int(round(size.height() * scale))
    _check_size(w, h)
    image = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(scale)
    with export_look(widget, screen, theme, pen_scale=scale):
        image.fill(widget.palette().window().color())
        painter = QPainter(image)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            # QWidget.render, not QGraphicsView.render (which would draw only the scene).
            QWidget.render(widget, painter, QPoint(0, 0))
        finally:
            painter.end()
    image.setDevicePixelRatio(1.0)
    return image


def widget_svg(widget, *, screen: Look = Look(), theme: Theme | None = None, title: str = "") -> bytes:
    """``widget`` and its children as SVG (plots as vectors, images embedded)."""
    from PySide6.QtCore import QBuffer, QIODevice, QPoint, QRect
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator
    from PySide6.QtWidgets import QWidget

    size = widget.size()
    if size.width() < 1 or size.height() < 1:
        raise ExportError("nothing to export: the panel has no size (is it shown?)")
    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buf)
    gen.setSize(size)
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    gen.setTitle(title or "PE Explorer")
    gen.setDescription("Exported from PE Explorer")
    with export_look(widget, screen, theme):
        painter = QPainter(gen)
        try:
            QWidget.render(widget, painter, QPoint(0, 0))
        finally:
            painter.end()
    return bytes(buf.data())


# -- encoding and writing ------------------------------------------------------------------------
def png_bytes(image) -> bytes:
    from PySide6.QtCore import QBuffer, QIODevice

    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise ExportError("could not encode the image as PNG")
    return bytes(buf.data())


def image_ext(path: str | Path) -> str:
    ext = Path(path).suffix.lower()
    if ext not in IMAGE_FORMATS:
        raise ExportError(f"image files must end in {' or '.join(IMAGE_FORMATS)}; got {str(path)!r}")
    return ext


def write_bytes(path: str | Path, data: bytes) -> Path:
    try:
        return atomic_write_bytes(path, data)
    except OutputError as exc:
        raise ExportError(str(exc)) from None


def copy_image(image) -> None:
    """Put ``image`` on the clipboard (paste straight into slides)."""
    from PySide6.QtWidgets import QApplication

    QApplication.clipboard().setImage(image)


def export_view_to_file(
    view,
    path: str | Path,
    *,
    scale: float = 1.0,
    width: int | None = None,
    screen: Look = Look(),
    theme: Theme | None = None,
) -> Path:
    """One plot to ``path`` (.png or .svg)."""
    if image_ext(path) == ".svg":
        return write_bytes(path, plot_svg(view, screen=screen, theme=theme))
    return write_bytes(
        path, png_bytes(render_plot(view, scale=scale, width=width, screen=screen, theme=theme))
    )


def export_widget_to_file(
    widget,
    path: str | Path,
    *,
    scale: float = 1.0,
    width: int | None = None,
    screen: Look = Look(),
    theme: Theme | None = None,
    title: str = "",
) -> Path:
    """A panel or the window to ``path`` (.png or .svg)."""
    if image_ext(path) == ".svg":
        return write_bytes(path, widget_svg(widget, screen=screen, theme=theme, title=title))
    return write_bytes(
        path, png_bytes(render_widget(widget, scale=scale, width=width, screen=screen, theme=theme))
    )


# -- numbers -------------------------------------------------------------------------------------
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
        np.save(buf, _npy_payload(arrays), allow_pickle=False)
        return buf.getvalue()
    return _csv(arrays).encode("utf-8")


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


# -- animations ----------------------------------------------------------------------------------
def numeric_fields(state_cls) -> dict[str, dict]:
    """The fields a sweep can step: int/float fields with both limits, name -> metadata."""
    import dataclasses

    out = {}
    for f in dataclasses.fields(state_cls):
        default = f.default if f.default is not dataclasses.MISSING else None
        if isinstance(default, bool) or not isinstance(default, (int, float)):
            continue
        m = f.metadata
        if m.get("lo") is None or m.get("hi") is None:
            continue
        out[f.name] = dict(m)
    return out


def sweep_values(state_cls, name: str, start: float, stop: float, frames: int) -> list:
    """``frames`` values from ``start`` to ``stop`` for field ``name`` (geometric for log fields).

    Whole-number fields are rounded (even ones to even) and repeated values dropped.
    """
    fields = numeric_fields(state_cls)
    if name not in fields:
        raise ExportError(f"cannot sweep {name!r}; valid: {', '.join(fields) or 'none'}")
    meta = fields[name]
    lo, hi = meta["lo"], meta["hi"]
    for v in (start, stop):
        if not lo <= v <= hi:
            raise ExportError(f"{name} must stay in [{lo:g}, {hi:g}]; got {v:g}")
    if frames < 2:
        raise ExportError(f"a sweep needs at least 2 frames, got {frames}")
    if meta.get("log") and start > 0 and stop > 0:
        vals = np.geomspace(start, stop, frames)
    else:
        vals = np.linspace(start, stop, frames)
    import dataclasses

    f = {x.name: x for x in dataclasses.fields(state_cls)}[name]
    if isinstance(f.default, int):
        ints = [int(round(v)) for v in vals]
        if meta.get("even"):
            ints = [v - v % 2 for v in ints]
        return list(dict.fromkeys(ints))
    return [float(v) for v in vals]


def state_with(state, name: str, value):
    """``state`` with one field changed, dependent fields pulled into range where the state knows how."""
    import dataclasses

    clamped = getattr(state, "clamped", None)
    if callable(clamped):
        return clamped(**{name: value})
    return dataclasses.replace(state, **{name: value})


def wait_drawn(panel, timeout_s: float = 30.0) -> bool:
    """Process events until ``panel`` has drawn everything it asked for; False on timeout."""
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout_s
    while not panel.has_drawn:
        if time.monotonic() > deadline:
            return False
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.002)
    QApplication.processEvents()
    return True


def record_sweep(
    panel,
    name: str,
    values: Sequence,
    grab: Callable[[], object],
    *,
    timeout_s: float = 30.0,
    progress: Callable[[int, int], bool] | None = None,
) -> list:
    """Step ``panel``'s field ``name`` through ``values``, wait for each redraw, and grab a frame.

    ``grab()`` returns a QImage (of the panel or one plot).  ``progress(done, total)`` may return
    False to cancel.  The panel's state is restored afterwards, even on error or cancel.
    """
    original = panel.state
    frames = []
    try:
        for k, value in enumerate(values):
            try:
                st = state_with(original, name, value)
            except ValueError as exc:
                raise ExportError(f"{name} = {value}: {exc}") from None
            panel.set_state(st)
            if not wait_drawn(panel, timeout_s):
                raise ExportError(f"the panel did not redraw within {timeout_s:.0f} s at {name} = {value}")
            frames.append(grab())
            if progress is not None and progress(k + 1, len(values)) is False:
                break
    finally:
        panel.set_state(original)
    return frames


def _to_pil(image):
    from PIL import Image
    from PySide6.QtGui import QImage

    img = image.convertToFormat(QImage.Format.Format_RGBA8888)
    w, h = img.width(), img.height()
    arr = np.frombuffer(img.constBits(), dtype=np.uint8).reshape(h, img.bytesPerLine())[:, : w * 4]
    return Image.fromarray(arr.reshape(h, w, 4).copy(), "RGBA").convert("RGB")


def gif_bytes(frames: Sequence, fps: float = 10.0, *, loop: bool = True) -> bytes:
    """An animated GIF of QImages (Pillow; one adaptive palette per frame)."""
    if not frames:
        raise ExportError("no frames to write")
    pil = [_to_pil(f) for f in frames]
    size = pil[0].size
    pil = [p if p.size == size else p.resize(size) for p in pil]
    buf = io.BytesIO()
    duration = max(20, int(round(1000.0 / max(fps, 0.1))))
    kwargs = {"loop": 0} if loop else {}
    pil[0].save(
        buf,
        format="GIF",
        save_all=True,
        append_images=pil[1:],
        duration=duration,
        optimize=False,
        disposal=1,
        **kwargs,
    )
    return buf.getvalue()


def mp4_available() -> tuple[bool, str]:
    """Whether MP4 can be written here, and if not, why (for the disabled menu item's tooltip)."""
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        return False, "MP4 needs the optional package imageio-ffmpeg (pip install imageio-ffmpeg); GIF works"
    try:
        imageio_ffmpeg.get_ffmpeg_exe()
    except Exception as exc:  # noqa: BLE001 - any failure to find ffmpeg means "not available"
        return False, f"MP4 needs an ffmpeg executable: {exc}"
    return True, ""


def write_mp4(path: str | Path, frames: Sequence, fps: float = 10.0) -> Path:
    """Write frames as H.264 MP4 via imageio-ffmpeg, atomically (temporary file, then rename)."""
    import os
    import tempfile

    ok, why = mp4_available()
    if not ok:
        raise ExportError(why)
    import imageio_ffmpeg

    if not frames:
        raise ExportError("no frames to write")
    target = Path(path)
    if not target.parent.is_dir():
        raise ExportError(f"cannot write {target}: folder {target.parent} does not exist")
    pil = [_to_pil(f) for f in frames]
    w, h = pil[0].size
    w2, h2 = w - w % 2, h - h % 2  # yuv420p needs even sides
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part.mp4", dir=target.parent)
    os.close(fd)
    try:
        writer = imageio_ffmpeg.write_frames(
            tmp, (w2, h2), fps=fps, codec="libx264", pix_fmt_out="yuv420p", macro_block_size=1, quality=8
        )
        writer.send(None)
        for p in pil:
            if p.size != (w, h):
                p = p.resize((w, h))
            writer.send(np.ascontiguousarray(np.asarray(p)[:h2, :w2]).tobytes())
        writer.close()
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return target
