"""Presets: the built-in lecture scenes and the user's own saved states (no Qt).

A preset file is an :class:`~explorer.state.AppState` JSON (``{"version": 1, "panels": {...}}``)
with four optional top-level keys: ``title`` and ``description`` (shown in the Presets menu and
the scene bar), ``panel`` (the panel the scene brings to the front) and ``view`` (the tab of that
panel it opens, one of :data:`explorer.state.PANEL_VIEWS`).

Loading is all-or-nothing: the file is read, parsed and validated completely before anything is
returned, and every problem — a missing, unreadable or huge file, text that is not JSON, an unknown
version, panel or parameter, a value out of range — raises :class:`PresetError` with one clear line
naming the file.  Saving writes a temporary file and renames it (:mod:`explorer.fileio`), so a
failed save leaves neither a partial file nor a damaged old one.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .fileio import InputError, OutputError, atomic_write_text, clean_text, parse_json_text, read_text_file
from .settings import config_location
from .state import PANEL_STATES, PANEL_VIEWS, AppState, StateError

#: A preset is a few kilobytes; refuse anything that is clearly not one before reading it.
MAX_PRESET_BYTES = 1 << 20
#: Top-level keys a preset may add to the state file.
PRESET_KEYS = ("title", "description", "panel", "view", "layout")
#: A scene's layout: at most this many splitters and plot ranges, names this long.
MAX_LAYOUT_ITEMS, MAX_LAYOUT_NAME = 16, 60
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
    #: The view (tab) of ``panel`` the scene opens, one of :data:`explorer.state.PANEL_VIEWS` (None: as it is).
    view: str | None = None
    #: What the scene arranges on its panel: ``{"splitters": {name: [shares]}, "ranges": {plot: {"x": [lo, hi],
    #: "y": [lo, hi]}}}`` (checked here for shape; the names are looked up when the scene is applied).
    layout: dict | None = None
    builtin: bool = False
    path: Path | None = None
    #: The file gave a title (else :attr:`title` is made from the file name): only a titled preset
    #: is a scene worth naming in the window title when a session is restored.
    titled: bool = True


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


#: The most characters of a title that go into its file name (the name stays far below 255 bytes).
MAX_SLUG = 60


def slugify(title: str) -> str:
    """A file name stem for a user preset titled ``title``, readable in any script.

    Letters, marks and digits of every script are kept (lower-cased, NFC); anything else — spaces,
    punctuation, path separators, control characters — becomes one ``_``.  "Week 3!" and
    "week 3?" give the same stem: :func:`save_user_preset` adds a number when two titles meet.
    """
    text = unicodedata.normalize("NFC", title).lower()
    kept = "".join(c if unicodedata.category(c)[0] in "LMN" else "_" for c in text)
    s = re.sub(r"_+", "_", kept).strip("_")
    return s[:MAX_SLUG].rstrip("_") or "preset"


# -- reading -------------------------------------------------------------------------------------
def _json_kind(x: Any) -> str:
    if isinstance(x, str):
        return "a long text"
    return {dict: "an object", list: "a list", bool: "true/false", type(None): "null"}.get(type(x), "a number")


def _finite_numbers(value, n_min: int, n_max: int) -> bool:
    return (isinstance(value, list) and n_min <= len(value) <= n_max
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value))


def _checked_layout(layout, panel: str | None) -> dict | None:
    """A scene's ``layout`` checked for shape (PresetError, one line, naming what is wrong)."""
    if layout is None:
        return None
    if panel is None:
        raise PresetError("'layout' needs a 'panel' to arrange")
    if not isinstance(layout, dict) or set(layout) - {"splitters", "ranges", "focus"}:
        raise PresetError("'layout' must be an object with 'splitters', 'ranges' and/or 'focus'")
    out: dict = {}
    focus = layout.get("focus")
    if focus is not None:
        if not isinstance(focus, str) or not 0 < len(focus) <= MAX_LAYOUT_NAME:
            raise PresetError(f"'layout.focus' must be a plot's name of at most {MAX_LAYOUT_NAME} characters "
                              "(pe-explorer export --panel PANEL --list-plots)")
        out["focus"] = focus
    for key, rule in (("splitters", "a list of 2 to 8 shares > 0"),
                      ("ranges", "{\"x\": [lo, hi], \"y\": [lo, hi]} with lo < hi")):
        items = layout.get(key, {})
        if not isinstance(items, dict) or len(items) > MAX_LAYOUT_ITEMS:
            raise PresetError(f"'layout.{key}' must map at most {MAX_LAYOUT_ITEMS} names to {rule}")
        for name, value in items.items():
            shown = name if len(name) <= MAX_LAYOUT_NAME else name[:MAX_LAYOUT_NAME] + "…"
            if len(name) > MAX_LAYOUT_NAME:
                raise PresetError(f"'layout.{key}': the name {shown!r} is longer than {MAX_LAYOUT_NAME} characters")
            if key == "splitters":
                ok = _finite_numbers(value, 2, 8) and all(v > 0 for v in value)
            else:
                ok = (isinstance(value, dict) and bool(value) and set(value) <= {"x", "y"}
                      and all(_finite_numbers(v, 2, 2) and v[0] < v[1] for v in value.values()))
            if not ok:
                raise PresetError(f"'layout.{key}.{shown}' must be {rule}")
        out[key] = {k: (list(v) if key == "splitters" else {a: list(b) for a, b in v.items()})
                    for k, v in items.items()}
    return out


