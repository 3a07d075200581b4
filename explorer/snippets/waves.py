"""Copy as Python for the Waves panel: the sinusoidal table, its lanes, spectrum, similarity and picks.

Each function takes the request the panel's job ran (:mod:`explorer.jobs.waves`) and returns a
:class:`~explorer.snippets.Snippet` whose ``result`` equals the panel's export for that plot.
"""

from __future__ import annotations

from typing import Any

from . import Snippet, program

#: Positions × columns evaluated at once in a program that walks a large table block by block.
_ROWS_AT_ONCE = 4096

_FREQ = {
    "paper": ("omega = base ** (-2.0 * i / d_model)", "ω_i = base^(−2i/d); pair 0 is the fastest"),
    "halves": ("omega = base ** (-2.0 * i / d_model)", "ω_i = base^(−2i/d); pair 0 is the fastest"),
    "t2t": ("omega = base ** (-i / max(d_model // 2 - 1, 1))", "ω_i = base^(−i/(d/2 − 1)) (tensor2tensor)"),
}
_LAYOUT = {
    "paper": ("    out[:, 0::2] = np.sin(angles)  # PE[p, 2i] = sin(p·ω_i)\n"
              "    out[:, 1::2] = np.cos(angles)  # PE[p, 2i+1] = cos(p·ω_i)  (Vaswani et al. 2017, §3.5)"),
    "halves": ("    out[:, : d_model // 2] = np.sin(angles)  # [sin(p·ω_0) … sin(p·ω_{d/2−1}) |\n"
               "    out[:, d_model // 2 :] = np.cos(angles)  #  cos(p·ω_0) … cos(p·ω_{d/2−1})]"),
}
_LAYOUT["t2t"] = _LAYOUT["halves"]


def _encoding(variant: str) -> str:
    """Code that defines ``i``, ``omega`` and ``pe(positions)`` for ``variant``."""
    freq, why = _FREQ[variant]
    return (f"i = np.arange(d_model // 2)  # pair index\n"
            f"{freq}  # {why}\n\n\n"
            "def pe(positions):\n"
            f'    """Rows of the sinusoidal table ({variant} layout) for integer positions."""\n'
            "    angles = np.multiply.outer(np.asarray(positions, dtype=np.float64), omega)\n"
            "    out = np.empty((angles.shape[0], d_model))\n"
            f"{_LAYOUT[variant]}\n"
            "    return out\n\n\n")


def _enc_params(req: Any) -> list[tuple[str, object, str]]:
    return [("d_model", int(req.d_model), "model width d"), ("base", float(req.base), "frequency base"),
            ("variant", req.variant, "the column layout this program is written for")]


def table(req: Any, title: str) -> Snippet:
    """The visible table PE[r0:r1, c0:c1] cell by cell (a :class:`~explorer.jobs.waves.TableRequest`)."""
    (r0, r1), (c0, c1) = req.rows, req.cols
    params = [*_enc_params(req), ("rows", (int(r0), int(r1)), "positions shown: r0 … r1 − 1"),
              ("cols", (int(c0), int(c1)), "columns shown: c0 … c1 − 1")]
    body = _encoding(req.variant) + "PE = pe(np.arange(*rows))[:, cols[0]:cols[1]]  # PE[position, column]"
    return program(title, params, body, '{"PE": PE}')


