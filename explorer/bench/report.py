"""The bench's report as text: the machine, start-up, one line per case, and each case's frame split."""

from __future__ import annotations

from .split import format_split


def _ratio(c: dict, name: str) -> str:
    base = c.get(f"{name}_ms")
    if not base:
        return f"{'—':>9} {'—':>6}"
    return f"{base['p50']:7.0f}ms {c[f'speedup_vs_{name}']:5.1f}×"


def machine_line(m: dict) -> str:
    load = "/".join(f"{v:.2f}" for v in m.get("load_avg", [])) or "?"
    return (f"PE Explorer benchmark — {m['cpu']} ({m['cores']} cores of {m.get('cpus', '?')}, load {load} at the "
            f"start), Python {m['python']}, Qt {m['qt']} ({m.get('qpa_platform', '?')}, renderer "
            f"{m.get('renderer') or '?'}), torch {m['torch']}{_speed(m.get('speed'))}"
            + (f"; OpenGL was asked for and not used: {m['renderer_problem']}" if m.get("renderer_problem") else ""))


def format_table(report: dict) -> str:
    lines = [machine_line(report["machine"])]
    if "window_shown_ms" in report:
        imp = report.get("imports", {})
        top = ", ".join(f"{t['module']} {t['self_ms']:.0f}" for t in imp.get("top", [])[:6])
        start = report.get("startup", {})
        lines += [
            f"window shown: {report['window_shown_ms']:.0f} ms after process start, first results on screen: "
            f"{report.get('first_results_ms', float('nan')):.0f} ms; window path imports "
            f"{imp.get('total_ms', float('nan')):.0f} ms ({top} ms)",
            "start-up in a fresh process: " + ", ".join(f"{k[:-3]} {v:.0f} ms" for k, v in start.items()
                                                        if k.endswith("_ms"))
            + f" (panels built: {', '.join(start.get('panels_built', []))}; plots built: "
            f"{start.get('plots_built', '?')}; modules: {start.get('modules_imported', '?')})",
        ]
    runs = report.get("runs") or (report["cases"][0].get("runs", 1) if report["cases"] else 1)
    lines += [
        "",
        f"each case: the median of {runs} drag{'s' if runs != 1 else ''}",
        f"{'panel':8} {'size':26} {'compute p50/p95':>17} {'drag p50/p95':>15} {'1st plot':>15} {'stall':>7} "
        f"{'fps':>4} {'cpu ui/kids':>11} {'notebook':>9} {'×':>6} {'nb live':>9} {'×':>6} {'reduced':>9} {'×':>6} "
        f"{'host loop':>11}",
    ]
    for c in report["cases"]:
        cpu = c["cpu_s"]
        first = c.get("first_plot_ms") or {}
        lines.append(
            f"{c['panel']:8} {c['size']:26} {c['compute_ms']['p50']:7.1f}/{c['compute_ms']['p95']:<7.1f}ms "
            f"{c['drag_latency_ms']['p50']:6.1f}/{c['drag_latency_ms']['p95']:<6.1f}ms "
            f"{first.get('p50', float('nan')):6.1f}/{first.get('p95', float('nan')):<6.1f}ms "
            f"{c['ui_stall_ms_max']:5.0f}ms {c['frames_per_s']:4.0f} "
            f"{cpu['ui']:4.1f}/{cpu['children_total']:<4.1f}s "
            f"{_ratio(c, 'notebook')} {_ratio(c, 'notebook_interactive')} {_ratio(c, 'matplotlib')} "
            f"{loop_text(c):>11}"
        )
    lines += ["", "Where a drag frame's UI-thread time goes (ms per frame, mean/p95; the means add up to the total):"]
    for c in report["cases"]:
        lines.append(f"  {c['panel']} {c['size']}: {format_split(c['frame_split'])}")
    if "scale" in report:
        from .scale import format_scale

        lines += ["", format_scale(report["scale"])]
    return "\n".join(lines)


def loop_text(case: dict) -> str:
    """The host's Python loop before and after a case's drags ("11.2→14.0 ms"), or "—" for a report without it."""
    loop = case.get("host_loop_ms")
    return f"{loop[0]:.1f}→{loop[1]:.1f} ms" if loop else "—"


def _speed(speed: dict | None) -> str:
    if not speed:
        return ""
    return f"; host speed: Python loop {speed['python_ms']:.1f} ms, raster paint {speed['raster_ms']:.1f} ms"
