"""Which rope each layer of a model uses, read from its ``config.json`` as transformers v5 reads it.

Read (see :mod:`explorer.encodings.rope_model` for what they mean):

- ``rope_parameters`` nested by layer type (``{"sliding_attention": {...}, "full_attention": {...}}``; each entry one
  rope, read like a flat one), or Gemma 3's older ``rope_local_base_freq`` (the sliding layers' base; the full
  layers keep ``rope_theta`` and ``rope_scaling``);
- ``layer_types`` (one of :data:`~explorer.encodings.rope_model.LAYER_TYPES` per layer), ``num_hidden_layers``;
- ``no_rope_layers`` (1 = the layer rotates, 0 = NoPE; Llama 4, SmolLM3), else ``no_rope_layer_interval`` for those
  model types (default 4: every fourth layer is NoPE);
- ``sliding_window`` (needed when a layer slides), ``attention_chunk_size`` (needed when a layer is chunked);
- ``attn_temperature_tuning`` (true, or a number as Llama 4 Scout's first config wrote it; Llama 4's default is
  true), ``floor_scale`` (8192) and ``attn_scale`` (0.1).

Without ``layer_types`` the types are derived as transformers' config class for the ``model_type`` derives them
(:data:`DERIVED`): Gemma 2 alternates sliding and full, Gemma 3 has ``sliding_window_pattern`` (6) − 1 sliding layers
then one full, Cohere 2 likewise with 4, Qwen2/Qwen3 slide from layer ``max_window_layers`` on when
``use_sliding_window``, Llama 4's rotating layers are chunked, and every layer of Mistral slides when it has a
``sliding_window`` (its mask function is the sliding one for all layers).  A config that gives none of this has
one rope for every layer and no plan.  Anything that does not add up (a layer type with no rope, a sliding layer
with no window, lists of the wrong length) is one line.
"""

from __future__ import annotations

from dataclasses import replace

from .errors import EncodingError
from .rope_fields import number, parse_rope, show, text, whole
from .rope_model import LAYER_TYPES, LayerPlan, ModelRope

#: Most layers read (real models have 12 … 128).
MAX_LAYERS = 1024
#: Llama 4's defaults (transformers' ``Llama4TextConfig``).
FLOOR_SCALE, ATTN_SCALE = 8192, 0.1
#: Model types that mark NoPE layers with ``no_rope_layers`` (default: every ``no_rope_layer_interval``-th layer).
NO_ROPE_TYPES = ("llama4_text", "llama4", "smollm3")
#: Model types whose config class derives ``layer_types`` when the config gives none (see the module docstring).
DERIVED = {"gemma2": "pattern", "gemma3_text": "pattern", "gemma3": "pattern", "cohere2": "pattern",
           "qwen2": "window_layers", "qwen3": "window_layers", "qwen2_moe": "window_layers",
           "qwen3_moe": "window_layers", "llama4_text": "nope", "llama4": "nope", "smollm3": "nope",
           "mistral": "all_sliding"}
#: ``sliding_window_pattern`` when the config gives none.
PATTERN = {"gemma2": 2, "gemma3_text": 6, "gemma3": 6, "cohere2": 4}


def parse_layered(data: dict, key: str, rs: dict, name: str) -> ModelRope:
    """The model of config ``data`` whose rope dict ``rs`` (found under ``key``) may be per layer type; with its
    :class:`LayerPlan` when its layers differ."""
    nested = [k for k, v in rs.items() if isinstance(v, dict)]
    ropes: dict[str, ModelRope] | None = None
    if nested:
        flat = sorted(str(k) for k, v in rs.items() if not isinstance(v, dict))
        if flat:
            raise EncodingError(f"{key} mixes per-layer-type entries ({', '.join(nested[:3])}) with fields "
                                f"({', '.join(flat[:3])}); give each field inside its layer type")
        for t in nested:
            _known_type(f"{key}.{t}", t)
        ropes = {t: parse_rope(data, rs[t], f"{key}.{t}.", name) for t in nested}
    elif data.get("rope_local_base_freq") is not None and data.get("model_type") in ("gemma3_text", "gemma3"):
        local = number("", "rope_local_base_freq", data["rope_local_base_freq"])
        sliding = parse_rope({**data, "rope_theta": local}, {}, "rope_local_base_freq: ", name)
        ropes = {"full_attention": parse_rope(data, rs, f"{key}.", name), "sliding_attention": sliding}
    main = parse_rope(data, rs, f"{key}.", name) if ropes is None else None
    plan = _plan(data, ropes, main, nested=ropes is not None)
    if plan is None:
        assert main is not None
        return main
    first = plan.rope("full_attention") if "full_attention" in plan.types else plan.ropes[0][1]
    return replace(first, layers=plan)


