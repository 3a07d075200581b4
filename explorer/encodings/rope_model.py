"""What a model's config says about its positions: one rope (:class:`ModelRope`), and, for models whose layers
differ, which rope each layer uses (:class:`LayerPlan`); for multimodal models, which axis turns each pair
(:class:`MRopeLayout`).  Plain records with their exact serialisation; reading a config is
:mod:`explorer.encodings.rope_config`.

Per-layer positions (transformers v5's configs):

- ``layer_types`` names each layer's attention: ``full_attention``, ``sliding_attention`` (keys at most
  ``sliding_window`` − 1 positions back: transformers' mask keeps i − j < W) or ``chunked_attention`` (Llama 4: keys
  in the query's own block of ``attention_chunk_size`` positions);
- ``rope_parameters`` may be nested by layer type (Gemma 3: sliding layers base 10 000, full layers base 10⁶ with
  linear factor 8);
- ``no_rope_layers`` (Llama 4, SmolLM3) marks with 0 the layers that do not rotate at all (NoPE);
- ``attn_temperature_tuning`` (Llama 4, with ``floor_scale`` F and ``attn_scale`` a) multiplies the queries of the
  NoPE layers at position p by τ(p) = a·ln(1 + ⌊(p + 1)/F⌋) + 1 (transformers' ``Llama4TextAttention``; Nakanishi
  2025, "Scalable-Softmax Is Superior for Attention", arXiv 2501.19399).

A model with one rope for every layer and nothing else per layer has no plan (``ModelRope.layers`` is None).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .rope import RopeScaling, scaled_inv_freq

#: The layer types the app reads, and what each one's keys are limited by.
LAYER_TYPES = {"full_attention": "every earlier key", "sliding_attention": "the last W keys (sliding_window)",
               "chunked_attention": "the keys in its own chunk (attention_chunk_size)"}

#: Model types whose rotation pairs dims (2i, 2i + 1) in transformers (Llama 4: ``torch.view_as_complex``).
INTERLEAVED_TYPES = frozenset({"llama4_text", "llama4"})
#: Model types whose attention multiplies the softmax scale 1/√d by mscale(s, mscale_all_dim)² (transformers'
#: ``yarn_apply_mscale``, MLA models): DeepSeek's logits carry YaRN's factor even where cos and sin do not.
MLA_MSCALE_TYPES = frozenset({
    "axk1", "axk2", "bailing_hybrid", "deepseek_v2", "deepseek_v3", "deepseek_v32", "glm4_moe_lite", "glm_moe_dsa",
    "hy_v4", "hy_v4_vl", "hy_v4_vl_text", "longcat_flash", "minicpm3", "mistral4", "mistral_large4",
    "mistral_large4_text", "youtu"})


#: M-RoPE model families (from the config's model_type; Qwen2-VL's rules for any other).
MROPE_FAMILIES = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl")


@dataclass(frozen=True)
class MRopeLayout:
    """Multimodal RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): ``section`` = pairs turned by time, height and width.

    Qwen2-VL/2.5-VL give the pairs in three contiguous blocks (t first); Qwen3-VL ``interleaved`` deals them
    out t, h, w, t, h, w … (see :mod:`explorer.encodings.mrope`).  ``spatial_merge`` patches per side become one
    token (``vision_config.spatial_merge_size``); ``tokens_per_second`` spaces Qwen2.5-VL's video frames in time
    (None: one step per temporal patch).
    """

    section: tuple[int, int, int]
    interleaved: bool = False
    family: str = "qwen2_vl"
    spatial_merge: int = 2
    tokens_per_second: float | None = None


@dataclass(frozen=True)
class ModelRope:
    """One model's rotary embedding, as its config sets it (for a model whose layers differ: the rope of its full
    attention layers, with :attr:`layers` saying what every layer does)."""

    name: str
    base: float
    head_dim: int  # the attention head's width
    rotary_dim: int  # how many of its dimensions rotate (int(head_dim · partial_rotary_factor))
    partial_rotary_factor: float
    max_positions: int  # max_position_embeddings: the extended (or only) context
    rope_type: str  # transformers' name
    scaling: RopeScaling
    source: str = ""
    model_type: str = ""  # the config's model_type ("" when it gives none)
    mrope: MRopeLayout | None = None
    layers: LayerPlan | None = None

    @property
    def original_max_positions(self) -> int:
        """The trained (pre-extension) context: L_orig for yarn, llama3, longrope; else max_positions."""
        if self.rope_type in ("yarn", "llama3", "longrope"):
            return self.scaling.original_max_positions
        return self.max_positions

    @property
    def layout(self) -> str:
        """How transformers pairs the dims it rotates: "interleaved" (2i, 2i + 1) for Llama 4's complex rotation,
        "halves" (i, i + r/2, ``rotate_half``) for the others."""
        return "interleaved" if self.model_type in INTERLEAVED_TYPES else "halves"

    @property
    def softmax_scale(self) -> float:
        """What transformers multiplies the attention's softmax scale by for this model: mscale(s, mscale_all_dim)²
        = (0.1·mscale_all_dim·ln s + 1)² for the MLA models of :data:`MLA_MSCALE_TYPES` (DeepSeek-V3: 1.874); else 1."""
        sc = self.scaling
        if self.model_type not in MLA_MSCALE_TYPES or self.rope_type == "default" or not sc.mscale_all_dim:
            return 1.0
        m = 1.0 if sc.factor <= 1 else 0.1 * sc.mscale_all_dim * math.log(sc.factor) + 1.0
        return m * m

    def frequencies(self, seq_len: int | None = None) -> tuple[np.ndarray, float]:
        """(inverse frequencies of the rotary_dim/2 pairs, attention factor) at current length ``seq_len``
        (None: as transformers builds them at start-up)."""
        sc = self.scaling if seq_len is None else replace(self.scaling, seq_len=seq_len)
        return scaled_inv_freq(self.rotary_dim, self.base, sc)

    def plain(self) -> np.ndarray:
        """Plain RoPE's inverse frequencies at the same base and rotary dim."""
        return scaled_inv_freq(self.rotary_dim, self.base, None)[0]

    def rope_fields(self) -> dict:
        """This rope alone as a v5 ``rope_parameters`` dict (rope_type, rope_theta, its scaling fields)."""
        out: dict = {"rope_type": self.rope_type, "rope_theta": self.base}
        if self.rope_type != "default":
            out.update(scaling_fields(self.rope_type, self.scaling))
        if self.partial_rotary_factor != 1.0:
            out["partial_rotary_factor"] = self.partial_rotary_factor
        return out

    def fields(self) -> dict:
        """The position fields as a config dict (read back by ``rope_config.parse_config`` to the same model)."""
        out: dict = {"_name": self.name} if self.name else {}
        if self.source:
            out["_source"] = self.source
        if self.model_type:
            out["model_type"] = self.model_type
        out.update({"rope_theta": self.base, "head_dim": self.head_dim,
                    "max_position_embeddings": self.max_positions})
        if self.partial_rotary_factor != 1.0:
            out["partial_rotary_factor"] = self.partial_rotary_factor
        if self.rope_type != "default":
            out["rope_scaling"] = scaling_fields(self.rope_type, self.scaling)
        if self.mrope is not None:
            rs = out.setdefault("rope_scaling", {"rope_type": "default"})
            rs["mrope_section"] = list(self.mrope.section)
            if self.mrope.interleaved:
                rs["mrope_interleaved"] = True
            out["vision_config"] = {"spatial_merge_size": self.mrope.spatial_merge}
            if self.mrope.tokens_per_second is not None:
                out["vision_config"]["tokens_per_second"] = self.mrope.tokens_per_second
        if self.layers is not None:
            self.layers.write(out, self)
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


