"""Live checks across schemes: past the training length, ALiBi, where position enters, who uses what.

The records come from the scheme registry (:mod:`explorer.schemes`), the biases from each scheme's own
Token-swap hook, the model configs from the app's config reader; the Lab check reads a saved Lab result
(``resources/lessons/data/*.json``, made by ``pe-explorer lab --out``).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from .checks import EPS, CheckError, Param, check, percent, sci, yes_no


def _scheme(sid: str):
    from .. import schemes as registry

    return registry.get(sid)


@check("learned_table_refuses",
       "A learned table nn.Embedding(L, d) has rows 0 … L−1 only: the app's table answers every one of them and "
       "refuses every position from L on (\"index out of range\" in torch); the sinusoidal formula gives PE(L), "
       "and any other position, at once.",
       ("rows", "refusal", "refused", "formula_norm"), slow=True,
       cost=lambda rows, d_model: 4 * rows * d_model,
       rows=Param("int", 128, 1, 65536, "L, the table's rows"), d_model=Param("int", 64, 2, 1024))
def learned_table_refuses(rows: int, d_model: int):
    import torch  # lazily: this check runs in the compute process or the CLI, never on the UI's path

    from ..encodings.errors import EncodingError
    from ..encodings.learned import LearnedTable
    from ..encodings.sinusoidal import sinusoidal

    table = LearnedTable(rows, d_model, 0)
    answered = table.lookup(np.arange(rows)).shape == (rows, d_model)
    past = range(rows, rows + min(rows, 64))
    refused = 0
    for p in past:  # one at a time: each position past the table must be refused on its own
        try:
            table.lookup(np.array([p]))
        except EncodingError as exc:
            refused += f"{rows}" in str(exc)
        except IndexError:
            pass  # torch's refusal, not the app's: the app let the position through
    try:
        torch.nn.Embedding(rows, d_model)(torch.tensor([rows]))
        refusal = ""
    except IndexError as exc:
        refusal = str(exc).strip().splitlines()[0][:120]
    norm = float(np.linalg.norm(sinusoidal(np.array([float(rows)]), d_model + d_model % 2, 10000.0, "paper")))
    values = {"rows": rows, "refusal": refusal or "(no error)", "refused": refused, "formula_norm": norm}
    ok = answered and refused == len(past) and bool(refusal) and math.isfinite(norm)
    return values, ok, (
        f"the app's nn.Embedding({rows}, {d_model}): rows 0 … {rows - 1} answered: {yes_no(answered)}; "
        f"positions {rows} … {past[-1]} refused: {refused} of {len(past)}; torch at position {rows}: "
        f"{'IndexError: ' + refusal if refusal else 'no error'}; the formula's PE({rows}) has norm {norm:.3f}")


def lab_file(name: str):
    from ..paths import resource_path

    if not re.fullmatch(r"[a-z0-9_\-]{1,60}\.json", name):
        raise CheckError(f"result must be a file name like lab_result.json, got {name!r}")
    return resource_path("lessons", "data", name)


def lab_result(name: str):
    from ..lab import LabError, LabResult

    try:
        return LabResult.from_file(lab_file(name))
    except LabError as exc:
        raise CheckError(f"saved Lab result: {exc}") from None


def lengths_past_training(res, result: str) -> list[int]:
    """The test lengths of a saved Lab result past its training length (refused when there is none)."""
    longer = [n for n in res.config.eval_lens if n > res.config.train_len]
    if not longer:
        raise CheckError(f"{result} tests no length past {res.config.train_len}")
    return longer


@check("trained_beyond_length",
       "A formula runs past the training length, but a model trained short need not work there: the formula "
       "model's accuracy is lower at every test length past L_train than at L_train, and the learned table "
       "cannot run at any of them.",
       ("train_len", "longest", "accuracy_train", "accuracy_longest", "chance", "last_symbol", "table_status"),
       slow=True, cost=lambda result, formula, table: 0,
       compare={"accuracy_train": "chance", "accuracy_longest": "last_symbol"},
       result=Param("name", "lab_two_back.json", help="a saved Lab result in resources/lessons/data"),
       formula=Param("scheme", help="the formula scheme (added to the input)"),
       table=Param("scheme", help="the learned table"))
def trained_beyond_length(result: str, formula: str, table: str):
    res = lab_result(result)
    f, t = res.scheme(formula), res.scheme(table)
    if f is None or t is None:
        raise CheckError(f"{result} has no run of {formula if f is None else table}")
    cfg = res.config
    longer = lengths_past_training(res, result)
    at_train = f.at(cfg.train_len)
    if at_train is None or not at_train.ran:
        raise CheckError(f"{result} has no accuracy at {cfg.train_len} and past it")
    a0 = float(at_train.accuracy or 0.0)
    past = [f.at(n) for n in longer]
    lower = all(r is not None and r.ran and float(r.accuracy or 0.0) < a0 - 0.05 for r in past)
    blocked = all((r := t.at(n)) is not None and not r.ran for n in longer)
    last = f.at(max(longer))
    a1 = float(last.accuracy or 0.0) if last is not None else float("nan")
    t_long = t.at(max(longer))
    values = {"train_len": cfg.train_len, "longest": max(longer), "accuracy_train": a0, "accuracy_longest": a1,
              "chance": res.chance, "last_symbol": res.last_symbol_baseline,
              "table_status": t_long.status if t_long is not None else "not tested"}
    return values, lower and blocked, (
        f"trained at {cfg.train_len} ({f.steps_done} steps): {_scheme(formula).title} {percent(a0, 2)} at "
        f"{cfg.train_len}, "
        f"lower by more than 5 points at each of {', '.join(map(str, longer))}: {yes_no(lower)} ({percent(a1)} at "
        f"{max(longer)}; chance {percent(res.chance)}, the last symbol alone {percent(res.last_symbol_baseline)}); "
        f"{_scheme(table).title} past {cfg.train_len}: {values['table_status']} at every length: {yes_no(blocked)}")


def paper_slopes(heads: int) -> list[float]:
    """ALiBi's slopes as the paper's code computes them (Press et al. 2022, ``get_slopes``), written out."""
    def power_of_two(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(heads).is_integer():
        return power_of_two(heads)
    closest = 2 ** math.floor(math.log2(heads))
    return power_of_two(closest) + paper_slopes(2 * closest)[0::2][: heads - closest]


@check("alibi_linear_bias",
       "ALiBi adds −m_h·(i − j) to the scores of head h: a straight line in the distance, a different slope per "
       "head (for every head count H up to the one asked: for H a power of two 2^(−8/H), 2^(−16/H), …, else "
       "the paper's interleaving), and no vector added to the tokens.",
       ("max_deviation", "bound", "slope_error", "slope_first", "slope_last", "heads_checked", "adds_vector"),
       cost=lambda scheme, heads, positions: heads * (heads + 1) // 2 * positions * positions,
       compare={"max_deviation": "bound", "slope_error": "bound"},
       scheme=Param("scheme", help="a scheme that biases the scores"), heads=Param("int", 8, 1, 64),
       positions=Param("int", 64, 2, 2048))
def alibi_linear_bias(scheme: str, heads: int, positions: int):
    sch = _scheme(scheme)
    if sch.kind != "bias":
        raise CheckError(f"check alibi_linear_bias: {sch.title} is not a bias on the scores")
    i = np.arange(positions)[:, None]
    dist = (i - np.arange(positions)[None, :]).astype(np.float64)
    seen = dist >= 0
    dev = slope_err = 0.0
    fitted = np.zeros(0)
    added = False
    for h in range(1, heads + 1):  # every head count the Schemes and Token-swap panels let the student set
        terms = sch.swap_terms(positions, 2 * h, h, 0, True)
        added = added or terms.added is not None
        if terms.bias is None:
            raise CheckError(f"check alibi_linear_bias: {sch.title} has no bias to measure")
        b = np.asarray(terms.bias, dtype=np.float64)[:, seen]
        x = dist[seen]
        fitted = -(b @ x) / float(x @ x)  # least-squares slope of each head through the origin
        dev = max(dev, float(np.abs(b + fitted[:, None] * x[None, :]).max()))
        slope_err = max(slope_err, float(np.abs(fitted - np.array(paper_slopes(h))).max()))
    bound = 8.0 * positions * EPS
    values = {"max_deviation": dev, "bound": bound, "slope_error": slope_err, "slope_first": float(fitted[0]),
              "slope_last": float(fitted[-1]), "heads_checked": heads, "adds_vector": yes_no(added)}
    return values, dev <= bound and slope_err <= bound and not added, (
        f"{sch.title}, H = 1 … {heads}, {positions} positions: the bias departs from a straight line by "
        f"{sci(dev)}, its slopes from the paper's by {sci(slope_err)} (rounding allows {sci(bound)}); "
        f"{heads} heads: slopes {fitted[0]:.4g} … {fitted[-1]:.4g}; vector added to the input: {yes_no(added)}")


@check("where_position_enters",
       "Position enters in one of a few places: added to the input before the first layer, rotating q and k "
       "inside attention, a bias on the scores, or a relative term inside the score. Each scheme's record "
       "agrees with what its maths does to an attention layer.",
       ("added", "rotated", "biased", "other", "mismatches"), cost=lambda: 0)
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
        does = {"input": t.added is not None, "rotary": t.rotate is not None, "bias": t.bias is not None,
                "score": t.score is not None}
        if any(does[k] != (s.kind == k) for k in does):
            bad.append(s.id)
    rest = [f"{', '.join(titles)} ({KINDS[k]})" for k, titles in groups.items()
            if k not in ("input", "rotary", "bias") and titles]
    values = {"added": ", ".join(groups["input"]), "rotated": ", ".join(groups["rotary"]),
              "biased": ", ".join(groups["bias"]), "other": "; ".join(rest) or "none", "mismatches": len(bad)}
    ok = not bad and all(groups[k] for k in ("input", "rotary", "bias"))
    return values, ok, (
        f"added to the input: {values['added']}; rotates q and k: {values['rotated']}; bias on the scores: "
        f"{values['biased']}; other: {values['other']}; records that disagree with their maths: {len(bad)}"
        + (f" ({', '.join(bad)})" if bad else ""))


def _configs_for(model: str) -> list:
    """The shipped model configs whose name holds ``model``, read by the app's config reader."""
    from ..encodings.errors import EncodingError
    from ..encodings.rope_config import read_config, shipped

    out: list[tuple[str, Any]] = []
    for cid, path in shipped().items():
        try:
            cfg = read_config(path)
        except EncodingError:
            out.append((cid, None))
            continue
        if model.lower() in cfg.name.lower():
            out.append((cid, cfg))
    return out


