"""Text that changes during a drag keeps its place: while a slider is held, a panel's live labels keep their size.

A label whose text changes asks its layout to run again (``QLabel.setText`` calls ``updateGeometry``): during a
drag the readouts in the "What am I looking at?" pane and the formula strip change every frame, and each change
re-laid out the pane, the panel, its dock and the window, word-wrapped rich text included — 5 to 10 ms of every
frame on the 2-core machine of docs/performance.md.  Qt stops that walk at a widget whose minimum and maximum
sizes are equal.  So while a slider of the panel is held (:class:`TextPin`, armed by the grab), a
:class:`LiveLabel` — the labels whose text follows the state: readouts, the formula strip, the views' notes —
takes a fixed size, the one it has, the first time its text changes, and gets back the limits it had when the
slider is let go (a turn of the event loop later: see :meth:`TextPin.unpin`): the layout runs once then, and the
label takes the size its last text needs.  Labels whose text does not change are never touched (pinning every
visible label at the grab re-laid out the whole panel then: a 30–45 ms stall in Schemes).  While pinned, a text
longer than its label is cut at the label's edge until the release; the numbers a drag changes keep their length to
a digit or two.
"""

from __future__ import annotations

import functools
import weakref

import shiboken6
from PySide6.QtCore import QSize, QTimer
from PySide6.QtWidgets import QAbstractSlider, QLabel, QScrollBar, QWidget

from .throttle import Throttle
from .visibility import ShownOrHidden

#: While a slider is held, a live label shows a new text at most this often (ms): numbers that change every
#: frame cannot be read anyway, and each change repaints the label (rich text: about 1 ms a label in software).
EVERY_MS = 100
#: The texts that waited for the interval's end are shown this far apart (ms), one a frame, not all in one turn.
SPREAD_MS = 16

#: The pins armed now (a slider of their panel is held): a live label looks for its panel's among them.
_armed: weakref.WeakSet[TextPin] = weakref.WeakSet()


class LiveLabel(QLabel):
    """A label whose text follows the state: while a slider of its panel is held, it keeps its size from its first
    change of text on, and shows a new text at most every :data:`EVERY_MS` (see the module).

    Subclasses that do more with a text than show it override :meth:`show_text`, not ``setText``."""

    def setText(self, text: str) -> None:  # noqa: N802 - Qt override
        if _armed:
            for pin in list(_armed):
                if pin.covers(self):
                    pin.set_text(self, text)
                    return
        self.show_text(text)

    def show_text(self, text: str) -> None:
        """Show ``text`` now (``setText`` calls this at once, or, during a drag, when its turn comes)."""
        QLabel.setText(self, text)


def _show_text(ref: weakref.ref, text: str) -> None:
    """Show ``text`` in the live label ``ref`` names, if it is still there."""
    label = ref()
    try:
        if label is not None:
            label.show_text(text)
    except RuntimeError:  # deleted with its view while the slider was held
        pass


def _held_down(ref: weakref.ref) -> bool:
    slider = ref()
    try:
        return slider is not None and slider.isVisible() and slider.isSliderDown()
    except RuntimeError:  # deleted
        return False


