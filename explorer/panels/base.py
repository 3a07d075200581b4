"""What every panel shares: its state, requests to the service (with its origin), results, errors, "drawn"."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any, ClassVar

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QTabWidget, QVBoxLayout, QWidget

from ..service import ComputeService, Failure, Handle, Result
from ..snippets import NoSnippet, Snippet
from ..widgets.drawer import Drawer
from ..widgets.formula_strip import FormulaStrip
from ..widgets.frames import FrameScheduler
from ..widgets.plots import Banner
from ..widgets.sidebar import ExplainPane, Sidebar
from ..widgets.text_pin import TextPin
from ..widgets.theming import theme_bus
from .drawing import Later, part_of, plot_of, post_result, to_redraw
from .links import PanelLinks


class Panel(QWidget):
    """Base class: a panel renders its state's results and never computes anything heavy.

    Subclasses set ``panel_id`` and ``state_cls``, build widgets in ``__init__`` (into
    ``self.body``), and implement :meth:`requests` (state -> requests) and :meth:`show_result`.
    Use :meth:`set_state` for every parameter change: it stores the (validated) state, bumps
    :attr:`origin`, updates widgets via :meth:`sync_widgets` with their signals blocked, and sends
    the requests through :meth:`submit`.  The service does all the scheduling (newest per key, one
    in flight per key, equal requests skipped, pacing); its handle calls back this panel only.
    """

    panel_id: ClassVar[str] = ""
    state_cls: ClassVar[type] = object
    #: The tabs of a panel with several views (``view_ids``), set by that panel.
    tabs: QTabWidget

    #: The panel's state changed (new state object).
    stateChanged = Signal(object)
    #: A result was drawn (its request's key).
    drawn = Signal(str)
    #: A part of a result drawn (see draw_parts), or a whole one (with its key, as ``drawn``): the bench's first plot.
    partDrawn = Signal(str)

    def __init__(self, service: ComputeService, state: Any | None = None, parent: QWidget | None = None, *,
                 links: PanelLinks | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{self.panel_id}Panel")
        self.service = service
        #: The channel to the other panels (the window's; a panel made on its own has one of its own).
        self.links = links if links is not None else PanelLinks(self)
        self._state = state if state is not None else self.state_cls()
        #: The newest handle per key (from :meth:`submit`); the service does all the scheduling.
        self._handles: dict[str, Handle] = {}
        self._drawn_keys: set[str] = set()
        #: Opaque id of the current state, bumped by every :meth:`set_state`; requests carry it as
        #: their ``origin``, so a drawn result can be mapped back to the state it was asked for.
        self.origin = 0
        self._syncing = False  # inside sync_widgets (see _controls)
        #: The origin and request behind the newest drawn result (the benchmark maps it to a drag step).
        self.last_drawn_origin: int | None = None
        self.last_drawn_request = None
        self._drawn_results: dict[str, Result] = {}  # the newest drawn result of each key (see redraw_drawn)
        #: Results are drawn once per frame, the newest of each key (see explorer.widgets.frames).
        self.frames = FrameScheduler(self._draw_result, self, paints=self._paints)
        self._explain_wired = False
        self._sidebar_drawers: list[Drawer] = []  # presenter mode: the sidebars as drawers
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self.banner = Banner(self)
        outer.addWidget(self.banner)
        self.body = QVBoxLayout()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addLayout(self.body, 1)
        # "What am I looking at?": the long explanations, beside the plots (panels adopt their labels).
        self.explain = ExplainPane(self, self)
        self.explain.hide()
        self._explain_wanted = True
        row.addWidget(self.explain)
        outer.addLayout(row, 1)
        # The formula strip: the panel's formula with the current numbers substituted.
        self.formula = FormulaStrip(self)
        self.formula.setObjectName("formulaStrip")
        self.formula.setTextFormat(Qt.TextFormat.RichText)
        self.formula.setWordWrap(True)
        self.formula.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.formula.snippet = self.formula_snippet  # its "Copy as Python"
        outer.addWidget(self.formula)
        #: While a slider of the panel is held its labels keep their size: changing numbers re-lay out nothing.
        self.text_pin = TextPin(self, getattr(service, "cores", None))  # and the UI and compute on cores apart
        # Every panel follows the look, shown or hidden (its plots follow it by themselves).
        theme_bus().themeChanged.connect(self._on_theme_changed)

    # -- side columns ----------------------------------------------------------------------------
    def make_sidebar(self, box: QWidget) -> Sidebar:
        """The panel's controls ``box`` in the shared scrolling, collapsible sidebar."""
        self.text_pin.watch(box)
        return Sidebar(box, self)

    def sidebars(self) -> list[Sidebar]:
        return self.findChildren(Sidebar)

    def set_sidebar_visible(self, on: bool) -> None:
        """Show or hide the sidebars (as drawers: open or close them, over the plots)."""
        for drawer in self._sidebar_drawers:
            drawer.set_open(on)
        for bar in [] if self._sidebar_drawers else self.sidebars():
            bar.setVisible(on)
        if self._explain_wired:
            self._refresh_explain()

    def set_presenter_layout(self, on: bool, toggle=None) -> None:
        """Presenter mode (``on``): the formula strip one line, and each sidebar a drawer — a thin handle beside the
        plots (a click calls ``toggle()``), the controls opened over the plots; off: all back as it was."""
        self.formula.set_one_line(on)
        if on and not self._sidebar_drawers:
            self._sidebar_drawers = [Drawer(bar, self, toggle or (lambda: None)) for bar in self.sidebars()]
        elif not on and self._sidebar_drawers:
            for drawer in self._sidebar_drawers:
                drawer.restore()
            self._sidebar_drawers = []

    @property
    def sidebar_drawers(self) -> list[Drawer]:
        return list(self._sidebar_drawers)

    def set_explain_visible(self, on: bool) -> None:
        """Show or hide the "What am I looking at?" pane (never shown empty)."""
        self._explain_wanted = on
        if not self._explain_wired:
            self._explain_wired = True
            # Through a timer the panel owns (a C++ slot): a tab widget being destroyed emits
            # currentChanged, and no Python may then walk the half-deleted views.
            self._explain_timer = QTimer(self, singleShot=True, interval=0)
            self._explain_timer.timeout.connect(self._refresh_explain)
            for tabs in self.findChildren(QTabWidget):
                tabs.currentChanged.connect(self._explain_timer.start)
        self._refresh_explain()

    #: Width the plots keep beside the sidebar before the explanations give way (on a narrow screen
    #: the pane folds away rather than squeezing the plots; the toggle brings it back on a wider one).
    PLOT_ROOM = 620

    def _explain_fits(self) -> bool:
        bars = sum(b.width() for b in self.sidebars() if b.isVisible())
        return self.width() >= bars + self.explain.MIN_WIDTH + self.PLOT_ROOM

    def _refresh_explain(self, *_args) -> None:
        if self.property("slideLayout"):  # laid out for a slide (explorer.export.slide): leave it as it is
            return
        self.explain.refresh()
        self.explain.setVisible(self._explain_wanted and bool(self.explain.labels()) and self._explain_fits())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self._explain_wired:
            # Later, not inside the resize: showing the pane here made the dock put a panel that was
            # being laid out for a slide back to its on-screen size (a 1920 × 1540 "16:9" slide).
            self._explain_timer.start()

    # -- state -----------------------------------------------------------------------------------
    @property
    def state(self):
        return self._state

    def set_state(self, state, *, request: bool = True) -> None:
        """Make ``state`` current (it is already validated), request new results, refresh widgets.

        The requests go first: the compute process works on them while this thread shows the state in the
        controls, instead of after."""
        if self._syncing:  # an echo of the sync (from a control _controls left out): the state being shown stays
            return
        changed = state != self._state
        self._state = state
        self.origin += 1
        if request:
            self.request_update()
        self._block_and_sync()
        # The formula strip shows the parameters, so it follows them at once: a change that needs no
        # new result (a display-only field, or one the visible view does not use) must update it too.
        self._show_formula(state)
        if changed:
            self.stateChanged.emit(state)

    def _block_and_sync(self) -> None:
        blocked = [(w, w.blockSignals(True)) for w in self._controls()]
        syncing, self._syncing = self._syncing, True
        try:
            self.sync_widgets(self._state)
        finally:
            self._syncing = syncing
            for w, was in blocked:
                w.blockSignals(was)

    def _controls(self) -> list[QWidget]:
        """The widgets blocked while the state is shown: every child widget, or (a panel's override, faster) those
        whose signals mean "the user changed something"; a change sent back by one left out is refused."""
        return self.findChildren(QWidget)

    def sync_widgets(self, state) -> None:
        """Show ``state`` in the controls (called with their signals blocked)."""

    # -- requests and results ------------------------------------------------------------------
    def requests(self, state) -> list:
        """The requests that compute this panel's views for ``state``."""
        raise NotImplementedError

    def request_update(self) -> None:
        """Ask the service for this state's results (it skips what is already drawn or on its way)."""
        for req in self.requests(self._state):
            self.submit(req)

    def submit(self, request, **options) -> Handle:
        """Send one request for the current state; its result (or error) comes back to this panel only."""
        handle = self.service.submit(request, origin=self.origin, on_result=self._on_result,
                                     on_error=self._on_error, **options)
        self._handles[request.key] = handle
        return handle

    def latest_request(self, key: str):
        """The newest request sent for ``key`` (None if none was)."""
        h = self._handles.get(key)
        return None if h is None else h.request

    @property
    def waiting(self) -> bool:
        """True while a request of this panel is queued, running or on its way (one sent held is not: it waits
        for its views to be wanted, see :meth:`~explorer.service.ComputeService.submit`)."""
        return self.frames.pending or any(h.in_flight for h in self._handles.values())

    def _on_result(self, result: Result) -> None:
        # Not drawn here: results arriving within one frame are drawn together at the next frame, each of its
        # parts (see draw_parts) in a turn of the event loop of its own.
        post_result(self.frames, result, self.draw_parts(result.value))

    def later(self, name: Hashable, update: Callable[[], None]) -> None:
        """Run ``update`` in a turn of the event loop of its own, as a result's part is drawn (a plot linked to the
        one just drawn follows it a turn later, and is painted in that turn), once no result waits (the results
        that come meanwhile are drawn first); a newer update of ``name`` still waiting takes its place."""
        self.frames.post(Later(name), update, last=True)

    def redraw_drawn(self) -> None:
        """Draw the newest drawn result of each key again, as results are drawn (a part per turn of the event
        loop), but for the keys whose newer result is on its way (drawn when it comes): how a view draws
        changed (antialiasing back on when a drag ends)."""
        for result in to_redraw(self._drawn_results, self._handles, self.frames):
            self._on_result(result)

    def draw_parts(self, response) -> tuple:
        """The parts of ``response`` drawn in turns of their own (each with its plots' repaint), in that order:
        ``()`` (the default) draws it whole with :meth:`show_result`; a panel whose result feeds several plots
        may return them (hashable), and :meth:`show_part` draws each."""
        return ()

    def _paints(self, key: Hashable, result: Result) -> Hashable | None:
        """The plot the frame scheduler's ``key`` repaints when drawn (keys with the same one are drawn in one
        turn): a part's own (see :meth:`draw_parts`), else :meth:`paints`."""
        return plot_of(key, result, self.paints)

    def paints(self, response) -> Hashable | None:
        """The one plot that drawing ``response`` whole repaints where a part of another result repaints it
        too (a draw part names it: see :meth:`draw_parts`); None (the default): none shared."""
        return None

    def show_part(self, part: Hashable, response) -> None:
        """Draw one of :meth:`draw_parts`' parts of ``response``."""
        raise NotImplementedError

    def _draw_result(self, key: Hashable, result: Any) -> None:
        """Draw a result (or its part) the frame scheduler hands over; a :meth:`later` key's item is its update."""
        if isinstance(key, Later):
            result()
            return
        if not self.wants(result.request):
            return  # asked for something no longer shown (its replacement is on its way): not drawn
        self.last_drawn_origin = result.origin
        self.last_drawn_request = result.request
        self._drawn_results[result.key] = result
        self.banner.clear_error()
        if part_of(key, result.key):
            self.show_part(key[1], result.value)
            self.partDrawn.emit(result.key)
            if self.frames.holds(functools.partial(part_of, result_key=result.key)):
                return  # drawn when its last part is (the bench's latency is to the whole result on screen)
        else:
            self.show_result(result.value)
            self.partDrawn.emit(result.key)
        self._show_formula(self._state)
        self._drawn_keys.add(result.key)
        self.drawn.emit(result.key)

    def _on_error(self, failure: Failure) -> None:
        self.banner.show_error(failure.message)

    def wants(self, request) -> bool:
        """Whether a result for ``request`` may still be drawn (a panel whose data source can change under its
        requests says no for an old source's; such a result is neither drawn nor counted as drawn)."""
        return True

    @property
    def stuck_error(self) -> str | None:
        """Why this panel has nothing to draw: the error of its last request while it has drawn nothing and
        waits for nothing (a checkpoint that could not be read); None otherwise."""
        if self._drawn_keys or self.waiting or not self.banner.isVisibleTo(self):
            return None
        return self.banner.text() or None

    def show_result(self, response) -> None:
        """Draw ``response`` (UI thread; only setData/setImage-style updates)."""
        raise NotImplementedError

    # -- views (tabs) ------------------------------------------------------------------------------
    #: The ids of the panel's views, in tab order (a panel with a ``tabs`` QTabWidget sets them).
    view_ids: tuple[str, ...] = ()

    def current_view(self) -> str | None:
        """The id of the view on screen (None: the panel has one view)."""
        tabs = getattr(self, "tabs", None)
        if not self.view_ids or tabs is None or not 0 <= tabs.currentIndex() < len(self.view_ids):
            return None
        return self.view_ids[tabs.currentIndex()]

    def show_view(self, view_id: str) -> None:
        """Bring the view ``view_id`` to the front (a lecture scene opens its tab); KeyError if unknown."""
        if view_id not in self.view_ids:
            raise KeyError(f"{self.panel_id} has no view {view_id!r}; it has {', '.join(self.view_ids) or 'one'}")
        self.tabs.setCurrentIndex(self.view_ids.index(view_id))

    # -- hooks used by export, presets, presenter mode and the benchmark ------------------------
    def formula_text(self, state) -> str:
        """Rich text for the formula strip, with ``state``'s numbers substituted."""
        return ""

    def formula_inputs(self, state) -> Any:
        """What :meth:`formula_text` reads from ``state`` (the strip is rebuilt only when it changes)."""
        return state

    def _show_formula(self, state) -> None:
        self.formula.show_for(self.formula_inputs(state), lambda: self.formula_text(state))

    def export_basename(self) -> str:
        """Default export file name (no extension) carrying the panel and its main parameters,
        e.g. ``waves_d512_base10000``."""
        return self.panel_id

    def plots(self) -> list[pg.PlotWidget]:
        """The panel's plots, for export menus (a panel that builds tabs lazily builds them)."""
        return self.findChildren(pg.PlotWidget)

    def visible_plots(self) -> list[pg.PlotWidget]:
        """The plots on screen now (builds nothing)."""
        return [p for p in self.findChildren(pg.PlotWidget) if p.isVisible()]

    def export_data(self, plot) -> dict:
        """The numbers behind ``plot`` (one of :meth:`plots`) as name -> numpy array, for CSV/NPY export.

        The default reads them back from the plot's items: one ``x`` column plus one column per
        curve (legend name, else ``curve N``) when the curves share x, else ``<name> x``/``<name> y``
        pairs; images as their 2-D arrays.  Override to give exact, full-resolution values with
        clear names (e.g. positions and dimensions instead of display-resolution samples).
        """
        from ..widgets.plot_data import plot_arrays

        return plot_arrays(plot)

    #: Why none of the panel's plots (nor its formula) can have a Copy-as-Python program, if that is so.
    no_snippet: ClassVar[str] = ""

    def export_snippet(self, plot) -> Snippet | NoSnippet:
        """Copy as Python for ``plot``: a numpy program whose ``result`` equals :meth:`export_data` (see
        :mod:`explorer.snippets`), or a :class:`NoSnippet` saying why there is none (the menu item is then
        disabled with that tooltip).  Panels override it; the default is :attr:`no_snippet`, else an
        undeclared "not yet", which the tests refuse: every plot has a snippet or a stated reason."""
        return self._no_program("plot")

    def formula_snippet(self) -> Snippet | NoSnippet:
        """Copy as Python for the formula strip: a program whose ``result`` equals :meth:`formula_data`."""
        return self._no_program("formula")

    def _no_program(self, what: str) -> NoSnippet:
        if self.no_snippet:
            return NoSnippet(self.no_snippet)
        return NoSnippet(f"no Copy-as-Python snippet for this {what} yet", declared=False)

    def formula_data(self) -> dict:
        """The numbers the formula strip's snippet reproduces (name -> array)."""
        return {}

    def _on_theme_changed(self, theme) -> None:
        self.apply_theme(theme)

    def apply_theme(self, theme) -> None:
        """Re-colour what the plots' own styling cannot reach; called on every ``themeChanged``.

        ``theme`` is an :class:`explorer.theme.Theme`, also :func:`explorer.widgets.theming.current_theme`.
        Plots (:class:`explorer.widgets.plots.Plot`, made by :func:`~explorer.widgets.plots.make_plot` and
        the views) style themselves: background, axes, tick and label fonts, titles, legends, text items,
        curve/line pens (width × ``theme.line_scale``; neutral colours follow the foreground) and the
        standard colour maps, for every item added to them, now and later.  A pen or text colour a view
        changes after adding its item goes through the plot's styler (``plot.styler.set_pen(item, pen)``,
        with the light theme's pen).  Use this hook for the rest, e.g. HTML labels or QLabel style sheets
        with fixed colours or sizes (``theme.foreground``, ``theme.font_scale``, ``theme.dark``,
        ``theme.high_contrast``).  Called for every panel, shown or hidden.
        """

    @property
    def has_drawn(self) -> bool:
        """True once at least one result has been drawn and nothing is waiting."""
        return bool(self._drawn_keys) and not self.waiting

    def shutdown(self) -> None:
        """Cancel what this panel still waits for and stop following the theme (the window is closing)."""
        self.frames.clear()
        for h in self._handles.values():
            h.cancel()
        try:
            theme_bus().themeChanged.disconnect(self._on_theme_changed)
        except (RuntimeError, TypeError):
            pass
