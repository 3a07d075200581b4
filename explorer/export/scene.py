"""A scene's arrangement of its panel — its view (tab), splitter shares, plot ranges and the plot in focus — done
the same way in the window (:class:`explorer.shell.session.Session`) and headless (``pe-explorer export --scene``), so
what a scene exports is what it shows.

A scene's ``layout`` is the checked dict of :class:`explorer.presets.Preset` (``splitters``, ``ranges``,
``focus``); names are looked up here, and the ones not found are returned, for the caller to say.
"""

from __future__ import annotations

from .slide import named_plots


def set_splitters(panel, layout: dict | None) -> list[str]:
    """Divide ``panel``'s splitters in its own default shares, then in the scene's (so a scene looks the same
    whichever scene came before); the names not found."""
    from PySide6.QtWidgets import QSplitter

    shares = {split.objectName(): split.property("defaultShares") for split in panel.findChildren(QSplitter)
              if split.objectName() and split.property("defaultShares")}
    shares.update((layout or {}).get("splitters", {}))
    missing = []
    for name, parts in shares.items():
        split = panel.findChild(QSplitter, name)
        if split is None or split.count() != len(parts):
            missing.append(name)
            continue
        total = sum(split.sizes()) or 1000
        split.setSizes([round(total * p / sum(parts)) for p in parts])
    return missing


def set_ranges(panel, ranges: dict) -> list[str]:
    """The scene's axis ranges on ``panel``'s named plots (call once the panel has drawn what the scene's
    parameters ask for: a result that arrives later sets its own range); the plot names not found."""
    plots = dict(named_plots(panel)) if ranges else {}
    missing = []
    for name, axes in ranges.items():
        plot = plots.get(name)
        if plot is None:
            missing.append(name)
            continue
        item = plot.getPlotItem()
        if "x" in axes:
            item.setXRange(*axes["x"], padding=0)
        if "y" in axes:
            item.setYRange(*axes["y"], padding=0)
    return missing


def arrange(panel, view: str | None, layout: dict | None) -> list[str]:
    """Open the scene's ``view`` (tab) of ``panel`` and divide its splitters; the names not found.  Ranges
    (:func:`set_ranges`) and the plot in focus are the caller's: they need the panel drawn, and the stage."""
    if view is not None and view in getattr(panel, "view_ids", ()):
        panel.show_view(view)
    return set_splitters(panel, layout)
