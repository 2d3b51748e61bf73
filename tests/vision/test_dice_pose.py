"""Flat / cocked / on the other die (vision/dice/pose.py, vision/training/pose.py)."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest

from vision.dice.pose import POSE_PATCH, POSE_PLANES, POSE_SPAN


def _layout() -> Any:
    from vision.geometry import BoardLayout, BoardSpec, HomeEnd, LongSide, Seating

    return BoardLayout(BoardSpec.tournament(), Seating(LongSide.NEAR, HomeEnd.RIGHT))


def _corners(die: Any) -> np.ndarray:
    from vision.sim.scene import mat

    a = die.size / 2
    r = mat(die.rot)
    return np.array([np.asarray(die.center) + r @ np.array([x, y, z]) for x in (-a, a) for y in (-a, a) for z in (-a, a)])


@pytest.mark.parametrize("mode", ["rail", "bar", "die", "checker"])
def test_a_leaning_die_stands_on_the_surface_at_its_tilt(mode: str) -> None:
    """The training renders' leaning dice: lowest corner on the surface, the up face's normal tilted by
    ``tilt_deg``, clear of the rail / bar wall it leans on; tilt 0 lies flat against the obstacle."""
    from vision.geometry import Area
    from vision.sim.scene import DieStyle, mat, place_checkers, random_position
    from vision.training.pose import leaning_die, pose_dice

    layout = _layout()
    for seed in range(6):
        rng = random.Random(seed)
        checkers = place_checkers(layout, random_position(rng), rng, 1.0)
        other = pose_dice(layout, rng, checkers, __import__("rules.position").position.Side.WHITE)[0]
        area = Area.RIGHT_TABLE if layout.table_rect(Area.RIGHT_TABLE).contains(*other.center[:2]) else Area.LEFT_TABLE
        for tilt in (0.0, None):
            d = leaning_die(layout, 3, rng, area=area, style=DieStyle.WHITE_BLACK_PIPS, size=16.0, checkers=checkers,
                            mode=mode, other=other, owner=None, tilt=tilt)
            c = _corners(d)
            assert abs(c[:, 2].min()) < 1e-6, (mode, seed, c[:, 2].min())
            up = mat(d.rot) @ np.array([0.0, 0.0, 1.0])
            normal_tilt = math.degrees(math.acos(max(abs(float(v)) for v in (mat(d.rot) @ np.eye(3))[2])))
            assert abs(normal_tilt - d.tilt_deg) < 1e-3, (mode, seed, normal_tilt, d.tilt_deg, up)
            if tilt == 0.0:
                assert not d.cocked and abs(d.center[2] - 8.0) < 1e-6
            else:
                assert d.cocked and 5.0 <= d.tilt_deg <= 45.0 + 1e-6, (mode, seed, d.tilt_deg)
            if mode in ("rail", "bar"):
                f, b = layout.field(), layout.bar_region()
                x, y = c[:, 0], c[:, 1]
                if mode == "rail":
                    assert y.min() >= f.y0 - 1e-6 and y.max() <= f.y1 + 1e-6
                else:
                    assert x.max() <= b.x0 + 1e-6 or x.min() >= b.x1 - 1e-6


def test_pose_patch_rectifies_a_flat_top_face_to_a_centred_square_of_its_edge() -> None:
    """On the plane z = one edge a flat die's top face is a square of the die's edge around its centre,
    whatever the camera's tilt: 16 px per edge at the patch's scale; the view is the line of sight's
    slope at the die (the camera is 30-40 degrees off vertical at the board's centre)."""
    from vision.dice.pose import VIEW_SCALE, pose_input, pose_patch, pose_patches
    from vision.preprocess import to_gray
    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth
    from vision.training.rendered import profile_for

    cfg = SimConfig().with_overrides(hands_p=0.0, cup_p=0.0, cocked_p=0.0, on_die_p=0.0, tilt_deg=(30.0, 40.0))
    scene = random_scene(901998, cfg, width=1280, height=720)
    img, info = render(scene)
    truth = build_truth(scene, info)
    prof = profile_for(truth)
    gray = to_gray(img)
    px = POSE_PATCH / POSE_SPAN  # pixels per edge
    centres = [tuple(d["center_mm"][:2]) for d in truth["dice"]]
    batch = pose_patches(gray, prof, centres, 16.5)  # one projection for all: the same as one by one
    assert len(batch) == len(centres) >= 2
    for c, b in zip(centres, batch, strict=True):
        one = pose_patch(gray, prof, c, 16.5)
        assert one.view == pytest.approx(b.view) and np.abs(one.planes.astype(int) - b.planes.astype(int)).max() <= 1
    assert pose_patches(gray, prof, [], 16.5) == []
    for die in truth["dice"]:
        edge = die["size_mm"]
        pp = pose_patch(gray, prof, tuple(die["center_mm"][:2]), edge)
        p = pp.planes
        assert p.shape == (len(POSE_PLANES), POSE_PATCH, POSE_PATCH) and p.dtype == np.uint8
        assert math.tan(math.radians(15)) < pp.view < math.tan(math.radians(55)), pp.view
        x = pose_input(pp)
        assert x.shape == (len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH) and x.dtype == np.float32
        assert np.all(x[-1] == np.float32(VIEW_SCALE * pp.view))
        top = p[POSE_PLANES.index(1.0)].astype(np.float32)
        body = "white" if die["style"] in ("white", "ivory") else "dark"
        m = top if body == "white" else 255 - top
        inner = m[int(POSE_PATCH / 2 - 0.3 * px): int(POSE_PATCH / 2 + 0.3 * px) + 1,
                  int(POSE_PATCH / 2 - 0.3 * px): int(POSE_PATCH / 2 + 0.3 * px) + 1]
        ring = np.concatenate([m[:, : int(POSE_PATCH / 2 - 0.75 * px)].ravel(), m[:, int(POSE_PATCH / 2 + 0.75 * px):].ravel()])
        if die["style"] in ("white", "ivory", "black"):
            assert np.median(inner) > np.median(ring) + 20, (die["style"], np.median(inner), np.median(ring))


def test_calls_and_threshold_tuning() -> None:
    """Leaning and on-the-other-die evidence each have their own threshold: an on-die outlier among the
    flat dice of the tuning slice raises only the on-die threshold, and the leaning dice stay callable."""
    from vision.dice.config import DiceConfig
    from vision.dice.pose import PoseGuess, pose_call
    from vision.training.pose import call, config_thresholds, tally, tune

    th = {"leaning_min_probability": 0.99, "on_die_call_min_probability": 0.999, "flat_min_probability": 0.99,
          "on_die_min_probability": 0.5}
    assert call([0.001, 0.998, 0.001], th) is True
    assert call([0.001, 0.009, 0.99], th) is None  # P(on die) below its own threshold (split: no sum test)
    assert call([0.001, 0.009, 0.99], th | {"on_die_call_min_probability": 0.99}) is True  # pooled: the sum reaches it
    assert call([0.0, 0.0005, 0.9995], th) is True
    assert call([0.995, 0.004, 0.001], th) is False
    assert call([0.5, 0.4, 0.1], th) is None
    d = DiceConfig(leaning_min_probability=0.99, on_die_call_min_probability=0.999, flat_min_probability=0.99)
    assert pose_call(PoseGuess(0.0, 0.0005, 0.9995), d) == (True, 1.0, True, 0.0)
    assert set(config_thresholds(DiceConfig())) == set(th)
    rows = [{"label": 0, "at_found": [0.99, 0.009, 0.001], "hidden": False, "tilt": 0.0, "leaning_on": None},
            {"label": 0, "at_found": [0.01, 0.01, 0.98], "hidden": False, "tilt": 0.0, "leaning_on": None},
            {"label": 1, "at_found": [0.02, 0.97, 0.01], "hidden": False, "tilt": 20.0, "leaning_on": "rail"},
            {"label": 2, "at_found": [0.001, 0.1, 0.899], "hidden": False, "tilt": 2.0, "leaning_on": "die_top"},
            {"label": 2, "at_found": [0.0, 0.001, 0.999], "hidden": False, "tilt": 2.0, "leaning_on": "die_top"},
            {"label": 1, "at_found": None, "hidden": False, "tilt": 30.0, "leaning_on": "bar"},  # the die stage missed it
            {"label": 1, "at_found": None, "hidden": True, "tilt": 0.0, "leaning_on": None}]  # under the other die
    pooled = tune(rows)  # one threshold from the flat dice's P(leaning) + P(on die): 0.99 -> 0.995
    assert pooled["leaning_min_probability"] == pooled["on_die_call_min_probability"] == pytest.approx(0.995)
    tp = tally(rows, pooled)
    assert (tp["flat_called_cocked"], tp["cocked_flat"], tp["cocked_found"], tp["cocked_unsure"]) == (0, 0, 2, 1)
    assert (tp["cocked_n"], tp["cocked_not_found"], tp["flat_not_found"]) == (3, 1, 0)
    assert tp["cocked_recall"] == pytest.approx(2 / 3, abs=1e-4) and tp["cocked_recall_of_all"] == pytest.approx(2 / 4)
    tu = tune(rows, pooled=False)
    assert tu["leaning_min_probability"] == pytest.approx(0.505) and tu["on_die_call_min_probability"] == pytest.approx(0.99)
    assert 0.02 < tu["flat_min_probability"] <= 0.99
    t = tally(rows, tu)
    assert (t["flat_called_cocked"], t["cocked_flat"], t["cocked_found"], t["on_die_found"]) == (0, 0, 2, 1)
    assert t["cocked_unsure"] == 1  # the on-die die at 0.899: below the flat die's 0.98


@pytest.fixture(scope="module")
def pose_frames() -> list[tuple[Any, Any, dict[str, Any]]]:
    """Four pose frames (two pairs of dice each, many cocked) of a held-out seed, rendered here."""
    from vision.sim.render import Sensor, render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth
    from vision.training.pose import pose_scene
    from vision.training.rendered import profile_for

    base = random_scene(901999, width=1280, height=720)
    out = []
    for i in range(4):
        scene, noise = pose_scene(base, 901999, i)
        img, info = render(scene, sensor=Sensor(noise))
        truth = build_truth(scene, info)
        out.append((img, profile_for(truth), truth))
    return out


def test_pose_of_on_rendered_dice(pose_frames: list[tuple[Any, Any, dict[str, Any]]]) -> None:
    """At the up face's centre: no flat die called cocked, no cocked die called flat, and some dice
    decided (held-out rates: see ``DiceConfig.leaning_min_probability`` and die_pose.train.json)."""
    from vision.dice.board import pose_of
    from vision.preprocess import to_gray
    from vision.training.pose import hidden_under, pose_centres

    flat = cocked = decided = 0
    for img, prof, truth in pose_frames:
        dmin, dmax = prof.spec.die_size_mm
        dice = [d for i, d in enumerate(truth["dice"]) if i not in hidden_under(truth["dice"])]
        centres = [pose_centres(d, prof, (dmin + dmax) / 2)[1] for d in dice]
        for die, (c, conf, on_die, p_flat) in zip(dice, pose_of(to_gray(img), prof, centres), strict=True):
            assert 0.0 <= p_flat <= 1.0 and 0.0 <= conf <= 1.0
            if die["cocked"]:
                cocked += 1
                assert c is not False, (truth["seed"], die)
                decided += c is True
                if die["on_die"] and c:
                    assert on_die
            else:
                flat += 1
                assert c is not True and not on_die, (truth["seed"], die)
                decided += c is False
    assert cocked >= 3 and flat >= 6
    assert decided >= 2, (decided, flat, cocked)
