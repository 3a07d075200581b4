"""A real position table for the Schemes panel's jobs, resolved in the compute process.

A request carries only the table's small :class:`~explorer.jobs.table.TableSource` (a file's path or the Lab's
rows); its job reads the table through the Learned-table panel's :func:`~explorer.jobs.table.load` (the same
checks, refusals and cache), fits it to the head's width and puts the rows in the request the schemes' hooks
read (:func:`resolved`); the plots' titles and notes name it (:func:`table_title`, :func:`table_note`).
"""

from __future__ import annotations

import dataclasses
import functools

from .. import schemes as registry
from ..encodings.learned import RealRows


def table_title(source, loaded) -> str:
    """Whose table, for titles: "GPT-2 (checkpoint)" from a file (its config's model, else the tensor's
    name), the label of an array source ("Lab: …")."""
    if source.kind == "file":
        return f"{MODEL_NAMES.get(loaded.model, loaded.model) or loaded.name} (checkpoint)"
    return source.label or loaded.name


#: config.json ``model_type`` → the name titles use.
MODEL_NAMES = {"gpt2": "GPT-2", "bert": "BERT", "roberta": "RoBERTa", "opt": "OPT", "bart": "BART",
               "electra": "ELECTRA", "gpt_neo": "GPT-Neo", "distilbert": "DistilBERT", "xlm-roberta": "XLM-R"}


@functools.lru_cache(maxsize=4)
def real_table(source, head_dim: int) -> RealRows:
    """The table ``source`` names (read through :func:`explorer.jobs.table.load`: the same checks and refusals
    as the Learned-table panel, and its cache) at width ``head_dim`` (first principal directions when wider)."""
    from ..encodings.table_stats import fit_width
    from .table import load

    t = load(source)
    return RealRows(fit_width(t.table, t.positions, head_dim), table_title(source, t), t.d_model)


def resolved(req):
    """``req`` with its table source replaced by the rows themselves (what the schemes' hooks read)."""
    src = getattr(req, "table", None)
    if src is None or isinstance(src, RealRows):
        return req
    return dataclasses.replace(req, table=real_table(src, req.head_dim))


def table_note(full) -> str:
    """'Learned: the rows of GPT-2 (checkpoint), M = 1,024, its 768 dims on their first 64 principal directions'
    for a resolved request with a real table ("" without one)."""
    real = getattr(full, "table", None)
    if not isinstance(real, RealRows):
        return ""
    how = real.width_text(full.head_dim) or f"its {real.width:,} dims as stored"
    return f"{registry.get(full.scheme).title}: the rows of {real.name}, M = {real.positions:,}, {how}"
