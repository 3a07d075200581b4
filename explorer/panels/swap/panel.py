"""Token-swap panel: does attention notice that two words changed places?

The sentence is shown as token chips; dragging one chip onto another (or selecting two and pressing
Swap) chooses the two tokens to swap.  The service computes attention on the sentence and on the
swapped sentence; the panel shows both attention maps with a row-sum column, the chosen query's
weights as bars, the outputs before and after (moved back to each word's old place) and their
difference, and the computed verdict.  All numbers come from :mod:`explorer.jobs.swap`.
"""

from __future__ import annotations

import dataclasses
import html

import numpy as np
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QFontMetrics, QFontMetricsF
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from ...jobs.swap import SwapRequest, SwapResponse
from ...snippets import NoSnippet
from ...snippets.swap import snippet as swap_snippet
from ...state import StateError, SwapState
from ...state.swap import MAX_TOKENS, tokenize
from ...widgets.plain import plain_label
from ...widgets.plot_data import plot_title
from ...widgets.ranges import set_range
from ...widgets.sliders import LabeledFloatSlider
from ...widgets.text_pin import LiveLabel
from ...widgets.token_chips import COMPACT_ABOVE, SWAP_COLOUR, TokenChips, TokenChipsArea, short_word
from ...widgets.value_box import SpinBox
from ..base import Panel
from ..table.link import RealTableOption
from .controls import adds_to_input, build_controls
from .cope import CountMaps
from .formula import formula_html
from .grid import MapsGrid
from .headline import Headline
from .sentence import build_sentence_rows
from .views import AttentionMap, OutputMap, QueryBars, show_outputs

UNDO_LIMIT = 200
#: A panel under this many lines of its text tall is short (a 720-line screen): the verdict gives the maps room.
SHORT_LINES = 46


def after_html(st: SwapState, context: int = 3) -> str:
    """The swapped sentence with the two moved words marked; a long one keeps only their neighbourhoods."""
    after = st.swapped_tokens
    n = len(after)
    marked = {st.swap_i, st.swap_j} if n > 1 else set()
    keep = set(range(n))
    if n > COMPACT_ABOVE:
        keep = {k for m in marked for k in range(m - context, m + context + 1) if 0 <= k < n}
    parts, gap = [], False
    for k, w in enumerate(after):
        if k not in keep:
            gap = True
            continue
        if gap:
            parts.append("…")
        gap = False
        word = html.escape(short_word(w))
        if k in marked:
            word = f"<b style='color:{SWAP_COLOUR.name()}'>{word}</b><sub style='color:#888'>{k}</sub>"
        parts.append(word)
    if gap:
        parts.append("…")
    return " ".join(parts)


def map_title(which: str, words: list[str], head_note: str, limit: int = 22) -> str:
    """A plot title that never gets wider than its plot: the sentence only when it is short."""
    text = " ".join(words)
    base = f"{which}: “{html.escape(text)}”" if len(text) <= limit else f"Attention {which.lower()}"
    return base + head_note


