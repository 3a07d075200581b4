"""A slider on a logarithmic scale with a typed-value box and labelled marks (e.g. base 10000, 500000).

A frequency base spans six decades, where a linear slider (:mod:`.sliders`) leaves the interesting
values (10⁴ … 10⁶) in a few pixels.  The slider and its box are those of every slider
(:mod:`.value_slider`); only the mapping and the marks are the log slider's own.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QRect, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QHBoxLayout, QSlider, QStyle, QStyleOptionSlider, QVBoxLayout, QWidget

from .value_slider import ValueSlider


def format_value(value: float, integer: bool = False) -> str:
    """Compact, exact-enough text: integers in full, floats with up to 6 significant digits."""
    if integer or (value == int(value) and abs(value) < 1e9):  # 10000000, not 1e+07, in the base box
        return str(int(round(value)))
    if value != 0 and (abs(value) >= 1e7 or abs(value) < 1e-3):
        return f"{value:.4g}"
    return f"{value:.6g}"


def short_label(value: float) -> str:
    """Mark label: 500000 -> '500k', 10000 -> '10k', 131072 -> '128k' (a power of two: "128K context")."""
    v = float(value)
    if v >= 1024 and v == int(v) and int(v) & (int(v) - 1) == 0:
        return f"{v / 1024:g}k"
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if v >= div and v % div == 0:
            return f"{v / div:g}{suffix}"
    return f"{v:g}"


class MarkedSlider(QSlider):
    """A horizontal QSlider that knows the pixel x of any of its positions (for the mark ruler)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)

    def mark_x(self, pos: int) -> int:
        """Pixel x (in this slider) of the handle's centre at position ``pos``."""
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        handle = self.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                             QStyle.SubControl.SC_SliderHandle, self)
        span = self.width() - handle.width()
        return handle.width() // 2 + QStyle.sliderPositionFromValue(self.minimum(), self.maximum(), pos, span)


