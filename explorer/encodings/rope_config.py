"""A model's positions from its Hugging Face ``config.json``: its rope (or one per layer type), read exactly,
never guessed.

One rope is read by :mod:`explorer.encodings.rope_fields` (the fields, types and defaults are listed there); what
differs per layer (``layer_types``, ``rope_parameters`` nested by layer type, ``no_rope_layers``, sliding windows,
chunks and Llama 4's attention temperature) by :mod:`explorer.encodings.rope_layers`.  A full multimodal config
(Gemma 3, Llama 4, Qwen3-VL) keeps the language model's fields in ``text_config``: that part is read.

A file that is not a small JSON object, an unknown type or field, a missing or mistyped value is refused with one
line naming it (:class:`~explorer.encodings.errors.EncodingError`).
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

from ..fileio import InputError, parse_json_text, read_text_file
from ..paths import resource_path
from .errors import EncodingError, short_repr
from .rope import RopeScaling
from .rope_fields import (  # noqa: F401 - the rest of the app reads these names from here
    COMMON,
    MAX_HEAD_DIM,
    MAX_TEXT,
    REQUIRED,
    ROPE_TYPES,
    TYPE_FIELDS,
    show,
    text,
)
from .rope_layers import parse_layered
from .rope_model import LayerPlan, ModelRope, MRopeLayout, scaling_fields  # noqa: F401 - re-exported

#: Largest config file read (a full config.json is a few kB; Phi-3's with its factor lists ~4 kB).
MAX_CONFIG_BYTES = 1_000_000
#: Deepest nesting accepted (config.json files nest 2–3 levels).
MAX_DEPTH = 16


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


def _language_part(data: dict) -> dict:
    """A multimodal config's ``text_config`` (its name and source kept) when the top level holds no rope."""
    inner = data.get("text_config")
    own = ("rope_theta", "rope_parameters", "rope_scaling", "rotary_emb_base", "max_position_embeddings")
    if not isinstance(inner, dict) or any(data.get(k) is not None for k in own):
        return data
    kept = ("_name", "_name_or_path", "_source", "vision_config")
    return {**{k: data[k] for k in kept if k in data}, **inner}


def parse_config(data, name: str = "") -> ModelRope:
    """The model's positions from a config dict (see the module docstring); :class:`EncodingError` on anything
    unknown, missing or out of range."""
    if not isinstance(data, dict):
        raise EncodingError(f"the config must be a JSON object (a model's config.json), got {type(data).__name__}")
    if _depth(data) > MAX_DEPTH:
        raise EncodingError(f"the config nests deeper than {MAX_DEPTH} levels")
    data = _language_part(data)
    name = text(data.get("_name")) or text(data.get("_name_or_path")) or name
    legacy, params = data.get("rope_scaling"), data.get("rope_parameters")
    if legacy is not None and params is not None:
        raise EncodingError("the config has both rope_scaling and rope_parameters; keep one")
    key = "rope_parameters" if params is not None else "rope_scaling"
    rs = params if params is not None else legacy
    if rs is None:
        rs = {}
    if not isinstance(rs, dict):
        raise EncodingError(f"{key} must be an object, got {show(rs)}")
    model = parse_layered(data, key, rs, name)
    for _t, rope in (model.layers.ropes if model.layers is not None else (("", model),)):
        rope.frequencies()  # refuse now what would fail later (NTK bases past the limit, …)
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
ROPE_TYPE_OF = {v: k for k, v in ROPE_TYPES.items() if k != "mrope"} | {"ntk": "ntk"}


def layer_rope(model: ModelRope, layer_type: str | None) -> ModelRope:
    """The rope of ``layer_type`` in a model whose layers differ (``model`` itself for None, or for a model with one
    rope and the type "full_attention"); one line listing the types otherwise."""
    if layer_type is None:
        return model
    types = model.layers.types if model.layers is not None else ("full_attention",)
    if layer_type not in types:
        raise EncodingError(f"--layer-type {short_repr(layer_type)}: this config's layer types are {', '.join(types)}")
    return replace(model.layers.rope(layer_type) if model.layers is not None else model, layers=None)


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
    given = [head_dim, base, partial_rotary_factor, scaling, *changes.values()]
    if model is not None and model.layers is not None and any(v is not None for v in given):
        raise EncodingError(f"this config has a rope per layer type ({', '.join(model.layers.types)}): choose one "
                            "with --layer-type before overriding its values")
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
    if model.mrope is not None and rotary_dim != model.rotary_dim:
        raise EncodingError(f"the config's mrope_section {list(model.mrope.section)} needs the rotary dim "
                            f"{model.rotary_dim}, not {rotary_dim}")
    out = replace(model, head_dim=hd, rotary_dim=rotary_dim, partial_rotary_factor=share,
                  base=model.base if base is None else float(base), rope_type=rope_type, scaling=sc)
    out.frequencies()  # refuse now what would fail later
    return out
