"""``bench --scale``: how cost grows with size, four sizes per axis for each panel (the guide's table)."""

from __future__ import annotations

from ..interrupts import check as check_interrupt
from . import ALPHA_PE

#: (panel, axis, other fixed parameters, the axis's four values).
#: Token swap's sizes with a scheme α scales (sinusoidal PE): under its default NoPE an α drag changes no number.
AXES: tuple[tuple[str, str, dict[str, int | str], tuple[int, ...]], ...] = (
    ("waves", "n_positions", {"d_model": 128}, (1024, 8192, 32768, 131072)),
    ("waves", "d_model", {"n_positions": 8192}, (64, 256, 1024, 4096)),
    ("swap", "d_model", {"scheme": ALPHA_PE}, (16, 64, 128, 256)),
    ("schemes", "l_eval", {"l_train": 1024, "head_dim": 128}, (2048, 8192, 32768, 131072)),
    ("schemes", "head_dim", {"l_train": 1024, "l_eval": 16384}, (32, 128, 512, 1024)),
)
QUICK_AXES = (("waves", "n_positions", {"d_model": 16}, (64, 128)),)


def run_scale(quick: bool = False, steps: int | None = None, runs: int = 1) -> list[dict]:
    """Each axis at each size: a shorter drag (40 steps) ``runs`` times (the medians, as the main table's) and the
    notebook's update timed three times (the median: one sample made a row's ratio swing by a third between runs);
    ``quick``: once."""
    from . import Case, run_case

    rows = []
    for panel, axis, fixed, values in QUICK_AXES if quick else AXES:
        for v in values:
            check_interrupt()
            case = Case(panel, f"{axis}={v}", {**fixed, axis: v})
            r = run_case(case, steps or (8 if quick else 40), 1 if quick else 3, runs)
            r["axis"], r["value"], r["fixed"] = axis, v, fixed
            rows.append(r)
    return rows


def format_scale(rows: list[dict]) -> str:
    """A Markdown table (for docs/performance.md)."""
    from .report import loop_text

    out = ["| panel | axis = value (fixed) | compute p50 | drag p50 / p95 | stall | frames/s | notebook | × "
           "| host loop |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        fixed = ", ".join(f"{k}={v}" for k, v in r["fixed"].items())
        out.append(
            f"| {r['panel']} | {r['axis']} = {r['value']} ({fixed}) | {r['compute_ms']['p50']:.1f} | "
            f"{r['drag_latency_ms']['p50']:.0f} / {r['drag_latency_ms']['p95']:.0f} | {r['ui_stall_ms_max']:.0f} | "
            f"{r['frames_per_s']:.0f} | {r['notebook_ms']['p50']:.0f} | {r['speedup_vs_notebook']:.1f}× | "
            f"{loop_text(r)} |"
        )
    return "\n".join(out)
