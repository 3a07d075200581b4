"""Typed values in superqt 0.9's labelled sliders that answer (imported by :mod:`explorer.panels.base`).

The value box of superqt's labelled sliders (``SliderLabel``, in ``QLabeledSlider`` and
``QLabeledDoubleSlider``) reads the typed text with ``float()``, but its ``QDoubleValidator``
accepts numbers written the locale's way: "1,000" (a group separator), or "0,5" where the decimal
mark is a comma (German, French, …).  Such text passes the validator, then ``float()`` raises
ValueError inside the ``editingFinished`` slot: an exception escapes to the event loop and the typed
value is lost (found by the GUI monkey, tests/test_reliability_monkey.py).  The validator also eats
keys silently ("-" where only positive values fit, letters) and swallows Enter on "1e400".

Here the box reads text like every other value box (:mod:`explorer.widgets.value_box`): any text can
be typed; a number out of range is clamped and named in the status bar, anything else gets a red
outline and a reason and the value in use is shown again; Ctrl+Z in the box reaches the app's undo.
"""

from __future__ import annotations

from .value_box import AnyText, check_number, name_adjustment, route_undo


def _editing_finished(self) -> None:
    self._silent_clear_focus()
    if not self.isModified():
        return  # focus left a box nobody typed in
    integer = self.decimals() == 0
    value, ok = check_number(self, self.text(), float(self.minimum()), float(self.maximum()), integer=integer)
    if value is None:
        self.updateText()  # not a number: show the value in use again
        return
    self.setValue(value)
    self.valueEdited.emit(self.value())
    self.updateText()
    if ok:
        name_adjustment(self, value, float(self.value()))


def _wrap_init(init):
    def __init__(self, *args, **kwargs) -> None:  # noqa: N807 - wraps superqt's constructor
        init(self, *args, **kwargs)
        self.setValidator(AnyText(self))
        route_undo(self)

    return __init__


def apply() -> None:
    """Patch ``SliderLabel`` once (a superqt without it, or with another layout, is left alone)."""
    from . import superqt_lite  # noqa: F401 - superqt's package __init__ stays unrun (see there)

    try:
        from superqt.sliders._labeled import SliderLabel
    except ImportError:
        return
    if getattr(SliderLabel, "_pe_explorer_fixed", False) or not hasattr(SliderLabel, "_editing_finished"):
        return
    SliderLabel._editing_finished = _editing_finished
    SliderLabel.__init__ = _wrap_init(SliderLabel.__init__)
    SliderLabel._pe_explorer_fixed = True


apply()
