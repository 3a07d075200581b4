"""Writing arrays and files safely (no Qt): atomic writes and the --out formats.

Every write goes to a temporary file in the target folder and is then renamed over the
target, so a failing write (full disk, killed process) never leaves a partial file and
never destroys the previous one.  The write keeps an existing file's mode (a new file gets
the user's umask), follows a symlink to its target, refuses to replace anything that is not
a regular file (a folder, a FIFO, /dev/null), and removes its own temporary files left over
by a killed write.  :func:`check_output` checks an output path before the work starts.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import stat
import tempfile
import time
from pathlib import Path

import numpy as np

ARRAY_FORMATS = (".npy", ".csv", ".json")
#: Largest array written as text (CSV/JSON).  Text costs 10–25 times the array's memory while it is
#: built (JSON: a Python float per number, then the string), so an array near the maths layer's
#: MAX_ELEMENTS (1 GiB of float64) would need 10–25 GiB: refused, with .npy (the array's own size)
#: offered instead.  16.7 M numbers are about 0.4 GB of text.
MAX_TEXT_ELEMENTS = 2**24


class OutputError(OSError):
    """A file could not be written (the message names the path and why)."""


#: A temporary file of ours is ``.<target name>.<8 random characters>.part`` (tempfile.mkstemp's names).
_PART_SUFFIX = ".part"
#: A temporary file older than this is left over from a write that was killed: it is removed.
STALE_PART_S = 60.0


def _umask() -> int:
    """The process's umask, read without changing it (Linux); else set and put back at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def resolve_output(path: str | os.PathLike) -> tuple[Path, os.stat_result | None]:
    """The file a write to ``path`` replaces (a symlink is followed to its target) and its stat, or None.

    Raise :class:`OutputError` when the folder is missing or the target exists and is not a regular file
    (a folder, a FIFO, a device such as /dev/null): such a target is never replaced by a file.
    """
    given = Path(path)
    if not str(path):
        raise OutputError("cannot write an empty file name")
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    folder = target.parent if str(target.parent) else Path(".")
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"cannot write {given}: {exc.strerror or exc}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(f"cannot write {given}: it is {not_regular(st.st_mode)}, not a regular file; not replaced")
    if not folder.is_dir():
        raise OutputError(f"cannot write {given}: folder {folder} does not exist")
    return target, st


