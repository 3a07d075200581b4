"""The Waves panel: sinusoidal encoding as eight linked views, live while dragging at real model sizes.

The panel owns no numbers: it turns its :class:`WavesState` into four requests (heatmap, curves,
picked values, similarity matrix), each carrying only what it depends on and sent under its own
key, so dragging p never recomputes the heatmap, and it hands each response to the views that
draw it.  Staying live while a slider is held (or the animation plays):

* requests are marked ``preview`` and ask for half the screen resolution; letting go refines;
* the compute service keeps at most one request per key in flight (a newer one waits for it, so
  every step of a fast drag that is computed is also drawn), skips unchanged ones, and while a
  slider is held starts each key at most every 8 ms (``pace_s``);
* views on hidden tabs (and the requests, or the parts of a request, only they need) wait until the
  drag ends or their tab is shown; a drag step's pick leaves out the rotation check over every
  position; curves are drawn without antialiasing until the drag ends;
* results are drawn once per frame, the newest of each key (the base class's frame scheduler).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QAbstractSlider, QHBoxLayout, QTabWidget, QVBoxLayout, QWidget

from ...encodings.sinusoidal import wavelengths
from ...jobs.waves import CurvesResponse, PickResponse, requests_for
from ...state import PANEL_VIEWS, WavesState
from ...widgets.plots import DIVERGING
from ...widgets.qt_typed import layout_of
from ..base import Panel
from .controls import WavesControls
from .export_data import exact_arrays, snippet_for, strip_numbers, strip_snippet
from .formula import formula_html
from .play import Player
from .tabs import KEY_VIEWS, TABS, VIEW_ORDER, built_view, drawers_of, lazy_view, make_tab, parts_of, plot_drawn
from .views_relative import BeyondView, SimilarityView
from .views_table import VectorView, WavesView
from .views_why import WhyView

#: Shortest time between two requests of one key while a slider is held: half a frame at 60 Hz (at a whole
#: frame a step that came sooner than that after the last waited for it; docs/performance.md).
FRAME_S = 0.008


@runtime_checkable
class _FollowsState(Protocol):
    """A view that shows (part of) the state itself, without waiting for a result."""

    def show_state(self, st: WavesState) -> None: ...

class WavesPanel(Panel):
    """Heatmap, waves, spectrum, position vector, rotation, similarity, beyond training, same token."""

    panel_id = "waves"
    state_cls = WavesState
    view_ids = PANEL_VIEWS["waves"]  # the tabs: table and waves, relative position, beyond training

    # Properties: asking for a view builds its tab (see tabs.TABS).
    heatmap, waves, spectrum, vector, rotation, similarity, matrix, beyond, token, why = map(lazy_view, VIEW_ORDER)

    def __init__(self, service, state=None, parent=None, *, links=None) -> None:
        super().__init__(service, state, parent, links=links)
        self.responses: dict[str, object] = {}
        self._drag_depth = 0
        self._shown: WavesState | None = None
        self._ranges: dict[str, tuple] = {}
        self._range_timer = QTimer(self, singleShot=True, interval=60)
        self._range_timer.timeout.connect(self._on_ranges_settled)
        # Views on hidden tabs are drawn when things calm down (or when their tab is shown):
        # redrawing all eight views for every step of a drag would halve the frame rate.
        self._stale: set = set()
        self._stale_timer = QTimer(self, singleShot=True, interval=150)
        self._stale_timer.timeout.connect(self._draw_stale)
        self._why_wanted = False  # the scorecard tab asks for its (costly, fixed) table once first shown
        self._built: dict[str, QWidget] = {}  # the views made so far, by name (see TABS)

        self.controls = WavesControls(self)
        self._player = Player(self.controls.play, self._play_speed, self)
        self._player.stepped.connect(self._on_play_steps)
        self._player.interrupted.connect(self.stop_play)
        scroll = self.make_sidebar(self.controls)

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("wavesTabs")
        self._pages: list[QWidget] = []
        for title, _names in TABS:
            page = QWidget()
            QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self.tabs.addTab(page, title)
            self._pages.append(page)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(scroll)
        row.addWidget(self.tabs, 1)
        self.body.addLayout(row, 1)

        self.controls.edited.connect(self._on_edited)
        self.controls.resetRequested.connect(self.reset)
        self.controls.playToggled.connect(self._on_play_toggled)
        self.controls.dragStarted.connect(self._on_drag_started)
        self.controls.dragFinished.connect(self._on_drag_finished)
        self.build_tab(0)
        self.set_state(self.state)

    # -- tabs built on first show -------------------------------------------------------------------
    def build_tab(self, index: int) -> None:
        """Make tab ``index``'s views (once): wired, in the current state, with what has been computed."""
        names = TABS[index][1]
        if names[0] in self._built:
            return
        made, content = make_tab(index)
        self._built.update(made)
        layout_of(self._pages[index]).addWidget(content)
        late = self._shown is not None  # after the panel's first state: catch up with it
        for name, view in made.items():
            # The numbers each view claims, and how to read it, beside the plots rather than under them.
            if name == "heatmap":
                self.explain.adopt(view.note, view)
            self.explain.adopt(view.readout, view)
            view.picked.connect(self._on_picked)
            if name in ("heatmap", "waves", "similarity"):
                view.rangeEdited.connect(self._range_timer.start)
            if name in ("heatmap", "waves", "similarity", "beyond"):
                view.vb.sigResized.connect(self._range_timer.start)  # the pixel count sets the resolution
            view.fast = self._preview() if late else False
        if "vector" in made:
            made["vector"].overlayToggled.connect(self._on_overlay_toggled)
        if "beyond" in made:
            made["beyond"].l_line.sigPositionChangeFinished.connect(self._on_l_line_moved)
        if late:
            st = self._state
            if "similarity" in made:
                made["similarity"].state = st
                made["similarity"].set_full_range(st.n_positions, st.d_model)
            self._block_and_sync()
            for view in made.values():
                for r in list(self.responses.values()):
                    if view in self._drawers(r):
                        self._draw(view, r)

    def built_view(self, name: str):
        """The view called ``name`` if its tab has been built, else None (never builds it)."""
        return self._built.get(name)

    def views(self) -> list:
        """The views built so far (every view once each tab has been shown)."""
        return [self._built[n] for n in VIEW_ORDER if n in self._built]

    def plots(self) -> list:
        """Every plot of the panel (for export menus): hidden tabs are built for it."""
        for i in range(len(TABS)):
            self.build_tab(i)
        return super().plots()

    def _on_overlay_toggled(self, on: bool) -> None:
        self._on_edited({"overlay": bool(on)})

    def _on_l_line_moved(self, *_args) -> None:
        self.request_update()

    # -- hooks -----------------------------------------------------------------------------------------
    def main_slider(self) -> QAbstractSlider:
        """The slider a benchmark drags: the base (every view depends on it)."""
        return self.controls.base.slider()

    def export_basename(self) -> str:
        st = self.state
        base = f"{st.base:.0f}" if st.base == int(st.base) else f"{st.base:.6g}".replace(".", "p")
        return f"waves_d{st.d_model}_base{base}_N{st.n_positions}_{st.variant}"

    def formula_inputs(self, st: WavesState) -> tuple:
        return st.d_model, st.pair, st.position, st.base, st.variant, st.n_positions, st.offset

    def formula_text(self, st: WavesState) -> str:
        return formula_html(st)

    def apply_theme(self, theme) -> None:
        """The overview image is RGBA (mid-range colour mixed with grey, made by the job), so the theme's
        colour map is applied here and asked of the job; everything else is themed by the generic pass."""
        if self.heatmap.set_colormap_name(theme.map_colormap_name(DIVERGING)):
            self.request_update()  # the job colours the overview in the new map

    def export_data(self, plot) -> dict:
        """The exact numbers behind ``plot`` (never lane offsets or display-resolution samples)."""
        why = built_view(self._built, "why", WhyView)
        data = (why.export_data(plot) if why is not None else None) or exact_arrays(self, plot)
        return super().export_data(plot) if data is None else data

    # Copy as Python: the programs (and the strip's numbers) are chosen in export_data, as the exports are.
    export_snippet, formula_snippet, formula_data = snippet_for, strip_snippet, strip_numbers

    # -- state ------------------------------------------------------------------------------------------
    def set_state(self, state, *, request: bool = True) -> None:
        if not self._syncing:  # (a change sent back while syncing is refused by the base class)
            old = self._shown
            if old is None or (old.n_positions, old.d_model) != (state.n_positions, state.d_model):
                self._reset_ranges(state)
            self._shown = state
        super().set_state(state, request=request)

    def reset(self) -> None:
        """Back to the defaults (keeps nothing of the current parameters)."""
        self.stop_play()
        self.set_state(WavesState())

    def _controls(self) -> list[QWidget]:
        # The controls' own signals (their inner parts need no blocking: a control sets them directly).
        vector = built_view(self._built, "vector", VectorView)
        return self.controls.inputs() + ([vector.overlay_box] if vector is not None else [])

    def sync_widgets(self, st: WavesState) -> None:
        self.controls.sync(st)
        lam = wavelengths(st.d_model, st.base, st.variant)
        for view in self._built.values():
            if isinstance(view, WavesView):
                view.show_state(st, lam)
            elif isinstance(view, _FollowsState):  # not the rotation, token and why views
                view.show_state(st)
        curves = self.responses.get("waves.curves")
        if isinstance(curves, CurvesResponse) and self._same_encoding(curves.request, st):
            self.spectrum.show_curves(curves, st)  # the picked pair and L_train move at once

    @staticmethod
    def _same_encoding(req, st: WavesState) -> bool:
        return (req.n_positions, req.d_model, req.base, req.variant) == (
            st.n_positions, st.d_model, st.base, st.variant)

    def _on_edited(self, changes: dict) -> None:
        self.set_state(self.state.clamped(**changes))

    def _on_picked(self, changes: dict) -> None:
        if "toggle_pair" in changes:
            i = changes.pop("toggle_pair")
            pairs = set(self.state.pairs)
            pairs.symmetric_difference_update({i})
            if not pairs or len(pairs) > 16:
                return
            changes["pairs"] = tuple(sorted(pairs))
        self.set_state(self.state.clamped(**changes))

    # -- ranges and resolution --------------------------------------------------------------------------
    def _reset_ranges(self, st: WavesState) -> None:
        n, d = st.n_positions, st.d_model
        self.heatmap.state = self.waves.state = st
        self.heatmap.set_full_range(n, d)
        self.waves.set_full_range(n)
        similarity = built_view(self._built, "similarity", SimilarityView)
        if similarity is not None:  # else it takes the full range when built
            similarity.state = st
            similarity.set_full_range(n, d)
        self._ranges = {"heat": ((0, n), (0, d)), "waves": (0, n), "sim": (-(n - 1), n - 1)}

    def _on_ranges_settled(self) -> None:
        similarity = built_view(self._built, "similarity", SimilarityView)
        self._ranges = {"heat": self.heatmap.visible(), "waves": self.waves.visible(),
                        "sim": self._ranges["sim"] if similarity is None else similarity.visible()}
        self.request_update()

    def _preview(self) -> bool:
        beyond = built_view(self._built, "beyond", BeyondView)
        return self._drag_depth > 0 or self._player.active or (beyond is not None and beyond.l_line.moving)

    def _on_drag_started(self) -> None:
        self._drag_depth += 1

    def _on_drag_finished(self) -> None:
        self._drag_depth = max(0, self._drag_depth - 1)
        if not self._preview():
            self.request_update()

    # -- requests and results ---------------------------------------------------------------------------
    def requests(self, st: WavesState) -> list:
        """Four requests (:func:`~explorer.jobs.waves.requests_for`), each carrying only what it depends on (so
        unchanged ones are skipped), sized for the views that show them."""
        preview = self._preview()
        # While a slider is held (or the animation plays): half the display resolution, so the
        # views keep up with the hand; letting go sends the full-resolution requests.
        div = 2 if preview else 1
        hp = self.heatmap.pixels()
        # While dragging, the curves only hidden views draw are left out (the similarity curve alone
        # was most of the job at N = 131072); the request sent on release has them all.
        # A view whose tab was never built is sized like the waves plot (the request sent once it is
        # built and laid out has its own size).
        px = tuple(0 if preview and (view is None or not view.isVisible())
                   else (view if view is not None else self.waves).pixels() // div
                   for view in (self.waves, built_view(self._built, "beyond", BeyondView),
                                built_view(self._built, "similarity", SimilarityView)))
        rows, cols = self._ranges["heat"]
        why = [self.why.request()] if self._why_wanted and "why" in self._built else []
        return why + list(requests_for(st, rows=rows, cols=cols, heat_px=(hp[0] // div, hp[1] // div),
                                       waves_range=self._ranges["waves"], sim_range=self._ranges["sim"],
                                       px=(px[0], px[1], px[2]), preview=preview, cmap=self.heatmap.cmap_name))

    def _update_fast(self) -> bool:
        """Draw without antialiasing while dragging or playing; True when that has just ended."""
        fast = self._preview()
        if fast == self.heatmap.fast:
            return False
        for view in self.views():
            view.fast = fast
        return not fast

    def request_update(self) -> None:
        """Send the requests for the current state; the service does all the scheduling.

        It keeps one request per key in flight (a newer one waits, so each result is drawn), skips
        requests equal to what is drawn or running, and while a slider is held starts a key at most
        every FRAME_S: a mouse sends up to 125 moves a second, and drawing each would keep the UI thread busy
        with frames nobody sees.  While dragging, a request only views on hidden tabs need is sent held: the
        service keeps it unrun until the next request for its key (the drag's end, or its tab shown).
        """
        let_go = self._update_fast()
        preview = self._preview()
        pace = FRAME_S if preview else 0.0
        for req in self.requests(self._state):
            unseen = preview and not any(v.isVisible() for n in KEY_VIEWS[req.key] if (v := self._built.get(n)))
            self.submit(req, pace_s=pace, hold=unseen)
        if let_go:  # what was drawn rough and is not asked for again, antialiased (a plot per turn, as results)
            self.redraw_drawn()

    def held(self) -> set[str]:
        """The keys whose newest request was sent held (see :meth:`request_update`): waiting for their views."""
        return {key for key, h in self._handles.items() if h.status == "held"}

    @property
    def has_drawn(self) -> bool:
        return super().has_drawn and not self.held() and not self._stale

    def show_result(self, r) -> None:
        """Draw ``r`` into the views that show it: visible ones now, hidden ones (other tabs) once idle."""
        self.responses[r.request.key] = r
        for view in self._drawers(r):
            if view.isVisible():
                self._draw(view, r)
            else:
                self._stale.add(view)
        if self._stale:
            self._stale_timer.start()

    def draw_parts(self, r) -> tuple:
        """A result that several shown plots draw is drawn a plot per turn (see :func:`.tabs.parts_of`)."""
        return parts_of(self._drawers(r), self._built.get("waves"))

    def paints(self, r) -> QWidget | None:
        """The one shown view a result drawn whole repaints (see :func:`.tabs.plot_drawn`)."""
        return plot_drawn(self._drawers(r))

    def show_part(self, view, r) -> None:
        """Draw ``r`` into ``view`` (one of :meth:`draw_parts`) if it is shown; views that draw it and are hidden
        now wait for their tab."""
        self.responses[r.request.key] = r
        hidden = [v for v in self._drawers(r) if not v.isVisible()]
        if view.isVisible():
            self._draw(view, r)
        if hidden:
            self._stale.update(hidden)
            self._stale_timer.start()

    def _drawers(self, r) -> tuple:
        """The built views that draw ``r``."""
        return tuple(v for v in drawers_of(r, self._built) if v is not None)

    def _draw(self, view, r) -> None:
        if isinstance(r, CurvesResponse):
            if view is self.spectrum:
                view.show_curves(r, self.state)
            else:
                view.show_curves(r)
        elif isinstance(r, PickResponse):
            view.show_pick(r)
        else:
            view.show_result(r)

    def _draw_stale(self, only_visible: bool = False) -> None:
        """Bring views that were hidden when their results came up to date."""
        if not only_visible and self._preview():
            self._stale_timer.start()  # not while dragging: hidden views can wait
            return
        for view in [v for v in self.views() if v in self._stale]:
            if only_visible and not view.isVisible():
                continue
            self._stale.discard(view)
            for r in list(self.responses.values()):
                if view in self._drawers(r):
                    self._draw(view, r)

    def _on_tab_changed(self, index: int) -> None:
        if not 0 <= index < len(TABS):
            return  # the tab widget is being emptied (the panel is closing)
        self.build_tab(index)
        self._draw_stale(only_visible=True)
        if "why" in TABS[index][1] and not self._why_wanted:
            self._why_wanted = True
            self.request_update()
        elif self.held() or self._preview():
            # What was held for the views now shown, and (while dragging) the curves they draw.
            self.request_update()

    # -- play -------------------------------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        return self._player.active

    def start_play(self) -> None:
        if self._player.start():
            self._update_fast()
            self.controls.set_playing(True)

    def stop_play(self) -> None:
        was = self._player.stop()
        self.controls.set_playing(False)
        if was:
            self.request_update()  # refine what was drawn at preview resolution

    def _on_play_toggled(self, on: bool) -> None:
        if on:
            self.start_play()
        else:
            self.stop_play()

    def _play_speed(self) -> float:
        return self.state.play_speed

    def _on_play_steps(self, steps: int) -> None:
        st = self.state
        n = st.n_positions
        if st.play_target == "offset":
            k = st.offset + steps
            self.set_state(st.clamped(offset=k if k <= n - 1 else 0))
        else:
            self.set_state(st.clamped(position=(st.position + steps) % n))

    def shutdown(self) -> None:
        self.stop_play()
        self._range_timer.stop()
        self._stale_timer.stop()
        super().shutdown()
