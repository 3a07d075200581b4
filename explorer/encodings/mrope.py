"""Multimodal RoPE (M-RoPE): positions with three coordinates — time, height, width — for text, images and video.

Qwen2-VL (Wang et al. 2024, "Qwen2-VL: Enhancing Vision-Language Model's Perception of the World at Any
Resolution", arXiv 2409.12191, §2.1) gives every token a position (t, h, w) and splits the rotary pairs between the
three: ``mrope_section`` = (s_t, s_h, s_w) pairs.  Pair i turns by p_axis(i)·θ_i with the usual θ_i = base^(−2i/d):

- **which axis turns pair i** (:func:`pair_axes`): Qwen2-VL and Qwen2.5-VL take the first s_t pairs for time, the
  next s_h for height, the last s_w for width (transformers' ``Qwen2VLRotaryEmbedding.recomposition_frequencies``);
  Qwen3-VL (2025, ``mrope_interleaved``) deals them out t, h, w, t, h, w …: pair i is height when i ≡ 1 (mod 3) and
  i < 3·s_h, width when i ≡ 2 (mod 3) and i < 3·s_w, time otherwise, so every axis has fast and slow pairs;
- **the position ids** (:func:`position_ids`, transformers' ``get_rope_index`` and ``get_vision_position_ids``):
  a text token has t = h = w = its running position; an image or video of ``grid_thw`` = (T, H, W) patches becomes
  T·(H/m)·(W/m) tokens (m = ``spatial_merge_size``, 2: four patches merge into one token) with
  t = start + k·interval, h = start + row, w = start + column; the next segment starts at start + max(H, W)/m.  The
  interval is 1, except for Qwen2.5-VL videos: ``tokens_per_second`` × seconds per temporal patch, truncated to a
  whole number after the multiplication.  Qwen3-VL puts each video frame in a group of its own (text timestamps
  between them), so each frame is T = 1.

The expected score of a query token a and a key token b, for q = k ~ N(0, I), over |q|², is
(Σ_i 2·cos((p_axis(i)(a) − p_axis(i)(b))·θ_i) + (d − r))/d, the same measure as the model view's score curve.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import EncodingError
from .rope_model import MRopeLayout

AXES = ("t", "h", "w")
#: Most tokens one mixed sequence may have (the view's sequence has about 90).
MAX_TOKENS = 65536
#: Largest grid side (patches) and frame count accepted.
MAX_GRID = 4096


@dataclass(frozen=True)
class Segment:
    """One run of a mixed sequence: ``kind`` "text" with ``length`` tokens, or "image"/"video" with the vision
    encoder's ``grid`` (T, H, W) of patches, before the spatial merge; ``seconds`` per temporal patch (Qwen2.5-VL)."""

    kind: str
    length: int = 0
    grid: tuple[int, int, int] = (1, 1, 1)
    seconds: float = 1.0


def pair_axes(layout: MRopeLayout, pairs: int) -> np.ndarray:
    """The axis (0 t, 1 h, 2 w) that turns each of the ``pairs`` rotary pairs (see the module docstring)."""
    s_t, s_h, s_w = layout.section
    if s_t + s_h + s_w != pairs:
        raise EncodingError(f"mrope_section {list(layout.section)} adds up to {s_t + s_h + s_w} pairs, not {pairs}")
    if not layout.interleaved:
        return np.repeat(np.arange(3), layout.section)
    axes = np.zeros(pairs, dtype=np.int64)
    for axis in (1, 2):
        axes[axis: 3 * layout.section[axis]: 3] = axis
    return axes


def _vision_ids(start: int, grid: tuple[int, int, int], merge: int, interval: float) -> np.ndarray:
    """transformers' ``get_vision_position_ids``: (3, T·(H/m)·(W/m)), t-major then rows then columns."""
    t, h, w = grid[0], grid[1] // merge, grid[2] // merge
    times = (np.arange(t, dtype=np.float64) * interval).astype(np.int64) + start  # .long() truncates, then + start
    tt, hh, ww = np.meshgrid(times, np.arange(h) + start, np.arange(w) + start, indexing="ij")
    return np.stack([tt.ravel(), hh.ravel(), ww.ravel()])


