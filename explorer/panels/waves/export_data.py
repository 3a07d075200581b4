"""The exact numbers behind each Waves plot, for CSV/NPY export (never lane offsets or screen samples).

Read from the responses the panel holds; the visible table, cell by cell, comes from its own job
(:class:`~explorer.jobs.waves.TableRequest`), run once for the export, never on a draw.
"""

from __future__ import annotations

import numpy as np

from ... import jobs
from ...jobs.waves import EXPORT_TABLE_MAX, TableRequest


def exact_arrays(panel, plot) -> dict | None:
    """name -> array for ``plot`` of the Waves ``panel``; None if the plot is not one of its own."""
    st, rs = panel.state, panel.responses
    curves, pick = rs.get("waves.curves"), rs.get("waves.views")

    def on(name: str) -> bool:  # a view not built yet (its tab never shown) draws no plot to export
        view = panel.built_view(name)
        return view is not None and plot is view.plot

    if on("heatmap"):
        (r0, r1), (c0, c1) = panel.heatmap.visible()
        if (r1 - r0) * (c1 - c0) <= EXPORT_TABLE_MAX:  # computed by its job, once, for this export
            return {"PE": jobs.run(TableRequest(st.d_model, st.base, st.variant, (r0, r1), (c0, c1)))}
        heat = rs.get("waves.heatmap")
        return {} if heat is None else {"block_min": heat.mins, "block_max": heat.maxs}
    if (on("waves") or on("beyond")) and curves is not None:
        data = curves.waves if on("waves") else curves.beyond
        out = {}
        for i, (x, y) in sorted(data.items()):
            out.setdefault("position", x)
            out[f"pair {i} sin"] = y
        return out
    if on("spectrum") and curves is not None:
        return {"pair": np.arange(curves.wavelengths.size), "wavelength": curves.wavelengths,
                "omega": curves.omega}
    if on("similarity") and curves is not None:
        out = {"offset": curves.sim_x, "sum cos(offset*omega)": curves.sim_y}
        if pick is not None:
            out["q - p"] = pick.marker_q - pick.request.position
            out["PE(p).PE(q)"] = pick.marker_dot
        return out
    if on("matrix") and "waves.matrix" in rs:
        return {"PE(p).PE(q)": rs["waves.matrix"].matrix}
    if pick is not None and on("vector"):
        return {"column": np.arange(pick.pe_p.size), "PE(p)": pick.pe_p, "PE(p+k)": pick.pe_pk}
    if pick is not None and on("rotation"):
        return {"PE_i(p) [sin, cos]": pick.pair_p, "PE_i(p+k) [sin, cos]": pick.pair_pk,
                "R(k)": pick.rotation["R"]}
    token = panel.built_view("token")
    if pick is not None and token is not None and plot in token.plots + [token.norms]:
        t = pick.token
        return {"column": np.arange(t["x"].size), "x": t["x"], "PE(p1)": t["pe1"], "PE(p2)": t["pe2"],
                "x+PE(p1)": t["v1"], "x+PE(p2)": t["v2"]}
    return None
