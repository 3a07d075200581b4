"""The Token-swap panel's controls column: scheme, PE strength, sizes, seed, query and the causal mask."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from ... import schemes as registry
from ...state.swap import MAX_HEADS
from ...widgets.sliders import LabeledFloatSlider
from ...widgets.value_box import SpinBox

if TYPE_CHECKING:
    from .panel import SwapPanel

CAUSAL_TIP = (
    "Each token may attend only to itself and earlier tokens. The mask itself leaks order: even with no "
    "positional encoding the outputs now depend on where words are "
    "(Haviv et al. 2022; Kazemnejad et al. 2023)."
)
LATE_MASK_TIP = (
    "The common mistake: softmax over all keys first, then zero the future. Rows no longer sum to 1 "
    "(see the Σ column). Needs the causal mask."
)


def adds_to_input(scheme_id: str) -> bool:
    """α scales the vector a scheme adds to the input (and nothing else)."""
    return registry.get(scheme_id).kind == "input"


def build_controls(panel: SwapPanel) -> QWidget:
    """The controls of ``panel``, set as its attributes
    (``scheme_combo``, ``alpha_slider``, ``d_spin`` …), in a column for its sidebar."""
    box = QWidget(panel)
    col = QVBoxLayout(box)
    col.setContentsMargins(0, 0, 6, 0)
    form = QFormLayout()
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    panel.scheme_combo = QComboBox(box)
    for i, sid in enumerate(registry.swap_ids()):
        sch = registry.get(sid)
        panel.scheme_combo.addItem(sch.swap_label or sch.title, sid)
        panel.scheme_combo.setItemData(i, sch.swap_note, Qt.ItemDataRole.ToolTipRole)
    form.addRow("Scheme", panel.scheme_combo)
    panel.alpha_slider = LabeledFloatSlider(box)
    panel.alpha_slider.setRange(0.0, 3.0)
    panel.alpha_slider.setSingleStep(0.05)
    panel.alpha_slider.setPageStep(0.25)
    panel.alpha_slider.setDecimals(2)
    panel.alpha_slider.setObjectName("swapAlpha")
    added = ", ".join(registry.get(s).title.lower() for s in registry.swap_ids() if adds_to_input(s))
    panel.alpha_slider.setToolTip(f"PE strength α: X = E + α·P for the schemes added to the input ({added})")
    form.addRow("PE strength α", panel.alpha_slider)
    panel.alpha_note = QLabel(f"α acts on {added.replace(', ', ' and ')} only", box)
    panel.alpha_note.setWordWrap(True)
    panel.alpha_note.setObjectName("swapNote")
    form.addRow(panel.alpha_note)
    panel.add_table_option(form, box)
    panel.d_spin = SpinBox(box)
    panel.d_spin.setRange(4, 256)
    panel.d_spin.setToolTip("Width of embeddings and of Q, K, V: 4 … 256, a multiple of 2 × heads")
    form.addRow("d_model", panel.d_spin)
    panel.heads_spin = SpinBox(box)
    panel.heads_spin.setRange(1, MAX_HEADS)
    panel.heads_spin.setToolTip("Attention heads; each gets d_model / heads dimensions")
    form.addRow("Heads", panel.heads_spin)
    panel.head_spin = SpinBox(box)
    panel.head_spin.setRange(1, 1)
    panel.head_spin.setToolTip("Which head the attention maps and bars show")
    form.addRow("Head shown", panel.head_spin)
    panel.seed_spin = SpinBox(box)
    panel.seed_spin.setRange(0, 2**31 - 1)
    panel.seed_spin.setToolTip("Seed of W_Q, W_K, W_V (and of the learned table). "
                               "Word vectors depend only on the word.")
    form.addRow("Seed", panel.seed_spin)
    panel.query_combo = QComboBox(box)
    panel.query_combo.setToolTip("The word whose attention weights the bars show")
    form.addRow("Query word", panel.query_combo)
    col.addLayout(form)
    panel.causal_check = QCheckBox("Causal mask (no looking ahead)", box)
    panel.causal_check.setToolTip(CAUSAL_TIP)
    col.addWidget(panel.causal_check)
    causal_note = QLabel("The mask itself leaks order — even with no positions "
                         "(Haviv et al. 2022; Kazemnejad et al. 2023).", box)
    causal_note.setWordWrap(True)
    causal_note.setObjectName("swapNote")
    col.addWidget(causal_note)
    panel.late_check = QCheckBox("Mask after softmax (the mistake)", box)
    panel.late_check.setToolTip(LATE_MASK_TIP)
    col.addWidget(panel.late_check)
    late_note = QLabel("Rows then no longer sum to 1: watch the Σ column.", box)
    late_note.setWordWrap(True)
    late_note.setObjectName("swapNote")
    col.addWidget(late_note)
    col.addStretch(1)
    return box
