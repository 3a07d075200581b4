"""``pe-explorer data``: the numbers behind the app, so students can check their own code.

The format follows the extension of ``--out``: .npy, .csv (1-D/2-D), .json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

import numpy as np

from .. import schemes as registry
from ..cli import UsageError
from ..encodings import MAX_ELEMENTS, EncodingError
from ..fileio import OutputError, check_array_format, check_array_size, check_output, not_regular, write_array
from ..state.swap import RENAMED, default_scheme
from .args import number, whole


def _out(p, *, json_only: bool = False) -> None:
    formats = ".json" if json_only else ".npy, .csv or .json"
    p.add_argument("--out", required=True, metavar="F.json" if json_only else "F", help=f"output file: {formats}")


def add_parser(sub) -> None:
    data = sub.add_parser("data", help="write encodings, RoPE rotations, ALiBi biases or a token swap to a file")
    ds = data.add_subparsers(dest="what", metavar="WHAT", required=True)

    cli = DataCommands()
    for scheme in registry.all_schemes():  # each scheme brings its own data subcommands
        scheme.add_data_commands(ds, cli)

    p = ds.add_parser(
        "swap",
        help="the token-swap experiment, to JSON",
        description="Attention over a sentence and over the same sentence with tokens I and J swapped; "
        "writes tokens, attention weights and outputs before and after, and max_relabel_error = the largest "
        "|out_after[new place of a token] − out_before[its old place]|.",
    )
    p.add_argument("--sentence", required=True, metavar="TEXT",
                   help="whitespace-separated tokens (at most 64)")
    p.add_argument("--swap", type=whole(), nargs=2, required=True, metavar=("I", "J"),
                   help="the two token places to swap (0-based, different)")
    p.add_argument("--scheme", type=_swap_scheme, default=default_scheme(), metavar="ID",
                   help=f"one of {', '.join(registry.swap_ids())} (see pe-explorer schemes)")
    p.add_argument("--causal", action="store_true", help="forbid attending to later tokens")
    p.add_argument("--mask-after-softmax", action="store_true", help="the common mistake (needs --causal)")
    p.add_argument("--d-model", type=whole(), default=16, metavar="D", help="4 … 256, a multiple of 2 × heads")
    p.add_argument("--heads", type=whole(), default=1, metavar="H", help="1 … 8")
    p.add_argument("--alpha", type=number(), default=1.0, metavar="A",
                   help="PE strength for the added schemes (sinusoidal, learned), 0 … 3")
    p.add_argument("--seed", type=whole(), default=0, metavar="S",
                   help="seed of W_Q, W_K, W_V (and the learned table)")
    _out(p, json_only=True)
    p.set_defaults(func=_swap)


def _swap_scheme(text: str) -> str:
    sid = RENAMED.get(text, text)  # version 1's name for NoPE still works
    if sid not in registry.swap_ids():
        raise argparse.ArgumentTypeError(f"invalid choice {text!r} (choose from {', '.join(registry.swap_ids())})")
    return sid


def _check_out(path: str) -> None:
    """Before any work: ``--out`` can be written (folder exists and takes a file; absent or a regular file)."""
    try:
        check_output(path)
    except OutputError as exc:
        raise UsageError(str(exc)) from None


def _write(args, compute, meta=None, shape=None) -> int:
    """Check the output (format, size for ``shape``, path) first, compute, then write atomically."""
    try:
        check_array_format(args.out)
        if shape is not None:
            check_array_size(args.out, tuple(shape))
        _check_out(args.out)
        arr = compute()
        write_array(args.out, arr, meta)
    except (EncodingError, OutputError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    return 0


def _write_json(args, compute) -> int:
    from ..fileio import atomic_write_text

    if Path(args.out).suffix.lower() != ".json":
        raise UsageError(f"--out must end in .json; got {args.out!r}")
    _check_out(args.out)
    try:
        doc = compute()
        atomic_write_text(args.out, json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False))
    except (EncodingError, OutputError, OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    return 0


class DataCommands:
    """What a scheme's ``data`` subcommands share with the others (see ``Scheme.add_data_commands``)."""

    #: argparse ``type``s for numeric options: bounded before conversion, finite, optionally in [lo, hi].
    whole = staticmethod(whole)
    number = staticmethod(number)
    #: Raised for a bad combination of options (one line, exit 2).
    UsageError = UsageError

    @staticmethod
    def out(parser, *, json_only: bool = False) -> None:
        """The ``--out`` option every data subcommand has (``json_only``: for :meth:`write_json`)."""
        _out(parser, json_only=json_only)

    @staticmethod
    def write(args, compute, meta=None, shape=None) -> int:
        """Check ``args.out`` (format; with ``shape``, the result's size and dimensions; the path), compute,
        write atomically; a bad value is one line and exit 2."""
        return _write(args, compute, meta, shape)

    @staticmethod
    def write_json(args, compute) -> int:
        """Check that ``args.out`` is a writable .json path, compute a JSON-able dict, write it atomically; a bad
        value is one line and exit 2."""
        return _write_json(args, compute)

    @staticmethod
    def load_matrix(path: str, out: str | None = None) -> np.ndarray:
        """A 2-D numeric ``.npy`` array as float64, or one line naming what is wrong with ``--input``.

        With ``out`` (a result of the input's shape is written there), that output is checked from the
        input's header, before the data are read: format, CSV/JSON size, path."""
        return _load_matrix(path, out)


