"""The mixed sequence the app shows an M-RoPE model with (the Schemes panel's model view, ``data mrope-positions``):
each token's (t, h, w) position ids as transformers builds them, which axis turns each pair, and the expected score
between one query token and every token (the maths is :mod:`explorer.encodings.mrope`).

The sequence is fixed, so that the picture is the same in every lecture: 3 text tokens, an image of 8 × 12 patches
(4 × 6 tokens after the 2 × 2 merge), 3 text tokens, a video of 3 temporal patches of 8 × 8 (48 tokens; Qwen3-VL
shows each frame after a 2-token timestamp, as its processor does), 2 text tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .mrope import Segment, expected_scores, pair_axes, position_ids, token_kinds
from .rope_model import ModelRope, MRopeLayout

#: The image's grid (T, H, W) in patches, before the spatial merge; the video's; its frames' spacing in seconds.
IMAGE_GRID = (1, 8, 12)
VIDEO_GRID = (3, 8, 8)
VIDEO_SECONDS = 1.0


def default_segments(layout: MRopeLayout) -> list[Segment]:
    """The view's mixed sequence for ``layout`` (grids scaled by its spatial merge, so every model shows the same
    token grid)."""
    m = layout.spatial_merge
    image = Segment("image", grid=(1, IMAGE_GRID[1] // 2 * m, IMAGE_GRID[2] // 2 * m))
    t, h, w = VIDEO_GRID
    video_grid = (t, h // 2 * m, w // 2 * m)
    if layout.family == "qwen3_vl":  # each frame after its timestamp, in a group of its own
        frames = [s for _ in range(t) for s in (Segment("text", 2), Segment("video", grid=(1, *video_grid[1:])))]
    else:
        frames = [Segment("video", grid=video_grid, seconds=VIDEO_SECONDS)]
    return [Segment("text", 3), image, Segment("text", 3), *frames, Segment("text", 2)]


@dataclass(frozen=True)
class MRopeResult:
    """The mixed sequence's positions and one query's scores."""

    segments: tuple[tuple[str, int, int], ...]  # (kind, first token, one past the last)
    ids: np.ndarray  # (3, n): t, h, w per token
    axes: np.ndarray  # (pairs,): 0 t, 1 h, 2 w
    query: int
    scores: np.ndarray  # (n,): S(query, token)
    image: tuple[int, int, int]  # (first token, rows, columns) of the image
    image_scores: np.ndarray  # (rows, columns): the scores of the image's tokens


def mrope_result(m: ModelRope, theta: np.ndarray, att: float, query: int) -> MRopeResult:
    """The sequence's ids and the scores from ``query`` (-1: the image's centre token; past the end: the last)."""
    assert m.mrope is not None
    segs = default_segments(m.mrope)
    ids = position_ids(segs, m.mrope)
    kinds = token_kinds(segs, m.mrope)
    first = next(a for kind, a, _b in kinds if kind == "image")
    rows = IMAGE_GRID[1] // 2
    cols = IMAGE_GRID[2] // 2
    if query < 0:
        query = first + (rows // 2) * cols + cols // 2
    query = min(query, ids.shape[1] - 1)
    axes = pair_axes(m.mrope, theta.size)
    scores = m.softmax_scale * expected_scores(ids, theta, axes, query, m.head_dim, att)
    image_scores = scores[first:first + rows * cols].reshape(rows, cols)
    return MRopeResult(tuple(kinds), ids, axes, query, scores, (first, rows, cols), image_scores)
