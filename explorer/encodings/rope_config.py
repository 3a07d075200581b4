"""A model's RoPE from its Hugging Face ``config.json``: the rotary fields only, read exactly, never guessed.

Read (top level, or inside ``rope_parameters`` where transformers v5 keeps them):

- the base: ``rope_theta`` (GPT-NeoX: ``rotary_emb_base``);
- the head size: ``head_dim`` (DeepSeek: ``qk_rope_head_dim``), else ``hidden_size`` ÷ ``num_attention_heads``;
- the rotated share: ``partial_rotary_factor`` (GPT-NeoX: ``rotary_pct``), rotary dim = int(head_dim · share);
- ``max_position_embeddings`` and ``original_max_position_embeddings`` (Phi-3 keeps it at the top level);
- the scaling: ``rope_scaling`` (older configs) or ``rope_parameters`` (transformers v5), with ``rope_type`` (or
  ``type``) one of default, linear, dynamic, yarn, llama3, longrope, and only the fields transformers reads for
  that type.

An unknown type or field, a missing or mistyped value, or a file that is not a small JSON object is refused
with one line naming it (:class:`~explorer.encodings.errors.EncodingError`).  Defaults are transformers': β_fast
32, β_slow 1, truncate true, L_orig = max_position_embeddings when not given (yarn, llama3, longrope), and for
yarn and longrope without ``factor`` s = max_position_embeddings / L_orig.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, replace
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from ..fileio import InputError, parse_json_text, read_text_file
from ..paths import resource_path
from .errors import MAX_BASE, EncodingError, short_repr
from .rope import MAX_SEQ_LEN, RopeScaling, scaled_inv_freq

#: transformers' rope_type -> our scaling kind.
ROPE_TYPES = {"default": "none", "linear": "linear", "dynamic": "dynamic", "yarn": "yarn", "llama3": "llama3",
              "longrope": "longrope"}
#: The fields transformers reads for each rope_type (its ``_validate_<type>_rope_parameters``), besides
#: rope_type/type, rope_theta and partial_rotary_factor.
TYPE_FIELDS = {
    "default": set(),
    "linear": {"factor"},
    "dynamic": {"factor"},
    "yarn": {"factor", "original_max_position_embeddings", "attention_factor", "beta_fast", "beta_slow", "mscale",
             "mscale_all_dim", "truncate"},
    "llama3": {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"},
    "longrope": {"short_factor", "long_factor", "original_max_position_embeddings", "attention_factor", "factor"},
}
REQUIRED = {"linear": ("factor",), "dynamic": ("factor",), "yarn": (), "llama3": ("factor", "low_freq_factor",
            "high_freq_factor"), "longrope": ("short_factor", "long_factor"), "default": ()}
COMMON = {"rope_type", "type", "rope_theta", "partial_rotary_factor"}

#: Largest config file read (a full config.json is a few kB; Phi-3's with its factor lists ~4 kB).
MAX_CONFIG_BYTES = 1_000_000
#: Deepest nesting accepted (config.json files nest 2–3 levels).
MAX_DEPTH = 16
#: Largest head dim accepted.
MAX_HEAD_DIM = 65536
#: Longest text of a name or note kept.
MAX_TEXT = 300


@dataclass(frozen=True)
class ModelRope:
    """One model's rotary embedding, as its config sets it."""

    name: str
    base: float
    head_dim: int  # the attention head's width
    rotary_dim: int  # how many of its dimensions rotate (int(head_dim · partial_rotary_factor))
    partial_rotary_factor: float
    max_positions: int  # max_position_embeddings: the extended (or only) context
    rope_type: str  # transformers' name
    scaling: RopeScaling
    source: str = ""

    @property
    def original_max_positions(self) -> int:
        """The trained (pre-extension) context: L_orig for yarn, llama3, longrope; else max_positions."""
        if self.rope_type in ("yarn", "llama3", "longrope"):
            return self.scaling.original_max_positions
        return self.max_positions

    def frequencies(self, seq_len: int | None = None) -> tuple[np.ndarray, float]:
        """(inverse frequencies of the rotary_dim/2 pairs, attention factor) at current length ``seq_len``
        (None: as transformers builds them at start-up)."""
        sc = self.scaling if seq_len is None else replace(self.scaling, seq_len=seq_len)
        return scaled_inv_freq(self.rotary_dim, self.base, sc)

    def plain(self) -> np.ndarray:
        """Plain RoPE's inverse frequencies at the same base and rotary dim."""
        return scaled_inv_freq(self.rotary_dim, self.base, None)[0]

    def fields(self) -> dict:
        """The rotary fields as a config dict (read back by :func:`parse_config` to the same model)."""
        out: dict = {"_name": self.name} if self.name else {}
        if self.source:
            out["_source"] = self.source
        out.update({"rope_theta": self.base, "head_dim": self.head_dim,
                    "max_position_embeddings": self.max_positions})
        if self.partial_rotary_factor != 1.0:
            out["partial_rotary_factor"] = self.partial_rotary_factor
        if self.rope_type != "default":
            out["rope_scaling"] = scaling_fields(self.rope_type, self.scaling)
        return out


