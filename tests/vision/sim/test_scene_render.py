"""The simulator: still scenes, their truth, determinism."""

from __future__ import annotations

import dataclasses
import json
import random

import cv2
import numpy as np
import pytest

from rules.position import Position, Side
from vision.geometry import Area
from vision.sim.config import SimConfig
from vision.sim.render import render
from vision.sim.scene import (
    DIE_AXES,
    DieStyle,
    face_up,
    mat,
    place_dice,
    random_scene,
)
from vision.sim.textures import die_face
from vision.sim.truth import Truth, build_truth, truth_to_observation

W, H = 640, 480


@pytest.fixture(scope="module")
def still() -> tuple[np.ndarray, dict, object]:
    scene = random_scene(11, SimConfig(), width=W, height=H)
    img, info = render(scene)
    return img, build_truth(scene, info), scene


def test_render_is_deterministic(still) -> None:
    img, truth, _ = still
    scene = random_scene(11, SimConfig(), width=W, height=H)
    img2, info2 = render(scene)
    assert np.array_equal(img, img2)
    assert build_truth(scene, info2) == truth
    other, _ = render(random_scene(12, SimConfig(), width=W, height=H))
    assert not np.array_equal(img, other)


def test_truth_counts_and_json_round_trip(still) -> None:
    img, truth, scene = still
    assert img.shape == (H, W, 3) and img.dtype == np.uint8
    c = truth["counts"]
    white = sum(p[0] for p in c["points"]) + c["bar"][0] + c["tray_w"]
    black = sum(p[1] for p in c["points"]) + c["bar"][1] + c["tray_b"]
    assert white == 15 and black == 15
    t = Truth.from_json(json.loads(json.dumps(truth)))
    obs = truth_to_observation(t)
    assert obs.points[0].white == c["points"][0][0]
    assert len(obs.dice) == len(scene.dice)
    for corner in truth["board_corners_image"]:
        assert 0 <= corner[0] < W and 0 <= corner[1] < H


def test_oracle_observation_gives_the_position() -> None:
    pos = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 4, 8: 3, 13: 5, 24: 2, 25: 1})
    scene = random_scene(3, SimConfig.clean(), width=W, height=H, position=pos)
    _, info = render(scene)
    t = Truth.from_json(build_truth(scene, info))
    assert truth_to_observation(t).position(Side.WHITE) == pos


def test_dice_faces_have_the_right_pips() -> None:
    for v in range(1, 7):
        for style in DieStyle:
            tex = die_face(v, style.body, style.pip, 64)
            grey = cv2.cvtColor(tex, cv2.COLOR_BGR2GRAY).astype(int)
            body = int(np.mean(style.body))
            pip = int(np.mean(style.pip))
            m = (np.abs(grey - pip) < np.abs(grey - body)).astype(np.uint8)
            n, _ = cv2.connectedComponents(m)
            assert n - 1 == v, (v, style)
    for a in range(1, 7):
        assert np.allclose(np.asarray(DIE_AXES[a]), -np.asarray(DIE_AXES[7 - a]))


@pytest.mark.parametrize("mode", [None, "checker", "rail", "bar", "die", "die_top"])
def test_dice_show_their_value_and_rest_plausibly(mode: str | None) -> None:
    scene = random_scene(5, SimConfig.clean(), width=W, height=H)
    lay = scene.layout
    rng = random.Random(4)
    for trial in range(10):
        vals = (rng.randint(1, 6), rng.randint(1, 6))
        dice = place_dice(lay, vals, rng, area=Area.RIGHT_TABLE, style=DieStyle.WHITE_BLACK_PIPS, size=16.0,
                          checkers=scene.checkers, cocked=mode)
        for d, v in zip(dice, vals, strict=True):
            assert face_up(DIE_AXES, mat(d.rot)) == v == d.value
            r = mat(d.rot)
            corners = np.array([[x, y, z] for x in (-8, 8) for y in (-8, 8) for z in (-8, 8)]) @ r.T + d.center
            assert corners[:, 2].min() >= -0.05, (mode, trial)  # nothing sinks into the board
        last = dice[-1]
        if mode is None:
            assert not last.cocked and last.tilt_deg == 0
        elif mode == "die_top":
            assert last.on_die and last.cocked
        else:
            assert last.cocked and 5 < last.tilt_deg < 45, (mode, last.tilt_deg)
        if mode in ("rail", "bar"):  # a die leaning on a wall rests in the playing field, not inside the wall
            lc = np.array([[x, y, z] for x in (-8, 8) for y in (-8, 8) for z in (-8, 8)]) @ mat(last.rot).T + last.center
            f, b = lay.field(), lay.bar_region()
            assert lc[:, 1].min() >= f.y0 - 0.05 and lc[:, 1].max() <= f.y1 + 0.05, (mode, trial, lc[:, 1])
            assert lc[:, 0].max() <= b.x0 + 0.05 or lc[:, 0].min() >= b.x1 - 0.05, (mode, trial, lc[:, 0])


def test_die_truth_corners_land_on_the_die() -> None:
    scene = random_scene(21, SimConfig.clean().with_overrides(cup_p=0.0), width=W, height=H)
    img, info = render(scene)
    truth = build_truth(scene, info)
    bare, _ = render(dataclasses.replace(scene, dice=()))
    for d in truth["dice"]:
        x, y, w, h = d["image_box"]
        assert w > 3 and h > 3
        diff = np.abs(img[y:y + h, x:x + w].astype(int) - bare[y:y + h, x:x + w].astype(int)).sum(axis=2)
        assert (diff > 40).mean() > 0.3
        cx, cy = np.mean(d["image_corners"], axis=0)
        assert x <= cx <= x + w and y <= cy <= y + h


def test_hands_cover_the_regions_under_them() -> None:
    from vision.sim.scene import sample_hand

    scene = random_scene(9, SimConfig.clean(), width=W, height=H)
    lay = scene.layout
    target = lay.point_center(5)
    hand = sample_hand(lay, random.Random(0), Side.WHITE, target=target, lift_mm=20.0)
    with_hand = dataclasses.replace(scene, hands=(hand,))
    _, info = render(with_hand)
    truth = build_truth(with_hand, info)
    assert truth["hands"]["present"]
    assert "p5" in truth["hands"]["covered"]
    assert len(truth["hands"]["covered"]) < 12
    t = Truth.from_json(truth)
    obs = truth_to_observation(t)
    assert obs.points[4].confidence == 0.0 and obs.position(Side.WHITE) is None
