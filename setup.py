"""Build hook: the wheel's package list, computed.  Everything else is configured in pyproject.toml.

pyproject.toml maps the repository's top-level ``resources/`` folder to the package
``explorer.resources`` ([tool.setuptools.package-dir] and [tool.setuptools.package-data]), so an
installed app finds its icons and presets where :func:`explorer.paths.resources_dir` looks.
setuptools' ``packages.find`` cannot list a package that lives outside ``explorer/``, and a list
written by hand would drop each new subpackage from the wheel until someone remembered to add it;
so the list is computed here: every package under ``explorer/``, plus ``explorer.resources``.
"""

from setuptools import find_namespace_packages, setup

setup(
    packages=find_namespace_packages(include=["explorer", "explorer.*"], exclude=["*.__pycache__"])
    + ["explorer.resources"],
)