#: Largest ``--input`` array, checked from the .npy header before reading (the maths layer's cap).
MAX_INPUT_ELEMENTS = MAX_ELEMENTS


def _regular_input(path: str) -> os.stat_result:
    """``path``'s stat if it is a regular file; else one line saying what it is (never opened: a FIFO blocks)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"--input {path}: no such file") from None
    except OSError as exc:
        raise UsageError(f"--input {path}: cannot read it ({exc.strerror or exc})") from None
    what = not_regular(st.st_mode)
    if what:
        raise UsageError(f"--input {path}: it is {what}, not a regular .npy file")
    return st


def _load_matrix(path: str, out: str | None = None) -> np.ndarray:
    if out is not None:
        try:
            check_array_format(out)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        _check_out(out)
    st = _regular_input(path)
    bad = f"--input {path}:"
    try:
        with open(path, "rb") as fh:
            try:
                version = np.lib.format.read_magic(fh)
            except ValueError:
                raise UsageError(f"{bad} not a .npy file (it does not start with numpy's .npy header)") from None
            if version not in ((1, 0), (2, 0), (3, 0)):
                raise UsageError(f"{bad} .npy format version {version[0]}.{version[1]} is not supported")
            try:
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, fortran, dtype = read_header(fh, max_header_size=10000)
            except (ValueError, SyntaxError, TypeError) as exc:
                why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]  # numpy's may run to 3 lines
                raise UsageError(f"{bad} not a readable .npy file: bad header ({why[:200]})") from None
            if dtype.hasobject or dtype.kind not in "fiu":
                raise UsageError(f"{bad} expected a numeric array, got {dtype} (Python objects are never loaded)")
            if len(shape) != 2:
                raise UsageError(f"{bad} expected a 2-D array (N, D), got shape {shape}")
            n = math.prod(shape)
            if n > MAX_INPUT_ELEMENTS:
                raise UsageError(f"{bad} {shape[0]} x {shape[1]} = {n:,} numbers is too large: at most "
                                 f"{MAX_INPUT_ELEMENTS:,} (checked from the header, before reading)")
            if out is not None:
                try:
                    check_array_size(out, tuple(shape))
                except ValueError as exc:
                    raise UsageError(str(exc)) from None
            need = fh.tell() + n * dtype.itemsize
            if st.st_size < need:
                raise UsageError(f"{bad} truncated: the header promises {need:,} bytes, the file has "
                                 f"{st.st_size:,}")
            x = np.fromfile(fh, dtype=dtype, count=n).reshape(shape, order="F" if fortran else "C")
    except OSError as exc:
        raise UsageError(f"{bad} cannot read it ({exc.strerror or exc})") from None
    return x.astype(np.float64)


def _swap(args) -> int:
    from .. import jobs
    from ..fileio import atomic_write_text
    from ..jobs.swap import SwapRequest
    from ..state import StateError, SwapState
    from ..state.swap import MAX_TOKENS, tokenize

    # Every check comes before any work, so a bad argument never leaves a file behind.
    if Path(args.out).suffix.lower() != ".json":
        raise UsageError(f"--out must end in .json; got {args.out!r}")
    tokens = tokenize(args.sentence)
    if not tokens:
        raise UsageError("--sentence is empty: give at least two words")
    if len(tokens) > MAX_TOKENS:
        raise UsageError(f"--sentence has {len(tokens)} tokens; at most {MAX_TOKENS}")
    i, j = args.swap
    for name, v in (("I", i), ("J", j)):
        if not 0 <= v < len(tokens):
            raise UsageError(
                f"--swap {name} = {v} is out of range: the sentence has {len(tokens)} tokens, "
                f"0 … {len(tokens) - 1}"
            )
    if i == j:
        raise UsageError(f"--swap needs two different positions, got I = J = {i}")
    if args.mask_after_softmax and not args.causal:
        raise UsageError("--mask-after-softmax only changes anything together with --causal")
    _check_out(args.out)
    try:
        st = SwapState(
            sentence=args.sentence, swap_i=i, swap_j=j, scheme=args.scheme, causal=args.causal,
            mask_after_softmax=args.mask_after_softmax, d_model=args.d_model, heads=args.heads,
            alpha=args.alpha, seed=args.seed,
        )
        r = jobs.run(SwapRequest(st))
    except (StateError, EncodingError) as exc:
        raise UsageError(str(exc)) from None
    doc = {
        "sentence": args.sentence,
        "swap": [i, j],
        "scheme": args.scheme,
        "causal": args.causal,
        "mask_after_softmax": args.mask_after_softmax,
        "d_model": args.d_model,
        "heads": args.heads,
        "alpha": args.alpha,
        "seed": args.seed,
        "tokens_before": r.before.tokens,
        "tokens_after": r.after.tokens,
        "permutation": r.permutation.tolist(),
        "weights_before": r.before.weights.tolist(),
        "weights_after": r.after.weights.tolist(),
        "row_sums_before": r.before.row_sums.tolist(),
        "row_sums_after": r.after.row_sums.tolist(),
        "outputs_before": r.before.outputs.tolist(),
        "outputs_after": r.after.outputs.tolist(),
        "max_relabel_error": r.max_relabel_error,
        "max_weight_error": r.max_weight_error,
        "equivariant": r.equivariant,
        "verdict": r.verdict,
        "headline": r.headline,
        "explanation": r.explanation,
        "notes": {
            "shapes": "weights (heads, n, n): [head][query][key]; outputs (n, d_model); row_sums (heads, n)",
            "permutation": "permutation[t] = new place of the token that was at place t",
            "max_relabel_error": "max over t, c of |outputs_after[permutation[t]][c] - outputs_before[t][c]|",
        },
    }
    if r.before.positions is not None:  # a scheme that counts positions from the content (CoPE)
        doc.update(gates_before=r.before.gates.tolist(), positions_before=r.before.positions.tolist(),
                   gates_after=r.after.gates.tolist(), positions_after=r.after.positions.tolist())
        doc["notes"]["positions"] = ("CoPE: positions[head][query][key] = the sum of gates[head][query][t] over keys "
                                     "t from key to query; gates = sigmoid(q·k/sqrt(d_head)), masked when causal")
    try:
        atomic_write_text(args.out, json.dumps(doc, indent=1, ensure_ascii=False))
    except OSError as exc:
        raise UsageError(str(exc)) from None
    return 0
