"""``bench --profile CASE``: one case's frame split, frame by frame, and a profile of the UI thread during a drag."""

from __future__ import annotations

import json
import os
import pstats
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import Case

#: Rows of the profile kept in the file, by own time and by cumulative time.
TOP_ROWS = 40


def find_case(spec: str, cases) -> Case:
    """The case ``spec`` names: ``PANEL`` (its first case) or ``PANEL:SIZE`` (e.g. ``waves:N=8192 d=1024``)."""
    panel, _, size = spec.partition(":")
    for c in cases:
        if c.panel == panel.strip() and (not size or c.size == size.strip()):
            return c
    names = ", ".join(f"{c.panel}:{c.size}" for c in cases)
    raise ValueError(f"no bench case {spec!r}; cases: {names}")


def profile_path(out: str | Path) -> Path:
    """Where the raw profile goes, beside ``out``: ``F.prof`` (``F.prof.pstats`` when ``out`` is itself a .prof)."""
    out = Path(out)
    return out.with_suffix(".prof") if out.suffix.lower() != ".prof" else out.with_name(out.name + ".pstats")


def default_path(case: Case) -> str:
    """``bench-profile-<panel>-<size>.json`` in the current folder."""
    from ..export.images import slug

    return f"bench-profile-{case.panel}-{slug(case.size)}.json"


def profile_rows(stats: pstats.Stats, key: str, top: int = TOP_ROWS) -> list[dict]:
    """The ``top`` functions by ``key`` ("tottime": own time, "cumtime": with what they call), in ms."""
    rows = []
    for (path, line, func), (_cc, calls, tot, cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append({"function": f"{_short(path)}:{line}({func})", "calls": int(calls), "tottime_ms": tot * 1e3,
                     "cumtime_ms": cum * 1e3})
    rows.sort(key=lambda r: -r[f"{key}_ms"])
    return rows[:top]


def _short(path: str) -> str:
    for marker in ("site-packages/", "explorer/"):
        if marker in path:
            return path[path.index(marker) + (len(marker) if marker == "site-packages/" else 0):]
    return path


def run_profile(spec: str, path: str | None = None, quick: bool = False, steps: int | None = None,
                runs: int | None = None) -> dict:
    """Run the case ``spec`` (see :func:`find_case`) and write ``path`` (JSON: the case's report with its split
    frame by frame, and the UI thread's profile during one more drag) and ``path`` with ``.prof`` (the profile, for
    ``python -m pstats`` or snakeviz).  Returns the bench's report of that one case."""
    import cProfile

    from . import CASES, QUICK_CASES, machine_info, renderers, run_case, start_app

    case = find_case(spec, QUICK_CASES if quick else CASES)
    out = Path(path or default_path(case))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="pe-bench-home-") as home:
        os.environ["PE_EXPLORER_HOME"] = home
        start_app()
        machine = machine_info()
        profile = cProfile.Profile()
        result = run_case(case, steps or (12 if quick else 120), 1 if quick else 3, runs or 1, profile=profile,
                          keep_frames=True)
    machine["renderer"] = renderers([result])
    stats = pstats.Stats(profile)
    prof = profile_path(out)
    stats.dump_stats(str(prof))
    from ..fileio import atomic_write_text

    atomic_write_text(out, json.dumps({
        "case": {"panel": case.panel, "size": case.size}, "machine": machine, "result": result,
        "profile": {"note": "the UI thread during one more drag, under cProfile (slower than the drags timed)",
                    "by_own_time": profile_rows(stats, "tottime"), "by_cumulative_time": profile_rows(stats, "cumtime"),
                    "stats_file": str(prof)}}, indent=1))
    return {"machine": machine, "runs": result["runs"], "cases": [result], "profile": str(out)}
