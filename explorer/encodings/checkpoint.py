"""Read a real model's learned position table out of a checkpoint (no Qt; torch only for ``.bin``/``.pt``).

What opens: a ``.safetensors`` file, a PyTorch state dict (``.bin``/``.pt``, read with
``torch.load(weights_only=True)`` only, so a pickle that asks to run code is refused), a Hugging Face
model folder (``config.json`` beside ``model.safetensors``, ``pytorch_model.bin`` or their sharded
``*.index.json``), or a Hugging Face cache entry (``models--gpt2`` or one of its ``snapshots/<rev>``).

Only the one tensor is read.  A safetensors file is 8 bytes (the header's length, little-endian),
a JSON header naming each tensor's dtype, shape and byte range, then the data: we read the header,
check it, seek to the table and read exactly its bytes — never the rest of a multi-GB file.  (The
``safetensors`` package's numpy reader cannot give bf16, and its torch reader would bring torch into
this path for no gain; the format is this simple on purpose.)

Every problem raises :class:`CheckpointError` with one line that starts with the path.
"""

from __future__ import annotations

import json
import os
import struct
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..fileio import InputError, not_regular, read_json_file
from .errors import EncodingError, short_repr

#: The most bytes a safetensors header may claim (the ``safetensors`` package's own limit).
MAX_HEADER = 100_000_000
#: The most numbers a position table may have (GPT-2: 1,024 × 768 = 786,432; OPT-175B's is 2,050 × 12,288).
MAX_TABLE_NUMBERS = 2**25
#: config.json and the shard index are small; a larger one is not what it says it is.
MAX_JSON_BYTES = 16 << 20
#: The most tensors offered to pick from (a large model has a few thousand 2-D tensors; a crafted header
#: listed 1,000,000, and the panel's chooser held them all).
MAX_TENSOR_CHOICES = 1000
#: The longest name shown in a line of text (a tensor name may be any length).
MAX_NAME_SHOWN = 80

#: The names real models give their position table, most specific first.
TABLE_NAMES = (
    "wpe.weight",  # GPT-2 saved by transformers (GPT2Model)
    "transformer.wpe.weight",  # GPT-2 / GPT-Neo as LM-head models
    "embeddings.position_embeddings.weight",  # BERT, RoBERTa, ELECTRA, DistilBERT (bare)
    "bert.embeddings.position_embeddings.weight",
    "roberta.embeddings.position_embeddings.weight",
    "distilbert.embeddings.position_embeddings.weight",
    "electra.embeddings.position_embeddings.weight",
    "model.decoder.embed_positions.weight",  # OPT, BART (decoder)
    "decoder.embed_positions.weight",
    "model.encoder.embed_positions.weight",  # BART (encoder)
    "encoder.embed_positions.weight",
    "embed_positions.weight",
    "pos_emb.weight",
    "position_embeddings.weight",
)
#: Models whose table's first rows are not positions: RoBERTa counts positions from padding_idx + 1.
PADDING_OFFSET_MODELS = ("roberta", "xlm-roberta", "camembert", "longformer", "ibert", "data2vec-text", "xmod")
#: OPT and BART keep 2 rows before position 0 (``OPTLearnedPositionalEmbedding.offset``).
EMBED_POSITIONS_OFFSET = 2

#: safetensors dtype -> (numpy little-endian dtype, bytes per number); only floating tables are tables.
_DTYPES = {"F64": ("<f8", 8), "F32": ("<f4", 4), "F16": ("<f2", 2), "BF16": ("<u2", 2)}
_WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                 "pytorch_model.bin.index.json")

#: Stands in for :func:`open` (tests count the bytes a read takes).
_open = open


class CheckpointError(EncodingError):
    """A checkpoint could not be read, or holds no table we can show (one line, naming the path)."""


