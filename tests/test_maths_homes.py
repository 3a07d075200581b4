"""Each scheme's maths has one home (docs/developing.md, "Where maths lives").

A scheme's own maths lives in its module in ``explorer/schemes/`` (others, such as jobs, lessons and the CLI,
import it from there); ``explorer/encodings/`` holds the maths that is not one scheme's: what several schemes
share (the rotation every rotary scheme uses), what a panel draws beyond the schemes (Waves' table, the learned
tables, real models' RoPE configs), and the blocks, attention and error type under all of them.  Two checks,
read from the source (no import needed):

* no ``encodings`` module is imported by one scheme's module and nothing else (it would be that scheme's maths
  in a second home);
* no scheme module takes a function from another scheme's module (maths two schemes share belongs in
  ``encodings``; a base class, a constant or a snippet's text may be shared).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from explorer import schemes as registry

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "explorer"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@functools.lru_cache(maxsize=2)
def _imports(root: Path = PACKAGE) -> tuple[tuple[str, str, str], ...]:
    """(importer, imported module, name) for every import in the package (name "" for ``import m``)."""
    return tuple(_walk(root))


def _walk(root: Path):
    for path in sorted(root.rglob("*.py")):
        module = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                source = _resolve(module, node, path.name == "__init__.py")
                for alias in node.names:
                    yield module, source, alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    yield module, alias.name, ""


def _reexports() -> dict[str, str]:
    """Name → the encodings module it comes from, for what ``explorer.encodings`` re-exports."""
    return {name: source for importer, source, name in _imports()
            if importer == "explorer.encodings" and source.startswith("explorer.encodings.")}


def encodings_importers(imports=None) -> dict[str, set[str]]:
    """Each ``explorer.encodings.*`` module → the modules outside it that import it (directly or through the
    package's re-exports)."""
    maths = {_module_name(p) for p in (PACKAGE / "encodings").glob("*.py") if p.name != "__init__.py"}
    again = _reexports()
    out: dict[str, set[str]] = {m: set() for m in maths}
    for importer, source, name in (imports if imports is not None else _imports()):
        if importer == "explorer.encodings":
            continue
        targets = {source, f"{source}.{name}", again.get(name, "") if source == "explorer.encodings" else ""}
        for target in targets & maths:
            if importer != target:
                out[target].add(importer)
    return out


def scheme_modules() -> set[str]:
    return {type(s).__module__ for s in registry.all_schemes() if type(s).__module__.startswith("explorer.schemes.")}


def one_schemes_maths(importers: dict[str, set[str]], schemes: set[str]) -> list[str]:
    """Encodings modules that are one scheme's maths (or nobody's: only the tests import them)."""
    return sorted(f"{m} is imported only by {next(iter(users))}" if users else f"{m} is imported by nothing"
                  for m, users in importers.items() if not users or (len(users) == 1 and next(iter(users)) in schemes))


def shared_functions(imports, schemes: set[str]) -> list[str]:
    """``from <scheme module> import f`` inside explorer/schemes, f a function (lower-case name)."""
    return sorted(f"{importer} takes {name} from {source}" for importer, source, name in imports
                  if source in schemes and importer.startswith("explorer.schemes.") and importer != source
                  and name[:1].islower())


def test_every_encodings_module_is_more_than_one_schemes_maths():
    importers = encodings_importers()
    assert "explorer.encodings.rotary" in importers and len(importers["explorer.encodings.rotary"]) > 2
    assert one_schemes_maths(importers, scheme_modules()) == []


def test_no_scheme_takes_a_function_from_another_schemes_module():
    schemes = scheme_modules()
    assert {"explorer.schemes.rope", "explorer.schemes.xpos", "explorer.schemes.t5"} <= schemes
    assert shared_functions(list(_imports()), schemes) == []


def test_the_checks_fail_on_maths_in_a_second_home():
    # ALiBi's slopes back in an encodings module of their own that only ALiBi imports, and xPos taking a
    # function from RoPE's module: each check names the fault.
    imports = list(_imports()) + [("explorer.schemes.alibi", "explorer.encodings.alibi_slopes", "alibi_slopes"),
                                  ("explorer.schemes.xpos", "explorer.schemes.rope", "rope_curve")]
    importers = encodings_importers(imports)
    importers["explorer.encodings.alibi_slopes"] = {"explorer.schemes.alibi"}
    importers["explorer.encodings.nope"] = set()
    schemes = scheme_modules()
    assert one_schemes_maths(importers, schemes) == [
        "explorer.encodings.alibi_slopes is imported only by explorer.schemes.alibi",
        "explorer.encodings.nope is imported by nothing"]
    assert shared_functions(imports, schemes) == ["explorer.schemes.xpos takes rope_curve from explorer.schemes.rope"]