def parse_preset(
    text: str, *, name: str = "preset", path: Path | None = None, builtin: bool = False
) -> Preset:
    """Parse and validate preset text; raise :class:`PresetError` (nothing is built on error)."""
    try:
        data = parse_json_text(text, what="preset")
    except InputError as exc:
        raise PresetError(str(exc)) from None
    if not isinstance(data, dict):
        raise PresetError("not a PE Explorer preset: expected a JSON object with 'version' and 'panels'")
    title = data.get("title", "")
    description = data.get("description", "")
    panel = data.get("panel")
    if not isinstance(title, str) or len(title) > MAX_TITLE:
        raise PresetError(f"'title' must be text of at most {MAX_TITLE} characters")
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
        raise PresetError(f"'description' must be text of at most {MAX_DESCRIPTION} characters")
    if panel is not None and (not isinstance(panel, str) or panel not in PANEL_STATES):
        shown = repr(panel) if isinstance(panel, str) and len(panel) <= 40 else f"{_json_kind(panel)}"
        raise PresetError(f"'panel' must be one of {', '.join(PANEL_STATES)}; got {shown}")
    view = data.get("view")
    if view is not None:
        views = PANEL_VIEWS.get(panel or "", ())
        if not views:
            raise PresetError(f"'view' needs a 'panel' with views ({', '.join(PANEL_VIEWS)})")
        if not isinstance(view, str) or view not in views:
            shown = repr(view) if isinstance(view, str) and len(view) <= 40 else _json_kind(view)
            raise PresetError(f"'view' of {panel} must be one of {', '.join(views)}; got {shown}")
    layout = _checked_layout(data.get("layout"), panel)
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
        view=view,
        layout=layout,
        builtin=builtin,
        path=path,
        titled=bool(title.strip()),
    )


def read_named_file(path: str | Path, *, limit: int, what: str, error: type[Exception], parse) -> Any:
    """Read the text file ``path`` (at most ``limit`` bytes) and return ``parse(text, path)``.

    Every problem — a missing, huge, unreadable or empty file, or what ``parse`` raises as ``error`` —
    raises ``error`` with one line naming the file (presets and lessons share this)."""
    p = Path(path)
    where = p.name or str(p)
    try:
        text = read_text_file(p, limit=limit, what=what)
    except InputError as exc:
        raise error(str(exc)) from None
    if not text.strip():
        raise error(f"{where}: the file is empty")
    try:
        return parse(text, p)
    except error as exc:
        raise error(f"{where}: {exc}") from None


def load_preset(path: str | Path, *, builtin: bool = False) -> Preset:
    """Read, parse and validate a preset file; raise :class:`PresetError` naming the file."""
    return read_named_file(path, limit=MAX_PRESET_BYTES, what="preset", error=PresetError,
                           parse=lambda text, p: parse_preset(text, name=preset_name(p), path=p, builtin=builtin))