def _known_type(where: str, t) -> str:
    if not isinstance(t, str) or t not in LAYER_TYPES:
        raise EncodingError(f"{where}: layer type {show(t)} is not one of {', '.join(LAYER_TYPES)}")
    return t


def _layer_count(data: dict) -> int | None:
    if data.get("num_hidden_layers") is None:
        return None
    return whole("", "num_hidden_layers", data["num_hidden_layers"], MAX_LAYERS)


def _rotates(data: dict, n: int | None, model_type: str) -> list[bool] | None:
    """Per layer: does it rotate (``no_rope_layers``: 1 yes, 0 NoPE)?  None when the config says nothing."""
    raw = data.get("no_rope_layers")
    if raw is not None and not isinstance(raw, list):
        raise EncodingError(f"no_rope_layers must be a list of 0 and 1 (1: the layer rotates), got {show(raw)}")
    if raw:  # transformers: an empty list means "use the interval"
        if len(raw) > MAX_LAYERS:
            raise EncodingError(f"no_rope_layers has {len(raw):,} entries; at most {MAX_LAYERS:,} layers are read")
        if any(isinstance(v, bool) or v not in (0, 1) for v in raw):
            raise EncodingError(f"no_rope_layers must hold only 0 and 1 (1: the layer rotates), got {show(raw)}")
        if n is not None and len(raw) < n:
            raise EncodingError(f"no_rope_layers has {len(raw)} entries for {n} layers (num_hidden_layers)")
        return [bool(v) for v in raw[: n if n is not None else len(raw)]]
    if model_type not in NO_ROPE_TYPES:
        return None
    if n is None:
        raise EncodingError(f"a {model_type} config without no_rope_layers needs num_hidden_layers")
    k = whole("", "no_rope_layer_interval", data.get("no_rope_layer_interval", 4), MAX_LAYERS)
    return [(i + 1) % k != 0 for i in range(n)]


def _derived_types(data: dict, n: int | None, model_type: str, rotates: list[bool] | None) -> list[str] | None:
    """transformers' default ``layer_types`` for ``model_type`` (None when it derives none)."""
    how = DERIVED.get(model_type)
    if how is None:
        return None
    if how == "nope":
        if rotates is None:
            return None
        chunked = data.get("attention_chunk_size") is not None and model_type != "smollm3"
        return ["chunked_attention" if r and chunked else "full_attention" for r in rotates]
    if how == "all_sliding":  # Mistral: every layer slides when the config gives a window
        if data.get("sliding_window") is None:
            return None
        if n is None:
            raise EncodingError(f"a {model_type} config with a sliding_window needs num_hidden_layers")
        return ["sliding_attention"] * n
    if n is None:
        raise EncodingError(f"a {model_type} config without layer_types needs num_hidden_layers")
    if how == "pattern":
        p = whole("", "sliding_window_pattern", data.get("sliding_window_pattern", PATTERN[model_type]), MAX_LAYERS)
        return ["sliding_attention" if (i + 1) % p else "full_attention" for i in range(n)]
    slides = data.get("use_sliding_window") is True and data.get("sliding_window") is not None
    first = whole("", "max_window_layers", data.get("max_window_layers", 28), MAX_LAYERS) if slides else 0
    return ["sliding_attention" if slides and i >= first else "full_attention" for i in range(n)]


