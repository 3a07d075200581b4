"""Learned-table panel: what a trained position table holds — a real checkpoint's, the Lab's, or a stand-in.

With no checkpoint open it shows a seeded random ``nn.Embedding`` (the shape of a learned table, not
what training makes of it) and says so.  File → Open checkpoint… (or ``--checkpoint PATH``) reads one
table out of a ``.safetensors`` file, a ``.bin``/``.pt`` state dict or a Hugging Face folder; the Lab's
"View learned table" shows the table its model trained.  The table is named by a small
:class:`~explorer.jobs.table.TableSource` kept by the panel, never in its state: a preset or a session
cannot make the app read a file.  Every number comes from :mod:`explorer.jobs.table`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...encodings.checkpoint import short_name
from ...jobs.table import TableInfo, TableRequest, TableResponse, TableSource
from ...state.table import VIEWS, TableState
from ...widgets.plain import plain_tip
from ...widgets.qt_typed import combo_item
from ...widgets.sliders import LabeledFloatSlider
from ...widgets.value_box import SpinBox
from ..base import Panel
from .views import HeatmapTab, NormsTab, PcaTab, SimilarityTab, SpectrumTab, View, table_export

VIEW_TITLES = {"heatmap": "Table", "similarity": "Similarity", "pca": "PCA (helix)", "spectrum": "Spectra",
               "norms": "Norms and M"}
#: "What am I looking at?", one entry per tab (shown with its tab).
LEAD = ("<b>A learned position table</b> has one trained row P[p] per position p = 0 … M − 1, added to the "
        "token embedding (GPT-2, BERT, OPT).")
EXPLAIN = {
    "heatmap": "<b>Table</b>: the rows as colours, positions down and dimensions across.",
    "similarity": "<b>Similarity</b>: the cosine of every pair of rows, and its mean at each offset k. Training "
                  "makes neighbouring positions alike; a random table is near 0 at every k ≠ 0.",
    "pca": "<b>PCA</b>: the rows' first three principal components, flat and turned in 3-D. GPT-2's rows lie "
           "on a smooth helix (Wang &amp; Chen 2020).",
    "spectrum": "<b>Spectra</b>: how fast each dimension waves along the positions, beside the sinusoidal "
                "table of the same size. A learned table keeps most dimensions slow.",
    "norms": "<b>Norms and M</b>: the length of each row, and the wall at M. There is no row for a position "
             "≥ M: asking for one is refused, so the model cannot run there at all.",
}
CHECKPOINT_FILTER = "Checkpoints (*.safetensors *.bin *.pt *.pth);;All files (*)"


class TablePanel(Panel):
    panel_id = "table"
    state_cls = TableState
    view_ids = VIEWS
    #: Copy as Python: the table is a checkpoint's or drawn by torch's generator; numpy alone cannot rebuild it.
    no_snippet = ("the table comes from a checkpoint or torch's random generator, which numpy cannot rebuild; "
                  "Export → Save numbers gives the data")

    def __init__(self, service, state=None, parent=None, *, links=None) -> None:
        super().__init__(service, state, parent, links=links)
        self._source: TableSource | None = None  # None: the seeded stand-in of the state
        self._fallback: TableSource | None = None
        self._source_ok = True
        #: Why the last file asked for was refused: it stays in the banner over the table drawn instead.
        self._source_error = ""
        self.info: TableInfo | None = None
        self._choices: tuple | None = None  # the tensors the chooser holds (see _fill_tensors)
        self._last: dict[str, TableResponse] = {}  # the newest response drawn per view, for data export
        self._build_header()
        row = QHBoxLayout()
        row.addWidget(self.make_sidebar(self._build_controls()))
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("tableTabs")
        self.pca_tab = PcaTab(self)
        self.views: dict[str, View] = {"heatmap": HeatmapTab(self), "similarity": SimilarityTab(self),
                                       "pca": self.pca_tab, "spectrum": SpectrumTab(self), "norms": NormsTab(self)}
        for v in VIEWS:
            self.tabs.addTab(self.views[v], VIEW_TITLES[v])
        self.tabs.currentChanged.connect(self._on_tabs_changed)
        row.addWidget(self.tabs, 1)
        self.body.addLayout(row, 1)
        self.explanation = QLabel(LEAD, self)
        self.explanation.setObjectName("tableExplanation")
        self.explain.adopt(self.explanation)
        for v in VIEWS:
            label = QLabel(EXPLAIN[v], self)
            label.setObjectName(f"tableExplain_{v}")
            self.explain.adopt(label, self.views[v])
        self.set_state(self.state)

    # -- building ---------------------------------------------------------------------------------
    def _build_header(self) -> None:
        row = QHBoxLayout()
        self.source_label = QLabel(self)
        self.source_label.setTextFormat(Qt.TextFormat.PlainText)  # names what a checkpoint holds
        self.source_label.setObjectName("tableSource")
        self.source_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.source_label.setWordWrap(True)
        self.open_button = QPushButton("Open checkpoint…", self)
        self.open_button.setToolTip("A .safetensors file, a .bin/.pt state dict, or a Hugging Face model folder "
                                    "(e.g. ~/.cache/huggingface/hub/models--gpt2); only its position table is read")
        self.open_button.clicked.connect(self.open_dialog)
        self.tensor_combo = QComboBox(self)
        self.tensor_combo.setToolTip("Show another 2-D tensor of the checkpoint as the table")
        self.tensor_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.tensor_combo.setMinimumContentsLength(12)
        self.tensor_combo.activated.connect(self._on_tensor_picked)
        self.close_button = QPushButton("Stand-in", self)
        self.close_button.setToolTip("Close the checkpoint and show the seeded random table again")
        self.close_button.clicked.connect(self.close_checkpoint)
        row.addWidget(self.source_label, 1)
        row.addWidget(self.tensor_combo)
        row.addWidget(self.close_button)
        row.addWidget(self.open_button)
        self.body.addLayout(row)

    def _build_controls(self) -> QWidget:
        box = QWidget(self)
        col = QVBoxLayout(box)
        col.setContentsMargins(0, 0, 6, 0)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.spins: dict[str, SpinBox] = {}
        for name, tip in (("rows", "Rows (positions) of the seeded stand-in table"),
                          ("d_model", "Width of the seeded stand-in table"),
                          ("seed", "Seed of the stand-in table"),
                          ("probe", "Ask the table for this position's row: past M it is refused")):
            meta = dataclasses.fields(TableState)[list(TableState.__dataclass_fields__).index(name)].metadata
            spin = SpinBox(box)
            spin.setRange(int(meta["lo"]), min(int(meta["hi"]), 2**31 - 1))
            spin.setToolTip(tip)
            spin.setObjectName(f"table_{name}")
            spin.valueChanged.connect(self._on_spin_changed)
            self.spins[name] = spin
            form.addRow(meta["label"], spin)
        self.sliders: dict[str, LabeledFloatSlider] = {}
        for name, lo, hi in (("yaw", -180.0, 180.0), ("pitch", -90.0, 90.0)):
            s = LabeledFloatSlider(box)
            s.setRange(lo, hi)
            s.setDecimals(0)
            s.setSingleStep(5.0)
            s.setObjectName(f"table_{name}")
            s.setToolTip("Turn the 3-D view of the rows (PCA tab)")
            s.valueChanged.connect(self._on_angle_changed)
            self.sliders[name] = s
            form.addRow(TableState.__dataclass_fields__[name].metadata["label"], s)
        col.addLayout(form)
        col.addStretch(1)
        return box

    # -- the table shown -------------------------------------------------------------------------
    def source(self) -> TableSource:
        """The table the views show: the open checkpoint or Lab table, else the state's stand-in."""
        if self._source is not None:
            return self._source
        st = self.state
        return TableSource(rows=st.rows, d_model=st.d_model, seed=st.seed)

    def open_checkpoint(self, path: str, tensor: str = "") -> None:
        """Show the table in ``path`` (read in the compute process; a bad file is one line in the banner)."""
        self._show_source(TableSource.checkpoint(str(path), tensor))

    def show_table(self, table: np.ndarray, label: str) -> None:
        """Show ``table`` (positions × dims), e.g. the one a Lab model trained."""
        self._show_source(TableSource.from_array(np.asarray(table, dtype=np.float64), label))

    def close_checkpoint(self) -> None:
        self._fallback = None
        self._show_source(None)

    def _show_source(self, src: TableSource | None) -> None:
        if self._source_ok:
            self._fallback = self._source
        self._source = src
        self._source_ok = src is None
        self._source_error = ""
        self.links.set_table_shown(src)
        self.request_update()

    # -- requests and results ----------------------------------------------------------------------
    def requests(self, state) -> list:
        view = self.current_view() or VIEWS[0]
        return [TableRequest(self.source(), view, probe=state.probe, key=f"table.{view}")]

    @property
    def stuck_error(self) -> str | None:
        """A file asked for and refused (``--checkpoint``): what ``--screenshot`` reports instead of a picture of
        the stand-in drawn in its place."""
        return self._source_error or super().stuck_error

    def wants(self, request) -> bool:
        return request.source == self.source()  # a table shown before: its newer views are on their way

    def show_result(self, r: TableResponse) -> None:
        self._source_ok = True
        self.info = r.info
        self._last[r.view] = r
        self._show_info(r.info)
        self.views[r.view].show_result(r)
        if self._source_error:
            self.banner.show_error(self._source_error)

    def _on_error(self, failure) -> None:
        super()._on_error(failure)
        if not self._source_ok and failure.request.source == self._source:
            # The file could not be read: the table shown before comes back, drawn for the parameters and
            # the tab of now (they may have changed while the file was read), under the one line above.
            self._source = self._fallback
            self._source_ok = True
            self._source_error = failure.message
            self.links.set_table_shown(self._source)
            self.request_update()

    def _show_info(self, info) -> None:
        self.source_label.setText(info.text)
        self.source_label.setToolTip(plain_tip(f"{info.text}\n{info.source}" if info.source else info.text))
        is_file = info.kind == "file"
        self.close_button.setVisible(info.kind != "random")
        self.tensor_combo.setVisible(is_file and info.tensor_count > 1)
        if is_file:
            self._fill_tensors(info)
        for name in ("rows", "d_model", "seed"):
            self.spins[name].setEnabled(info.kind == "random")

    def _fill_tensors(self, info) -> None:
        """The checkpoint's tables in the chooser (filled again only when they change: every view's result
        carries them), each name shortened on screen; a file with more than can be offered says how many."""
        choices = (info.tensors, info.tensor_count)
        with QSignalBlocker(self.tensor_combo):
            if choices != self._choices:
                self._choices = choices
                self.tensor_combo.clear()
                for name in info.tensors:
                    self.tensor_combo.addItem(short_name(name), name)
                    self.tensor_combo.setItemData(self.tensor_combo.count() - 1, plain_tip(name),
                                                  Qt.ItemDataRole.ToolTipRole)
                more = info.tensor_count - len(info.tensors)
                if more > 0:
                    self.tensor_combo.addItem(f"… {more:,} more (pe-explorer data learned --tensor NAME)")
                    combo_item(self.tensor_combo, self.tensor_combo.count() - 1).setEnabled(False)
            at = self.tensor_combo.findData(info.name)
            if at < 0:  # the table shown is past the ones offered
                self.tensor_combo.insertItem(0, short_name(info.name), info.name)
                self._choices = None
                at = 0
            self.tensor_combo.setCurrentIndex(at)

    # -- controls ------------------------------------------------------------------------------------
    def sync_widgets(self, st: TableState) -> None:
        for name, spin in self.spins.items():
            spin.setValue(int(getattr(st, name)))
        for name, s in self.sliders.items():
            s.setValue(float(getattr(st, name)))
        self.pca_tab.set_angles(st.yaw, st.pitch)

    def _on_spin_changed(self, _value) -> None:
        self.set_state(dataclasses.replace(self.state, **{n: int(s.value()) for n, s in self.spins.items()}))

    def _on_angle_changed(self, _value) -> None:
        st = dataclasses.replace(self.state, **{n: float(round(s.value())) for n, s in self.sliders.items()})
        self.set_state(st, request=False)  # turning the view needs no new numbers
        self.pca_tab.set_angles(st.yaw, st.pitch)

    def _on_tabs_changed(self, _index: int) -> None:
        self.request_update()

    def ask_checkpoint_path(self) -> str:
        """The file dialog (the hub cache is where it starts, when there is one); "" if cancelled."""
        start = Path.home() / ".cache" / "huggingface" / "hub"
        path, _ = QFileDialog.getOpenFileName(self, "Open checkpoint", str(start) if start.is_dir() else "",
                                              CHECKPOINT_FILTER)
        return path

    def open_dialog(self) -> None:
        """Ask for a checkpoint and show its table (a bad file is one line in the banner)."""
        path = self.ask_checkpoint_path()
        if path:
            self.open_checkpoint(path)

    def _on_tensor_picked(self, index: int) -> None:
        name = self.tensor_combo.itemData(index)
        if self._source is not None and self._source.kind == "file" and isinstance(name, str):
            self._show_source(TableSource.checkpoint(self._source.path, name))

    # -- hooks ---------------------------------------------------------------------------------------
    def formula_text(self, state) -> str:
        return ("x<sub>p</sub> = e<sub>p</sub> + P[p], P ∈ ℝ<sup>M×d</sup>: one trained row per position "
                "p = 0 … M − 1; no row for p ≥ M")

    def formula_inputs(self, state):
        return ()

    def export_data(self, plot) -> dict:
        """The exact numbers behind ``plot``, named (not read back from the drawn items)."""
        views = {"tableHeatmap": "heatmap", "tableCosine": "similarity", "tableByOffset": "similarity",
                 "tablePca2": "pca", "tablePca3": "pca", "tableSpectrum": "spectrum", "tablePeaks": "spectrum",
                 "tableNorms": "norms"}
        r = self._last.get(views.get(plot.objectName(), ""))
        if r is None:
            return {}
        return table_export(plot.objectName(), r.arrays)

    def export_basename(self) -> str:
        info = self.info
        if info is None or info.kind == "random":
            return f"table_random_{self.state.rows}x{self.state.d_model}"
        return f"table_{info.positions}x{info.d_model}"
