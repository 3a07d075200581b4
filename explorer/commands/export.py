"""``pe-explorer export``: render a panel without showing a window and write it as PNG or SVG.

    pe-explorer export --panel waves --set base=500000 --width 2400 --out waves.png
    pe-explorer export --panel schemes --preset stretching_rope --set scaling=ntk --out ntk.svg
    pe-explorer export --panel swap --list-plots
    pe-explorer export --panel swap --plot before-map --slide 1080 --theme presenter --out before.png
    pe-explorer export --panel waves --plot spectrum --python            # the plot's numpy program
    pe-explorer export --scene 3 --slide 1080 --out rotation.png         # lecture scene 3, as it is on stage

Parameters start from the defaults, or from ``--preset`` (a built-in scene's name, one of the
user's presets, or a .json file) or ``--scene`` (a built-in lecture scene by number or name), then every
``--set key=value`` is applied — all together, so their order does not matter.  A scene (or a preset that
names a panel) also gives the panel, and is exported as it is on stage: its view (tab), its splitters and
ranges, and — when it puts a plot in focus — that plot alone, as Export → Panel and Slide do in the window.

Keys are the panel's state field names.  Dependent values the user did not set are pulled into range (e.g. the
position when N shrinks); a value the user did set is never changed silently.  Every problem exits 2 with one
line saying what is valid; nothing is written unless the image was made.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..cli import UsageError
from ..export.slide import SLIDE_SIZES
from .args import number, one_of, whole

#: Logical size the panel is laid out at before it is scaled to --width (16:10, like a projector).
LAYOUT_WIDTH = 1440
LAYOUT_HEIGHT = 900
MIN_WIDTH, MAX_WIDTH = 64, 16384
#: Longest --timeout (a day): past that a number is a typo, not a wait.
MAX_TIMEOUT_S = 86400.0


#: Panels that draw from their parameters alone.  The Lab trains models on request (minutes of
#: work, started by a button), so a headless picture of it would show nothing useful.
HEADLESS_PANELS = ("waves", "swap", "schemes")


def _panel_ids() -> tuple[str, ...]:
    from ..state.app import PANEL_STATES

    return tuple(p for p in HEADLESS_PANELS if p in PANEL_STATES)


def add_parser(sub) -> None:
    ids = _panel_ids()
    p = sub.add_parser(
        "export",
        help="render a panel headless and write it as PNG or SVG",
        description="Render one panel without showing a window and write the image. "
        "Keys for --set are the panel's parameter names "
        "(e.g. base, d_model for waves; scaling, factor for schemes).",
    )
    p.add_argument("--panel", choices=ids,
                   help="the panel to render (default: the one the --preset or --scene shows)")
    scene = p.add_mutually_exclusive_group()
    scene.add_argument(
        "--preset", metavar="FILE|NAME", help="start from a preset (built-in scene name or .json file)"
    )
    scene.add_argument("--scene", metavar="N|NAME",
                       help="a built-in lecture scene by number (1 = the first) or name, exported as on stage")
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set one parameter (repeatable)",
    )
    p.add_argument(
        "--width",
        type=whole(),
        metavar="W",
        help=f"image width in pixels ({MIN_WIDTH}…{MAX_WIDTH}; "
        f"default {LAYOUT_WIDTH}); the layout is scaled, so text stays in proportion",
    )
    p.add_argument(
        "--plot",
        metavar="NAME",
        help="export only the plot NAME (see --list-plots; a number N is the N-th in that list)",
    )
    p.add_argument(
        "--slide",
        type=one_of(SLIDE_SIZES),
        metavar="1080|2160",
        help="a 16:9 slide, 1920×1080 or 3840×2160, without the controls and mouse hints",
    )
    p.add_argument(
        "--theme",
        choices=("light", "dark", "print", "presenter"),
        default="light",
        help="the look of the image (default light)",
    )
    p.add_argument(
        "--timeout", type=number(hi=MAX_TIMEOUT_S, positive=True), default=120.0, metavar="S",
        help="seconds to wait for the panel to draw (at most a day)"
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--out", metavar="FILE.png|FILE.svg", help="output image")
    what.add_argument(
        "--list-plots", action="store_true", help="print the panel's plot names in on-screen order and exit"
    )
    what.add_argument("--python", action="store_true",
                      help="with --plot: print the plot's Copy-as-Python program (numpy only) and exit")
    p.set_defaults(func=run)


def find_scene(preset: str | None = None, scene: str | None = None):
    """The :class:`~explorer.presets.Preset` that ``--preset`` or ``--scene`` names (None: neither); UsageError."""
    from ..presets import PresetError, find_preset
    from ..presets import find_scene as builtin_scene

    try:
        if scene is not None:
            return builtin_scene(scene)
        if preset:
            _check_preset_path(preset)
            return find_preset(preset)
    except PresetError as exc:
        raise UsageError(f"--{'scene' if scene is not None else 'preset'}: {exc}") from None
    return None


def build_state(panel_id: str, preset: str | None, sets: list[str], *, scene=None):
    """The panel's state from the preset or ``scene`` (a Preset; else defaults) and the ``key=value`` settings;
    UsageError if bad."""
    import dataclasses

    from ..state import AppState, StateError, describe, fields
    from ..state.base import parse_value

    if scene is None:
        scene = find_scene(preset)
    app_state = scene.state if scene is not None else AppState()
    state = app_state.get(panel_id)
    cls = type(state)
    known = fields(cls)
    changes: dict = {}
    for item in sets:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(
                f"--set needs KEY=VALUE, got {item!r}; valid keys for {panel_id}: {', '.join(known)}"
            )
        if key not in known:
            raise UsageError(f"--set {key}: unknown key for {panel_id}; valid: {', '.join(known)}")
        try:
            changes[key] = parse_value(cls, key, text.strip())
        except StateError as exc:
            raise UsageError(f"--set {key}: {exc}") from None
    if not changes:
        return state
    try:
        return dataclasses.replace(state, **changes)
    except StateError as first:
        # A cross-field rule failed: let the state pull the values the user did not set into
        # range, but never change one they did set.
        clamped = getattr(state, "clamped", None)
        if callable(clamped):
            try:
                out = clamped(**changes)
            except StateError:
                out = None
            if out is not None and all(getattr(out, k) == v for k, v in changes.items()):
                return out
        keys = ", ".join(changes)
        hints = "; ".join(describe(cls, k) for k in changes)
        raise UsageError(f"--set {keys}: {first}; valid: {hints}") from None


def _check_preset_path(preset: str) -> None:
    """A --preset that names something on disk must be a regular file: a FIFO would block the read forever."""
    from ..fileio import not_regular

    try:
        st = os.stat(preset)
    except (OSError, ValueError):
        return  # not a path here: a scene's or a user preset's name, found (or refused) by find_preset
    what = not_regular(st.st_mode)
    if what:
        raise UsageError(f"--preset {preset}: it is {what}, not a preset file")


def _check_out(path: str) -> str:
    from ..fileio import OutputError, check_output

    ext = Path(path).suffix.lower()
    if ext not in (".png", ".svg"):
        raise UsageError(f"--out must end in .png or .svg; got {path!r}")
    try:
        check_output(path)
    except OutputError as exc:
        raise UsageError(str(exc)) from None
    return ext


def run(args) -> int:
    python = bool(getattr(args, "python", False))
    if python and (args.plot is None or args.slide is not None or args.width is not None):
        raise UsageError("--python prints one plot's program: give --plot NAME (and no --slide, --width)")
    if args.out is not None:
        _check_out(args.out)
    if args.slide is not None and args.width is not None:
        raise UsageError("--slide sets the size: give --slide or --width, not both")
    if args.width is not None and not MIN_WIDTH <= args.width <= MAX_WIDTH:
        raise UsageError(f"--width must be between {MIN_WIDTH} and {MAX_WIDTH} pixels; got {args.width}")
    if not 0 < args.timeout <= MAX_TIMEOUT_S:  # the parser checks too; build_state's callers may not
        raise UsageError(f"--timeout must be between 0 and {MAX_TIMEOUT_S:g} seconds; got {args.timeout:g}")
    scene = find_scene(args.preset, getattr(args, "scene", None))
    panel_id = args.panel or (scene.panel if scene is not None else None)
    if panel_id is None:
        raise UsageError("give --panel (" + ", ".join(_panel_ids()) + "), or a --scene or --preset that names one")
    if panel_id not in _panel_ids():
        raise UsageError(f"the scene shows the {panel_id} panel, which has no headless export; "
                         f"give --panel ({', '.join(_panel_ids())})")
    state = build_state(panel_id, None, args.sets, scene=scene)
    # The scene's arrangement goes with its own panel only: --panel another takes the scene's numbers alone.
    on_stage = scene if scene is not None and scene.panel == panel_id else None
    return render(
        panel_id,
        state,
        view=on_stage.view if on_stage is not None else None,
        layout=on_stage.layout if on_stage is not None else None,
        out=args.out,
        width=args.width,
        plot=args.plot,
        slide=args.slide,
        list_plots=args.list_plots,
        python=python,
        theme_name=args.theme,
        timeout_s=args.timeout,
    )


def _theme(name: str):
    from ..theme import DARK, LIGHT, PRESENTER_LIGHT, PRINT

    return {"light": LIGHT, "dark": DARK, "print": PRINT, "presenter": PRESENTER_LIGHT}[name]


def render(panel_id: str, state, **options) -> int:
    """Build the panel offscreen, wait for it to draw, and write the image (see :func:`_render`).

    Ctrl+C while Qt imports or renders would raise inside Qt (shiboken's start-up, a paint callback)
    and abort or crash the interpreter's shutdown (issue 16): here it is only noted, and raised where
    the loop checks for it, so the panel and its workers are stopped first.
    """
    from ..interrupts import deferred_sigint

    with deferred_sigint():
        return _render(panel_id, state, **options)


def _render(
    panel_id: str,
    state,
    *,
    out: str | None,
    width: int | None = None,
    plot: str | int | None = None,
    slide: int | None = None,
    list_plots: bool = False,
    python: bool = False,
    theme_name: str = "light",
    timeout_s: float = 120.0,
    view: str | None = None,
    layout: dict | None = None,
) -> int:
    """Build the panel offscreen, wait for it to draw, arrange it as the scene does (``view``: the tab it
    opens; ``layout``: its splitters, ranges and plot in focus), and write the image."""
    # Headless: never open a window on the user's screen (an existing QApplication is reused).
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from .. import export as ex
    from ..app import make_app
    from ..interrupts import check as check_interrupt
    from ..panels import PANELS, load_panel_class
    from ..service import ComputeService
    from ..widgets.plots import configure_pyqtgraph
    from ..widgets.styling import style_widgets
    from ..widgets.theming import theme_bus

    spec = {pid: s for pid, _title, s in PANELS}.get(panel_id)
    if spec is None:
        raise UsageError(
            f"--panel {panel_id} has no view to render; valid: {', '.join(p for p, _t, _s in PANELS)}"
        )
    from PySide6.QtCore import QCoreApplication, QEvent, Qt

    check_interrupt()  # pressed during the imports
    make_app()
    configure_pyqtgraph()
    theme = _theme(theme_name)
    bus = theme_bus()
    before = (bus.theme, bus.zoom)
    service = ComputeService(warm_up=False)
    panel = None
    on_stage = False  # the plot exported is the scene's plot in focus (laid out as it fills the stage)
    try:
        bus.set_look(theme, 1.0)  # the panel's plots are made in this theme and follow it
        panel = load_panel_class(spec)(service, state)
        panel.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        panel.resize(LAYOUT_WIDTH, LAYOUT_HEIGHT)
        look = ex.Look(theme, 1.0)
        style_widgets(panel, theme, ui_pt=look.base_pt)
        panel.show()
        if not ex.wait_drawn(panel, timeout_s):
            raise UsageError(f"the {panel_id} panel did not draw within {timeout_s:g} s")
        if panel.banner.isVisible() and panel.banner.text():
            raise UsageError(f"the {panel_id} panel reported an error: {panel.banner.text()}")
        if view is not None or layout:
            focus = _arrange(panel, panel_id, view, layout or {}, timeout_s)
            if plot is None and focus is not None:
                plot, on_stage = focus, True
        bus.set_look(theme, 1.0)  # the panel's own apply_theme, and its views built while drawing
        try:
            _write(panel, panel_id, out, look, width=width, plot=plot, slide=slide, list_plots=list_plots,
                   python=python, timeout_s=timeout_s, on_stage=on_stage, ranges=(layout or {}).get("ranges"))
        except ex.ExportError as exc:
            raise UsageError(str(exc)) from None
        check_interrupt()  # pressed while the image was being made: still honoured
    finally:
        if panel is not None:
            panel.shutdown()
            panel.hide()
            panel.deleteLater()
            # Deleted now, while Python runs: left to the interpreter's shutdown, a plot's scene was torn down after
            # Python's own objects, and a widget's Python override called on the way crashed it (1 run in 2).
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        service.stop()
        bus.set_look(*before)
    return 0


def _arrange(panel, panel_id: str, view: str | None, layout: dict, timeout_s: float) -> str | None:
    """The scene's view, splitters and ranges on ``panel`` (drawn for them); the name of its plot in focus.
    A name the panel does not have is said on stderr, as the window says it in its status bar."""
    import sys

    from .. import export as ex
    from ..export import slide as sl
    from ..export.scene import arrange, set_ranges

    missing = arrange(panel, view, layout)
    sl.settle()
    if not ex.wait_drawn(panel, timeout_s):
        raise UsageError(f"the {panel_id} panel did not draw within {timeout_s:g} s")
    missing += set_ranges(panel, layout.get("ranges", {}))
    focus = layout.get("focus")
    if focus is not None:
        try:
            sl.find_plot(panel, focus)
        except ValueError:
            missing.append(focus)
            focus = None
    if missing:
        print(f"note: the scene names {', '.join(missing)}, not on the {panel_id} panel", file=sys.stderr)
    return focus


def _write(panel, panel_id: str, out, look, *, width, plot, slide, list_plots, timeout_s: float,
           python: bool = False, on_stage: bool = False, ranges: dict | None = None) -> None:
    """List the plots, or write the panel, one plot or a slide of either (``ranges``: the scene's plot ranges,
    set again after every redraw: a plot laid out anew asks for its data again, and its answer sets its range)."""
    from .. import export as ex
    from ..export import slide as sl
    from ..export.scene import set_ranges
    from ..export.svg import plain_text

    def keep() -> None:
        if ranges:
            set_ranges(panel, ranges)

    def wait() -> None:
        if not ex.wait_drawn(panel, timeout_s):
            raise UsageError(f"the {panel_id} panel did not draw within {timeout_s:g} s")
        keep()

    if list_plots or plot is not None:
        sl.lay_out_all(panel, wait)  # plots on background tabs get their real size and labels
    if list_plots:
        for name, view in sl.named_plots(panel):
            print(f"{name}\t{plain_text(ex.plot_title(view))}")
        return
    if plot is not None:
        try:
            view = sl.find_plot(panel, str(plot))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        sl.tab_to(panel, view, wait)
        keep()
        if python:
            _print_python(panel, view, str(plot))
        elif slide is not None:
            sl.export_slide(view, out, slide, screen=look, wait=wait)
        elif on_stage:  # the plot in focus fills the stage: laid out at the panel's size, as in the window
            with sl.slide_layout(view, (LAYOUT_WIDTH, LAYOUT_HEIGHT), hide=False):
                ex.export_view_to_file(view, out, width=width or LAYOUT_WIDTH, screen=look)
        else:
            ex.export_view_to_file(view, out, width=width, screen=look)
    elif slide is not None:
        sl.export_slide(panel, out, slide, screen=look, wait=wait, title=f"PE Explorer — {panel_id}")
    else:
        ex.export_widget_to_file(
            panel, out, width=width or LAYOUT_WIDTH, screen=look, title=f"PE Explorer — {panel_id}"
        )


def _print_python(panel, view, name: str) -> None:
    """Print the plot's Copy-as-Python program (redirect it to a .py file); one line if it has none."""
    made = panel.export_snippet(view)
    code = getattr(made, "code", None)
    if code is None:
        raise UsageError(f"--plot {name}: no Python program: {made.reason}")
    print(code, end="")
