"""Slides and plot names: a 16:9 picture of a panel or a plot without the controls, and stable plot names.

* :func:`plot_key` / :func:`named_plots` — every plot of a panel under a stable name (its ``objectName``,
  else the attribute that holds it, e.g. ``alibi-slopes``), in on-screen order: tab by tab, then top to
  bottom, left to right.  ``pe-explorer export --list-plots`` prints them, ``--plot NAME`` picks one.
* :func:`lay_out_all` — show every tab once, so plots on background tabs are laid out and drawn before an
  export (an unshown page is an unlaid-out 640 × 480 widget with its labels missing).
* :func:`slide_layout` — for the time of an export: hide the control sidebar and the "Hover…/Click…"
  hints, and lay the widget out at a 16:9 logical size; everything is put back afterwards.

A slide is laid out at a 16:9 logical size (:func:`slide_layout_size`: from 1280 × 720 for the light theme to
1920 × 1080 for presenter's large text) and drawn at the slide's size, so its smallest text is as large as
presenter mode's at 1080; a 3840 × 2160 slide is the 1920 × 1080 one at twice the resolution: text, lines and
markers all scale with the image.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyqtgraph as pg

#: Slide heights offered (``--slide 1080|2160``) and the 16:9 size each gives.
SLIDE_SIZES = {1080: (1920, 1080), 2160: (3840, 2160)}
#: The size of the smallest text (tick labels) on a 1080-px slide, in pixels: presenter mode's at 1080 (10 pt × 1.5
#: at 96 dpi).  A slide is laid out small enough that, drawn at 1080, its ticks reach it: a panel laid out at
#: 1920 × 1080 and drawn 1:1 had 11-to-13-px text in the light theme, too small for the back of a hall.
SLIDE_TEXT_PX = 20.0
#: No text of a default 1080-px slide is smaller (body text, ticks, axis titles); sub- and superscripts are 2/3.
MIN_TEXT_PX = 16
#: The largest slide layout (1:1 at 1080: the presenter theme) and the smallest (drawn at 1.5×).
SLIDE_LAYOUT, SMALLEST_LAYOUT = (1920, 1080), (1280, 720)
#: On-screen hints about the mouse, useless on a slide.
HINT_RE = re.compile(r"^\s*(hover|click|drag|scroll|press|double-click|right-click)\b", re.IGNORECASE)


def slide_layout_size(theme, zoom: float = 1.0) -> tuple[int, int]:
    """The 16:9 logical size a slide is laid out at in ``theme`` (and the user's text ``zoom``), so that drawn at
    1920 × 1080 its tick labels are :data:`SLIDE_TEXT_PX` tall (never laid out larger than 1920 × 1080, never
    smaller than 1280 × 720)."""
    from ..theme import TICK_PT

    tick_px = TICK_PT * 96 / 72 * theme.font_scale * zoom
    scale = min(max(SLIDE_TEXT_PX / tick_px, 1.0), SLIDE_LAYOUT[0] / SMALLEST_LAYOUT[0])
    return round(SLIDE_LAYOUT[0] / scale), round(SLIDE_LAYOUT[1] / scale)


def slide_size(height: int) -> tuple[int, int]:
    if height not in SLIDE_SIZES:
        raise ValueError(f"slide height must be one of {', '.join(map(str, SLIDE_SIZES))}; got {height}")
    return SLIDE_SIZES[height]


# -- names ----------------------------------------------------------------------------------------
def _kebab(name: str) -> str:
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name)
    return re.sub(r"[^0-9a-zA-Z]+", "-", name).strip("-").lower()


def _held_as(owner, plot) -> str:
    """The attribute (or dict key under an attribute) of ``owner`` that holds ``plot``; "" if none."""
    for attr, value in vars(owner).items():
        if value is plot:
            return attr
        if isinstance(value, dict):
            for k, v in value.items():
                if v is plot:
                    return str(k)
    return ""


def plot_key(panel, plot) -> str:
    """A stable name for ``plot`` in ``panel``: its objectName (without the panel's prefix), else the
    attribute holding it, prefixed by its view (``MatrixView.plots["rope"]`` -> ``matrix-rope``)."""
    name = plot.objectName()
    if name:
        pid = getattr(panel, "panel_id", "")
        if pid and name.startswith(pid) and name[len(pid):][:1].isupper():
            name = name[len(pid):]
        return _kebab(name)
    w = plot.parentWidget()
    while w is not None:
        attr = _held_as(w, plot)
        if attr:
            if w is panel:
                return _kebab(attr)
            owner = re.sub(r"View$", "", type(w).__name__)
            return _kebab(f"{owner}-{attr}")
        if w is panel:
            break
        w = w.parentWidget()
    return "plot"


def _tab_path(widget, root) -> tuple:
    """Tab indices from ``root`` down to ``widget`` (outer tab first)."""
    from PySide6.QtWidgets import QStackedWidget, QTabWidget

    path = []
    w = widget
    while w is not None and w is not root:
        parent = w.parentWidget()
        if isinstance(parent, QStackedWidget) and isinstance(tabs := parent.parentWidget(), QTabWidget):
            path.append(tabs.indexOf(w))
        w = parent
    return tuple(reversed(path))


def _all_views(panel) -> list:
    """Every plot of the panel, views not yet built included (the Schemes panel builds its views lazily)."""
    import pyqtgraph as pg

    pages = getattr(panel, "_pages", None)
    if callable(getattr(panel, "view", None)) and isinstance(pages, dict):
        for name in pages:
            panel.view(name)
    out = []
    for v in panel.findChildren(pg.GraphicsView):
        if hasattr(v, "getPlotItem"):
            out.append(v)
    return out


def _merge_aligned(columns: list) -> list:
    """Neighbouring columns whose boxes sit in the same rows are one grid (read row by row)."""
    def rows(col):
        return sorted({(round(b[1] / 4), round(b[3] / 4)) for b in col})

    out = [columns[0]]
    for col in columns[1:]:
        if len(col) > 1 and rows(col) == rows(out[-1]):
            out[-1] = out[-1] + col
        else:
            out.append(col)
    return out


def _reading_order(boxes: list) -> list:
    """``(x, y, w, h, item)`` boxes in reading order by recursive XY cuts: rows split by a horizontal gap
    that no box straddles (top to bottom), else columns by a vertical gap (left to right)."""
    if len(boxes) <= 1:
        return [b[4] for b in boxes]
    for axis in (1, 0):  # rows first, then columns
        ordered = sorted(boxes, key=lambda b: (b[axis], b[1 - axis]))
        groups, current, edge = [], [ordered[0]], ordered[0][axis] + ordered[0][axis + 2]
        for b in ordered[1:]:
            if b[axis] >= edge - 2:  # starts below (right of) everything so far: a cut
                groups.append(current)
                current = [b]
            else:
                current.append(b)
            edge = max(edge, b[axis] + b[axis + 2])
        groups.append(current)
        if axis == 0:
            groups = _merge_aligned(groups)
        if len(groups) > 1:
            return [item for g in groups for item in _reading_order(g)]
    return [b[4] for b in sorted(boxes, key=lambda b: (b[1], b[0]))]


def named_plots(panel) -> list[tuple[str, pg.GraphicsView]]:
    """``(name, plot)`` for every plot of ``panel`` in on-screen order: tab by tab, and on a tab in reading
    order (rows top to bottom, columns left to right, as a reader goes through the grid)."""
    from PySide6.QtCore import QPoint

    by_tab: dict[tuple, list] = {}
    for v in _all_views(panel):
        p = v.mapTo(panel, QPoint(0, 0))
        by_tab.setdefault(_tab_path(v, panel), []).append((p.x(), p.y(), v.width(), v.height(), v))
    out: list[tuple[str, pg.GraphicsView]] = []
    seen: dict[str, int] = {}
    for tab in sorted(by_tab):
        for v in _reading_order(by_tab[tab]):
            name = plot_key(panel, v)
            seen[name] = seen.get(name, 0) + 1
            out.append((name if seen[name] == 1 else f"{name}-{seen[name]}", v))
    return out


def find_plot(panel, name: str):
    """The plot named ``name`` (or the N-th in on-screen order when ``name`` is a number); ValueError if none."""
    plots = named_plots(panel)
    if name.strip().isdigit():
        n = int(name)
        if 1 <= n <= len(plots):
            return plots[n - 1][1]
        raise ValueError(f"--plot must be between 1 and {len(plots)} for {panel.panel_id}; got {n}")
    for key, view in plots:
        if key == name.strip().lower():
            return view
    raise ValueError(f"--plot {name}: no such plot; valid: {', '.join(k for k, _v in plots)}")


# -- laying out ------------------------------------------------------------------------------------
def settle() -> None:
    """Let posted layout requests and resizes run (plots lay themselves out through posted events)."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        QApplication.processEvents()


def linger(seconds: float) -> None:
    """Process events for ``seconds`` (short timers that follow a resize fire)."""
    import time

    from PySide6.QtWidgets import QApplication

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QApplication.processEvents()
        time.sleep(0.01)


def lay_out_all(panel, wait) -> None:
    """Show every tab of ``panel`` once (``wait()`` after each), then the tab that was current again."""
    from PySide6.QtWidgets import QTabWidget

    for tabs in panel.findChildren(QTabWidget):
        current = tabs.currentIndex()
        for i in range(tabs.count()):
            if i != current:
                tabs.setCurrentIndex(i)
                settle()
                wait()
        if tabs.currentIndex() != current:
            tabs.setCurrentIndex(current)
            settle()
            wait()


def tab_to(panel, plot, wait) -> None:
    """Bring the tab(s) holding ``plot`` to the front, so it is laid out at its real size."""
    from PySide6.QtWidgets import QStackedWidget, QTabWidget

    w = plot
    changed = False
    while w is not None and w is not panel:
        parent = w.parentWidget()
        if isinstance(parent, QStackedWidget) and isinstance(tabs := parent.parentWidget(), QTabWidget):
            if tabs.currentWidget() is not w:
                tabs.setCurrentWidget(w)
                changed = True
        w = parent
    if changed:
        settle()
        wait()


# -- what a slide leaves out -------------------------------------------------------------------------
_INPUTS = ("QAbstractSlider", "QAbstractSpinBox", "QComboBox", "QAbstractButton", "QLineEdit")


def _is_input(w) -> bool:
    from PySide6 import QtWidgets

    return any(isinstance(w, getattr(QtWidgets, n)) for n in _INPUTS)


def slide_hidden(root) -> list:
    """The widgets a slide leaves out: control columns and inputs (anything that holds controls but no
    plot), tab bars, "Hover…/Click…" hints and the labels of rows left out.  A widget with the property
    ``slideHidden`` set is always left out; one with ``slideShown`` set is always kept, with its contents
    (Token swap's word chips: the sentence before the swap, which the slide's "After" row answers)."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QLabel, QTabBar, QWidget

    out: list = []

    def walk(w) -> None:
        for c in w.findChildren(QWidget, options=_direct()):
            if not c.isVisibleTo(root) or c.property("slideShown"):
                continue
            if c.property("slideHidden") or isinstance(c, QTabBar):  # a tab bar is navigation, not content
                out.append(c)
            elif isinstance(c, pg.GraphicsView) or c.findChildren(pg.GraphicsView):
                if not isinstance(c, pg.GraphicsView):
                    walk(c)
            elif _is_input(c) or any(_is_input(x) for x in c.findChildren(QWidget)):
                out.append(c)
            elif isinstance(c, QLabel) and HINT_RE.match(re.sub(r"<[^>]+>", "", c.text())):
                out.append(c)

    walk(root)
    # The labels of what is left out ("Sentence", "Before"): a row holding only hidden widgets and labels.
    from PySide6.QtWidgets import QHBoxLayout

    gone = set(out)
    for lay in root.findChildren(QHBoxLayout):
        items = [lay.itemAt(i).widget() for i in range(lay.count())]
        widgets = [w for w in items if w is not None and w.isVisibleTo(root)]
        if any(w in gone for w in widgets) and all(w in gone or isinstance(w, QLabel) for w in widgets):
            out.extend(w for w in widgets if w not in gone)
    return out


def _direct():
    from PySide6.QtCore import Qt

    return Qt.FindChildOption.FindDirectChildrenOnly


def settle_subtree(widget) -> None:
    """Deliver the layout requests posted to ``widget``, its children and its plots' items, and to
    nothing above it: in the window, the parent's layout would put a widget laid out for a slide back."""
    import pyqtgraph as pg
    from PySide6.QtCore import QCoreApplication, QEvent, QObject
    from PySide6.QtWidgets import QGraphicsWidget

    views = [widget] if isinstance(widget, pg.GraphicsView) else widget.findChildren(pg.GraphicsView)
    for _ in range(3):
        for obj in [widget, *widget.findChildren(QObject)]:
            QCoreApplication.sendPostedEvents(obj, QEvent.Type.LayoutRequest)
        for v in views:
            for item in v.scene().items() if v.scene() is not None else ():
                if isinstance(item, QGraphicsWidget):
                    QCoreApplication.sendPostedEvents(item, QEvent.Type.LayoutRequest)


@contextlib.contextmanager
def slide_layout(widget, size: tuple[int, int], *, hide: bool = True) -> Iterator[None]:
    """Lay ``widget`` out at ``size`` (logical pixels) without its controls and hints; put it back after.

    A widget in the window is resized in place and only its own subtree is laid out (no events reach the
    window), so the window, its docks and splitters never move; a top-level (headless) widget is simply
    resized and laid out.
    """
    hidden = slide_hidden(widget) if hide else []
    explain = getattr(widget, "explain", None)  # a panel's "What am I looking at?" pane: text, not a slide's
    if hide and explain is not None and explain.isVisible():
        hidden.append(explain)
    old = widget.geometry()
    headless = widget.parentWidget() is None
    widget.setProperty("slideLayout", True)

    def relayout() -> None:
        lay = widget.layout()
        if lay is not None:
            lay.activate()
        settle_subtree(widget)
        if headless:
            settle()

    try:
        for w in hidden:
            w.setVisible(False)
        widget.resize(*size)
        relayout()
        yield
    finally:
        widget.setProperty("slideLayout", None)
        for w in hidden:
            w.setVisible(True)
        widget.setGeometry(old)
        relayout()


def export_slide(target, path, height: int, *, screen, theme=None, wait=None, title: str = ""):
    """A 16:9 slide of a panel or one plot to ``path`` (.png or .svg), ``height`` 1080 or 2160 pixels tall.

    The target is laid out at :func:`slide_layout_size` for the slide's theme, without its controls and hints,
    ``wait()`` lets it redraw for that size, and the picture is rendered at the slide's resolution, so lines and
    markers scale with it like the text.
    """
    import dataclasses

    import pyqtgraph as pg

    from .images import export_look, export_view_to_file, export_widget_to_file, image_ext

    width, _h = slide_size(height)
    is_plot = isinstance(target, pg.GraphicsView)
    layout = slide_layout_size(theme or screen.theme, screen.zoom)
    ext = image_ext(path)
    # The slide's theme first, then the layout: larger presenter fonts need wider axes, which only a
    # layout pass after the restyle gives them.
    restyle = export_look(target, screen, theme) if theme is not None else contextlib.nullcontext()
    look = dataclasses.replace(screen, theme=theme, ui_pt=screen.base_pt) if theme is not None else screen
    with restyle, slide_layout(target, layout, hide=not is_plot):
        if wait is not None and target.parentWidget() is None:
            linger(0.2)  # views that re-ask at their new pixel size do so on a short timer
            wait()
            settle()
        if is_plot and ext == ".png":
            return export_view_to_file(target, path, width=width, screen=look)
        return export_widget_to_file(target, path, width=width, screen=look, title=title)
