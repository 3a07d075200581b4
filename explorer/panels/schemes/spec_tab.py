"""A tab a scheme adds as data: its ``compute`` returns PlotSpecs, drawn here as a grid of line plots."""

from __future__ import annotations

from ...widgets.reflow import ReflowGrid
from .spec_plots import SpecPlot
from .views import SchemesView, info_column


class SpecTabView(SchemesView):
    """A tab a scheme adds as data: one plot per :class:`~explorer.schemes.parts.PlotSpec` its ``compute`` returns."""

    def __init__(self, scheme: str, tab: str, parent=None) -> None:
        super().__init__(parent)
        self.scheme, self.tab = scheme, tab
        outer = info_column(self, f"tabInfo_{tab}")
        self.grid = ReflowGrid((260, 200), max_cols=3, grow_with_text=True)
        outer.addWidget(self.grid, 1)
        self.plots: list[SpecPlot] = []
        self.response: tuple = ()

    def show_response(self, value) -> None:
        specs = tuple(value)
        while len(self.plots) < len(specs):
            k = len(self.plots)
            self.plots.append(SpecPlot(self.scheme, specs[k], f"tab_{self.tab}_{k}"))
        for p, spec in zip(self.plots, specs, strict=False):
            p.draw(spec)
        if len(specs) != len(self.response):  # the grid is laid out again only when its plots change
            self.grid.set_cells([p.widget for p in self.plots[: len(specs)]])
        self.response = specs

    def plot_widgets(self) -> list:
        return [p.widget for p in self.plots[: len(self.response)]]

    def export_data(self, plot) -> dict | None:
        return next((p.numbers() for p in self.plots if p.widget is plot), None)

    def apply_theme(self, theme) -> None:
        return None  # its plots follow the theme themselves
