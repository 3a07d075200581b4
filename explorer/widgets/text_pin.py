"""Text that changes during a drag keeps its place: while a slider is held, a panel's live labels keep their size.

A label whose text changes asks its layout to run again (``QLabel.setText`` calls ``updateGeometry``): during a
drag the readouts in the "What am I looking at?" pane and the formula strip change every frame, and each change
re-laid out the pane, the panel, its dock and the window, word-wrapped rich text included — 5 to 10 ms of every
frame on the 2-core machine of docs/performance.md.  Qt stops that walk at a widget whose minimum and maximum
sizes are equal.  So while a slider of the panel is held (:class:`TextPin`, armed by the grab), a
:class:`LiveLabel` — the labels whose text follows the state: readouts, the formula strip, the views' notes —
takes a fixed size, the one it has, the first time its text changes, and gets back the limits it had when the
slider is let go: the layout runs once then, and the label takes the size its last text needs.  Labels whose
text does not change are never touched (pinning every visible label at the grab re-laid out the whole panel
then: a 30–45 ms stall in Schemes).  While pinned, a text longer than its label is cut at the label's edge
until the release; the numbers a drag changes keep their length to a digit or two.
"""

from __future__ import annotations

import weakref

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QAbstractSlider, QLabel, QScrollBar, QWidget

#: The pins armed now (a slider of their panel is held): a live label looks for its panel's among them.
_armed: weakref.WeakSet[TextPin] = weakref.WeakSet()


class LiveLabel(QLabel):
    """A label whose text follows the state: while a slider of its panel is held, it keeps its size from its first
    change of text on (see the module)."""

    def setText(self, text: str) -> None:  # noqa: N802 - Qt override
        if _armed and text != self.text():
            for pin in list(_armed):
                if pin.covers(self):
                    pin.hold(self)
                    break
        super().setText(text)


def _held_down(ref: weakref.ref) -> bool:
    slider = ref()
    try:
        return slider is not None and slider.isVisible() and slider.isSliderDown()
    except RuntimeError:  # deleted
        return False


class TextPin:
    """Armed while a watched slider is held (:meth:`pin`); the live labels under ``root`` whose text changes then
    keep their size (:meth:`hold`) until it is let go (:meth:`unpin`)."""

    def __init__(self, root: QWidget) -> None:
        self._root = weakref.ref(root)
        self._held: list[tuple[weakref.ref, QSize, QSize]] = []
        self._sliders: list[weakref.ref] = []  # the sliders watched

    @property
    def pinned(self) -> bool:
        """True while armed (a watched slider is held)."""
        return self in _armed

    def watch(self, box: QWidget) -> None:
        """Arm while any slider inside ``box`` is held (scroll bars are not sliders here)."""
        for slider in box.findChildren(QAbstractSlider):
            if not isinstance(slider, QScrollBar):
                self._sliders.append(weakref.ref(slider))
                slider.sliderPressed.connect(self.pin)
                slider.sliderReleased.connect(self._released)

    def _released(self) -> None:
        """Let go when no watched slider is held any more (a release that never came, from a slider hidden or
        deleted while held, leaves nothing pinned past the next release)."""
        if not any(_held_down(ref) for ref in self._sliders):
            self.unpin()

    def pin(self) -> None:
        if self._root() is not None:
            _armed.add(self)

    def covers(self, label: QWidget) -> bool:
        root = self._root()
        return root is not None and root.isAncestorOf(label)

    def hold(self, label: QLabel) -> None:
        """Keep ``label`` at its size until :meth:`unpin` (once: a label held, or of fixed size, is left as it is)."""
        low, high = label.minimumSize(), label.maximumSize()
        if low == high:
            return
        self._held.append((weakref.ref(label), low, high))
        label.setFixedSize(label.size())

    def unpin(self) -> None:
        _armed.discard(self)
        held, self._held = self._held, []
        for ref, low, high in held:
            label = ref()
            if label is None:
                continue
            try:
                label.setMinimumSize(low)
                label.setMaximumSize(high)
                # A label keeps the size hints it worked out while pinned (a wrapped text's within the pinned
                # width: a strip as wide as the panel then asked for the panel's width as its minimum); setting
                # its indent again makes it work them out anew.
                label.setIndent(label.indent())
            except RuntimeError:  # deleted with its view while the slider was held
                pass
