"""The pose training's sample cache (vision/training/pose.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def test_the_sample_cache_counts_only_the_training_seeds_frames(tmp_path: Path) -> None:
    """Held-out renders written into the same folder later (seeds outside the range) do not make the
    cached training samples stale; a new training frame does."""
    from vision.training.pose import _frames_counted

    pose, shared = tmp_path / "pose", tmp_path / "shared"
    pose.mkdir()
    shared.mkdir()
    for name in ("30000_0", "30000_1", "30001_0"):
        (pose / f"{name}.json").write_text("{}")
    (shared / "10000.json").write_text("{}")
    sources = [(pose, range(30_000, 40_000)), (shared, range(10_000, 20_000))]
    assert _frames_counted(sources) == 4
    for name in ("901650_0", "901650_1"):
        (pose / f"{name}.json").write_text("{}")
    (shared / "900040.json").write_text("{}")
    assert _frames_counted(sources) == 4
    (pose / "30002_0.json").write_text("{}")
    assert _frames_counted(sources) == 5


def test_low_tilt_seeds_lean_on_walls_at_small_tilts_and_held_out_seeds_keep_the_v2_mix() -> None:
    """Seeds 30270-30999 (``LOW_TILT_SEEDS``): a die leaning on the rail, the bar or the other die is
    tilted 5-20 degrees, and the second die of a pair leans more often than in the v2 mix; the v2 mix
    (every held-out seed) still leans on walls at up to 45 degrees."""
    import random

    from rules.position import Side
    from vision.geometry import BoardLayout, BoardSpec, HomeEnd, LongSide, Seating
    from vision.sim.scene import place_checkers, random_position
    from vision.training.pose import LOW_MAX_TILT, LOW_TILT_SEEDS, MAX_TILT, MIN_TILT, pose_dice

    layout = BoardLayout(BoardSpec.tournament(), Seating(LongSide.NEAR, HomeEnd.RIGHT))
    assert 30_270 in LOW_TILT_SEEDS and 30_269 not in LOW_TILT_SEEDS and 901_750 not in LOW_TILT_SEEDS
    tilts: dict[bool, list[float]] = {True: [], False: []}
    leaning = {True: 0, False: 0}
    for low in (True, False):
        for seed in range(60):
            rng = random.Random(seed)
            checkers = place_checkers(layout, random_position(rng), rng, 1.0)
            for d in pose_dice(layout, rng, checkers, Side.WHITE, low_tilt=low):
                if d.cocked and d.leaning_on in ("rail", "bar", "die"):
                    tilts[low].append(d.tilt_deg)
                leaning[low] += bool(d.cocked)
    assert tilts[True] and all(MIN_TILT - 1e-6 <= t <= LOW_MAX_TILT + 1e-6 for t in tilts[True])
    assert max(tilts[False]) > LOW_MAX_TILT + 5 and max(tilts[False]) <= MAX_TILT + 1e-6
    assert leaning[True] > leaning[False]


def test_game_lean_seeds_lean_dice_as_a_played_game_does_and_other_seeds_keep_their_mix() -> None:
    """Seeds 32000-32999 (``GAME_LEAN_SEEDS``, session 15): each frame holds two pairs of dice in each table,
    a leaning die placed by the game's own ``_cocked_die`` (12-35 degrees against the rail, the bar or the
    other die; at most 40 on a checker's edge), on all four obstacles and on the other die's top, beside
    flat dice; a training seed outside the range (30000) and a held-out seed (904400) keep the v2 mix of
    two pairs, whose dice lean on a checker at 25-45 degrees; both mixes at once are refused."""
    import random

    import pytest

    from rules.position import Side
    from vision.geometry import BoardLayout, BoardSpec, HomeEnd, LongSide, Seating
    from vision.sim.scene import place_checkers, random_position, random_scene
    from vision.training.pose import GAME_LEAN_SEEDS, pose_dice, pose_scene

    assert 32_000 in GAME_LEAN_SEEDS and 32_999 in GAME_LEAN_SEEDS and 31_999 not in GAME_LEAN_SEEDS
    tilts: dict[str, list[float]] = {}
    flat = cocked = 0
    for i in range(40):
        scene, _ = pose_scene(random_scene(32_000 + i), 32_000 + i, 0)
        assert len(scene.dice) == 8
        for d in scene.dice:
            if d.cocked:
                tilts.setdefault(str(d.leaning_on), []).append(d.tilt_deg)
                cocked += 1
            else:
                flat += 1
    assert set(tilts) == {"checker", "rail", "bar", "die", "die_top"}
    for kind in ("rail", "bar", "die"):
        assert all(12.0 - 1e-6 <= t <= 35.0 + 1e-6 for t in tilts[kind]), (kind, tilts[kind])
    assert all(12.0 - 1e-6 <= t <= 40.0 + 1e-6 for t in tilts["checker"])
    assert min(tilts["checker"]) < 20.0  # the v2 mix never leans on a checker below 25 degrees
    assert all(t <= 6.0 + 1e-6 for t in tilts["die_top"])
    assert cocked >= 80 and flat >= 120  # ~3 leaning dice and ~5 flat ones a frame
    v2_checker = []
    for seed in (30_000, 904_400):
        for i in range(6):
            scene, _ = pose_scene(random_scene(seed), seed, i)
            assert len(scene.dice) == 4
            v2_checker += [d.tilt_deg for d in scene.dice if d.cocked and d.leaning_on == "checker"]
    layout = BoardLayout(BoardSpec.tournament(), Seating(LongSide.NEAR, HomeEnd.RIGHT))
    for seed in range(40):
        rng = random.Random(seed)
        checkers = place_checkers(layout, random_position(rng), rng, 1.0)
        v2_checker += [d.tilt_deg for d in pose_dice(layout, rng, checkers, Side.WHITE) if d.cocked and d.leaning_on == "checker"]
    assert v2_checker and min(v2_checker) > 24.0 and max(v2_checker) > 40.0
    rng = random.Random(0)
    with pytest.raises(ValueError, match="low_tilt and game_lean"):
        pose_dice(layout, rng, place_checkers(layout, random_position(rng), rng, 1.0), Side.WHITE, low_tilt=True, game_lean=True)


def test_tuning_may_leave_a_share_of_the_tuning_dice_beyond_a_threshold() -> None:
    """``tune(allow=...)``: with 10 flat dice and allow 0.1 the cocked threshold comes from the second
    highest P(leaning) + P(on die) (one outlier no longer sets it alone), raised by half its distance
    to 1; allow 0 keeps the highest; the flat threshold the same way from the cocked dice."""
    import pytest

    from vision.training.pose import tally, tune

    up = [0.9, 0.5, 0.3, 0.2, 0.1, 0.1, 0.05, 0.02, 0.01, 0.0]
    rows = [{"frame": "f", "label": 0, "at_found": [1 - u, u, 0.0], "hidden": False, "tilt": 0.0, "leaning_on": None} for u in up]
    rows += [{"frame": "f", "label": 1, "at_found": [f, 1 - f, 0.0], "hidden": False, "tilt": 20.0, "leaning_on": "rail"} for f in (0.8, 0.1, 0.0)]
    assert tune(rows)["leaning_min_probability"] == pytest.approx(0.95)
    assert tune(rows, allow=0.1)["leaning_min_probability"] == pytest.approx(0.75)
    assert tune(rows)["flat_min_probability"] == pytest.approx(0.9)
    assert tune(rows, allow=0.34)["flat_min_probability"] == pytest.approx(0.55)
    t = tally(rows, tune(rows, allow=0.1))
    assert (t["flat_called_cocked"], t["cocked_found"]) == (1, 2)


def test_the_tally_counts_leaning_dice_by_tilt_band() -> None:
    """``tally``'s tilt bands: 5-10 degrees in 0-10, 44 in 30-45 (the last band takes steeper ones too),
    a die on the other die apart; each band's n = found + unsure + called flat."""
    from vision.training.pose import tally

    th = {"leaning_min_probability": 0.9, "on_die_call_min_probability": 0.9, "flat_min_probability": 0.9,
          "on_die_min_probability": 0.5}
    rows = [{"frame": "f", "label": 1, "at_found": [0.0, 1.0, 0.0], "hidden": False, "tilt": 7.0, "leaning_on": "rail"},
            {"frame": "f", "label": 1, "at_found": [0.5, 0.5, 0.0], "hidden": False, "tilt": 12.0, "leaning_on": "bar"},
            {"frame": "f", "label": 1, "at_found": [0.95, 0.05, 0.0], "hidden": False, "tilt": 44.0, "leaning_on": "checker"},
            {"frame": "f", "label": 1, "at_found": [0.0, 1.0, 0.0], "hidden": False, "tilt": 50.0, "leaning_on": "checker"},
            {"frame": "f", "label": 2, "at_found": [0.0, 0.0, 1.0], "hidden": False, "tilt": 2.0, "leaning_on": "die_top"}]
    bands = tally(rows, th)["cocked_by_tilt_n_found_unsure_flat"]
    assert bands == {"0-10deg": [1, 1, 0, 0], "10-15deg": [1, 0, 1, 0], "30-45deg": [2, 1, 0, 1], "on die": [1, 1, 0, 0]}
    assert list(bands) == ["0-10deg", "10-15deg", "30-45deg", "on die"]


