"""SVG that renders the same outside Qt (librsvg's ``rsvg-convert``, browsers, Inkscape).

Qt's ``QSvgGenerator`` writes a cosmetic pen (every pyqtgraph curve, axis and grid line) as
``vector-effect="non-scaling-stroke"`` inside a group whose ``transform`` maps data to pixels — often a
stretch of 7 × −40.  Qt's own renderer honours that; librsvg and others stroke in data units and draw
lines 40 px thick.  :func:`portable_svg` moves such shapes into pixel coordinates (the matrix applied to
their points), so a 1-px line is 1 px in every renderer and scales with the picture like everything
else.  Text sizes are right when the generator is told the widgets' resolution (see ``widget_svg``).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
_NS = "{" + SVG_NS + "}"
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_MATRIX = re.compile(r"^\s*matrix\(([^)]*)\)\s*$")
_PATH_TOKEN = re.compile(rf"([A-Za-z])|({_NUM})")

Matrix = tuple[float, float, float, float, float, float]


def _matrix(text: str | None) -> Matrix | None:
    m = _MATRIX.match(text or "")
    if not m:
        return None
    vals = [float(v) for v in re.split(r"[\s,]+", m.group(1).strip()) if v]
    return tuple(vals) if len(vals) == 6 else None  # type: ignore[return-value]


def _stretches(m: Matrix) -> bool:
    a, b, c, d, _e, _f = m
    return not (abs(abs(a) - 1) < 1e-9 and abs(abs(d) - 1) < 1e-9 and abs(b) < 1e-12 and abs(c) < 1e-12)


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def _points(m: Matrix, text: str) -> str | None:
    nums = [float(v) for v in re.findall(_NUM, text)]
    if len(nums) % 2:
        return None
    return " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in (_apply(m, *p) for p in zip(nums[::2], nums[1::2], strict=True)))


def _path(m: Matrix, d: str) -> str | None:
    """``d`` with every point mapped by ``m``; None for commands other than absolute M, L, C, Q, Z."""
    out: list[str] = []
    pending: list[float] = []
    for cmd, num in _PATH_TOKEN.findall(d):
        if cmd:
            if pending:
                return None
            if cmd not in "MLCQZ":
                return None
            out.append(cmd)
            continue
        pending.append(float(num))
        if len(pending) == 2:
            x, y = _apply(m, *pending)
            out.append(f"{_fmt(x)},{_fmt(y)}")
            pending = []
    return None if pending else " ".join(out)


def _convert(el: ET.Element, m: Matrix) -> bool:
    """Rewrite ``el``'s geometry in pixel coordinates; False if it cannot be (it is left as it was)."""
    tag = el.tag.replace(_NS, "")
    a = el.attrib
    if tag == "path":
        d = _path(m, a.get("d", ""))
        if d is None:
            return False
        a["d"] = d
    elif tag in ("polyline", "polygon"):
        pts = _points(m, a.get("points", ""))
        if pts is None:
            return False
        a["points"] = pts
    elif tag == "line":
        for xk, yk in (("x1", "y1"), ("x2", "y2")):
            x, y = _apply(m, float(a.get(xk, 0)), float(a.get(yk, 0)))
            a[xk], a[yk] = _fmt(x), _fmt(y)
    elif tag == "rect":
        x, y, w, h = (float(a.get(k, 0)) for k in ("x", "y", "width", "height"))
        corners = [_apply(m, px, py) for px, py in ((x, y), (x + w, y), (x + w, y + h), (x, y + h))]
        for k in ("x", "y", "width", "height", "rx", "ry"):
            a.pop(k, None)
        el.tag = _NS + "polygon"
        a["points"] = " ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in corners)
    elif tag in ("ellipse", "circle") and abs(m[1]) < 1e-12 and abs(m[2]) < 1e-12:
        cx, cy = _apply(m, float(a.get("cx", 0)), float(a.get("cy", 0)))
        rx = float(a.get("rx", a.get("r", 0))) * abs(m[0])
        ry = float(a.get("ry", a.get("r", 0))) * abs(m[3])
        a.pop("r", None)
        el.tag = _NS + "ellipse"
        a.update(cx=_fmt(cx), cy=_fmt(cy), rx=_fmt(rx), ry=_fmt(ry))
    else:
        return False
    a.pop("vector-effect", None)
    return True


