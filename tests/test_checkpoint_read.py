"""Reading a learned position table out of real-shaped checkpoints, and refusing bad ones in one line."""

from __future__ import annotations

import json
import os
import pickle
import struct

import numpy as np
import pytest
from checkpoint_files import gpt2_folder, gpt2_tensors, helix, hub_cache, to_bf16_bytes, write_safetensors

from explorer.encodings import checkpoint as ck
from explorer.encodings.checkpoint import CheckpointError, load_table


def test_gpt2_shaped_safetensors_file(tmp_path):
    f = write_safetensors(tmp_path / "model.safetensors", gpt2_tensors(64, 16))
    t = load_table(f)
    assert t.name == "wpe.weight" and t.table.shape == (64, 16) and t.table.dtype == np.float64
    np.testing.assert_array_equal(t.table, helix(64, 16).astype(np.float32).astype(np.float64))
    assert t.offset == 0 and t.dtype == "F32" and t.config_max is None
    assert set(t.tensors) == {"wte.weight", "wpe.weight", "h.0.attn.c_attn.weight"}  # 2-D floating only


def test_only_the_tables_bytes_are_read(tmp_path, monkeypatch):
    # A 3 GB tensor before the table, as a sparse file: reading it would take gigabytes and minutes.
    big = 3 << 30
    f = tmp_path / "big.safetensors"
    table = helix(32, 8).astype(np.float32)
    header = {"wte.weight": {"dtype": "F32", "shape": [big // 4 // 1024, 1024], "data_offsets": [0, big]},
              "wpe.weight": {"dtype": "F32", "shape": [32, 8], "data_offsets": [big, big + table.nbytes]}}
    text = json.dumps(header).encode()
    with open(f, "wb") as fh:
        fh.write(struct.pack("<Q", len(text)) + text)
        fh.seek(8 + len(text) + big)
        fh.write(table.tobytes())
    assert f.stat().st_size > big and f.stat().st_blocks * 512 < 1 << 20  # sparse: nothing on disk

    taken = []

    class Counting:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def seek(self, *a):
            return self.fh.seek(*a)

        def read(self, n=-1):
            assert n >= 0, "never read to the end of a checkpoint"
            data = self.fh.read(n)
            taken.append(len(data))
            return data

    monkeypatch.setattr(ck, "_open", lambda p, mode: Counting(open(p, mode)))
    t = load_table(f)
    np.testing.assert_array_equal(t.table, table)
    assert sum(taken) == 8 + len(text) + table.nbytes


@pytest.mark.parametrize("dtype", ["F16", "BF16", "F64"])
def test_half_and_double_tables_become_float64(tmp_path, dtype):
    a = helix(16, 8)
    t = load_table(write_safetensors(tmp_path / "m.safetensors", {"wpe.weight": (a, dtype)}))
    assert t.table.dtype == np.float64 and t.dtype == dtype
    want = {"F16": a.astype(np.float16), "F64": a,
            "BF16": (np.frombuffer(to_bf16_bytes(a), "<u2").astype(np.uint32) << 16).view(np.float32)}[dtype]
    np.testing.assert_array_equal(t.table, np.asarray(want, np.float64).reshape(a.shape))
    assert np.max(np.abs(t.table - a)) < 0.05


def test_folder_config_and_offsets(tmp_path):
    t = load_table(gpt2_folder(tmp_path / "gpt2"))
    assert t.name == "wpe.weight" and t.config_max == 64 and t.model == "gpt2"
    # OPT keeps 2 rows before position 0.
    opt = tmp_path / "opt"
    opt.mkdir()
    write_safetensors(opt / "model.safetensors", {"model.decoder.embed_positions.weight": helix(34, 8)})
    (opt / "config.json").write_text(json.dumps({"model_type": "opt", "max_position_embeddings": 32}))
    t = load_table(opt)
    assert t.offset == 2 and t.positions == 32 and t.config_max == 32
    np.testing.assert_allclose(t.table[0], helix(34, 8)[2], rtol=1e-6)
    # RoBERTa: positions start at padding_idx + 1.
    rob = tmp_path / "roberta"
    rob.mkdir()
    write_safetensors(rob / "model.safetensors", {"roberta.embeddings.position_embeddings.weight": helix(20, 8)})
    (rob / "config.json").write_text(json.dumps({"model_type": "roberta", "pad_token_id": 1}))
    t = load_table(rob)
    assert t.offset == 2 and t.positions == 18
    # BERT: no offset.
    bert = tmp_path / "bert"
    bert.mkdir()
    write_safetensors(bert / "model.safetensors", {"bert.embeddings.position_embeddings.weight": helix(20, 8)})
    assert load_table(bert).offset == 0


def test_sharded_folder_and_named_tensor(tmp_path):
    root = tmp_path / "sharded"
    root.mkdir()
    tensors = gpt2_tensors(40, 8)
    write_safetensors(root / "model-00001-of-00002.safetensors", {"wte.weight": tensors["wte.weight"]})
    write_safetensors(root / "model-00002-of-00002.safetensors", {"transformer.wpe.weight": tensors["wpe.weight"]})
    index = {"weight_map": {"wte.weight": "model-00001-of-00002.safetensors",
                            "transformer.wpe.weight": "model-00002-of-00002.safetensors"}}
    (root / "model.safetensors.index.json").write_text(json.dumps(index))
    t = load_table(root)
    assert t.name == "transformer.wpe.weight" and t.positions == 40
    assert load_table(root, "wte.weight").table.shape == (50, 8)  # any 2-D tensor, picked by name
    index["weight_map"]["wte.weight"] = "../elsewhere.safetensors"
    (root / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(CheckpointError, match="not a file name beside the index"):
        load_table(root, "wte.weight")


def test_hub_cache_entry_and_snapshot(tmp_path):
    entry = hub_cache(tmp_path)
    t = load_table(entry)  # refs/main -> snapshots/c0ffee
    assert t.positions == 64 and t.config_max == 64
    assert load_table(entry / "snapshots" / "0ld").positions == 8
    (entry / "refs" / "main").unlink()
    os.utime(entry / "snapshots" / "0ld", (1, 1))
    assert load_table(entry).positions == 64  # no ref: the newest snapshot


def test_state_dicts(tmp_path):
    import torch

    f = tmp_path / "pytorch_model.bin"
    torch.save({k: torch.from_numpy(np.asarray(v, np.float32)) for k, v in gpt2_tensors(24, 8).items()}, f)
    t = load_table(f)
    assert t.name == "wpe.weight" and t.table.shape == (24, 8) and t.dtype == "float32"
    f2 = tmp_path / "wrapped.pt"
    torch.save({"state_dict": {"pos_emb.weight": torch.ones(5, 3, dtype=torch.bfloat16)}, "step": 3}, f2)
    assert load_table(f2).table.shape == (5, 3)


class Evil:
    def __reduce__(self):
        return (os.system, ("touch /tmp/pe-explorer-pwned",))


def test_pickles_with_code_are_refused(tmp_path):
    f = tmp_path / "pytorch_model.bin"
    with open(f, "wb") as fh:
        pickle.dump({"wpe.weight": Evil()}, fh)
    with pytest.raises(CheckpointError) as err:
        load_table(f)
    assert "\n" not in str(err.value) and str(f) in str(err.value)
    assert not os.path.exists("/tmp/pe-explorer-pwned")
    import torch

    f2 = tmp_path / "code.pt"
    torch.save({"wpe.weight": torch.ones(4, 4), "x": Evil()}, f2)
    with pytest.raises(CheckpointError, match="refused"):
        load_table(f2)
    assert not os.path.exists("/tmp/pe-explorer-pwned")


def _bad_files(tmp_path):
    good = write_safetensors(tmp_path / "good.safetensors", gpt2_tensors(16, 8)).read_bytes()
    n = struct.unpack("<Q", good[:8])[0]
    cases = {
        "truncated": good[: len(good) - 100],
        "short": b"\x01\x02",
        "huge header": struct.pack("<Q", 1 << 60) + b"{}",
        "header past end": struct.pack("<Q", 10_000) + b"{}",
        "not json": struct.pack("<Q", 4) + b"\xff\xfe{]",
        "list header": struct.pack("<Q", 2) + b"[]",
    }
    lying = json.loads(good[8:8 + n])
    lying["wpe.weight"]["data_offsets"] = [0, 8]  # fewer bytes than 16 × 8 float32
    text = json.dumps(lying).encode()
    cases["offsets lie"] = struct.pack("<Q", len(text)) + text + good[8 + n:]
    return cases


def test_bad_files_one_line_each(tmp_path):
    for label, data in _bad_files(tmp_path).items():
        f = tmp_path / f"{label.replace(' ', '_')}.safetensors"
        f.write_bytes(data)
        with pytest.raises(CheckpointError) as err:
            load_table(f)
        msg = str(err.value)
        assert "\n" not in msg and str(f) in msg and len(msg) < 300, (label, msg)
    cases = {
        "int": {"wpe.weight": (np.ones((4, 4)), "I64")},
        "1-D": {"wpe.weight": np.ones(8)},
        "nan": {"wpe.weight": np.full((4, 4), np.nan)},
        "none": {"lm_head.weight": np.ones((4, 4))},
    }
    for label, tensors in cases.items():
        f = write_safetensors(tmp_path / f"{label}.safetensors", tensors)
        with pytest.raises(CheckpointError) as err:
            load_table(f)
        assert "\n" not in str(err.value), label
    with pytest.raises(CheckpointError, match="no tensor named 'nope'"):
        load_table(tmp_path / "good.safetensors", "nope")
    with pytest.raises(CheckpointError, match="1-D"):
        load_table(tmp_path / "good.safetensors", "h.0.ln_1.bias")


def test_fifo_empty_folder_and_others(tmp_path):
    fifo = tmp_path / "pipe.safetensors"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match="named pipe"):
        load_table(fifo)
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match="no model weights"):
        load_table(tmp_path / "empty")
    with pytest.raises(CheckpointError, match="no such file"):
        load_table(tmp_path / "missing.safetensors")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(CheckpointError, match="not a checkpoint"):
        load_table(tmp_path / "notes.txt")
    bad_cfg = gpt2_folder(tmp_path / "badcfg")
    (bad_cfg / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="config"):
        load_table(bad_cfg)
    (tmp_path / "junk.bin").write_bytes(b"\x80\x04junk")
    with pytest.raises(CheckpointError) as err:
        load_table(tmp_path / "junk.bin")
    assert "\n" not in str(err.value)


def test_matches_the_safetensors_package_when_installed(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    a = helix(32, 8).astype(np.float32)
    f = tmp_path / "ref.safetensors"
    st.save_file({"wpe.weight": a, "wte.weight": np.ones((3, 8), np.float16)}, str(f))
    np.testing.assert_array_equal(load_table(f).table, a)
