"""The two-head pose model (vision/dice/pose.py, ``python -m vision.training.pose merge``): the deciding
head's calls, the face-check head's P(flat) for ``face_needed``, and the merged ONNX file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.dice.config import DiceConfig
from vision.dice.pose import PoseGuess, pose_call


def test_the_face_check_gets_the_gate_heads_p_flat() -> None:
    """A two-head guess: the calls follow the deciding head, the fourth value (``face_needed``'s P(flat))
    is the face-check head's, so a die the deciding head thinks flat but the face check's head does not
    keeps the strict face limit."""
    d = DiceConfig(leaning_min_probability=0.99, on_die_call_min_probability=0.99, flat_min_probability=0.99)
    g = PoseGuess(0.995, 0.004, 0.001, (0.08, 0.9, 0.02))
    assert g.face_flat == 0.08 and PoseGuess(0.995, 0.004, 0.001).face_flat == 0.995
    assert pose_call(g, d) == (False, 0.995, False, 0.08)
    assert pose_call(PoseGuess(0.001, 0.998, 0.001, (0.4, 0.5, 0.1)), d) == (True, 0.999, False, 0.4)
    assert pose_call(PoseGuess(0.5, 0.4, 0.1, (0.97, 0.02, 0.01)), d) == (None, 0.5, False, 0.97)


def _tiny(onnx: Any, planes: int, scale: float, path: Path) -> None:
    """A stand-in pose model: global mean of each plane, times a fixed (planes x 3) matrix."""
    from onnx import TensorProto, helper

    w = (np.arange(planes * 3, dtype=np.float32).reshape(planes, 3) - planes) * scale
    nodes = [helper.make_node("GlobalAveragePool", ["planes"], ["pool"], name="pool"),
             helper.make_node("Flatten", ["pool"], ["flat"], name="flatten"),
             helper.make_node("MatMul", ["flat", "w"], ["logits"], name="mm")]
    graph = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("planes", TensorProto.FLOAT, ["n", planes, 48, 48])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 3])],
                              [helper.make_tensor("w", TensorProto.FLOAT, list(w.shape), w.ravel().tolist())])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))


def test_merged_file_runs_both_models_on_one_input(tmp_path: Path) -> None:
    """``merge_heads``: the deciding model reads the whole 6-plane input, the face-check (v2) model its
    channels 1-4 (the planes 0.5-2 edges), with the same outputs as each file alone; the classifier
    reads both heads from it; a file of the wrong width is refused, naming it."""
    onnx = pytest.importorskip("onnx")
    import onnxruntime as ort

    from vision.dice.pose import GATE_OUTPUT, PoseClassifier, PosePatch
    from vision.training.pose import merge_heads

    _tiny(onnx, 6, 0.3, tmp_path / "d.onnx")
    _tiny(onnx, 4, -0.7, tmp_path / "g.onnx")
    merge_heads(tmp_path / "d.onnx", tmp_path / "g.onnx", tmp_path / "two.onnx")
    x = np.random.default_rng(3).normal(size=(3, 6, 48, 48)).astype(np.float32)
    both = ort.InferenceSession(str(tmp_path / "two.onnx")).run(None, {"planes": x})
    assert [o.name for o in ort.InferenceSession(str(tmp_path / "two.onnx")).get_outputs()] == ["logits", GATE_OUTPUT]
    alone_d = ort.InferenceSession(str(tmp_path / "d.onnx")).run(None, {"planes": x})[0]
    alone_g = ort.InferenceSession(str(tmp_path / "g.onnx")).run(None, {"planes": x[:, 1:5]})[0]
    assert np.allclose(both[0], alone_d) and np.allclose(both[1], alone_g)
    clf = PoseClassifier(tmp_path / "two.onnx")
    rng = np.random.default_rng(4)
    guesses = clf.classify([PosePatch(rng.integers(0, 255, (5, 48, 48), dtype=np.uint8), 0.4) for _ in range(2)])
    assert clf.two_heads and all(g.gate is not None and sum(g.gate) == pytest.approx(1.0) for g in guesses)
    assert not PoseClassifier(tmp_path / "d.onnx").two_heads
    with pytest.raises(ValueError, match=r"g\.onnx"):
        merge_heads(tmp_path / "g.onnx", tmp_path / "g.onnx", tmp_path / "bad.onnx")


def test_the_committed_model_has_both_heads() -> None:
    """die_pose.onnx: the deciding head and the face-check head (whose P(flat) ``face_needed`` was tuned
    on) from one run; ``pose_call``'s fourth value is the face-check head's P(flat)."""
    from vision.dice.pose import DIE_POSE_MODEL, PoseClassifier, PosePatch

    clf = PoseClassifier(DIE_POSE_MODEL)
    assert clf.two_heads
    rng = np.random.default_rng(5)
    gs = clf.classify([PosePatch(rng.integers(0, 255, (5, 48, 48), dtype=np.uint8), 0.3) for _ in range(3)])
    for g in gs:
        assert g.gate is not None and pose_call(g, DiceConfig())[3] == g.gate[0]


def test_a_die_that_may_be_cocked_is_read_in_its_mirror_image_too(tmp_path: Path) -> None:
    """The deciding head's P(flat) below ``MIRROR_BELOW_FLAT``: the mean of the patch's and its mirror
    image's probabilities (the face-check head's stays the patch's own); above it: the patch's alone."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    from vision.dice.pose import MIRROR_BELOW_FLAT, PoseClassifier, PosePatch, pose_input
    from vision.preprocess import softmax
    from vision.training.pose import merge_heads

    rng = np.random.default_rng(6)
    w = rng.normal(0, 0.05, (6 * 48 * 48, 3)).astype(np.float32)
    nodes = [helper.make_node("Flatten", ["planes"], ["flat"], name="flatten"), helper.make_node("MatMul", ["flat", "w"], ["logits"], name="mm")]
    graph = helper.make_graph(nodes, "lin", [helper.make_tensor_value_info("planes", TensorProto.FLOAT, ["n", 6, 48, 48])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 3])],
                              [helper.make_tensor("w", TensorProto.FLOAT, list(w.shape), w.ravel().tolist())])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "d.onnx"))
    _tiny(onnx, 4, -0.7, tmp_path / "g.onnx")
    merge_heads(tmp_path / "d.onnx", tmp_path / "g.onnx", tmp_path / "two.onnx")
    patches = [PosePatch(rng.integers(0, 255, (5, 48, 48), dtype=np.uint8), 0.2) for _ in range(12)]
    x = np.stack([pose_input(p) for p in patches])
    own = softmax(x.reshape(len(x), -1) @ w)
    mirror = softmax(x[..., ::-1].reshape(len(x), -1) @ w)
    guesses = PoseClassifier(tmp_path / "two.onnx").classify(patches)
    again = own[:, 0] < MIRROR_BELOW_FLAT
    assert again.any() and (~again).any()
    for g, o, mi, a in zip(guesses, own, mirror, again, strict=True):
        want = (o + mi) / 2 if a else o
        assert [g.flat, g.cocked, g.on_die] == pytest.approx(list(want), abs=1e-5)


