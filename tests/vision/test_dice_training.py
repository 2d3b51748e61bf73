"""The face model's training samples at the die stage's own centres (vision.training.faces.stage_centres)
and the dice stage's figures on multi-view renders per what each die leans on
(vision.dice.evaluate.leaning_figures)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import cv2
import pytest


@pytest.fixture(scope="module")
def scene() -> tuple[Any, Any, dict[str, Any]]:
    """A rendered still board (seed outside the training seeds) with flat dice, its profile and truth."""
    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth
    from vision.training.rendered import profile_for

    sc = random_scene(700001, SimConfig().with_overrides(hands_p=0.0, cup_p=0.0, cocked_p=0.0, on_die_p=0.0,
                                                         tilt_deg=(0.0, 20.0)), width=1280, height=720)
    img, info = render(sc)
    truth = build_truth(sc, info)
    return img, profile_for(truth), truth


def test_stage_centres_are_the_centres_the_first_look_reads(scene: tuple[Any, Any, dict[str, Any]]) -> None:
    """Each die the first look finds is cut where the stage itself reads it: the detector's peak
    moved by the centre model (within a quarter edge of the die), with its face."""
    from vision.dice.board import DiceSearch
    from vision.dice.detect import detector, top_view
    from vision.preprocess import to_gray
    from vision.training.faces import stage_centres

    img, prof, truth = scene
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


def test_leaning_figures_count_each_visible_die_by_what_it_leans_on(
        scene: tuple[Any, Any, dict[str, Any]], tmp_path: Path) -> None:
    """One die labelled leaning on a checker, one a die hidden under another die (left out), one
    far off the board (missed, with a cause); the others flat and found."""
    from vision.config import VisionConfig
    from vision.dice.config import DiceConfig
    from vision.dice.evaluate import MISS_CAUSES, leaning_figures

    img, _, truth = scene
    dice = [dict(d) for d in truth["dice"]]
    n = len(dice)
    dice[0].update(cocked=True, leaning_on="checker")
    ghost = dict(dice[1], center_mm=[dice[1]["center_mm"][0] + 400.0, -300.0, dice[1]["center_mm"][2]])
    under = dict(dice[1])  # a die under dice[1], were dice[1] resting on it
    dice[1] = dict(dice[1], on_die=True, cocked=True, leaning_on="die_top")
    t = dict(truth, dice=[*dice, ghost, under])
    (tmp_path / "700001_0.json").write_text(json.dumps(t))
    cv2.imwrite(str(tmp_path / "700001_0.png"), img)
    res = leaning_figures(tmp_path, range(700001, 700002), VisionConfig(), DiceConfig())
    lean = res["by_leaning_on"]
    assert lean["checker"] == {"n": 1, "found": 1} and lean["die_top"] == {"n": 1, "found": 1}
    assert lean["flat"]["n"] == n - 2 + 1 and lean["flat"]["found"] == n - 2  # the ghost is missed
    assert sum(v for k, v in lean["flat"].items() if k in MISS_CAUSES) == 1
    assert (res["cocked_found"], res["cocked_visible"]) == (2, 2)
    assert res["faces"]["wrong"] == 0 and res["faces"]["false"] == 0
    assert res["faces"]["right"] + res["faces"]["unsure"] == n


def test_leaning_without_renders_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--leaning`` on a folder with no render of the seeds asked for stops with one line naming the folder and
    the seeds (it printed empty figures and exited 0)."""
    from vision.dice.evaluate import main

    with pytest.raises(SystemExit) as exc:
        main(["--leaning", str(tmp_path / "none"), "--first", "901850", "--frames", "2"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--leaning: no multi-view renders (SEED_K.json) of seeds 901850-901851 in" in err and "none" in err