def _json_files(folder: Path) -> list[Path]:
    try:
        # Not only regular files: a FIFO, a device or a dangling link named *.json is listed as broken
        # (the reader refuses it by name, without opening it), rather than silently skipped.
        return sorted(f for f in folder.glob("*.json") if not f.is_dir())
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


def find_scene(ref: str) -> Preset:
    """A built-in lecture scene by its number in lesson order (1 = the first), its name or its title
    (case, order numbers, '-', '_' and spaces aside); PresetError listing the scenes if there is none."""
    files = _json_files(builtin_dir())
    text = str(ref).strip()
    if text.isdigit():
        n = int(text)
        if 1 <= n <= len(files):
            return load_preset(files[n - 1], builtin=True)
    else:
        want = _norm(text)
        for f in files:
            if _norm(f.stem) == want:
                return load_preset(f, builtin=True)
        for scene in builtin_presets():
            if _norm(scene.title) == want:
                return scene
    listed = "; ".join(f"{i} {preset_name(f)}" for i, f in enumerate(files, 1))
    shown = text if len(text) <= 40 else text[:40] + "…"
    raise PresetError(f"no lecture scene {shown!r}; the scenes are {listed}")


# -- writing -------------------------------------------------------------------------------------
def preset_json(state: AppState, *, title: str = "", description: str = "", panel: str | None = None,
                view: str | None = None) -> str:
    """The preset file text for ``state`` (title and description first, for people reading it)."""
    doc: dict[str, Any] = {}
    if title:
        doc["title"] = title
    if description:
        doc["description"] = description
    if panel:
        doc["panel"] = panel
        if view in PANEL_VIEWS.get(panel, ()):
            doc["view"] = view
    doc.update(state.to_json_dict())
    # A lone surrogate (pasted, or read from a "\\ud800" escape) cannot be written as UTF-8: it would
    # make the file — and so the session — unsavable.  Written as U+FFFD instead.
    return clean_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"


def save_preset(
    path: str | Path, state: AppState, *, title: str = "", description: str = "", panel: str | None = None,
    view: str | None = None,
) -> Path:
    """Write a preset atomically; raise :class:`PresetError` (and write nothing) on failure."""
    if title and len(title) > MAX_TITLE:
        raise PresetError(f"a preset title may have at most {MAX_TITLE} characters")
    if panel is not None and panel not in PANEL_STATES:
        panel = None
    text = preset_json(state, title=title, description=description, panel=panel, view=view)
    try:
        return atomic_write_text(path, text)
    except OutputError as exc:
        raise PresetError(str(exc)) from None


class PresetExists(PresetError):
    """A preset of the same title is saved already (``path``): ask before overwriting it."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


def _saved_title(path: Path) -> str | None:
    try:
        return load_preset(path).title
    except PresetError:
        return None


def user_preset_path(title: str) -> tuple[Path, bool]:
    """Where :func:`save_user_preset` puts ``title``, and whether that file is this title's already.

    ``<slug>.json``, or ``<slug>-2.json``, ``-3``, … when a file of that name holds another title
    (or is not a preset at all): two titles never share a file, and a file is only ever replaced
    by a preset of its own title.
    """
    title = clean_text(title.strip())
    stem = slugify(title)
    folder = user_dir()
    for n in range(1, 10_000):
        path = folder / (f"{stem}.json" if n == 1 else f"{stem}-{n}.json")
        if not (path.exists() or path.is_symlink()):
            return path, False
        if _saved_title(path) == title:
            return path, True
    raise PresetError(f"too many presets named like {title!r}")


def save_user_preset(
    title: str, state: AppState, *, description: str = "", panel: str | None = None, overwrite: bool = False,
    view: str | None = None,
) -> Path:
    """Save into the user's preset folder under a unique, readable name (the folder is created).

    A preset of the same title is replaced only with ``overwrite=True``; otherwise
    :class:`PresetExists` names its file, so the caller can ask first.
    """
    title = clean_text(title.strip())
    if not title:
        raise PresetError("give the preset a name")
    folder = user_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PresetError(f"cannot create the presets folder {folder}: {exc.strerror or exc}") from None
    path, same = user_preset_path(title)
    if same and not overwrite:
        raise PresetExists(f"a preset named {title!r} exists already ({path.name})", path)
    return save_preset(path, state, title=title, description=clean_text(description), panel=panel, view=view)
