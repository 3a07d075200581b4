"""One module per panel: widgets and plots, no maths.

:data:`PANELS` lists them for the main window: (panel id, dock title, "module:Class").
"""

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
