"""The face model's training samples at the die stage's own centres (vision.training.faces.stage_centres)."""

from __future__ import annotations

import math


def test_stage_centres_are_the_centres_the_first_look_reads() -> None:
    """On a rendered board each die the first look finds is cut where the stage itself reads it:
    the detector's peak moved by the centre model (within a quarter edge of the die), with its face."""
    from vision.dice.board import DiceSearch
    from vision.dice.detect import detector, top_view
    from vision.preprocess import to_gray
    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth
    from vision.training.faces import stage_centres
    from vision.training.rendered import profile_for

    scene = random_scene(700001, SimConfig().with_overrides(hands_p=0.0, cup_p=0.0, cocked_p=0.0, on_die_p=0.0,
                                                            tilt_deg=(0.0, 20.0)), width=1280, height=720)
    img, info = render(scene)
    truth = build_truth(scene, info)
    prof = profile_for(truth)
    search = DiceSearch(prof)
    peaks = detector().peaks(top_view(img, search.map_x, search.map_y), 0.05, 16, centroid=True)
    got = stage_centres(to_gray(img), prof, search, peaks, truth["dice"])
    assert len(got) == len(truth["dice"]) >= 2
    for (face, c), die in zip(got, truth["dice"], strict=True):
        assert face == die["face"]
        assert math.dist(c, die["center_mm"][:2]) < 0.25 * search.z, (c, die["center_mm"])
    assert stage_centres(to_gray(img), prof, search, [], truth["dice"]) == []
    away = [dict(die, center_mm=[die["center_mm"][0] + 20 * search.z, die["center_mm"][1]]) for die in truth["dice"]]
    assert stage_centres(to_gray(img), prof, search, peaks, away) == []  # no peak near: not cut
