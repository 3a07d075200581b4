"""Copy as Python for the Schemes panel: score matrices, the distance view, the beyond-training plots, ALiBi's
plots and a model's RoPE.

The matrix program sets the request's parameters, the content vectors, then the scheme's own code (its
:meth:`~explorer.schemes.base.Scheme.score_snippet` hook: ``delta_s`` at every query and key), and averages
blocks of positions as the panel shows them (:mod:`explorer.encodings.blocks` computes the same means in
closed form).  The distance view's program runs each shown scheme's score code and takes diagonal means;
scaled RoPE and the model view share one ``rope_frequencies`` (transformers' rope init functions in numpy)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .. import schemes as registry
from ..encodings.blocks import blocks
from . import NoSnippet, Snippet, lit, program

#: Largest L_eval a matrix program builds in full (L × L float64: 128 MiB at 4096).
FULL_MATRIX_MAX = 4096

#: The shared request fields a score may read, and how the program's top names them.
FIELDS = {
    "head_dim": ("d", "head dimension d"),
    "base": ("base", "RoPE / sinusoid base"),
    "l_train": ("l_train", "training length L_train"),
    "content": ("content", '"same": one content vector c; "average": the mean over 16'),
    "seed": ("seed", "seed of the content vectors and tables"),
    "causal": ("causal", "causal mask: no key after its query"),
    "scaling": ("scaling", "context-scaling method"),
    "factor": ("factor", "scaling factor s"),
    "heads": ("heads", "heads (bias schemes)"),
    "alibi_head": ("alibi_head", "the head shown"),
}

_CONTENT = ('c = np.random.default_rng(seed).standard_normal((1 if content == "same" else 16, d))'
            "  # content vectors, q = k = c")

_BLOCKS = """\
# The panel shows blocks of `block` × `block` positions, each cell the mean of ΔS over its block
# (cells with no value, NaN, left out; a block with none stays NaN).
nb = -(-L // block)
padded = np.full((nb * block, nb * block), np.nan)
padded[:L, :L] = delta_s
cells = padded.reshape(nb, block, nb, block)
count = np.sum(~np.isnan(cells), axis=(1, 3))
total = np.nansum(cells, axis=(1, 3))
matrix = np.where(count > 0, total / np.maximum(count, 1), np.nan)"""


def matrix(req: Any, name: str, title: str) -> Snippet | NoSnippet:
    """ΔS of one scheme for a :class:`~explorer.jobs.schemes.MatrixRequest`; ``name`` is the exported array's."""
    scheme = registry.get(req.scheme)
    length = int(req.l_eval)
    if length > FULL_MATRIX_MAX:
        return NoSnippet(f"L_eval = {length:,}: the full L × L matrix is too large for a snippet "
                         f"(at most {FULL_MATRIX_MAX:,}); Export → Save numbers gives the block means")
    part = scheme.score_snippet(scheme.query(req, "matrices"))
    if isinstance(part, NoSnippet):
        return part
    bl = blocks(length, req.max_cells)
    fields = [f for f in scheme.fields_for("matrices") if f in FIELDS]
    params = [("L", length, "positions 0 … L − 1 (L_eval)"), ("block", int(bl.size), "positions per cell"),
              *((FIELDS[f][0], getattr(req, f), FIELDS[f][1]) for f in fields), *part.params]
    body = "pos = np.arange(L)\n"
    if "content" in fields:
        body += _CONTENT + "\n"
    body += f"\n# {scheme.title}:\n{part.code.strip()}\n\n"
    body += "matrix = delta_s  # one cell per position\n" if bl.size == 1 else _BLOCKS
    return program(title, params, body, f"{{{name!r}: matrix}}", imports=part.imports)


def alibi_slopes(req: Any, title: str) -> Snippet:
    """The ALiBi slopes plot for ``req`` (the ALiBi tab's query: its ``heads``)."""
    from ..schemes.alibi import SLOPES_SNIPPET

    return program(title, [("heads", int(req.heads), "attention heads")],
                   SLOPES_SNIPPET + "\nhead = np.arange(heads, dtype=np.float64)",
                   '{"x": head, "slope": slopes}')


_TURNS = """\
k = np.arange(d // 2)  # pair index, 0 = the fastest
theta = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # θ_k = base^(−2k/d)
wavelength = 2 * np.pi / theta  # positions per full turn of pair k
# Positions 0 … L − 1 span L − 1 steps: pair k meets angles up to (L − 1)·θ_k."""


def rope_turns(req: Any, which: str, title: str) -> Snippet:
    """RoPE past training (a :class:`~explorer.jobs.schemes.BeyondRequest`): ``which`` = "waves" (each pair's
    wavelength, and whether it turns fully inside L_train) or "cover" (the share of a turn reached)."""
    params = [("d", int(req.head_dim), "head dimension d"), ("base", float(req.base), "RoPE base"),
              ("l_train", int(req.l_train), "training length L_train"), ("l_eval", int(req.l_eval), "L_eval")]
    if which == "waves":
        body = _TURNS + "\nfull = wavelength <= l_train - 1  # turns fully inside L_train: every angle seen"
        result = ('{"pair k": k, "wavelength 2π/θ_k": wavelength, '
                  '"full turn inside L_train": full.astype(np.float64)}')
    else:
        body = _TURNS + ("\ncover_train = np.minimum(1.0, (l_train - 1) * theta / (2 * np.pi))  # share of a turn"
                         "\ncover_eval = np.minimum(1.0, (l_eval - 1) * theta / (2 * np.pi))")
        result = '{"pair k": k, "share of a turn inside L_train": cover_train, "share up to L_eval": cover_eval}'
    return program(title, params, body, result)


#: The distance view's three kinds of plot: every scheme's mean ΔS (and band), RoFormer's bound, a scheme's terms.
DISTANCE_PLOTS = ("curves", "bound", "terms")

_DIAGONALS = """\
distance = np.arange(L)  # Δ = i − j ≥ 0: keys at or before the query


def mean_over_pairs(delta_s):
    \"\"\"ΔS at each Δ: the mean over every pair (i, i − Δ) inside 0 … L − 1 (the Δ-th diagonal).\"\"\"
    return np.array([np.mean(np.diagonal(delta_s, -k)) for k in distance])


def band(delta_s):
    \"\"\"min and max over 8 query positions in the second half of ΔS[q, q − Δ] (absolute schemes).\"\"\"
    queries = np.unique(np.linspace(L // 2, L - 1, 8).round().astype(np.int64))
    cells = np.array([[delta_s[q, q - k] if k <= q else np.nan for k in band_distance] for q in queries])
    return band_distance, np.nanmin(cells, axis=0), np.nanmax(cells, axis=0)


def bound(theta, log_decay=0.0):
    \"\"\"RoFormer's (1/(d/2))·Σ_j |Σ_(k ≤ j) e^(iΔθ_k)| (Su et al. 2021 §3.4.3; xPos: × ζ_k^(Δ/B)).\"\"\"
    partial = np.cumsum(np.exp(np.multiply.outer(distance, 1j * theta + log_decay)), axis=1)
    return np.abs(partial).sum(axis=1) / theta.size


curves = {}"""


def distance_names(title: str, r: Any, plot: str) -> tuple[str, ...]:
    """The exported names of scheme ``title``'s arrays in distance plot ``plot`` (see :data:`DISTANCE_PLOTS`)."""
    if plot == "bound":
        return (f"{title}: Δ", f"{title}: bound")
    if plot == "terms":
        return (f"{title}: Δ", *(f"{title}: {name}" for name, _v in r.terms))
    band_names = (f"{title}: band Δ", f"{title}: band min", f"{title}: band max") if r.lo is not None else ()
    return (f"{title}: Δ", f"{title}: ΔS mean over pairs", *band_names)


def distance(responses: Sequence[Any], plot: str, title: str) -> Snippet | NoSnippet:
    """The distance view's ``plot`` (a :data:`DISTANCE_PLOTS` key) for the shown schemes' DistanceResponses:
    each scheme's score program (its ``delta_s`` at every query and key), then means along diagonals."""
    if not responses:
        return NoSnippet("no scheme shown rotates q and k: the bound has no curve" if plot == "bound"
                         else "the plot has not drawn yet")
    length = int(responses[0].request.l_eval)
    if length > FULL_MATRIX_MAX:
        return NoSnippet(f"L_eval = {length:,}: the program builds the full L × L matrix (at most "
                         f"{FULL_MATRIX_MAX:,}); Export → Save numbers gives the curves")
    values: dict[str, Any] = {}
    sections = []
    imports: tuple[str, ...] = ()
    for r in responses:
        req = r.request
        sch = registry.get(req.scheme)
        if r.note or r.distance.size == 0:
            return NoSnippet(f"{sch.title}: {r.note or 'no curve'}")
        if r.stride != 1:
            return NoSnippet(f"{sch.title}: the curve is thinned here; Export → Save numbers gives it")
        part = sch.score_snippet(sch.query(req, "distance"))
        if isinstance(part, NoSnippet):
            hide = "; hide it to copy the other curves' program" if plot == "curves" and len(responses) > 1 else ""
            return NoSnippet(f"{sch.title}: {part.reason}{hide}")
        # A request carries only the fields its scheme reads (the rest are defaults): each from one that reads it.
        values.update({f: getattr(req, f) for f in sch.fields_for("distance")
                       if f in FIELDS and f != "causal" and f not in values})
        imports += tuple(m for m in part.imports if m not in imports)
        names = distance_names(sch.title, r, plot)
        own = "".join(f"{n} = {lit(v)}  # {c}\n" for n, v, c in part.params)
        if plot == "bound":
            decay = ", np.log(zeta) / B" if "zeta =" in part.code else ""
            out = f"curves[{names[0]!r}] = distance\ncurves[{names[1]!r}] = bound(theta{decay})"
        elif plot == "terms":
            pairs = zip(names[1:], r.terms, strict=True)
            out = f"curves[{names[0]!r}] = distance\n" + "\n".join(
                f"curves[{n!r}] = terms[{t!r}][distance + L - 1]" for n, (t, _v) in pairs)
        else:
            out = f"curves[{names[0]!r}] = distance\ncurves[{names[1]!r}] = mean_over_pairs(delta_s)"
            if r.lo is not None:
                out += f"\ncurves[{names[2]!r}], curves[{names[3]!r}], curves[{names[4]!r}] = band(delta_s)"
        sections.append(f"# {sch.title}:\n{own}{part.code.strip()}\n{out}")
    params = [("L", length, "positions 0 … L − 1 (L_eval)"),
              ("causal", True, "ΔS at keys at or before the query (Δ = i − j ≥ 0)"),
              *((FIELDS[f][0], v, FIELDS[f][1]) for f, v in values.items())]
    body = "pos = np.arange(L)\n"
    if "content" in values:
        body += _CONTENT + "\n"
    body += f"band_distance = np.arange(0, L, {band_stride(length)})  # where the band is drawn\n"
    body += _DIAGONALS + "\n\n" + "\n\n".join(sections)
    return program(title, params, body, "curves", imports=imports)


def band_stride(length: int) -> int:
    """The band's distance step at ``length`` positions (one point per distance up to 2048 of them)."""
    from ..encodings.blocks import distance_grid
    from ..schemes.base import BAND_POINTS

    return distance_grid(length, min(length, BAND_POINTS))[1]


def beyond_extra(setup: Any, spec: Any, title: str) -> Snippet | NoSnippet:
    """A scheme's own "beyond training" plot (its :meth:`~explorer.schemes.base.Scheme.beyond_plot`) from its
    :meth:`~explorer.schemes.base.Scheme.beyond_snippet` hook; ``setup`` is the request the plot was drawn for."""
    sch = registry.get(setup.scheme)
    part = sch.beyond_snippet(sch.query(setup, "beyond"))
    if isinstance(part, NoSnippet):
        return part
    code = part.code.strip()
    used = [f for f in FIELDS if re.search(rf"\b{FIELDS[f][0]}\b", code)]
    params = [("l_eval", int(setup.l_eval), "L_eval"), *((FIELDS[f][0], getattr(setup, f), FIELDS[f][1]) for f in used),
              *part.params]
    body = (_CONTENT + "\n" if "content" in used else "") + code
    return program(title, params, body, f"{{{spec.x_label!r}: x, {spec.y_label!r}: y}}", imports=part.imports)


#: What the ALiBi view's plots export (names), by plot.
ALIBI_RESULTS = {
    "profiles": '{"distance Δ": distance, **{f"head {k} weight": profiles[k] for k in range(heads)}}',
    "attention": '{"query position": queries, "share of the query\'s weight per key block [query, key block]": share}',
    "tiles": '{"bias block means [head, query block, key block]": tiles}',
}

_ALIBI_BODY = {
    "profiles": """\
distance = np.arange(0, L, stride)  # Δ = (L − 1) − j: the last query's keys
# The last query's weights, softmax_j(−m·(L − 1 − j)) (no key after it: causal or not, the same)
w = np.exp(-slopes[:, None] * np.arange(L)[None, :])
profiles = (w / w.sum(axis=1, keepdims=True))[:, distance]""",
    "attention": """\
m = slopes[alibi_head]
delta = np.subtract.outer(np.arange(L), np.arange(L)).astype(np.float64)  # i − j
scores = np.where(delta < 0, -np.inf, -m * delta) if causal else -m * np.abs(delta)
w = np.exp(scores - scores.max(axis=1, keepdims=True))
w = w / w.sum(axis=1, keepdims=True)  # softmax over the keys (content removed)
starts = np.arange(0, L, block)
queries = np.minimum(starts + block, L) - 1  # each row: the query at the end of its block
share = np.add.reduceat(w[queries], starts, axis=1)  # its weight in each key block (the plot: log10 of it)
if causal:
    share[starts[None, :] > queries[:, None]] = np.nan  # a key block wholly in the future""",
    "tiles": """\
delta = np.subtract.outer(np.arange(L), np.arange(L)).astype(np.float64)  # i − j
nb = -(-L // block)
tiles = np.empty((heads, nb, nb))
for h, m in enumerate(slopes):
    bias = np.where(delta < 0, np.nan, -m * delta) if causal else -m * np.abs(delta)
    padded = np.full((nb * block, nb * block), np.nan)
    padded[:L, :L] = bias
    cells = padded.reshape(nb, block, nb, block)  # the mean over each block's cells (NaN: masked future)
    count = np.sum(~np.isnan(cells), axis=(1, 3))
    tiles[h] = np.where(count > 0, np.nansum(cells, axis=(1, 3)) / np.maximum(count, 1), np.nan)""",
}


def alibi_plot(r: Any, which: str, title: str) -> Snippet | NoSnippet:
    """The ALiBi tab's ``which`` plot ("profiles", "attention", "tiles") for its numbers ``r`` (an AlibiTab)."""
    from ..schemes.alibi import SLOPES_SNIPPET

    req = r.query
    length = int(req.l_eval)
    if which != "profiles" and length > FULL_MATRIX_MAX:
        return NoSnippet(f"L_eval = {length:,}: the program builds the full L × L matrix (at most "
                         f"{FULL_MATRIX_MAX:,}); Export → Save numbers gives the block values")
    params = [("L", length, "positions 0 … L − 1 (L_eval)"), ("heads", int(req.heads), "attention heads")]
    if which == "profiles":
        params.append(("stride", int(r.stride), "every stride-th distance"))
    else:
        block = r.attention_block if which == "attention" else r.tile_block
        params += [("causal", bool(req.causal), "causal mask"), ("block", int(block), "positions per cell")]
        if which == "attention":
            params.append(("alibi_head", int(req.alibi_head), "the head shown"))
    return program(title, params, SLOPES_SNIPPET + "\n" + _ALIBI_BODY[which], ALIBI_RESULTS[which])


#: Copy as Python: θ_k after context scaling and the factor on cos and sin, as transformers computes them
#: (``rope_scaling`` holds the fields of :class:`explorer.encodings.rope.RopeScaling`).
ROPE_FREQUENCIES = """\
def rope_frequencies(d, base, rope_scaling):
    \"\"\"(θ_k after scaling, attention factor) for the rotary width d (transformers' rope init functions).\"\"\"
    sc = rope_scaling
    kind, s, l_orig = sc["kind"], float(sc["factor"]), sc["original_max_positions"]
    even = np.arange(0, d, 2, dtype=np.float64)
    theta = base ** (-even / d)  # θ_k = base^(−2k/d)
    if kind == "none" or (s == 1.0 and kind not in ("yarn", "longrope")):
        return theta, 1.0
    if kind == "linear":  # position interpolation: every pair divided by s
        return theta / s, 1.0
    if kind == "ntk":  # a larger base: base·s^(d/(d−2))
        return (base * s ** (d / (d - 2))) ** (-even / d), 1.0
    if kind == "dynamic":  # NTK with the factor grown with the sequence length
        seq = max(sc["seq_len"] or l_orig, l_orig)
        return (base * (s * seq / l_orig - (s - 1)) ** (d / (d - 2))) ** (-even / d), 1.0
    if kind == "longrope":  # one factor per pair, short or long
        long = sc["seq_len"] is not None and sc["seq_len"] > l_orig
        ext = np.asarray(sc["long_factor"] if long else sc["short_factor"], dtype=np.float64)
        att = sc["attention_factor"]
        if att is None:
            att = 1.0 if s <= 1.0 else math.sqrt(1 + math.log(s) / math.log(l_orig))
        return 1.0 / (ext * base ** (even / d)), float(att)
    if kind == "yarn":
        def dim_for(rotations):  # the pair index that turns `rotations` times in l_orig positions
            ratio = l_orig / (rotations * 2 * math.pi)
            if not math.isfinite(ratio):  # a β so small the ratio overflows: the same number as a difference of logs
                return d * (math.log(l_orig) - math.log(rotations) - math.log(2 * math.pi)) / (2 * math.log(base))
            return d * math.log(ratio) / (2 * math.log(base))

        low, high = dim_for(sc["beta_fast"]), dim_for(sc["beta_slow"])
        if sc["truncate"]:
            low, high = math.floor(low), math.ceil(high)
        low, high = float(max(low, 0)), float(min(high, d - 1))
        if low == high:
            high += 0.001
        ramp = np.clip((np.arange(d // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)  # 1: θ/s, 0: θ kept
        extrapolation = 1.0 - ramp
        freq = (theta / s) * (1.0 - extrapolation) + theta * extrapolation

        def mscale(m=1.0):
            return 1.0 if s <= 1 else 0.1 * m * math.log(s) + 1.0

        if sc["attention_factor"] is not None:
            return freq, float(sc["attention_factor"])
        if sc["mscale"] and sc["mscale_all_dim"]:
            return freq, mscale(sc["mscale"]) / mscale(sc["mscale_all_dim"])
        return freq, mscale()
    # llama3: keep the short wavelengths, divide the long ones by s, blend in between
    wavelen = 2 * math.pi / theta
    low_wavelen, high_wavelen = l_orig / sc["low_freq_factor"], l_orig / sc["high_freq_factor"]
    out = np.where(wavelen > low_wavelen, theta / s, theta)
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    if sc["high_freq_factor"] == sc["low_freq_factor"]:  # no band to blend (Llama 4 Scout: both 1)
        return out, 1.0
    smooth = (l_orig / wavelen - sc["low_freq_factor"]) / (sc["high_freq_factor"] - sc["low_freq_factor"])
    smoothed = (1 - smooth) * out / s + smooth * out
    return np.where(medium, smoothed, out), 1.0"""


def scaling_dict(scaling: Any) -> dict:
    """A RopeScaling's fields as a plain dict a program can hold."""
    import dataclasses

    return {f.name: getattr(scaling, f.name) for f in dataclasses.fields(scaling)}


def scaled_plot(r: Any, which: str, title: str) -> Snippet:
    """The scaled-RoPE plots (a ScaledResponse): ``which`` = "scaled" (wavelengths before and after) or
    "weight" (the interpolation weight per pair)."""
    from ..schemes.scaled_rope import scaling_of

    req = r.request
    params = [("d", int(req.head_dim), "head dimension d"), ("base", float(req.base), "RoPE base"),
              ("rope_scaling", scaling_dict(scaling_of(req)), "L_orig = L_train")]
    body = (ROPE_FREQUENCIES + "\n\n\nk = np.arange(d // 2, dtype=np.float64)  # pair index\n"
            "theta = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)\n"
            "theta_scaled, attention_factor = rope_frequencies(d, base, rope_scaling)\n")
    if which == "scaled":
        return program(title, params, body, '{"pair k": k, "wavelength before": 2 * np.pi / theta, '
                       '"wavelength after": 2 * np.pi / theta_scaled}', imports=("math",))
    body += ("s = rope_scaling[\"factor\"]\n"
             "# w_k = (1 − θ'_k/θ_k)/(1 − 1/s): 0 keeps pair k, 1 divides it by the full s\n"
             "weight = (1.0 - theta_scaled / theta) / (1.0 - 1.0 / s) if s > 1.0 else np.zeros_like(theta)")
    return program(title, params, body, '{"pair k": k, "weight": weight}', imports=("math",))


#: What the model view's plots export (names), by plot.
MODEL_RESULTS = {
    "freq": '{"pair i": k, "plain RoPE θ": theta_plain, "model θ′": theta}',
    "waves": '{"pair i": k, "plain RoPE wavelength": 2 * np.pi / theta_plain, "model wavelength": 2 * np.pi / theta}',
    "score": ('{"distance Δ (block centre)": centres, "plain RoPE mean": plain[0], "plain RoPE min": plain[1], '
              '"plain RoPE max": plain[2], "model mean": model[0], "model min": model[1], "model max": model[2]}'),
}

_MODEL_SCORE = """
# S(Δ) = g·(a²·Σ_i 2 cos(Δθ′_i) + (d − r))/d: the mean of q·R(Δ)q/|q|² over q ~ N(0, I_d) (the d − r unrotated
# dimensions add 1 each) times g = softmax_scale (what the model's attention multiplies 1/√d by; 1 for most), at
# every distance 1 … shown_to, then exact mean, min and max over log-spaced blocks.
shown_to = int(min(l_ext, max(64, 2**24 // theta.size)))
dist = np.arange(1, shown_to + 1, dtype=np.float64)
edges = np.unique(np.round(np.geomspace(1, shown_to + 1, blocks + 1)).astype(np.int64))
edges[0], edges[-1] = 1, shown_to + 1
centres = np.sqrt(edges[:-1] * np.maximum(edges[1:] - 1, edges[:-1]).astype(np.float64))


def expected_score(th, att):
    total = np.concatenate([np.cos(np.multiply.outer(dist[a:a + 4096], th)).sum(axis=1)
                            for a in range(0, dist.size, 4096)])
    return (att**2 * 2 * total + (head_dim - 2 * th.size)) / head_dim


def block_stats(values):
    starts, counts = edges[:-1] - 1, np.diff(edges)
    return (np.add.reduceat(values, starts) / counts, np.minimum.reduceat(values, starts),
            np.maximum.reduceat(values, starts))


plain = block_stats(expected_score(theta_plain, 1.0))
model = block_stats(softmax_scale * expected_score(theta, attention_factor))"""


def model_plot(r: Any, which: str, title: str) -> Snippet | NoSnippet:
    """The "A model's RoPE" view's ``which`` plot ("freq", "waves", "score") for a ModelRopeResponse ``r``."""
    m = r.model
    params = [("config", m.fields(), "the model's rotary fields (config.json)"),
              ("head_dim", int(m.head_dim), "the head's width d"),
              ("rotary_dim", int(m.rotary_dim), "how many of its dimensions rotate (r)"),
              ("base", float(m.base), "rope_theta"),
              ("rope_scaling", scaling_dict(m.scaling), "config's rope_scaling as the app reads it (defaults filled)"),
              ("l_ext", int(r.l_ext), "the length it is extended to (its current length)")]
    body = (ROPE_FREQUENCIES + "\n\n\nk = np.arange(rotary_dim // 2, dtype=np.float64)  # pair index\n"
            "theta_plain, _ = rope_frequencies(rotary_dim, base, {**rope_scaling, \"kind\": \"none\"})  # plain RoPE\n"
            "theta, attention_factor = rope_frequencies(rotary_dim, base, {**rope_scaling, \"seq_len\": l_ext})")
    if m.layers is not None or m.mrope is not None:
        return NoSnippet("a model whose layers or positions differ from one rope on a line: its numbers are "
                         "`pe-explorer data rope-frequencies --config …` (per layer type and axis)")
    if which == "score":
        params.append(("blocks", int(r.request.blocks), "log-spaced blocks of the curve"))
        params.append(("softmax_scale", float(m.softmax_scale), "the logits' factor (DeepSeek's MLA: mscale²)"))
        body += "\n" + _MODEL_SCORE
    return program(title, params, body, MODEL_RESULTS[which], imports=("math",))
