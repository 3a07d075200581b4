"""The Lab's "Model" group: how many layers every model has, and each scheme's own Lab settings.

A scheme declares what a Lab run may change in :attr:`~explorer.schemes.Scheme.lab_parameters` (the
RoPE/NoPE hybrid: k, NoPE in every k-th layer); this group gives each one a spin box, named after the
scheme, and says in one line per scheme what the setting does to this model ("RoPE in layers 1, 2, 3;
NoPE in layer 4").  Nothing here names a scheme: it loops over the registry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QSizePolicy

from ... import schemes as registry
from ...lab import SCHEME_LABELS, LabConfig, LabError
from ...state import StateError
from ...state.lab import MAX_LAYERS, LabState
from ...widgets.value_box import SpinBox

if TYPE_CHECKING:
    from ..base import Panel as _PanelBase
else:
    _PanelBase = object


def settings_text(st: LabState) -> str:
    """One line per scheme with Lab settings: what they do in this state's model (ticked or not)."""
    lines = []
    for sid in dict.fromkeys(s for s, _q in registry.lab_settings()):
        try:
            cfg = LabConfig(schemes=(sid,), layers=st.layers,
                            scheme_params=tuple((sid, n, v) for n, v in st.params_of(sid).items()))
        except LabError as exc:  # pragma: no cover - the state checked the same limits
            lines.append(f"{SCHEME_LABELS[sid]}: {exc}")
            continue
        off = "" if st.trains(sid) else " (not ticked)"
        lines.append(f"{SCHEME_LABELS[sid]}{off}: {cfg.setting(sid)}")
    return "\n".join(lines)


class LabModelBox(_PanelBase):
    """Mixin for the Lab panel: :meth:`build_model_box` and :meth:`sync_model_box`."""

    _change: Callable[..., None]  # the Lab panel's: a state change from a control

    def build_model_box(self) -> QGroupBox:
        box = QGroupBox("Model")
        box.setObjectName("labModelBox")
        form = QFormLayout(box)
        self.layers_spin = SpinBox(minimum=1, maximum=MAX_LAYERS)
        self.layers_spin.setObjectName("labLayers")
        self.layers_spin.setToolTip(f"Decoder blocks of every model (default 2; up to {MAX_LAYERS}); each layer "
                                    "adds about half a default run's training time")
        self.layers_spin.valueChanged.connect(self._on_layers_changed)
        form.addRow("Layers", self.layers_spin)
        self.param_spins: dict[tuple[str, str], SpinBox] = {}
        for sid, q in registry.lab_settings():
            spin = SpinBox(minimum=int(q.lo), maximum=int(q.hi))
            spin.setObjectName(f"labParam_{sid}_{q.name}")
            tip = f"{SCHEME_LABELS[sid]}: {q.label} — {q.help}" if q.help else f"{SCHEME_LABELS[sid]}: {q.label}"
            spin.setToolTip(tip)
            spin.valueChanged.connect(functools.partial(self._on_scheme_param, sid, q.name))
            label = QLabel(f"{SCHEME_LABELS[sid]}: {q.label}")
            label.setToolTip(tip)
            label.setWordWrap(True)  # two lines in presenter mode's large type
            form.addRow(label, spin)
            self.param_spins[(sid, q.name)] = spin
        self.setting_label = QLabel()
        self.setting_label.setObjectName("labSetting")
        self.setting_label.setWordWrap(True)
        self.setting_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        form.addRow(self.setting_label)
        return box

    def sync_model_box(self, st: LabState) -> None:
        """Show ``st`` (called with the panel's controls' signals blocked)."""
        self.layers_spin.setValue(st.layers)
        for (sid, name), spin in self.param_spins.items():
            spin.setValue(int(st.params_of(sid)[name]))
        text = settings_text(st)
        self.setting_label.setText(text)
        self.setting_label.setToolTip(text)
        self.setting_label.setVisible(bool(text))

    def _on_layers_changed(self, value: int) -> None:
        self._change(layers=value)

    def _on_scheme_param(self, scheme_id: str, name: str, value: int) -> None:
        try:
            self.set_state(self.state.with_scheme_param(scheme_id, name, value))
        except StateError as exc:
            self.banner.show_error(str(exc))
            self._block_and_sync()
        else:
            self.banner.clear_error()
