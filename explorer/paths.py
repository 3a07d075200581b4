"""Finding the app's resources the same way from a checkout, an installed wheel and a bundle.

The resources (``icons/``, ``presets/``, …) live in the repository's top-level ``resources/``
folder.  Packaging puts them in one place beside the code:

===================================  =========================================================
how the app runs                      where ``resources/`` is
===================================  =========================================================
installed wheel (pip, pipx)           ``site-packages/explorer/resources`` (pyproject.toml maps
                                      ``resources/`` to the ``explorer.resources`` package)
PyInstaller bundle                    ``<bundle>/_internal/explorer/resources`` (the spec puts it
                                      there, and the frozen ``explorer`` package sits beside it)
source checkout, editable install     ``<repo>/resources``, beside the ``explorer/`` package
===================================  =========================================================

So one rule covers all three: ``resources`` inside the package folder, else beside it.
"""

from __future__ import annotations

from pathlib import Path

#: The ``explorer`` package folder (in a bundle, PyInstaller sets ``__file__`` under ``sys._MEIPASS``).
PACKAGE_DIR = Path(__file__).resolve().parent


def resource_candidates(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    """Where ``resources/`` may be, in the order they are tried.

    Parameters
    ----------
    package_dir
        The ``explorer`` package folder (a parameter so the tests can lay out each case).
    """
    return [package_dir / "resources", package_dir.parent / "resources"]


def resources_dir(package_dir: Path = PACKAGE_DIR) -> Path:
    """The folder that holds ``icons/``, ``presets/``, …

    The packaged location (inside the package: wheel, bundle) wins over the checkout one, so
    an installed app never picks up a stray ``resources/`` folder beside site-packages.  If
    neither exists (a broken install) the packaged location is returned, so a caller's error
    names the path a user would look for.

    Parameters
    ----------
    package_dir
        The ``explorer`` package folder; the default is this module's.
    """
    candidates = resource_candidates(package_dir)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return candidates[0]


def resource_path(*parts: str) -> Path:
    """A path under :func:`resources_dir`, e.g. ``resource_path("icons", "pe-explorer.svg")``."""
    return resources_dir().joinpath(*parts)
