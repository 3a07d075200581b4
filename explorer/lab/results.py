"""What a Lab run is asked to do (:class:`LabConfig`) and what it found (:class:`LabResult`), as JSON.

No torch and no Qt here: the panel, the CLI and the tests read results without loading a model.
A length a scheme cannot run at (the learned table past its last row) is recorded with status
``"cannot run"`` and no numbers — never as an accuracy of 0.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import schemes as registry
from ..encodings.errors import EncodingError, short_repr
from ..fileio import InputError, parse_json_text, read_text_file
from ..state.lab import GRID_MAX_TRAIN, MAX_EXTRAPOLATION, task_lengths
from .grid_task import MAX_SIDE, MIN_SIDE
from .task import MARKER_MIN_LEN, TASK_IDS, TASK_TITLES


class _Labels(Mapping):
    """scheme id -> its title, read from the registry (which can grow at run time)."""

    def __getitem__(self, key: str) -> str:
        if key not in registry.ids():
            raise KeyError(key)
        return registry.get(key).title

    def __iter__(self):
        return iter(registry.lab_ids())

    def __len__(self) -> int:
        return len(registry.lab_ids())


#: How each scheme is named on screen.
SCHEME_LABELS = _Labels()


def __getattr__(name: str):
    # ``SCHEMES``: the schemes a new Lab trains, in run order — the registry's, so computed on each use.
    if name == "SCHEMES":
        return registry.lab_default_ids()
    raise AttributeError(name)

RESULT_FORMAT = "pe-explorer-lab"
#: A 20,000-step run of every scheme is a few MB of JSON; anything far larger is not ours.
MAX_RESULT_BYTES = 64 << 20
RESULT_VERSION = 2
#: Versions this app reads: 1 (before the sequence tasks: always the rule) and 2.
READABLE_VERSIONS = (1, 2)


class LabError(EncodingError):
    """A bad Lab setting, a result file that cannot be read, or a length a scheme cannot run at."""


class CannotRun(LabError):
    """The scheme has no encoding for a requested position (the learned table past its last row)."""


class Cancelled(Exception):
    """The run was cancelled through its :class:`~explorer.lab.runner.LabControl`."""


def default_eval_lengths(train_len: int, task: str = "rule") -> tuple[int, ...]:
    """L_train × (1, 1.5, 2, 3, 4, 6, 8), rounded, without duplicates (the grid: sides L × (1, 1.25, 1.5, 2, 3))."""
    return task_lengths(task, train_len)


@dataclass(frozen=True)
class LabConfig:
    """One experiment: which schemes, train length, test lengths, steps and seed, plus the model's size.

    The model defaults (2 layers, d = 64, 4 heads, vocabulary 8, noise 0.2, batch 32, AdamW with peak
    learning rate 3e-3) are what the panel uses; the CLI and tests may change them.  ``task`` is one of
    :data:`~explorer.lab.task.TASK_IDS`; ``train_len`` and ``eval_lens`` count the task's own length (the
    rule's stream length; the symbols or digits of one prompt otherwise); ``vocab`` is the number of
    symbols (addition always uses ten digits), ``noise`` the rule's only, ``reverse_answer`` addition's only.
    """

    task: str = "rule"
    schemes: tuple[str, ...] = field(default_factory=registry.lab_default_ids)
    train_len: int = 32
    eval_lens: tuple[int, ...] = ()
    steps: int = 600
    seed: int = 0
    vocab: int = 8
    noise: float = 0.2
    d_model: int = 64
    heads: int = 4
    layers: int = 2
    batch: int = 32
    lr: float = 3e-3
    eval_batch: int = 128
    device: str = "auto"
    reverse_answer: bool = True
    #: The trained schemes' own Lab settings (:attr:`~explorer.schemes.Scheme.lab_parameters`) as sorted
    #: (scheme, name, value) triples, every one filled in (defaults where not given); JSON:
    #: ``{"rope_nope": {"nope_every": 4}}``.  Settings of schemes not trained are dropped.
    scheme_params: tuple = ()

    def __post_init__(self) -> None:
        if self.task not in TASK_IDS:
            raise LabError(f"unknown task {self.task!r}; valid: {', '.join(TASK_IDS)}")
        if not isinstance(self.reverse_answer, bool):
            raise LabError(f"reverse_answer must be true or false, got {self.reverse_answer!r}")
        schemes = tuple(self.schemes)
        object.__setattr__(self, "schemes", schemes)
        if not schemes:
            raise LabError("choose at least one scheme")
        known = registry.lab_ids()
        bad = [s for s in schemes if s not in known]
        if bad:
            raise LabError(f"unknown scheme(s) {', '.join(map(repr, bad))}; valid: {', '.join(known)}")
        if len(set(schemes)) != len(schemes):
            raise LabError("each scheme may be listed once")
        # Run and draw in the canonical order whatever order they were given in.
        object.__setattr__(self, "schemes", tuple(s for s in known if s in schemes))
        object.__setattr__(self, "scheme_params", lab_scheme_params(self.scheme_params, self.schemes))
        _whole("train_len", self.train_len, 4, 1024)
        lens = tuple(self.eval_lens) or default_eval_lengths(self.train_len, self.task)
        for n in lens:
            _whole("test length", n, 2, MAX_EXTRAPOLATION * self.train_len)
        object.__setattr__(self, "eval_lens", tuple(sorted(set(int(n) for n in lens))))
        if self.task == "grid":
            _whole("train_len", self.train_len, MIN_SIDE, GRID_MAX_TRAIN)
            for n in self.eval_lens:
                _whole("test length (a grid side)", n, MIN_SIDE, MAX_SIDE)
        if self.task == "marker" and min(self.eval_lens) < MARKER_MIN_LEN:
            raise LabError(f"test length: the marker task needs at least {MARKER_MIN_LEN} tokens (two markers, "
                           f"each before a symbol); got {min(self.eval_lens)}")
        _whole("steps", self.steps, 1, 1_000_000)
        _whole("seed", self.seed, 0, 2**31 - 1)
        _whole("vocab", self.vocab, 2, 256)
        if not (isinstance(self.noise, (int, float)) and 0.0 <= self.noise < 1.0):
            raise LabError(f"noise must be in [0, 1), got {self.noise!r}")
        _whole("d_model", self.d_model, 4, 4096)
        _whole("heads", self.heads, 1, 64)
        if self.d_model % (2 * self.heads):
            raise LabError(f"d_model ({self.d_model}) must be divisible by 2 × heads ({2 * self.heads}) "
                           "so each head has an even width for RoPE")
        _whole("layers", self.layers, 1, 24)
        _whole("batch", self.batch, 1, 4096)
        _whole("eval_batch", self.eval_batch, 1, 65536)
        if not (isinstance(self.lr, (int, float)) and math.isfinite(self.lr) and 0 < self.lr < 1):
            raise LabError(f"lr must be in (0, 1), got {self.lr!r}")
        if self.device not in ("auto", "cpu", "cuda"):
            raise LabError(f"device must be auto, cpu or cuda; got {self.device!r}")

    @property
    def max_eval_len(self) -> int:
        return max(self.eval_lens)

    @property
    def task_title(self) -> str:
        """The task as named on screen ("Addition (answer reversed)")."""
        title = TASK_TITLES[self.task]
        if self.task == "addition":
            title += " (answer reversed)" if self.reverse_answer else " (answer in order)"
        return title

    @property
    def scored_by_exact_match(self) -> bool:
        """True for the sequence tasks (the whole answer right); the rule and the grid are scored per symbol."""
        return self.task not in ("rule", "grid")

    def params_of(self, scheme: str) -> dict:
        """``scheme``'s Lab settings in this run (name → value; {} for a scheme without any)."""
        return {n: v for s, n, v in self.scheme_params if s == scheme}

    def setting(self, scheme: str) -> str:
        """What ``scheme``'s Lab settings do in this run's model ("RoPE in layers 1, 2, 3; NoPE in layer 4"), or ""."""
        if scheme not in registry.ids():
            return ""
        sch = registry.get(scheme)
        return sch.lab_setting(self.params_of(scheme), self.layers) if sch.lab_parameters else ""

    @classmethod
    def from_state(cls, state, **overrides) -> LabConfig:
        """The config a :class:`~explorer.state.lab.LabState` asks for (duck-typed: no import of state)."""
        kw = dict(schemes=state.schemes, train_len=state.train_len, eval_lens=state.eval_lens,
                  steps=state.steps, seed=state.seed)
        for name in ("task", "reverse_answer", "layers", "scheme_params"):  # older states lack some
            if hasattr(state, name):
                kw[name] = getattr(state, name)
        kw.update(overrides)
        return cls(**kw)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["schemes"] = list(self.schemes)
        d["eval_lens"] = list(self.eval_lens)
        d["scheme_params"] = params_json(self.scheme_params)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LabConfig:
        if not isinstance(d, dict):
            raise LabError("config must be an object")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(d) - known)
        if unknown:
            raise LabError(f"unknown config key(s) {', '.join(unknown)}")
        kw = dict(d)
        for k in ("schemes", "eval_lens"):
            if k in kw:
                kw[k] = tuple(kw[k])
        return cls(**kw)


