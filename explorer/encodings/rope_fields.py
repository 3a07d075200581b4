"""One rope from one ``rope_scaling`` / ``rope_parameters`` dict of a model's ``config.json``, read exactly.

Read (inside the dict, else at the config's top level):

- the base: ``rope_theta`` (GPT-NeoX: ``rotary_emb_base``);
- the head size: ``head_dim`` (DeepSeek: ``qk_rope_head_dim``), else ``hidden_size`` ÷ ``num_attention_heads``;
- the rotated share: ``partial_rotary_factor`` (GPT-NeoX: ``rotary_pct``), rotary dim = int(head_dim · share);
- ``max_position_embeddings`` and ``original_max_position_embeddings`` (Phi-3 keeps it at the top level);
- ``rope_type`` (or ``type``) one of default, linear, dynamic, yarn, llama3, longrope (or Qwen2-VL's ``mrope``, which
  transformers reads as default) and only the fields transformers reads for that type; ``mrope_section`` (and
  Qwen3-VL's ``mrope_interleaved``) with any type.

An unknown type or field, a missing or mistyped value is refused with one line naming it
(:class:`~explorer.encodings.errors.EncodingError`).  Defaults are transformers': β_fast 32, β_slow 1, truncate
true, L_orig = max_position_embeddings when not given (yarn, llama3, longrope), and for longrope without ``factor``
(or yarn with ``"factor": null``) s = max_position_embeddings / L_orig.  A yarn block without a ``factor`` key is
refused, as transformers refuses it (its validation requires the key).
"""

from __future__ import annotations

import json
import math
from numbers import Integral, Real

from .errors import MAX_BASE, EncodingError, short_repr
from .rope import MAX_SEQ_LEN, RopeScaling
from .rope_model import MROPE_FAMILIES, ModelRope, MRopeLayout

#: transformers' rope_type -> our scaling kind.
ROPE_TYPES = {"default": "none", "linear": "linear", "dynamic": "dynamic", "yarn": "yarn", "llama3": "llama3",
              "longrope": "longrope", "mrope": "none"}
