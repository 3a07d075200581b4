"""``pe-explorer``: bare (or with GUI options) opens the app; subcommands work headless.

Every bad argument exits with status 2 and one clear line on stderr — no traceback, no file.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys

from .interrupts import exit_at_once

#: Subcommand modules; each has ``add_parser(subparsers)`` and registers ``func`` on its parser.
COMMANDS = (
    "explorer.commands.data",
    "explorer.commands.bench",
    "explorer.commands.export",
    "explorer.commands.lab",
    "explorer.commands.schemes",
    "explorer.commands.lesson",
)


class UsageError(Exception):
    """A bad argument found after parsing (exit 2 with this message)."""


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports errors in one line (``prog: error: message``) and exits 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message}\n")


class _MoreThanTheApp(Exception):
    """Raised by :func:`app_args`'s parser where the full parser must answer."""


class _AppOnlyParser(OneLineParser):
    def error(self, message: str):  # noqa: D401 - argparse API
        raise _MoreThanTheApp(message)


def app_args(argv: list[str]):
    """``argv`` parsed as the bare app's own options, or None when it asks for more (a command, ``-h``) or
    is wrong — then :func:`build_parser` answers.  Opening the window so does not import every command
    module (each brings its own imports: the scheme registry, export, …)."""
    parser = _AppOnlyParser(prog="pe-explorer", add_help=False)
    _add_app_options(parser)
    try:
        args, rest = parser.parse_known_args(argv)
    except _MoreThanTheApp:
        return None
    if rest:
        return None
    args.command = None
    return args


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="pe-explorer",
        description="PE Explorer: see, live, how transformers learn word order. "
        "Without a subcommand it opens the app.",
    )
    _add_app_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


def _add_app_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--screenshot", metavar="FILE.png", help="start, wait for every panel, save the window, exit")
    parser.add_argument("--panel", help="the panel to bring to the front (waves, swap, schemes, lab, table)")
    parser.add_argument("--checkpoint", metavar="PATH",
                        help="open the app on this checkpoint's learned position table (.safetensors, .bin/.pt, "
                             "or a Hugging Face model folder / cache entry)")
    parser.add_argument("--config", dest="model_config", metavar="F",
                        help="open the Schemes panel on this model's RoPE (its config.json, or the model's folder)")
    parser.add_argument("--reset-layout", action="store_true",
                        help="start with the default layout and parameters (what you do then is saved on close)")
    add_renderer_option(parser)


def add_renderer_option(parser: argparse.ArgumentParser) -> None:
    from .widgets.renderer import ENV, RENDERERS

    parser.add_argument("--renderer", choices=RENDERERS, default=None,
                        help=f"what paints the plots on screen: raster (QPainter in software, the default) or "
                             f"opengl (where the graphics driver has it; else raster, said). Also ${ENV}. "
                             "Exports are the same either way")


def _check_screenshot(parser: OneLineParser, path: str) -> None:
    """``--screenshot`` names a file that can be written — checked before the window starts (an empty name
    would otherwise start the interactive app; a device or a FIFO would be waited on, or replaced)."""
    from .fileio import OutputError, check_output

    if not path.strip():
        parser.error("--screenshot needs a file name (FILE.png), got an empty one")
    try:
        check_output(path)
    except OutputError as exc:
        parser.error(f"--screenshot: {exc}")


def main(argv: list[str] | None = None) -> int:
    as_program = argv is None  # the console script and ``python -m explorer``, not a test's call
    if as_program:
        # Until a command runs there is nothing to stop or save: Ctrl+C leaves at once (a
        # KeyboardInterrupt inside an extension's import turns into a confusing ImportError).
        signal.signal(signal.SIGINT, exit_at_once)
    try:
        return _main(list(sys.argv[1:] if argv is None else argv), as_program)
    except BrokenPipeError:
        # The reader of our output left (``pe-explorer schemes | head``): stop quietly, as a shell tool dies of
        # SIGPIPE; Python's flush of stdout at exit would raise again, so stdout goes to /dev/null first.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 128 + 13
    except KeyboardInterrupt:  # Ctrl+C in start-up (imports, parsing) or in a command
        print("interrupted", file=sys.stderr)
        _stop_workers()
        if as_program:
            # The workers are joined; the interpreter's own shutdown after an interrupt (torch's and
            # Qt's teardown) sometimes died of the signal after all (exit -2, 1 run in 6): leave now.
            _leave(130)
        return 130
    finally:
        if as_program:
            # The work is done: a Ctrl+C while the interpreter shuts down must not print a traceback.
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _leave(status: int) -> None:
    """Flush what was printed and exit without the interpreter's shutdown."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


def _stop_workers() -> None:
    """Join the compute workers a command left running, so the interpreter never shuts down under
    one (a crash); if one does not end in time, leave without shutting the interpreter down."""
    service = sys.modules.get("explorer.service")
    if service is not None and not service.stop_all(10.0):
        _leave(130)


def _main(argv: list[str], as_program: bool = False) -> int:
    args = app_args(argv)
    parser = OneLineParser(prog="pe-explorer")  # its error(): one line, exit 2 (as the full parser's)
    if args is None:
        parser = build_parser()
        args = parser.parse_args(argv)
    if args.version:
        from . import __version__

        print(f"pe-explorer {__version__}")
        return 0
    if args.command is None:
        if args.screenshot is not None:
            _check_screenshot(parser, args.screenshot)
        if args.checkpoint is not None and not os.path.exists(os.path.expanduser(args.checkpoint)):
            parser.error(f"--checkpoint {args.checkpoint}: no such file or folder")
        if args.model_config is not None:  # read before the window opens: a bad config is one line, no window
            from .encodings import EncodingError
            from .encodings.rope_config import read_config

            try:
                read_config(os.path.expanduser(args.model_config))
            except EncodingError as exc:
                parser.error(f"--config: {exc}")
        from .app import run_app

        return run_app(args)
    if as_program:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the commands stop their work on it
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"pe-explorer {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
