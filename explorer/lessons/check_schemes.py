"""Live checks across schemes: past the training length, RoPE, ALiBi, where position enters, who uses what.

The records come from the scheme registry (:mod:`explorer.schemes`), the numbers from the encodings and the
Schemes panel's jobs; the Lab check reads a saved Lab result (``resources/lessons/data/*.json``, made by
``pe-explorer lab --out``).
"""

from __future__ import annotations

import math
import re

import numpy as np

from .checks import CheckError, Param, check


def _scheme(sid: str):
    from .. import schemes as registry

    return registry.get(sid)


@check("learned_table_refuses",
       "A learned table nn.Embedding(L, d) has rows 0 … L−1 only: asking it for position L is an error "
       "(\"index out of range\"); the sinusoidal formula gives PE(L), and any other position, at once.",
       ("rows", "refusal", "formula_norm"), slow=True,
       rows=Param("int", 128, 1, 65536, "L, the table's rows"), d_model=Param("int", 64, 2, 1024))
def learned_table_refuses(rows: int, d_model: int):
    import torch  # lazily: this check runs in the compute process or the CLI, never on the UI's path

    from ..encodings import sinusoidal

    table = torch.nn.Embedding(rows, d_model)
    try:
        table(torch.tensor([rows]))
        refusal = ""
    except IndexError as exc:
        refusal = str(exc).strip().splitlines()[0][:120]
    pe = sinusoidal(np.array([float(rows)]), d_model + d_model % 2, 10000.0, "paper")
    norm = float(np.linalg.norm(pe))
    values = {"rows": rows, "refusal": refusal or "(no error)", "formula_norm": norm}
    return values, bool(refusal) and math.isfinite(norm), (
        f"nn.Embedding({rows}, {d_model}) at position {rows}: "
        f"{'IndexError: ' + refusal if refusal else 'no error'}; the formula's PE({rows}) has norm {norm:.3f}")


def _lab_file(name: str):
    from ..paths import resource_path

    if not re.fullmatch(r"[a-z0-9_\-]{1,60}\.json", name):
        raise CheckError(f"result must be a file name like lab_result.json, got {name!r}")
    return resource_path("lessons", "data", name)


@check("trained_beyond_length",
       "A formula runs past the training length, but a model trained short need not work there: the "
       "sinusoidal model's accuracy falls past L_train, and the learned table cannot run at all.",
       ("train_len", "longest", "accuracy_train", "accuracy_longest", "table_status"), slow=True,
       result=Param("name", "lab_two_back.json", help="a saved Lab result in resources/lessons/data"),
       formula=Param("scheme", help="the formula scheme (added to the input)"),
       table=Param("scheme", help="the learned table"))
def trained_beyond_length(result: str, formula: str, table: str):
    from ..lab import LabError, LabResult

    try:
        res = LabResult.from_file(_lab_file(result))
    except LabError as exc:
        raise CheckError(f"saved Lab result: {exc}") from None
    f, t = res.scheme(formula), res.scheme(table)
    if f is None or t is None:
        raise CheckError(f"{result} has no run of {formula if f is None else table}")
    cfg = res.config
    longest = max(cfg.eval_lens)
    at_train, at_long, t_long = f.at(cfg.train_len), f.at(longest), t.at(longest)
    if at_train is None or at_long is None or t_long is None or not (at_train.ran and at_long.ran):
        raise CheckError(f"{result} has no accuracy at {cfg.train_len} and {longest}")
    a0, a1 = float(at_train.accuracy or 0.0), float(at_long.accuracy or 0.0)
    values = {"train_len": cfg.train_len, "longest": longest, "accuracy_train": a0, "accuracy_longest": a1,
              "table_status": t_long.status}
    return values, a1 < a0 - 0.05 and not t_long.ran, (
        f"trained at {cfg.train_len} ({f.steps_done} steps): {_scheme(formula).title} {a0:.1%} at "
        f"{cfg.train_len}, {a1:.1%} at {longest}; {_scheme(table).title} at {longest}: {t_long.status}")