def _split_group(g: ET.Element, m: Matrix) -> list[ET.Element]:
    """``g`` as a run of groups: shapes with a non-scaling stroke in pixel coordinates (no transform),
    the rest as they were (under ``g``'s transform), in the original painting order."""
    stroked = g.get("stroke", "none") != "none"
    runs: list[ET.Element] = []
    current: ET.Element | None = None
    current_flat = None
    for child in list(g):
        flat = False
        if child.get("vector-effect") == "non-scaling-stroke":
            if stroked and "url(" not in g.get("fill", "") + child.get("fill", ""):
                flat = _convert(child, m)
            if not flat:
                child.attrib.pop("vector-effect", None)
                if stroked:  # could not move it: keep the line about as wide as it was meant to be
                    det = math.sqrt(abs(m[0] * m[3] - m[1] * m[2])) or 1.0
                    width = float(g.get("stroke-width", "1") or 1) / det
                    child.set("stroke-width", _fmt(width))
        if current is None or flat != current_flat:
            current = ET.Element(g.tag, dict(g.attrib))
            if flat:
                current.attrib.pop("transform", None)
            runs.append(current)
            current_flat = flat
        current.append(child)
    return runs or [g]


#: Largest side an embedded image is blown up to (see :func:`_sharpen_images`).
MAX_IMAGE_SIDE = 4096


def _sharpen_images(g: ET.Element, m: Matrix) -> Matrix | None:
    """Blow up (nearest neighbour) the pixel images in ``g`` that the transform enlarges.

    A heatmap is a small image (one pixel per cell) stretched by the group's transform; Qt draws it with
    sharp cells (``image-rendering="optimizeSpeed"``), librsvg smooths it into a blur.  Enlarged by whole
    factors, the cells stay sharp in every renderer.  Returns the group's new matrix (None: unchanged).
    """
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage

    from ..widgets.qt_typed import save_png

    images = [c for c in g if c.tag == _NS + "image" and c.get("image-rendering") == "optimizeSpeed"]
    a, b, c, d, e, f = m
    if len(images) != len(g) or abs(b) > 1e-12 or abs(c) > 1e-12:
        return None
    kx, ky = max(1, math.ceil(abs(a) - 1e-6)), max(1, math.ceil(abs(d) - 1e-6))
    if kx == 1 and ky == 1:
        return None
    for el in images:
        href_key = next((k for k in el.attrib if k.endswith("href")), None)
        href = el.get(href_key or "", "")
        if not href.startswith("data:image/png;base64,"):
            return None
        img = QImage.fromData(QByteArray.fromBase64(href.split(",", 1)[1].encode("ascii")))
        if img.isNull() or max(img.width() * kx, img.height() * ky) > MAX_IMAGE_SIDE:
            return None
        w, h = float(el.get("width", img.width())), float(el.get("height", img.height()))
        big = img.scaled(img.width() * kx, img.height() * ky, Qt.AspectRatioMode.IgnoreAspectRatio,
                         Qt.TransformationMode.FastTransformation)
        buf = QBuffer()
        buf.open(QIODevice.OpenModeFlag.WriteOnly)
        save_png(big, buf)
        el.set(href_key or "href", "data:image/png;base64," + bytes(buf.data().toBase64().data()).decode("ascii"))
        el.set("x", _fmt(float(el.get("x", 0)) * kx))
        el.set("y", _fmt(float(el.get("y", 0)) * ky))
        el.set("width", _fmt(w * kx))
        el.set("height", _fmt(h * ky))
    return (a / kx, 0.0, 0.0, d / ky, e, f)


