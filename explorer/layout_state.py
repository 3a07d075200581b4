"""A saved window layout, read before Qt sees it: only a layout this window could have written is restored.

``QMainWindow.restoreState`` trusts its bytes.  A ``settings.json`` whose layout differed from a valid one
in a single byte (the count of dock areas) made every start die of SIGSEGV inside it, and only
``--reset-layout`` got the app open again.  So the bytes are read here first, by the grammar Qt writes
them in (``QMainWindow::saveState``: the dock areas, floating tab groups and tool bars; big-endian
``QDataStream``), and refused unless every part is what this window makes: its own dock and tool bar
names, each once; dock areas 0–3, orientations 1–2, flags 0–3; sizes and positions within ±10⁶; at most
:data:`MAX_ITEMS` items in a group and :data:`MAX_DEPTH` nested groups; nothing left over.  A layout
refused here is simply not used: the window opens with its default layout and says why.

No Qt here: this reads bytes.
"""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Collection
from pathlib import Path

#: Markers Qt writes (qmainwindowlayout_p.h, qdockarealayout_p.h, qtoolbararealayout_p.h).
VERSION_MARKER = 0xFF
DOCK_STATE_MARKER = 0xFD
FLOATING_TABS_MARKER = 0xF9
SEQUENCE_MARKER = 0xFC
TAB_MARKER = 0xFA
WIDGET_MARKER = 0xFB
TOOLBAR_MARKERS = (0xFE, 0xFC)  # ToolBarStateMarker, ToolBarStateMarkerEx
#: The most items in one dock group, groups nested in one another, and lines of tool bars.
MAX_ITEMS = 64
MAX_DEPTH = 8
MAX_LINES = 32
#: Sizes, positions and geometry past this are not a screen's.
MAX_COORD = 10**6
#: Qt::DockWidgetArea values a corner may hold.
CORNER_AREAS = (1, 2, 4, 8)


class LayoutError(ValueError):
    """The saved layout is not one this window writes (one line: what is wrong)."""


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise LayoutError(f"it ends early (byte {self.at:,} of {len(self.data):,})")
        chunk = self.data[self.at:self.at + n]
        self.at += n
        return chunk

    def u8(self) -> int:
        return self.take(1)[0]

    def i32(self, lo: int = -MAX_COORD, hi: int = MAX_COORD, what: str = "a number") -> int:
        (v,) = struct.unpack(">i", self.take(4))
        if not lo <= v <= hi:
            raise LayoutError(f"{what} is {v:,} at byte {self.at - 4:,} ({lo:,} … {hi:,} expected)")
        return v

    def u32(self) -> int:
        return struct.unpack(">I", self.take(4))[0]

    def marker(self, *wanted: int) -> int:
        m = self.u8()
        if m not in wanted:
            raise LayoutError(f"byte {self.at - 1:,} is {m:#x}, not a layout marker here")
        return m

    def string(self) -> str:
        n = self.u32()
        if n == 0xFFFFFFFF or n % 2 or n > 512:
            raise LayoutError(f"a name at byte {self.at - 4:,} claims {n:,} bytes")
        try:
            return self.take(n).decode("utf-16-be")
        except UnicodeDecodeError:
            raise LayoutError(f"a name at byte {self.at - n:,} is not text") from None


class _Names:
    """The window's own names; each may appear once."""

    def __init__(self, known: Collection[str], what: str) -> None:
        self.known, self.what = set(known), what
        self.seen: set[str] = set()

    def check(self, name: str) -> None:
        if name not in self.known:
            shown = name if len(name) <= 40 else name[:39] + "…"
            raise LayoutError(f"it names a {self.what} this window does not have ({shown!r})")
        if name in self.seen:
            raise LayoutError(f"it places the {self.what} {name!r} twice")
        self.seen.add(name)


def _dock_group(r: _Reader, docks: _Names, depth: int) -> None:
    """One ``QDockAreaLayoutInfo``: a sequence or a tab group of docks and nested groups."""
    if depth > MAX_DEPTH:
        raise LayoutError(f"its dock groups nest more than {MAX_DEPTH} deep")
    if r.marker(SEQUENCE_MARKER, TAB_MARKER) == TAB_MARKER:
        r.i32(-1, MAX_ITEMS, "the front tab")
    if r.u8() not in (1, 2):
        raise LayoutError(f"the orientation at byte {r.at - 1:,} is neither horizontal nor vertical")
    for _ in range(r.i32(0, MAX_ITEMS, "a group's item count")):
        if r.marker(WIDGET_MARKER, SEQUENCE_MARKER) == WIDGET_MARKER:
            docks.check(r.string())
            flags = r.u8()
            if flags > 3:
                raise LayoutError(f"a dock's flags at byte {r.at - 1:,} are not Qt's")
            if flags & 2:  # floating: its geometry
                for _ in range(4):
                    r.i32()
                continue
            _place(r)
        else:
            _place(r)
            _dock_group(r, docks, depth + 1)