@check("rope_relative",
       "RoPE rotates q and k inside attention by their positions, so the score depends only on i − j; "
       "nothing is added to the token vectors, and a rotation keeps their length.",
       ("shift_difference", "norm_change", "adds_vector"),
       scheme=Param("scheme", help="the rotary scheme"), head_dim=Param("int", 64, 2, 1024),
       shift=Param("int", 1000, 1, 100000, "how far both positions move"),
       seed=Param("int", 0, 0, 2**31 - 1))
def rope_relative(scheme: str, head_dim: int, shift: int, seed: int):
    from ..encodings import apply_rope, rope_scores

    sch = _scheme(scheme)
    if sch.kind != "rotary":
        raise CheckError(f"check rope_relative: {scheme} does not rotate q and k")
    d = head_dim + head_dim % 2
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((16, d)), rng.standard_normal((16, d))
    pos = np.arange(16, dtype=np.float64)
    near = rope_scores(q, k, pos, pos)
    far = rope_scores(q, k, pos + shift, pos + shift)
    diff = float(np.abs(near - far).max())
    turned = apply_rope(q, pos + shift)
    norm = float(np.abs(np.linalg.norm(turned, axis=1) - np.linalg.norm(q, axis=1)).max())
    added = sch.swap_terms(4, 8, 1, 0, False).added is not None
    values = {"shift_difference": diff, "norm_change": norm, "adds_vector": int(added)}
    return values, diff < 1e-9 and norm < 1e-9 and not added, (
        f"scores of 16 queries × 16 keys, then both moved {shift:,} places: largest change {diff:.1e}; "
        f"length of a rotated q changes by {norm:.1e}; vector added to the input: {'yes' if added else 'no'}")


@check("alibi_linear_bias",
       "ALiBi adds −m_h·(i − j) to the scores of head h: a straight line in the distance, a different "
       "slope per head, and no vector added to the tokens.",
       ("max_deviation", "slope_first", "slope_last", "adds_vector"),
       scheme=Param("scheme", help="the ALiBi scheme"), heads=Param("int", 8, 1, 64),
       positions=Param("int", 64, 2, 2048))
def alibi_linear_bias(scheme: str, heads: int, positions: int):
    from ..encodings import alibi_bias, alibi_slopes

    sch = _scheme(scheme)
    if sch.kind != "bias":
        raise CheckError(f"check alibi_linear_bias: {scheme} is not a bias on the scores")
    bias = alibi_bias(heads, positions, "causal")
    slopes = alibi_slopes(heads)
    i = np.arange(positions)[:, None]
    j = np.arange(positions)[None, :]
    want = -slopes[:, None, None] * (i - j)[None]
    visible = np.broadcast_to(j <= i, bias.shape)
    dev = float(np.abs(bias[visible] - want[visible]).max())
    added = sch.swap_terms(4, 8, 1, 0, True).added is not None
    values = {"max_deviation": dev, "slope_first": float(slopes[0]), "slope_last": float(slopes[-1]),
              "adds_vector": int(added)}
    return values, dev < 1e-12 and not added, (
        f"{heads} heads, slopes {slopes[0]:.4g} … {slopes[-1]:.4g}; bias − (−m·(i − j)) at most {dev:.1e}; "
        f"vector added to the input: {'yes' if added else 'no'}")


@check("where_position_enters",
       "Position enters in one of a few places: added to the input before the first layer, rotating q and k "
       "inside attention, a bias on the scores, or a relative term inside the score. Each scheme's record "
       "agrees with what its maths does to an attention layer.",
       ("added", "rotated", "biased", "other", "mismatches"))
