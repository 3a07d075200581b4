"""The Waves panel's tabs: which views each holds, how they are laid out, which draw which result.

Only the first tab is built with the panel; the others when first shown (or when one of their views
is asked for): start-up makes the 3 plots on screen, not all eleven.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QWidget

from ...jobs.waves import CurvesResponse, HeatmapResponse, MatrixResponse, PickResponse
from ...jobs.why import ScorecardResponse
from ...widgets.readable import ReadableSplitter
from .views_heatmap import HeatmapView
from .views_relative import BeyondView, MatrixView, RotationView, SimilarityView, TokenView
from .views_table import SpectrumView, VectorView, WavesView
from .views_why import WhyView

#: The tabs (titles) and the views each holds, in the order :meth:`WavesPanel.views` lists them.  Only
#: the first tab is built with the panel; another is built when first shown or when one of its views is
#: asked for (``panel.rotation`` builds the Relative position tab): start-up makes 3 plots, not 11.
TABS = (
    ("Table and waves", ("heatmap", "waves", "spectrum")),
    ("Relative position", ("vector", "rotation", "similarity", "matrix")),
    ("Beyond training and tokens", ("beyond", "token")),
    ("Why sinusoids?", ("why",)),
)
C = TypeVar("C", bound=QWidget)
_TAB_OF = {name: i for i, (_, names) in enumerate(TABS) for name in names}
VIEW_ORDER = tuple(name for _, names in TABS for name in names)
#: The views that draw each request key's results (by name).
KEY_VIEWS = {
    "waves.heatmap": ("heatmap",),
    "waves.curves": ("waves", "spectrum", "similarity", "beyond"),
    "waves.views": ("waves", "vector", "rotation", "similarity", "token"),
    "waves.matrix": ("matrix",),
    "waves.why": ("why",),
}


def _splitter(orientation: Qt.Orientation, widgets, sizes, name: str = "") -> QSplitter:
    s = ReadableSplitter(orientation)  # every plot keeps a readable size where the room allows
    s.setObjectName(name)  # a lecture scene may set its shares by this name
    s.setChildrenCollapsible(False)
    for w in widgets:
        s.addWidget(w)
    s.setSizes(list(sizes))
    s.setProperty("defaultShares", list(sizes))  # a scene that names no shares puts these back
    return s


def lazy_view(name: str) -> property:
    def get(self):
        view = self._built.get(name)
        if view is None:
            self.build_tab(_TAB_OF[name])
            view = self._built[name]
        return view

    return property(get, doc=f"The {name} view (its tab is built on first use).")


def built_view(built: dict[str, QWidget], name: str, cls: type[C]) -> C | None:
    """View ``name`` of ``built`` (a ``cls``, see :func:`make_tab`) if its tab is built, else None."""
    view = built.get(name)
    if view is not None and not isinstance(view, cls):
        raise TypeError(f"the {name} view is a {type(view).__name__}, not a {cls.__name__}")
    return view


def make_tab(index: int) -> tuple[dict, QWidget]:
    """Tab ``index``'s views by name, and the widget that lays them out."""
    V, H = Qt.Orientation.Vertical, Qt.Orientation.Horizontal
    if index == 0:
        made = {"heatmap": HeatmapView(), "waves": WavesView(), "spectrum": SpectrumView()}
        right = _splitter(V, [made["waves"], made["spectrum"]], [560, 380], "wavesSpectrumSplit")
        return made, _splitter(H, [made["heatmap"], right], [520, 560], "wavesTableSplit")
    if index == 1:
        made = {"vector": VectorView(), "rotation": RotationView(), "similarity": SimilarityView(),
                "matrix": MatrixView()}
        left = _splitter(V, [made["rotation"], made["vector"]], [560, 360], "wavesRotationSplit")
        mid = _splitter(V, [made["similarity"], made["matrix"]], [420, 500], "wavesSimilaritySplit")
        return made, _splitter(H, [left, mid], [540, 540], "wavesRelativeSplit")
    if index == 2:
        made = {"beyond": BeyondView(), "token": TokenView()}
        return made, _splitter(V, [made["beyond"], made["token"]], [480, 440], "wavesBeyondSplit")
    made = {"why": WhyView()}
    return made, made["why"]


def drawers_of(r, built: dict) -> tuple:
    """The views (by ``built``, name -> view; None where not built) that draw response ``r``."""
    b = built.get
    if isinstance(r, HeatmapResponse):
        return (b("heatmap"),)
    if isinstance(r, CurvesResponse):
        req = r.request  # a drag step leaves out what hidden views draw: they keep what they show
        parts = ((b("waves"), req.waves_px), (b("spectrum"), 1), (b("similarity"), req.sim_px),
                 (b("beyond"), req.beyond_px))
        return tuple(view for view, px in parts if px > 0)
    if isinstance(r, PickResponse):
        return tuple(b(n) for n in ("waves", "vector", "rotation", "similarity", "token"))
    if isinstance(r, MatrixResponse):
        return (b("matrix"),)
    return (b("why"),) if isinstance(r, ScorecardResponse) else ()


def parts_of(views: tuple, last: QWidget | None) -> tuple:
    """The parts a result is drawn in (see Panel.draw_parts), given the built ``views`` that draw it: where several
    of them are shown (the curves: the waves and the spectrum), a view per turn of the event loop (the curves'
    draw and the two plots' repaints in one turn were the UI's longest stall), the shown ones first and ``last``
    (the waves) last of them: its markers come from the picked values' result, a millisecond after the curves,
    and are then drawn in its turn (one repaint: see :func:`plot_drawn`).  The hidden ones follow, drawn when
    their tab is shown; ``()`` (drawn whole) where at most one is shown."""
    shown = sorted((v for v in views if v.isVisible()), key=lambda v: v is last)
    return (*shown, *(v for v in views if v not in shown)) if len(shown) > 1 else ()


def plot_drawn(views: tuple) -> QWidget | None:
    """The view a result drawn whole repaints, where it is the only one shown of the built ``views`` that draw it
    (a part of the curves names its view too, so the picked values' markers are drawn with the waves' lanes)."""
    shown = [v for v in views if v.isVisible()]
    return shown[0] if len(shown) == 1 else None
