"""The RoPE scheme's ``pe-explorer data`` commands: rotate like a model, write a model's frequencies (per layer type
for a model whose layers differ), and an M-RoPE model's 3-D positions for a mixed sequence."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np

from ..encodings import CONVENTIONS, SCALINGS, EncodingError, apply_rope
from ..encodings.rope import MAX_ATTENTION_FACTOR, MAX_BETA, MAX_FACTOR, MAX_MSCALE, MAX_SEQ_LEN
from ..encodings.rope_config import SCALING_OVERRIDES, layer_rope, read_config, with_overrides


def add_model_commands(rope_id: str, subparsers, cli) -> None:
    """``data <rope_id>``, ``data rope-frequencies`` and ``data mrope-positions``."""
    p = subparsers.add_parser(
        rope_id, help="rotate the rows of X.npy as positions P0, P0+1, … (like a model, with --config)",
        description="Rotate each row of X.npy as position P0 + row.  With --config (a model's config.json) "
        "it rotates like that model in transformers: its base, rotary dims (the rest pass through), scaling "
        "and attention factor, in the rotate_half layout (Llama 4: interleaved pairs, as its complex rotation); any "
        "flag given overrides the config.  A model whose layers differ needs --layer-type; an M-RoPE model's text "
        "positions turn all three axes alike, so rows are text tokens at P0, P0+1, …")
    p.add_argument("--input", required=True, metavar="X.npy")
    _model_flags(p, cli)
    p.add_argument("--convention", choices=CONVENTIONS, default=None,
                   help="pair layout (default: the model's in transformers with --config; else interleaved)")
    p.add_argument("--offset", type=cli.whole(0, MAX_SEQ_LEN), default=0, metavar="P0")
    cli.out(p)

    def run(args) -> int:
        x = cli.load_matrix(args.input, out=args.out)  # output checked from the header, before reading

        def compute():
            model = _model_of(args, default_head_dim=x.shape[1])
            if model.head_dim != x.shape[1]:
                raise EncodingError(f"--input has {x.shape[1]} columns; the model's head_dim is {model.head_dim}")
            if model.layers is not None:
                raise EncodingError(f"this config has a rope per layer type ({', '.join(model.layers.types)}): "
                                    "choose one with --layer-type")
            convention = args.convention or (model.layout if args.config else "interleaved")
            scaling = model.scaling
            if scaling.kind in ("dynamic", "longrope"):  # as transformers: the current length is the last
                scaling = replace(scaling, seq_len=args.seq_len or args.offset + x.shape[0])  # position + 1
            return apply_rope(x, base=model.base, convention=convention, scaling=scaling, offset=args.offset,
                              rotary_dim=model.rotary_dim)

        return cli.write(args, compute)

    p.set_defaults(func=run)

    f = subparsers.add_parser(
        "rope-frequencies", help="a model's RoPE inverse frequencies and attention factor, to JSON",
        description="Write inv_freq (float64, one per rotated pair) and attention_factor as transformers "
        "computes them for a model's config.json (--config) or for the flags alone; --seq-len is the current "
        "length (dynamic and longrope depend on it; default: as at start-up).  Flags override the config.  A "
        "model whose layers differ (Gemma 3, Llama 4) gets them per layer type, with its layer types, NoPE layers, "
        "window and attention temperature; an M-RoPE model (Qwen2-VL) the axis each pair turns with.")
    _model_flags(f, cli)
    cli.out(f, json_only=True)
    f.set_defaults(func=partial(_run_frequencies, cli))

    m = subparsers.add_parser(
        "mrope-positions", help="an M-RoPE model's (t, h, w) position ids for a mixed sequence, to JSON",
        description="For a multimodal model's config.json (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): the Schemes panel's "
        "mixed sequence (text, an image of 8 × 12 patches, text, a video of 3 × 8 × 8, text), each token's (t, h, w) "
        "ids as transformers' get_rope_index builds them, the axis each rotary pair turns with, and the expected "
        "score from --query (a token index; default the image's centre) to every token.")
    m.add_argument("--config", required=True, metavar="F", help="a multimodal model's config.json (or its folder)")
    m.add_argument("--query", type=cli.whole(0, 65535), default=None, metavar="T",
                   help="the query token (default: the image's centre patch)")
    cli.out(m, json_only=True)
    m.set_defaults(func=partial(_run_mrope, cli))


def _run_frequencies(cli, args) -> int:
    return cli.write_json(args, partial(_frequencies_doc, args))


def _model_flags(p, cli) -> None:
    """The options that set a model's RoPE: a config, and every value in it as a flag."""
    p.add_argument("--config", metavar="F", help="a model's config.json (or its folder); flags override it")
    p.add_argument("--layer-type", metavar="T", default=None,
                   help="for a model whose layers differ: the layer type whose rope to use (full_attention, …)")
    p.add_argument("--seq-len", type=cli.whole(1, MAX_SEQ_LEN), default=None, metavar="L",
                   help="current sequence length (dynamic, longrope)")
    p.add_argument("--head-dim", type=cli.whole(2, 65536), default=None, metavar="D")
    p.add_argument("--partial-rotary-factor", type=cli.number(positive=True, hi=1.0), default=None, metavar="P",
                   help="share of each head that rotates (GPT-NeoX's rotary_pct)")
    p.add_argument("--base", type=cli.number(), default=None, metavar="B", help="rope_theta (default 10000)")
    p.add_argument("--scaling", choices=SCALINGS, default=None)
    p.add_argument("--factor", type=cli.number(), default=None, metavar="S")
    p.add_argument("--original-max-positions", type=cli.whole(), default=None, metavar="L")
    for flag, hi, what in (("--beta-fast", MAX_BETA, "YaRN β_fast (32)"), ("--beta-slow", MAX_BETA, "YaRN β_slow (1)"),
                           ("--low-freq-factor", MAX_FACTOR, "llama3 (1)"),
                           ("--high-freq-factor", MAX_FACTOR, "llama3 (4)"),
                           ("--attention-factor", MAX_ATTENTION_FACTOR, "YaRN, longrope: cos, sin × this")):
        p.add_argument(flag, type=cli.number(positive=True, hi=hi), default=None, metavar="X", help=what)
    for flag in ("--mscale", "--mscale-all-dim"):
        p.add_argument(flag, type=cli.number(0.0, MAX_MSCALE), default=None, metavar="X", help="YaRN (DeepSeek)")
    p.add_argument("--truncate", choices=("true", "false"), default=None,
                   help="YaRN: round the correction range outwards (true; gpt-oss: false)")


