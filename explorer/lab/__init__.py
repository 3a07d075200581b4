"""The Lab: train short, test long — a tiny transformer per positional scheme, on a laptop CPU (no Qt).

* :mod:`.task` — the tasks: the two-back rule, copy, reverse, addition and sorting (numpy);
* :mod:`.model` — the tiny causal transformer with a pluggable scheme (torch, imported lazily);
* :mod:`.runner` — training, testing, progress, pause and cancel;
* :mod:`.results` — the run's config and results, as JSON.

Nothing here imports torch at import time: the panel imports this package on the window's path.
"""

from .results import (
    MAX_EXTRAPOLATION,
    SCHEME_LABELS,
    Cancelled,
    CannotRun,
    LabConfig,
    LabError,
    LabGrid,
    LabResult,
    LengthResult,
    RuleFacts,
    SchemeResult,
    default_eval_lengths,
)
from .runner import LabControl, Progress, run_experiment
from .summary import (
    SchemeFinding,
    centred_average,
    findings,
    fmt_percent,
    headline,
    metric_name,
    moving_average,
    rule_facts,
    score,
    task_facts,
)
from .task import (
    TASK_DEFAULTS,
    TASK_IDS,
    TASK_TITLES,
    TASK_WHY,
    RuleTask,
    SequenceTask,
    add_digits,
    exact_match,
    last_symbol_baseline,
    make_task,
)


def __getattr__(name: str):
    # ``explorer.lab.SCHEMES`` follows the scheme registry (see explorer.lab.results).
    if name == "SCHEMES":
        from . import results

        return results.SCHEMES
    raise AttributeError(name)


__all__ = [
    "MAX_EXTRAPOLATION",
    "SCHEMES",
    "SCHEME_LABELS",
    "Cancelled",
    "CannotRun",
    "LabConfig",
    "LabControl",
    "LabError",
    "LabGrid",
    "LabResult",
    "LengthResult",
    "Progress",
    "RuleFacts",
    "RuleTask",
    "SchemeFinding",
    "SchemeResult",
    "SequenceTask",
    "TASK_DEFAULTS",
    "TASK_IDS",
    "TASK_TITLES",
    "TASK_WHY",
    "add_digits",
    "exact_match",
    "make_task",
    "centred_average",
    "default_eval_lengths",
    "findings",
    "fmt_percent",
    "metric_name",
    "score",
    "task_facts",
    "headline",
    "last_symbol_baseline",
    "moving_average",
    "rule_facts",
    "run_experiment",
]
