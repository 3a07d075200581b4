"""Parameters of the Lab panel: which schemes to train, at what length, tested how far, for how long."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import schemes as registry
from ..encodings.errors import EncodingError
from .base import PanelState, StateError, param, toggled_ids

#: Test lengths may reach this multiple of the training length (the issue: "up to 8 × L_train").
MAX_EXTRAPOLATION = 8
#: The default test lengths as multiples of L_train.
DEFAULT_MULTIPLES = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)
MAX_TRAIN_LEN = 128
#: The Lab's tasks, in menu order (their generators: explorer.lab.task).
TASK_IDS = ("rule", "copy", "reverse", "addition", "sort", "marker", "grid")
#: Each task's default training length and steps: the rule's stream of 32 symbols; prompts of up to 8
#: symbols (digits) for copy … sort, of up to 12 tokens for the marker task (at 8 its prompts hold too few
#: symbols between markers for the counts to matter); grids of side up to 8 — what a default run of every
#: default scheme trains in about 3 minutes of a laptop CPU (docs/panels/lab.md has the measured times).
TASK_DEFAULTS = {"rule": (32, 600), "copy": (8, 1500), "reverse": (8, 1500), "addition": (8, 1500),
                 "sort": (8, 1500), "marker": (12, 1500), "grid": (8, 1000)}
#: The grid task's test sides as multiples of its training side (a side of 3 × L is 9 × the cells).
GRID_MULTIPLES = (1.0, 1.25, 1.5, 2.0, 3.0)
#: The grid task's largest training side and test side (1 024 cells); explorer.lab.grid_task checks the same.
GRID_MAX_TRAIN, GRID_MAX_SIDE = 16, 32
#: Schemes a task ticks on top of the registry's Lab defaults (the counting task is what CoPE was made for).
TASK_SCHEMES = {"marker": ("cope",)}
#: The grid's own schemes: 1-D RoPE over the flattened cells against the 2-D RoPEs, NoPE and the learned table
#: (seven schemes took 278 s of CPU time; these five fit the budget).
GRID_SCHEMES = ("nope", "learned", "rope", "rope_2d_axial", "rope_2d_mixed")
MAX_EVAL_LENS = 12


def task_default_schemes(task: str) -> tuple[str, ...]:
    """The schemes ticked at first for ``task``: the Lab's defaults and the task's own, or the grid's (registry
    order)."""
    ids = GRID_SCHEMES if task == "grid" else (*registry.lab_default_ids(), *TASK_SCHEMES.get(task, ()))
    return tuple(s for s in registry.lab_ids() if s in ids)
#: The Lab's model has 2 layers unless set; up to this many (each layer adds about half a default run's time).
MAX_LAYERS = 8


def standard_lengths(train_len: int) -> tuple[int, ...]:
    """L_train × (1, 1.5, 2, 3, 4, 6, 8), rounded, without duplicates."""
    return tuple(sorted({max(2, round(m * train_len)) for m in DEFAULT_MULTIPLES}))


def task_lengths(task: str, train_len: int) -> tuple[int, ...]:
    """A task's standard test lengths: :func:`standard_lengths`, or for the grid the sides L × GRID_MULTIPLES up
    to GRID_MAX_SIDE."""
    if task != "grid":
        return standard_lengths(train_len)
    return tuple(sorted({min(GRID_MAX_SIDE, round(m * train_len)) for m in GRID_MULTIPLES}))


@dataclass(frozen=True)
class LabState(PanelState):
    """One train-short-test-long experiment (the model's width is fixed: see explorer.lab.LabConfig; its
    layer count and the schemes' own Lab settings, such as which layers of the RoPE/NoPE hybrid rotate, are
    set here)."""

    task: str = param("rule", choices=TASK_IDS, label="task",
                      help="rule (next symbol), copy, reverse, addition, sort, marker (counting) or grid (2-D)")
    reverse_answer: bool = param(True, label="addition: answer reversed",
                                 help="addition writes the sum least significant digit first")
    schemes: tuple = param(registry.lab_default_ids, kind="ids", choices=registry.lab_ids, label="schemes to train")
    train_len: int = param(32, lo=8, hi=MAX_TRAIN_LEN, label="train length L",
                           help="length of every training stream; the learned table gets this many rows")
    eval_lens: tuple = param(standard_lengths(32), lo=2, hi=MAX_EXTRAPOLATION * MAX_TRAIN_LEN,
                             maxlen=MAX_EVAL_LENS, label="test lengths",
                             help=f"up to {MAX_EVAL_LENS} lengths, each at most {MAX_EXTRAPOLATION} × L")
    steps: int = param(600, lo=10, hi=20000, log=True, label="training steps")
    seed: int = param(0, lo=0, hi=2**31 - 1, label="seed")
    layers: int = param(2, lo=1, hi=MAX_LAYERS, label="layers",
                        help="decoder blocks of every model (2: the Lab's default size)")
    scheme_params: tuple = param((), kind="params", label="scheme settings",
                                 help="a scheme's own Lab settings, e.g. rope_nope.nope_every=4")

    def check(self) -> None:
        if not self.schemes:
            raise StateError("choose at least one scheme to train")
        if not self.eval_lens:
            raise StateError("give at least one test length")
        top = MAX_EXTRAPOLATION * self.train_len
        over = [n for n in self.eval_lens if n > top]
        if over:
            raise StateError(f"test lengths may reach {MAX_EXTRAPOLATION} × L = {top}; "
                             f"got {', '.join(map(str, over))}")
        if self.task == "marker" and min(self.eval_lens) < 4:
            raise StateError(f"test lengths: the marker task needs at least 4 tokens (two markers, each before a "
                             f"symbol); got {min(self.eval_lens)}")
        if self.task == "grid":
            if self.train_len > GRID_MAX_TRAIN:
                raise StateError(f"train_len: the grid task trains on sides up to {GRID_MAX_TRAIN}; "
                                 f"got {self.train_len}")
            if max(self.eval_lens) > GRID_MAX_SIDE or min(self.eval_lens) < 3:
                raise StateError(f"test lengths: the grid task tests sides 3 … {GRID_MAX_SIDE}; "
                                 f"got {', '.join(map(str, self.eval_lens))}")
        for sid, name, value in self.scheme_params:
            own = registry.lab_settings_of(sid)
            if name not in own:
                raise StateError(f"scheme_params: unknown {sid}.{name}; valid: {registry.lab_setting_names()}")
            try:
                own[name].check(value)
            except EncodingError as exc:
                raise StateError(f"scheme_params: {sid}.{exc}") from None
        if list(self.eval_lens) != sorted(set(self.eval_lens)):
            # Stored canonical (sorted, unique) so that equal experiments compare equal.
            object.__setattr__(self, "eval_lens", tuple(sorted(set(self.eval_lens))))

    def trains(self, scheme_id: str) -> bool:
        """True if ``scheme_id`` is ticked."""
        return scheme_id in self.schemes

    def params_of(self, scheme_id: str) -> dict:
        """``scheme_id``'s Lab settings: its defaults, overridden by the state's."""
        return registry.get(scheme_id).lab_values({n: v for s, n, v in self.scheme_params if s == scheme_id})

    def with_scheme_param(self, scheme_id: str, name: str, value) -> LabState:
        """A copy with one Lab setting of a scheme changed (checked against the scheme's limits)."""
        rest = tuple(t for t in self.scheme_params if t[:2] != (scheme_id, name))
        return dataclasses.replace(self, scheme_params=tuple(sorted(rest + ((scheme_id, name, value),))))

    def clamped(self, **changes) -> LabState:
        """Apply ``changes``; a new L_train rescales the standard test lengths, or drops those past 8 × L."""
        merged = {**dataclasses.asdict(self), **changes}
        params = merged.pop("scheme_params")  # not a ``scheme_<id>`` tick
        merged["schemes"] = toggled_ids(merged, "scheme_", registry.lab_ids())
        merged["scheme_params"] = params
        new_task = merged["task"]
        if new_task != self.task and new_task in TASK_DEFAULTS:
            # A new task brings its own L and steps, unless they were changed from the old task's.
            old_l, old_steps = TASK_DEFAULTS.get(self.task, (None, None))
            if "train_len" not in changes and self.train_len == old_l:
                changes = {**changes, "train_len": TASK_DEFAULTS[new_task][0]}
                merged["train_len"] = TASK_DEFAULTS[new_task][0]
            if "steps" not in changes and self.steps == old_steps:
                merged["steps"] = TASK_DEFAULTS[new_task][1]
            ticked = "schemes" in changes or any(k.startswith("scheme_") for k in changes)
            if not ticked and tuple(merged["schemes"]) == task_default_schemes(self.task):
                merged["schemes"] = task_default_schemes(new_task)
        grid = new_task == "grid"
        old_l, new_l = self.train_len, max(8, min(int(merged["train_len"]), GRID_MAX_TRAIN if grid
                                                  else MAX_TRAIN_LEN))
        merged["train_len"] = new_l
        lens = tuple(sorted({int(n) for n in merged["eval_lens"]}))
        if (("train_len" in changes or new_task != self.task) and "eval_lens" not in changes
                and lens == task_lengths(self.task, old_l)):
            lens = task_lengths(new_task, new_l)
        top = GRID_MAX_SIDE if grid else MAX_EXTRAPOLATION * new_l
        lens = tuple(n for n in lens if 2 <= n <= top)[:MAX_EVAL_LENS]
        merged["eval_lens"] = lens or task_lengths(new_task, new_l)
        return LabState(**merged)


def migrate_v1(data: dict) -> dict:
    """Version 1 stored one ``scheme_<id>`` flag per scheme; version 2 lists the ticked ids."""
    out = {k: v for k, v in data.items() if not k.startswith("scheme_")}
    flags = {k[7:]: v for k, v in data.items() if k.startswith("scheme_")}
    if flags:
        old = ("nope", "sinusoidal", "learned", "rope", "alibi")  # version 1's only Lab schemes
        out["schemes"] = [s for s in registry.lab_ids() if flags.get(s, s in old)]
        out["schemes"] += [s for s, on in flags.items() if on is True and s not in out["schemes"]]
    return out
