"""One plot on the whole stage: double-click a plot (or press F over it), and it fills its panel (below what the
panel keeps in sight, :func:`_stage_rect`); Esc brings the panel back.  A scene or a lesson step can put a plot in
focus too (a preset's ``layout.focus``).

The plot (or the card that holds it with its header and readouts: the nearest ancestor whose Qt property
``focusUnit`` is true) is moved into a frame that covers the panel, and put back in the very place it came from
when the focus ends; a placeholder keeps that place.  What is in focus is the stage's
(:meth:`~explorer.shell.stage.Stage.set_focus_plot`), so export and slides act on it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QFrame, QLabel, QSplitter, QStackedWidget, QVBoxLayout, QWidget


def focus_unit(plot: QWidget, panel: QWidget) -> QWidget:
    """What moves with ``plot``: its nearest ancestor marked ``focusUnit`` (below ``panel``), else the plot."""
    w = plot.parentWidget()
    while w is not None and w is not panel:
        if w.property("focusUnit"):
            return w
        w = w.parentWidget()
    return plot


def _stage_rect(panel: QWidget) -> QRect:
    """Where a plot in focus goes: the whole panel below what the panel keeps in sight above it (widgets whose
    Qt property ``aboveFocus`` is true: Token swap's sentence, swap and verdict stay over its plot)."""
    rect = panel.rect()
    kept = [w for w in panel.findChildren(QWidget) if w.property("aboveFocus") and w.isVisible()]
    top = max((w.mapTo(panel, QPoint(0, w.height())).y() for w in kept), default=0)
    return rect.adjusted(0, min(top, rect.height() // 2), 0, 0)


class _Place:
    """Where a widget was taken from, held by a placeholder until it is put back."""

    def __init__(self, widget: QWidget) -> None:
        self.widget = widget
        parent = widget.parentWidget()
        self.parent = parent
        self.placeholder = QWidget(parent)
        self.placeholder.setObjectName("focusPlaceholder")
        self.placeholder.setSizePolicy(widget.sizePolicy())
        if isinstance(parent, QSplitter):
            self.index = parent.indexOf(widget)
            parent.replaceWidget(self.index, self.placeholder)
        elif isinstance(parent, QStackedWidget):
            self.index = parent.indexOf(widget)
            parent.insertWidget(self.index, self.placeholder)
            parent.removeWidget(widget)
            parent.setCurrentIndex(self.index)
        else:
            self.index = -1
            layout = parent.layout() if parent is not None else None
            if layout is not None:
                item = layout.replaceWidget(widget, self.placeholder)
                del item
        self.placeholder.show()
        widget.setProperty("inFocus", True)  # a layout that re-adds its widgets leaves this one where it is

    def restore(self) -> None:
        parent, ph, w = self.parent, self.placeholder, self.widget
        if isinstance(parent, QSplitter):
            parent.replaceWidget(parent.indexOf(ph), w)
        elif isinstance(parent, QStackedWidget):
            i = parent.indexOf(ph)
            parent.insertWidget(i, w)
            parent.removeWidget(ph)
            parent.setCurrentIndex(i)
        else:
            w.setParent(parent)
            layout = parent.layout() if parent is not None else None
            if layout is not None:
                item = layout.replaceWidget(ph, w)
                del item
        w.show()
        ph.setParent(None)
        ph.deleteLater()
        w.setProperty("inFocus", False)  # back in its place: its layout may arrange it again


class PlotFocus(QObject):
    """Puts the plot the stage has in focus on the whole panel (see the module's docstring).

    ``stage``: the window's :class:`~explorer.shell.stage.Stage`; ``title_of(plot)``: the plot's whole title;
    ``name_of(panel, plot)``: its name (:func:`explorer.export.slide.plot_key`)."""

    #: A plot came into focus (True) or the panel came back (False).
    focusChanged = Signal(bool)

    def __init__(self, stage, *, title_of: Callable, name_of: Callable, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.stage = stage
        self._title_of = title_of
        self._name_of = name_of
        self._place: _Place | None = None
        self._frame: QFrame | None = None
        self._panel: QWidget | None = None
        self._shown: tuple | None = None  # (panel id, plot name) on the whole stage now
        self._watched: set[int] = set()
        #: No "Esc: back" line over the plot (presenter mode: the status bar says it).
        self.quiet = False
        stage.changed.connect(self._on_stage)

    @property
    def active(self) -> bool:
        return self._shown is not None

    # -- asking for it ---------------------------------------------------------------------------------
    def watch(self, panel: QWidget) -> None:
        """A double-click on any plot of ``panel`` puts it in focus (plots of tabs built later: call again)."""
        import pyqtgraph as pg

        for view in panel.findChildren(pg.GraphicsView):
            if id(view) in self._watched or view.scene() is None:
                continue
            self._watched.add(id(view))
            view.scene().sigMouseClicked.connect(lambda ev, v=view: self._on_clicked(ev, v))

    def _on_clicked(self, event, plot: QWidget) -> None:
        if event.double():
            self._double_clicked(plot)

    def _double_clicked(self, plot: QWidget) -> None:
        if self._place is not None and self.stage.plot() is plot:
            self.leave()
        else:
            self.focus(plot)

    def focus(self, plot: QWidget) -> None:
        """Put ``plot`` in focus (its panel put on stage first, if another panel is there)."""
        owner = self.stage.panel_of(plot)
        if owner is not None and owner != self.stage.panel_id():
            self.stage.put(owner)
        self.stage.set_focus_plot(self._name_of(self.stage.panel(), plot))

    def focus_under_pointer(self) -> bool:
        """Put the plot under the pointer in focus, else the largest plot on screen; False if there is none."""
        import pyqtgraph as pg

        panel = self.stage.panel()
        plots = [p for p in panel.findChildren(pg.GraphicsView) if p.isVisible() and p.width() > 40]
        if not plots:
            return False
        pos = QCursor.pos()
        under = [p for p in plots if p.rect().contains(p.mapFromGlobal(pos))]
        self.focus(under[0] if under else max(plots, key=lambda p: p.width() * p.height()))
        return True

    def leave(self) -> bool:
        """Bring the panel back; False if no plot was in focus."""
        if self._shown is None:
            return False
        self.stage.set_focus_plot(None)
        return True

    # -- showing it ------------------------------------------------------------------------------------
    def _on_stage(self, now) -> None:
        want = (now.panel, now.plot) if now.plot is not None else None
        if want == self._shown:
            return
        self._restore()
        if want is not None:
            plot = self.stage.plot()
            if plot is not None:
                self._show(self.stage.panel(), plot, want)
        self.focusChanged.emit(self._shown is not None)

    def _show(self, panel: QWidget, plot: QWidget, shown: tuple) -> None:
        unit = focus_unit(plot, panel)
        self._place = _Place(unit)
        frame = QFrame(panel)
        frame.setObjectName("plotFocus")
        frame.setAutoFillBackground(True)
        lay = QVBoxLayout(frame)
        lay.setContentsMargins(6, 4, 6, 6)
        head = QLabel("Esc or double-click: back to the whole panel", frame)
        head.setObjectName("plotFocusHint")
        head.setAlignment(Qt.AlignmentFlag.AlignRight)
        head.setToolTip(self._title_of(plot))
        head.setVisible(not self.quiet)
        lay.addWidget(head)
        lay.addWidget(unit, 1)
        unit.show()
        frame.setGeometry(_stage_rect(panel))
        frame.show()
        frame.raise_()
        panel.installEventFilter(self)
        self._frame, self._panel, self._shown = frame, panel, shown

    def _restore(self) -> None:
        if self._place is not None:
            self._place.restore()
            self._place = None
        if self._frame is not None:
            self._frame.hide()
            self._frame.deleteLater()
            self._frame = None
        if self._panel is not None:
            self._panel.removeEventFilter(self)
            self._panel = None
        self._shown = None

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if obj is self._panel and event.type() == QEvent.Type.Resize and self._frame is not None:
            self._frame.setGeometry(_stage_rect(self._panel))
        return False