def _place(r: _Reader) -> None:
    """An item's place in its group: position, size, minimum and maximum size (the maximum may be Qt's
    "no maximum", 16,777,215, or a sum of them)."""
    r.i32()
    r.i32()
    r.i32()
    r.i32(-1, 2**31 - 1, "a maximum size")


def _dock_areas(r: _Reader, docks: _Names) -> None:
    r.marker(DOCK_STATE_MARKER)
    seen = set()
    for _ in range(r.i32(0, 4, "the count of dock areas")):
        area = r.i32(0, 3, "a dock area")
        if area in seen:
            raise LayoutError(f"it lists dock area {area} twice")
        seen.add(area)
        r.i32()  # the area's size
        r.i32()
        _dock_group(r, docks, 0)
    r.i32()  # the central widget's size
    r.i32()
    for _ in range(4):
        corner = r.i32(0, 8, "a corner")
        if corner not in CORNER_AREAS:
            raise LayoutError(f"a corner holds {corner}, not a dock area")


def _tool_bars(r: _Reader, bars: _Names) -> None:
    for _ in range(r.i32(0, MAX_LINES, "the count of tool bar lines")):
        r.i32(0, 3, "a tool bar area")
        for _ in range(r.i32(0, MAX_ITEMS, "a line's tool bar count")):
            bars.check(r.string())
            if r.u8() > 3:
                raise LayoutError(f"a tool bar's flags at byte {r.at - 1:,} are not Qt's")
            r.i32()  # its place in the line
            r.i32()  # its preferred size
            r.u32()  # its geometry, packed in two numbers
            r.u32()


def check_layout(data: bytes, version: int, docks: Collection[str], tool_bars: Collection[str]) -> None:
    """Raise :class:`LayoutError` unless ``data`` is a layout ``QMainWindow.saveState(version)`` of a window
    with these ``docks`` and ``tool_bars`` (object names) could have written."""
    r = _Reader(bytes(data))
    if r.i32(-(2**31), 2**31 - 1) != VERSION_MARKER:
        raise LayoutError("it is not a Qt window layout")
    saved = r.i32(-(2**31), 2**31 - 1)
    if saved != version:
        raise LayoutError(f"it is layout version {saved}, this app writes {version}")
    dock_names, bar_names = _Names(docks, "dock"), _Names(tool_bars, "tool bar")
    _dock_areas(r, dock_names)
    while True:
        m = r.marker(FLOATING_TABS_MARKER, *TOOLBAR_MARKERS)
        if m != FLOATING_TABS_MARKER:
            break
        for _ in range(4):  # the floating group's rectangle
            r.i32()
        _dock_group(r, dock_names, 1)
    _tool_bars(r, bar_names)
    if r.at != len(r.data):
        raise LayoutError(f"{len(r.data) - r.at:,} bytes follow the layout")


#: Left in the settings folder while a saved layout is being restored and shown: found at the next start,
#: it means that start died before its window had been up for :data:`SURVIVE_MS` (the layout is then not used).
PENDING_FILE = "layout.pending"
SURVIVE_MS = 3000


def restore_died(folder) -> bool:
    """Whether the last start that restored a layout from ``folder`` died before it was up (its note is
    there, and the process that wrote it is gone: another window starting beside this one is not)."""
    try:
        text = (Path(folder) / PENDING_FILE).read_text(encoding="utf-8", errors="replace")[:100]
    except OSError:
        return False
    words = text.split()
    return not (words and words[0].isdigit() and _alive(int(words[0])))


def _alive(pid: int) -> bool:
    if sys.platform.startswith("win") or pid <= 0:  # no signal 0 there (os.kill would end the process)
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, and is someone else's
        return True
    return True


def restoring(folder) -> None:
    """Say (in ``folder``) that this process is restoring a saved layout; :func:`restored` takes it back."""
    try:
        (Path(folder) / PENDING_FILE).write_text(f"{os.getpid()} is restoring the saved window layout\n")
    except OSError:  # a folder we cannot write: the layout check above is all there is
        pass


def restored(folder) -> None:
    """The window has been up with the restored layout (or closed normally): it is safe to use again."""
    try:
        (Path(folder) / PENDING_FILE).unlink(missing_ok=True)
    except OSError:
        pass
