"""Schemes panel: every positional scheme side by side, including RoPE's context-extension methods.

Its own views (score matrices, score vs distance, beyond training, properties, the patch grid) and the tabs schemes
add (ALiBi's heads, RoPE's real models: :mod:`explorer.schemes.tabs`), one set of shared, linked controls on the
left.  Only the visible view is computed; each view asks for one result per plot (keys
``schemes.<view>[.<scheme>]``), and a request that equals the last one sent for its key is not sent again, so
dragging s recomputes only the scaled-RoPE plots.  The main slider (for the benchmark and keyboard users) is s.
"""

from __future__ import annotations

import importlib
import math
from typing import TypeVar

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ... import schemes as registry
from ...jobs.grid import GridResponse
from ...jobs.schemes import (
    METHOD_TITLES,
    BeyondResponse,
    DistanceResponse,
    MatrixResponse,
    PropertiesResponse,
    ScaledResponse,
    TabResponse,
    build_requests,
    kept_exact,
    shared_levels,
)
from ...snippets import NoSnippet
from ...state import SchemesState, StateError
from ...state.schemes import MAX_EXTENSION
from ...state.schemes import views as view_ids
from ...widgets.qt_typed import layout_of
from ...widgets.ranges import set_range
from ...widgets.sliders import FloatSlider
from ...widgets.theming import current_theme
from ...widgets.value_box import DoubleSpinBox, SpinBox, feedback
from ..base import Panel
from ..held_scale import held_scale
from ..table.link import RealTableOption
from .alibi import PropertiesView
from .beyond import BeyondView
from .distance import DistanceView
from .formula import STRIP_FORMULAS, formula_html
from .grid import GridView
from .info import distance_info, matrix_info
from .matrices import MatrixView
from .snippets import exact_data, snippet_for
from .spec_tab import SpecTabView
from .tabs import FittedTabs
from .views import SchemesView

#: The panel's own views: (title, short title where the full ones do not fit, widget class); the tabs schemes add
#: bring theirs (:class:`~explorer.schemes.tabs.SchemeTab`).  Tabs are numbered by place: "1 · Score matrices".
OWN_VIEWS: dict[str, tuple[str, str, type[SchemesView]]] = {
    "matrices": ("Score matrices", "Matrix", MatrixView),
    "distance": ("Score vs distance", "Dist.", DistanceView),
    "beyond": ("Beyond training", "Beyond", BeyondView),
    "properties": ("Properties", "Props", PropertiesView),
    "grid": ("Patch grid", "Grid", GridView),
}
V = TypeVar("V", bound=SchemesView)