def _plan(data: dict, ropes: dict[str, ModelRope] | None, main: ModelRope | None, *, nested: bool) -> LayerPlan | None:
    n = _layer_count(data)
    model_type = text(data.get("model_type"))
    rotates = _rotates(data, n, model_type)
    raw = data.get("layer_types")
    if raw is not None:
        if not isinstance(raw, list) or not raw:
            raise EncodingError(f"layer_types must be a list with one layer type per layer, got {show(raw)}")
        if len(raw) > MAX_LAYERS:
            raise EncodingError(f"layer_types has {len(raw):,} entries; at most {MAX_LAYERS:,} layers are read")
        types: list[str] | None = [_known_type(f"layer_types[{k}]", t) for k, t in enumerate(raw)]
        if n is not None and len(raw) != n:
            raise EncodingError(f"layer_types has {len(raw)} entries for {n} layers (num_hidden_layers)")
    else:
        types = _derived_types(data, n, model_type, rotates)
    if types is None:
        if ropes is not None:
            raise EncodingError(f"rope_parameters is per layer type ({', '.join(ropes)}) but the config gives no "
                                "layer_types (nor a model_type whose layers transformers derives)")
        if rotates is None:
            return None
        types = ["full_attention"] * len(rotates)
    if rotates is None:
        rotates = [True] * len(types)
    elif len(rotates) < len(types):
        raise EncodingError(f"no_rope_layers has {len(rotates)} entries for {len(types)} layers (layer_types)")
    rotates = rotates[: len(types)]
    order = list(dict.fromkeys(types))
    if ropes is None:
        assert main is not None
        ropes = {t: main for t in order}
    missing = [t for t in order if t not in ropes]
    if missing:
        raise EncodingError(f"layer_types names {missing[0]}, but rope_parameters has no entry for it")
    unused = [t for t in ropes if t not in order]
    if unused:
        raise EncodingError(f"rope_parameters has an entry for {unused[0]}, but no layer is of that type")
    window = chunk = None
    if "sliding_attention" in order:
        if data.get("sliding_window") is None:
            raise EncodingError("the config has sliding_attention layers but no sliding_window")
        window = whole("", "sliding_window", data["sliding_window"])
    if "chunked_attention" in order:
        if data.get("attention_chunk_size") is None:
            raise EncodingError("the config has chunked_attention layers but no attention_chunk_size")
        chunk = whole("", "attention_chunk_size", data["attention_chunk_size"])
    temperature = _temperature(data, model_type) if not all(rotates) else None
    if len(order) == 1 and all(rotates) and window is None and chunk is None:
        return None  # one rope, every layer alike: nothing per layer to show
    return LayerPlan(tuple(types), tuple((t, ropes[t]) for t in order), tuple(rotates), window, chunk, temperature,
                     nested)


def _temperature(data: dict, model_type: str) -> tuple[float, float] | None:
    """Llama 4's (floor_scale, attn_scale) when ``attn_temperature_tuning`` is on (its default for Llama 4)."""
    on = data.get("attn_temperature_tuning", model_type in ("llama4_text", "llama4"))
    if not isinstance(on, (bool, int, float)):
        raise EncodingError(f"attn_temperature_tuning must be true, false or a number, got {show(on)}")
    if not on:
        return None
    floor_scale = number("", "floor_scale", data.get("floor_scale", FLOOR_SCALE))
    attn_scale = number("", "attn_scale", data.get("attn_scale", ATTN_SCALE), positive=False)
    if not 1.0 <= floor_scale <= 2.0**40:
        raise EncodingError(f"floor_scale must be 1 … 2^40 positions, got {floor_scale:g}")
    if not 0.0 <= attn_scale <= 100.0:
        raise EncodingError(f"attn_scale must be 0 … 100, got {attn_scale:g}")
    return floor_scale, attn_scale
