"""Training and testing on the grid task (torch, imported lazily; called by :mod:`explorer.lab.runner`).

Each training step draws one side s from MIN_SIDE … L and a batch of s × s grids (all of one side, so nothing needs
padding); the model reads each grid in raster order with ``width = s`` and is scored on the cells the rule sets.
Testing runs the model on the seeded test grids of each test side and reports accuracy per cell, and, for the
largest side run, the accuracy on each row (the by-position plot's rows 1 … s − 1).
"""

from __future__ import annotations

import numpy as np

from .grid_task import MIN_SIDE, GridTask
from .results import LengthResult

#: Largest attention tensor (batch × heads × n × n elements) one evaluation chunk may build (as the runner's).
EVAL_CHUNK_ELEMENTS = 2**23


def mean_tokens(train_len: int) -> float:
    """The model's input tokens per grid, averaged over the training sides MIN_SIDE … L (for the progress bar)."""
    return float(np.mean([s * s - 1 for s in range(MIN_SIDE, train_len + 1)]))


def grid_loss(model, task: GridTask, cfg, rng, device):
    """Cross-entropy of one training batch of grids of one random side."""
    import torch

    side = int(rng.integers(MIN_SIDE, cfg.train_len + 1))
    g = torch.from_numpy(task.sample(cfg.batch, side, rng)).to(device)
    scored = torch.from_numpy(task.scored(side)).to(device)
    logits = model(g[:, :-1], width=side)[:, scored]
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), g[:, 1:][:, scored].reshape(-1))


def evaluate_grid(model, task: GridTask, cfg, grids: dict, n_run: int, device, control, on_chunk):
    """Accuracy and loss per cell at each test side ≤ ``n_run``; "cannot run" past it; accuracy by row."""
    import torch

    todo = [n for n in cfg.eval_lens if n <= n_run]
    weights = {n: float(n**4) for n in todo}  # attention work ∝ cells²
    total, done = sum(weights.values()) or 1.0, 0.0
    out: list[LengthResult] = []
    per_row: tuple[float, ...] = ()
    model.eval()
    with torch.no_grad():
        for n in cfg.eval_lens:
            if n not in weights:
                out.append(model.not_run(n, n * n - 1, n_run))
                continue
            g = grids[n]
            scored = task.scored(n)
            b_all, m = g.shape[0], n * n - 1
            chunk = max(1, min(b_all, EVAL_CHUNK_ELEMENTS // (cfg.heads * m * m)))
            right = np.zeros((b_all, int(scored.sum())), dtype=bool)
            ce = np.zeros(right.shape, dtype=np.float64)
            cols = torch.from_numpy(scored).to(device)
            for lo in range(0, b_all, chunk):
                control.checkpoint()
                hi = min(b_all, lo + chunk)
                x = torch.from_numpy(g[lo:hi]).to(device)
                logits = model(x[:, :-1], width=n)[:, cols]
                target = x[:, 1:][:, cols]
                right[lo:hi] = (logits.argmax(-1) == target).cpu().numpy()
                ce[lo:hi] = torch.nn.functional.cross_entropy(
                    logits.transpose(1, 2).float(), target, reduction="none").cpu().numpy()
                on_chunk(min(1.0, (done + weights[n] * hi / b_all) / total))
            done += weights[n]
            out.append(LengthResult(n, "ok", float(right.mean()), float(ce.mean())))
            rows = task.rows(n)[scored]
            per_row = tuple(float(right[:, rows == r].mean()) for r in range(1, n))  # the largest side, in the end
    return tuple(out), per_row
