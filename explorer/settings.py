"""Where the app keeps its settings (window layout, last session, presets): one folder, overridable; and
the settings file itself (``settings.json``: plain values only, each checked when read).

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

import base64
import binascii
import json
import logging
import math
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .fileio import InputError, OutputError, atomic_write_text, parse_json_text, read_text_file

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


# -- the settings file -----------------------------------------------------------------------------
# The window's settings (layout, look, export choices) are plain JSON read through the one safe
# reader (explorer.fileio): strings, numbers, true/false and base64 text for the two Qt layout blobs.
# QSettings is not used to read them: reading *any* key of an INI file with QSettings decodes every
# "@Variant(...)" value in it, and PySide6 unpickles a PyObjectWrapper variant — a crafted window.ini
# ran any command at start.  An old window.ini is still read once, as plain text, for the keys that
# are plain text there; its "@" values are never decoded.

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
#: Where earlier versions kept the settings (QSettings' INI format); read once, as plain text.
LEGACY_INI = "window.ini"
#: The settings are about 2 KB; anything much larger is not ours.
MAX_SETTINGS_BYTES = 256 * 1024
SETTINGS_VERSION = 1


class SettingsError(ValueError):
    """A setting's value is not of its kind (the message says what it should be)."""


def _text(v: Any) -> str:
    if not isinstance(v, str) or len(v) > 4096:
        raise SettingsError("expected text")
    return v


def _flag(v: Any) -> bool:
    if not isinstance(v, bool):
        raise SettingsError("expected true or false")
    return v


