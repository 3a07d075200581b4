"""One module per panel: widgets and plots, no maths.

:data:`PANELS` lists them for the main window: (panel id, dock title, "module:Class").
"""

PANELS = (
    ("waves", "Waves", "explorer.panels.waves:WavesPanel"),
    ("swap", "Token swap", "explorer.panels.swap:SwapPanel"),
    ("schemes", "Schemes", "explorer.panels.schemes:SchemesPanel"),
    ("lab", "Lab", "explorer.panels.lab:LabPanel"),
)
