"""Presets: the built-in lecture scenes and the user's own saved states (no Qt).

A preset file is an :class:`~explorer.state.AppState` JSON (``{"version": 1, "panels": {...}}``)
with three optional top-level keys: ``title`` and ``description`` (shown in the Presets menu and
the scene bar) and ``panel`` (the panel the scene brings to the front).

Loading is all-or-nothing: the file is read, parsed and validated completely before anything is
returned, and every problem — a missing, unreadable or huge file, text that is not JSON, an unknown
version, panel or parameter, a value out of range — raises :class:`PresetError` with one clear line
naming the file.  Saving writes a temporary file and renames it (:mod:`explorer.fileio`), so a
failed save leaves neither a partial file nor a damaged old one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .fileio import OutputError, atomic_write_text
from .settings import config_location
from .state import PANEL_STATES, AppState, StateError

#: A preset is a few kilobytes; refuse anything that is clearly not one before reading it.
MAX_PRESET_BYTES = 1 << 20
#: Top-level keys a preset may add to the state file.
PRESET_KEYS = ("title", "description", "panel")
MAX_TITLE = 120
MAX_DESCRIPTION = 4000


class PresetError(StateError):
    """A preset could not be loaded or saved (one line, naming the file)."""


@dataclass(frozen=True)
class Preset:
    """A loaded, fully validated preset."""

    name: str
    title: str
    description: str
    state: AppState
    panel: str | None = None
    builtin: bool = False
    path: Path | None = None


# -- where presets live --------------------------------------------------------------------------
def builtin_dir() -> Path:
    """The folder of the built-in lecture scenes (resources/presets)."""
    from .paths import resource_path

    return resource_path("presets")


def user_dir() -> Path:
    """The folder of the user's own presets (inside the settings folder; created when first saving).

    Only a path: looking a preset up (``export --preset``) never creates the settings folder."""
    return config_location() / "presets"


def preset_name(path: str | Path) -> str:
    """The name a preset file answers to: its stem without a leading order number ("01_waves" -> "waves")."""
    stem = Path(path).stem
    return re.sub(r"^\d+[_\-\s]+", "", stem).lower() or stem.lower()


def _norm(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", preset_name(name.strip()))


def slugify(title: str) -> str:
    """A file name for a user preset titled ``title``."""
    s = re.sub(r"[^0-9A-Za-z]+", "_", title).strip("_").lower()
    return s[:60] or "preset"


# -- reading -------------------------------------------------------------------------------------
def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    seen: dict = {}
    for k, v in pairs:
        if k in seen:
            raise PresetError(f"the key {k!r} appears twice")
        seen[k] = v
    return seen


def parse_preset(
    text: str, *, name: str = "preset", path: Path | None = None, builtin: bool = False
) -> Preset:
    """Parse and validate preset text; raise :class:`PresetError` (nothing is built on error)."""
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise PresetError(f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise PresetError("not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise PresetError("not a PE Explorer preset: expected a JSON object with 'version' and 'panels'")
    title = data.get("title", "")
    description = data.get("description", "")
    panel = data.get("panel")
    if not isinstance(title, str) or len(title) > MAX_TITLE:
        raise PresetError(f"'title' must be text of at most {MAX_TITLE} characters")
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
        raise PresetError(f"'description' must be text of at most {MAX_DESCRIPTION} characters")
    if panel is not None and panel not in PANEL_STATES:
        raise PresetError(f"'panel' must be one of {', '.join(PANEL_STATES)}; got {panel!r}")
    try:
        state = AppState.from_json_dict(data, extra_keys=PRESET_KEYS)
    except StateError as exc:
        raise PresetError(str(exc)) from None
    return Preset(
        name=name,
        title=title.strip() or name.replace("_", " "),
        description=description.strip(),
        state=state,
        panel=panel,
        builtin=builtin,
        path=path,
    )


def load_preset(path: str | Path, *, builtin: bool = False) -> Preset:
    """Read, parse and validate a preset file; raise :class:`PresetError` naming the file."""
    p = Path(path)
    where = p.name or str(p)
    try:
        if not p.exists():
            raise PresetError(
                f"{p}: no such file" if p.parent.is_dir() else f"{p}: folder {p.parent} does not exist"
            )
        if p.is_dir():
            raise PresetError(f"{p} is a folder, not a preset file")
        size = p.stat().st_size
        if size > MAX_PRESET_BYTES:
            raise PresetError(
                f"{where}: file too large for a preset ({size / 1e6:.1f} MB; at most "
                f"{MAX_PRESET_BYTES // 1024} KB)"
            )
        with open(p, "rb") as fh:
            raw = fh.read(MAX_PRESET_BYTES + 1)
    except OSError as exc:
        raise PresetError(f"cannot read {p}: {exc.strerror or exc}") from None
    if len(raw) > MAX_PRESET_BYTES:
        raise PresetError(f"{where}: file too large for a preset (more than {MAX_PRESET_BYTES // 1024} KB)")
    if not raw.strip():
        raise PresetError(f"{where}: the file is empty")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PresetError(f"{where}: not a text file (not UTF-8) — not a preset") from None
    try:
        return parse_preset(text, name=preset_name(p), path=p, builtin=builtin)
    except PresetError as exc:
        raise PresetError(f"{where}: {exc}") from None


def _json_files(folder: Path) -> list[Path]:
    try:
        return sorted(f for f in folder.glob("*.json") if f.is_file())
    except OSError:
        return []


def builtin_presets() -> list[Preset]:
    """The built-in lecture scenes, in lesson order (a broken one raises: it is a bug)."""
    return [load_preset(f, builtin=True) for f in _json_files(builtin_dir())]


def user_presets() -> tuple[list[Preset], list[str]]:
    """The user's presets that load, and one message per file that does not."""
    good, bad = [], []
    folder = user_dir()
    if not folder.is_dir():
        return [], []
    for f in _json_files(folder):
        try:
            good.append(load_preset(f))
        except PresetError as exc:
            bad.append(str(exc))
    return good, bad