def _walk(parent: ET.Element) -> None:
    children = list(parent)
    rebuilt: list[ET.Element] = []
    changed = False
    for child in children:
        if child.tag == _NS + "g":
            m = _matrix(child.get("transform"))
            if m is not None and _stretches(m) and any(
                c.get("vector-effect") == "non-scaling-stroke" for c in child
            ):
                rebuilt.extend(_split_group(child, m))
                changed = True
                continue
            if m is not None and _stretches(m):
                sharp = _sharpen_images(child, m)
                if sharp is not None:
                    child.set("transform", "matrix(" + ",".join(_fmt(v) for v in sharp) + ")")
            else:
                _walk(child)
        rebuilt.append(child)
    if changed:
        for c in children:
            parent.remove(c)
        parent.extend(rebuilt)


def _unstretch_patterns(root: ET.Element) -> None:
    """Texture fills (the Schemes panel's hatching) at their on-screen size.

    Qt's SVG engine drops the brush's own transform, so a pattern meant to keep 12-pixel stripes is written
    in data units and stretched by the group's transform (7 × 40 in a score matrix).  Each such use gets a
    copy of the pattern with the stretch undone (``patternTransform``).
    """
    parents = {c: p for p in root.iter() for c in p}
    patterns = {el.get("id"): el for el in root.iter(_NS + "pattern") if el.get("id")}
    n = 0
    for g in list(root.iter(_NS + "g")):
        m = _matrix(g.get("transform"))
        ref = re.match(r"^url\(#([^)]+)\)$", g.get("fill", ""))
        if m is None or not _stretches(m) or ref is None or ref.group(1) not in patterns:
            continue
        a, b, c, d, _e, _f = m
        det = a * d - b * c
        if abs(det) < 1e-12:
            continue
        original = patterns[ref.group(1)]
        if original.get("patternUnits") != "userSpaceOnUse":
            continue
        n += 1
        copy = ET.Element(original.tag, dict(original.attrib))
        copy.extend(list(original))
        copy.set("id", f"{ref.group(1)}_px{n}")
        inv = (d / det, -b / det, -c / det, a / det, 0.0, 0.0)
        copy.set("patternTransform", "matrix(" + ",".join(_fmt(v) for v in inv) + ")")
        holder = parents.get(original, root)
        holder.insert(list(holder).index(original) + 1, copy)
        g.set("fill", f"url(#{copy.get('id')})")


def portable_svg(data: bytes, *, description: str = "") -> bytes:
    """``data`` (Qt's SVG) without non-scaling strokes under stretching transforms (see the module doc);
    ``description``, given, replaces (or becomes) the document's ``<desc>``."""
    ET.register_namespace("", SVG_NS)
    ET.register_namespace("xlink", XLINK_NS)
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return data
    if description:
        desc = root.find(_NS + "desc")
        if desc is None:
            desc = ET.Element(_NS + "desc")
            root.insert(0, desc)
        desc.text = description
    _unstretch_patterns(root)
    _walk(root)
    body = ET.tostring(root, encoding="utf-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + body


def non_scaling_under_stretch(data: bytes) -> int:
    """How many shapes still have a non-scaling stroke under a stretching transform (tests use it)."""
    root = ET.fromstring(data)
    n = 0
    for g in root.iter(_NS + "g"):
        m = _matrix(g.get("transform"))
        if m is not None and _stretches(m):
            n += sum(1 for c in g if c.get("vector-effect") == "non-scaling-stroke")
    return n


_SUB = str.maketrans("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
_SUP = str.maketrans("0123456789+-−=()in", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁱⁿ")


def plain_text(html: str) -> str:
    """Rich text as one plain line: ``<sub>j</sub>`` -> ``ⱼ`` (where Unicode has the letter), tags dropped."""
    import html as _html

    def script(m: re.Match, table, mark: str) -> str:
        inner = re.sub(r"<[^>]+>", "", m.group(1))
        mapped = inner.translate(table)
        whole = all(a != b or not a.isalnum() for a, b in zip(inner, mapped, strict=True))
        return mapped if whole else f"{mark}{inner}"

    text = re.sub(r"<sub>(.*?)</sub>", lambda m: script(m, _SUB, "_"), html, flags=re.S | re.I)
    text = re.sub(r"<sup>(.*?)</sup>", lambda m: script(m, _SUP, "^"), text, flags=re.S | re.I)
    text = re.sub(r"<br\s*/?>", " ", text, flags=re.I)
    return _html.unescape(re.sub(r"<[^>]+>", "", text)).strip()
