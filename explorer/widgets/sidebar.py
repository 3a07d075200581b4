"""The two side columns every panel shares: the control sidebar and the "What am I looking at?" pane.

Both scroll vertically, so their contents never set the window's minimum height (a projector at 1280×720 in
presenter mode must still hold the whole window), and the window hides them all at once (View menu: Ctrl+B for
the controls, Ctrl+I for the explanations) so a lecture can give the plots the whole screen.
"""

from __future__ import annotations

import weakref

from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from .visibility import ShownOrHidden

#: Object names the window looks for (and the layout test).
SIDEBAR_NAME = "controlSidebar"
EXPLAIN_NAME = "explainPane"


class Sidebar(QScrollArea):
    """A panel's controls in a column that scrolls vertically and is exactly as wide as they need.

    The width follows the contents (it widens when presenter mode or text zoom enlarges the fonts), so
    no value box is squeezed; the height is whatever the panel has, the rest scrolls.
    """

    def __init__(self, box: QWidget, parent: QWidget | None = None, *, name: str = "") -> None:
        super().__init__(parent)
        self.setObjectName(name or SIDEBAR_NAME)
        self.setProperty("sidebar", True)
        self.setWidget(box)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Ignored)
        box.installEventFilter(self)
        self._refit = QTimer(self, singleShot=True, interval=0)
        self._refit.timeout.connect(self._fit_boxes)
        self._fit()

    def _fit_boxes(self) -> None:
        """After a font change (presenter mode, zoom), once the value boxes have re-measured themselves
        (:class:`~explorer.widgets.value_slider.ValueSlider`): as wide as they now need."""
        self._fit()

    def _fit(self) -> None:
        box = self.widget()
        if box is None:  # no box yet: nothing to fit
            return
        want = max(box.sizeHint().width(), box.minimumSizeHint().width(), box.minimumWidth())
        self.setFixedWidth(want + self.verticalScrollBar().sizeHint().width() + 2)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if obj is self.widget() and event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._refit.start()
        if obj is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self._fit()
        return False


class ExplainPane(QScrollArea):
    """"What am I looking at?": the longer, live explanations of a panel's views, beside the plots.

    :meth:`adopt` moves an existing label here (the same object, so code that sets its text keeps
    working); an entry is shown only while the view it explains is, e.g. the tab in view.
    """

    def __init__(self, root: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._entries: list[tuple[weakref.ref, weakref.ref | None]] = []
        # An entry follows its view as the view is shown or hidden (a tab chosen by hand, or by a state shown with
        # the tab widget's signals blocked: undo, a preset), once the showing is over.
        self._refresh_timer = QTimer(self, singleShot=True, interval=0)
        self._refresh_timer.timeout.connect(self.refresh)
        self._watch = ShownOrHidden(self)
        self._watch.happened.connect(self._refresh_timer.start)
        self._root = weakref.ref(root)  # visibility of an entry's view is judged within this widget (the panel)
        self.setObjectName(EXPLAIN_NAME)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        self.setMaximumWidth(420)
        inner = QWidget()
        inner.setObjectName("explainContents")
        self._col = QVBoxLayout(inner)
        self._col.setContentsMargins(6, 4, 6, 4)
        heading = QLabel("<b>What am I looking at?</b>", inner)
        heading.setObjectName("explainHeading")
        self._col.addWidget(heading)
        self._col.addStretch(1)
        self.setWidget(inner)

    #: The narrowest the pane is worth showing at; below it the panel folds it away (it never sets the
    #: window's minimum width: a narrow screen keeps the plots).
    MIN_WIDTH = 220

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(0, 0)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(320, 200)

    def adopt(self, label: QLabel, owner: QWidget | None = None) -> QLabel:
        """Move ``label`` into the pane (word-wrapped); shown while ``owner`` is visible in its panel."""
        label.setWordWrap(True)
        label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        label.setMinimumWidth(0)
        self._col.insertWidget(self._col.count() - 1, label)
        # Only weak references from here: strong ones to the views and labels made cycles through Qt
        # wrappers whose collection crashed the interpreter (seen in the garbage collector, in the tests).
        self._entries.append((weakref.ref(label), None if owner is None else weakref.ref(owner)))
        if owner is not None:
            owner.installEventFilter(self._watch)
        return label

    def labels(self) -> list[QLabel]:
        return [lab for lab in (ref() for ref, _ in self._entries) if lab is not None]

    def refresh(self) -> None:
        """Show the entries whose view is in view (call when a tab changes)."""
        root = self._root()
        for label_ref, ref in self._entries:
            label, owner = label_ref(), None if ref is None else ref()
            if label is None:
                continue
            label.setVisible(owner is None or root is None or owner.isVisibleTo(root))