def overview(req: Any, title: str) -> Snippet:
    """A table too large for the screen: each cell the exact min and max of a block of the table
    (a :class:`~explorer.jobs.waves.HeatmapRequest`, as exported: every column computed)."""
    n, d = int(req.n_positions), int(req.d_model)
    r0, r1 = max(0, int(req.rows[0])), min(n, int(req.rows[1]))
    c0, c1 = max(0, int(req.cols[0])), min(d, int(req.cols[1]))
    max_rows, max_cols = max(2, int(req.max_rows)), max(1, int(req.max_cols))
    nr, nc = r1 - r0, c1 - c0
    rb = -(-nr // max_rows)
    cb = -(-nc // max_cols) if nc > max_cols else 1
    params = [*_enc_params(req), ("rows", (r0, r1), "positions shown: r0 … r1 − 1"),
              ("cols", (c0, c1), "columns shown: c0 … c1 − 1"),
              ("row_block", rb, "positions per image cell"), ("col_block", cb, "columns per image cell")]
    body = _encoding(req.variant) + f"""\
n_cols = -(-(cols[1] - cols[0]) // col_block)
starts = np.arange(rows[0], rows[1], row_block)
block_min = np.empty((starts.size, n_cols))
block_max = np.empty((starts.size, n_cols))
# The exact minimum and maximum over every (position, column) in each block, {max(1, _ROWS_AT_ONCE // rb)} blocks of
# positions at a time (the whole table may not fit in memory).
step = {max(1, _ROWS_AT_ONCE // rb)}
for b in range(0, starts.size, step):
    p = np.arange(starts[b], min(rows[1], starts[b] + step * row_block))
    t = np.full((-(-p.size // row_block) * row_block, n_cols * col_block), np.nan)
    t[: p.size, : cols[1] - cols[0]] = pe(p)[:, cols[0]:cols[1]]
    t = t.reshape(-1, row_block, n_cols, col_block)
    block_min[b : b + t.shape[0]] = np.nanmin(t, axis=(1, 3))
    block_max[b : b + t.shape[0]] = np.nanmax(t, axis=(1, 3))"""
    return program(title, params, body, '{"block_min": block_min, "block_max": block_max}')


def _binned(start: str, stop: str, px: int, count: int, name: str) -> tuple[str, str]:
    """Code for the x of a drawn curve over [start, stop): every position, or each block's
    min and max at its centre when there are more than 2 × px (the exact "peak" downsampling of the plot)."""
    if count <= 2 * px:
        return (f"x = np.arange({start}, {stop}, dtype=np.float64)  # every position is drawn\n", "x")
    bin_size = -(-count // px)
    return (f"""\
block = {bin_size}  # positions per drawn block: more positions than pixels
firsts = np.arange({start}, {stop}, block)
x = np.repeat((firsts + np.minimum(firsts + block, {stop}) - 1) / 2.0, 2)  # block centres, twice


def peaks({name}):
    \"\"\"Each block's minimum and maximum, interleaved (min, max, min, max …).\"\"\"
    padded = np.full(firsts.size * block, np.nan)
    padded[: {name}.size] = {name}
    padded = padded.reshape(-1, block)
    out = np.empty(x.size)
    out[0::2], out[1::2] = np.nanmin(padded, axis=1), np.nanmax(padded, axis=1)
    return out

""", "peaks")


def lanes(req: Any, which: str, title: str) -> Snippet:
    """The lanes sin(p·ω_i) of the chosen pairs: ``which`` = "waves" (the visible range) or "beyond" (0 … N)."""
    n = int(req.n_positions)
    if which == "waves":
        x0, x1 = max(0, int(req.waves_range[0])), min(n, int(req.waves_range[1]))
        x1 = max(x1, x0 + 1)
        px = max(8, int(req.waves_px))
    else:
        x0, x1, px = 0, n, max(8, int(req.beyond_px))
    params = [*_enc_params(req), ("pairs", tuple(int(i) for i in req.pairs), "the pairs drawn"),
              ("start", x0, "first position drawn"), ("stop", x1, "one past the last")]
    code, how = _binned("start", "stop", px, x1 - x0, "values")
    freq, why = _FREQ[req.variant]
    body = (f"i = np.arange(d_model // 2)\n{freq}  # {why}\n" + code
            + "p = np.arange(start, stop, dtype=np.float64)\n"
            + "lanes = {f\"pair {k} sin\": "
            + ("np.sin(p * omega[k])" if how == "x" else "peaks(np.sin(p * omega[k]))")
            + " for k in pairs}  # sin(p·ω_k)")
    return program(title, params, body, '{"position": x, **lanes}')


def spectrum(req: Any, title: str) -> Snippet:
    freq, why = _FREQ[req.variant]
    body = (f"i = np.arange(d_model // 2)  # pair index\n{freq}  # {why}\n"
            "wavelength = 2 * np.pi / omega  # positions per full turn of pair i")
    return program(title, _enc_params(req), body, '{"pair": i, "wavelength": wavelength, "omega": omega}')


def similarity(curves: Any, pick: Any, title: str) -> Snippet:
    """f(Δ) = PE(p)·PE(p+Δ) = Σ_i cos(Δ·ω_i) by offset, and the direct dot products near the picked p."""
    n, d = int(curves.n_positions), int(curves.d_model)
    lo = max(-(n - 1), int(curves.sim_range[0]))
    hi = max(min(n - 1, int(curves.sim_range[1])), lo)
    px = max(8, int(curves.sim_px))
    window = max(1, min(256, 131072 // d))
    p = int(pick.position)
    params = [*_enc_params(curves), ("lo", lo, "smallest offset Δ shown"), ("hi", hi, "largest offset Δ shown"),
              ("p", p, "the picked position"), ("n_positions", n, "positions N")]
    code, how = _binned("lo", "hi + 1", px, hi - lo + 1, "values")
    body = (_encoding(curves.variant) + code + """\
offsets = np.arange(lo, hi + 1, dtype=np.float64)
f = np.empty(offsets.size)
for s in range(0, offsets.size, 1024):  # 1024 offsets at a time: offsets × pairs can be large
    f[s : s + 1024] = np.cos(np.multiply.outer(offsets[s : s + 1024], omega)).sum(axis=1)  # Σ_i cos(Δ·ω_i)
""" + ("similarity = f\n" if how == "x" else "similarity = peaks(f)\n") + f"""
# The markers: PE(p)·PE(q) computed directly from table rows, for q within {window} of p.
q = np.arange(max(0, p - {window}), min(n_positions, p + {window} + 1))
direct = pe(q) @ pe([p])[0]""")
    return program(title, params, body,
                   '{"offset": x, "sum cos(offset*omega)": similarity, "q - p": q - p, "PE(p).PE(q)": direct}')


def matrix(req: Any, title: str) -> Snippet:
    size = max(1, min(int(req.size), int(req.n_positions)))
    params = [*_enc_params(req), ("size", size, "positions 0 … size − 1")]
    body = _encoding(req.variant) + "table = pe(np.arange(size))\nM = table @ table.T  # M[p, q] = PE(p)·PE(q)"
    return program(title, params, body, '{"PE(p).PE(q)": M}')


def _pick_params(req: Any) -> list[tuple[str, object, str]]:
    return [*_enc_params(req), ("p", int(req.position), "position p"), ("k", int(req.offset), "offset k")]


def vector(req: Any, title: str) -> Snippet:
    body = _encoding(req.variant) + "pe_p, pe_pk = pe([p, p + k])  # PE(p) and PE(p + k)"
    return program(title, _pick_params(req), body,
                   '{"column": np.arange(d_model), "PE(p)": pe_p, "PE(p+k)": pe_pk}')


def rotation(req: Any, title: str) -> Snippet:
    sin_col, cos_col = (2 * req.pair, 2 * req.pair + 1) if req.variant == "paper" else (
        req.pair, req.pair + req.d_model // 2)
    params = [*_pick_params(req), ("pair", int(req.pair), "rotation pair i"),
              ("sin_col", int(sin_col), "its columns in the table"), ("cos_col", int(cos_col), "")]
    body = _encoding(req.variant) + """\
pe_p, pe_pk = pe([p, p + k])
a = k * omega[pair]  # the angle k·ω_i
R = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])  # R(k): depends on k only, never on p
pair_p, pair_pk = pe_p[[sin_col, cos_col]], pe_pk[[sin_col, cos_col]]  # R @ pair_p equals pair_pk"""
    return program(title, params, body,
                   '{"PE_i(p) [sin, cos]": pair_p, "PE_i(p+k) [sin, cos]": pair_pk, "R(k)": R}')


def token(req: Any, title: str) -> Snippet:
    params = [*_enc_params(req), ("alpha", float(req.token_scale), "token scale α"),
              ("seed", int(req.token_seed), "token seed"), ("p1", int(req.p1), "first position"),
              ("p2", int(req.p2), "second position")]
    body = _encoding(req.variant) + """\
x = alpha * np.random.default_rng(seed).standard_normal(d_model)  # one token embedding, ‖x‖ ≈ α·√d
pe1, pe2 = pe([p1, p2])
v1, v2 = x + pe1, x + pe2  # the same token at two positions"""
    return program(title, params, body, '{"column": np.arange(d_model), "x": x, "PE(p1)": pe1, "PE(p2)": pe2, '
                                        '"x+PE(p1)": v1, "x+PE(p2)": v2}')


def formula(state: Any, title: str) -> Snippet:
    """The formula strip's numbers: ω_i, λ_i and PE at the picked p and pair."""
    sin_col, cos_col = (2 * state.pair, 2 * state.pair + 1) if state.variant == "paper" else (
        state.pair, state.pair + state.d_model // 2)
    params = [*_enc_params(state), ("p", int(state.position), "position p"),
              ("pair", int(state.pair), "pair i"), ("sin_col", int(sin_col), "its sin column"),
              ("cos_col", int(cos_col), "its cos column")]
    body = _encoding(state.variant) + """\
row = pe([p])[0]
numbers = {"omega": omega[pair], "wavelength": 2 * np.pi / omega[pair], "angle": p * omega[pair],
           "sin": row[sin_col], "cos": row[cos_col]}  # PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i)"""
    return program(title, params, body, "{k: np.float64(v) for k, v in numbers.items()}")



_CANDIDATES = {
    "integer": "np.repeat(p[:, None], d, axis=1)  # the raw position p in every column",
    "fraction": "np.repeat((p / n)[:, None], d, axis=1)  # p/N: its rows change with N",
    "binary": ("((p.astype(np.int64)[:, None] >> np.minimum(np.arange(d), 62)[None, :]) & 1) "
               "* (np.arange(d) < 63)  # bit j of p"),
}


def growth(req: Any, candidates: tuple, titles: tuple, title: str) -> Snippet:
    """The "Why sinusoids?" growth plot (a :class:`~explorer.jobs.why.ScorecardRequest`): for each candidate and
    sequence length N, the largest ‖PE(p)‖ / √d and the largest |value| over p < N."""
    params = [("d", int(req.d), "model width"), ("base", float(req.base), "base of the sinusoids"),
              ("n_values", tuple(int(n) for n in req.n_values), "sequence lengths N")]
    cases = "\n".join(f'    if kind == "{k}":\n        return {_CANDIDATES[k]}' for k in candidates if k in _CANDIDATES)
    body = f"""\
def encode(kind, n):
    \"\"\"Rows PE(p), p = 0 … n − 1, of one candidate encoding.\"\"\"
    p = np.arange(n, dtype=np.float64)
{cases}
    omega = base ** (-2.0 * np.arange(d // 2) / d)  # sinusoidal, the paper's layout
    out = np.empty((n, d))
    out[:, 0::2] = np.sin(np.multiply.outer(p, omega))
    out[:, 1::2] = np.cos(np.multiply.outer(p, omega))
    return out


candidates = {dict(zip(candidates, titles, strict=True))!r}
last = np.array(n_values) - 1
curves = {{}}
for kind, name in candidates.items():
    if kind == "fraction":  # p/N: the rows change with N, so each N gets its own table
        tables = [encode(kind, n) for n in n_values]
        norm = np.array([np.linalg.norm(t, axis=1).max() for t in tables])
        peak = np.array([np.abs(t).max() for t in tables])
    else:  # the rows do not depend on N: running maxima over the longest table
        t = encode(kind, max(n_values))
        norm = np.maximum.accumulate(np.linalg.norm(t, axis=1))[last]
        peak = np.maximum.accumulate(np.abs(t).max(axis=1))[last]
    curves[f"{{name}}: max ‖PE(p)‖ / √d"] = norm / np.sqrt(d)  # against a token embedding's norm √d
    curves[f"{{name}}: max |value|"] = peak"""
    return program(title, params, body, '{"N": np.array(n_values, dtype=np.float64), **curves}')