@dataclass(frozen=True)
class LayerPlan:
    """Which rope (if any) each layer of a model uses, and how far back its keys reach."""

    layer_types: tuple[str, ...]  # per layer (0-based)
    ropes: tuple[tuple[str, ModelRope], ...]  # (layer type, its rope), in the order the types first appear
    rotates: tuple[bool, ...]  # per layer: False for a NoPE layer (no_rope_layers)
    sliding_window: int | None = None
    chunk_size: int | None = None
    #: Llama 4's attention temperature tuning on the NoPE layers: (floor_scale F, attn_scale a), or None.
    temperature: tuple[float, float] | None = None
    #: The config gave rope_parameters per layer type (written back the same way).
    nested: bool = False

    @property
    def types(self) -> tuple[str, ...]:
        """The layer types, in the order they first appear."""
        return tuple(t for t, _ in self.ropes)

    def rope(self, layer_type: str) -> ModelRope:
        """The rope of ``layer_type``."""
        return dict(self.ropes)[layer_type]

    def layers_of(self, layer_type: str, rotating: bool | None = None) -> list[int]:
        """The (0-based) layers of ``layer_type``; with ``rotating``, only those that do (True) or do not rotate."""
        return [k for k, t in enumerate(self.layer_types)
                if t == layer_type and (rotating is None or self.rotates[k] == rotating)]

    def reach(self, layer_type: str) -> int | None:
        """How many positions back a key can be (at most): the window W for sliding layers (i − j < W, so W − 1),
        the chunk for chunked layers (within one chunk, at most C − 1); None for full attention."""
        if layer_type == "sliding_attention" and self.sliding_window is not None:
            return self.sliding_window - 1
        if layer_type == "chunked_attention" and self.chunk_size is not None:
            return self.chunk_size - 1
        return None

    def temperature_at(self, positions) -> np.ndarray:
        """τ(p) = a·ln(1 + ⌊(p + 1)/F⌋) + 1 at 0-based positions p (all ones without temperature tuning)."""
        p = np.asarray(positions, dtype=np.float64)
        if self.temperature is None:
            return np.ones_like(p)
        floor_scale, attn_scale = self.temperature
        return np.log1p(np.floor((p + 1.0) / floor_scale)) * attn_scale + 1.0

    def write(self, out: dict, main: ModelRope) -> None:
        """Add this plan's fields to ``out`` (``main``'s config dict) as transformers v5 writes them."""
        out["num_hidden_layers"] = len(self.layer_types)
        out["layer_types"] = list(self.layer_types)
        if self.nested:
            out.pop("rope_theta", None)
            out.pop("rope_scaling", None)
            out.pop("partial_rotary_factor", None)
            out["rope_parameters"] = {t: r.rope_fields() for t, r in self.ropes}
        if not all(self.rotates):
            out["no_rope_layers"] = [int(r) for r in self.rotates]
        if self.sliding_window is not None:
            out["sliding_window"] = self.sliding_window
        if self.chunk_size is not None:
            out["attention_chunk_size"] = self.chunk_size
        if self.temperature is not None:
            out["attn_temperature_tuning"] = True
            out["floor_scale"], out["attn_scale"] = self.temperature
