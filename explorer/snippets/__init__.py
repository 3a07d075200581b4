"""Copy as Python: a short numpy program that reproduces the numbers behind a plot (no Qt, no import of ours).

Every plot's Export menu and every formula strip offer **Copy as Python**.  The panel picks the generator for
the plot and hands it the same frozen request objects its jobs ran; the generator returns a :class:`Snippet`
(the program's text) or a :class:`NoSnippet` (why there is none: the menu item is then disabled with that
reason as its tooltip).  A program

* imports numpy (and the standard library) only, never this package, so a student can paste it anywhere;
* sets the plot's parameters at the top, one named variable each, with the app's version and the plot's
  title in a comment;
* computes with the formula written out, and ends with ``result``: the same name → array dict that
  Export → Save numbers writes for that plot (``tests/test_snippets.py`` runs every program and compares).

Scheme-specific parts come from the registry's hooks (:meth:`explorer.schemes.base.Scheme.score_snippet`,
:meth:`~explorer.schemes.base.Scheme.swap_snippet`), so a new scheme brings its own or an honest "no snippet
for this scheme yet".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..schemes.base import NoSnippet, SnippetPart, lit

__all__ = ["NoSnippet", "Snippet", "SnippetPart", "lit", "program", "version"]


#: Parameter lines longer than this get their comment on the line above (not aligned with the others).
LONG = 60


@dataclass(frozen=True)
class Snippet:
    """A complete program: its text, and the plot it reproduces."""

    title: str
    code: str


def version() -> str:
    """The app's version, for the snippet's first comment."""
    try:
        from importlib.metadata import version as _v

        return _v("pe-explorer")
    except Exception:  # noqa: BLE001 - an uninstalled checkout still gets a snippet
        return "dev"


def program(title: str, params: Sequence[tuple[str, object, str]], body: str, result: str, *,
            imports: tuple[str, ...] = (), note: str = "") -> Snippet:
    """Assemble a snippet: header comment, imports, one line per parameter, the body, ``result = …``.

    ``params`` are ``(name, value, comment)``; values are written with :func:`lit` (floats round-trip).
    ``body`` is numpy code using them; ``result`` the expression of the name → array dict.
    """
    head = [f"# {title}",
            f"# The numbers behind this plot, from PE Explorer {version()} (Copy as Python): numpy only.",
            "# `result` holds the same arrays as Export → Save numbers (CSV/NPY) for this plot."]
    if note:
        head += [f"# {line}" for line in note.splitlines()]
    lines = [*head, *(f"import {m}" for m in imports), "import numpy as np", ""]
    if params:
        # Comments line up after the short assignments; a long one (a config dict) has its comment above it.
        width = max((len(f"{n} = {lit(v)}") for n, v, _c in params if len(f"{n} = {lit(v)}") <= LONG), default=0)
        for n, v, c in params:
            text = f"{n} = {lit(v)}"
            if len(text) > LONG:
                lines += [f"# {c}", text] if c else [text]
            else:
                lines.append(f"{text:<{width}}  # {c}" if c else text)
        lines.append("")
    lines.append(body.strip("\n"))
    lines += ["", f"result = {result}", ""]
    return Snippet(title, "\n".join(lines))