class SwapPanel(RealTableOption, Panel):
    panel_id = "swap"
    state_cls = SwapState
    _count_maps: CountMaps | None = None  # CoPE's count maps, made on first use (count_maps)
    # The controls, made by controls.build_controls.
    scheme_combo: QComboBox
    alpha_slider: LabeledFloatSlider
    alpha_note: QLabel
    d_spin: SpinBox
    heads_spin: SpinBox
    head_spin: SpinBox
    seed_spin: SpinBox
    query_combo: QComboBox
    causal_check: QCheckBox
    late_check: QCheckBox
    # The sentence rows, made by sentence.build_sentence_rows.
    sentence_edit: QLineEdit
    count_label: QLabel
    chips_area: TokenChipsArea
    chips: TokenChips
    swap_button: QPushButton
    undo_button: QPushButton
    after_label: QLabel

    def __init__(self, service, state=None, parent=None, *, links=None) -> None:
        super().__init__(service, state, parent, links=links)
        self._shown: dict[str, SwapResponse] = {}  # each of PARTS: the result it shows
        self._fitted_words: tuple = ()  # the words and scale the maps were last measured for (see _render)
        self.text_pin.on_release(self._render)  # the output maps' exact colour scale again (see show_outputs)
        self._undo: list[tuple[str, int, int, int]] = []
        self._theme = None  # an explorer.theme.Theme once the window applies one
        self._compact = False
        build_sentence_rows(self)
        self.headline = Headline(self)
        self.headline.setProperty("aboveFocus", True)  # sentence, swap and verdict stay over a plot in focus
        self.body.addWidget(self.headline)
        # It quotes the typed sentence (plain text), and its numbers follow α: a live label, as the headline.
        self.explanation = LiveLabel(self)
        self.explanation.setTextFormat(Qt.TextFormat.PlainText)
        self.explanation.setObjectName("swapExplanation")
        self.explanation.setWordWrap(True)
        self.explanation.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.explain.adopt(self.explanation)  # "What am I looking at?", beside the maps
        main = QHBoxLayout()
        main.addWidget(self.make_sidebar(self._build_controls()))
        main.addWidget(self._build_views(), 1)
        self.body.addLayout(main, 1)
        self.readout = plain_label("Hover a cell or bar to read its value; click a row of “Attention before” to "
                                   "choose the query.", self)  # hovering names the typed words
        self.readout.setObjectName("swapReadout")
        # Wrapped: on one line it asked for 1,444 px at 160 % text in presenter mode, past a 1280-px projector.
        self.readout.setWordWrap(True)
        self.readout.setProperty("hintLine", True)  # presenter mode gives its line to the maps
        self.body.addWidget(self.readout)
        self._connect()
        self._restyle()
        self.set_state(self.state)

    # -- building ---------------------------------------------------------------------------------
    def _build_controls(self) -> QWidget:
        self.controls = build_controls(self)
        return self.controls

    def _build_views(self) -> QWidget:
        # Six maps: three a row where they fit at a readable size, fewer (and scrolling) where not.
        grid = MapsGrid(self)
        grid.setObjectName("swapMaps")
        self.maps_grid = grid
        self.before_map = AttentionMap("Attention before", grid)
        self.after_map = AttentionMap("Attention after", grid)
        self.before_map.sum_values.share_format(self.after_map.sum_values)  # both maps' sums alike
        self.bars = QueryBars(grid)
        self.out_before = OutputMap("Outputs before", grid)
        self.out_after = OutputMap("Outputs after, moved back", grid)
        self.out_diff = OutputMap("after − before", grid)
        # Two columns: the attention maps, then what the swap changed (the query's weights, the outputs' difference),
        # then the outputs themselves; the first two rows hold what every order_blindness step is about.
        grid.two_column_order = [self.before_map, self.after_map, self.bars, self.out_diff, self.out_before,
                                 self.out_after]
        grid.set_cells([self.before_map, self.after_map, self.bars, self.out_before, self.out_after, self.out_diff])
        grid.cellsFitted.connect(self._on_cells_fitted)
        return grid

    def _explain_fits(self) -> bool:
        """"What am I looking at?" beside the maps where they still show every map at a readable size: beside it at
        1280 × 720 they went to two columns, and the third row scrolled away."""
        bars = sum(b.width() for b in self.sidebars() if b.isVisible())
        left = self.width() - bars - max(self.explain.MIN_WIDTH, self.explain.sizeHint().width())
        return super()._explain_fits() and self.maps_grid.holds_all(left)

    def _on_cells_fitted(self) -> None:
        if self._explain_wired:
            self._explain_timer.start()

    def _connect(self) -> None:
        self.sentence_edit.editingFinished.connect(self._on_sentence_edited)
        self.chips.swapRequested.connect(self._on_chips_swap_requested)
        self.chips.selectionChanged.connect(self._on_chips_selection_changed)
        self.swap_button.clicked.connect(self._on_swap_clicked)
        self.undo_button.clicked.connect(self.undo)
        self.scheme_combo.currentIndexChanged.connect(
            lambda i: self._change(scheme=self.scheme_combo.itemData(i)))
        self.alpha_slider.valueChanged.connect(lambda v: self._change(alpha=round(float(v), 4)))
        self.d_spin.valueChanged.connect(lambda v: self._change(d_model=v))
        self.heads_spin.valueChanged.connect(lambda v: self._change(heads=v))
        self.seed_spin.valueChanged.connect(lambda v: self._change(seed=v))
        self.causal_check.toggled.connect(lambda v: self._change(causal=v))
        self.late_check.toggled.connect(lambda v: self._change(mask_after_softmax=v))
        self.head_spin.valueChanged.connect(lambda v: self._show_only(head=v - 1))
        self.query_combo.currentIndexChanged.connect(lambda i: self._show_only(query=max(i, 0)))
        for m in (self.before_map, self.after_map, self.out_before, self.out_after, self.out_diff, self.bars):
            m.hovered.connect(self._on_view_hovered)
        self.before_map.rowClicked.connect(lambda r: self._show_only(query=r))

    # -- changing the state -----------------------------------------------------------------------
    def _change(self, **changes) -> None:
        try:
            self.set_state(self.state.clamped(**changes))
        except StateError as exc:
            self.banner.show_error(str(exc))

    def _show_only(self, **changes) -> None:
        """Display-only fields (query, head shown): redraw from the last result, ask for nothing."""
        try:
            st = self.state.clamped(**changes)
        except StateError as exc:
            self.banner.show_error(str(exc))
            return
        self.set_state(st, request=False)
        self._render()

    def _push_undo(self) -> None:
        st = self.state
        self._undo.append((st.sentence, st.swap_i, st.swap_j, st.query))
        del self._undo[:-UNDO_LIMIT]
        self.undo_button.setEnabled(True)

    def swap(self, i: int, j: int) -> None:
        """Swap tokens ``i`` and ``j`` (what a drop or the Swap button does); undoable."""
        n = len(self.state.tokens)
        if i == j or not (0 <= i < n and 0 <= j < n):
            return
        a, b = sorted((i, j))
        if (a, b) == (self.state.swap_i, self.state.swap_j):
            self.chips.clear_selection()
            return
        self._push_undo()
        self.chips.clear_selection()
        self._change(swap_i=a, swap_j=b)

    def undo(self) -> None:
        """Back to the sentence and swap before the last change to them."""
        if not self._undo:
            return
        sentence, i, j, q = self._undo.pop()
        self.undo_button.setEnabled(bool(self._undo))
        self.chips.clear_selection()
        self._change(sentence=sentence, swap_i=i, swap_j=j, query=q)

    def _on_chips_swap_requested(self, src: int, dst: int) -> None:
        self.swap(src, dst)

    def _on_chips_selection_changed(self, selected) -> None:
        self.swap_button.setEnabled(len(selected) == 2)

    def _on_swap_clicked(self) -> None:
        sel = self.chips.selected()
        if len(sel) == 2:
            self.swap(*sel)

    def _on_sentence_edited(self) -> None:
        text = self.sentence_edit.text()
        if tokenize(text) == self.state.tokens:
            return
        try:
            st = self.state.clamped(sentence=text)
        except StateError as exc:
            self.banner.show_error(str(exc))
            return
        self._push_undo()
        self.set_state(st)

    def _on_view_hovered(self, text: str) -> None:
        if text:
            self.readout.setText(text)

    # -- showing the state ------------------------------------------------------------------------
    def _controls(self) -> list[QWidget]:
        """The widgets whose signals mean "the user changed something" (blocked while syncing): a short list,
        not every descendant; the views' signals come from the mouse only."""
        return [self.sentence_edit, self.chips, self.swap_button, self.undo_button, self.scheme_combo,
                self.alpha_slider, self.d_spin, self.heads_spin, self.seed_spin, self.causal_check, self.late_check,
                self.head_spin, self.query_combo]

    def sync_widgets(self, st: SwapState) -> None:
        tokens = st.tokens
        if tokenize(self.sentence_edit.text()) != tokens:
            self.sentence_edit.setText(st.sentence)
        self.count_label.setText(f"{len(tokens)} / {MAX_TOKENS} tokens")
        self.chips.set_tokens(tokens, (st.swap_i, st.swap_j))
        self.swap_button.setEnabled(len(self.chips.selected()) == 2)
        self.undo_button.setEnabled(bool(self._undo))
        self.after_label.setText(after_html(st))
        if (len(tokens) > COMPACT_ABOVE) != self._compact:
            self._compact = len(tokens) > COMPACT_ABOVE
            self._restyle()
        self.scheme_combo.setCurrentIndex(self.scheme_combo.findData(st.scheme))
        self.alpha_slider.setValue(st.alpha)
        self.alpha_note.setVisible(not adds_to_input(st.scheme))
        self.d_spin.setSingleStep(2 * st.heads)
        self.d_spin.setValue(st.d_model)
        self.heads_spin.setValue(st.heads)
        set_range(self.head_spin, 1, st.heads)
        self.head_spin.setValue(st.head + 1)
        self.head_spin.setEnabled(st.heads > 1)
        self.seed_spin.setValue(st.seed)
        items = [f"{k} · {short_word(w)}" for k, w in enumerate(tokens)]
        if [self.query_combo.itemText(k) for k in range(self.query_combo.count())] != items:
            self.query_combo.clear()
            self.query_combo.addItems(items)
        self.query_combo.setCurrentIndex(st.query)
        self.causal_check.setChecked(st.causal)
        self.late_check.setChecked(st.mask_after_softmax)
        self.late_check.setEnabled(st.causal)

    def requests(self, st):
        return [SwapRequest(st, table=self.table_for_request())]

    def show_result(self, r: SwapResponse) -> None:
        self._shown = dict.fromkeys(self.PARTS, r)
        self._render()

    #: A result's parts, each drawn in a turn of the event loop of its own with its plots' repaint (see
    #: :meth:`~explorer.panels.base.Panel.draw_parts`): the attention maps and bars under the slider first, the
    #: outputs a turn later (six plots in one turn were the panel's longest stall).
    PARTS = ("attention", "outputs")

    def draw_parts(self, r: SwapResponse) -> tuple:
        return self.PARTS

    def show_part(self, part, r: SwapResponse) -> None:
        self._shown[part] = r
        self._render(part)

    def _render(self, *parts: str) -> None:
        """Draw ``parts`` (all by default) again from the results they show; the query and the head shown come from
        the current state."""
        for part in parts or self.PARTS:
            r = self._shown.get(part)
            if r is not None:
                (self._render_attention if part == "attention" else self._render_outputs)(r)

    def _render_attention(self, r: SwapResponse) -> None:
        """The verdict, the attention maps before and after, the query's bars and CoPE's counts."""
        rs = r.request.state
        st = self.state
        h = min(st.head, rs.heads - 1)
        q = min(st.query, len(r.before.tokens) - 1)
        self.headline.set_verdict(r.verdict, r.headline)
        self.explanation.setText(r.explanation)
        head_note = f" (head {h + 1}/{rs.heads})" if rs.heads > 1 else ""
        self.before_map.set_data(r.before.weights[h], r.before.row_sums[h], r.before.tokens,
                                 map_title("Before", r.before.tokens, head_note))
        self.after_map.set_data(r.after.weights[h], r.after.row_sums[h], r.after.tokens,
                                map_title("After", r.after.tokens, head_note))
        self.bars.set_data(r.before.weights[h, q], r.weights_after_relabelled[h, q], r.before.tokens, q,
                           head_note)
        count_maps(self).show(r, h)

    def _render_outputs(self, r: SwapResponse) -> None:
        """The outputs before and after (moved back) and their difference; the maps measured again for new words."""
        show_outputs(self.out_before, self.out_after, self.out_diff, r, hold=self.text_pin.holding)
        # Held, α changes no axis but the difference's colour bar, whose scale is held (see show_outputs).
        words = (tuple(r.before.tokens), tuple(r.after.tokens), self.out_diff.said_scale)
        if words != self._fitted_words or not self.text_pin.holding:
            self._fitted_words = words
            self.maps_grid.schedule_fit()  # new words: new axes

    # -- look -------------------------------------------------------------------------------------
    def _restyle(self) -> None:
        """Text sizes relative to the panel's font (which follows zoom and presenter mode) and colours
        that suit the theme."""
        base = self.font().pointSizeF()
        base = base if base > 0 else 10.0
        dark = bool(getattr(self._theme, "dark", False))
        fg = getattr(self._theme, "foreground", "#1a1a1a")
        muted = "#a6adb8" if dark else "#5a5a5a"
        # A short panel (a 720-line projector) keeps the maps' room: a smaller headline, on one line where the body
        # text's size allows it.
        # The rows above the maps close up too: beside the Lesson pane two rows of maps then fit.
        short = self._short = self._is_short()
        self.headline.set_look(dark=dark, point_size=round(base * (1.4 if short else 1.9), 1),
                               least=base if short else round(base * 1.4, 1), tight=short)
        self.body.setSpacing(2 if short else -1)
        self.explanation.setStyleSheet(
            f"QLabel#swapExplanation {{ font-size: {base * 1.2:.1f}pt; color: {fg}; padding: 2px 4px; }}")
        after_pt = base * (1.2 if self._compact or short else 1.4)
        self.after_label.setStyleSheet(f"QLabel#swapAfter {{ font-size: {after_pt:.1f}pt; color: {fg}; }}")
        self.readout.setStyleSheet(f"QLabel#swapReadout {{ font-size: {base * 1.1:.1f}pt; color: {fg}; }}")
        f = self.sentence_edit.font()  # a font of its own (larger): it does not follow the panel's
        f.setPointSizeF(round(base * (1.1 if short else 1.25), 1))
        self.sentence_edit.setFont(f)
        for note in self.findChildren(QLabel, "swapNote"):
            note.setStyleSheet(f"QLabel#swapNote {{ color: {muted}; margin-left: 22px; }}")
        # The controls column is as wide as ~40 characters of the current font.
        self.controls.setFixedWidth(QFontMetrics(self.font()).horizontalAdvance("x" * 40))
        scale = base / 10.0
        for m in (self.before_map, self.after_map):
            m.set_dark(dark)
            m.values.set_point_size(10.5 * scale)
            m.sum_values.set_point_size(10.5 * scale)
        self.bars.values.set_point_size(9.5 * scale)
        text = QColor(fg)
        self.bars.values.set_colour_rule(lambda v: text)
        self.maps_grid.schedule_fit()  # a new text size: new axes

    def apply_theme(self, theme) -> None:
        self._theme = theme
        self._restyle()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and hasattr(self, "readout"):
            self._restyle()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if hasattr(self, "readout") and self._is_short() != getattr(self, "_short", False):
            self._restyle()

    def _is_short(self) -> bool:
        """Under :data:`SHORT_LINES` lines of its text tall (a 720-line screen, presenter mode or not)."""
        return self.height() < SHORT_LINES * QFontMetricsF(self.font()).height()

    # -- hooks ------------------------------------------------------------------------------------
    def formula_text(self, state: SwapState) -> str:
        return formula_html(state)

    def export_basename(self) -> str:
        return export_basename(self.state)

    def export_data(self, plot) -> dict:
        """The exact float64 numbers behind ``plot``, named; rows are tokens in the order the plot shows."""
        name = plot_name(self, plot)
        r = self.shown_response(name)
        return export_arrays(r, name, self.state) if r is not None and name else super().export_data(plot)

    def export_snippet(self, plot):
        name = plot_name(self, plot)
        return super().export_snippet(plot) if name is None else plot_snippet(self, plot, name)

    def formula_snippet(self):  # the strip's formula is the layer's weights: the "before" map's program
        return self.export_snippet(self.before_map)

    def formula_data(self) -> dict:
        return self.export_data(self.before_map)

    def main_slider(self) -> LabeledFloatSlider:
        """The slider a benchmark drags: PE strength α."""
        return self.alpha_slider

    @property
    def last_response(self) -> SwapResponse | None:
        """The result the outputs show, the part drawn last (None before the first).  During a drag the maps may
        show another for a frame: a newer result's outputs take the place of an older one's still to be drawn in
        the frame, and its maps come in the next (see :class:`~explorer.widgets.frames.FrameScheduler`)."""
        return self._shown.get(self.PARTS[-1])

    def shown_response(self, plot_name: str | None) -> SwapResponse | None:
        """The result the plot named ``plot_name`` (see :func:`plot_name`) shows: its part's."""
        if plot_name is None:
            return None
        return self._shown.get("outputs" if plot_name.startswith("out_") else "attention")