class MarkRuler(QWidget):
    """Labelled ticks under a :class:`MarkedSlider`; clicking a label jumps the slider there."""

    markClicked = Signal(int)

    def __init__(self, slider: MarkedSlider, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._slider = slider
        self._marks: list[tuple[int, str]] = []
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def set_marks(self, marks: list[tuple[int, str]]) -> None:
        self._marks = list(marks)
        self.setVisible(bool(marks))
        self.updateGeometry()
        self.update()

    def marks(self) -> list[tuple[int, str]]:
        return list(self._marks)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(60, QFontMetrics(self.font()).height() + 5)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.sizeHint()

    def label_rect(self, pos: int, text: str) -> QRect:
        """Where the label of the mark at slider position ``pos`` is drawn (in this widget)."""
        fm = QFontMetrics(self.font())
        x = self._slider.mark_x(pos) + self._slider.x() - self.x()
        w = fm.horizontalAdvance(text) + 2
        left = min(max(0, x - w // 2), max(0, self.width() - w))
        return QRect(left, 4, w, self.height() - 4)

    def shown_labels(self) -> list[tuple[int, str]]:
        """The marks whose labels are drawn: a label that would touch the one before it is left out
        (its tick stays), so "8k" and "128k" never print over each other on a narrow slider."""
        shown: list[tuple[int, str]] = []
        last = None
        for pos, text in self._marks:
            r = self.label_rect(pos, text)
            if last is None or r.left() >= last.right() + 4:
                shown.append((pos, text))
                last = r
        return shown

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        for pos, _text in self._marks:
            x = self._slider.mark_x(pos) + self._slider.x() - self.x()
            painter.drawLine(x, 0, x, 3)
        for pos, text in self.shown_labels():
            painter.drawText(self.label_rect(pos, text), Qt.AlignmentFlag.AlignCenter, text)
        painter.end()

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        for pos, text in self.shown_labels():
            if self.label_rect(pos, text).adjusted(-3, -4, 3, 0).contains(event.position().toPoint()):
                self.markClicked.emit(pos)
                event.accept()
                return
        super().mousePressEvent(event)


class LogSlider(ValueSlider):
    """A value on a log scale: a slider (with marks) plus a box where a value can be typed.

    Signals
    -------
    valueChanged(float)
        The value changed (dragging, typing, keys, a mark clicked, or :meth:`setValue`).
    sliderPressed(), sliderReleased()
        The user grabbed / let go of the handle (for preview-then-refine rendering).
    """

    valueChanged = Signal(float)

    def __init__(self, minimum: float, maximum: float, *, value: float | None = None, marks=(),
                 integer: bool = False, even: bool = False, steps: int = 1200, snap_steps: int = 8,
                 digits: int = 3, parent: QWidget | None = None) -> None:
        marked = MarkedSlider()
        super().__init__(marked, parent=parent)
        self._marked = marked
        if not 0 < minimum < maximum:
            raise ValueError("a log slider needs 0 < minimum < maximum")
        self._lo, self._hi = float(minimum), float(maximum)
        self._integer, self._even = integer or even, even
        self._steps, self._snap, self._digits = int(steps), int(snap_steps), int(digits)
        self._marks: list[float] = []
        self._value = self._round(value if value is not None else minimum)
        with QSignalBlocker(self._slider):
            self._slider.setRange(0, self._steps)
            self._slider.setPageStep(max(1, self._steps // 20))
            self._slider.setSingleStep(1)
        self._slider.setObjectName("logSliderHandle")
        box = self.line_edit()
        box.setObjectName("logSliderBox")
        self._fit_box()
        self._tip_box()
        self._ruler = MarkRuler(marked, self)
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self._slider)
        column.addWidget(self._ruler)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        lay.addLayout(column, 1)
        lay.addWidget(box, 0, Qt.AlignmentFlag.AlignTop)
        pairs = [m if isinstance(m, tuple) else (m, short_label(m)) for m in marks]
        self._marks = [float(m) for m, _ in pairs]
        self._ruler.set_marks([(self._to_pos(m), text) for m, text in pairs])
        self._sync_widgets()
        self._ruler.markClicked.connect(lambda pos: self.setValue(self._from_pos(pos, snap=True)))

    # -- public API ------------------------------------------------------------------------------
    def slider(self) -> MarkedSlider:
        """The QSlider inside (positions 0 … steps on the log scale)."""
        return self._marked

    def ruler(self) -> MarkRuler:
        return self._ruler

    def marks(self) -> list[float]:
        return list(self._marks)

    def minimum(self) -> float:
        return self._lo

    def maximum(self) -> float:
        return self._hi

    def position_of(self, value: float) -> int:
        """Slider position of ``value`` (for tests and the benchmark)."""
        return self._to_pos(value)

    # -- mapping -----------------------------------------------------------------------------------
    def _to_pos(self, value: float) -> int:
        v = min(max(float(value), self._lo), self._hi)
        t = (math.log10(v) - math.log10(self._lo)) / (math.log10(self._hi) - math.log10(self._lo))
        return int(round(t * self._steps))

    def _from_pos(self, pos: int, snap: bool = True) -> float:
        if snap:
            for m in self._marks:
                if abs(self._to_pos(m) - pos) <= self._snap:
                    return m
        if pos <= 0:
            return self._lo
        if pos >= self._steps:
            return self._hi
        t = pos / self._steps
        v = 10 ** (math.log10(self._lo) + t * (math.log10(self._hi) - math.log10(self._lo)))
        if not self._integer:
            # Three significant digits while dragging: 12600 reads better than 12589.254.
            v = float(f"{v:.{self._digits}g}")
        return v

    def _round(self, value: float) -> float:
        v = min(max(float(value), self._lo), self._hi)
        if self._even:
            v = max(2.0, 2.0 * round(v / 2.0))
            if v > self._hi:
                v -= 2.0
        elif self._integer:
            v = float(round(v))
        return v

    def _text(self, value: float) -> str:
        return format_value(value, self._integer)

    def _box_samples(self) -> list[str]:
        return ["0" * 7]  # and a digit more: 10000000 in full, the same width for every log slider
