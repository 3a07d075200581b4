"""Multimodal RoPE against transformers itself: the 3-D position ids of ``get_rope_index`` (Qwen2-VL, Qwen2.5-VL,
Qwen3-VL) for text, images and video frames, the pair-to-axis layouts of their rotary embeddings
(``recomposition_frequencies``, contiguous and interleaved) and the rotation ``apply_rotary_pos_emb`` makes, in
float64.  transformers 5 has no ``apply_multimodal_rotary_pos_emb`` any more: the axes are recomposed inside the
rotary embedding and the plain ``apply_rotary_pos_emb`` rotates, so those two are the reference."""

from __future__ import annotations

import functools
import json
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from cli_run import run_cli  # noqa: E402
from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl as q25  # noqa: E402
from transformers.models.qwen2_vl import modeling_qwen2_vl as q2  # noqa: E402
from transformers.models.qwen3_vl import modeling_qwen3_vl as q3  # noqa: E402

from explorer.encodings import EncodingError  # noqa: E402
from explorer.encodings.mrope import Segment, expected_scores, pair_axes, position_ids, rotate  # noqa: E402
from explorer.encodings.rope_config import load_shipped, parse_config, shipped  # noqa: E402
from explorer.encodings.rope_model import MRopeLayout  # noqa: E402

MROPE = {"qwen2-vl-7b": "qwen2_vl"}

SEQUENCES = {
    "text, image, text": [Segment("text", 3), Segment("image", grid=(1, 8, 12)), Segment("text", 4)],
    "image first, a video, two images": [Segment("image", grid=(1, 4, 4)), Segment("text", 2),
                                        Segment("video", grid=(3, 8, 8), seconds=0.5), Segment("text", 1),
                                        Segment("image", grid=(1, 12, 6)), Segment("text", 1),
                                        Segment("image", grid=(1, 2, 2)),
                                        Segment("text", 5)],
    "a long video": [Segment("text", 1), Segment("video", grid=(20, 4, 6), seconds=2.0), Segment("text", 2)],
}


