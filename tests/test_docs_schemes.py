"""The guide's tables of schemes cannot drift from the registry (issue 26): docs/schemes.md names every scheme
``pe-explorer schemes --json`` lists, once, and what its row says about kind, relative, bounded and sources agrees
with the record; docs/maths.md gives every scheme's formula, under the title the app shows it by."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

from explorer.cli import main

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: What a row's kind cell says for each kind of the record.
KIND_WORDS = {"none": "none", "input": "added to the input", "rotary": "rotates q and k",
              "score": "inside the score", "bias": "bias on the scores"}


def _registry() -> dict[str, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["schemes", "--json"]) in (0, None)
    return {s["id"]: s for s in json.loads(out.getvalue())["schemes"]}


def table_rows(text: str) -> dict[str, dict[str, str]]:
    """The rows of the table headed ``| scheme | id | kind | relative | bounded | source |``, by id."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| scheme | id | kind |"))
    header = [c.strip() for c in lines[start].strip("|").split(" | ")]
    rows: dict[str, dict[str, str]] = {}
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", ln.strip().strip("|"))]
        row = dict(zip(header, cells, strict=True))
        sid = row["id"].strip("`")
        assert sid not in rows, f"docs/schemes.md lists {sid} twice"
        rows[sid] = row
    return rows


def drift(rows: dict[str, dict[str, str]], schemes: dict[str, dict]) -> list[str]:
    """Every way the table disagrees with the registry."""
    problems = [f"{sid}: in the registry, not in the table" for sid in schemes.keys() - rows.keys()]
    problems += [f"{sid}: in the table, not in the registry" for sid in rows.keys() - schemes.keys()]
    for sid in rows.keys() & schemes.keys():
        row, s = rows[sid], schemes[sid]
        if KIND_WORDS[s["kind"]] not in row["kind"]:
            problems.append(f"{sid}: kind {s['kind']!r}, the table says {row['kind']!r}")
        if s["relative"] != row["relative"].startswith("relative"):
            problems.append(f"{sid}: relative={s['relative']}, the table says {row['relative']!r}")
        if s["kind"] != "none" and s["bounded"] != row["bounded"].startswith("yes"):
            problems.append(f"{sid}: bounded={s['bounded']}, the table says {row['bounded']!r}")
        years = {int(y) for y in re.findall(r"\b(?:19|20)\d\d\b", row["source"])}
        known = {src["year"] for src in s["sources"]} | {int(y) for y in re.findall(r"\b20\d\d\b", s["used_by"])}
        if years - known:
            problems.append(f"{sid}: the table cites {sorted(years - known)}, the record's sources {sorted(known)}")
    return problems


def test_the_guides_table_of_schemes_is_the_registry():
    rows = table_rows((DOCS / "schemes.md").read_text(encoding="utf-8"))
    assert drift(rows, _registry()) == []


def test_the_drift_check_can_fail():
    schemes = _registry()
    rows = table_rows((DOCS / "schemes.md").read_text(encoding="utf-8"))
    fewer = {k: v for k, v in rows.items() if k != "alibi"}
    assert drift(fewer, schemes) == ["alibi: in the registry, not in the table"]
    flipped = {**rows, "rope": {**rows["rope"], "relative": "absolute"}}
    assert any(p.startswith("rope: relative=True") for p in drift(flipped, schemes))
    unbounded = {**rows, "alibi": {**rows["alibi"], "bounded": "yes"}}
    assert any(p.startswith("alibi: bounded=False") for p in drift(unbounded, schemes))
    wrong_kind = {**rows, "t5": {**rows["t5"], "kind": "rotates q and k"}}
    assert any(p.startswith("t5: kind") for p in drift(wrong_kind, schemes))
    wrong_year = {**rows, "fire": {**rows["fire"], "source": "Li et al. 1999"}}
    assert any(p.startswith("fire: the table cites [1999]") for p in drift(wrong_year, schemes))


def maths_rows(text: str) -> list[str]:
    """The first cells of the table headed ``| scheme | formula …``."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| scheme | formula"))
    out = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        out.append(ln.strip("|").split(" | ")[0].strip())
    return out


def missing_formulas(rows: list[str], schemes: dict[str, dict]) -> list[str]:
    """Schemes no row of the maths table names (a row names a scheme when it starts with the scheme's title, or
    with its title before a parenthesis: "Shaw" for "Shaw (relative)")."""
    named = [r.lower() for r in rows]
    out = []
    for sid, s in schemes.items():
        title = s["title"].lower()
        short = re.sub(r"\s*\(.*\)$", "", title)
        if not any(r.startswith(title) or r.startswith(short) for r in named):
            out.append(f"{sid} ({s['title']}): no formula in docs/maths.md")
    return out


def test_the_maths_table_gives_every_schemes_formula():
    rows = maths_rows((DOCS / "maths.md").read_text(encoding="utf-8"))
    assert missing_formulas(rows, _registry()) == []


def test_the_maths_check_can_fail():
    rows = maths_rows((DOCS / "maths.md").read_text(encoding="utf-8"))
    fewer = [r for r in rows if not r.lower().startswith("scaled rope")]
    assert missing_formulas(fewer, _registry()) == ["scaled_rope (Scaled RoPE): no formula in docs/maths.md"]