def params_json(triples) -> dict:
    """(scheme, name, value) triples as ``{scheme: {name: value}}``."""
    out: dict = {}
    for sid, name, value in triples:
        out.setdefault(sid, {})[name] = value
    return out


def lab_scheme_params(given, schemes) -> tuple:
    """``given`` (``{scheme: {name: value}}`` or triples) checked against each scheme's Lab parameters, as
    sorted triples holding every Lab parameter of every scheme in ``schemes`` (defaults where not given)."""
    if isinstance(given, Mapping):
        if not all(isinstance(inner, Mapping) for inner in given.values()):
            raise LabError("scheme_params must map each scheme to an object of parameter: value")
        items = [(sid, name, v) for sid, inner in given.items() for name, v in inner.items()]
    elif isinstance(given, (list, tuple)) and all(isinstance(t, (list, tuple)) and len(t) == 3 for t in given):
        items = [tuple(t) for t in given]
    else:
        raise LabError("scheme_params must map each scheme to an object of parameter: value")
    chosen: dict = {}
    for sid, name, value in items:
        if sid not in registry.lab_ids():
            raise LabError(f"scheme_params: unknown scheme {str(sid)[:40]!r}")
        own = registry.lab_settings_of(sid)
        if name not in own:
            raise LabError(f"scheme_params: {sid} has no Lab setting {str(name)[:40]!r}; "
                           f"valid: {registry.lab_setting_names()}")
        if isinstance(value, int) and value.bit_length() > 63:
            raise LabError(f"scheme_params: {sid}.{name} must be {own[name].lo:g} … {own[name].hi:g}, "
                           f"got a number of {len(str(abs(value)))} digits")
        try:
            chosen.setdefault(sid, {})[name] = own[name].check(value)
        except EncodingError as exc:
            raise LabError(f"scheme_params: {sid}.{exc}") from None
    return tuple(sorted((sid, name, v) for sid in schemes
                        for name, v in registry.get(sid).lab_values(chosen.get(sid, {})).items()))