def count_maps(panel: SwapPanel) -> CountMaps:
    """The panel's maps of CoPE's counts (made on first use; shown while the scheme counts)."""
    if panel._count_maps is None:
        panel._count_maps = CountMaps(panel.maps_grid, panel._on_view_hovered)
    return panel._count_maps


def plot_name(panel: SwapPanel, plot) -> str | None:
    """Which of the panel's plots ``plot`` is (the keys of :func:`export_arrays`)."""
    plots = {"before": panel.before_map, "after": panel.after_map, "bars": panel.bars,
             "out_before": panel.out_before, "out_after": panel.out_after, "out_diff": panel.out_diff,
             **count_maps(panel).named()}
    return next((k for k, p in plots.items() if p is plot), None)


def plot_snippet(panel: SwapPanel, plot, name: str):
    """Copy as Python: the layer before and after the swap, ``result`` as ``export_data`` gives it."""
    r = panel.shown_response(name)
    if r is None:
        return NoSnippet("the plot has not drawn yet")
    if name in ("counts_before", "counts_after"):
        return NoSnippet("no program for CoPE's counts yet: Export → Save numbers writes them")
    st = r.request.state
    shown = dataclasses.replace(st, head=min(panel.state.head, st.heads - 1),
                                query=min(panel.state.query, len(st.tokens) - 1))
    return swap_snippet(shown, name, f"Token swap — {plot_title(plot) or name}")


