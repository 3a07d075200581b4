"""The exact numbers behind each Waves plot, for CSV/NPY export (never lane offsets or screen samples).

The display gets float32 curves and images (half the bytes to send and draw while dragging) and may draw
the fastest columns of a huge overview as the range [−1, 1]; an export never does.  It asks the jobs again
for the requests on screen with ``exact=True`` (float64, every block extremum computed), once, never on a
draw; the visible table, cell by cell, comes from its own job (:class:`~explorer.jobs.waves.TableRequest`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ... import jobs
from ...jobs.waves import EXPORT_TABLE_MAX, TableRequest, formula_numbers
from ...snippets import NoSnippet, Snippet
from ...snippets import waves as snip
from ...widgets.plot_data import plot_title


def exact_arrays(panel, plot) -> dict | None:
    """name -> array for ``plot`` of the Waves ``panel``; None if the plot is not one of its own."""
    st, rs = panel.state, panel.responses
    curves, pick = _exact(rs.get("waves.curves")), _whole_pick(rs.get("waves.views"))

    def on(name: str) -> bool:  # a view not built yet (its tab never shown) draws no plot to export
        return _on(panel, name, plot)

    if on("heatmap"):
        (r0, r1), (c0, c1) = panel.heatmap.visible()
        if (r1 - r0) * (c1 - c0) <= EXPORT_TABLE_MAX:  # computed by its job, once, for this export
            return {"PE": jobs.run(TableRequest(st.d_model, st.base, st.variant, (r0, r1), (c0, c1)))}
        heat = _exact(rs.get("waves.heatmap"))
        return {} if heat is None else {"block_min": heat.mins, "block_max": heat.maxs}
    if (on("waves") or on("beyond")) and curves is not None:
        data = curves.waves if on("waves") else curves.beyond
        out: dict[str, np.ndarray] = {}
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
        return {"PE(p).PE(q)": _exact(rs["waves.matrix"]).matrix}
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


def _on(panel, name: str, plot) -> bool:
    """``plot`` is the plot of the panel's view ``name`` (False while that view's tab is not built)."""
    view = panel.built_view(name)
    return view is not None and plot is view.plot


def _whole_pick(response):
    """The picked values as at rest: a drag step's leave out the rotation's checks, and the similarity view's dots
    while that view is hidden (an export made then still has them)."""
    if response is None or (not response.request.preview and response.request.markers):
        return response
    return jobs.run(dataclasses.replace(response.request, preview=False, markers=True))


def _exact(response):
    """The response to the same request made with ``exact=True`` (float64, nothing approximated)."""
    if response is None or getattr(response.request, "exact", True):
        return response
    return jobs.run(dataclasses.replace(response.request, exact=True, preview=False)
                    if hasattr(response.request, "preview") else dataclasses.replace(response.request, exact=True))


def snippet_for(panel, plot) -> Snippet | NoSnippet:
    """Copy as Python for ``plot``: the program whose ``result`` is :func:`exact_arrays` for it."""
    st, rs = panel.state, panel.responses
    title = f"Waves — {plot_title(plot) or 'plot'}"
    def on(name: str) -> bool:  # (never builds a tab: the plot asked about is on a built one)
        return _on(panel, name, plot)

    if on("why"):
        r = panel.why.response
        return waiting_for(r) or snip.growth(r.request, r.candidates, r.titles, title)
    curves, pick = rs.get("waves.curves"), rs.get("waves.views")
    waiting = NoSnippet("the plot has not drawn yet")
    if on("heatmap"):
        (r0, r1), (c0, c1) = panel.heatmap.visible()
        if (r1 - r0) * (c1 - c0) <= EXPORT_TABLE_MAX:
            return snip.table(TableRequest(st.d_model, st.base, st.variant, (r0, r1), (c0, c1)), title)
        heat = rs.get("waves.heatmap")
        return waiting if heat is None else snip.overview(heat.request, title)
    if on("waves") or on("beyond"):
        which = "waves" if on("waves") else "beyond"
        return waiting if curves is None else snip.lanes(curves.request, which, title)
    if on("spectrum"):
        return waiting if curves is None else snip.spectrum(curves.request, title)
    if on("similarity"):
        return waiting if curves is None or pick is None else snip.similarity(curves.request, pick.request, title)
    if on("matrix"):
        m = rs.get("waves.matrix")
        return waiting if m is None else snip.matrix(m.request, title)
    if pick is None:
        return waiting
    if on("vector"):
        return snip.vector(pick.request, title)
    if on("rotation"):
        return snip.rotation(pick.request, title)
    token = panel.built_view("token")
    if token is not None and plot in token.plots + [token.norms]:
        return snip.token(pick.request, title)
    return NoSnippet("no Copy-as-Python snippet for this plot yet", declared=False)


def waiting_for(response) -> NoSnippet | None:
    return NoSnippet("the plot has not drawn yet") if response is None else None


def strip_snippet(panel) -> Snippet:
    return snip.formula(panel.state, "Waves — the formula strip: ω_i, λ_i and PE(p) of the picked pair")


def strip_numbers(panel) -> dict:
    n = formula_numbers(panel.state)
    return {k: np.float64(n[k]) for k in ("omega", "wavelength", "angle", "sin", "cos")}