@dataclass(frozen=True)
class LoadedTable:
    """A learned position table: row p is position p (rows before a model's offset are dropped)."""

    table: np.ndarray  # (positions, d) float64
    name: str  # the tensor's name in the checkpoint
    source: str  # the file it came from
    dtype: str  # as stored: F32, F16, BF16, F64, or torch's name
    offset: int = 0  # rows skipped before position 0 (OPT, BART: 2; RoBERTa: padding_idx + 1)
    config_max: int | None = None  # max_position_embeddings (or n_positions) from config.json
    model: str = ""  # config.json's model_type
    tensors: tuple[str, ...] = field(default=())  # the 2-D floating tensors, for picking another (at most
    tensor_count: int = 0  # MAX_TENSOR_CHOICES of them); how many the file has in all

    @property
    def positions(self) -> int:
        return int(self.table.shape[0])

    @property
    def d_model(self) -> int:
        return int(self.table.shape[1])

    def describe(self) -> str:
        """'GPT-2 … wpe.weight: 1,024 positions × 768 (F32) from model.safetensors'."""
        skip = f", rows 0–{self.offset - 1} skipped" if self.offset else ""
        who = f"{self.model} " if self.model else ""
        return (f"{who}{short_name(self.name)}: {self.positions:,} positions × {self.d_model:,} ({self.dtype}{skip}) "
                f"from {short_name(Path(self.source).name)}")


def short_name(name: str) -> str:
    """``name`` as it is shown in a line of text: cut to :data:`MAX_NAME_SHOWN` characters."""
    return name if len(name) <= MAX_NAME_SHOWN else name[: MAX_NAME_SHOWN - 1] + "…"


# -- finding the files ----------------------------------------------------------------------------------
def _stat(p: Path):
    try:
        return p.stat()
    except FileNotFoundError:
        raise CheckpointError(f"{p}: no such file or folder") from None
    except OSError as exc:
        raise CheckpointError(f"cannot read {p}: {exc.strerror or exc}") from None


def newest_snapshot(cache_entry: Path) -> Path:
    """The snapshot a Hugging Face cache entry (``models--gpt2``) points at: ``refs/main``, else the newest."""
    snaps = cache_entry / "snapshots"
    ref = cache_entry / "refs" / "main"
    try:
        rev = ref.read_text(encoding="utf-8").strip() if ref.is_file() and ref.stat().st_size < 256 else ""
    except (OSError, UnicodeDecodeError):
        rev = ""
    if rev and "/" not in rev and (snaps / rev).is_dir():
        return snaps / rev
    try:
        found = [s for s in snaps.iterdir() if s.is_dir()]
    except OSError:
        found = []
    if not found:
        raise CheckpointError(f"{cache_entry}: a Hugging Face cache entry with no snapshot in it")
    return max(found, key=lambda s: s.stat().st_mtime)


def weights_in(folder: Path) -> tuple[Path, Path | None]:
    """(the weights file or shard index, config.json or None) of a model folder or cache entry."""
    if (folder / "snapshots").is_dir() and folder.name.startswith("models--"):
        folder = newest_snapshot(folder)
    config = folder / "config.json"
    for name in _WEIGHT_FILES:
        if (folder / name).exists():
            return folder / name, config if config.exists() else None
    try:
        loose = sorted(p for p in folder.iterdir() if p.suffix in (".safetensors", ".bin", ".pt", ".pth"))
    except OSError as exc:
        raise CheckpointError(f"cannot read {folder}: {exc.strerror or exc}") from None
    if len(loose) == 1:
        return loose[0], config if config.exists() else None
    if loose:
        raise CheckpointError(f"{folder}: {len(loose)} weight files and no index; open one of them")
    raise CheckpointError(f"{folder}: no model weights here (no model.safetensors, pytorch_model.bin or index)")


def read_config(path: Path | None) -> dict:
    """config.json as a dict ({} when there is none); raise :class:`CheckpointError` if it is not JSON."""
    if path is None:
        return {}
    try:
        data = read_json_file(path, limit=MAX_JSON_BYTES, what="model config")
    except InputError as exc:
        raise CheckpointError(str(exc)) from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: a model config is a JSON object")
    return data


def config_max_positions(config: dict) -> int | None:
    """max_position_embeddings (BERT, OPT, …) or n_positions (GPT-2) from a config, if it says."""
    for key in ("max_position_embeddings", "n_positions", "n_ctx"):
        v = config.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 2**40:
            return v
    return None