def export_basename(st: SwapState) -> str:
    """e.g. ``swap_sinusoidal_a1_d16_causal``: the scheme, α where it acts, d, heads, the mask."""
    parts = ["swap", st.scheme]
    if adds_to_input(st.scheme):
        parts.append(f"a{st.alpha:g}")
    parts.append(f"d{st.d_model}")
    if st.heads > 1:
        parts.append(f"h{st.heads}")
    if st.causal:
        parts.append("causal-late" if st.mask_after_softmax else "causal")
    return "_".join(parts)


def export_arrays(r: SwapResponse, plot: str, st: SwapState) -> dict:
    """The numbers behind one of the panel's plots (``before``, ``after``, ``bars``, ``out_*``)."""
    n = len(r.before.tokens)
    h = min(st.head, r.request.state.heads - 1)
    q = min(st.query, n - 1)
    return {
        "before": lambda: {"weights before [query, key]": r.before.weights[h], "row sums": r.before.row_sums[h]},
        "after": lambda: {"weights after [query, key]": r.after.weights[h], "row sums": r.after.row_sums[h]},
        "bars": lambda: {"key (original place)": np.arange(n), "weight before": r.before.weights[h, q],
                         "weight after": r.weights_after_relabelled[h, q]},
        "out_before": lambda: {"outputs before [token, component]": r.before.outputs},
        "out_after": lambda: {"outputs after, moved back [token, component]": r.outputs_after_relabelled},
        "out_diff": lambda: {"after - before [token, component]": r.difference},
        "counts_before": lambda: CountMaps.arrays(r, h, "before"),
        "counts_after": lambda: CountMaps.arrays(r, h, "after"),
    }[plot]()

