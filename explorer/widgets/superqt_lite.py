"""The few superqt pieces the app uses, imported without superqt's package ``__init__``.

``import superqt.anything`` first runs ``superqt/__init__.py``, which imports every superqt widget
(colour and colormap combo boxes, collapsibles, searchable lists, …), ``importlib.metadata`` for its
version, and, through ``superqt/utils/__init__.py``, pygments for a code highlighter: about a quarter
of a second of the window's start-up, for three sliders, a flow layout and ``signals_blocked``.

Here ``superqt`` and ``superqt.utils`` are registered as the real package modules (their own spec,
path and loader) whose ``__init__`` has not run yet; the first attribute anyone asks of them that a
submodule import has not set runs it then, into the same module object (a module ``__getattr__``).
So ``from superqt import QCollapsible`` elsewhere (a test, a plug-in) still works, at its cost, when
it happens.  Only the submodules below are imported now.  If superqt is already imported, or its
layout is not the one this was written against (0.9), the plain package import is used instead.

Every superqt import in the app goes through this module (tests/test_startup_imports.py checks it).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def _deferred_package(name: str) -> ModuleType | None:
    """Register package ``name`` without running its ``__init__`` until an attribute is asked of it."""
    if name in sys.modules:
        return None
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return None
    module = importlib.util.module_from_spec(spec)

    def __getattr__(attr: str):  # noqa: N807 - the module-level hook of PEP 562
        # Anything the package's __init__ defines: run it now (once), into this very module.
        if attr.startswith("__") and attr not in ("__all__", "__version__"):
            # Probes such as ``hasattr(module, "__wrapped__")`` (inspect, PySide's feature check on
            # every module that imports it) are not a use of the package.
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        module.__dict__.pop("__getattr__", None)
        spec.loader.exec_module(module)
        return getattr(module, attr)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules[name] = module
    return module


class _QtpyProxy(ModuleType):
    """``qtpy.QtX`` answered from ``PySide6.QtX``; the real qtpy module only for a name PySide6 lacks.

    qtpy's own ``QtCore``/``QtGui``/``QtWidgets`` do ``from PySide6.QtX import *``, which makes
    PySide6 create every class and enum of the module at once (about 0.2 s of start-up here) and
    then adds Qt 5 spellings the app does not use (``exec_``, ``QFontMetrics.width``, …).  A name
    PySide6 has is returned as is; any other (or ``__all__``, for a star import) loads qtpy's real
    module, under its own name but outside ``sys.modules``, and answers from it.
    """

    def __init__(self, name: str, qt_module: ModuleType, spec) -> None:
        super().__init__(name)
        self.__dict__["_pe_qt"] = qt_module
        self.__dict__["_pe_spec"] = spec
        self.__dict__["_pe_real"] = None

    def _pe_load_real(self) -> ModuleType:
        real = self.__dict__["_pe_real"]
        if real is None:
            spec = self.__dict__["_pe_spec"]
            real = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(real)
            self.__dict__["_pe_real"] = real
        return real

    def __getattr__(self, attr: str):
        if attr == "__all__":
            real = self._pe_load_real()
            return list(getattr(real, "__all__", [n for n in vars(real) if not n.startswith("_")]))
        if attr.startswith("__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
        try:
            return getattr(self.__dict__["_pe_qt"], attr)
        except AttributeError:
            return getattr(self._pe_load_real(), attr)


def _qtpy_proxies() -> list[str]:
    """Put proxies for qtpy's QtCore, QtGui and QtWidgets in place when qtpy would pick PySide6."""
    if any(n in sys.modules for n in ("qtpy.QtCore", "qtpy.QtGui", "qtpy.QtWidgets")):
        return []
    import qtpy  # its __init__ alone is cheap: it picks the binding and reads versions

    if not getattr(qtpy, "PYSIDE6", False):
        return []
    import PySide6.QtCore
    import PySide6.QtGui
    import PySide6.QtWidgets

    made = []
    for sub, qt_module in (("QtCore", PySide6.QtCore), ("QtGui", PySide6.QtGui),
                           ("QtWidgets", PySide6.QtWidgets)):
        name = f"qtpy.{sub}"
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            continue
        sys.modules[name] = _QtpyProxy(name, qt_module, spec)
        setattr(qtpy, sub, sys.modules[name])
        made.append(name)
    return made


def _load_lite():
    deferred = []
    proxies: list[str] = []
    try:
        proxies = _qtpy_proxies()
        for name in ("superqt", "superqt.utils"):
            module = _deferred_package(name)
            if module is not None:
                deferred.append((name, module))
        if len(deferred) == 2:
            sys.modules["superqt"].utils = sys.modules["superqt.utils"]  # what a submodule import sets
        from superqt.utils._misc import signals_blocked

        # superqt's slider module does ``from superqt.utils import signals_blocked``: answer it here
        # rather than by running the utils package's __init__ (pygments).
        sys.modules["superqt.utils"].signals_blocked = signals_blocked
        from superqt.sliders._labeled import QLabeledDoubleSlider, QLabeledSlider
        from superqt.sliders._sliders import QDoubleSlider
        from superqt.utils._flow_layout import QFlowLayout
    except Exception:  # another superqt (or qtpy) layout: fall back to the package's own import
        for name in proxies:
            sys.modules.pop(name, None)
            qtpy = sys.modules.get("qtpy")
            if qtpy is not None and name.split(".")[1] in vars(qtpy):
                delattr(qtpy, name.split(".")[1])
        for name, module in deferred:
            if sys.modules.get(name) is module:
                del sys.modules[name]
        for name in [n for n in sys.modules if n.startswith("superqt.")]:
            if sys.modules[name] is not None and name.split(".")[1] in ("sliders", "utils"):
                del sys.modules[name]
        from superqt import QDoubleSlider, QFlowLayout, QLabeledDoubleSlider, QLabeledSlider
        from superqt.utils import signals_blocked
    return QDoubleSlider, QFlowLayout, QLabeledDoubleSlider, QLabeledSlider, signals_blocked


QDoubleSlider, QFlowLayout, QLabeledDoubleSlider, QLabeledSlider, signals_blocked = _load_lite()

__all__ = ["QDoubleSlider", "QFlowLayout", "QLabeledDoubleSlider", "QLabeledSlider", "signals_blocked"]