def table_offset(name: str, config: dict) -> int:
    """Rows before position 0: 2 for OPT/BART's ``embed_positions``, padding_idx + 1 for RoBERTa-likes."""
    if name.endswith("embed_positions.weight"):
        return EMBED_POSITIONS_OFFSET
    model = str(config.get("model_type", ""))
    if "position_embeddings" in name and (model in PADDING_OFFSET_MODELS or name.startswith("roberta.")):
        pad = config.get("pad_token_id", 1)
        return (pad if isinstance(pad, int) and not isinstance(pad, bool) and 0 <= pad < 1024 else 1) + 1
    return 0


def pick_name(names: list[str], wanted: str | None, path: Path) -> str:
    """The tensor to read: ``wanted`` if given (it must exist), else the first known table name."""
    if wanted:
        if wanted not in names:
            near = [short_repr(n) for n in names if "pos" in n.lower()][:3]
            hint = f"; position-like: {', '.join(near)}" if near else ""
            raise CheckpointError(f"{path}: no tensor named {short_repr(wanted)} ({len(names)} tensors{hint})")
        return wanted
    for known in TABLE_NAMES:
        if known in names:
            return known
    for n in names:  # e.g. "gpt2.transformer.wpe.weight" in a wrapped model
        if any(n.endswith("." + k) for k in TABLE_NAMES):
            return n
    raise CheckpointError(f"{path}: no position table found among {len(names)} tensors "
                          "(no wpe / position_embeddings / embed_positions); pick one with --tensor NAME")


# -- safetensors ----------------------------------------------------------------------------------------
def safetensors_header(path: Path) -> tuple[dict, int, int]:
    """(header, data start, file size) of a safetensors file, with every entry's byte range checked."""
    st = _stat(path)
    kind = not_regular(st.st_mode)
    if kind:
        raise CheckpointError(f"{path} is {kind}, not a checkpoint file")
    size = st.st_size
    if size < 8:
        raise CheckpointError(f"{path}: too short for a safetensors file ({size} bytes)")
    try:
        with _open(path, "rb") as fh:
            (n,) = struct.unpack("<Q", fh.read(8))
            if n > MAX_HEADER:
                raise CheckpointError(f"{path}: the safetensors header claims {n:,} bytes (more than "
                                      f"{MAX_HEADER:,}): not a safetensors file")
            if 8 + n > size:
                raise CheckpointError(f"{path}: truncated (the header claims {n:,} bytes; the file has {size:,})")
            raw = fh.read(n)
    except OSError as exc:
        raise CheckpointError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CheckpointError(f"{path}: not a safetensors file (its header is not JSON)") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path}: not a safetensors file (its header is not a JSON object)")
    header.pop("__metadata__", None)
    start = 8 + n
    for name, e in header.items():
        ok = (isinstance(e, dict) and isinstance(e.get("shape"), list) and isinstance(e.get("data_offsets"), list)
              and len(e["data_offsets"]) == 2
              and all(type(v) is int and v >= 0 for v in [*e["shape"], *e["data_offsets"]]))
        if not ok:
            raise CheckpointError(f"{path}: tensor {short_repr(name)} has a malformed header entry")
        lo, hi = e["data_offsets"]
        if lo > hi or start + hi > size:
            raise CheckpointError(f"{path}: tensor {short_repr(name)} lies past the end of the file (truncated?)")
    return header, start, size


