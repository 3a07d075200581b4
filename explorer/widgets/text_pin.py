"""Text that changes during a drag keeps its place: while a slider is held, a panel's labels keep their size.

A label whose text changes asks its layout to run again (``QLabel.setText`` calls ``updateGeometry``): during a
drag the readouts in the "What am I looking at?" pane and the formula strip change every frame, and each change
re-laid out the pane, the panel, its dock and the window, word-wrapped rich text included — 5 to 10 ms of every
frame on the 2-core machine of docs/performance.md.  Qt stops that walk at a widget whose minimum and maximum
sizes are equal, so :class:`TextPin` gives each visible label of the panel a fixed size, the one it has, when a
slider is grabbed, and gives back the limits it had when the slider is let go: the layout runs once then, and the
labels take the size their last text needs.  While pinned, a text longer than its label would be cut at the
label's edge until the release; the numbers a drag changes keep their length to a digit or two.
"""

from __future__ import annotations

import weakref

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QAbstractSlider, QLabel, QScrollBar, QWidget


def _held_down(ref: weakref.ref) -> bool:
    slider = ref()
    try:
        return slider is not None and slider.isVisible() and slider.isSliderDown()
    except RuntimeError:  # deleted
        return False


class TextPin:
    """Pins the visible labels under ``root`` to their size (:meth:`pin`) and lets them go (:meth:`unpin`)."""

    def __init__(self, root: QWidget) -> None:
        self._root = weakref.ref(root)
        self._held: list[tuple[weakref.ref, QSize, QSize]] = []
        self._sliders: list[weakref.ref] = []  # the sliders watched

    @property
    def pinned(self) -> bool:
        return bool(self._held)

    def watch(self, box: QWidget) -> None:
        """Pin while any slider inside ``box`` is held (scroll bars are not sliders here)."""
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
        root = self._root()
        if root is None or self._held:
            return
        for label in root.findChildren(QLabel):
            low, high = label.minimumSize(), label.maximumSize()
            if label.isVisible() and low != high:
                self._held.append((weakref.ref(label), low, high))
                label.setFixedSize(label.size())

    def unpin(self) -> None:
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