def find_preset(ref: str) -> Preset:
    """A preset by file path (anything ending in .json or an existing file) or by name.

    Names are matched without order numbers, case, and with '-'/' ' equal to '_' — built-in scenes
    first, then the user's presets.
    """
    if ref.lower().endswith(".json") or Path(ref).is_file():
        return load_preset(ref)
    want = _norm(ref)
    candidates = [(f, True) for f in _json_files(builtin_dir())]
    if user_dir().is_dir():
        candidates += [(f, False) for f in _json_files(user_dir())]
    for f, builtin in candidates:
        if _norm(f.stem) == want or f.stem.lower() == ref.lower():
            return load_preset(f, builtin=builtin)
    names = [preset_name(f) for f, _ in candidates]
    raise PresetError(f"no preset named {ref!r}; valid: {', '.join(names)} (or a .json file)")


# -- writing -------------------------------------------------------------------------------------
def preset_json(state: AppState, *, title: str = "", description: str = "", panel: str | None = None) -> str:
    """The preset file text for ``state`` (title and description first, for people reading it)."""
    doc: dict[str, Any] = {}
    if title:
        doc["title"] = title
    if description:
        doc["description"] = description
    if panel:
        doc["panel"] = panel
    doc.update(state.to_json_dict())
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def save_preset(
    path: str | Path, state: AppState, *, title: str = "", description: str = "", panel: str | None = None
) -> Path:
    """Write a preset atomically; raise :class:`PresetError` (and write nothing) on failure."""
    if title and len(title) > MAX_TITLE:
        raise PresetError(f"a preset title may have at most {MAX_TITLE} characters")
    if panel is not None and panel not in PANEL_STATES:
        panel = None
    text = preset_json(state, title=title, description=description, panel=panel)
    try:
        return atomic_write_text(path, text)
    except OutputError as exc:
        raise PresetError(str(exc)) from None


def save_user_preset(
    title: str, state: AppState, *, description: str = "", panel: str | None = None, overwrite: bool = True
) -> Path:
    """Save into the user's preset folder as ``<slug of title>.json`` (the folder is created)."""
    title = title.strip()
    if not title:
        raise PresetError("give the preset a name")
    folder = user_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PresetError(f"cannot create the presets folder {folder}: {exc.strerror or exc}") from None
    path = folder / f"{slugify(title)}.json"
    if path.exists() and not overwrite:
        raise PresetError(f"a preset named {path.stem!r} exists already")
    return save_preset(path, state, title=title, description=description, panel=panel)
