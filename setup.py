"""Build hook: the wheel's package list, computed.  Everything else is configured in pyproject.toml.

pyproject.toml maps the repository's top-level ``resources/`` folder to the package
``explorer.resources`` ([tool.setuptools.package-dir] and [tool.setuptools.package-data]), so an
installed app finds its icons and presets where :func:`explorer.paths.resources_dir` looks.
setuptools' ``packages.find`` cannot list a package that lives outside ``explorer/``, and a list
written by hand would drop each new subpackage from the wheel until someone remembered to add it;
so the list is computed here: every package under ``explorer/``, plus ``explorer.resources`` and
``explorer.docs`` (the user guide, from the top-level ``docs/``; :func:`explorer.widgets.guide.docs_dir`
finds it there in a wheel and beside the package in a checkout).
"""

from pathlib import Path

from setuptools import find_namespace_packages, setup

HERE = Path(__file__).resolve().parent

setup(
    packages=find_namespace_packages(include=["explorer", "explorer.*"], exclude=["*.__pycache__"])
    + ["explorer.resources"]
    + (["explorer.docs"] if (HERE / "docs").is_dir() else []),
)
