"""The sweep export's dialog: which numeric parameter to step, over what range (the values the panel's state
accepts, :func:`~explorer.export.sweeps.effective_range`), how many frames, how fast, which picture and in
which format (MP4 only where it can be written).  The Export menu's controller opens it and records the sweep."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

from .. import export as ex
from ..widgets.qt_typed import combo_item


class SweepDialog(QDialog):
    """Choose a parameter, its range, the frames, the size and the format of a sweep animation."""

    def __init__(self, panel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Record a sweep animation")
        self.panel = panel
        self.state = panel.state
        self.fields = ex.numeric_fields(type(self.state))
        form = QFormLayout(self)
        intro = QLabel("Step one parameter through a range; each frame waits for the panel to redraw.")
        intro.setWordWrap(True)
        form.addRow(intro)
        self.field_combo = QComboBox()
        for name, meta in self.fields.items():
            self.field_combo.addItem(f"{meta.get('label') or name}  ({name})", name)
        form.addRow("Parameter", self.field_combo)
        self.start = QDoubleSpinBox()
        self.stop = QDoubleSpinBox()
        form.addRow("From", self.start)
        form.addRow("To", self.stop)
        self.frames = QSpinBox(minimum=2, maximum=300, value=24)
        form.addRow("Frames", self.frames)
        self.fps = QSpinBox(minimum=1, maximum=60, value=8, suffix=" frames/s")
        form.addRow("Speed", self.fps)
        self.target = QComboBox()
        self.target.addItem("The whole panel", None)
        for view in panel.plots():
            self.target.addItem(ex.plot_title(view) or ex.plot_name(panel, view), view)
        form.addRow("Picture", self.target)
        self.width_spin = QSpinBox(minimum=160, maximum=3840, value=800, singleStep=80, suffix=" px")
        form.addRow("Width", self.width_spin)
        self.format = QComboBox()
        self.format.addItem("Animated GIF", ".gif")
        self.format.addItem("MP4 video", ".mp4")
        ok, why = ex.mp4_available()
        if not ok:
            item = combo_item(self.format, 1)
            item.setEnabled(False)
            item.setText(f"MP4 video — unavailable: {why}")
            item.setToolTip(why)
        form.addRow("Format", self.format)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Record…")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.field_combo.currentIndexChanged.connect(self._on_field_changed)
        preferred = [
            n for n in ("position", "offset", "base", "factor", "l_eval", "alpha") if n in self.fields
        ]
        if preferred:
            self.field_combo.setCurrentIndex(self.field_combo.findData(preferred[0]))
        self._on_field_changed()

    def _on_field_changed(self, *_):
        name = self.field_combo.currentData()
        if name is None:
            return
        lo, hi = ex.effective_range(self.state, name)
        is_int = isinstance(getattr(self.state, name), int)
        for spin in (self.start, self.stop):
            spin.setDecimals(0 if is_int else 3)
            spin.setRange(lo, hi)
        self.start.setValue(lo)
        self.stop.setValue(hi)

    def options(self) -> dict:
        name = self.field_combo.currentData()
        values = ex.sweep_values(
            type(self.state), name, self.start.value(), self.stop.value(), self.frames.value()
        )
        return {
            "field": name,
            "values": values,
            "fps": float(self.fps.value()),
            "target": self.target.currentData(),
            "width": self.width_spin.value(),
            "ext": self.format.currentData(),
        }