def _finite(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise SettingsError("expected a finite number")
    return float(v)


def _blob(v: Any) -> bytes:
    if not isinstance(v, str) or len(v) > 64 * 1024:
        raise SettingsError("expected base64 text")
    try:
        return base64.b64decode(v.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise SettingsError("expected base64 text") from None


#: Every setting the app keeps: key -> the check that turns a stored value into the value (or raises).
SETTINGS: dict[str, Callable[[Any], Any]] = {
    "geometry": _blob,
    "state": _blob,
    "view/theme": _text,
    "view/presenter": _flag,
    "view/safe_maps": _flag,
    "view/zoom": _finite,
    "export/print": _flag,
    "export/presenter_slides": _flag,
    "export/folder": _text,
    "welcome/done": _flag,
    "lesson/name": _text,
    "lesson/step": _finite,
}


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


def _checked(raw: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The known, well-typed settings of ``raw``; each other key is named in the log and dropped."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        check = SETTINGS.get(key)
        if check is None:
            log.warning("%s: unknown setting %r ignored", source, key[:60])
            continue
        try:
            out[key] = check(value)
        except SettingsError as exc:
            log.warning("%s: setting %r ignored (%s)", source, key, exc)
    return out


_C_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, '"': 34, "'": 39, "?": 63, "\\": 92}


def _ini_bytes(text: str) -> bytes:
    """The bytes of an INI ``@ByteArray(...)`` body, undoing QSettings' C-style escapes.

    Only bytes come out (the window layout's own format, which Qt checks when it restores it): no
    Qt type is built and nothing is deserialised.
    """
    out = bytearray()
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            continue
        if c != "\\" or i + 1 == n:
            out.append(ord(c) & 0xFF)
            i += 1
            continue
        e = text[i + 1]
        if e in _C_ESCAPES:
            out.append(_C_ESCAPES[e])
            i += 2
        elif e == "x":
            j = i + 2
            while j < n and j < i + 6 and text[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(text[i + 2:j] or "0", 16) & 0xFF)
            i = j
        elif e in "01234567":
            j = i + 1
            while j < n and j < i + 4 and text[j] in "01234567":
                j += 1
            out.append(int(text[i + 1:j], 8) & 0xFF)
            i = j
        else:
            i += 2
    return bytes(out)


def _legacy_value(key: str, text: str) -> Any:
    """A window.ini value (as QSettings wrote plain values) in the JSON form of ``key``."""
    if SETTINGS[key] is _blob:
        if len(text) >= 2 and text[0] == text[-1] == '"':
            text = text[1:-1]
        if not (text.startswith("@ByteArray(") and text.endswith(")")):
            raise SettingsError("expected @ByteArray(...)")
        return base64.b64encode(_ini_bytes(text[len("@ByteArray("):-1])).decode("ascii")
    if text.startswith("@"):
        # "@Variant(...)" and the like: Qt-serialised objects (a Python one is a pickle), never decoded.
        raise SettingsError("a serialised Qt value, not read")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    check = SETTINGS[key]
    if check is _flag:
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise SettingsError("expected true or false")
    if check is _finite:
        if len(text) > 64:
            raise SettingsError("expected a finite number")
        try:
            return float(text)
        except ValueError:
            raise SettingsError("expected a finite number") from None
    return text


_LEGACY_SECTIONS = ("General", "view", "export")


def _read_legacy_ini(path: Path) -> dict[str, Any]:
    """The plain-text settings of an old window.ini, read line by line as text (no QSettings)."""
    try:
        text = read_text_file(path, limit=MAX_SETTINGS_BYTES, what="settings file")
    except InputError as exc:
        log.warning("%s ignored: %s", path, exc)
        return {}
    raw: dict[str, Any] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            if section not in _LEGACY_SECTIONS:
                log.warning("%s: unknown section %r ignored", path.name, section[:60])
            continue
        name, eq, value = line.partition("=")
        if not eq:
            log.warning("%s: line %r ignored", path.name, line[:60])
            continue
        name = name.strip()
        key = name if section in ("", "General") else f"{section}/{name}"
        if key not in SETTINGS:
            log.warning("%s: unknown setting %r ignored", path.name, key[:60])
            continue
        try:
            raw[key] = _legacy_value(key, value.strip())
        except SettingsError as exc:
            log.warning("%s: setting %r ignored (%s)", path.name, key, exc)
    return _checked(raw, path.name)


def load_settings() -> dict[str, Any]:
    """The saved settings, each checked on its own: key -> value (``geometry``/``state`` as bytes).

    Never raises: a missing, unreadable or malformed file gives ``{}``, and an unknown or ill-typed
    key is dropped; each problem is one line in the log.  Without a settings file yet, the plain-text
    keys of an old ``window.ini`` are taken over (its serialised Qt values are not read).
    """
    try:
        path = settings_path()
        if not (path.exists() or path.is_symlink()):
            legacy = path.with_name(LEGACY_INI)
            return _read_legacy_ini(legacy) if legacy.exists() else {}
    except OSError as exc:
        log.warning("settings not read: %s", exc.strerror or exc)
        return {}
    try:
        text = read_text_file(path, limit=MAX_SETTINGS_BYTES, what="settings file")
        data = parse_json_text(text, what="settings file", lenient_numbers=True)  # NaN: that key only
    except InputError as exc:
        log.warning("%s ignored: %s", path, exc)
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("settings"), dict):
        log.warning("%s ignored: not a PE Explorer settings file", path)
        return {}
    return _checked(data["settings"], path.name)


def _stored(key: str, value: Any) -> Any:
    if SETTINGS[key] is _blob:
        return base64.b64encode(bytes(value)).decode("ascii")
    return SETTINGS[key](value)


def save_settings(values: Mapping[str, Any]) -> Path:
    """Write ``values`` over the saved settings (atomically); raise :class:`OutputError`.

    Only known keys of the right kind are written (a wrong one is a bug: :class:`SettingsError`).
    """
    merged = {k: _stored(k, v) for k, v in load_settings().items()}
    for key, value in values.items():
        if key not in SETTINGS:
            raise SettingsError(f"unknown setting {key!r}")
        merged[key] = _stored(key, value)
    doc = {"version": SETTINGS_VERSION, "settings": merged}
    return atomic_write_text(settings_path(), json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def setting(key: str, default: Any = None) -> Any:
    """One saved setting (``default`` when it is absent or was ill-typed)."""
    return load_settings().get(key, default)


__all__ = ["OutputError", "SettingsError", "config_dir", "config_location", "config_problem", "home_folder",
           "load_settings", "remove_stale_temp_files", "save_settings", "setting"]
