"""Text the schemes share: numbers as rich text, and Token swap's sentence for a scheme that a mirroring swap cannot
move.  No maths here (that is :mod:`explorer.schemes.scores`).

Re-exported by :mod:`explorer.schemes.base`, where the schemes import them from.
"""

from __future__ import annotations


def num_html(x: float) -> str:
    """A number for rich text: 4 significant digits, thousands separated, powers of ten as 10<sup>n</sup>."""
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e4:
        return f"{x:.4g}"
    if 1e4 <= abs(x) < 1e9:
        return f"{x:,.0f}"
    mant, exp = f"{x:.3e}".split("e")
    return f"{float(mant):.3g}·10<sup>{int(exp)}</sup>"


def mirror_blind(name: str, why: str) -> tuple[str, str]:
    """Token swap's (headline, explanation) for a distance-only scheme that cannot see a mirroring swap."""
    return (f"{name} cannot see this swap — it mirrors the sentence",
            f"{why} This swap keeps every distance (it mirrors the sentence), so the outputs are just relabelled. "
            "Swap two other tokens, or turn on the causal mask.")
