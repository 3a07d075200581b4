"""The README stays a page and the guide in docs/ holds together.

Links are read twice: from the Markdown text (a small parser for links and images) and by Qt's own
Markdown reader, which is what Help → User guide will render; both must agree and every target must
be a file in this checkout. Relative links only, no links to a heading (Qt gives headings no anchors),
no raw HTML (the pages must read the same on GitHub, in a checkout and in the app).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
INDEX = DOCS / "index.md"
README_MAX_LINES = 200


def _pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


# -- reading links out of Markdown ---------------------------------------------------------------
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1[`~]*[ \t]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
# [text](target) and ![alt](target "title"); the text may hold one level of brackets ("PE[p, i]").
_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^\s()<>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")


def _prose(text: str) -> str:
    """The text with fenced code blocks and code spans blanked out (links there are not links)."""
    text = _FENCE.sub("", text)
    return _CODE_SPAN.sub("", text)


def text_links(text: str) -> list[str]:
    """Every link and image target written in ``text``, in order."""
    prose = _prose(text)
    return [m.group(1) for m in _INLINE_LINK.finditer(prose)] + [m.group(1) for m in _REF_DEF.finditer(prose)]


def qt_links(text: str) -> list[str]:
    """Every link and image target as Qt's Markdown reader (the app's guide viewer) sees them."""
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setMarkdown(text, QTextDocument.MarkdownFeature.MarkdownDialectGitHub)
    found = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                found.append(fmt.toImageFormat().name())
            elif fmt.isAnchor() and fmt.anchorHref():
                found.append(fmt.anchorHref())
            it += 1
        block = block.next()
    return found


def _is_relative(target: str) -> bool:
    parts = urlsplit(target)
    return not parts.scheme and not parts.netloc


def link_problems(page: Path, targets: list[str], root: Path = ROOT) -> list[str]:
    """What is wrong with the relative links of ``page`` (empty when every one resolves to a file)."""
    problems = []
    for target in targets:
        if not _is_relative(target):
            continue
        where = f"{page.name}: ({target})"
        path, _, fragment = target.partition("#")
        if fragment or not path:
            problems.append(f"{where} links to a heading; Qt's guide viewer has no heading anchors")
            continue
        if path.startswith("/"):
            problems.append(f"{where} is absolute; use a path relative to the page")
            continue
        resolved = (page.parent / unquote(path)).resolve()
        if not resolved.is_relative_to(root.resolve()):
            problems.append(f"{where} leaves the checkout")
        elif not resolved.is_file():
            problems.append(f"{where} points to {resolved.relative_to(root.resolve())}, which is not a file")
    return problems


# -- the README ----------------------------------------------------------------------------------
def test_readme_is_a_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/"


def test_readme_gives_the_two_commands_and_they_exist():
    blocks = [m.group(0) for m in _FENCE.finditer(README.read_text(encoding="utf-8"))]
    commands = [ln.split("#")[0].strip() for b in blocks for ln in b.splitlines()[1:-1] if ln.strip()]
    assert "bash scripts/launch.sh" in commands and "bash scripts/test.sh" in commands, commands
    assert (ROOT / "scripts" / "launch.sh").is_file() and (ROOT / "scripts" / "test.sh").is_file()


def test_readme_links_the_guide():
    targets = {urlsplit(t).path for t in text_links(README.read_text(encoding="utf-8"))}
    assert "docs/index.md" in targets


# -- every page ----------------------------------------------------------------------------------
@pytest.mark.parametrize("page", _pages(), ids=_name)
def test_every_relative_link_points_to_a_file(page):
    targets = text_links(page.read_text(encoding="utf-8"))
    assert not link_problems(page, targets), "\n".join(link_problems(page, targets))


@pytest.mark.parametrize("page", _pages(), ids=_name)
def test_qt_reads_the_same_links(qapp, page):
    # A link that only our parser sees (or only Qt sees) would render as text in one of the two.
    text = page.read_text(encoding="utf-8")
    ours = Counter(t for t in text_links(text) if _is_relative(t))
    qts = Counter(t for t in qt_links(text) if _is_relative(t))
    assert ours == qts, f"only in the text: {ours - qts}; only in Qt: {qts - ours}"


@pytest.mark.parametrize("page", _pages(), ids=_name)
def test_no_raw_html(page):
    tags = _HTML_TAG.findall(_prose(page.read_text(encoding="utf-8")))
    assert not tags, f"{_name(page)} uses raw HTML {tags}; write plain Markdown (ωᵢ, base^(−2i/d))"


def test_the_index_links_every_page():
    targets = text_links(INDEX.read_text(encoding="utf-8"))
    linked = {(INDEX.parent / urlsplit(t).path).resolve() for t in targets if _is_relative(t)}
    orphans = [_name(p) for p in sorted(DOCS.rglob("*.md")) if p != INDEX and p.resolve() not in linked]
    assert not orphans, f"docs/index.md does not link {orphans}"


def test_every_image_is_shown_somewhere():
    shown = set()
    for page in _pages():
        for t in text_links(page.read_text(encoding="utf-8")):
            if _is_relative(t):
                shown.add((page.parent / unquote(urlsplit(t).path)).resolve())
    images = [p for p in sorted((DOCS / "images").iterdir()) if p.is_file()]
    unused = [_name(p) for p in images if p.resolve() not in shown]
    assert not unused, f"images no page shows: {unused}"


# -- the checker itself finds what it must --------------------------------------------------------
def test_the_checker_catches_broken_links(tmp_path):
    (tmp_path / "docs" / "images").mkdir(parents=True)
    (tmp_path / "docs" / "here.md").write_text("x", encoding="utf-8")
    (tmp_path / "docs" / "images" / "a.png").write_bytes(b"")
    page = tmp_path / "docs" / "page.md"
    text = (
        "See [here](here.md), ![alt with [brackets]](images/a.png \"t\") and [web](https://example.org).\n"
        "Broken: [gone](gone.md), ![img](images/b.png), [up](../../outside.md), [head](here.md#part),\n"
        "[abs](/docs/here.md). `[code](not-a-link.md)`\n\n```\n[fenced](not-a-link.md)\n```\n\n"
        "[ref]: missing.md\n"
    )
    targets = text_links(text)
    assert targets == ["here.md", "images/a.png", "https://example.org", "gone.md", "images/b.png",
                       "../../outside.md", "here.md#part", "/docs/here.md", "missing.md"]
    problems = link_problems(page, targets, root=tmp_path)
    assert len(problems) == 6, problems
    for bad in ("gone.md", "images/b.png", "../../outside.md", "here.md#part", "/docs/here.md", "missing.md"):
        assert any(f"({bad})" in p for p in problems), bad
    assert _HTML_TAG.findall(_prose("x<sub>i</sub> and p < L and `<b>`")) == ["<sub>", "</sub>"]


def test_the_lecture_guide_shows_every_scene_at_720p_presenter_light_and_dark():
    """Issue 27: a picture of every built-in scene as a 1280×720 projector shows it in presenter mode, in both
    themes (scripts/scene_screenshots.py makes them); a scene added without its pictures fails here."""
    from PySide6.QtGui import QImage

    from explorer import presets as pr

    page = (DOCS / "lecture.md").read_text(encoding="utf-8")
    for n, _scene in enumerate(pr.builtin_presets(), 1):
        for theme in ("light", "dark"):
            rel = f"images/scenes/scene-{n}-{theme}.png"
            assert f"]({rel})" in page, f"docs/lecture.md does not show {rel}"
            image = QImage(str(DOCS / rel))
            # The window fitted to a 1280×720 screen (less its frame).
            assert 1260 <= image.width() <= 1280 and 700 <= image.height() <= 720, (rel, image.size())
