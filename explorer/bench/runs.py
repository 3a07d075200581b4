"""A case's drag run several times: each number the median over the runs, the frame split the median run's."""

from __future__ import annotations

import statistics
from typing import Any

import numpy as np


def median_run(runs: list[dict]) -> int:
    """The index of the run whose UI time per frame (the split's total mean) is the median (the lower one of two)."""
    order = sorted(range(len(runs)), key=lambda i: runs[i]["frame_split"]["total_ms"]["mean"])
    return order[(len(runs) - 1) // 2]


def median_of_runs(runs: list[dict]) -> dict:
    """One drag's report from several: every number is the median over ``runs`` (an integer the lower median, a
    flag true only if true in every run); the frame split, and anything else that is not a number, is the median
    run's whole, so its parts still add up.  Adds ``runs`` (how many), ``median_run`` (its index) and
    ``drag_latency_p50_runs`` (each run's, to show the spread)."""
    if not runs:
        raise ValueError("no runs to take the median of")
    mid = median_run(runs)
    out = _median(runs, runs[mid])
    out["runs"] = len(runs)
    out["median_run"] = mid
    out["drag_latency_p50_runs"] = [float(r["drag_latency_ms"]["p50"]) for r in runs]
    return out


def _median(values: list, mid: Any) -> Any:
    if isinstance(mid, dict) and all(isinstance(v, dict) for v in values):
        return {k: mid[k] if k == "frame_split" else _median([v.get(k) for v in values], mid[k]) for k in mid}
    if isinstance(mid, bool):
        return all(bool(v) for v in values)
    if isinstance(mid, int) and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return int(statistics.median_low(values))
    if isinstance(mid, (int, float)) and all(isinstance(v, (int, float)) for v in values):
        return float(np.median(np.asarray(values, dtype=np.float64)))
    return mid
