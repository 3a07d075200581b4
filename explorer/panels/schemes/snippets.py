"""Copy as Python for the Schemes panel's plots: which program (or which stated reason) each plot gets."""

from __future__ import annotations

import numpy as np

from ... import schemes as registry
from ...schemes.query import Query
from ...snippets import NoSnippet, Snippet
from ...snippets import schemes as snip
from ...widgets.plot_data import plot_title
from .beyond import LEARNED


def matrix_name(r) -> str:
    """The exported name of a score matrix's array (it says whether cells are block means)."""
    title = registry.get(r.request.scheme).title
    return (f"{title} ΔS [query, key]" if r.block == 1 else
            f"{title} ΔS block means [query block, key block], {r.block} positions per block")


def exact_data(panel, plot) -> dict | None:
    """The exact float64 numbers behind ``plot``: a score matrix's block means (NaN = no row or masked future), the
    shared colour scale, a view's own, the turn, distance and grid plots'; None for the generic read-back."""
    mv = panel._views.get("matrices")
    if mv is not None:
        if plot is mv.cbar_widget:
            return {"shared colour scale ΔS (low, high)": np.array(mv.cbar.levels(), dtype=np.float64)}
        for s, pw in mv.plots.items():
            r = mv.responses.get(s)
            if plot is pw and r is not None and r.matrix is not None:
                name = matrix_name(r)
                if getattr(r.request, "preview", False):  # exported in the moment before the exact one is drawn
                    name += " (a drag step's float32 preview: within 1e-6 of the largest |ΔS|)"
                return {name: r.matrix}
    for w in panel._views.values():
        if (own := w.export_data(plot)) is not None:
            return own
    return beyond_data(panel, plot) or distance_data(panel, plot) or grid_data(panel, plot)


def beyond_data(panel, plot) -> dict | None:
    """The RoPE turn plots' numbers, named (the read-back split them by colour and called the bars "bars")."""
    bv = panel._views.get("beyond")
    r = None if bv is None else bv.response
    sr = None if bv is None else bv.scaled_response
    if sr is not None and plot in (bv.scaled, bv.weight):
        k = np.arange(sr.theta.size, dtype=np.float64)
        if plot is bv.scaled:
            return {"pair k": k, "wavelength before": sr.wavelength, "wavelength after": sr.wavelength_scaled}
        return {"pair k": k, "weight": sr.weight}
    if r is None:
        return None
    for sid, extra in bv.extras.items():
        if plot is extra.widget and sid in r.extras:
            spec = r.extras[sid]
            return {spec.x_label: np.asarray(spec.x, dtype=np.float64),
                    spec.y_label: np.asarray(spec.y, dtype=np.float64)}
    if plot not in (bv.waves, bv.cover):
        return None
    k = np.arange(r.theta.size, dtype=np.float64)
    if plot is bv.waves:
        return {"pair k": k, "wavelength 2π/θ_k": r.wavelength, "full turn inside L_train": r.full_turn * 1.0}
    return {"pair k": k, "share of a turn inside L_train": r.cover_train, "share up to L_eval": r.cover_eval}


def _distance_plot(panel, plot) -> tuple[str, list] | None:
    """(kind, the responses it draws) when ``plot`` is one of the distance view's (see DISTANCE_PLOTS)."""
    dv = panel._views.get("distance")
    if dv is None:
        return None
    shown = [dv.responses[s] for s in panel.state.schemes if s in dv.responses]
    if plot is dv.top:
        return "curves", shown
    if plot is dv.bottom:
        return "bound", [r for r in shown if r.bound is not None]
    for s, (pw, _c) in dv.term_plots.items():
        if plot is pw:
            return "terms", [r for r in shown if r.request.scheme == s]
    return None


def distance_data(panel, plot) -> dict | None:
    """The distance view's numbers, exact and named by scheme (the read-back would drop the band's names)."""
    found = _distance_plot(panel, plot)
    if found is None:
        return None
    kind, responses = found
    out = {}
    for r in responses:
        names = snip.distance_names(registry.get(r.request.scheme).title, r, kind)
        if kind == "bound":
            values = [r.distance, r.bound]
        elif kind == "terms":
            values = [r.distance, *(v for _n, v in r.terms)]
        else:
            values = [r.distance, r.mean, *((r.band_distance, r.lo, r.hi) if r.lo is not None else ())]
        out.update({n: np.asarray(v, dtype=np.float64) for n, v in zip(names, values, strict=True)})
    return out


def snippet_for(panel, plot) -> Snippet | NoSnippet:
    views = panel._views
    title = f"Schemes — {plot_title(plot) or 'plot'}"
    waiting = NoSnippet("the plot has not drawn yet")
    for view in views.values():  # a view that writes its own programs (the tabs schemes add)
        if (own := view.export_snippet(plot, title)) is not None:
            return own
    mv = views.get("matrices")
    if mv is not None:
        if plot is mv.cbar_widget:
            return NoSnippet("the shared scale is the largest |ΔS| of the bounded schemes shown; "
                             "copy a matrix's snippet")
        for s, pw in mv.plots.items():
            if plot is pw:
                r = mv.responses.get(s)
                if r is None:
                    return NoSnippet("the plot has not drawn yet")
                if r.matrix is None:
                    return NoSnippet(r.note or "this configuration draws no matrix")
                return snip.matrix(r.request, matrix_name(r), title)
    found = _distance_plot(panel, plot)
    if found is not None:
        return snip.distance(found[1], found[0], title)
    bv = views.get("beyond")
    if bv is not None and plot in (bv.waves, bv.cover):
        which = "waves" if plot is bv.waves else "cover"
        return waiting if bv.response is None else snip.rope_turns(bv.response.request, which, title)
    if bv is not None:
        for sid, extra in bv.extras.items():
            if plot is extra.widget:
                r = bv.response
                setup = None if r is None else dict(r.request.extras).get(sid)
                if setup is None or sid not in r.extras:
                    return waiting
                return snip.beyond_extra(setup, r.extras[sid], title)
    if bv is not None and plot in (bv.scaled, bv.weight):
        sr = bv.scaled_response
        return waiting if sr is None else snip.scaled_plot(sr, "scaled" if plot is bv.scaled else "weight", title)
    if bv is not None and plot is bv.table:
        said = registry.get(LEARNED).score_snippet(Query(LEARNED, {}))  # why a learned table has no program
        return said if isinstance(said, NoSnippet) else NoSnippet("the learned table has no program")
    gv = views.get("grid")
    if gv is not None and plot in gv.plot_widgets():
        return NoSnippet("no Copy-as-Python program for the patch grid yet: Export → Save numbers writes its exact "
                         "scores")
    return NoSnippet("no Copy-as-Python snippet for this plot yet", declared=False)


def grid_data(panel, plot) -> dict | None:
    """The patch grid's numbers: a scheme's scores on the grid, or the cuts."""
    gv = panel._views.get("grid")
    if gv is None:
        return None
    for s, pw in gv.plots.items():
        r = gv.responses.get(s)
        if plot is pw and r is not None and r.scores is not None:
            return {f"{r.title}: score of patch {r.query} with every patch (rows y, columns x)": r.scores}
    if plot is gv.cuts:
        out = {}
        for r in gv.responses.values():
            for name, dist, values in r.cuts:
                out[f"{r.title} · {name}: distance"] = dist
                out[f"{r.title} · {name}: score"] = values
        return out or None
    return None