def scaling_fields(rope_type: str, sc: RopeScaling) -> dict:
    """The ``rope_scaling`` dict of ``sc`` with the fields transformers reads for ``rope_type``."""
    out: dict = {"rope_type": rope_type, "factor": sc.factor}
    if rope_type in ("yarn", "llama3", "longrope"):
        out["original_max_position_embeddings"] = sc.original_max_positions
    if rope_type == "yarn":
        out.update(beta_fast=sc.beta_fast, beta_slow=sc.beta_slow, truncate=sc.truncate)
        for k in ("mscale", "mscale_all_dim", "attention_factor"):
            if getattr(sc, k) is not None:
                out[k] = getattr(sc, k)
    elif rope_type == "llama3":
        out.update(low_freq_factor=sc.low_freq_factor, high_freq_factor=sc.high_freq_factor)
    elif rope_type == "longrope":
        out.update(short_factor=list(sc.short_factor), long_factor=list(sc.long_factor))
        if sc.attention_factor is not None:
            out["attention_factor"] = sc.attention_factor
    return out


# -- reading --------------------------------------------------------------------------------------------
def _depth(obj, limit: int = MAX_DEPTH) -> int:
    """Nesting depth of ``obj`` (stops counting past ``limit``), without recursion."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        item, d = stack.pop()
        deepest = max(deepest, d)
        if d > limit:
            return d
        if isinstance(item, dict):
            stack.extend((v, d + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, d + 1) for v in item)
    return deepest


def parse_config_text(text: str, name: str = "") -> ModelRope:
    """:func:`parse_config` of a JSON text (at most :data:`MAX_CONFIG_BYTES`), read by the app's one hostile-safe
    JSON parser (no NaN, no 20+-digit integers, no deep nesting, no repeated keys)."""
    if len(text) > MAX_CONFIG_BYTES:
        raise EncodingError(f"the config is {len(text):,} characters; at most {MAX_CONFIG_BYTES:,} (a config.json "
                            "is a few kB)")
    try:
        data = parse_json_text(text, what="model config")
    except InputError as exc:
        raise EncodingError(str(exc)) from None
    return parse_config(data, name)


def read_config(path) -> ModelRope:
    """The model's RoPE from a ``config.json`` file (or a model folder holding one); one line naming the problem
    when it cannot be read."""
    p = Path(path)
    try:
        if p.is_dir() and (p / "config.json").is_file():
            p = p / "config.json"  # a Hugging Face model folder or cache snapshot
        text = read_text_file(p, limit=MAX_CONFIG_BYTES, what="model config")
    except (InputError, OSError) as exc:
        raise EncodingError(str(exc)) from None
    try:
        return parse_config_text(text, p.parent.name if p.name == "config.json" else p.stem)
    except EncodingError as exc:
        raise EncodingError(f"{p}: {exc}") from None


def _number(where: str, key: str, value, *, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (Integral, Real)):
        raise EncodingError(f"{where}{key} must be a number, got {_show(value)}")
    try:
        v = float(value)
    except OverflowError:
        raise EncodingError(f"{where}{key} is too large, got a {len(str(value))}-digit number") from None
    if not math.isfinite(v):
        raise EncodingError(f"{where}{key} must be a finite number, got {short_repr(value)}")
    if positive and not v > 0:
        raise EncodingError(f"{where}{key} must be greater than 0, got {v:g}")
    return v


def _whole(where: str, key: str, value, hi: int = MAX_SEQ_LEN) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise EncodingError(f"{where}{key} must be a whole number, got {_show(value)}")
    if not 1 <= int(value) <= hi:
        raise EncodingError(f"{where}{key} must be 1 … {hi:,}, got {value}")
    return int(value)


def _show(value) -> str:
    text = json.dumps(value) if isinstance(value, (str, list, dict)) else repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _numbers(where: str, key: str, value) -> tuple[float, ...]:
    if not isinstance(value, list) or not value:
        raise EncodingError(f"{where}{key} must be a list of numbers, got {_show(value)}")
    return tuple(_number(where, f"{key}[{k}]", v) for k, v in enumerate(value))


def _text(value) -> str:
    return value[:MAX_TEXT] if isinstance(value, str) else ""


def parse_config(data, name: str = "") -> ModelRope:
    """The model's RoPE from a config dict (see the module docstring); :class:`EncodingError` on anything
    unknown, missing or out of range."""
    if not isinstance(data, dict):
        raise EncodingError(f"the config must be a JSON object (a model's config.json), got {type(data).__name__}")
    if _depth(data) > MAX_DEPTH:
        raise EncodingError(f"the config nests deeper than {MAX_DEPTH} levels")
    name = _text(data.get("_name")) or _text(data.get("_name_or_path")) or name
    legacy, params = data.get("rope_scaling"), data.get("rope_parameters")
    if legacy is not None and params is not None:
        raise EncodingError("the config has both rope_scaling and rope_parameters; keep one")
    key = "rope_parameters" if params is not None else "rope_scaling"
    rs = params if params is not None else legacy
    if rs is None:
        rs = {}
    if not isinstance(rs, dict):
        raise EncodingError(f"{key} must be an object, got {_show(rs)}")
    where = f"{key}."
    nested = [k for k, v in rs.items() if isinstance(v, dict)]
    if nested:
        raise EncodingError(f"{key} is per layer type ({', '.join(nested[:3])}); one rope for every layer is read")
    rope_type = rs.get("rope_type", rs.get("type", "default"))
    if not isinstance(rope_type, str) or rope_type not in ROPE_TYPES:
        raise EncodingError(f"{where}rope_type {_show(rope_type)} is not one of {', '.join(ROPE_TYPES)}")
    allowed = TYPE_FIELDS[rope_type] | COMMON
    unknown = sorted(str(k) for k in rs if k not in allowed)
    if unknown:
        raise EncodingError(f"{where}{unknown[0][:60]} is not a field of rope_type {short_repr(rope_type)} (it reads "
                            f"{', '.join(sorted(TYPE_FIELDS[rope_type])) or 'no other field'})")
    for k in REQUIRED[rope_type]:
        if k not in rs:
            raise EncodingError(f"{where}{k} is missing (rope_type {short_repr(rope_type)} needs it)")

    def top(*keys):
        for k in keys:
            if rs.get(k) is not None:
                return f"{where}{k}", rs[k]
            if data.get(k) is not None:
                return k, data[k]
        return None, None

    k, v = top("rope_theta", "rotary_emb_base")
    if k is None:
        raise EncodingError("the config has no rope_theta (nor rotary_emb_base): the base is never guessed")
    base = _number("", k, v)
    if not 1.0 < base <= MAX_BASE:
        raise EncodingError(f"{k} must be greater than 1 and at most {MAX_BASE:g}, got {base:g}")
    k, v = top("head_dim", "qk_rope_head_dim")
    if k is not None:
        head_dim = _whole("", k, v, MAX_HEAD_DIM)
    else:
        if data.get("hidden_size") is None or data.get("num_attention_heads") is None:
            raise EncodingError("the config gives no head_dim, nor hidden_size and num_attention_heads")
        hidden = _whole("", "hidden_size", data["hidden_size"], MAX_HEAD_DIM * 1024)
        heads = _whole("", "num_attention_heads", data["num_attention_heads"], 65536)
        head_dim = hidden // heads
        if head_dim < 1:
            raise EncodingError(f"hidden_size {hidden} ÷ num_attention_heads {heads} is below 1")
    k, v = top("partial_rotary_factor", "rotary_pct")
    share = 1.0 if k is None else _number("", k, v)
    if not 0.0 < share <= 1.0:
        raise EncodingError(f"{k} must be in (0, 1], got {share:g}")
    rotary_dim = int(head_dim * share)
    if rotary_dim < 2 or rotary_dim % 2:
        raise EncodingError(f"the rotary dim int({head_dim} × {share:g}) = {rotary_dim} must be even and at least 2")
    if data.get("max_position_embeddings") is None:
        raise EncodingError("the config has no max_position_embeddings")
    max_pos = _whole("", "max_position_embeddings", data["max_position_embeddings"])

    kw: dict = {"kind": ROPE_TYPES[rope_type]}
    if rope_type in ("yarn", "llama3", "longrope"):
        # transformers: a top-level original_max_position_embeddings (Phi-3) wins over the one inside.
        if data.get("original_max_position_embeddings") is not None:
            orig = _whole("", "original_max_position_embeddings", data["original_max_position_embeddings"])
        elif rs.get("original_max_position_embeddings") is not None:
            orig = _whole(where, "original_max_position_embeddings", rs["original_max_position_embeddings"])
        else:
            orig = max_pos
        kw["original_max_positions"] = orig
    elif rope_type == "dynamic":
        kw["original_max_positions"] = max_pos  # dynamic NTK compares lengths with max_position_embeddings
    if rope_type != "default":
        if rs.get("factor") is not None:
            kw["factor"] = _number(where, "factor", rs["factor"])
        elif rope_type in ("yarn", "longrope"):
            kw["factor"] = max_pos / kw["original_max_positions"]
    for f in ("beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor", "attention_factor"):
        if rs.get(f) is not None:
            kw[f] = _number(where, f, rs[f])
    for f in ("mscale", "mscale_all_dim"):
        if rs.get(f) is not None:
            kw[f] = _number(where, f, rs[f], positive=False)
    if rs.get("truncate") is not None:
        if not isinstance(rs["truncate"], bool):
            raise EncodingError(f"{where}truncate must be true or false, got {_show(rs['truncate'])}")
        kw["truncate"] = rs["truncate"]
    for f in ("short_factor", "long_factor"):
        if f in rs:
            kw[f] = _numbers(where, f, rs[f])
            if len(kw[f]) != rotary_dim // 2:
                raise EncodingError(f"{where}{f} has {len(kw[f])} numbers; the rotary dim {rotary_dim} needs "
                                    f"{rotary_dim // 2} (one per pair)")
    try:
        sc = RopeScaling(**kw)
    except EncodingError as exc:
        raise EncodingError(f"{where}{exc}") from None
    model = ModelRope(name, base, head_dim, rotary_dim, share, max_pos, rope_type, sc, _text(data.get("_source")))
    model.frequencies()  # refuse now what would fail later (NTK bases past the limit, …)
    return model


# -- the configs we ship ----------------------------------------------------------------------------------
def shipped_dir() -> Path:
    """The folder of the example configs (``resources/model_configs``)."""
    return resource_path("model_configs")


def shipped() -> dict[str, Path]:
    """Shipped config id (file stem) -> path, sorted by id."""
    folder = shipped_dir()
    return {p.stem: p for p in sorted(folder.glob("*.json"))} if folder.is_dir() else {}


def load_shipped(config_id: str) -> ModelRope:
    """A shipped config by id; one line listing the ids when there is no such config."""
    paths = shipped()
    if config_id not in paths:
        raise EncodingError(f"no shipped model config {short_repr(config_id)}; shipped: {', '.join(paths)}")
    return read_config(paths[config_id])


@functools.lru_cache(maxsize=32)
def resolve(spec: str) -> ModelRope:
    """A model from a state's ``model`` text: a shipped id, or the rotary fields as JSON (never a path).

    Cached: the panel's state is checked at every change, and the model is read once."""
    if not isinstance(spec, str):
        raise EncodingError("model must be a shipped config id or a config's rotary fields as JSON, "
                            f"got {short_repr(spec)}")
    if spec.lstrip().startswith("{"):
        return parse_config_text(spec)
    return load_shipped(spec)


