"""A value on a real QSlider, with a box where it can be typed: what every slider of the app shares.

The widget holds the value itself (exact, as set or typed); the QSlider inside shows the nearest of its
integer positions and does what a slider does by itself: dragging, the arrow, Page, Home and End keys,
focus, the theme's style sheet.  A subclass says how values map to positions (linear in
:mod:`.sliders`, logarithmic in :mod:`.log_slider`) and how a value is written.

The box reads typed text the way every value box of the app does (:mod:`.value_box`): any text can be
typed, Enter answers; a number out of range is clamped and named in the status bar, anything else gets
a red outline and a reason and the value in use is shown again; Ctrl+Z in the box reaches the app's undo.

Programmatic changes (:meth:`ValueSlider.setValue`, a range) update the slider and the box directly,
never through their signals, so a panel may block every child's signals while it shows its state.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLineEdit, QSlider, QWidget

from .value_box import AnyText, check_number, name_adjustment, route_undo


class ValueSlider(QWidget):
    """A value shown on a QSlider (and, with ``box``, in a box where it can be typed).

    Subclasses declare ``valueChanged`` (``Signal(float)`` or ``Signal(int)``), set ``_lo``, ``_hi``
    and ``_value``, and implement :meth:`_to_pos`, :meth:`_from_pos`, :meth:`_round` and :meth:`_text`.

    Signals
    -------
    valueChanged(float or int)
        The value changed (dragging, keys, typing, or :meth:`setValue`).
    sliderPressed(), sliderReleased()
        The handle was grabbed / let go (also by :meth:`setSliderDown`).
    """

    valueChanged: Signal  # declared by each subclass with its value type
    sliderPressed = Signal()
    sliderReleased = Signal()

    #: Values are whole numbers (value(), minimum() and maximum() give ints; typed fractions are refused).
    _integer = False

    def __init__(self, slider: QSlider, *, box: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lo, self._hi, self._value = 0.0, 1.0, 0.0
        self._slider = slider
        slider.setParent(self)
        self.setFocusProxy(slider)  # focus (a click on the label, Tab) lands on the slider, whose keys step
        self._box: QLineEdit | None = None
        if box:
            self._box = QLineEdit(self)
            # Any text may be typed and Enter always answers: a validator that refused keys would lose them
            # silently ("-" where only positive values fit, "1,000", "0,5").
            self._box.setValidator(AnyText(self._box))
            self._box.setAlignment(Qt.AlignmentFlag.AlignRight)
            route_undo(self._box)
            self._box.editingFinished.connect(self._on_box_edited)
        slider.valueChanged.connect(self._on_slider_value_changed)
        slider.sliderPressed.connect(self.sliderPressed)
        slider.sliderReleased.connect(self.sliderReleased)

    # -- what a subclass says ------------------------------------------------------------------------
    def _to_pos(self, value: float) -> int:
        """The slider position nearest ``value``."""
        raise NotImplementedError

    def _from_pos(self, pos: int) -> float:
        """The value at slider position ``pos``."""
        raise NotImplementedError

    def _round(self, value: float) -> float:
        """``value`` clamped to the range (and rounded as the slider's values are)."""
        raise NotImplementedError

    def _text(self, value: float) -> str:
        """``value`` as the box shows it."""
        raise NotImplementedError

    def _box_samples(self) -> list[str]:
        """The widest texts the box must show in full (it is sized for them)."""
        return [self._text(self._lo), self._text(self._hi)]

    def _typed(self, value: float) -> float:
        """The value a typed number (already in range) becomes; the box names any difference."""
        return value

    def _typed_integer(self) -> bool:
        """Typed fractions are refused (not rounded silently)."""
        return self._integer

    # -- public API ------------------------------------------------------------------------------------
    def value(self) -> float:
        return int(round(self._value)) if self._integer else self._value

    def setValue(self, value: float) -> None:  # noqa: N802 - mirrors QSlider
        """Set the value exactly (clamped to the range; rounded where the slider's values are)."""
        v = self._round(value)
        changed = v != self._value
        self._value = v
        self._sync_widgets()
        if changed:
            self.valueChanged.emit(self.value())

    def minimum(self) -> float:
        return int(self._lo) if self._integer else self._lo

    def maximum(self) -> float:
        return int(self._hi) if self._integer else self._hi

    def isSliderDown(self) -> bool:  # noqa: N802 - mirrors QSlider
        return self._slider.isSliderDown()

    def setSliderDown(self, down: bool) -> None:  # noqa: N802 - mirrors QSlider
        """Grab or let go of the handle, as a drag does (emits sliderPressed / sliderReleased)."""
        self._slider.setSliderDown(down)

    def slider(self) -> QSlider:
        """The QSlider inside (its integer positions; see the subclass for the mapping)."""
        return self._slider

    def line_edit(self) -> QLineEdit:
        """The box where a value is typed."""
        if self._box is None:
            raise AttributeError(f"{type(self).__name__} has no value box")
        return self._box

    # -- keeping the parts in step -------------------------------------------------------------------
    def _sync_widgets(self) -> None:
        with QSignalBlocker(self._slider):
            self._slider.setValue(self._to_pos(self._value))
        text = self._text(self._value)
        box = self._box
        if box is not None and (box.text() != text or box.isModified()):  # the same text again repaints the box
            box.setText(text)

    def _fit_box(self) -> None:
        """Make the box as wide as its widest value in its current font (and a digit more)."""
        if self._box is None:
            return
        fm = QFontMetrics(self._box.font())
        self._box.setFixedWidth(max(fm.horizontalAdvance(t) for t in self._box_samples())
                                + fm.horizontalAdvance("0") + 12)

    def _tip_box(self) -> None:
        if self._box is not None:
            self._box.setToolTip(f"type a value from {self._text(self._lo)} to {self._text(self._hi)} "
                                 "and press Enter")

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        # Presenter mode and text zoom change the font: the box re-measures, so "1.00" never shows as ".00".
        if event.type() == QEvent.Type.FontChange:
            self._fit_box()
        super().changeEvent(event)

    # -- handlers ----------------------------------------------------------------------------------------
    def _on_slider_value_changed(self, pos: int) -> None:
        v = self._round(self._from_pos(pos))
        if v != self._value:
            self._value = v
            if self._box is not None:
                self._box.setText(self._text(v))
            self.valueChanged.emit(self.value())

    def _on_box_edited(self) -> None:
        box = self._box
        if box is None or not box.isModified():
            return  # focus left a box nobody typed in
        v, ok = check_number(box, box.text(), float(self._lo), float(self._hi), integer=self._typed_integer())
        if v is None:
            self._sync_widgets()  # not a number: the value in use again
            return
        self.setValue(self._typed(v))
        self._sync_widgets()
        if ok:
            name_adjustment(box, v, float(self.value()))  # e.g. d_model 129 -> 130 (even), α 0.123 -> 0.12