def view_titles(ids: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The tabs' full and short titles, numbered by place."""
    full, short = [], []
    for k, v in enumerate(ids, 1):
        found = registry.tab(v)
        title, brief = (OWN_VIEWS[v][:2] if found is None else (found[0].title, found[0].short))
        full.append(f"{k} · {title}")
        short.append(f"{k} · {brief}")
    return full, short


def make_view(name: str) -> SchemesView:
    """A new widget for view ``name``: the panel's own, or the one a scheme's tab names (imported now)."""
    if name in OWN_VIEWS:
        return OWN_VIEWS[name][2]()
    found = registry.tab(name)
    if found is None:
        raise KeyError(f"no view {name!r}")
    tab, sch = found
    if not tab.widget:
        return SpecTabView(sch.id, tab.id)
    module, _, cls = tab.widget.partition(":")
    widget = getattr(importlib.import_module(module), cls)()
    if not isinstance(widget, SchemesView):
        raise TypeError(f"{tab.widget} is not a SchemesView")
    return widget


#: The factor slider moves log2(s) from 0 (s = 1) to 6 (s = 64) in steps of 1/20.
LOG2_FACTOR_MAX = 6.0
LOG2_FACTOR_STEP = 0.05


class SchemesPanel(RealTableOption, Panel):
    panel_id = "schemes"
    state_cls = SchemesState

    def __init__(self, service, state=None, parent=None, *, links=None) -> None:
        super().__init__(service, state, parent, links=links)
        self._theme = None  # the last theme applied (views built later get it too)
        self._closing = False
        self._held_k: float | None = None  # the matrices' colour scale while a slider is held (see _update_scales)
        self.text_pin.on_release(self._exact_again)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self._build_controls())
        self.view_ids = view_ids()  # its own and the schemes' tabs, as registered when it is made
        self.tabs = FittedTabs(*view_titles(self.view_ids))
        self.tabs.setObjectName("schemesTabs")
        # Each view is built the first time it is shown (17 plots up front would slow the window's start).
        self._views: dict[str, SchemesView] = {}
        self._pages: dict[str, QWidget] = {}
        for k, v in enumerate(self.view_ids):
            page = QWidget()
            page.setObjectName(f"schemesPage_{v}")
            QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self._pages[v] = page
            self.tabs.add_page(page, k)
        self.tabs.currentChanged.connect(self._on_tabs_changed)
        row.addWidget(self.tabs, 1)
        self.body.addLayout(row, 1)
        self.formula.set_max_formulas(STRIP_FORMULAS)
        self.set_state(self.state)
        self.links.weightsChanged.connect(self._on_trained_changed)

    # -- controls ------------------------------------------------------------------------------------
    def _build_controls(self) -> QWidget:
        box = QWidget()
        box.setObjectName("schemesControls")
        lay = QVBoxLayout(box)
        lay.setContentsMargins(2, 2, 2, 2)

        schemes = QGroupBox("Schemes shown")
        g = QGridLayout(schemes)
        self.scheme_checks: dict[str, QCheckBox] = {}
        for k, sch in enumerate(registry.all_schemes()):
            cb = QCheckBox(sch.title)
            cb.setObjectName(f"schemesShow_{sch.id}")
            cb.setToolTip(sch.description)
            cb.toggled.connect(lambda on, s=sch.id: self._change(**{f"show_{s}": on}))
            g.addWidget(cb, k // 2, k % 2)
            self.scheme_checks[sch.id] = cb
        lay.addWidget(schemes)
        lay.addWidget(self._build_own_parameters())

        shared = QGroupBox("Shared (every column)")
        f = QFormLayout(shared)
        self.d_spin = SpinBox(minimum=2, maximum=1024, singleStep=2)
        self.d_spin.setToolTip("head dim d: width of one attention head (pairs k = 0 … d/2 − 1)")
        self.base_spin = DoubleSpinBox(minimum=10.0, maximum=1e7, decimals=0, singleStep=1000.0)
        self.base_spin.setToolTip("θ_k = base^(−2k/d): 10000 in the original Transformer and Llama 2; "
                                  "500000 in Llama 3")
        self.lt_spin = SpinBox(minimum=2, maximum=131072)
        self.lt_spin.setToolTip("L_train: the longest sequence seen in training (L_orig for scaled RoPE)")
        self.le_spin = SpinBox(minimum=2, maximum=MAX_EXTENSION * 131072)
        self.le_spin.setToolTip(f"L_eval: the length shown, up to {MAX_EXTENSION} × L_train")
        self.le_ratio = QLabel()
        self.content_combo = QComboBox()
        self.content_combo.addItem("same c at every position", "same")
        self.content_combo.addItem("average of 16 random c", "average")
        self.seed_spin = SpinBox(minimum=0, maximum=2**31 - 1)
        self.causal_check = QCheckBox("causal mask (decoder)")
        f.addRow("head dim d", self.d_spin)
        f.addRow("base", self.base_spin)
        f.addRow("L_train", self.lt_spin)
        f.addRow("L_eval", self.le_spin)
        f.addRow("", self.le_ratio)
        f.addRow("content", self.content_combo)
        f.addRow("seed", self.seed_spin)
        f.addRow(self.causal_check)
        self.add_table_option(f, shared)  # a real table's rows for the schemes that take one (the learned)
        lay.addWidget(shared)

        scaled = QGroupBox("Scaled RoPE")
        f2 = QFormLayout(scaled)
        self.scaling_combo = QComboBox()
        for method, title in METHOD_TITLES.items():
            self.scaling_combo.addItem(title, method)
        self.factor_slider = FloatSlider()
        self.factor_slider.setObjectName("factorSlider")
        self.factor_slider.setRange(0.0, LOG2_FACTOR_MAX)
        self.factor_slider.setSingleStep(LOG2_FACTOR_STEP)
        self.factor_slider.setPageStep(1.0)
        self.factor_slider.setToolTip("factor s on a log scale (1 … 64); one page step doubles s")
        self.factor_spin = DoubleSpinBox(minimum=1.0, maximum=64.0, decimals=3, singleStep=0.5)
        f2.addRow("method", self.scaling_combo)
        f2.addRow("factor s", self.factor_spin)
        f2.addRow(self.factor_slider)
        lay.addWidget(scaled)

        alibi = QGroupBox("ALiBi")
        f3 = QFormLayout(alibi)
        self.heads_spin = SpinBox(minimum=1, maximum=64)
        self.head_spin = SpinBox(minimum=0, maximum=63)
        f3.addRow("heads", self.heads_spin)
        f3.addRow("head shown", self.head_spin)
        lay.addWidget(alibi)
        lay.addStretch(1)
        spins = (self.d_spin, self.base_spin, self.lt_spin, self.le_spin, self.seed_spin, self.factor_spin,
                 self.heads_spin, self.head_spin)
        for spin in spins:
            # Typed numbers apply on Enter (typing 8192 must not pass through L_train = 8 and pull L_eval
            # down); the arrows and the wheel still step at once, by steps that grow with the value.
            spin.setKeyboardTracking(False)
        for spin in (self.base_spin, self.lt_spin, self.le_spin):
            spin.setStepType(QSpinBox.StepType.AdaptiveDecimalStepType)

        self.d_spin.valueChanged.connect(lambda v: self._change(head_dim=v))
        self.base_spin.valueChanged.connect(lambda v: self._change(base=v))
        self.lt_spin.valueChanged.connect(lambda v: self._change(l_train=v))
        self.le_spin.valueChanged.connect(lambda v: self._change(l_eval=v))
        self.content_combo.currentIndexChanged.connect(
            lambda _i: self._change(content=self.content_combo.currentData()))
        self.seed_spin.valueChanged.connect(lambda v: self._change(seed=v))
        self.causal_check.toggled.connect(lambda on: self._change(causal=on))
        self.scaling_combo.currentIndexChanged.connect(
            lambda _i: self._change(scaling=self.scaling_combo.currentData()))
        self.factor_slider.valueChanged.connect(self._on_factor_slider_changed)
        self.factor_spin.valueChanged.connect(lambda v: self._change(factor=v))
        self.heads_spin.valueChanged.connect(lambda v: self._change(heads=v))
        self.head_spin.valueChanged.connect(lambda v: self._change(alibi_head=v))

        return self.make_sidebar(box)

    def _build_own_parameters(self) -> QGroupBox:
        """One box per scheme-specific parameter (T5's buckets, …), shown while its scheme is shown."""
        box = QGroupBox("Scheme parameters")
        box.setObjectName("schemeParams")
        form = QFormLayout(box)
        self.param_spins: dict[tuple[str, str], QSpinBox | QDoubleSpinBox] = {}
        self._param_rows: dict[str, list] = {}
        for sch in registry.all_schemes():
            for p in sch.own_parameters():
                spin: QSpinBox | QDoubleSpinBox = SpinBox() if p.integer else DoubleSpinBox(decimals=3)
                if isinstance(spin, QSpinBox):
                    spin.setRange(int(p.lo), int(p.hi))
                else:
                    spin.setRange(p.lo, p.hi)
                spin.setKeyboardTracking(False)
                spin.setToolTip(p.help or p.label)
                spin.setObjectName(f"schemeParam_{sch.id}_{p.name}")
                spin.valueChanged.connect(lambda v, s=sch.id, n=p.name, b=spin: self._set_own_parameter(s, n, v, b))
                lab = QLabel(f"{sch.title}: {p.label or p.name}")
                form.addRow(lab, spin)
                self.param_spins[(sch.id, p.name)] = spin
                self._param_rows.setdefault(sch.id, []).extend([lab, spin])
        self.param_box = box
        box.setVisible(False)  # shown while a shown scheme has a parameter of its own
        return box

    def _set_own_parameter(self, scheme: str, name: str, value, box) -> None:
        """A scheme's own parameter from its box; a value the scheme cannot use with the others (T5's
        max_distance below its buckets) is refused next to the box, which goes back to the value in use."""
        try:
            state = self.state.with_scheme_param(scheme, name, value)
        except StateError as exc:
            feedback(box).refuse(str(exc), f"{registry.get(scheme).title} {name}: {value:g} refused; kept "
                                 f"{dict(self.state.params_of(scheme))[name]:g}")
            self._block_and_sync()
            return
        feedback(box).clear()
        self.set_state(state)

    def _sync_own_parameters(self, st: SchemesState) -> None:
        for (sid, name), spin in self.param_spins.items():
            spin.setValue(dict(st.params_of(sid))[name])
        for sid, widgets in self._param_rows.items():
            for w in widgets:
                w.setVisible(st.shows(sid))
        self.param_box.setVisible(any(st.shows(sid) for sid in self._param_rows))

    # -- views, built on first use ------------------------------------------------------------------
    def view(self, name: str) -> SchemesView:
        """The widget of view ``name``, built (and brought up to date with the state) on first use."""
        if name not in self._views:
            w = make_view(name)
            layout_of(self._pages[name]).addWidget(w)
            self._views[name] = w
            w.changeRequested.connect(lambda changes: self._change(**changes))
            w.failed.connect(self.banner.show_error)
            if isinstance(w, GridView):
                w.queryPicked.connect(lambda t: self._change(grid_query=t))
                w.sideChanged.connect(lambda v: self._change(grid_side=v, grid_query=-1))
            if w.info is not None:
                self.explain.adopt(w.info, w)  # the explanation beside the plots, not over them
                self._refresh_explain()
            self._sync_view(name, self.state)
            if self._theme is not None:
                w.apply_theme(self._theme)
        return self._views[name]

    @property
    def views(self) -> dict[str, SchemesView]:
        return {v: self.view(v) for v in self.view_ids}

    def _view_as(self, name: str, cls: type[V]) -> V:
        """View ``name``, which is a ``cls`` (see OWN_VIEWS)."""
        w = self.view(name)
        if not isinstance(w, cls):
            raise TypeError(f"the {name} view is a {type(w).__name__}, not a {cls.__name__}")
        return w

    @property
    def matrix_view(self) -> MatrixView:
        return self._view_as("matrices", MatrixView)

    @property
    def distance_view(self) -> DistanceView:
        return self._view_as("distance", DistanceView)

    @property
    def beyond_view(self) -> BeyondView:
        return self._view_as("beyond", BeyondView)

    @property
    def properties_view(self) -> PropertiesView:
        return self._view_as("properties", PropertiesView)

    def _sync_view(self, name: str, st: SchemesState) -> None:
        # Layout and overlays follow the state at once; the numbers follow when results arrive.
        w = self._views[name]
        if hasattr(w, "arrange"):
            w.arrange(st.schemes)
        if hasattr(w, "set_geometry"):
            w.set_geometry(st)

    def _change(self, **changes) -> None:
        try:
            self.set_state(self.state.clamped(**changes))
        except ValueError as exc:  # StateError: shown, the current state is kept
            self.banner.show_error(str(exc))
            self._block_and_sync()

    def _on_factor_slider_changed(self, v: float) -> None:
        self._change(factor=round(2.0 ** float(v), 4))

    def _on_tabs_changed(self, index: int) -> None:
        self._change(view=self.view_ids[index])

    def main_slider(self) -> FloatSlider:
        """The slider the benchmark drags: the context-scaling factor s (log scale, 1 … 64).

        Dragging it recomputes only the scaled-RoPE plots of the visible view (the scaled column and
        curve, or the frequency plots), so it measures the live path a lecturer uses most.
        """
        return self.factor_slider

    def _controls(self) -> list[QWidget]:
        """The controls whose signals change the state (blocked while syncing): the views' own controls speak
        through their view's signals, so blocking the view is enough."""
        return [*self.scheme_checks.values(), *self.param_spins.values(), self.d_spin, self.base_spin, self.lt_spin,
                self.le_spin, self.content_combo, self.seed_spin, self.causal_check, self.scaling_combo,
                self.factor_slider, self.factor_spin, self.heads_spin, self.head_spin, self.tabs,
                *self._views.values()]

    def sync_widgets(self, st: SchemesState) -> None:
        for s, cb in self.scheme_checks.items():
            cb.setChecked(st.shows(s))
        self._sync_own_parameters(st)
        set_range(self.d_spin, lo=4 if st.scaling == "ntk" else 2)
        self.d_spin.setValue(st.head_dim)
        self.base_spin.setValue(st.base)
        self.lt_spin.setValue(st.l_train)
        set_range(self.le_spin, hi=MAX_EXTENSION * st.l_train)
        self.le_spin.setValue(st.l_eval)
        self.le_ratio.setText(f"= {st.l_eval / st.l_train:.3g} × L_train (max {MAX_EXTENSION}×)")
        self.content_combo.setCurrentIndex(0 if st.content == "same" else 1)
        self.seed_spin.setValue(st.seed)
        self.causal_check.setChecked(st.causal)
        self.scaling_combo.setCurrentIndex(list(METHOD_TITLES).index(st.scaling))
        self.factor_spin.setValue(st.factor)
        if abs(2.0 ** self.factor_slider.value() - st.factor) > 1e-3:
            self.factor_slider.setValue(math.log2(st.factor))
        self.heads_spin.setValue(st.heads)
        set_range(self.head_spin, hi=st.heads - 1)
        self.head_spin.setValue(st.alibi_head)
        # The tab bar (not in _controls) delivers the change to the page stack; the tab widget is blocked, so no
        # change comes back to the panel.
        shown = st.view if st.view in self.view_ids else self.view_ids[0]  # a tab registered after the panel was made
        self.tabs.setCurrentIndex(self.view_ids.index(shown))
        self.view(shown)
        for name in self._views:
            self._sync_view(name, st)
        self._update_scales()

    # -- requests and results --------------------------------------------------------------------------
    def requests(self, st):
        reqs = build_requests(st, trained=self.links.trained_weights(), table=self.table_for_request(),
                              preview=self.text_pin.holding)  # a drag step's matrices in float32
        return kept_exact(reqs, self.latest_request)

    def _on_trained_changed(self) -> None:
        """A Lab run trained a scheme this panel draws from its weights (FIRE): draw the new ones."""
        if not self._closing and any(registry.get(s).uses_lab_weights for s in self.state.schemes):
            self.request_update()

    def shutdown(self) -> None:
        self._closing = True  # a Lab run finishing now must not send requests to a stopping service
        super().shutdown()

    def show_result(self, r) -> None:
        st = self.state
        drawn: tuple[str, ...] = ()
        if isinstance(r, MatrixResponse):
            self.matrix_view.show_matrix(r, st)
            drawn = (r.request.scheme,)
        elif isinstance(r, DistanceResponse):
            self.distance_view.show_distance(r)
        elif isinstance(r, BeyondResponse):
            self.beyond_view.show_beyond(r)
        elif isinstance(r, ScaledResponse):
            self.beyond_view.show_scaled(r)
        elif isinstance(r, TabResponse):
            if r.request.tab in self.view_ids:
                self.view(r.request.tab).show_response(r.value)
        elif isinstance(r, PropertiesResponse):
            self.properties_view.show_properties(r)
        elif isinstance(r, GridResponse):
            self._view_as("grid", GridView).show_grid(r)
        self._update_scales(drawn)

    def _update_scales(self, drawn: tuple[str, ...] = ()) -> None:
        """One colour scale for every score matrix, one y-range for every distance curve.  A new scale reaches
        the matrices just ``drawn`` at once and each other one in a turn of its own (:meth:`later`).  While a
        slider is held the matrices' scale is held too (:func:`~explorer.panels.held_scale.held_scale`: where
        the dragged column sets it, as at head_dim = 32, a new scale at every step re-coloured all seven);
        letting go shows the exact one."""
        st = self.state
        if "matrices" in self._views:
            extents = self.matrix_view.extents(st.schemes)
            k, clipped = shared_levels(extents)
            if self.text_pin.holding:
                shown = self._held_k = held_scale(self._held_k, k) if self._held_k else k
            else:
                shown, self._held_k = k, None
            for s, update in self.matrix_view.set_levels(shown, now=drawn).items():
                self.later(("levels", s), update)
            clipped = tuple(s for s in clipped if extents[s] > shown * (1 + 1e-12))
            self.matrix_view.info.setText(matrix_info(st, shown, clipped, self.matrix_view.responses,
                                                      self._theme or current_theme(), exact=k if shown != k else None))
        if "distance" in self._views:
            kd, clipped_d = shared_levels(self.distance_view.extents(st.schemes))
            self.distance_view.set_range(kd, clipped_d, st)
            self.distance_view.info.setText(distance_info(st, self.distance_view.responses))

    def _exact_again(self) -> None:
        """The slider is let go: the matrices' exact colour scale again (see :meth:`_update_scales`), and the
        matrices a drag step drew in float32 computed exactly."""
        self._held_k = None
        if not self._closing:
            self._update_scales()
            self.request_update()

    # -- hooks ---------------------------------------------------------------------------------------
    def formula_text(self, state) -> str:
        return formula_html(state, self.table_for_request())

    def export_basename(self) -> str:
        """``schemes_yarn_s4_d64_L512_eval1024`` (method, s, d, L_train, L_eval), or the view's own name for it."""
        st = self.state
        view = self._views.get(st.view)
        if view is not None and (own := view.export_basename(st)):
            return own
        return f"schemes_{st.scaling}_s{st.factor:g}_d{st.head_dim}_L{st.l_train}_eval{st.l_eval}"

    def apply_theme(self, theme) -> None:
        """Info labels (their style sheets set sizes) and hatching follow the theme; the generic pass
        styles the plots themselves."""
        self._theme = theme
        for w in self._views.values():
            w.apply_theme(theme)
        if "matrices" in self._views and self.matrix_view.responses:
            self._update_scales()  # the caption names the mask's colour

    def export_data(self, plot) -> dict:
        """Exact float64 numbers (see :func:`~.snippets.exact_data`); other plots as the generic read-back gives
        them."""
        return exact_data(self, plot) or super().export_data(plot)

    export_snippet = snippet_for

    def formula_snippet(self):
        return NoSnippet("the strip holds one formula per scheme; right-click a score matrix for its program")

    def plots(self) -> list:
        """The plots of the visible view (export and theming act on what is on screen)."""
        view = self.state.view
        return self.view(view).plot_widgets() if view in self.view_ids else []
