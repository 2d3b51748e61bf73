"""Training helpers of the checker models: which slots a fine-tune draws more often, and a tray model
started from exported weights computes what the exported model computes."""

from __future__ import annotations

import numpy as np
import pytest

from vision.checkers import TRAY_MODEL, TraySampler
from vision.training.slots import full_row_slots

from .test_checkers import LAYOUT, SLOTS


def test_full_row_slots_are_the_slots_of_points_holding_a_full_row() -> None:
    cap = LAYOUT.spec.row_capacity
    points = [[0, 0] for _ in range(24)]
    points[2] = [cap, 0]  # a full row of white on point 3
    points[9] = [0, cap + 1]  # a second layer of black on point 10
    points[15] = [cap - 1, 0]  # one short of a full row: not drawn more often
    full = full_row_slots(LAYOUT, points)
    assert full.shape == (len(SLOTS),) and full.dtype == bool
    want = {i for i, s in enumerate(SLOTS) if s.region in ("p3", "p10")}
    assert set(np.flatnonzero(full).tolist()) == want
    assert len(want) == 2 * cap
    assert not any(full[i] for i, s in enumerate(SLOTS) if s.region == "bar")


def test_a_tray_fine_tune_starts_from_the_exported_model() -> None:
    """``load_tray_weights`` puts the committed tray model's weights (batch norms folded into the
    convolutions) into ``tray_net``: the same logits; with ``frozen_bn`` its batch norms stay in eval
    mode while training."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from vision.checkers import TrayClassifier
    from vision.training.trays import load_tray_weights, tray_net

    torch.set_num_threads(1)
    net = tray_net()
    load_tray_weights(net, TRAY_MODEL)
    net.eval()
    x = np.random.default_rng(3).integers(0, 256, (2, *TraySampler.SHAPE), dtype=np.uint8)
    want = TrayClassifier().logits(x)
    with torch.no_grad():
        got = net(torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 1e-3 * max(1.0, float(np.abs(want).max()))
    net.frozen_bn = True
    net.train()
    assert not any(m.training for m in net.body if isinstance(m, torch.nn.BatchNorm2d))
    assert any(m.training for m in net.body if isinstance(m, torch.nn.Dropout))


def test_a_slot_fine_tune_starts_from_the_exported_model() -> None:
    """``load_onnx_weights`` puts the committed slot model's weights into ``slot_net``: the same logits
    as onnxruntime computes from the file."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import onnxruntime as ort

    from vision.checkers import SLOT_MODEL
    from vision.training.slots import load_onnx_weights, slot_net

    torch.set_num_threads(1)
    net = slot_net()
    load_onnx_weights(net, SLOT_MODEL)
    net.eval()
    session = ort.InferenceSession(str(SLOT_MODEL), providers=["CPUExecutionProvider"])
    inp = session.get_inputs()[0]
    x = np.random.default_rng(5).integers(0, 256, (3, *inp.shape[1:]), dtype=np.uint8)
    want = session.run(None, {inp.name: x if "uint8" in inp.type else x.astype(np.float32)})[0]
    with torch.no_grad():
        got = net(torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 1e-3 * max(1.0, float(np.abs(want).max()))


def test_a_stack_fine_tune_names_its_scene_seeds_and_refuses_bad_ones(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``--seeds A-B`` of the stack trainer: both ends included; anything else is refused naming what was
    given; seeds with no cached frame are refused naming the seeds and how to render them."""
    pytest.importorskip("torch")
    from vision.training import stacks

    assert stacks.seed_range("15110-15259") == range(15110, 15260)
    for bad in ("15110", "15259-15110", "a-b", "1-2-3"):
        with pytest.raises(ValueError, match="A-B"):
            stacks.seed_range(bad)
    monkeypatch.setattr(stacks, "all_frames", lambda: [])
    with pytest.raises(ValueError, match=r"15110-15259.*render"):
        stacks.train(tmp_path / "m.onnx", seeds=range(15110, 15260))
    assert not (tmp_path / "m.onnx").exists()
    with pytest.raises(SystemExit):
        stacks.main(["render", "900000", "900010"])  # evaluation seeds are never training renders


def test_a_render_enters_the_cache_whole(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``write_frame`` writes the PNG and the truth under temporary names (which no cache glob matches)
    and renames them: while it writes, the final files do not exist yet; afterwards they read back and
    no temporary file is left; an image it cannot encode is refused naming the file, leaving nothing."""
    import json

    import cv2

    from vision.training import rendered as rd

    png, js = tmp_path / "900079.png", tmp_path / "900079.json"
    img = np.random.default_rng(1).integers(0, 256, (36, 64, 3), dtype=np.uint8)
    seen: list[tuple[bool, list[str]]] = []
    real_write = type(png).write_bytes

    def spy(self, data):  # type: ignore[no-untyped-def]
        seen.append((png.exists(), sorted(p.name for p in tmp_path.glob("*.png")) + sorted(p.name for p in tmp_path.glob("*.json"))))
        return real_write(self, data)

    monkeypatch.setattr(type(png), "write_bytes", spy)
    rd.write_frame(png, js, img, {"seed": 900079})
    assert seen == [(False, [])]
    assert np.array_equal(cv2.imread(str(png)), img) and json.loads(js.read_text()) == {"seed": 900079}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["900079.json", "900079.png"]
    with pytest.raises(OSError, match=r"900080\.png"):
        rd.write_frame(tmp_path / "900080.png", tmp_path / "900080.json", np.zeros((0, 0, 3), np.uint8), {})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["900079.json", "900079.png"]