def _hf_inputs(segments, merge):
    types_, image, video, seconds = [], [], [], []
    for seg in segments:
        if seg.kind == "text":
            types_ += [0] * seg.length
            continue
        t, h, w = seg.grid
        types_ += [1 if seg.kind == "image" else 2] * (t * (h // merge) * (w // merge))
        (image if seg.kind == "image" else video).append(list(seg.grid))
        if seg.kind == "video":
            seconds.append(seg.seconds)
    ids = torch.zeros(1, len(types_), dtype=torch.long)
    return (ids, torch.tensor([types_]), torch.tensor(image) if image else None, torch.tensor(video) if video else None,
            torch.tensor(seconds) if seconds else None)


def _hf_ids(module, model_cls, segments, merge, tokens_per_second=None):
    vision = types.SimpleNamespace(spatial_merge_size=merge, tokens_per_second=tokens_per_second)
    fake = types.SimpleNamespace(config=types.SimpleNamespace(vision_config=vision))
    fake.get_vision_position_ids = functools.partial(model_cls.get_vision_position_ids, fake)
    ids, kinds, image, video, seconds = _hf_inputs(segments, merge)
    kw = {"second_per_grid_ts": seconds} if module is q25 else {}
    pos, _ = model_cls.get_rope_index(fake, ids, kinds, image_grid_thw=image, video_grid_thw=video, **kw)
    return pos[:, 0].numpy()


@pytest.mark.parametrize("name", list(SEQUENCES))
def test_position_ids_match_get_rope_index_qwen2_and_qwen25(name):
    segs = SEQUENCES[name]
    ours = position_ids(segs, MRopeLayout((16, 24, 24)))
    np.testing.assert_array_equal(ours, _hf_ids(q2, q2.Qwen2VLModel, segs, 2))
    for tps in (2, 4, 25):  # Qwen2.5-VL: video time ids step by tokens_per_second × seconds, truncated
        ours = position_ids(segs, MRopeLayout((16, 24, 24), family="qwen2_5_vl", tokens_per_second=tps))
        np.testing.assert_array_equal(ours, _hf_ids(q25, q25.Qwen2_5_VLModel, segs, 2, tps), err_msg=f"tps {tps}")


def test_position_ids_match_get_rope_index_qwen3_frames_apart():
    """Qwen3-VL splits a video into frames of T = 1, each after its text timestamp."""
    frames = [Segment("text", 2), Segment("video", grid=(1, 8, 8))] * 3
    segs = [Segment("text", 4), Segment("image", grid=(1, 6, 10)), *frames, Segment("text", 3)]
    layout = MRopeLayout((24, 20, 20), interleaved=True, family="qwen3_vl")
    ids, kinds, image, _video, _s = _hf_inputs(segs, 2)
    vision = types.SimpleNamespace(spatial_merge_size=2)
    fake = types.SimpleNamespace(config=types.SimpleNamespace(vision_config=vision))
    fake.get_vision_position_ids = functools.partial(q3.Qwen3VLModel.get_vision_position_ids, fake)
    video = torch.tensor([[3, 8, 8]])  # the whole video, as the processor gives it: transformers splits it per frame
    pos, _ = q3.Qwen3VLModel.get_rope_index(fake, ids, kinds, image_grid_thw=image, video_grid_thw=video)
    np.testing.assert_array_equal(position_ids(segs, layout), pos[:, 0].numpy())


def _recomposed(module_cls, section, pos, theta):
    """transformers' own recomposition of per-axis angles (3, n, pairs) into its (n, 2·pairs) layout, in float64."""
    emb = module_cls.__new__(module_cls)
    torch.nn.Module.__init__(emb)
    emb.mrope_section = list(section)
    freqs = torch.tensor(pos, dtype=torch.float64)[..., None] * torch.tensor(theta)  # (3, n, pairs)
    return emb.recomposition_frequencies(freqs.cos()).numpy(), emb.recomposition_frequencies(freqs.sin()).numpy()


@pytest.mark.parametrize("interleaved, section, cls", [
    (False, (16, 24, 24), q2.Qwen2VLRotaryEmbedding),
    (False, (16, 24, 24), q25.Qwen2_5_VLRotaryEmbedding),
    (True, (24, 20, 20), q3.Qwen3VLTextRotaryEmbedding),
])
def test_pair_axes_and_rotation_match_transformers(interleaved, section, cls):
    layout = MRopeLayout(section, interleaved=interleaved)
    segs = SEQUENCES["image first, a video, two images"]
    pos = position_ids(segs, layout)
    theta = 1e6 ** (-np.arange(0, 128, 2, dtype=np.float64) / 128)
    axes = pair_axes(layout, 64)
    cos_hf, sin_hf = _recomposed(cls, section, pos, theta)
    x = np.random.default_rng(0).standard_normal((pos.shape[1], 128))
    ours = rotate(x, pos, theta, axes)
    xt = torch.tensor(x)[None, None]
    ref, _ = q2.apply_rotary_pos_emb(xt, xt, torch.tensor(cos_hf)[None], torch.tensor(sin_hf)[None])
    np.testing.assert_allclose(ours, ref[0, 0].numpy(), rtol=0, atol=1e-12)
    if interleaved:
        assert list(axes[:6]) == [0, 1, 2, 0, 1, 2] and list(axes[60:]) == [0, 0, 0, 0]
    else:
        assert list(np.bincount(axes)) == list(section) and np.all(np.diff(axes) >= 0)


def test_every_shipped_mrope_config_reads_as_transformers():
    from hf_reference import hf_config, reference

    assert set(MROPE) == {c for c in shipped() if load_shipped(c).mrope is not None}
    for config_id, model_type in MROPE.items():
        model = load_shipped(config_id)
        cfg = hf_config(model_type, json.loads(shipped()[config_id].read_text()))
        text = cfg.text_config
        assert text.rope_parameters["mrope_section"] == list(model.mrope.section)
        assert cfg.vision_config.spatial_merge_size == model.mrope.spatial_merge
        ours, att = model.frequencies()
        ref, ref_att = reference(text, None)
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=0)
        assert parse_config(model.fields()) == model


def test_scores_are_one_at_the_query_and_see_rows_and_columns():
    model = load_shipped("qwen2-vl-7b")
    segs = [Segment("text", 2), Segment("image", grid=(1, 8, 8)), Segment("text", 2)]
    pos = position_ids(segs, model.mrope)
    theta, _ = model.frequencies()
    axes = pair_axes(model.mrope, theta.size)
    query = 2 + 1 * 4 + 1  # the image's patch at row 1, column 1
    s = expected_scores(pos, theta, axes, query, model.head_dim)
    assert s[query] == pytest.approx(1.0)
    # Patches in the query's row (same t, same h) beat those one row and one column away.
    same_row, diagonal = s[2 + 1 * 4 + 2], s[2 + 2 * 4 + 2]
    assert same_row > diagonal
    with pytest.raises(EncodingError, match="outside the sequence"):
        expected_scores(pos, theta, axes, 999, model.head_dim)


BAD = [
    ({"rope_type": "mrope"}, "mrope_section is missing"),
    ({"type": "mrope", "mrope_section": [16, 24]}, "three numbers"),
    ({"type": "mrope", "mrope_section": [16, 24, 20]}, "adds up to 60 pairs"),
    ({"rope_type": "default", "mrope_section": [16, 24, 24], "mrope_interleaved": "yes"}, "true or false"),
    ({"rope_type": "default", "mrope_interleaved": True}, "without mrope_section"),
]


@pytest.mark.parametrize("rs, words", BAD, ids=[w for _, w in BAD])
def test_bad_mrope_fields_are_one_line(rs, words):
    with pytest.raises(EncodingError) as exc:
        parse_config({"head_dim": 128, "rope_theta": 1e6, "max_position_embeddings": 64, "rope_scaling": rs})
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_bad_segments_are_one_line():
    layout = MRopeLayout((16, 24, 24))
    for segs, words in (([Segment("image", grid=(1, 3, 4))], "multiples of the spatial merge"),
                        ([Segment("audio", 3)], "kind must be"), ([Segment("text", 0)], "text run"),
                        ([Segment("video", grid=(10**6, 2, 2))], "at most"),
                        ([Segment("image", grid=(1, 2, 2)), Segment("image", grid=(1, 2, 2))], "in a row")):
        with pytest.raises(EncodingError, match=words):
            position_ids(segs, layout)


def test_data_mrope_positions_and_frequencies_per_axis(tmp_path, capsys):
    def run(argv):
        return run_cli(argv, capsys)

    cfg = str(shipped()["qwen2-vl-7b"])
    rc, err = run(["data", "mrope-positions", "--config", cfg, "--out", str(tmp_path / "p.json")])
    assert rc == 0, err
    doc = json.loads((tmp_path / "p.json").read_text())
    model = load_shipped("qwen2-vl-7b")
    segs = [Segment("text", 3), Segment("image", grid=(1, 8, 12)), Segment("text", 3),
            Segment("video", grid=(3, 8, 8)), Segment("text", 2)]
    ids = np.array([doc["position_ids"][a] for a in "thw"])
    np.testing.assert_array_equal(ids, _hf_ids(q2, q2.Qwen2VLModel, segs, 2))
    assert doc["pair_axis"] == ["t"] * 16 + ["h"] * 24 + ["w"] * 24 and doc["query"] == 3 + 2 * 6 + 3
    assert doc["score"][doc["query"]] == pytest.approx(1.0)
    rc, err = run(["data", "rope-frequencies", "--config", cfg, "--out", str(tmp_path / "f.json")])
    assert rc == 0, err
    freq = json.loads((tmp_path / "f.json").read_text())
    assert freq["mrope_section"] == [16, 24, 24] and freq["pair_axis"] == doc["pair_axis"]
    np.testing.assert_array_equal(freq["inv_freq"], model.frequencies()[0])
    rc, err = run(["data", "mrope-positions", "--config", str(shipped()["llama-3.1-8b"]),
                   "--out", str(tmp_path / "x.json")])
    assert rc == 2 and "no mrope_section" in err and len(err.strip().splitlines()) == 1
