"""PE Explorer: see, live, how transformers learn word order."""

from __future__ import annotations


def __getattr__(name: str):
    # ``__version__`` is looked up on first use: importlib.metadata costs tens of milliseconds at
    # every start, and a Ctrl+C inside it (before the app's own handlers) printed a traceback.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("pe-explorer")
        except PackageNotFoundError:  # running from a source tree that was not installed
            value = "0.0.0+unknown"
        globals()["__version__"] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
