"""Copy as Python for the Schemes panel: a scheme's position-only score matrix ΔS, and the simple plots.

The matrix program sets the request's parameters, the content vectors, then the scheme's own code (its
:meth:`~explorer.schemes.base.Scheme.score_snippet` hook: ``delta_s`` at every query and key), and averages
blocks of positions as the panel shows them (:mod:`explorer.encodings.blocks` computes the same means in
closed form).
"""

from __future__ import annotations

from typing import Any

from .. import schemes as registry
from ..encodings.blocks import blocks
from . import NoSnippet, Snippet, program

#: Largest L_eval a matrix program builds in full (L × L float64: 128 MiB at 4096).
FULL_MATRIX_MAX = 4096

#: The shared request fields a score may read, and how the program's top names them.
FIELDS = {
    "head_dim": ("d", "head dimension d"),
    "base": ("base", "RoPE / sinusoid base"),
    "l_train": ("l_train", "training length L_train"),
    "content": ("content", '"same": one content vector c; "average": the mean over 16'),
    "seed": ("seed", "seed of the content vectors and tables"),
    "causal": ("causal", "causal mask: no key after its query"),
    "scaling": ("scaling", "context-scaling method"),
    "factor": ("factor", "scaling factor s"),
    "heads": ("heads", "heads (bias schemes)"),
    "alibi_head": ("alibi_head", "the head shown"),
}

_CONTENT = ('c = np.random.default_rng(seed).standard_normal((1 if content == "same" else 16, d))'
            "  # content vectors, q = k = c")

_BLOCKS = """\
# The panel shows blocks of `block` × `block` positions, each cell the mean of ΔS over its block
# (cells with no value, NaN, left out; a block with none stays NaN).
nb = -(-L // block)
padded = np.full((nb * block, nb * block), np.nan)
padded[:L, :L] = delta_s
cells = padded.reshape(nb, block, nb, block)
count = np.sum(~np.isnan(cells), axis=(1, 3))
total = np.nansum(cells, axis=(1, 3))
matrix = np.where(count > 0, total / np.maximum(count, 1), np.nan)"""


def matrix(req: Any, name: str, title: str) -> Snippet | NoSnippet:
    """ΔS of one scheme for a :class:`~explorer.jobs.schemes.MatrixRequest`; ``name`` is the exported array's."""
    scheme = registry.get(req.scheme)
    length = int(req.l_eval)
    if length > FULL_MATRIX_MAX:
        return NoSnippet(f"L_eval = {length:,}: the full L × L matrix is too large for a snippet "
                         f"(at most {FULL_MATRIX_MAX:,}); Export → Save numbers gives the block means")
    part = scheme.score_snippet(req)
    if isinstance(part, NoSnippet):
        return part
    bl = blocks(length, req.max_cells)
    fields = [f for f in scheme.fields_for("matrices") if f in FIELDS]
    params = [("L", length, "positions 0 … L − 1 (L_eval)"), ("block", int(bl.size), "positions per cell"),
              *((FIELDS[f][0], getattr(req, f), FIELDS[f][1]) for f in fields), *part.params]
    body = "pos = np.arange(L)\n"
    if "content" in fields:
        body += _CONTENT + "\n"
    body += f"\n# {scheme.title}:\n{part.code.strip()}\n\n"
    body += "matrix = delta_s  # one cell per position\n" if bl.size == 1 else _BLOCKS
    return program(title, params, body, f"{{{name!r}: matrix}}", imports=part.imports)


def alibi_slopes(req: Any, title: str) -> Snippet:
    """The ALiBi slopes plot (an :class:`~explorer.jobs.schemes.AlibiRequest`)."""
    from ..schemes.alibi import SLOPES_SNIPPET

    return program(title, [("heads", int(req.heads), "attention heads")],
                   SLOPES_SNIPPET + "\nhead = np.arange(heads, dtype=np.float64)",
                   '{"x": head, "slope": slopes}')