#: The fields transformers reads for each rope_type (its ``_validate_<type>_rope_parameters``), besides
#: rope_type/type, rope_theta and partial_rotary_factor.
TYPE_FIELDS = {
    "default": set(),
    "mrope": set(),
    "linear": {"factor"},
    "dynamic": {"factor"},
    "yarn": {"factor", "original_max_position_embeddings", "attention_factor", "beta_fast", "beta_slow", "mscale",
             "mscale_all_dim", "truncate"},
    "llama3": {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"},
    "longrope": {"short_factor", "long_factor", "original_max_position_embeddings", "attention_factor", "factor"},
}
REQUIRED = {"linear": ("factor",), "dynamic": ("factor",), "yarn": ("factor",),
            "llama3": ("factor", "low_freq_factor", "high_freq_factor"), "longrope": ("short_factor", "long_factor"),
            "default": (), "mrope": ("mrope_section",)}
COMMON = {"rope_type", "type", "rope_theta", "partial_rotary_factor", "mrope_section", "mrope_interleaved"}

#: Largest head dim accepted.
MAX_HEAD_DIM = 65536
#: Longest text of a name or note kept.
MAX_TEXT = 300


def number(where: str, key: str, value, *, positive: bool = True) -> float:
    """``value`` as a finite float (> 0 when ``positive``), or one line naming ``where`` + ``key``."""
    if isinstance(value, bool) or not isinstance(value, (Integral, Real)):
        raise EncodingError(f"{where}{key} must be a number, got {show(value)}")
    try:
        v = float(value)
    except OverflowError:
        raise EncodingError(f"{where}{key} is too large, got a {len(str(value))}-digit number") from None
    if not math.isfinite(v):
        raise EncodingError(f"{where}{key} must be a finite number, got {short_repr(value)}")
    if positive and not v > 0:
        raise EncodingError(f"{where}{key} must be greater than 0, got {v:g}")
    return v


def whole(where: str, key: str, value, hi: int = MAX_SEQ_LEN) -> int:
    """``value`` as a whole number 1 … ``hi`` (a float like 8192.0 too), or one line naming it."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise EncodingError(f"{where}{key} must be a whole number, got {show(value)}")
    if not 1 <= int(value) <= hi:
        raise EncodingError(f"{where}{key} must be 1 … {hi:,}, got {short_repr(value)}")
    return int(value)


def show(value) -> str:
    """A short, plain rendering of a config value for messages."""
    shown = json.dumps(value) if isinstance(value, (str, list, dict)) else repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "…"


def numbers(where: str, key: str, value) -> tuple[float, ...]:
    """A non-empty list of positive numbers, or one line naming it."""
    if not isinstance(value, list) or not value:
        raise EncodingError(f"{where}{key} must be a list of numbers, got {show(value)}")
    return tuple(number(where, f"{key}[{k}]", v) for k, v in enumerate(value))


def text(value) -> str:
    """A string field, cut to :data:`MAX_TEXT` characters ("" for anything else)."""
    return value[:MAX_TEXT] if isinstance(value, str) else ""


def parse_rope(data: dict, rs: dict, where: str, name: str = "") -> ModelRope:
    """One rope from ``rs`` (a flat rope dict, ``where`` its name in messages: "rope_scaling.") and the config's
    top-level fields ``data`` (see the module docstring); :class:`EncodingError` on anything unknown, missing or out
    of range."""
    rope_type = rs.get("rope_type", rs.get("type", "default"))
    if not isinstance(rope_type, str) or rope_type not in ROPE_TYPES:
        raise EncodingError(f"{where}rope_type {show(rope_type)} is not one of {', '.join(ROPE_TYPES)}")
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
    base = number("", k, v)
    if not 1.0 < base <= MAX_BASE:
        raise EncodingError(f"{k} must be greater than 1 and at most {MAX_BASE:g}, got {base:g}")
    k, v = top("head_dim", "qk_rope_head_dim")
    if k is not None:
        head_dim = whole("", k, v, MAX_HEAD_DIM)
    else:
        if data.get("hidden_size") is None or data.get("num_attention_heads") is None:
            raise EncodingError("the config gives no head_dim, nor hidden_size and num_attention_heads")
        hidden = whole("", "hidden_size", data["hidden_size"], MAX_HEAD_DIM * 1024)
        heads = whole("", "num_attention_heads", data["num_attention_heads"], 65536)
        head_dim = hidden // heads
        if head_dim < 1:
            raise EncodingError(f"hidden_size {hidden} ÷ num_attention_heads {heads} is below 1")
    k, v = top("partial_rotary_factor", "rotary_pct")
    share = 1.0 if k is None else number("", k, v)
    if not 0.0 < share <= 1.0:
        raise EncodingError(f"{k} must be in (0, 1], got {share:g}")
    rotary_dim = int(head_dim * share)
    if rotary_dim < 2 or rotary_dim % 2:
        raise EncodingError(f"the rotary dim int({head_dim} × {share:g}) = {rotary_dim} must be even and at least 2")
    if data.get("max_position_embeddings") is None:
        raise EncodingError("the config has no max_position_embeddings")
    max_pos = whole("", "max_position_embeddings", data["max_position_embeddings"])

    kw: dict = {"kind": ROPE_TYPES[rope_type]}
    if rope_type in ("yarn", "llama3", "longrope"):
        # transformers: a top-level original_max_position_embeddings (Phi-3) wins over the one inside.
        if data.get("original_max_position_embeddings") is not None:
            orig = whole("", "original_max_position_embeddings", data["original_max_position_embeddings"])
        elif rs.get("original_max_position_embeddings") is not None:
            orig = whole(where, "original_max_position_embeddings", rs["original_max_position_embeddings"])
        else:
            orig = max_pos
        kw["original_max_positions"] = orig
    elif rope_type == "dynamic":
        kw["original_max_positions"] = max_pos  # dynamic NTK compares lengths with max_position_embeddings
    if rope_type != "default":
        if rs.get("factor") is not None:
            kw["factor"] = number(where, "factor", rs["factor"])
        elif rope_type in ("yarn", "longrope"):
            kw["factor"] = max_pos / kw["original_max_positions"]
    for f in ("beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor", "attention_factor"):
        if rs.get(f) is not None:
            kw[f] = number(where, f, rs[f])
    for f in ("mscale", "mscale_all_dim"):
        if rs.get(f) is not None:
            kw[f] = number(where, f, rs[f], positive=False)
    if rs.get("truncate") is not None:
        if not isinstance(rs["truncate"], bool):
            raise EncodingError(f"{where}truncate must be true or false, got {show(rs['truncate'])}")
        kw["truncate"] = rs["truncate"]
    for f in ("short_factor", "long_factor"):
        if f in rs:
            kw[f] = numbers(where, f, rs[f])
            if len(kw[f]) != rotary_dim // 2:
                raise EncodingError(f"{where}{f} has {len(kw[f])} numbers; the rotary dim {rotary_dim} needs "
                                    f"{rotary_dim // 2} (one per pair)")
    try:
        sc = RopeScaling(**kw)
    except EncodingError as exc:
        raise EncodingError(f"{where}{exc}") from None
    mrope = _mrope(where, rs, rotary_dim, data)
    if rope_type == "mrope":
        rope_type = "default"  # transformers reads Qwen2-VL's "mrope" as default RoPE with 3-D positions
    model = ModelRope(name, base, head_dim, rotary_dim, share, max_pos, rope_type, sc, text(data.get("_source")),
                      text(data.get("model_type")), mrope)
    model.frequencies()  # refuse now what would fail later (NTK bases past the limit, …)
    return model




def _mrope(where: str, rs: dict, rotary_dim: int, data: dict) -> MRopeLayout | None:
    """Qwen2-VL's ``mrope_section`` (the numbers of pairs turned by t, h and w: they add up to rotary_dim/2, as
    transformers' ``split`` of the pairs needs) and Qwen3-VL's ``mrope_interleaved``."""
    if rs.get("mrope_section") is None:
        if rs.get("mrope_interleaved") is not None:
            raise EncodingError(f"{where}mrope_interleaved without mrope_section")
        return None
    sec = rs["mrope_section"]
    if not isinstance(sec, list) or len(sec) != 3:
        raise EncodingError(f"{where}mrope_section must be three numbers of pairs (time, height, width), got "
                            f"{show(sec)}")
    section = tuple(whole(where, f"mrope_section[{k}]", v, rotary_dim // 2) for k, v in enumerate(sec))
    if sum(section) != rotary_dim // 2:
        raise EncodingError(f"{where}mrope_section {list(section)} adds up to {sum(section)} pairs; the rotary dim "
                            f"{rotary_dim} has {rotary_dim // 2}")
    inter = rs.get("mrope_interleaved", False)
    if not isinstance(inter, bool):
        raise EncodingError(f"{where}mrope_interleaved must be true or false, got {show(inter)}")
    model_type = text(data.get("model_type"))
    family = next((f for f in MROPE_FAMILIES if f in model_type), "qwen2_vl")
    raw = data.get("vision_config")
    vision: dict = raw if isinstance(raw, dict) else {}
    merge = whole("vision_config.", "spatial_merge_size", vision.get("spatial_merge_size", 2), 64)
    tps = None
    if family == "qwen2_5_vl":  # transformers' Qwen2_5_VLVisionConfig default is 4
        tps = number("vision_config.", "tokens_per_second", vision.get("tokens_per_second", 4))
        if tps > 1e6:
            raise EncodingError(f"vision_config.tokens_per_second must be at most 1e6, got {tps:g}")
    return MRopeLayout((section[0], section[1], section[2]), inter, family, merge, tps)
