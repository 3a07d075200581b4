"""A widget and its children as one SVG in which every widget's painting is clipped to the widget.

``QWidget.render`` into a ``QSvgGenerator`` loses the clipping: SVG Tiny 1.2 writes no clip paths at all (a
plot's hatching spilled over its legend, the tab bar and the formula strip; a tab's background covered part of
a title), and SVG 1.1 writes each one in the coordinates of the widget being painted but places it in the
window's (the redirection offset of a child widget is left out), so other renderers cut the wrong parts away.

Here each visible widget is painted on its own, at its own origin (where Qt's clip paths are right), into an SVG
1.1 document of its own; the pieces are put together in painting order (parents under children, siblings in
stacking order), each moved to its place and clipped to what of it is visible (its rectangle, cut by its
parents').  Inside a plot, what a view box holds is clipped to the view box: Qt writes a view box's own clip
right, but a clip nested in one (an item clipped inside the view box, under the view's stretching transform)
comes out in the wrong place, so such a group is clipped to the view box it is drawn in instead.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from .svg import SVG_NS, XLINK_NS

_NS = "{" + SVG_NS + "}"
_ID = re.compile(r'\bid="([^"]+)"')


def _piece(widget, resolution: int, *, root: bool) -> bytes:
    """``widget`` alone (no children) as SVG 1.1 (with its clip paths: a menu bar fills its empty area clipped
    around its items) in its own coordinates."""
    from PySide6.QtCore import QBuffer, QIODevice, QPoint, QRect
    from PySide6.QtGui import QPainter, QRegion
    from PySide6.QtSvg import QSvgGenerator
    from PySide6.QtWidgets import QWidget

    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator(QSvgGenerator.SvgVersion.Svg11)
    gen.setOutputDevice(buf)
    gen.setSize(widget.size())
    gen.setViewBox(QRect(0, 0, widget.width(), widget.height()))
    gen.setResolution(resolution)
    # The root paints its window background (as QWidget.render does); a child only what it paints itself.
    flags = QWidget.RenderFlag.DrawWindowBackground if root else QWidget.RenderFlag(0)
    painter = QPainter(gen)
    try:
        QWidget.render(widget, painter, QPoint(0, 0), QRegion(), flags)
    finally:
        painter.end()
    return bytes(buf.data().data())


def _view_boxes(viewport) -> list[tuple[float, float, float, float]]:
    """The rectangles (x0, y0, x1, y1, in ``viewport``'s pixels) of the view boxes a plot's drawing area shows."""
    import pyqtgraph as pg

    view = viewport.parentWidget()
    if not isinstance(view, pg.GraphicsView) or view.viewport() is not viewport or view.scene() is None:
        return []
    out = []
    for item in view.scene().items():
        if isinstance(item, pg.ViewBox) and item.isVisible():
            r = view.mapFromScene(item.sceneBoundingRect()).boundingRect()
            out.append((r.left(), r.top(), r.right() + 1, r.bottom() + 1))
    return out


def _bbox(clip: ET.Element) -> tuple[float, float, float, float] | None:
    nums = [float(v) for el in clip for v in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?",
                                                          el.get("d", "") + " " + el.get("points", ""))]
    if len(nums) < 4:
        return None
    xs, ys = nums[::2], nums[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def _fix_clips(root: ET.Element, boxes: list) -> None:
    """Keep the clip paths that are a view box's rectangle; a group clipped by any other (nested) clip path is
    clipped to the view box it is drawn in (the last one named before it), or not at all outside one."""
    clips = {c.get("id"): _bbox(c) for c in root.iter(_NS + "clipPath")}

    def is_box(bb) -> bool:
        return bb is not None and any(all(abs(a - b) <= 2 for a, b in zip(bb, box, strict=True)) for box in boxes)

    parents = {c: p for p in root.iter() for c in p}
    current = None
    for g in root.iter(_NS + "g"):
        ref = re.match(r"^url\(#([^)]+)\)$", g.get("clip-path", ""))
        if ref is None:
            if "transform" in g.attrib and "clip-path" not in parents.get(g, root).attrib:
                current = None  # drawn with no clip: outside every view box
            continue
        if is_box(clips.get(ref.group(1))):
            current = ref.group(1)
        elif current is not None:
            g.set("clip-path", f"url(#{current})")
        else:
            del g.attrib["clip-path"]


def _renamed(data: bytes, prefix: str) -> bytes:
    """``data`` with every id (and every reference to one) prefixed, so pieces put together never share one."""
    text = data.decode("utf-8")
    ids = sorted(set(_ID.findall(text)), key=len, reverse=True)
    if not ids:
        return data
    pattern = re.compile(r'(\bid="|#)(' + "|".join(re.escape(i) for i in ids) + r')(?=["\)])')
    return pattern.sub(lambda m: m.group(1) + prefix + m.group(2), text).encode("utf-8")


def _body(data: bytes, boxes: list | None = None) -> list[ET.Element]:
    root = ET.fromstring(data)
    if boxes is not None:
        _fix_clips(root, boxes)
    return [c for c in root if c.tag not in (_NS + "title", _NS + "desc")]


def _visible_children(widget, root) -> list:
    from PySide6.QtWidgets import QWidget

    return [c for c in widget.children()
            if isinstance(c, QWidget) and not c.isWindow() and c.isVisibleTo(root) and not c.size().isEmpty()]


def widget_tree_svg(widget, *, size, title: str, description: str, resolution: int) -> bytes:
    """``widget`` and its visible children as one SVG document of ``size`` (its view box: the widget's size)."""
    from PySide6.QtCore import QPoint, QRect

    ET.register_namespace("", SVG_NS)
    ET.register_namespace("xlink", XLINK_NS)
    root_doc = ET.fromstring(_piece(widget, resolution, root=True))
    root_doc.set("width", f"{size.width()}")
    root_doc.set("height", f"{size.height()}")
    for tag, text in (("title", title), ("desc", description)):
        el = root_doc.find(_NS + tag)
        if el is not None:
            el.text = text
    defs = ET.SubElement(root_doc, _NS + "defs")
    n = 0

    def visit(w, origin: QPoint, visible: QRect) -> None:
        nonlocal n
        for child in _visible_children(w, widget):
            at = origin + child.pos()
            shown = QRect(at, child.size()) & visible
            if shown.isEmpty():
                continue
            n += 1
            clip = ET.SubElement(defs, _NS + "clipPath", id=f"w{n}")
            ET.SubElement(clip, _NS + "rect", x=str(shown.x()), y=str(shown.y()), width=str(shown.width()),
                          height=str(shown.height()))
            outer = ET.SubElement(root_doc, _NS + "g", {"clip-path": f"url(#w{n})"})
            inner = ET.SubElement(outer, _NS + "g", transform=f"translate({at.x()},{at.y()})")
            boxes = _view_boxes(child)
            piece = _piece(child, resolution, root=False)
            inner.extend(_body(_renamed(piece, f"w{n}_"), boxes if boxes else None))
            visit(child, at, shown)

    visit(widget, QPoint(0, 0), QRect(QPoint(0, 0), widget.size()))
    return ET.tostring(root_doc, encoding="utf-8", xml_declaration=False)
