"""Export actions for every plot (right-click menu), every panel, the window, and sweep animations.

:class:`ExportController` holds the actions' logic and the few choices they share (print theme, last
folder); the main window owns one and asks it for menus.  Every plot carries an "Export" submenu in
its right-click (ViewBox) menu from the moment it is made (:mod:`explorer.widgets.theming` attaches
it once); when it opens, the controller of the plot's window fills it: PNG at 1×/2×/4× or a width
in pixels, SVG, copy to the clipboard, and the numbers behind the plot as CSV or NPY.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QInputDialog,
    QMenu,
    QProgressDialog,
    QWidget,
)

from .. import export as ex
from ..settings import OutputError, home_folder, save_settings, setting
from ..theme import PRINT
from ..widgets.plain import warn
from ..widgets.qt_typed import combo_item
from ..widgets.theming import theme_bus
from .sweep_dialog import SweepDialog

IMAGE_FILTER = "PNG image (*.png)"
SVG_FILTER = "SVG vector image (*.svg)"
FILTERS = {
    ".png": IMAGE_FILTER,
    ".svg": SVG_FILTER,
    ".csv": "CSV table (*.csv)",
    ".npy": "NumPy array (*.npy)",
    ".gif": "Animated GIF (*.gif)",
    ".mp4": "MP4 video (*.mp4)",
}


class ExportController(QObject):
    """Export logic behind the menus; dialogs go through small methods that tests replace."""

    def __init__(
        self,
        parent: QWidget,
        look: Callable[[], ex.Look],
        *,
        notify: Callable[[str], None] | None = None,
        paused: Callable | None = None,
    ) -> None:
        super().__init__(parent)
        self._parent = parent
        self._look = look
        self._notify = notify or (lambda _m: None)
        #: A context manager factory that stops undo recording while a sweep runs.
        self._paused = paused
        self.print_action = QAction("Use the &print theme for exports", self, checkable=True)
        self.print_action.setToolTip(
            "Export with a white background, black text and axes, thicker lines and "
            "grey-scale-safe colour maps, whatever the screen shows"
        )
        self.print_action.setChecked(bool(setting("export/print", False)))
        self.print_action.toggled.connect(lambda on: self._remember({"export/print": bool(on)}))
        self.presenter_slides = QAction("Slides in the &presenter theme", self, checkable=True)
        self.presenter_slides.setToolTip("Slides with presenter mode's large text and thick lines, "
                                         "whatever the screen shows")
        self.presenter_slides.setChecked(bool(setting("export/presenter_slides", False)))
        self.presenter_slides.toggled.connect(
            lambda on: self._remember({"export/presenter_slides": bool(on)})
        )
        theme_bus().add_menu_provider(self.fill_plot_menu)

    # -- choices ---------------------------------------------------------------------------------
    def _remember(self, values: dict) -> None:
        """Keep an export choice in the settings file (a failure is said, never raised from a slot)."""
        try:
            save_settings(values)
        except OutputError as exc:
            self._notify(f"Export choice not kept: {exc}")

    @property
    def theme(self):
        """The theme exports use: None (match the screen) or the print theme."""
        return PRINT if self.print_action.isChecked() else None

    @property
    def slide_theme(self):
        """The theme slides use: the print theme if chosen, else presenter (if chosen) or the screen's."""
        if self.theme is not None:
            return self.theme
        if self.presenter_slides.isChecked():
            return self._look().theme.presenter()
        return None

    def last_folder(self) -> Path:
        raw = str(setting("export/folder", "") or "")
        return Path(raw) if raw and Path(raw).is_dir() else home_folder()  # Path("") would be "."

    def _remember_folder(self, path: str | Path) -> None:
        self._remember({"export/folder": str(Path(path).resolve().parent)})

    # -- dialogs (replaced in tests) -------------------------------------------------------------
    def ask_save_path(self, title: str, default_name: str, ext: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(
            self._parent, title, str(self.last_folder() / default_name), FILTERS.get(ext, "")
        )
        if not path:
            return None
        if not Path(path).suffix:
            path += ext
        return path

    def ask_width(self, current: int) -> int | None:
        value, ok = QInputDialog.getInt(
            self._parent, "Export width", "Image width in pixels:", max(current, 16), 16, ex.MAX_SIDE, 100
        )
        return value if ok else None

    def show_error(self, message: str) -> None:
        warn(self._parent, "Export failed", message)  # it names a file: as text

    # -- plumbing --------------------------------------------------------------------------------
    def _run(self, fn, done: str) -> bool:
        try:
            path = fn()
        except ex.ExportError as exc:
            self.show_error(str(exc))
            return False
        if path is not None:
            self._remember_folder(path)
            self._notify(f"{done} {path}")
        else:
            self._notify(done)
        return True

    # -- plots -----------------------------------------------------------------------------------
    def save_plot(
        self,
        panel,
        view,
        *,
        scale: float = 1.0,
        width: int | None = None,
        ext: str = ".png",
        path: str | None = None,
    ) -> bool:
        name = ex.default_name(panel, view, scale=1 if width else scale, ext=ext)
        if width and ext == ".png":
            name = name[: -len(ext)] + f"_w{width}{ext}"
        path = path or self.ask_save_path("Export plot", name, ext)
        if not path:
            return False
        return self._run(
            lambda: ex.export_view_to_file(
                view, path, scale=scale, width=width, screen=self._look(), theme=self.theme
            ),
            "Saved",
        )

    def save_plot_width(self, panel, view) -> bool:
        width = self.ask_width(int(view.width() * 2))
        if width is None:
            return False
        return self.save_plot(panel, view, width=width)

    def copy_plot(self, view) -> bool:
        def copy():
            ex.copy_image(ex.render_plot(view, scale=2, screen=self._look(), theme=self.theme))

        return self._run(copy, "Copied the plot to the clipboard")

    def save_plot_data(self, panel, view, ext: str, path: str | None = None) -> bool:
        path = path or self.ask_save_path(
            "Export the numbers behind the plot", ex.default_name(panel, view, ext=ext), ext
        )
        if not path:
            return False
        def arrays():
            if panel is not None:
                return panel.export_data(view)
            from ..widgets.plot_data import plot_arrays

            return plot_arrays(view)

        return self._run(lambda: ex.save_data(path, arrays()), "Saved")

    def plot_menu(self, panel, view, parent: QWidget | None = None) -> QMenu:
        """The per-plot export submenu (used in the right-click menu and the Export menu)."""
        menu = QMenu("E&xport", parent)
        menu.setObjectName("peExportMenu")
        menu.setToolTipsVisible(True)
        self._fill(menu, panel, view)
        return menu

    def _fill(self, menu: QMenu, panel, view) -> None:
        title = ex.plot_title(view) or ex.plot_name(panel, view)
        menu.setToolTipsVisible(True)  # a disabled "Copy as Python" says why
        for s in ex.SCALES:
            act = menu.addAction(f"Save as PNG, {s}×…")
            act.triggered.connect(lambda _=False, s=s: self.save_plot(panel, view, scale=s))
        menu.addAction("Save as PNG, width in pixels…").triggered.connect(
            lambda: self.save_plot_width(panel, view)
        )
        menu.addAction("Save as SVG…").triggered.connect(lambda: self.save_plot(panel, view, ext=".svg"))
        menu.addAction("Copy image").triggered.connect(lambda: self.copy_plot(view))
        add_python_action(menu, lambda: plot_snippet(panel, view), self._notify)
        self.add_slide_actions(menu, panel, view)
        menu.addSeparator()
        menu.addAction("Save numbers as CSV…").triggered.connect(
            lambda: self.save_plot_data(panel, view, ".csv")
        )
        menu.addAction("Save numbers as NPY…").triggered.connect(
            lambda: self.save_plot_data(panel, view, ".npy")
        )
        menu.addSeparator()
        menu.addAction(self.print_action)
        menu.setToolTip(f"Export “{title}”")

    def fill_plot_menu(self, view, menu: QMenu) -> bool:
        """Fill a plot's right-click "Export" submenu if the plot is in this controller's window
        (the theme bus asks every controller when the submenu opens)."""
        if view.window() is not self._parent.window():
            return False
        from ..panels.base import Panel  # (pyqtgraph: imported once a panel is built)

        widget = view.parentWidget()
        while widget is not None and not isinstance(widget, Panel):
            widget = widget.parentWidget()
        self._fill(menu, widget, view)
        return True

    # -- slides ----------------------------------------------------------------------------------
    def save_slide(self, panel, view=None, *, height: int = 1080, ext: str = ".png",
                   path: str | None = None) -> bool:
        """A 16:9 slide of ``view`` (a plot) or of ``panel``: no controls or hints, lines and markers scaled."""
        from .slide import export_slide

        target = view if view is not None else panel
        if target is None:
            return False
        base = ex.default_name(panel, view, ext="") if view is not None else panel.export_basename()
        name = f"{base}_slide{height}{ext}"
        path = path or self.ask_save_path("Export slide", name, ext)
        if not path:
            return False
        return self._run(
            lambda: export_slide(target, path, height, screen=self._look(), theme=self.slide_theme,
                                 title=f"PE Explorer — {getattr(panel, 'panel_id', '')}"),
            "Saved",
        )

    def add_slide_actions(self, menu: QMenu, panel, view=None) -> QMenu:
        """A "Slide (16:9)" submenu: PNG at 1920 × 1080 or 3840 × 2160, SVG, the presenter-theme choice."""
        sub = menu.addMenu("Slide (16:9)")
        sub.setObjectName("peSlideMenu")
        for h, (w, _h) in sorted(ex.SLIDE_SIZES.items()):
            sub.addAction(f"PNG, {w} × {h}…").triggered.connect(
                lambda _=False, h=h: self.save_slide(panel, view, height=h)
            )
        sub.addAction("SVG…").triggered.connect(lambda: self.save_slide(panel, view, ext=".svg"))
        sub.addSeparator()
        sub.addAction(self.presenter_slides)
        return sub

    # -- panels and the window -------------------------------------------------------------------
    def save_widget(
        self,
        widget,
        default_base: str,
        *,
        scale: float = 1.0,
        width: int | None = None,
        ext: str = ".png",
        path: str | None = None,
        title: str = "",
    ) -> bool:
        name = default_base + (f"@{scale:g}x" if scale != 1 and ext == ".png" and not width else "") + ext
        path = path or self.ask_save_path("Export image", name, ext)
        if not path:
            return False
        return self._run(
            lambda: ex.export_widget_to_file(
                widget, path, scale=scale, width=width, screen=self._look(), theme=self.theme, title=title
            ),
            "Saved",
        )

    def copy_widget(self, widget, what: str = "panel") -> bool:
        def copy():
            ex.copy_image(ex.render_widget(widget, scale=1, screen=self._look(), theme=self.theme))

        return self._run(copy, f"Copied the {what} image to the clipboard")

    # -- sweep animations ------------------------------------------------------------------------
    def record_animation(
        self,
        panel,
        name: str,
        values,
        *,
        target=None,
        width: int = 800,
        fps: float = 8.0,
        path: str,
        progress=None,
    ) -> bool:
        """Record a sweep of ``name`` over ``values`` and write ``path`` (.gif, or .mp4 where available)."""
        ext = Path(path).suffix.lower()
        if ext not in (".gif", ".mp4"):
            self.show_error(f"animations are .gif or .mp4 files; got {path!r}")
            return False
        look = self._look()

        def grab():
            if target is None:
                return ex.render_widget(panel, width=width, screen=look, theme=self.theme)
            return ex.render_plot(target, width=width, screen=look, theme=self.theme)

        def make():
            import contextlib

            ctx = self._paused() if self._paused is not None else contextlib.nullcontext()
            with ctx:
                frames = ex.record_sweep(panel, name, values, grab, progress=progress)
            if ext == ".gif":
                return ex.write_bytes(path, ex.gif_bytes(frames, fps))
            return ex.write_mp4(path, frames, fps)

        return self._run(make, "Saved the animation to")

    def sweep_dialog(self, panel, ext: str = ".gif") -> bool:
        """Ask what to sweep and how, record with a progress dialog, write the file."""
        dlg = SweepDialog(panel, self._parent)
        index = dlg.format.findData(ext)
        if index >= 0 and combo_item(dlg.format, index).isEnabled():
            dlg.format.setCurrentIndex(index)
        if dlg.exec() != QDialog.DialogCode.Accepted:
            return False
        opts = dlg.options()
        values = opts["values"]
        ext = opts["ext"]
        base = f"{panel.export_basename()}_sweep-{opts['field']}"
        path = self.ask_save_path("Save animation", base + ext, ext)
        if not path:
            return False
        bar = QProgressDialog(f"Recording {len(values)} frames…", "Cancel", 0, len(values), self._parent)
        bar.setWindowModality(Qt.WindowModality.WindowModal)
        bar.setMinimumDuration(300)

        def progress(done: int, total: int) -> bool:
            bar.setValue(done)
            return not bar.wasCanceled()

        try:
            return self.record_animation(
                panel,
                opts["field"],
                values,
                target=opts["target"],
                width=opts["width"],
                fps=opts["fps"],
                path=path,
                progress=progress,
            )
        finally:
            bar.close()


def plot_snippet(panel, view):
    """The plot's Copy-as-Python snippet (a NoSnippet outside a panel, or when making it fails)."""
    from ..snippets import NoSnippet

    if panel is None:
        return NoSnippet("this plot is not part of a panel")
    try:
        return panel.export_snippet(view)
    except Exception as exc:  # noqa: BLE001 - a menu must open whatever a snippet generator does
        return NoSnippet(f"no snippet: {exc}")


def add_python_action(menu: QMenu, make, notify: Callable[[str], None]) -> QAction:
    """"Copy as Python" in ``menu``: copies ``make()``'s program to the clipboard, or is disabled with the
    reason there is none as its tooltip (the snippet is made when the menu opens: it is short text)."""
    snippet = make()
    act = menu.addAction("Copy as Python")
    code = getattr(snippet, "code", None)
    if code is None:
        act.setEnabled(False)
        act.setToolTip(f"No Python snippet: {snippet.reason}")
        return act
    act.setToolTip("A numpy program that reproduces the numbers behind this plot, for a notebook")
    act.setData(code)
    act.triggered.connect(functools.partial(_copy_text, code, notify))
    return act


def _copy_text(text: str, notify: Callable[[str], None], *_args) -> None:
    from PySide6.QtGui import QGuiApplication

    QGuiApplication.clipboard().setText(text)
    notify(f"Copied a {len(text.splitlines())}-line Python snippet to the clipboard")