def check_output(path: str | os.PathLike) -> Path:
    """Check before the work that ``path`` can be written: folder exists and takes a new file, target is absent
    or a regular file.  Return the file that will be written; raise :class:`OutputError`."""
    target, _st = resolve_output(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        # The only sure test (read-only mounts, ACLs, root): make, then remove, a temporary file there.
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=_PART_SUFFIX, dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: folder {folder}: {exc.strerror or exc}") from None
    return target


def remove_stale_parts(target: Path, older_than_s: float = STALE_PART_S) -> list[Path]:
    """Remove our temporary files for ``target`` (``.name.XXXXXXXX.part``) older than ``older_than_s``."""
    folder = target.parent if str(target.parent) else Path(".")
    pattern = re.compile(r"\." + re.escape(target.name) + r"\.[A-Za-z0-9_]{8}" + re.escape(_PART_SUFFIX))
    now = time.time()
    removed: list[Path] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if not pattern.fullmatch(name):
            continue
        p = folder / name
        try:
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime > older_than_s:
                os.unlink(p)
                removed.append(p)
        except OSError:
            pass
    return removed


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file next to it, fsync and a rename; raise :class:`OutputError`.

    A symlink is followed (its target is written, the link stays); an existing file keeps its mode, a new one
    gets the user's umask; a target that is not a regular file is refused; stale temporary files of ours
    next to the target are removed first.
    """
    given = Path(path)
    target, st = resolve_output(given)
    folder = target.parent if str(target.parent) else Path(".")
    remove_stale_parts(target)
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=_PART_SUFFIX, dir=folder)
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
        _fsync_folder(folder)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise OutputError(f"cannot write {given}: {reason}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return given


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every file system lets a folder be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def _json_safe(x):
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, list):
        return [_json_safe(v) for v in x]
    return x


def array_to_json_obj(arr: np.ndarray) -> dict:
    """``{"shape": [...], "data": nested lists}``; −inf/inf/NaN become null (JSON has no infinity)."""
    a = np.asarray(arr)
    return {"shape": list(a.shape), "data": _json_safe(a.tolist())}


def check_array_format(path: str | os.PathLike, ndim: int | None = None) -> str:
    """The output format from the extension; raise ValueError for an unknown one or CSV of 3-D data."""
    ext = Path(path).suffix.lower()
    if ext not in ARRAY_FORMATS:
        raise ValueError(f"--out must end in {', '.join(ARRAY_FORMATS)}; got {str(path)!r}")
    if ext == ".csv" and ndim is not None and ndim > 2:
        raise ValueError(f"CSV holds 1-D or 2-D data; this result is {ndim}-D — use .npy or .json")
    return ext


def check_array_size(path: str | os.PathLike, shape: tuple[int, ...]) -> str:
    """Before computing: the format of ``path`` takes an array of ``shape`` (CSV: 1-D/2-D; CSV and JSON: at
    most :data:`MAX_TEXT_ELEMENTS` numbers); raise ValueError naming the limit."""
    ext = check_array_format(path, len(shape))
    size = math.prod(int(n) for n in shape)
    if ext != ".npy" and size > MAX_TEXT_ELEMENTS:
        raise ValueError(
            f"{size:,} numbers are too many for {ext[1:].upper()}: text output is limited to "
            f"{MAX_TEXT_ELEMENTS:,} numbers (it needs 10–25 times the memory of the array); use .npy"
        )
    return ext


def encode_array(path: str | os.PathLike, arr: np.ndarray, meta: dict | None = None) -> bytes:
    """Serialise ``arr`` in the format given by ``path``'s extension."""
    a = np.asarray(arr)
    ext = check_array_size(path, a.shape)
    if ext == ".npy":
        buf = io.BytesIO()
        np.save(buf, a)
        return buf.getvalue()
    if ext == ".csv":
        text = io.StringIO()
        np.savetxt(text, np.atleast_2d(a) if a.ndim == 1 else a, delimiter=",", fmt="%.17g")
        if a.ndim == 1:
            text = io.StringIO("\n".join(f"{v:.17g}" for v in a) + "\n")
        return text.getvalue().encode()
    obj = {**(meta or {}), **array_to_json_obj(a)}
    return json.dumps(obj).encode()


def write_array(path: str | os.PathLike, arr: np.ndarray, meta: dict | None = None) -> Path:
    """Atomically write ``arr`` as .npy, .csv (1-D/2-D) or .json."""
    return atomic_write_bytes(path, encode_array(path, arr, meta))


# -- reading ----------------------------------------------------------------------------------------
# One path for every file the app reads (settings, sessions, presets; the CLI's inputs): a regular
# file only — a folder, a named pipe, a device or a socket is refused by its name before it is
# opened, so nothing ever blocks on a FIFO or reads /dev/zero for ever —, a size cap checked before
# reading and again while reading (a file may grow), and one error type with one line.

#: The default cap of :func:`read_bytes_file` (the app's own files are a few kilobytes).
MAX_READ_BYTES = 1 << 20
#: Integers in a JSON file longer than this many digits are refused before they are converted: no
#: parameter of the app needs more, and Python's int() of a 5,000-digit text raises (or takes time).
MAX_JSON_INT_DIGITS = 20
#: A JSON number text longer than this is refused before float() sees it.
MAX_JSON_NUMBER_CHARS = 64
#: Nesting deeper than this is refused (the app's files nest three levels).
MAX_JSON_DEPTH = 32


class InputError(ValueError):
    """A file could not be read or is not what it should be (the message names the path and why)."""


def not_regular(mode: int) -> str | None:
    """What a non-regular file is, in words (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _nonblocking_opener(path: str, flags: int) -> int:
    # O_NONBLOCK: should a FIFO be swapped in after the check, opening it still returns at once.
    extra = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags | extra)


def _file_noun(what: str) -> str:
    return what if what.endswith("file") else f"{what} file"


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def read_bytes_file(path: str | os.PathLike, *, limit: int = MAX_READ_BYTES, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; raise :class:`InputError`.

    Parameters
    ----------
    path
        The file (a symlink is followed to its target, which must be a regular file).
    limit
        The most bytes accepted: a larger file is refused before it is opened, and one that grows
        past the limit while it is read is refused too.
    what
        What the file should be, for the messages ("preset", "session", "settings file").
    """
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        folder = p.parent
        if str(folder) and not folder.is_dir():
            raise InputError(f"{p}: folder {folder} does not exist") from None
        raise InputError(f"{p}: no such file") from None
    except NotADirectoryError:
        raise InputError(f"{p}: a part of the path is a file, not a folder") from None
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from None
    kind = not_regular(st.st_mode)
    if kind:
        raise InputError(f"{p} is {kind}, not a {_file_noun(what)}")
    if st.st_size > limit:
        raise InputError(f"{p}: file too large for a {what} ({_size(st.st_size)}; at most {limit // 1024} KB)")
    try:
        with open(p, "rb", opener=_nonblocking_opener) as fh:
            kind = not_regular(os.fstat(fh.fileno()).st_mode)  # swapped since the check?
            if kind:
                raise InputError(f"{p} is {kind}, not a {_file_noun(what)}")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InputError(f"{p}: file too large for a {what} (more than {limit // 1024} KB)")
    return data


def read_text_file(path: str | os.PathLike, *, limit: int = MAX_READ_BYTES, what: str = "file") -> str:
    """The UTF-8 text of ``path`` (a byte-order mark is dropped); raise :class:`InputError`."""
    data = read_bytes_file(path, limit=limit, what=what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{Path(path)}: not a text file (not UTF-8) — not a {what}") from None


class _JsonRefused(Exception):
    """Raised inside the JSON parser's hooks (so json.loads stops at once)."""


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_INT_DIGITS:
        raise _JsonRefused(f"a number with {len(text.lstrip('-'))} digits (at most {MAX_JSON_INT_DIGITS})")
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > MAX_JSON_NUMBER_CHARS:
        raise _JsonRefused(f"a number written with {len(text)} characters (at most {MAX_JSON_NUMBER_CHARS})")
    value = float(text)
    if not math.isfinite(value):
        raise _JsonRefused(f"the number {text[:24]} is out of range (not finite)")
    return value


def _json_constant(name: str):
    raise _JsonRefused(f"{name} is not a finite number (JSON has no {name})")


def _json_object(pairs: list) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _JsonRefused(f"the key {clean_text(k)!r} appears twice")
        out[k] = v
    return out


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(s: str) -> str:
    """``s`` with every unpaired surrogate (a JSON ``\\ud800`` escape, a paste) replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", s)


def _depth_and_clean(x, depth: int = 0):
    if depth > MAX_JSON_DEPTH:
        raise _JsonRefused(f"nested more than {MAX_JSON_DEPTH} levels deep")
    if isinstance(x, str):
        return clean_text(x)
    if isinstance(x, list):
        return [_depth_and_clean(v, depth + 1) for v in x]
    if isinstance(x, dict):
        return {clean_text(k): _depth_and_clean(v, depth + 1) for k, v in x.items()}
    return x


def _lenient_int(text: str) -> int | float:
    return math.inf if len(text.lstrip("-")) > MAX_JSON_INT_DIGITS else int(text)


def _lenient_float(text: str) -> float:
    return math.inf if len(text) > MAX_JSON_NUMBER_CHARS else float(text)


def parse_json_text(text: str, *, what: str = "file", lenient_numbers: bool = False) -> object:
    """Parse JSON that holds only plain data: raise :class:`InputError` (one line) for anything else.

    Refused: text that is not JSON, ``NaN``/``Infinity``, numbers out of float range, integers of more
    than :data:`MAX_JSON_INT_DIGITS` digits (before any conversion), a key given twice, nesting deeper
    than :data:`MAX_JSON_DEPTH`.  Unpaired surrogates in strings become U+FFFD, so whatever is read
    can be written back as UTF-8.  With ``lenient_numbers`` (the settings file, checked key by key)
    such numbers are read as NaN or infinity instead, for the caller to refuse one key at a time.
    """
    try:
        data = json.loads(
            text,
            parse_int=_lenient_int if lenient_numbers else _json_int,
            parse_float=_lenient_float if lenient_numbers else _json_float,
            parse_constant=float if lenient_numbers else _json_constant,
            object_pairs_hook=_json_object,
        )
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not a PE Explorer {what}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InputError(f"not a PE Explorer {what}: not valid JSON (nested too deeply)") from None
    except _JsonRefused as exc:
        raise InputError(f"not a PE Explorer {what}: {exc}") from None
    try:
        return _depth_and_clean(data)
    except _JsonRefused as exc:
        raise InputError(f"not a PE Explorer {what}: {exc}") from None


def read_json_file(path: str | os.PathLike, *, limit: int = MAX_READ_BYTES, what: str = "file") -> object:
    """Read ``path`` with :func:`read_text_file` and parse it with :func:`parse_json_text`.

    Every problem raises :class:`InputError` with one line that starts with the path.
    """
    text = read_text_file(path, limit=limit, what=what)
    if not text.strip():
        raise InputError(f"{Path(path)}: the file is empty")
    try:
        return parse_json_text(text, what=what)
    except InputError as exc:
        raise InputError(f"{Path(path)}: {exc}") from None
