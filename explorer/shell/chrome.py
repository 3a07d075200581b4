"""The window's chrome in presenter mode: the picture gets the screen, and the way back is always in sight.

In presenter mode the menu bar and the lecture toolbar go out of the way (:data:`BARS_KEY` brings them back and
hides them again; a hint at the right of the status bar says so), panel docks lose their title bars (tabbed docks
keep their tab bar; a floating dock keeps its title, the only handle it has), and each panel's hint line (a widget
whose Qt property ``hintLine`` is true) is hidden.  Normal mode is left exactly as it was.

What the chrome hides is never saved as the user's layout: :meth:`Chrome.as_chosen` shows the bars again while
the window's state is written, so a normal-mode start never opens with no menu bar and no toolbar.  Every action
keeps its shortcut with the bars hidden (:mod:`explorer.shell.menus` adds them to the window).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QToolBar, QWidget

from ..widgets.qt_typed import restore_title_bar

#: The key that shows and hides the menu bar and toolbar (the records in explorer/shell/actions.py carry it too).
BARS_KEY = "F10"


class Chrome(QObject):
    """Menu bar, toolbar, dock titles and hint lines of ``window`` for the look (see the module's docstring).

    ``toolbar``: the lecture toolbar; ``docks``: the panel docks (panel id -> dock)."""

    def __init__(self, window: QMainWindow, toolbar: QToolBar, docks: dict[str, QDockWidget]) -> None:
        super().__init__(window)
        self._window = window
        self._toolbar = toolbar
        self._docks = dict(docks)
        self.presenter = False
        #: In presenter mode: the bars shown on request (F10); reset each time presenter mode starts.
        self.bars_shown = False
        self._toolbar_chosen = True  # the toolbar as the user left it in normal mode
        self._focus = False  # a plot on the whole stage
        self.hint = QLabel(f"{BARS_KEY}: menus · Ctrl+B: controls", window)
        self.hint.setObjectName("presenterHint")
        self.hint.setToolTip(f"Presenter mode hides the menu bar and toolbar: {BARS_KEY} brings them back, and "
                             "hides them again; Ctrl+B opens the controls; F5 leaves presenter mode")
        window.statusBar().addPermanentWidget(self.hint)
        self.hint.hide()
        for dock in self._docks.values():
            dock.topLevelChanged.connect(lambda _floating, d=dock: self._title_bar(d))

    # -- asking -----------------------------------------------------------------------------------------
    @property
    def bars_hidden(self) -> bool:
        """Whether the menu bar and toolbar are out of the way now (presenter mode, not brought back)."""
        return self.presenter and not self.bars_shown

    def set_presenter(self, on: bool) -> None:
        """Follow presenter mode (on: the picture gets the screen; off: everything as the user had it)."""
        on = bool(on)
        if on and not self.presenter:
            self._toolbar_chosen = not self._toolbar.isHidden()
            self.bars_shown = False
        elif not on and self.presenter:
            self._toolbar.setVisible(self._toolbar_chosen)
        self.presenter = on
        self._apply()

    def toggle_bars(self) -> None:
        """Show the menu bar and toolbar, or hide them again (presenter mode; normal mode always shows them)."""
        if self.presenter:
            self.bars_shown = not self.bars_shown
        self._apply()

    def set_plot_in_focus(self, on: bool) -> None:
        """A plot is on the whole stage (the hint then says how to go back to the panel)."""
        self._focus = bool(on)
        self._hint_text()

    def _hint_text(self) -> None:
        back = " · Esc: whole panel" if self._focus else ""
        self.hint.setText(f"{BARS_KEY}: {'hide menus' if self.bars_shown else 'menus'} · Ctrl+B: controls{back}")

    def adopt(self, panel: QWidget) -> None:
        """A panel just built: its hint lines follow the mode."""
        self._hint_lines([panel])

    @contextlib.contextmanager
    def as_chosen(self) -> Iterator[None]:
        """The bars as the user chose them, for as long as the window's state is saved."""
        now = not self._toolbar.isHidden()
        if self.presenter:
            self._toolbar.setVisible(self._toolbar_chosen)
        try:
            yield
        finally:
            if self.presenter:
                self._toolbar.setVisible(now)

    # -- showing ----------------------------------------------------------------------------------------
    def _apply(self) -> None:
        hide = self.bars_hidden
        self._window.menuBar().setVisible(not hide)
        if self.presenter:
            self._toolbar.setVisible(self.bars_shown)
        self.hint.setVisible(self.presenter)
        self._hint_text()
        for dock in self._docks.values():
            self._title_bar(dock)
        self._hint_lines(dock.widget() for dock in self._docks.values())

    def _title_bar(self, dock: QDockWidget) -> None:
        bare = self.presenter and not dock.isFloating()
        has = dock.titleBarWidget() is not None
        if bare and not has:
            empty = QWidget(dock)
            empty.setObjectName("bareDockTitle")
            dock.setTitleBarWidget(empty)
        elif not bare and has:
            old = dock.titleBarWidget()
            restore_title_bar(dock)
            old.deleteLater()

    def _hint_lines(self, roots: Iterable[QWidget | None]) -> None:
        for root in roots:
            if root is None:
                continue
            for w in root.findChildren(QWidget):
                if w.property("hintLine"):
                    w.setVisible(not self.presenter)