#: RopeScaling fields a command line (or a panel) may override, by name.
SCALING_OVERRIDES = ("factor", "original_max_positions", "beta_fast", "beta_slow", "low_freq_factor",
                     "high_freq_factor", "mscale", "mscale_all_dim", "attention_factor", "truncate")
#: Our scaling kind -> transformers' rope_type (the reverse of :data:`ROPE_TYPES`; "ntk" is ours only).
ROPE_TYPE_OF = {v: k for k, v in ROPE_TYPES.items()} | {"ntk": "ntk"}


def with_overrides(model: ModelRope | None, *, head_dim: int | None = None, base: float | None = None,
                   partial_rotary_factor: float | None = None, scaling: str | None = None,
                   **changes) -> ModelRope:
    """``model`` (or plain RoPE at head dim ``head_dim``, base 10000) with the given values in place of its own.

    ``changes`` are :data:`SCALING_OVERRIDES` (None: keep the model's).  Every value is checked again, so a
    bad combination is one line.
    """
    unknown = set(changes) - set(SCALING_OVERRIDES)
    if unknown:
        raise EncodingError(f"unknown RoPE setting {sorted(unknown)[0]}")
    if model is None:
        if head_dim is None:
            raise EncodingError("give --config (a model's config.json) or --head-dim")
        model = ModelRope("", 10000.0, int(head_dim), int(head_dim), 1.0, 2048, "default", RopeScaling())
    hd = model.head_dim if head_dim is None else int(head_dim)
    share = model.partial_rotary_factor if partial_rotary_factor is None else float(partial_rotary_factor)
    if not 0.0 < share <= 1.0:
        raise EncodingError(f"partial_rotary_factor must be in (0, 1], got {share:g}")
    rotary_dim = int(hd * share)
    if rotary_dim < 2 or rotary_dim % 2:
        raise EncodingError(f"the rotary dim int({hd} × {share:g}) = {rotary_dim} must be even and at least 2")
    kw = {k: v for k, v in changes.items() if v is not None}
    if scaling is not None:
        kw["kind"] = scaling
    sc = replace(model.scaling, **kw)
    rope_type = ROPE_TYPE_OF.get(sc.kind, sc.kind)
    out = replace(model, head_dim=hd, rotary_dim=rotary_dim, partial_rotary_factor=share,
                  base=model.base if base is None else float(base), rope_type=rope_type, scaling=sc)
    out.frequencies()  # refuse now what would fail later
    return out