def check_segments(segments, merge: int) -> None:
    """One line naming the first segment that is not a text run or a mergeable grid, or a sequence too long."""
    total, last = 0, ""
    for k, seg in enumerate(segments):
        if seg.kind == last and seg.kind != "text":
            raise EncodingError(f"segment {k}: two {seg.kind}s in a row need a text token between them (a real "
                                "sequence has vision start and end tokens; transformers groups touching runs)")
        last = seg.kind
        if seg.kind == "text":
            if not 1 <= seg.length <= MAX_TOKENS:
                raise EncodingError(f"segment {k}: a text run needs 1 … {MAX_TOKENS:,} tokens, got {seg.length}")
            total += seg.length
            continue
        if seg.kind not in ("image", "video"):
            raise EncodingError(f"segment {k}: kind must be text, image or video, got {seg.kind!r}")
        t, h, w = seg.grid
        if not (1 <= t <= MAX_GRID and merge <= h <= MAX_GRID and merge <= w <= MAX_GRID) or h % merge or w % merge:
            raise EncodingError(f"segment {k}: grid (T, H, W) = {seg.grid} must have T ≥ 1 and H, W multiples of the "
                                f"spatial merge {merge}, at most {MAX_GRID}")
        if not 0.0 < seg.seconds <= 1e6:
            raise EncodingError(f"segment {k}: seconds per temporal patch must be in (0, 1e6], got {seg.seconds:g}")
        total += t * (h // merge) * (w // merge)
    if not 1 <= total <= MAX_TOKENS:
        raise EncodingError(f"the sequence has {total:,} tokens; 1 … {MAX_TOKENS:,} are shown")


def position_ids(segments, layout: MRopeLayout) -> np.ndarray:
    """(3, n) int64 ids (t, h, w) of every token of ``segments``, as transformers' ``get_rope_index`` builds them
    for ``layout``'s model family (see the module docstring)."""
    merge = layout.spatial_merge
    check_segments(segments, merge)
    parts, pos = [], 0
    for seg in segments:
        if seg.kind == "text":
            parts.append(np.broadcast_to(np.arange(pos, pos + seg.length), (3, seg.length)))
            pos += seg.length
            continue
        interval = 1.0
        if seg.kind == "video" and layout.tokens_per_second is not None:
            interval = layout.tokens_per_second * seg.seconds
        parts.append(_vision_ids(pos, seg.grid, merge, interval))
        pos += max(seg.grid[1], seg.grid[2]) // merge
    return np.concatenate(parts, axis=1).astype(np.int64)


def token_kinds(segments, layout: MRopeLayout) -> list[tuple[str, int, int]]:
    """(kind, first token, one past the last token) per segment."""
    out, at = [], 0
    for seg in segments:
        n = seg.length if seg.kind == "text" else seg.grid[0] * (seg.grid[1] // layout.spatial_merge) * (
            seg.grid[2] // layout.spatial_merge)
        out.append((seg.kind, at, at + n))
        at += n
    return out


def angles(ids: np.ndarray, theta: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """(n, pairs): token n's angle of pair i, p_axis(i)(n)·θ_i."""
    return ids[axes].T.astype(np.float64) * theta


def expected_scores(ids: np.ndarray, theta: np.ndarray, axes: np.ndarray, query: int, head_dim: int,
                    att: float = 1.0) -> np.ndarray:
    """S(query, b) for every token b: (a²·Σ_i 2cos((p_axis(i)(query) − p_axis(i)(b))·θ_i) + (d − r))/d."""
    if not 0 <= query < ids.shape[1]:
        raise EncodingError(f"the query token {query} is outside the sequence's {ids.shape[1]} tokens")
    delta = (ids[:, query:query + 1] - ids)[axes].T.astype(np.float64)  # (n, pairs)
    return (att**2 * 2.0 * np.cos(delta * theta).sum(axis=1) + (head_dim - 2 * theta.size)) / head_dim


def cos_sin(ids: np.ndarray, theta: np.ndarray, axes: np.ndarray, att: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(cos, sin), each (n, 2·pairs), in transformers' ``rotate_half`` layout (the pairs' angles twice over), times
    the attention factor: what its M-RoPE rotary embedding hands ``apply_rotary_pos_emb``."""
    a = angles(ids, theta, axes)
    a = np.concatenate([a, a], axis=1)
    return np.cos(a) * att, np.sin(a) * att


def rotate(x: np.ndarray, ids: np.ndarray, theta: np.ndarray, axes: np.ndarray, att: float = 1.0) -> np.ndarray:
    """Rows of ``x`` (n, d) rotated as transformers rotates them (``x·cos + rotate_half(x)·sin`` on the first
    2·pairs dims; the rest pass through)."""
    cos, sin = cos_sin(ids, theta, axes, att)
    r = cos.shape[1]
    if x.shape[0] != ids.shape[1] or x.shape[1] < r:
        raise EncodingError(f"input of shape {x.shape} does not fit {ids.shape[1]} tokens of rotary dim {r}")
    out = np.array(x, dtype=np.float64)
    head = out[:, :r]
    half = np.concatenate([-head[:, r // 2:], head[:, : r // 2]], axis=1)
    out[:, :r] = head * cos + half * sin
    return out
