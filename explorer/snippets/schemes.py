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


_TURNS = """\
k = np.arange(d // 2)  # pair index, 0 = the fastest
theta = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # θ_k = base^(−2k/d)
wavelength = 2 * np.pi / theta  # positions per full turn of pair k
# Positions 0 … L − 1 span L − 1 steps: pair k meets angles up to (L − 1)·θ_k."""


def rope_turns(req: Any, which: str, title: str) -> Snippet:
    """RoPE past training (a :class:`~explorer.jobs.schemes.BeyondRequest`): ``which`` = "waves" (each pair's
    wavelength, and whether it turns fully inside L_train) or "cover" (the share of a turn reached)."""
    params = [("d", int(req.head_dim), "head dimension d"), ("base", float(req.base), "RoPE base"),
              ("l_train", int(req.l_train), "training length L_train"), ("l_eval", int(req.l_eval), "L_eval")]
    if which == "waves":
        body = _TURNS + "\nfull = wavelength <= l_train - 1  # turns fully inside L_train: every angle seen"
        result = ('{"pair k": k, "wavelength 2π/θ_k": wavelength, '
                  '"full turn inside L_train": full.astype(np.float64)}')
    else:
        body = _TURNS + ("\ncover_train = np.minimum(1.0, (l_train - 1) * theta / (2 * np.pi))  # share of a turn"
                         "\ncover_eval = np.minimum(1.0, (l_eval - 1) * theta / (2 * np.pi))")
        result = '{"pair k": k, "share of a turn inside L_train": cover_train, "share up to L_eval": cover_eval}'
    return program(title, params, body, result)