def test_pose_inputs_batch_and_histogram_order_statistics_match_the_plain_normalisation() -> None:
    """``normalise_pose`` on uint8 planes (order statistics from histograms) gives exactly the numbers of
    the sort-based path on the same values as floats, and ``pose_inputs`` of a batch those of
    ``pose_input`` one patch at a time (training and inference share them)."""
    from vision.dice.pose import (
        POSE_PATCH,
        POSE_PLANES,
        VIEW_SCALE,
        PosePatch,
        normalise_pose,
        pose_input,
        pose_inputs,
    )

    rng = np.random.default_rng(3)
    patches = []
    for i in range(5):
        p = rng.integers(0, 256, (len(POSE_PLANES), POSE_PATCH, POSE_PATCH)).astype(np.uint8)
        p[:, :20] = 40 + 10 * i  # many ties, as on a flat board
        patches.append(PosePatch(p, 0.1 * i))
        want = normalise_pose(p.astype(np.float32))
        assert np.array_equal(normalise_pose(p), want)
    batch = pose_inputs(patches)
    assert batch.shape == (5, len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH) and batch.dtype == np.float32
    for b, p in zip(batch, patches, strict=True):
        assert np.array_equal(b, pose_input(p)) and np.all(b[-1] == np.float32(VIEW_SCALE * p.view))
