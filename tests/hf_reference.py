"""transformers' own RoPE functions, recompiled in float64, for the reference tests (not a test module).

transformers computes in float32; each function's source is recompiled here with float64 in place of float32 (the
arithmetic is otherwise its own), so that what the tests compare is the formula, to 1e-12 relative.
"""

from __future__ import annotations

import inspect
import textwrap

from transformers import AutoConfig
from transformers import modeling_rope_utils as mru
from transformers.models.gemma3 import modeling_gemma3 as gemma3
from transformers.models.gpt_neox import modeling_gpt_neox as neox


def float64(fn):
    """``fn`` recompiled from its source with float64 wherever transformers says float32."""
    src = textwrap.dedent(inspect.getsource(fn))
    if src.lstrip().startswith("@"):
        src = src[src.index("def "):]
    new = (src.replace("torch.float32", "torch.float64").replace("dtype=torch.float)", "dtype=torch.float64)")
           .replace(".float()", ".double()"))
    assert "float32" not in new and "torch.float)" not in new and ".float()" not in new
    ns = dict(vars(inspect.getmodule(fn)))
    exec(compile(new, inspect.getsourcefile(fn), "exec"), ns)
    return ns[fn.__name__]


REFERENCE = {name: float64(fn) for name, fn in mru.ROPE_INIT_FUNCTIONS.items()}
REFERENCE["default"] = float64(neox.GPTNeoXRotaryEmbedding.compute_default_rope_parameters)
#: The default rope of one layer type of a model whose rope_parameters are per layer type.
DEFAULT_PER_LAYER = float64(gemma3.Gemma3RotaryEmbedding.compute_default_rope_parameters)


def hf_config(model_type: str, fields: dict):
    """transformers' config for ``model_type`` from a config dict (our ``_`` notes left out)."""
    kwargs = {k: v for k, v in fields.items() if not k.startswith("_") and k != "model_type"}
    if model_type == "deepseek_v3":  # HF derives head_dim from qk_rope_head_dim itself
        kwargs.setdefault("head_dim", kwargs["qk_rope_head_dim"])
    return AutoConfig.for_model(model_type, **kwargs)


def reference(cfg, seq_len, layer_type: str | None = None):
    """(inverse frequencies, attention factor) of ``cfg`` (of its ``layer_type`` when its rope_parameters are per
    layer type), as transformers computes them, in float64."""
    nested = layer_type is not None and layer_type in (cfg.rope_parameters or {})
    params = cfg.rope_parameters[layer_type] if nested else cfg.rope_parameters
    rope_type = params.get("rope_type", "default")
    if rope_type == "default":
        inv, att = DEFAULT_PER_LAYER(cfg, None, layer_type=layer_type) if nested else REFERENCE["default"](cfg, None)
    else:
        inv, att = REFERENCE[rope_type](cfg, None, seq_len, layer_type=layer_type if nested else None)
    return inv.numpy(), float(att)
