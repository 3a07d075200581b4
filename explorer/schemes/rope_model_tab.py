"""The Schemes panel's "A model's RoPE" tab, which the RoPE scheme adds: one real model's rotary embedding, from
its config, against plain RoPE.

The request carries the model as the panel state keeps it (a shipped config id, or the rotary fields as JSON),
never a path.  The response holds, per rotated pair, the model's θ′_i and wavelength 2π/θ′_i next to plain
RoPE's at the same base and rotary dim, the attention factor a, and the expected score against distance:

    S(Δ) = g·(a²·Σ_i 2 cos(Δ·θ′_i) + (d − r)) / d,

the mean of q·R(Δ)q / |q|² over q ~ N(0, I_d) (pairs rotate, the d − r unrotated dimensions add 1 each; plain
RoPE has a = 1), times g, what the model's attention multiplies its softmax scale 1/√d by (DeepSeek's MLA:
mscale(s, mscale_all_dim)² = 1.874; 1 for the others, and for plain RoPE).  S is computed at every integer distance
and shown as exact block means, minima and maxima over log-spaced blocks (a curve sampled every k-th distance
aliases).

A model whose layers differ (:class:`~explorer.encodings.rope_model.LayerPlan`) gets the same per layer type
(:class:`LayerCurve`; a sliding or chunked type's curve stops at its reach, past which its keys are masked), which
layers do not rotate, and Llama 4's attention temperature τ(p) of those.  A multimodal model (M-RoPE) also gets its
3-D positions for a mixed sequence (:mod:`explorer.jobs.model_mrope`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..encodings.blocks import chunks
from ..encodings.mrope_sequence import MRopeResult, mrope_result
from ..encodings.rope_config import ModelRope, resolve
from .query import Query

#: Blocks of the score-vs-distance curve (log-spaced from Δ = 1).
CURVE_BLOCKS = 120
#: Distances × pairs evaluated for the curve at most (past it the curve stops, and says where).
CURVE_BUDGET = 2**24


#: Most step edges of the temperature curve drawn exactly (past them it is sampled on a log grid).
TEMPERATURE_STEPS = 4096


@dataclass(frozen=True)
class ModelRopeRequest:
    model: str
    blocks: int = CURVE_BLOCKS
    key: str = "schemes.model"
    #: M-RoPE: the query token of the mixed sequence (-1: the image's centre patch).
    query: int = -1


@dataclass(frozen=True)
class LayerCurve:
    """One layer type of a model whose layers differ: its frequencies, reach and score curve."""

    layer_type: str
    theta: np.ndarray
    attention_factor: float
    reach: int | None  # positions back its keys reach (None: every earlier key)
    layers: tuple[int, ...]  # its rotating layers (0-based)
    nope_layers: tuple[int, ...]  # its layers that do not rotate
    score: tuple  # (mean, min, max) per block at the response's distances; NaN past the reach


@dataclass(frozen=True)
class ModelRopeResponse:
    request: ModelRopeRequest
    model: ModelRope
    l_orig: int  # the trained context (L_orig)
    l_ext: int  # the context it is extended to (max_position_embeddings, or s·L_orig when that is larger)
    theta_plain: np.ndarray  # plain RoPE at the same base and rotary dim
    theta: np.ndarray  # the model's, at the current length l_ext
    attention_factor: float
    kept: int  # pairs with θ′ = θ (to 1e-12)
    divided: int  # pairs with θ′ = θ/s
    distance: np.ndarray  # block centres (geometric), Δ ≥ 1
    plain: tuple  # (mean, min, max) per block
    scaled: tuple
    shown_to: int  # the largest distance evaluated
    summary: str
    softmax_scale: float = 1.0  # g: the model's logits carry it (DeepSeek's MLA), plain RoPE's do not
    layer_curves: tuple[LayerCurve, ...] = ()
    layer_types: tuple[str, ...] = ()  # per layer, for a model whose layers differ
    rotates: tuple[bool, ...] = ()
    temperature: tuple[np.ndarray, np.ndarray] | None = None  # (positions p, τ(p)) of the NoPE layers
    mrope: MRopeResult | None = None


def extended_length(m: ModelRope) -> int:
    """The context the model is meant to reach.

    yarn, llama3, longrope: max_position_embeddings when the config states one past L_orig (Llama 3.1 and 3.2:
    131,072, whatever s·L_orig is), else s·L_orig (a YaRN block added to a config whose max_position_embeddings is
    still L_orig, as Qwen2.5's model card does).  dynamic: s·max_position_embeddings (it grows the base past it).
    default and linear: max_position_embeddings (a linear config names no trained length).
    """
    s = m.scaling.factor
    if m.rope_type in ("yarn", "llama3", "longrope"):
        l_orig = m.original_max_positions
        return m.max_positions if m.max_positions > l_orig else int(round(s * l_orig))
    if m.rope_type == "dynamic":
        return max(m.max_positions, int(round(s * m.max_positions)))
    return m.max_positions


def expected_score(dist: np.ndarray, theta: np.ndarray, att: float, head_dim: int) -> np.ndarray:
    """S(Δ) = (a²·Σ_i 2cos(Δθ_i) + (d − r))/d for every Δ in ``dist`` (see the module docstring)."""
    out = np.empty(dist.size)
    for sl in chunks(dist.size):
        out[sl] = np.cos(np.multiply.outer(dist[sl].astype(np.float64), theta)).sum(axis=1)
    rotated = 2 * theta.size
    return (att**2 * 2 * out + (head_dim - rotated)) / head_dim


def log_blocks(stop: int, n: int) -> np.ndarray:
    """Block starts 1 = e_0 < e_1 < … < e_k = stop + 1, about geometric, each block at least one distance."""
    edges = np.unique(np.round(np.geomspace(1, stop + 1, n + 1)).astype(np.int64))
    edges[0], edges[-1] = 1, stop + 1
    return edges


def block_stats(values: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact (mean, min, max) of ``values[Δ − 1]`` over each block [e_k, e_{k+1})."""
    starts = edges[:-1] - 1
    counts = np.diff(edges)
    return (np.add.reduceat(values, starts) / counts, np.minimum.reduceat(values, starts),
            np.maximum.reduceat(values, starts))


def model_rope(req: ModelRopeRequest) -> ModelRopeResponse:
    m = resolve(req.model)
    l_orig, l_ext = m.original_max_positions, extended_length(m)
    theta_plain = m.plain()
    theta, att = m.frequencies(l_ext)
    s = m.scaling.factor
    kept = int(np.sum(np.abs(theta / theta_plain - 1.0) <= 1e-12))
    divided = int(np.sum(np.abs(theta * s / theta_plain - 1.0) <= 1e-12)) if s > 1 else 0
    widest = max([theta.size] + [r.rotary_dim // 2 for _t, r in (m.layers.ropes if m.layers else ())])
    shown_to = int(min(l_ext, max(64, CURVE_BUDGET // widest)))
    dist = np.arange(1, shown_to + 1, dtype=np.float64)
    edges = log_blocks(shown_to, req.blocks)
    centres = np.sqrt(edges[:-1] * np.maximum(edges[1:] - 1, edges[:-1]).astype(np.float64))
    g = m.softmax_scale
    plain = block_stats(expected_score(dist, theta_plain, 1.0, m.head_dim), edges)
    scaled = block_stats(g * expected_score(dist, theta, att, m.head_dim), edges)
    extra: dict = {"softmax_scale": g}
    if m.layers is not None:
        extra.update(_layers(m, dist, edges))
    if m.mrope is not None:
        extra["mrope"] = mrope_result(m, theta, float(att), req.query)
    return ModelRopeResponse(req, m, l_orig, l_ext, theta_plain, theta, float(att), kept, divided, centres,
                             plain, scaled, shown_to, summary_text(m, l_orig, l_ext, float(att)), **extra)


def _layers(m: ModelRope, dist: np.ndarray, edges: np.ndarray) -> dict:
    """Per layer type: θ′, attention factor, reach and score curve (NaN past the reach); the NoPE layers'
    temperature."""
    plan = m.layers
    assert plan is not None
    curves = []
    for layer_type, rope in plan.ropes:
        theta, att = rope.frequencies(extended_length(rope))
        score = [np.array(v) for v in block_stats(rope.softmax_scale * expected_score(dist, theta, att, rope.head_dim),
                                                  edges)]
        reach = plan.reach(layer_type)
        if reach is not None:
            for v in score:
                v[edges[:-1] > reach] = np.nan  # no key is that far back in this layer
        curves.append(LayerCurve(layer_type, theta, float(att), reach,
                                 tuple(plan.layers_of(layer_type, rotating=True)),
                                 tuple(plan.layers_of(layer_type, rotating=False)), tuple(score)))
    temperature = None
    if plan.temperature is not None:
        p = temperature_positions(extended_length(m), plan.temperature[0])
        temperature = (p, plan.temperature_at(p))
    return {"layer_curves": tuple(curves), "layer_types": plan.layer_types, "rotates": plan.rotates,
            "temperature": temperature}


def temperature_positions(stop: int, floor_scale: float) -> np.ndarray:
    """0-based positions at which to draw τ(p) up to ``stop``: both sides of every step (p = kF − 2, kF − 1) while
    there are at most :data:`TEMPERATURE_STEPS` of them, else a log grid; always 0 and stop − 1."""
    steps = int(stop // floor_scale)
    grid = np.geomspace(1, max(stop - 1, 1), 400)
    if steps <= TEMPERATURE_STEPS:
        k = np.arange(1, steps + 1) * floor_scale
        grid = np.concatenate([grid, k - 2, k - 1])
    p = np.unique(np.floor(np.concatenate([[0.0, stop - 1.0], grid])))
    return p[(p >= 0) & (p <= stop - 1)]


def summary_text(m: ModelRope, l_orig: int, l_ext: int, att: float) -> str:
    """One line: type and factor, dims, base, lengths, attention factor (the model's name is beside it); a model
    whose layers differ: its layer types and NoPE layers; M-RoPE: its sections."""
    kind = m.rope_type if m.rope_type == "default" else f"{m.rope_type}, s = {m.scaling.factor:g}"
    dims = f"d = {m.head_dim}" + ("" if m.rotary_dim == m.head_dim else f" ({m.rotary_dim} rotate)")
    lengths = f"L = {l_orig:,}" if l_ext == l_orig else f"L_orig = {l_orig:,} → {l_ext:,}"
    text = f"{kind} · {dims} · base {_base(m.base)} · {lengths} · attention factor {att:.4g}"
    if m.softmax_scale != 1.0:
        text += f" · logits × {m.softmax_scale:.4g}"
    if m.mrope is not None:
        text += " · M-RoPE t/h/w = " + "/".join(map(str, m.mrope.section)) + (
            " interleaved" if m.mrope.interleaved else "")
    if m.layers is not None:
        plan, parts = m.layers, []
        for layer_type, r in plan.ropes:
            rotating, nope = len(plan.layers_of(layer_type, True)), len(plan.layers_of(layer_type, False))
            short = layer_type.split("_")[0]
            scaled = "" if r.rope_type == "default" else f", {r.rope_type} s = {r.scaling.factor:g}"
            if rotating:
                parts.append(f"{rotating} {short} (base {_base(r.base)}{scaled})")
            if nope:
                parts.append(f"{nope} {short} NoPE")
        text = f"{len(plan.layer_types)} layers: " + ", ".join(parts) + f" · d = {m.head_dim} · L = {m.max_positions:,}"
    return text


def _base(b: float) -> str:
    return f"{b:,.0f}" if float(b).is_integer() and b < 1e12 else f"{b:g}"


def model_tab(q: Query) -> ModelRopeResponse:
    """The "A model's RoPE" tab (RoPE's :class:`~explorer.schemes.tabs.SchemeTab`) for the panel's model and query."""
    return model_rope(ModelRopeRequest(q.model, query=q.model_query))
