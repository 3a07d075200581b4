"""One package per panel: widgets and plots, no maths.

:data:`PANELS` lists them for the main window: (panel id, dock title, "module:Class").
"""

from __future__ import annotations

from collections.abc import Callable

PANELS = (
    ("waves", "Waves", "explorer.panels.waves:WavesPanel"),
    ("swap", "Token swap", "explorer.panels.swap:SwapPanel"),
    ("schemes", "Schemes", "explorer.panels.schemes:SchemesPanel"),
    ("lab", "Lab", "explorer.panels.lab:LabPanel"),
    ("table", "Learned table", "explorer.panels.table:TablePanel"),
)


def load_panel_class(spec: str):
    """The panel class named by ``spec`` ("module:Class"), imported on demand (a panel's module, and
    what it imports, loads only when that panel is made)."""
    import importlib

    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def panel_on_demand(package: str, name: str) -> Callable[[str], object]:
    """A panel package's module ``__getattr__``: ``name`` (its panel class) is imported from the package's
    ``panel`` module when first asked for.  A sibling panel may import one part of the package (Token swap and
    Schemes the Learned table's ``link``, the Lab the Schemes ``items``) without loading the whole panel."""

    def __getattr__(attr: str) -> object:
        if attr != name:
            raise AttributeError(f"module {package!r} has no attribute {attr!r}")
        import importlib

        return getattr(importlib.import_module(f"{package}.panel"), name)

    return __getattr__
