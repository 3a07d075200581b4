"""Qt calls typed as this program uses them.

PySide6 types some results as optional (a widget's layout) that the caller knows are there; each function here
checks once and says so in one clear line, instead of a check (or an unchecked ``None``) at every call.
"""

from __future__ import annotations

from PySide6.QtCore import QIODevice
from PySide6.QtGui import QImage, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QDockWidget, QLayout, QWidget


def layout_of(widget: QWidget) -> QLayout:
    """``widget``'s layout, which its maker set (raise RuntimeError if it has none)."""
    layout = widget.layout()
    if layout is None:
        raise RuntimeError(f"{type(widget).__name__} has no layout")
    return layout


def combo_item(combo: QComboBox, index: int) -> QStandardItem:
    """The item at ``index`` of ``combo``'s own model (a QComboBox makes a QStandardItemModel)."""
    model = combo.model()
    if not isinstance(model, QStandardItemModel):
        raise TypeError(f"{combo.objectName() or 'the combo box'} has a {type(model).__name__}, not its own model")
    return model.item(index)


def save_png(image: QImage, device: QIODevice) -> bool:
    """Write ``image`` to ``device`` as PNG; False if Qt could not.  PySide6's stubs type the format as bytes,
    which PySide6 refuses at run time: it takes the str."""
    return image.save(device, "PNG")  # type: ignore[call-overload]  # the stubs' format type is wrong


def restore_title_bar(dock: QDockWidget) -> None:
    """Give ``dock`` back Qt's own title bar.  Qt takes a null widget for that; PySide6's stubs say it may not."""
    dock.setTitleBarWidget(None)  # type: ignore[arg-type]  # the stubs forbid the None Qt documents
