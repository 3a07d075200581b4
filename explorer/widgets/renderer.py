"""What paints the plots on screen: QPainter in software ("raster", the default) or OpenGL ("opengl").

pyqtgraph can give each plot a ``QOpenGLWidget`` viewport (``useOpenGL``): the scene is then painted by Qt's
OpenGL paint engine, on the GPU where there is one.  Exports never go through it: a plot alone is exported
from its scene, and a panel or the window (``QWidget.render``) is rendered with the plots' viewports back on
raster for the time of the export (:func:`raster_viewports`), so an export is the same picture whichever
renderer the screen uses (a ``QOpenGLWidget`` renders itself into a picture as a bitmap of its frame buffer).

Where OpenGL cannot be had (Qt's offscreen platform with no display to reach, an X display without GLX), asking
for it falls back to raster with a message saying why.  docs/performance.md measures both.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

RENDERERS = ("raster", "opengl")
#: The environment variable that chooses the renderer when ``--renderer`` is not given.
ENV = "PE_EXPLORER_RENDERER"


def renderer_name(name: str | None = None) -> str:
    """``name`` (or ``$PE_EXPLORER_RENDERER``, or "raster"), checked: ValueError naming the choices."""
    chosen = (name or os.environ.get(ENV) or "raster").strip().lower()
    if chosen not in RENDERERS:
        raise ValueError(f"the renderer must be one of {', '.join(RENDERERS)}, got {chosen!r}")
    return chosen


def choose(name: str | None) -> None:
    """``--renderer name``: chosen for this process and what it starts (the environment variable), when given."""
    if name:
        os.environ[ENV] = name


def opengl_asked() -> bool:
    """True when the chosen renderer is OpenGL (a misspelt choice is not: it ends as raster, said)."""
    try:
        return renderer_name() == "opengl"
    except ValueError:
        return False


def opengl_problem() -> str | None:
    """Why OpenGL cannot paint the plots in this application (None: it can).  Needs the QApplication."""
    from PySide6.QtGui import QGuiApplication, QOffscreenSurface, QOpenGLContext

    app = QGuiApplication.instance()
    if app is None:
        return "there is no application yet"
    platform = QGuiApplication.platformName()
    context = QOpenGLContext()
    if not context.create():
        return f"no OpenGL context can be made on Qt's {platform!r} platform"
    surface = QOffscreenSurface()
    surface.setFormat(context.format())
    surface.create()
    try:
        if not surface.isValid() or not context.makeCurrent(surface):
            return f"an OpenGL context cannot be made current on Qt's {platform!r} platform"
        context.doneCurrent()
    finally:
        surface.destroy()
    return None


def use_renderer(name: str | None = None) -> tuple[str, str | None]:
    """Paint the plots made from now on with ``name`` (see :func:`renderer_name`); returns the renderer in use and,
    where OpenGL was asked for and cannot be had, why (the plots are painted by raster then)."""
    import pyqtgraph as pg

    chosen = renderer_name(name)
    problem = opengl_problem() if chosen == "opengl" else None
    used = "raster" if problem else chosen
    pg.setConfigOptions(useOpenGL=used == "opengl")
    return used, problem


def renderer_of(views) -> str:
    """What paints ``views`` (pyqtgraph views): "opengl", "raster", or both joined by "+"; "raster" for none."""
    kinds = {"opengl" if v.viewport().inherits("QOpenGLWidget") else "raster" for v in views}
    return "+".join(sorted(kinds)) or "raster"


@contextlib.contextmanager
def raster_viewports(views) -> Iterator[None]:
    """While inside, the views with an OpenGL viewport paint with raster (an export); then OpenGL again."""
    gl = [v for v in views if v.viewport().inherits("QOpenGLWidget")]
    for v in gl:
        v.useOpenGL(False)
    try:
        yield
    finally:
        for v in gl:
            v.useOpenGL(True)
