"""The Lab: train short, test long — a tiny transformer per positional scheme, on a laptop CPU (no Qt).

* :mod:`.task` — the synthetic two-back language (numpy);
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
    LabResult,
    LengthResult,
    RuleFacts,
    SchemeResult,
    default_eval_lengths,
)
from .runner import LabControl, Progress, run_experiment
from .summary import centred_average, fmt_percent, headline, moving_average, rule_facts
from .task import RuleTask, last_symbol_baseline


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
    "LabResult",
    "LengthResult",
    "Progress",
    "RuleFacts",
    "RuleTask",
    "SchemeResult",
    "centred_average",
    "default_eval_lengths",
    "fmt_percent",
    "headline",
    "last_symbol_baseline",
    "moving_average",
    "rule_facts",
    "run_experiment",
]