def where_position_enters():
    from .. import schemes as registry
    from ..schemes.base import KINDS

    groups: dict[str, list[str]] = {k: [] for k in KINDS if k != "none"}
    bad = []
    for s in registry.all_schemes():
        if s.kind in groups:
            groups[s.kind].append(s.title)
        if s.swap_label is None:
            continue
        t = s.swap_terms(4, 8, 1, 0, False)
        does = {"input": t.added is not None, "rotary": t.rotate is not None, "bias": t.bias is not None}
        if any(does[k] != (s.kind == k) for k in does):
            bad.append(s.id)
    rest = [f"{', '.join(titles)} ({KINDS[k]})" for k, titles in groups.items()
            if k not in ("input", "rotary", "bias") and titles]
    values = {"added": ", ".join(groups["input"]), "rotated": ", ".join(groups["rotary"]),
              "biased": ", ".join(groups["bias"]), "other": "; ".join(rest) or "none", "mismatches": len(bad)}
    ok = not bad and all(groups[k] for k in ("input", "rotary", "bias"))
    return values, ok, (
        f"added to the input: {values['added']}; rotates q and k: {values['rotated']}; bias on the scores: "
        f"{values['biased']}; other: {values['other']}; records that disagree with their maths: {len(bad)}")


@check("models_by_scheme",
       "Well-known models do not all use the same scheme: each scheme's record names the models that "
       "use it, with sources.",
       ("used_by_a", "used_by_b", "kind_a", "kind_b"),
       scheme_a=Param("scheme"), models_a=Param("text", help="model names, comma-separated"),
       scheme_b=Param("scheme"), models_b=Param("text", help="model names, comma-separated"))
def models_by_scheme(scheme_a: str, models_a: str, scheme_b: str, models_b: str):
    from ..schemes.base import KINDS

    a, b = _scheme(scheme_a), _scheme(scheme_b)
    missing = [m.strip() for want, s in ((models_a, a), (models_b, b)) for m in want.split(",")
               if m.strip() and m.strip().lower() not in s.used_by.lower()]
    values = {"used_by_a": a.used_by, "used_by_b": b.used_by, "kind_a": KINDS[a.kind], "kind_b": KINDS[b.kind]}
    return values, not missing and a.kind != b.kind, (
        f"{a.title} ({KINDS[a.kind]}): {a.used_by}. {b.title} ({KINDS[b.kind]}): {b.used_by}."
        + (f" Not named: {', '.join(missing)}." if missing else ""))


@check("rope_stretch",
       "Stretching RoPE by s: linear scaling (position interpolation) maps position s·(L−1) onto the angles "
       "position L−1 had in training; plain RoPE past L turns its slow pairs to angles never trained; YaRN "
       "keeps the fast pairs and divides only the slow ones.",
       ("linear_gap", "unseen_pairs", "yarn_kept", "yarn_divided"),
       head_dim=Param("int", 64, 4, 1024), l_train=Param("int", 512, 2, 131072),
       factor=Param("float", 4.0, 1.0, 64.0))
def rope_stretch(head_dim: int, l_train: int, factor: float):
    from ..encodings import RopeScaling, inv_freq, scaled_inv_freq
    from ..jobs.schemes import ScaledRequest, scaled

    d = head_dim + head_dim % 2
    theta = inv_freq(d, 10000.0)
    lin, _ = scaled_inv_freq(d, 10000.0, RopeScaling("linear", factor, original_max_positions=l_train))
    gap = float(np.abs(factor * (l_train - 1) * lin - (l_train - 1) * theta).max())
    unseen = int(np.sum((l_train - 1) * theta < 2 * math.pi))
    y = scaled(ScaledRequest(head_dim=d, base=10000.0, l_train=l_train, scaling="yarn", factor=factor))
    values = {"linear_gap": gap, "unseen_pairs": unseen, "yarn_kept": y.n_kept, "yarn_divided": y.n_divided}
    return values, gap < 1e-9 and y.n_kept > 0 and y.n_divided > 0, (
        f"head_dim {d}, L = {l_train:,}, s = {factor:g}: linear scaling at s·(L−1) vs plain at L−1: angles "
        f"differ by {gap:.1e}; {unseen} of {d // 2} pairs never complete a turn in training; YaRN keeps "
        f"{y.n_kept} pairs, divides {y.n_divided} by s")
