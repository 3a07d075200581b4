"""Linear sliders: a float slider, and labelled int and float sliders with a box where a value is typed.

Each is a QWidget holding a real QSlider (and a box): the slider drags, steps with the arrow, Page,
Home and End keys, takes focus and the theme's style by itself, and emits the value in its own type.
A float value maps to the slider's integer positions one per ``10**-decimals`` (the step the box
shows), so a drag moves in the box's last digit and :meth:`setSingleStep` / :meth:`setPageStep` are in
values.  A value set by the program is kept exactly, a typed one has the box's digits, and a drag or a
key lands on the grid.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QSlider, QWidget

from .value_slider import ValueSlider

#: At most this many positions either side of zero (a QSlider's positions are 32-bit ints).
_MAX_POSITIONS = 10**9


class _LinearSlider(ValueSlider):
    """Values ``minimum … maximum`` on a horizontal QSlider, one position per ``10**-decimals``."""

    _has_box = False

    def __init__(self, parent: QWidget | None = None) -> None:
        slider = QSlider(Qt.Orientation.Horizontal)
        super().__init__(slider, box=self._has_box, parent=parent)
        slider.setObjectName("valueSliderHandle")
        # QSlider's own defaults: 0 … 99, steps of 1 and 10.
        self._lo, self._hi, self._value = 0.0, 99.0, 0.0
        self._single, self._page = 1.0, 10.0
        self._decimals = 0 if self._integer else 2
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        lay.addWidget(slider, 1)
        if self._box is not None:
            self._box.setObjectName("valueSliderBox")
            lay.addWidget(self._box)
        self._configure()

    # -- the range, the steps, the digits ------------------------------------------------------------
    def setRange(self, minimum: float, maximum: float) -> None:  # noqa: N802 - mirrors QSlider
        """Values from ``minimum`` to ``maximum`` (a maximum below the minimum becomes the minimum)."""
        lo, hi = float(minimum), float(maximum)
        if self._integer:
            lo, hi = float(round(lo)), float(round(hi))
        self._lo, self._hi = lo, max(lo, hi)
        self._configure()

    def setMinimum(self, minimum: float) -> None:  # noqa: N802 - mirrors QSlider
        self.setRange(minimum, max(minimum, self._hi))

    def setMaximum(self, maximum: float) -> None:  # noqa: N802 - mirrors QSlider
        self.setRange(min(self._lo, maximum), maximum)

    def singleStep(self) -> float:  # noqa: N802 - mirrors QSlider
        return int(self._single) if self._integer else self._single

    def setSingleStep(self, step: float) -> None:  # noqa: N802 - mirrors QSlider
        """What an arrow key adds (in values)."""
        self._single = abs(float(step))
        self._configure()

    def pageStep(self) -> float:  # noqa: N802 - mirrors QSlider
        return int(self._page) if self._integer else self._page

    def setPageStep(self, step: float) -> None:  # noqa: N802 - mirrors QSlider
        """What Page Up / Page Down add (in values)."""
        self._page = abs(float(step))
        self._configure()

    def decimals(self) -> int:
        return self._decimals

    def _configure(self) -> None:
        """Put range, steps and value on the QSlider and size the box; emits valueChanged if the range
        moved the value."""
        s = self._slider
        with QSignalBlocker(s):
            s.setRange(self._to_pos(self._lo), self._to_pos(self._hi))
            s.setSingleStep(max(1, round(self._single / self._quantum())))
            s.setPageStep(max(1, round(self._page / self._quantum())))
        self._fit_box()
        self._tip_box()
        self.setValue(self._value)  # clamped into the new range

    # -- the mapping ---------------------------------------------------------------------------------------
    def _quantum(self) -> float:
        """The value of one slider position: the box's last digit, coarser only for huge ranges."""
        biggest = max(abs(self._lo), abs(self._hi))
        return max(10.0 ** -self._decimals, biggest / _MAX_POSITIONS)

    def _to_pos(self, value: float) -> int:
        return int(round(value / self._quantum()))

    def _from_pos(self, pos: int) -> float:
        q = self._quantum()
        return round(pos * q, self._decimals) if q == 10.0 ** -self._decimals else pos * q

    def _round(self, value: float) -> float:
        v = min(max(float(value), self._lo), self._hi)
        return float(round(v)) if self._integer else v

    def _text(self, value: float) -> str:
        if self._integer:
            return str(int(round(value)))
        text = f"{value:.{self._decimals}f}"
        return text.lstrip("-") if float(text) == 0 else text  # "0.00", not "-0.00"

    def _typed(self, value: float) -> float:
        # A typed value has the digits the box shows (0.123 with two decimals is 0.12, and named).
        return value if self._integer else round(value, self._decimals)

    def _typed_integer(self) -> bool:
        return self._integer or self._decimals == 0


class FloatSlider(_LinearSlider):
    """A float slider (no box): ``setRange``, ``setSingleStep``, ``setPageStep``, ``setDecimals`` in values.

    Signals: ``valueChanged(float)``, ``sliderPressed()``, ``sliderReleased()``.
    """

    valueChanged = Signal(float)

    def setDecimals(self, decimals: int) -> None:  # noqa: N802 - mirrors QDoubleSpinBox
        """The digits after the point: the box shows them and a drag moves in the last one."""
        self._decimals = max(0, min(int(decimals), 9))
        self._configure()


class LabeledFloatSlider(FloatSlider):
    """A float slider with a box where the value is shown and can be typed (two decimals unless set)."""

    _has_box = True


class LabeledSlider(_LinearSlider):
    """An int slider with a box where the value is shown and can be typed.

    Signals: ``valueChanged(int)``, ``sliderPressed()``, ``sliderReleased()``.
    """

    valueChanged = Signal(int)
    _integer = True
    _has_box = True