def _whole(name: str, value, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LabError(f"{name} must be a whole number, got {value!r}")
    if not lo <= value <= hi:
        raise LabError(f"{name} must be in [{lo}, {hi}], got {value}")


@dataclass(frozen=True)
class RuleFacts:
    """The task's reference numbers: chance, the best accuracy knowing only the last symbol, the best
    possible loss, and how often order changes the answer."""

    chance: float
    last_symbol_baseline: float
    loss_floor: float
    order_sensitive_fraction: float


@dataclass(frozen=True)
class LengthResult:
    """A scheme at one test length: per-token accuracy (against the rule, or the answer's tokens),
    cross-entropy, exact match (the whole answer right; ``None`` for the rule), or "cannot run"."""

    length: int
    status: str  # "ok" | "cannot run"
    accuracy: float | None = None
    loss: float | None = None
    reason: str = ""
    exact: float | None = None

    @property
    def ran(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class SchemeResult:
    """One trained model: its loss curve and how it did at every test length."""

    scheme: str
    status: str  # "done" | "cancelled"
    steps_done: int
    losses: tuple[float, ...]
    train_seconds: float
    eval_seconds: float = 0.0
    lengths: tuple[LengthResult, ...] = ()
    #: Accuracy at each position t = 1 … (longest length it could run) − 1 (rule), or at each answer
    #: token of the longest instances it could run (sequence tasks), for the by-position plot.
    position_accuracy: tuple[float, ...] = ()
    #: Trained numbers the Schemes panel can draw (``Scheme.lab_weights``; FIRE's MLP), kept for this session only.
    weights: tuple = ()
    #: The position table the model trained (rows = positions), for schemes that have one (learned).
    position_table: tuple[tuple[float, ...], ...] = ()

    def at(self, length: int) -> LengthResult | None:
        for r in self.lengths:
            if r.length == length:
                return r
        return None


@dataclass(frozen=True)
class LabResult:
    """A whole run: its config, the environment, task facts and each scheme's result."""

    config: LabConfig
    status: str  # "done" | "cancelled"
    schemes: tuple[SchemeResult, ...]
    device: str
    torch_version: str
    threads: int
    seconds: float
    chance: float
    last_symbol_baseline: float
    loss_floor: float
    order_sensitive_fraction: float
    table: tuple[tuple[int, ...], ...] = field(default=())
    #: CPU time of the process during the run (training and testing; on a shared machine the wall-clock
    #: ``seconds`` also count time spent waiting for a core).
    cpu_seconds: float = 0.0

    @property
    def facts(self) -> RuleFacts:
        return RuleFacts(self.chance, self.last_symbol_baseline, self.loss_floor,
                         self.order_sensitive_fraction)

    def scheme(self, name: str) -> SchemeResult | None:
        for s in self.schemes:
            if s.scheme == name:
                return s
        return None

    # -- JSON ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": RESULT_FORMAT,
            "version": RESULT_VERSION,
            "task": self.config.task,
            "task_text": TASK_TEXT[self.config.task],
            "status": self.status,
            "config": self.config.to_dict(),
            "device": self.device,
            "torch_version": self.torch_version,
            "threads": self.threads,
            "seconds": _num(self.seconds),
            "cpu_seconds": _num(self.cpu_seconds),
            "chance": _num(self.chance),
            "last_symbol_baseline": _num(self.last_symbol_baseline),
            "loss_floor": _num(self.loss_floor),
            "order_sensitive_fraction": _num(self.order_sensitive_fraction),
            "table": [list(r) for r in self.table],
            "schemes": [
                {
                    "scheme": s.scheme,
                    "status": s.status,
                    "steps_done": s.steps_done,
                    "train_seconds": _num(s.train_seconds),
                    "eval_seconds": _num(s.eval_seconds),
                    "losses": [_num(v) for v in s.losses],
                    "lengths": [
                        {"length": r.length, "status": r.status, "accuracy": _num(r.accuracy),
                         "loss": _num(r.loss), **({"reason": r.reason} if r.reason else {}),
                         **({"exact_match": _num(r.exact)} if r.exact is not None else {})}
                        for r in s.lengths
                    ],
                    "position_accuracy": [_num(v) for v in s.position_accuracy],
                    **({"position_table": [[_num(v) for v in row] for row in s.position_table]}
                       if s.position_table else {}),
                    # The Lab settings in words ("RoPE in layers 1, 2, 3; NoPE in layer 4 …"; the config: numbers).
                    **({"setting": self.config.setting(s.scheme)} if self.config.setting(s.scheme) else {}),
                }
                for s in self.schemes
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def from_dict(cls, d: Any) -> LabResult:
        """Read a result written by :meth:`to_dict`; raise :class:`LabError` naming what is wrong."""
        if not isinstance(d, dict) or d.get("format") != RESULT_FORMAT:
            raise LabError("not a PE Explorer Lab result (no \"format\": \"pe-explorer-lab\")")
        if d.get("version") not in READABLE_VERSIONS:
            raise LabError(f"unsupported Lab result version {d.get('version')!r}; "
                           f"this app reads {' and '.join(map(str, READABLE_VERSIONS))}")
        try:
            schemes = tuple(
                SchemeResult(
                    scheme=str(s["scheme"]),
                    status=str(s["status"]),
                    steps_done=int(s["steps_done"]),
                    losses=tuple(_flt(v) for v in s["losses"]),
                    train_seconds=_flt(s["train_seconds"]),
                    eval_seconds=_flt(s.get("eval_seconds", 0.0)),
                    lengths=tuple(
                        LengthResult(int(r["length"]), str(r["status"]), _opt(r.get("accuracy")),
                                     _opt(r.get("loss")), str(r.get("reason", "")), _opt(r.get("exact_match")))
                        for r in s["lengths"]
                    ),
                    position_accuracy=tuple(_flt(v) for v in s.get("position_accuracy", [])),
                    position_table=_rows(s.get("position_table", [])),
                )
                for s in d["schemes"]
            )
            config = LabConfig.from_dict(d["config"])
            ran = [s.scheme for s in schemes]
            stray = [s for s in ran if s not in config.schemes]
            if stray or len(set(ran)) != len(ran):
                what = f"a result for {short_repr(stray[0])}, not one of its schemes" if stray else \
                    "two results for one scheme"
                raise LabError(f"Lab result is malformed: {what} ({', '.join(config.schemes)})")
            return cls(
                config=config,
                status=str(d["status"]),
                schemes=schemes,
                device=str(d["device"]),
                torch_version=str(d["torch_version"]),
                threads=int(d["threads"]),
                seconds=_flt(d["seconds"]),
                chance=_flt(d["chance"]),
                last_symbol_baseline=_flt(d["last_symbol_baseline"]),
                loss_floor=_flt(d["loss_floor"]),
                order_sensitive_fraction=_flt(d["order_sensitive_fraction"]),
                table=tuple(tuple(int(v) for v in row) for row in d.get("table", [])),
                cpu_seconds=_flt(d.get("cpu_seconds", math.nan)),
            )
        except LabError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise LabError(f"Lab result is incomplete or malformed: {type(exc).__name__}: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> LabResult:
        return cls.from_dict(_parse(text))

    @classmethod
    def from_file(cls, path) -> LabResult:
        """Read a result file through the one reading path (a regular file, at most 64 MiB)."""
        return cls.from_json(_read(path))


def _parse(text: str):
    # The one JSON reader for files (explorer.fileio): no NaN, no 400-digit numbers, no deep nesting.
    try:
        return parse_json_text(text, what="Lab result")
    except InputError as exc:
        raise LabError(str(exc)) from None


def _read(path) -> str:
    try:
        return read_text_file(path, limit=MAX_RESULT_BYTES, what="Lab result")
    except InputError as exc:
        raise LabError(f"cannot read {exc}") from None


GRID_FORMAT = "pe-explorer-lab-grid"


@dataclass(frozen=True)
class LabGrid:
    """Several runs, one per task (``pe-explorer lab --task all``): the tasks × schemes grid, as JSON."""

    results: tuple[LabResult, ...]

    def to_json(self) -> str:
        return json.dumps({"format": GRID_FORMAT, "version": 1,
                           "results": [r.to_dict() for r in self.results]}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> LabGrid:
        """A grid file, or a single run's file (a grid of one)."""
        data = _parse(text)
        if isinstance(data, dict) and data.get("format") == GRID_FORMAT:
            if data.get("version") != 1:
                raise LabError(f"unsupported Lab grid version {data.get('version')!r}; this app reads 1")
            runs = data.get("results")
            if not isinstance(runs, list) or not runs:
                raise LabError("Lab grid is incomplete or malformed: no results")
            return cls(tuple(LabResult.from_dict(r) for r in runs))
        return cls((LabResult.from_dict(data),))

    @classmethod
    def from_file(cls, path) -> LabGrid:
        """Read a grid or single-run file through the one reading path (a regular file, at most 64 MiB)."""
        return cls.from_json(_read(path))


#: What each task is, in the JSON (for a reader without the app).
TASK_TEXT = {
    "rule": "two-back rule: x[t+1] = T[x[t-1], x[t]] with prob. 1 - noise, else uniform",
    "copy": "BOS x1..xn SEP x1..xn",
    "reverse": "BOS x1..xn SEP xn..x1",
    "addition": "BOS a1..an + b1..bn SEP digits of a+b (n+1; least significant first if reverse_answer)",
    "sort": "BOS x1..xn SEP the x sorted ascending",
    "marker": "BOS x1..xn SEP the symbol right after the second-last marker (2 or 3 markers among the n tokens)",
    "grid": "an n x n grid in raster order: row 0 and column 0 random, g[r,c] = (g[r-1,c] + g[r,c-1]) mod vocab",
}


def _rows(rows) -> tuple[tuple[float, ...], ...]:
    """A stored position table: a list of equally long lists of finite numbers."""
    out = tuple(tuple(_flt(v) for v in row) for row in rows)
    if len({len(r) for r in out}) > 1:
        raise LabError("Lab result is malformed: position_table rows differ in length")
    return out


def _num(v):
    """JSON has no NaN/inf: write them as null."""
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def _flt(v) -> float:
    return math.nan if v is None else float(v)


def _opt(v) -> float | None:
    return None if v is None else float(v)