def _model_of(args, default_head_dim: int | None = None):
    """The model the options describe: the config (if any) with every given flag in place of its value."""
    base_model = layer_rope(read_config(args.config), args.layer_type) if args.config else None
    if base_model is None and args.layer_type is not None:
        raise EncodingError("--layer-type needs --config (a model's config.json)")
    head_dim = args.head_dim if args.head_dim is not None or base_model else default_head_dim
    overrides = {k: getattr(args, k) for k in SCALING_OVERRIDES if k != "truncate"}
    truncate = None if args.truncate is None else args.truncate == "true"
    return with_overrides(base_model, head_dim=head_dim, base=args.base,
                          partial_rotary_factor=args.partial_rotary_factor, scaling=args.scaling,
                          truncate=truncate, **overrides)


def _rope_doc(rope, seq_len) -> dict:
    inv, att = rope.frequencies(seq_len)
    return {"rope_type": rope.rope_type, "base": rope.base, "rotary_dim": rope.rotary_dim,
            "inv_freq": [float(v) for v in inv], "attention_factor": float(att),
            "wavelength": [float(v) for v in 2 * np.pi / inv]}


def _frequencies_doc(args) -> dict:
    """``rope-frequencies``' JSON: inv_freq (float64, exact decimal round trip) and the attention factor; per layer
    type for a model whose layers differ; the pairs' axes for M-RoPE."""
    model = _model_of(args)
    doc = {"model": model.name, "head_dim": model.head_dim, "seq_len": args.seq_len,
           **_rope_doc(model, args.seq_len), "rotary_fields": model.fields(),
           "notes": {"inv_freq": "θ_i per rotated pair i = 0 … rotary_dim/2 − 1, as transformers' ROPE_INIT_FUNCTIONS "
                     "computes them (here in float64)",
                     "attention_factor": "cos and sin are multiplied by it (transformers' attention_scaling)"}}
    if model.softmax_scale != 1.0:
        doc["softmax_scale_factor"] = model.softmax_scale
        doc["notes"]["softmax_scale_factor"] = ("transformers multiplies this model's softmax scale 1/√d by it "
                                                "(yarn_apply_mscale: mscale(s, mscale_all_dim)²)")
    plan = model.layers
    if plan is not None:
        doc["layer_types"] = list(plan.layer_types)
        doc["rotates"] = list(plan.rotates)
        doc["per_layer_type"] = {t: {**_rope_doc(r, args.seq_len), "reach": plan.reach(t),
                                     "layers": plan.layers_of(t, rotating=True),
                                     "nope_layers": plan.layers_of(t, rotating=False)} for t, r in plan.ropes}
        doc["sliding_window"], doc["attention_chunk_size"] = plan.sliding_window, plan.chunk_size
        if plan.temperature is not None:
            doc["attention_temperature"] = {"floor_scale": plan.temperature[0], "attn_scale": plan.temperature[1]}
        doc["notes"]["per_layer_type"] = ("each layer type's rope; the top-level inv_freq is the full-attention "
                                          "layers' (else the first type's); reach: keys at most this far back "
                                          "(sliding: window − 1; chunked: chunk − 1); nope_layers do not rotate")
        if plan.temperature is not None:
            doc["notes"]["attention_temperature"] = ("Llama 4: the NoPE layers' queries at position p are multiplied "
                                                     "by attn_scale·ln(1 + floor((p + 1)/floor_scale)) + 1")
    if model.mrope is not None:
        from ..encodings.mrope import AXES, pair_axes

        doc["mrope_section"] = list(model.mrope.section)
        doc["mrope_interleaved"] = model.mrope.interleaved
        doc["pair_axis"] = [AXES[a] for a in pair_axes(model.mrope, model.rotary_dim // 2)]
    return doc


def _run_mrope(cli, args) -> int:
    return cli.write_json(args, partial(_mrope_doc, args))


def _mrope_doc(args) -> dict:
    from ..encodings.mrope import AXES
    from ..encodings.mrope_sequence import mrope_result

    model = read_config(args.config)
    if model.mrope is None:
        raise EncodingError("this config has no mrope_section: its positions are one number per token")
    theta, att = model.frequencies()
    r = mrope_result(model, theta, float(att), -1 if args.query is None else args.query)
    return {"model": model.name, "mrope_section": list(model.mrope.section),
            "mrope_interleaved": model.mrope.interleaved,
            "segments": [{"kind": k, "first": a, "stop": b} for k, a, b in r.segments],
            "position_ids": {AXES[k]: [int(v) for v in r.ids[k]] for k in range(3)},
            "pair_axis": [AXES[a] for a in r.axes], "inv_freq": [float(v) for v in theta],
            "query": r.query, "score": [float(v) for v in r.scores],
            "notes": {"position_ids": "t, h, w per token, as transformers' get_rope_index builds them",
                      "score": "expected q·k/|q|² of the query token with each token (q = k ~ N(0, I))"}}
