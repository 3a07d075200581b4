"""A work-around for a superqt 0.9 bug that reaches users (imported by :mod:`explorer.panels.base`).

The value box of superqt's labelled sliders (``SliderLabel``, in ``QLabeledSlider`` and
``QLabeledDoubleSlider``) reads the typed text with ``float()``, but its ``QDoubleValidator``
accepts numbers written the locale's way: "1,000" (a group separator), or "0,5" where the decimal
mark is a comma (German, French, …).  Such text passes the validator, then ``float()`` raises
ValueError inside the ``editingFinished`` slot: an exception escapes to the event loop and the typed
value is lost (found by the GUI monkey, tests/test_reliability_monkey.py).

Here the text is read the way the validator accepted it (its locale, then the C locale); text that
is still not a number puts the shown value back, and a number too large for a float is clamped to
the slider's range like any other out-of-range value.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QLocale


def _editing_finished(self) -> None:
    self._silent_clear_focus()
    text = self.text()
    validator = self.validator()
    value, ok = (validator.locale() if validator is not None else QLocale()).toDouble(text)
    if not ok:
        value, ok = QLocale.c().toDouble(text)
    if not ok and math.isinf(value):  # "1e400": a number, just past float; clamped below
        ok = True
    if not ok or math.isnan(value):
        self.updateText()  # not a number: show the value again
        return
    self.setValue(value)
    self.valueEdited.emit(self.value())


def apply() -> None:
    """Patch ``SliderLabel`` once (a superqt without it, or with another layout, is left alone)."""
    try:
        from superqt.sliders._labeled import SliderLabel
    except ImportError:
        return
    if getattr(SliderLabel, "_pe_explorer_fixed", False) or not hasattr(SliderLabel, "_editing_finished"):
        return
    SliderLabel._editing_finished = _editing_finished
    SliderLabel._pe_explorer_fixed = True


apply()
