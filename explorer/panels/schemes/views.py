"""What every view of the Schemes panel is: a :class:`SchemesView` (the panel's own, :mod:`.matrices`,
:mod:`.distance`, :mod:`.beyond` …, and the tabs schemes add), topped by its info label (:func:`info_column`)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ...widgets.text_pin import LiveLabel


def info_label() -> QLabel:
    lab = LiveLabel()
    lab.setWordWrap(True)
    lab.setTextFormat(Qt.TextFormat.RichText)
    lab.setStyleSheet("QLabel { font-size: 11pt; padding: 2px 4px; }")
    return lab


class SchemesView(QWidget):
    """A view of the Schemes panel: its info label on top (:func:`info_column`), its plots below.

    A tab a scheme adds (:mod:`explorer.schemes.tabs`) talks to the panel through this class alone: the panel
    hands it its tab's results (:meth:`show_response`) and asks it for its plots' numbers, programs and file
    name; the view asks for state changes (``changeRequested``) and reports errors (``failed``).
    """

    info: QLabel
    #: Panel-state fields to change (name → value), as the view's own controls are used.
    changeRequested = Signal(dict)
    #: A one-line error for the panel's banner.
    failed = Signal(str)

    def plot_widgets(self) -> list:
        """The view's plots (export and theming act on them)."""
        raise NotImplementedError

    def apply_theme(self, theme) -> None:
        raise NotImplementedError

    def show_response(self, value) -> None:
        """Draw the result of the view's tab (a tab a scheme adds: what its ``compute`` returned)."""
        raise NotImplementedError

    def export_data(self, plot) -> dict | None:
        """``plot``'s numbers, exact and named, when the view knows them better than the plot's read-back."""
        return None

    def export_snippet(self, plot, title: str):
        """``plot``'s Copy-as-Python program (a Snippet or a NoSnippet saying why); None: not one of its plots."""
        return None

    def export_basename(self, st) -> str:
        """The file name exports of this view start from ("": the panel's)."""
        return ""


def info_column(view: SchemesView, name: str = "") -> QVBoxLayout:
    """Give ``view`` a margin-less column layout topped by its info label (``view.info``)."""
    outer = QVBoxLayout(view)
    outer.setContentsMargins(0, 0, 0, 0)
    view.info = info_label()
    if name:
        view.info.setObjectName(name)
    outer.addWidget(view.info)
    return outer
