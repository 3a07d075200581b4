"""The window's Export menu and the export commands behind its actions: they act on what is on stage.

:class:`ExportCommands` is a part of the main window.  The panel exported, copied, made into a slide or a
program is the panel on stage (:class:`explorer.shell.stage.Stage`: the one the audience sees, never the one
that happens to hold the keyboard); the menu is filled as it opens, with that panel's title.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from . import SCALES, plot_name, plot_title
from .controller import ExportController, add_python_action


class ExportCommands:
    """Export → Panel / Window / Slide / Copy as Python for the panel on ``stage`` (see the module's docstring).

    ``window``: the main window (exported whole by "Whole window"); ``exporter``: the export controller;
    ``titles``: panel id -> title; ``acts``: the window's actions (the menu lists some of them);
    ``status``: a line in the status bar.
    """

    def __init__(self, window: QWidget, exporter: ExportController, stage, titles: dict[str, str],
                 status: Callable[..., None]) -> None:
        self._window = window
        self.exporter = exporter
        self.stage = stage
        self.titles = titles
        self._status = status
        self.acts: dict[str, QAction] = {}

    # -- commands --------------------------------------------------------------------------------------
    def export_panel(self, *, scale: float = 2, ext: str = ".png", ask_width: bool = False) -> bool:
        """The panel on stage as an image — or, when a plot is in focus, that plot (what the audience sees)."""
        panel = self.stage.panel()
        plot = self.stage.plot()
        if plot is not None:
            if ask_width:
                return self.exporter.save_plot_width(panel, plot)
            return self.exporter.save_plot(panel, plot, scale=scale, ext=ext)
        width = None
        if ask_width:
            width = self.exporter.ask_width(panel.width() * 2)
            if width is None:
                return False
            scale = 1
        base = panel.export_basename() + (f"_w{width}" if width else "")
        return self.exporter.save_widget(panel, base, scale=scale, width=width, ext=ext,
                                         title=self.titles.get(self.stage.panel_id(), ""))

    def export_window(self, *, scale: float = 2, ext: str = ".png") -> bool:
        return self.exporter.save_widget(self._window, "pe-explorer-window", scale=scale, ext=ext, title="PE Explorer")

    def copy_panel(self) -> bool:
        plot = self.stage.plot()
        if plot is not None:
            return self.exporter.copy_plot(plot)
        return self.exporter.copy_widget(self.stage.panel())

    def record_sweep(self, ext: str = ".gif") -> bool:
        return self.exporter.sweep_dialog(self.stage.panel(), ext=ext)

    # -- the menu --------------------------------------------------------------------------------------
    def fill_menu(self, m: QMenu) -> None:
        """Fill the Export menu for the panel on stage (as it opens)."""
        for sub in m.findChildren(QMenu):  # the submenus of the last opening (clear() keeps them)
            sub.setParent(None)
            sub.deleteLater()
        m.clear()
        panel = self.stage.panel()
        pid = self.stage.panel_id()
        title = self.titles.get(pid, pid)
        a = self.acts
        for act_id in ("actExportPanel", "actCopyPanel", "actExportWindow"):
            if act_id in a:
                m.addAction(a[act_id])
        m.addSeparator()
        plot = self.stage.plot()
        if plot is not None:  # what is on stage first: the plot in focus, with its own slide and program
            focused = self.exporter.plot_menu(panel, plot, m)
            focused.setTitle(f"Plot in focus: “{plot_title(plot) or plot_name(panel, plot)}”")
            focused.setObjectName("pePlotInFocus")
            m.addMenu(focused)
        pm = m.addMenu(f"Panel “{title}”")
        for s in SCALES:
            pm.addAction(f"PNG, {s}×…").triggered.connect(lambda _=False, s=s: self.export_panel(scale=s))
        pm.addAction("PNG, width in pixels…").triggered.connect(lambda: self.export_panel(ask_width=True))
        pm.addAction("SVG…").triggered.connect(lambda: self.export_panel(ext=".svg"))
        pm.addAction("Copy image").triggered.connect(self.copy_panel)
        self.exporter.add_slide_actions(m, panel, plot)  # the slide of what is on stage: the plot in focus, if any
        python = add_python_action(m, panel.formula_snippet, self._status)
        python.setText(f"Copy “{title}” formula as Python")
        python.setObjectName("actCopyPanelPython")
        python.setProperty("panel", pid)
        plots = panel.plots()
        plots_menu = m.addMenu(f"Plots of “{title}”")
        plots_menu.setEnabled(bool(plots))
        for view in plots:
            sub = self.exporter.plot_menu(panel, view, plots_menu)
            sub.setTitle(plot_title(view) or plot_name(panel, view))
            plots_menu.addMenu(sub)
        wm = m.addMenu("Whole window")
        for s in SCALES:
            wm.addAction(f"PNG, {s}×…").triggered.connect(lambda _=False, s=s: self.export_window(scale=s))
        wm.addAction("SVG…").triggered.connect(lambda: self.export_window(ext=".svg"))
        wm.addAction("Copy image").triggered.connect(lambda: self.exporter.copy_widget(self._window, "window"))
        m.addSeparator()
        for act_id in ("actSweep", "actSweepMp4"):
            if act_id in a:
                m.addAction(a[act_id])
        m.addSeparator()
        m.addAction(self.exporter.print_action)
