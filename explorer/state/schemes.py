"""Parameters of the Schemes panel: every positional scheme side by side, on shared, linked controls.

Which schemes are shown is a list of registry ids (``schemes``); a scheme's own parameters (those that are
not one of the shared controls) live in ``scheme_params`` (``{"t5": {"num_buckets": 16}}``), each checked
against the limits its scheme declares.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import schemes as registry
from ..encodings.errors import EncodingError
from ..encodings.rope_config import resolve
from ..schemes.tabs import PANEL_VIEWS
from .base import PanelState, StateError, param, toggled_ids


def views() -> tuple[str, ...]:
    """The panel's views (one tab each; only the visible one is computed): its own and those the schemes add
    (ALiBi's, RoPE's real models), in their order."""
    order = dict(PANEL_VIEWS)
    order.update((t.id, t.order) for t, _s in registry.tabs())
    return tuple(sorted(order, key=lambda v: order[v]))


#: The model shown in the "A model's RoPE" view of a new panel (a shipped config id).
DEFAULT_MODEL = "llama-3.1-8b"
#: Longest ``model`` text (a config's rotary fields as JSON; Phi-3's with its factor lists is ~3 kB).
MAX_MODEL_TEXT = 100_000

#: L_eval may reach this many times L_train (the issue's "up to 16 × L_train").
MAX_EXTENSION = 16


def default_shown() -> tuple[str, ...]:
    """The schemes shown in a new panel: those the registry marks as shown by default, in its order."""
    return tuple(s.id for s in registry.all_schemes() if s.shown_by_default)


@dataclass(frozen=True)
class SchemesState(PanelState):
    """Shared, linked controls for the side-by-side comparison."""

    schemes: tuple = param(default_shown, kind="ids", choices=registry.ids, label="schemes shown")
    head_dim: int = param(64, lo=2, hi=1024, even=True, label="head dim d")
    base: float = param(10000.0, lo=10.0, hi=1e7, log=True, label="base", marks=(10000.0, 500000.0))
    heads: int = param(8, lo=1, hi=64, label="heads (bias schemes)")
    alibi_head: int = param(0, lo=0, hi=63, label="head shown")
    l_train: int = param(512, lo=2, hi=131072, label="L_train", log=True)
    l_eval: int = param(1024, lo=2, hi=MAX_EXTENSION * 131072, label="L_eval", log=True)
    scaling: str = param("yarn", choices=("linear", "ntk", "yarn", "llama3"), label="scaling")
    factor: float = param(4.0, lo=1.0, hi=64.0, label="factor s")
    content: str = param("same", choices=("same", "average"), label="content removed by")
    seed: int = param(0, lo=0, hi=2**31 - 1, label="seed")
    causal: bool = param(True, label="causal mask")
    view: str = param("matrices", choices=views, label="view")
    scheme_params: tuple = param((), kind="params", label="scheme parameters")
    model: str = param(DEFAULT_MODEL, label="model (a shipped config id, or its rotary fields as JSON)")
    #: The model view's query token in a multimodal model's mixed sequence (-1: the image's centre patch).
    model_query: int = param(-1, lo=-1, hi=65535, label="model view: query token (M-RoPE)")
    #: The patch-grid view: patches per side (a 224-px ViT with 16-px patches has 14) and the query patch in raster
    #: order (-1: the centre).
    grid_side: int = param(14, lo=2, hi=64, label="patch grid: patches per side")
    grid_query: int = param(-1, lo=-1, hi=64 * 64 - 1, label="patch grid: query patch (-1: the centre)")

    def check(self) -> None:
        if len(self.model) > MAX_MODEL_TEXT:
            raise StateError(f"model is {len(self.model):,} characters; at most {MAX_MODEL_TEXT:,}")
        try:
            resolve(self.model)
        except EncodingError as exc:
            raise StateError(f"model: {exc}") from None
        if self.l_eval > MAX_EXTENSION * self.l_train:
            raise StateError(
                f"l_eval may be at most {MAX_EXTENSION} × l_train = {MAX_EXTENSION * self.l_train}, "
                f"got {self.l_eval}"
            )
        if self.alibi_head >= self.heads:
            raise StateError(f"alibi_head must be below heads ({self.heads}), got {self.alibi_head}")
        # Shown or not: a hidden scheme's own parameters must still work the moment it is ticked (a T5
        # max_distance below its buckets was taken while T5 was hidden, and its plot failed on undo).
        for sid in dict.fromkeys((*self.schemes, *(s for s, _n, _v in self.scheme_params if s in registry.ids()))):
            why = registry.get(sid).check_setup(self)
            if why:
                raise StateError(why)
        for sid, name, value in self.scheme_params:
            own = {p.name: p for p in registry.get(sid).own_parameters()} if sid in registry.ids() else {}
            if name not in own:
                valid = ", ".join(f"{s.id}.{p.name}" for s in registry.all_schemes() for p in s.own_parameters())
                raise StateError(f"scheme_params: unknown {sid}.{name}; valid: {valid or 'none'}")
            try:
                own[name].check(value)
            except EncodingError as exc:
                raise StateError(f"scheme_params: {sid}.{exc}") from None

    def shows(self, scheme_id: str) -> bool:
        """True if the scheme ``scheme_id`` is shown."""
        return scheme_id in self.schemes

    def params_of(self, scheme_id: str) -> tuple:
        """The scheme's own parameters as sorted (name, value) pairs: its defaults, overridden by the state."""
        sch = registry.get(scheme_id)
        values = {p.name: p.default for p in sch.own_parameters()}
        values.update({n: v for s, n, v in self.scheme_params if s == scheme_id})
        return tuple(sorted(values.items()))

    def clamped(self, **changes) -> SchemesState:
        """Apply ``changes`` and pull dependent values back into range instead of failing.

        ``show_<id>=True/False`` adds or removes one scheme (kept in registry order); L_eval is kept within
        16 × L_train, the shown head below the head count, and an odd head dim rounds down to even.
        """
        merged = {**{f.name: getattr(self, f.name) for f in dataclasses.fields(self)}, **changes}
        merged["schemes"] = toggled_ids(merged, "show_", registry.ids())
        d = int(merged["head_dim"])
        merged["head_dim"] = max(2, d - d % 2)
        if merged["scaling"] == "ntk" and merged["head_dim"] < 4:
            merged["head_dim"] = 4
        l_train = int(merged["l_train"])
        merged["l_eval"] = max(2, min(int(merged["l_eval"]), MAX_EXTENSION * l_train))
        merged["alibi_head"] = max(0, min(int(merged["alibi_head"]), int(merged["heads"]) - 1))
        return SchemesState(**merged)

    def with_scheme_param(self, scheme_id: str, name: str, value) -> SchemesState:
        """A copy with one scheme parameter set (validated against the scheme's limits)."""
        rest = tuple(t for t in self.scheme_params if t[:2] != (scheme_id, name))
        return dataclasses.replace(self, scheme_params=tuple(sorted(rest + ((scheme_id, name, value),))))


def migrate_v1(data: dict) -> dict:
    """Version 1 stored one ``show_<id>`` flag per scheme; version 2 lists the shown ids."""
    out = {k: v for k, v in data.items() if not k.startswith("show_")}
    flags = {k[5:]: v for k, v in data.items() if k.startswith("show_")}
    if flags:
        old = ("sinusoidal", "learned", "rope", "alibi", "nope", "scaled_rope")  # version 1's only schemes
        shown = [s for s in default_shown() if flags.get(s, s in old)]
        shown += [s for s, on in flags.items() if on is True and s not in shown]
        out["schemes"] = shown
    return out