def _read_safetensor(path: Path, header: dict, start: int, name: str) -> tuple[np.ndarray, str]:
    e = header[name]
    dtype, shape = str(e.get("dtype"))[:16], tuple(e["shape"])
    check_table_shape(path, name, shape)
    if dtype not in _DTYPES:
        raise CheckpointError(f"{path}: tensor {short_repr(name)} is {dtype}, "
                              "not floating point (F32, F16, BF16, F64)")
    np_dtype, width = _DTYPES[dtype]
    lo, hi = e["data_offsets"]
    if hi - lo != shape[0] * shape[1] * width:
        raise CheckpointError(f"{path}: tensor {short_repr(name)} claims {hi - lo:,} bytes for a "
                              f"{shape[0]} × {shape[1]} {dtype} table ({shape[0] * shape[1] * width:,} expected)")
    try:
        with _open(path, "rb") as fh:
            fh.seek(start + lo)
            raw = fh.read(hi - lo)
    except OSError as exc:
        raise CheckpointError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) != hi - lo:
        raise CheckpointError(f"{path}: truncated while reading {short_repr(name)}")
    arr = np.frombuffer(raw, dtype=np_dtype)
    if dtype == "BF16":  # bfloat16 is the top half of a float32
        arr = (arr.astype(np.uint32) << 16).view(np.float32)
    return arr.astype(np.float64).reshape(shape), dtype


def check_table_shape(path, name: str, shape: tuple) -> None:
    """A table is 2-D, non-empty and not larger than :data:`MAX_TABLE_NUMBERS`."""
    if len(shape) != 2:
        dims = " × ".join(map(str, shape)) or "a scalar"
        raise CheckpointError(f"{path}: tensor {short_repr(name)} is {len(shape)}-D ({dims}), "
                              "not a positions × dims table")
    if shape[0] < 1 or shape[1] < 1:
        raise CheckpointError(f"{path}: tensor {short_repr(name)} is empty ({shape[0]} × {shape[1]})")
    if shape[0] * shape[1] > MAX_TABLE_NUMBERS:
        raise CheckpointError(f"{path}: tensor {short_repr(name)} is {shape[0]:,} × {shape[1]:,}, more than the "
                              f"{MAX_TABLE_NUMBERS:,} numbers a table view holds")


def _tables_of(header: dict) -> list[str]:
    return [n for n, e in header.items() if len(e["shape"]) == 2 and str(e.get("dtype")) in _DTYPES]


