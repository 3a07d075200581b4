"""The main window: docked panels fed by one compute service, View/Help menus, saved layout."""

from __future__ import annotations

import importlib

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QMessageBox, QWidget

from . import __version__
from .panels import PANELS
from .panels.base import Panel
from .service import ComputeService, Failure
from .settings import config_dir

#: Bump when the dock set changes so an old saved layout is not restored onto new docks.
LAYOUT_VERSION = 1


def load_panel_class(spec: str) -> type[Panel]:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


class MainWindow(QMainWindow):
    """Docks for every panel in :data:`explorer.panels.PANELS`, all fed by one :class:`ComputeService`."""

    #: Every panel has drawn its first result.
    allPanelsDrawn = Signal()

    def __init__(self, *, restore_layout: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("PEExplorerMainWindow")
        self.setWindowTitle("PE Explorer — how transformers learn word order")
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks
            | QMainWindow.DockOption.AllowNestedDocks
            | QMainWindow.DockOption.AllowTabbedDocks
            | QMainWindow.DockOption.GroupedDragging
        )
        self.setTabPosition(Qt.DockWidgetArea.AllDockWidgetAreas, QtTabPosition.North)
        self.resize(1440, 900)
        self.service = ComputeService(self)
        self.service.failed.connect(self._on_service_failed)
        self.panels: dict[str, Panel] = {}
        self.docks: dict[str, QDockWidget] = {}
        self._all_drawn_emitted = False
        self._closed = False
        for panel_id, title, spec in PANELS:
            panel = load_panel_class(spec)(self.service)
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock_{panel_id}")
            dock.setWidget(panel)
            dock.setFeatures(
                QDockWidget.DockWidgetFeature.DockWidgetMovable
                | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                | QDockWidget.DockWidgetFeature.DockWidgetClosable
            )
            self.panels[panel_id] = panel
            self.docks[panel_id] = dock
            panel.drawn.connect(self._check_all_drawn)
        self._default_layout()
        self._default_state = self.saveState(LAYOUT_VERSION)
        self._build_menus()
        self.statusBar().showMessage("Ready", 3000)
        if restore_layout:
            self.restore_layout()

    # -- layout ----------------------------------------------------------------------------------
    def _default_layout(self) -> None:
        """All panels as tabs of one big area: one lesson on the projector at a time."""
        first = None
        for panel_id, dock in self.docks.items():
            dock.setFloating(False)
            dock.show()
            if first is None:
                self.addDockWidget(Qt.DockWidgetArea.TopDockWidgetArea, dock)
                first = dock
            else:
                self.addDockWidget(Qt.DockWidgetArea.TopDockWidgetArea, dock)
                self.tabifyDockWidget(first, dock)
        if first is not None:
            first.raise_()

    def reset_layout(self) -> None:
        self.restoreState(self._default_state, LAYOUT_VERSION)
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        next(iter(self.docks.values())).raise_()

    def show_panel(self, panel_id: str) -> None:
        dock = self.docks[panel_id]
        dock.show()
        dock.raise_()

    def _settings(self) -> QSettings:
        return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)

    def restore_layout(self) -> None:
        s = self._settings()
        geom = s.value("geometry")
        state = s.value("state")
        if isinstance(geom, QByteArray):
            self.restoreGeometry(geom)
        if isinstance(state, QByteArray):
            self.restoreState(state, LAYOUT_VERSION)

    def save_layout(self) -> None:
        s = self._settings()
        s.setValue("geometry", self.saveGeometry())
        s.setValue("state", self.saveState(LAYOUT_VERSION))
        s.sync()

    # -- menus -----------------------------------------------------------------------------------
    def _build_menus(self) -> None:
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        quit_action = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        self.file_menu = file_menu

        view = mb.addMenu("&View")
        for n, (panel_id, dock) in enumerate(self.docks.items(), start=1):
            act = dock.toggleViewAction()
            act.setShortcut(QKeySequence(f"Ctrl+{n}"))
            view.addAction(act)
        view.addSeparator()
        reset = QAction("&Reset layout", self)
        reset.triggered.connect(self.reset_layout)
        view.addAction(reset)
        self.view_menu = view

        help_menu = mb.addMenu("&Help")
        about = QAction("&About PE Explorer", self)
        about.triggered.connect(self.show_about)
        help_menu.addAction(about)
        self.help_menu = help_menu

    def about_text(self) -> str:
        import PySide6
        import pyqtgraph

        return (
            f"<h3>PE Explorer {__version__}</h3>"
            "<p>See, live, how transformers learn word order: sinusoidal waves, the token-swap "
            "experiment, and every positional scheme side by side.</p>"
            f"<p>Qt for Python {PySide6.__version__}, pyqtgraph {pyqtgraph.__version__}.</p>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self, "About PE Explorer", self.about_text())

    # -- service -----------------------------------------------------------------------------------
    def _on_service_failed(self, failure: Failure) -> None:
        self.statusBar().showMessage(f"{failure.key}: {failure.message}", 10000)

    def _check_all_drawn(self, _key: str = "") -> None:
        if not self._all_drawn_emitted and all(p.has_drawn for p in self.panels.values()):
            self._all_drawn_emitted = True
            self.allPanelsDrawn.emit()

    @property
    def all_drawn(self) -> bool:
        return all(p.has_drawn for p in self.panels.values())

    # -- shutdown ------------------------------------------------------------------------------------
    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self._closed:
            self._closed = True
            try:
                self.save_layout()
            except Exception:  # noqa: BLE001 - never block closing on a settings problem
                pass
            for p in self.panels.values():
                p.shutdown()
            self.service.stop()
        super().closeEvent(event)


from PySide6.QtWidgets import QTabWidget as _QTabWidget  # noqa: E402

QtTabPosition = _QTabWidget.TabPosition
