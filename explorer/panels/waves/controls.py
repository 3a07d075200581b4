"""The Waves panel's controls: every parameter live while dragging, every value typeable."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...state import WavesState
from ...widgets.log_slider import LogSlider
from ...widgets.ranges import set_range
from ...widgets.sliders import LabeledSlider
from ...widgets.value_box import SpinBox, clip_text, feedback, route_undo

VARIANT_TIPS = {
    "paper": "Vaswani et al. 2017: columns interleave sin, cos; ω_i = base^(−2i/d)",
    "halves": "Same ω_i as the paper; all sin columns first, then all cos columns",
    "t2t": ("tensor2tensor: [sin | cos] halves, ω_i = base^(−i/(d/2−1)); slowest exactly 1/base.\n"
            "fairseq's SinusoidalPositionalEmbedding has these frequencies but not these rows: token p gets "
            "row p + padding_idx + 1, the padding row is zero, the base is fixed at 10000, it computes in "
            "float32, and d = 2 fails (it divides by d/2 − 1)."),
}


def parse_pairs(text: str, half: int) -> tuple[int, ...] | None:
    """'0, 4, 16' -> (0, 4, 16); None if not a list of pair indices below ``half`` (at most 16)."""
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    try:
        values = tuple(sorted(dict.fromkeys(int(p) for p in parts)))
    except ValueError:
        return None
    if not values or len(values) > 16 or values[0] < 0 or values[-1] >= half:
        return None
    return values


def spread_pairs(half: int, count: int = 5) -> tuple[int, ...]:
    """``count`` pairs evenly spread from the fastest (0) to the slowest (half − 1)."""
    return tuple(int(i) for i in np.unique(np.round(np.linspace(0, half - 1, count)).astype(int)))


def _slider(lo: int, hi: int) -> LabeledSlider:
    s = LabeledSlider()
    s.setRange(lo, hi)
    return s


class WavesControls(QWidget):
    """Sliders, boxes and buttons; emits the user's edits as WavesState changes (never owns the state)."""

    edited = Signal(dict)
    dragStarted = Signal()
    dragFinished = Signal()
    resetRequested = Signal()
    playToggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._half = 64
        self._pairs_text = ""
        outer = QVBoxLayout(self)
        outer.setContentsMargins(2, 2, 2, 2)

        enc = QGroupBox("Encoding", self)
        f = QFormLayout(enc)
        self.n = LogSlider(1, 131072, integer=True, marks=[(512, "512"), (8192, "8k"), (131072, "128k")])
        self.d = LogSlider(2, 4096, even=True, marks=[(128, "128"), (512, "512"), (4096, "4096")])
        self.base = LogSlider(10, 1e7, marks=[(10000.0, "10k"), (500000.0, "500k")])
        self.variant = QComboBox()
        for v in ("paper", "halves", "t2t"):
            self.variant.addItem(v, v)
            self.variant.setItemData(self.variant.count() - 1, VARIANT_TIPS[v], Qt.ItemDataRole.ToolTipRole)
        f.addRow("Positions N", self.n)
        f.addRow("d_model", self.d)
        f.addRow("base", self.base)
        f.addRow("variant", self.variant)
        self.n.setToolTip("Sequence length N: positions 0 … N−1 (log scale; type a value in the box)")
        self.d.setToolTip("Model width d (even): d/2 sin/cos pairs")
        self.base.setToolTip("Frequency base: ω_i = base^(−2i/d). 10000 in the paper, 500000 in Llama 3")

        pick = QGroupBox("Pick", self)
        f = QFormLayout(pick)
        self.position = _slider(0, 255)
        self.offset = _slider(-255, 255)
        self.pair = _slider(0, 63)
        self.pairs = QLineEdit()
        self.pairs.setToolTip("Pairs drawn in the waves views, e.g. 0, 4, 16 (at most 16)")
        route_undo(self.pairs)
        self.spread_button = QPushButton("Spread")
        self.spread_button.setToolTip("Five pairs from the fastest (0) to the slowest (d/2 − 1)")
        self.fastest_button = QPushButton("Fastest")
        self.fastest_button.setToolTip("Pairs 0, 1, 2, 3: the fastest waves")
        row = QHBoxLayout()
        row.addWidget(self.spread_button)
        row.addWidget(self.fastest_button)
        f.addRow("position p", self.position)
        f.addRow("offset k", self.offset)
        f.addRow("pair i", self.pair)
        f.addRow("pairs shown", self.pairs)
        f.addRow("", row)

        tok = QGroupBox("Training length and token", self)
        f = QFormLayout(tok)
        self.l_train = LogSlider(1, 131072, integer=True, marks=[(512, "512"), (8192, "8k")])
        self.alpha = LogSlider(0.01, 100, marks=[(1.0, "1"), (10.0, "10")])
        self.alpha.setToolTip("Token scale α: x = α·z with z ~ N(0, 1)^d, so ‖x‖ ≈ α√d")
        self.p1 = _slider(0, 255)
        self.p2 = _slider(0, 255)
        self.seed = SpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.new_token = QPushButton("New token")
        row2 = QHBoxLayout()
        row2.addWidget(self.seed, 1)
        row2.addWidget(self.new_token)
        f.addRow("L_train", self.l_train)
        f.addRow("token α", self.alpha)
        f.addRow("p1", self.p1)
        f.addRow("p2", self.p2)
        f.addRow("token seed", row2)

        play = QGroupBox("Play", self)
        f = QFormLayout(play)
        self.play = QPushButton("▶ Play")
        self.play.setCheckable(True)
        self.play.setObjectName("playButton")
        self.play.setToolTip("Animate p (or k); any click, key or wheel stops it")
        self.target = QComboBox()
        self.target.addItem("position p", "position")
        self.target.addItem("offset k", "offset")
        self.speed = LogSlider(0.1, 10000, marks=[(1.0, "1"), (10.0, "10"), (100.0, "100"), (1000.0, "1k")])
        self.speed.setToolTip("Steps per second")
        row3 = QHBoxLayout()
        row3.addWidget(self.play)
        row3.addWidget(self.target, 1)
        f.addRow("animate", row3)
        f.addRow("speed /s", self.speed)

        self.reset = QPushButton("Reset to defaults")
        self.reset.setObjectName("resetButton")
        for box in (enc, pick, tok, play):
            outer.addWidget(box)
        outer.addWidget(self.reset)
        outer.addStretch(1)
        self._connect()

    # -- wiring ------------------------------------------------------------------------------------
    def _connect(self) -> None:
        e = self.edited.emit
        self.n.valueChanged.connect(lambda v: e({"n_positions": int(v)}))
        self.d.valueChanged.connect(lambda v: e({"d_model": int(v)}))
        self.base.valueChanged.connect(lambda v: e({"base": float(v)}))
        self.variant.currentIndexChanged.connect(lambda _: e({"variant": self.variant.currentData()}))
        self.position.valueChanged.connect(lambda v: e({"position": int(v)}))
        self.offset.valueChanged.connect(lambda v: e({"offset": int(v)}))
        self.pair.valueChanged.connect(lambda v: e({"pair": int(v)}))
        self.l_train.valueChanged.connect(lambda v: e({"l_train": int(v)}))
        self.alpha.valueChanged.connect(lambda v: e({"token_scale": float(v)}))
        self.p1.valueChanged.connect(lambda v: e({"p1": int(v)}))
        self.p2.valueChanged.connect(lambda v: e({"p2": int(v)}))
        self.seed.valueChanged.connect(lambda v: e({"token_seed": int(v)}))
        self.new_token.clicked.connect(lambda: e({"token_seed": (self.seed.value() + 1) % (2**31)}))
        self.target.currentIndexChanged.connect(lambda _: e({"play_target": self.target.currentData()}))
        self.speed.valueChanged.connect(lambda v: e({"play_speed": float(v)}))
        self.pairs.editingFinished.connect(self._on_pairs_edited)
        self.spread_button.clicked.connect(lambda: e({"pairs": spread_pairs(self._half)}))
        self.fastest_button.clicked.connect(lambda: e({"pairs": tuple(range(min(4, self._half)))}))
        self.reset.clicked.connect(self.resetRequested)
        self.play.toggled.connect(self.playToggled)
        for s in (self.n, self.d, self.base, self.position, self.offset, self.pair, self.l_train, self.alpha,
                  self.p1, self.p2, self.speed):
            s.sliderPressed.connect(self.dragStarted)
            s.sliderReleased.connect(self.dragFinished)

    def _on_pairs_edited(self) -> None:
        if not self.pairs.isModified():
            return  # focus left a box nobody typed in
        typed = self.pairs.text()
        values = parse_pairs(typed, self._half)
        self.pairs.setModified(False)
        if values is None:  # the reason under the box, the pairs in use shown again
            feedback(self.pairs).refuse(f"pairs: whole numbers 0 … {self._half - 1}, comma-separated, at most 16",
                                        f"pairs shown: “{clip_text(typed, 24)}” refused; kept {self._pairs_text}")
            self.pairs.setText(self._pairs_text)
            return
        feedback(self.pairs).clear()
        self.edited.emit({"pairs": values})

    # -- state -> widgets (the panel calls this with signals blocked) --------------------------------
    def sync(self, st: WavesState) -> None:
        n, half = st.n_positions, st.d_model // 2
        self._half = half
        self.n.setValue(n)
        self.d.setValue(st.d_model)
        self.base.setValue(st.base)
        self.variant.setCurrentIndex(self.variant.findData(st.variant))
        ranged = ((self.position, 0, n - 1, st.position), (self.offset, -(n - 1), n - 1, st.offset),
                  (self.pair, 0, half - 1, st.pair), (self.p1, 0, n - 1, st.p1), (self.p2, 0, n - 1, st.p2))
        for s, lo, hi, v in ranged:
            set_range(s, lo, hi)
            s.setValue(v)
        self._pairs_text = ", ".join(str(i) for i in st.pairs)
        if self.pairs.text() != self._pairs_text and (parse_pairs(self.pairs.text(), half) != tuple(st.pairs)
                                                     or not self.pairs.hasFocus()):
            self.pairs.setText(self._pairs_text)
        self.l_train.setValue(st.l_train)
        self.alpha.setValue(max(st.token_scale, self.alpha.minimum()))
        if st.token_scale < self.alpha.minimum():
            self.alpha.line_edit().setText(f"{st.token_scale:g}")
        self.seed.setValue(st.token_seed)
        self.target.setCurrentIndex(self.target.findData(st.play_target))
        self.speed.setValue(st.play_speed)

    def inputs(self) -> list[QWidget]:
        """Every widget whose signals mean "the user changed a value"."""
        return [self.n, self.d, self.base, self.variant, self.position, self.offset, self.pair, self.pairs,
                self.l_train, self.alpha, self.p1, self.p2, self.seed, self.target, self.speed, self.play]

    def set_playing(self, on: bool) -> None:
        blocked = self.play.blockSignals(True)
        self.play.setChecked(on)
        self.play.setText("■ Stop" if on else "▶ Play")
        self.play.blockSignals(blocked)

    def any_slider_down(self) -> bool:
        sliders = (self.n, self.d, self.base, self.position, self.offset, self.pair, self.l_train, self.alpha,
                   self.p1, self.p2, self.speed)
        return any(s.isSliderDown() for s in sliders)