# -- PyTorch state dicts ------------------------------------------------------------------------------
def _torch_state(path: Path) -> dict:
    st = _stat(path)
    kind = not_regular(st.st_mode)
    if kind:
        raise CheckpointError(f"{path} is {kind}, not a checkpoint file")
    import pickle
    import zipfile

    import torch  # lazily: only a .bin/.pt needs it, and only in the compute process or the CLI

    try:
        with warnings.catch_warnings():  # torch warns about pickle protocols it then refuses anyway
            warnings.simplefilter("ignore")
            try:  # mmap: tensors stay on disk until touched (the new zip format only)
                obj = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
            except RuntimeError as exc:
                if "mmap" not in str(exc):
                    raise
                obj = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        if "Weights only load failed" in first or "weights_only" in str(exc):
            raise CheckpointError(f"{path}: refused — its pickle asks for more than plain tensors "
                                  "(only weights_only loading is allowed)") from None
        raise CheckpointError(f"{path}: not a PyTorch state dict ({first[:80] or 'unreadable pickle'})") from None
    except (RuntimeError, EOFError, ValueError, OSError, zipfile.BadZipFile, struct.error, KeyError,
            AttributeError, TypeError, IndexError, UnicodeDecodeError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise CheckpointError(f"{path}: not a readable PyTorch state dict ({first[:100]})") from None
    for wrapper in ("state_dict", "model", "module"):
        if isinstance(obj, dict) and isinstance(obj.get(wrapper), dict):
            obj = obj[wrapper]
    if not isinstance(obj, dict):
        raise CheckpointError(f"{path}: holds a {type(obj).__name__}, not a state dict of named tensors")
    return {str(k): v for k, v in obj.items() if isinstance(v, torch.Tensor)}


def _torch_table(path: Path, state: dict, name: str) -> tuple[np.ndarray, str]:
    import torch

    t = state[name]
    check_table_shape(path, name, tuple(t.shape))
    if not t.is_floating_point():
        raise CheckpointError(f"{path}: tensor {short_repr(name)} is {str(t.dtype).replace('torch.', '')}, "
                              "not floating point")
    if t.layout != torch.strided:  # sparse COO, CSR, …: a few numbers and their places
        raise CheckpointError(f"{path}: tensor {short_repr(name)} is stored sparse "
                              f"({str(t.layout).replace('torch.', '')}), not as a dense table")
    if t.device.type != "cpu":  # "meta": a shape with no numbers behind it
        raise CheckpointError(f"{path}: tensor {short_repr(name)} holds no numbers (a {t.device.type!r} tensor)")
    return t.detach().to(torch.float64).numpy().copy(), str(t.dtype).replace("torch.", "")


def _is_table(t) -> bool:
    """A 2-D dense floating tensor with numbers behind it: one that can be shown as a table."""
    import torch

    return t.dim() == 2 and t.is_floating_point() and t.layout == torch.strided and t.device.type == "cpu"


# -- the one entry point ------------------------------------------------------------------------------
def load_table(path: str | os.PathLike, tensor: str | None = None) -> LoadedTable:
    """The position table in ``path`` (a file, model folder or cache entry); ``tensor`` picks another one.

    Raises :class:`CheckpointError` (one line) for anything that is not a readable table.
    """
    p = Path(path).expanduser()
    st = _stat(p)
    config_path = None
    if not not_regular(st.st_mode):
        weights = p
        if (p.parent / "config.json").is_file() and p.name != "config.json":
            config_path = p.parent / "config.json"
    elif os.path.isdir(p):
        weights, config_path = weights_in(p)
    else:
        raise CheckpointError(f"{p} is {not_regular(st.st_mode)}, not a checkpoint file or model folder")
    config = read_config(config_path)
    if weights.name.endswith(".index.json"):
        weights, names = _shard_for(weights, tensor)
    else:
        names = None
    if weights.suffix == ".safetensors":
        header, start, _ = safetensors_header(weights)
        name = pick_name(names or list(header), tensor, weights)
        if name not in header:
            raise CheckpointError(f"{weights}: the index puts {short_repr(name)} here, but the file has no such tensor")
        table, dtype = _read_safetensor(weights, header, start, name)
        tables = _tables_of(header)
    elif weights.suffix in (".bin", ".pt", ".pth", ".ckpt"):
        state = _torch_state(weights)
        name = pick_name(names or list(state), tensor, weights)
        if name not in state:
            raise CheckpointError(f"{weights}: the index puts {short_repr(name)} here, but the file has no such tensor")
        table, dtype = _torch_table(weights, state, name)
        tables = [n for n, t in state.items() if _is_table(t)]
    elif weights.name == "config.json":
        raise CheckpointError(f"{weights}: a model config, not weights; open its folder or its weights file")
    else:
        raise CheckpointError(f"{weights}: not a checkpoint (.safetensors, .bin or .pt) or a model folder")
    if not np.all(np.isfinite(table)):
        raise CheckpointError(f"{weights}: tensor {short_repr(name)} holds NaN or infinite values")
    offset = table_offset(name, config)
    if offset >= table.shape[0]:
        offset = 0
    return LoadedTable(table=np.ascontiguousarray(table[offset:]), name=name, source=str(weights), dtype=dtype,
                       offset=offset, config_max=config_max_positions(config),
                       model=str(config.get("model_type", ""))[:40], tensors=tuple(tables[:MAX_TENSOR_CHOICES]),
                       tensor_count=len(tables))


def _shard_for(index: Path, tensor: str | None) -> tuple[Path, list[str]]:
    try:
        data = read_json_file(index, limit=MAX_JSON_BYTES, what="shard index")
    except InputError as exc:
        raise CheckpointError(str(exc)) from None
    wmap = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(wmap, dict) or not all(isinstance(v, str) for v in wmap.values()):
        raise CheckpointError(f"{index}: a shard index needs a 'weight_map' of tensor -> file")
    name = pick_name(list(wmap), tensor, index)
    shard = wmap[name]
    if Path(shard).name != shard:  # a shard is a file beside the index, never a path elsewhere
        raise CheckpointError(f"{index}: shard {short_repr(shard)} is not a file name beside the index")
    return index.parent / shard, list(wmap)
