"""PE Explorer: see, live, how transformers learn word order."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pe-explorer")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"
