"""Where the app keeps its settings (window layout, last session, presets): one folder, overridable.

``PE_EXPLORER_HOME`` points it elsewhere (the tests use a temporary folder so they never touch
a user's settings); else ``$XDG_CONFIG_HOME/pe-explorer`` (an absolute ``XDG_CONFIG_HOME`` only, as
the XDG spec says), else ``~/.config/pe-explorer``.

The folder may be unusable — ``PE_EXPLORER_HOME`` names a file, the home folder is read-only, there
is no home folder at all.  Nothing here raises for that: :func:`config_dir` still returns a path
(reading from it finds nothing, writing to it fails with the writer's own error) and
:func:`config_problem` says, in one line, why the folder cannot be used.  The window then starts
with its settings disabled (see :class:`explorer.main_window.MainWindow`); the headless commands
never need the folder.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

#: Stands in for the folder when there is no home folder at all (HOME unset and no entry in the
#: user database): every operation under it fails with "not a directory", on every platform.
NO_HOME = Path(os.devnull) / "pe-explorer"

#: Temporary files of :func:`explorer.fileio.atomic_write_bytes` (``.<name>.<8 random>.part``).
TEMP_PATTERN = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.part$")
#: A temporary file younger than this may belong to another instance writing right now.
TEMP_GRACE_S = 10.0


def config_location() -> Path:
    """The settings folder's path, not created and not checked (never raises)."""
    env = os.environ.get("PE_EXPLORER_HOME")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME")
    if base and os.path.isabs(base):
        return Path(base) / "pe-explorer"
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):  # HOME unset and the user has no entry (a container's uid)
        return NO_HOME
    return home / ".config" / "pe-explorer"


def home_folder() -> Path:
    """Where file dialogs start: the home folder, or the working folder when there is none."""
    try:
        return Path.home()
    except (RuntimeError, KeyError, OSError):
        return Path.cwd()


def config_dir() -> Path:
    """The settings folder, created on demand when that is possible.

    Never raises: when the folder cannot be used the path is returned anyway (see the module
    docstring); :func:`config_problem` tells why.
    """
    path = config_location()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    return path


def config_problem() -> str | None:
    """``None`` if the settings folder exists (or was just created) and is writable, else why not."""
    path = config_location()
    if path == NO_HOME:
        return "there is no home folder (HOME is not set); set PE_EXPLORER_HOME to a folder for the settings"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        return f"{path} is not a folder"
    except NotADirectoryError:
        return f"{path} cannot be created: a part of it is a file, not a folder"
    except OSError as exc:
        return f"{path} cannot be created: {exc.strerror or exc}"
    if not path.is_dir():  # a symlink to a file, a dangling one
        return f"{path} is not a folder"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"{path} is not writable"
    return None


def remove_stale_temp_files(folder: Path | None = None, *, grace_s: float = TEMP_GRACE_S) -> list[Path]:
    """Delete temporary files that interrupted writes left in the settings folder (and its
    ``presets/``); returns what was removed.

    Only regular files of our own pattern (``.session.json.a1b2c3d4.part``) older than ``grace_s``
    seconds go: a younger one may be another running instance's write in progress.
    """
    folder = config_location() if folder is None else folder
    removed: list[Path] = []
    now = time.time()
    for where in (folder, folder / "presets"):
        try:
            entries = list(os.scandir(where))
        except OSError:
            continue
        for entry in entries:
            if not TEMP_PATTERN.match(entry.name):
                continue
            try:
                if not entry.is_file(follow_symlinks=False):
                    continue
                if now - entry.stat(follow_symlinks=False).st_mtime < grace_s:
                    continue
                os.unlink(entry.path)
            except OSError:
                continue
            removed.append(Path(entry.path))
    return removed