class TextPin:
    """Armed while a watched slider is held (:meth:`pin`); the live labels under ``root`` whose text changes then
    keep their size (:meth:`hold`) until it is let go (:meth:`unpin`)."""

    def __init__(self, root: QWidget, cores=None) -> None:
        self._root = weakref.ref(root)
        # Told when a slider is held and let go (``hold()``, ``release()``): the compute service's core split.
        self._cores = cores
        self._shown: ShownOrHidden | None = None  # lets go when a watched slider is hidden (see watch)
        self._held: list[tuple[weakref.ref, QSize, QSize]] = []
        self._sliders: list[weakref.ref] = []  # the sliders watched
        # The live labels' texts while armed, by id(label); those that waited shown a frame apart (see Throttle).
        self._every = Throttle(EVERY_MS, spread_ms=SPREAD_MS)
        self._on_release: list = []  # called when the slider is let go (see on_release)

    def on_release(self, call) -> None:
        """Call ``call()`` when the held slider is let go: a view that drew more coarsely while a slider was held
        (see :attr:`pinned`) draws exactly again."""
        self._on_release.append(weakref.WeakMethod(call) if hasattr(call, "__self__") else (lambda: call))

    @property
    def pinned(self) -> bool:
        """True while armed (a watched slider is held)."""
        return self in _armed

    @property
    def holding(self) -> bool:
        """True while a watched slider is down now: a view drawing more coarsely while a slider is held asks this
        (armed by a slider hidden or deleted while held, the pin stays armed until another one is let go)."""
        return self.pinned and any(_held_down(ref) for ref in self._sliders)

    def watch(self, box: QWidget) -> None:
        """Arm while any slider inside ``box`` is held (scroll bars are not sliders here)."""
        if self._shown is None:
            self._shown = ShownOrHidden(box)
            self._shown.happened.connect(self._released)
        for slider in box.findChildren(QAbstractSlider):
            if not isinstance(slider, QScrollBar):
                self._sliders.append(weakref.ref(slider))
                slider.sliderPressed.connect(self.pin)
                slider.sliderReleased.connect(self._released)
                # Qt lets go of a slider disabled while held, not of one hidden (another panel put on stage from the
                # keyboard, a drawer closed): no release would come, and the UI thread would keep its one core.
                slider.installEventFilter(self._shown)

    def _released(self) -> None:
        """Let go when no watched slider is held any more: at a release, or when a watched slider is hidden or
        shown (Qt sends no release for a slider hidden while held; one deleted while held leaves nothing pinned
        past the next release)."""
        if self.pinned and not any(_held_down(ref) for ref in self._sliders):
            self.unpin()

    def pin(self) -> None:
        if self._root() is not None:
            if self not in _armed and self._cores is not None:
                self._cores.hold()
            _armed.add(self)

    def covers(self, label: QWidget) -> bool:
        root = self._root()
        try:
            return root is not None and root.isAncestorOf(label)
        except RuntimeError:  # its panel was deleted while a slider was held: nothing of it is pinned any more
            self._disarm()
            return False

    def _disarm(self) -> bool:
        """No longer armed; True if it was (the cores split for the held slider are given back)."""
        was = self.pinned
        _armed.discard(self)
        if was and self._cores is not None:
            self._cores.release()
        return was

    def set_text(self, label: LiveLabel, text: str) -> None:
        """``label.setText(text)`` while armed: the label keeps its size, and a text that comes less than
        :data:`EVERY_MS` after the pin last showed one waits for the timer (the newest text of each label)."""
        key = id(label)
        if text == self._every.due(key, label.text()):
            return
        self.hold(label)
        self._every.offer(key, text, functools.partial(_show_text, weakref.ref(label)))

    def hold(self, label: QLabel) -> None:
        """Keep ``label`` at its size until :meth:`unpin` (once: a label held, or of fixed size, is left as it is)."""
        low, high = label.minimumSize(), label.maximumSize()
        if low == high:
            return
        self._held.append((weakref.ref(label), low, high))
        label.setFixedSize(label.size())

    def unpin(self) -> None:
        """Let go: the texts that waited are shown, the release's callbacks run, and the labels get their sizes
        back in a turn of the event loop of their own (:meth:`restore`): the layout that follows (the explanations
        pane, 2–6 ms at Waves' large sizes) came in the same batch of posted events as the paint of the plot drawn
        last, one 15–19 ms stall at every release."""
        was = self._disarm()
        self._every.flush()
        root = self._root()
        if self._held and root is not None and shiboken6.isValid(root):
            QTimer.singleShot(0, root, self.restore)
        else:  # nothing held, or the panel gone: at once
            self.restore()
        for ref in self._on_release if was else ():
            call = ref()
            if call is not None:
                call()

    def restore(self) -> None:
        """The held labels get the limits they had (a slider held again meanwhile keeps them held until its
        release)."""
        if self.pinned:
            return
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