@check("models_by_scheme",
       "Well-known models do not all use the same scheme: each scheme's record names the models that use it, "
       "and the real configs the app ships for those models agree (a RoPE model's config holds its rotary "
       "base and head size).",
       ("used_by_a", "used_by_b", "kind_a", "kind_b", "configs"), cost=lambda **_p: 0,
       scheme_a=Param("scheme"), models_a=Param("text", help="model names, comma-separated"),
       scheme_b=Param("scheme"), models_b=Param("text", help="model names, comma-separated"))
def models_by_scheme(scheme_a: str, models_a: str, scheme_b: str, models_b: str):
    from ..schemes.base import KINDS

    a, b = _scheme(scheme_a), _scheme(scheme_b)
    missing, read, wrong = [], [], []
    for want, s in ((models_a, a), (models_b, b)):
        for m in (x.strip() for x in want.split(",") if x.strip()):
            if m.lower() not in s.used_by.lower():
                missing.append(m)
            for cid, cfg in _configs_for(m):
                if cfg is None or s.kind != "rotary":
                    wrong.append(f"{m} ({cid})")
                else:
                    read.append(f"{cfg.name}: RoPE base {cfg.base:,.0f}, head {cfg.head_dim}")
            if s.kind == "rotary" and not any(cfg for _cid, cfg in _configs_for(m)):
                wrong.append(f"{m} (no config read)")
    values = {"used_by_a": a.used_by, "used_by_b": b.used_by, "kind_a": KINDS[a.kind], "kind_b": KINDS[b.kind],
              "configs": "; ".join(read) or "none"}
    return values, not missing and not wrong and a.kind != b.kind, (
        f"{a.title} ({KINDS[a.kind]}): {a.used_by}. {b.title} ({KINDS[b.kind]}): {b.used_by}. Shipped configs: "
        f"{values['configs']}." + (f" Not named: {', '.join(missing)}." if missing else "")
        + (f" Configs that disagree: {', '.join(wrong)}." if wrong else ""))
