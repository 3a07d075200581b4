"""Sweep animations: step one parameter through a range, grab a frame per redraw, write GIF or MP4."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .images import ExportError


def numeric_fields(state_cls) -> dict[str, dict]:
    """The fields a sweep can step: int/float fields with both limits, name -> metadata."""
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
    f = {x.name: x for x in dataclasses.fields(state_cls)}[name]
    if isinstance(f.default, int):
        ints = [int(round(v)) for v in vals]
        if meta.get("even"):
            ints = [v - v % 2 for v in ints]
        return list(dict.fromkeys(ints))
    return [float(v) for v in vals]


def effective_range(state, name: str) -> tuple[float, float]:
    """The values of field ``name`` that ``state`` accepts with everything else unchanged.

    The field's own limits, narrowed by the state's cross-field rules (e.g. a position below N),
    found by bisection (the valid values form an interval around the current one).
    """
    meta = numeric_fields(type(state))[name]
    lo, hi = meta["lo"], meta["hi"]
    cur = getattr(state, name)
    is_int = isinstance(cur, int)

    def ok(v) -> bool:
        if is_int:
            v = int(v)
            if meta.get("even") and v % 2:
                return False
        try:
            dataclasses.replace(state, **{name: v})
        except ValueError:
            return False
        return True

    def edge(good, bad):
        for _ in range(64):
            if (is_int and abs(bad - good) <= 1) or (
                not is_int and abs(bad - good) <= 1e-9 * max(1.0, abs(good))
            ):
                break
            mid = (good + bad) // 2 if is_int else (good + bad) / 2
            if meta.get("even") and is_int:
                mid -= mid % 2
                if mid in (good, bad):
                    break
            if ok(mid):
                good = mid
            else:
                bad = mid
        return good

    top = hi if ok(hi) else edge(cur, hi)
    bottom = lo if ok(lo) else edge(cur, lo)
    return bottom, top


def state_with(state, name: str, value):
    """``state`` with one field changed, dependent fields pulled into range where the state knows how."""
    clamped = getattr(state, "clamped", None)
    if callable(clamped):
        return clamped(**{name: value})
    return dataclasses.replace(state, **{name: value})


def wait_drawn(panel, timeout_s: float = 30.0) -> bool:
    """Process events until ``panel`` has drawn everything it asked for; False on timeout."""
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from ..interrupts import check

    deadline = time.monotonic() + timeout_s
    while not panel.has_drawn:
        check()  # Ctrl+C (inside deferred_sigint) is raised here, between events, never in a Qt callback
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
    fd, made = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part.mp4", dir=target.parent)
    os.close(fd)
    tmp: str | None = made  # None once it is the target
    try:
        writer = imageio_ffmpeg.write_frames(
            made, (w2, h2), fps=fps, codec="libx264", pix_fmt_out="yuv420p", macro_block_size=1, quality=8
        )
        writer.send(None)
        for p in pil:
            if p.size != (w, h):
                p = p.resize((w, h))
            writer.send(np.ascontiguousarray(np.asarray(p)[:h2, :w2]).tobytes())
        writer.close()
        os.replace(made, target)
        tmp = None
    except OSError as exc:
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return target