def test_a_fine_tune_starts_from_the_exported_head_with_its_batch_norms_folded(tmp_path: Path) -> None:
    """``load_decide`` (``train --base``): a torch copy of an exported deciding head whose batch norms the
    export folded into the convolutions gives the ONNX file's logits (so a fine-tune starts exactly from
    the committed head, its batch norms frozen); a file of another shape is refused, naming it."""
    import numpy as np
    import pytest

    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from torch import nn

    from vision.dice.pose import POSE_PATCH, POSE_PLANES
    from vision.preprocess import onnx_session
    from vision.training.fit import export_onnx
    from vision.training.pose import load_decide, make_pose

    torch.manual_seed(3)
    model = make_pose(nn, len(POSE_PLANES) + 1)
    for m in model:
        if isinstance(m, nn.BatchNorm2d):  # batch norms far from identity: folding them must matter
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.3, 0.3)
    model.eval()
    path = tmp_path / "decide.onnx"
    export_onnx(model, torch.zeros(1, len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH), path, input_name="planes")
    x = np.random.default_rng(0).normal(size=(5, len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH)).astype(np.float32)
    want = onnx_session(path).run(None, {"planes": x})[0]
    copy = load_decide(path).eval()
    assert not any(isinstance(m, nn.BatchNorm2d) for m in copy)
    with torch.no_grad():
        got = copy(torch.from_numpy(x)).numpy()
        plain = make_pose(nn, len(POSE_PLANES) + 1).eval()(torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 1e-4
    assert np.abs(plain - want).max() > 1e-2  # an unloaded net would not pass
    other = tmp_path / "other.onnx"
    export_onnx(nn.Sequential(nn.Flatten(), nn.Linear(len(POSE_PLANES) + 1, 3)).eval(),
                torch.zeros(1, len(POSE_PLANES) + 1, 1, 1), other, input_name="planes")
    with pytest.raises(ValueError, match=r"other\.onnx"):
        load_decide(other)


def test_training_can_leave_out_the_shallow_leans() -> None:
    """``train(min_cocked_tilt=15)``: leaning dice under 15 degrees (walls the renders lean on at 5-15
    degrees, where a real die slides flat) are dropped; flat and on-die samples at tilt 0 and steeper
    leans stay, in order."""
    import numpy as np

    from vision.dice.pose import COCKED, FLAT, ON_DIE
    from vision.training.pose import without_low_leans

    y = np.array([FLAT, COCKED, COCKED, ON_DIE, COCKED, FLAT])
    tilt = np.array([0.0, 5.0, 15.0, 0.0, 14.9, 0.0], np.float32)
    data = {"x": np.arange(6)[:, None], "y": y, "tilt": tilt, "seed": np.arange(10, 16), "n_frames": np.array(3)}
    out = without_low_leans(data, 15.0)
    assert out["y"].tolist() == [FLAT, COCKED, ON_DIE, FLAT]
    assert out["seed"].tolist() == [10, 12, 13, 15]
    assert out["x"][:, 0].tolist() == [0, 2, 3, 5]
    assert int(out["n_frames"]) == 3
    assert without_low_leans(data, 0.0)["y"].tolist() == y.tolist()


def test_a_fine_tune_can_start_from_the_committed_two_head_file() -> None:
    """``load_decide`` of the committed two-head ``die_pose.onnx`` (``train --base vision/models/die_pose.onnx``)
    copies its deciding head (the layers before the face-check head's): the copy gives the file's
    ``logits``, not the face-check head's."""
    import numpy as np
    import pytest

    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from vision.dice.pose import DIE_POSE_MODEL, GATE_OUTPUT, POSE_PATCH, POSE_PLANES
    from vision.preprocess import onnx_session
    from vision.training.pose import load_decide

    x = np.random.default_rng(1).normal(size=(4, len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH)).astype(np.float32)
    sess = onnx_session(DIE_POSE_MODEL)
    want, gate = sess.run(["logits", GATE_OUTPUT], {sess.get_inputs()[0].name: x})
    with torch.no_grad():
        got = load_decide(DIE_POSE_MODEL).eval()(torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 1e-3
    assert np.abs(got - gate).max() > 1e-2


def test_hard_flat_negatives_are_the_flat_patches_the_head_reads_cocked() -> None:
    """``train --hard-flat B``: a flat training patch the starting head reads P(leaning) + P(on die) >= 0.5
    is drawn 1 + B times as often; other flat patches and every cocked or on-die patch once."""
    import numpy as np

    from vision.dice.pose import DIE_POSE_MODEL, POSE_PATCH, POSE_PLANES
    from vision.preprocess import onnx_session, softmax
    from vision.training.pose import HARD_FLAT_UP, hard_flat_weights

    rng = np.random.default_rng(2)
    x = rng.normal(size=(600, len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH)).astype(np.float32)
    x[:, -1] = rng.uniform(0, 1, size=(600, 1, 1))
    y = rng.integers(0, 3, size=600)
    sess = onnx_session(DIE_POSE_MODEL)
    p = softmax(np.asarray(sess.run(["logits"], {sess.get_inputs()[0].name: x})[0], np.float32))
    up = p[:, 1] + p[:, 2]
    w = hard_flat_weights(DIE_POSE_MODEL, x, y, 4.0)
    hard = (y == 0) & (up >= HARD_FLAT_UP)
    assert hard.any() and ((y == 0) & ~hard).any() and ((y != 0) & (up >= HARD_FLAT_UP)).any()
    assert np.array_equal(w, np.where(hard, 5.0, 1.0))


def test_an_averaged_head_lies_between_its_two_heads(tmp_path: Path) -> None:
    """``average A B --alpha W``: every exported weight is (1 - W) x A's + W x B's (W = 0 gives A's
    logits), two-head files are read by their deciding head, and a W outside 0-1 is refused."""
    import numpy as np
    import pytest

    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from torch import nn

    from vision.dice.pose import DIE_POSE_MODEL, POSE_PATCH, POSE_PLANES
    from vision.preprocess import onnx_session
    from vision.training.fit import export_onnx, exported_layers
    from vision.training.pose import average_heads, make_pose

    torch.manual_seed(5)
    b = make_pose(nn, len(POSE_PLANES) + 1)
    for m in b:
        if isinstance(m, nn.BatchNorm2d):  # a trained head's batch norms (each folded into a conv bias)
            m.running_mean.uniform_(-0.5, 0.5)
            m.bias.data.uniform_(-0.3, 0.3)
    other = tmp_path / "b.onnx"
    export_onnx(b.eval(), torch.zeros(1, len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH), other, input_name="planes")
    out = tmp_path / "avg.onnx"
    average_heads(DIE_POSE_MODEL, other, 0.3, out)
    la, lb, lo = exported_layers(DIE_POSE_MODEL)[:6], exported_layers(other), exported_layers(out)
    assert len(lo) == 6
    for (_, wa, ba), (_, wb, bb), (_, wo, bo) in zip(la, lb, lo, strict=True):
        assert np.allclose(wo, 0.7 * wa + 0.3 * wb, atol=1e-5) and np.allclose(bo, 0.7 * ba + 0.3 * bb, atol=1e-5)
    average_heads(DIE_POSE_MODEL, other, 0.0, out)
    x = np.random.default_rng(4).normal(size=(3, len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH)).astype(np.float32)
    committed = onnx_session(DIE_POSE_MODEL)
    want = committed.run(["logits"], {committed.get_inputs()[0].name: x})[0]
    assert np.abs(onnx_session(out).run(None, {"planes": x})[0] - want).max() < 1e-3
    with pytest.raises(ValueError, match=r"alpha 1\.5"):
        average_heads(DIE_POSE_MODEL, other, 1.5, out)


def _tiny_pose_data(n: int = 60) -> dict[str, Any]:
    import numpy as np

    from vision.dice.pose import POSE_PATCH, POSE_PLANES

    rng = np.random.default_rng(5)
    return {"x": rng.integers(0, 256, size=(n, len(POSE_PLANES), POSE_PATCH, POSE_PATCH), dtype=np.uint8),
            "view": rng.uniform(0.1, 1.0, size=n).astype(np.float32), "y": rng.integers(0, 3, size=n),
            "tilt": np.zeros(n, np.float32), "seed": np.arange(30_000, 30_000 + n), "n_frames": np.array(n)}


def test_a_fine_tunes_log_reads_the_base_head_without_a_nan_loss_and_a_nan_loss_stops_training(tmp_path: Path, monkeypatch: Any) -> None:
    """``train --base`` logs the base head's validation accuracy on its own line (session 12's chain.log
    read "epoch 0/6 loss nan": a placeholder loss printed as if an epoch had diverged), every epoch line
    carries a finite loss; a patch whose view is NaN makes the loss NaN and training stops with a
    FloatingPointError naming the epoch instead of exporting a broken head."""
    import pytest

    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import vision.training.pose as tp
    from vision.dice.pose import DIE_POSE_MODEL

    base = DIE_POSE_MODEL  # the committed two-head file, as session 12's fine-tune started from
    data = _tiny_pose_data()
    monkeypatch.setattr(tp, "training_sources", lambda *a, **k: [])
    monkeypatch.setattr(tp, "pose_samples", lambda *a, **k: dict(data))
    lines: list[str] = []
    tp.train(tmp_path / "ft.onnx", epochs=2, base=base, lr=1e-4, log=lines.append)
    assert not any("nan" in ln.lower() for ln in lines), lines
    assert any(ln.startswith("base head") and "val acc" in ln for ln in lines), lines
    assert [ln.split()[1] for ln in lines if ln.startswith("epoch")] == ["1/2", "2/2"]
    assert (tmp_path / "ft.onnx").is_file()
    bad = dict(data)
    bad["view"] = data["view"].copy()
    bad["view"][3] = float("nan")
    monkeypatch.setattr(tp, "pose_samples", lambda *a, **k: dict(bad))
    with pytest.raises(FloatingPointError, match=r"epoch 1/2"):
        tp.train(tmp_path / "bad.onnx", epochs=2, base=base, lr=1e-4, log=lines.append)
    assert not (tmp_path / "bad.onnx").exists()
