"""Small checkpoints made in a temp dir for the tests: safetensors files, state dicts, HF folders, a hub cache."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

_CODES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "BF16": None}


def helix(n: int = 64, d: int = 16, seed: int = 0) -> np.ndarray:
    """A GPT-2-like table: a slow helix (cos, sin of p/n·π, and p) in the first dims plus small noise."""
    p = np.arange(n)
    rng = np.random.default_rng(seed)
    t = 0.1 * rng.standard_normal((n, d))
    t[:, 0] += 2 * np.cos(np.pi * p / n)
    t[:, 1] += 2 * np.sin(np.pi * p / n)
    t[:, 2] += 4 * (p / n - 0.5)
    for c in range(3, d):
        t[:, c] += 0.5 * np.cos(2 * np.pi * (c - 2) * p / n)
    return t


def to_bf16_bytes(a: np.ndarray) -> bytes:
    return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()


def write_safetensors(path: Path, tensors: dict, dtype: str = "F32", header_extra: dict | None = None) -> Path:
    """Write ``tensors`` (name -> array, or name -> (array, dtype)) as a safetensors file."""
    header: dict = {"__metadata__": {"format": "pt"}}
    blobs, at = [], 0
    for name, value in tensors.items():
        arr, dt = value if isinstance(value, tuple) else (value, dtype)
        arr = np.asarray(arr)
        raw = to_bf16_bytes(arr) if dt == "BF16" else arr.astype(_CODES[dt]).tobytes()
        header[name] = {"dtype": dt, "shape": list(arr.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    header.update(header_extra or {})
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    return path


def gpt2_tensors(n: int = 64, d: int = 16) -> dict:
    rng = np.random.default_rng(1)
    return {"wte.weight": rng.standard_normal((50, d)), "wpe.weight": helix(n, d),
            "h.0.ln_1.bias": np.zeros(d), "h.0.attn.c_attn.weight": rng.standard_normal((d, 3 * d))}


def gpt2_folder(root: Path, n: int = 64, d: int = 16) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    write_safetensors(root / "model.safetensors", gpt2_tensors(n, d))
    (root / "config.json").write_text(json.dumps({"model_type": "gpt2", "n_positions": n, "n_embd": d}))
    return root


def hub_cache(home: Path, n: int = 64, d: int = 16) -> Path:
    """``home/hub/models--gpt2`` with two snapshots; refs/main names the second (the one to open)."""
    entry = home / "hub" / "models--gpt2"
    blobs = entry / "blobs"
    blobs.mkdir(parents=True)
    write_safetensors(blobs / "aaa", gpt2_tensors(n, d))
    old = write_safetensors(blobs / "bbb", {"wpe.weight": np.ones((8, d))})
    (blobs / "ccc").write_text(json.dumps({"model_type": "gpt2", "n_positions": n}))
    for rev, blob in (("0ld", old), ("c0ffee", blobs / "aaa")):
        snap = entry / "snapshots" / rev
        snap.mkdir(parents=True)
        (snap / "model.safetensors").symlink_to(blob)
        (snap / "config.json").symlink_to(blobs / "ccc")
    (entry / "refs").mkdir()
    (entry / "refs" / "main").write_text("c0ffee")
    return entry
