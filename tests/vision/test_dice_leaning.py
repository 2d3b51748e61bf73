"""A die the pose model leaves unsure but finds likely leaning has no face (``board.likely_leaning``)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from vision.config import VisionConfig
from vision.dice.board import DiceSearch, read_dice
from vision.dice.classify import FaceClassifier
from vision.dice.config import DiceConfig


@pytest.fixture(scope="module")
def frame_901853_2() -> tuple[Any, Any, dict[str, Any]]:
    """Pose render 901853_2 (1280x720, ~2 s to render; ``dice_pose/v2``): a 1 leaning 40 degrees on a
    checker by the far rail, a 5 and two 2s flat.  The leaning 1's crop shows a side face, which reads
    4 at 0.995; the pose model's P(leaning) is 0.98, just under its cocked call."""
    from vision.training.pose import pose_frame

    img, prof, truth = pose_frame(901853, 2)
    return img, prof, truth


def _near(found: tuple[Any, ...], die: dict[str, Any], edges: float = 1.5) -> list[Any]:
    x, y = die["center_mm"][:2]
    return [d for d in found if math.hypot(d.center_mm[0] - x, d.center_mm[1] - y) < edges * die["size_mm"]]


def test_a_likely_leaning_die_has_no_face(frame_901853_2: tuple[Any, Any, dict[str, Any]]) -> None:
    img, prof, truth = frame_901853_2
    leaning = next(d for d in truth["dice"] if d["cocked"])
    assert leaning["face"] == 1 and leaning["leaning_on"] == "checker"
    clf = FaceClassifier()
    search = DiceSearch(prof)
    found = read_dice(img, prof, clf, VisionConfig(), search)
    near = _near(found, leaning)
    assert near and all(d.face in (1, None) for d in near), near
    # the flat dice (two of them 19 mm apart) are never read wrong, and one stays read (session 13's
    # averaged head flags the flat 2 at the rail likely leaning at 0.4: its face is unsure)
    faces = [[d.face for d in _near(found, die, 0.5)] for die in truth["dice"] if not die["cocked"]]
    want = [die["face"] for die in truth["dice"] if not die["cocked"]]
    assert all(len(f) == 1 and f[0] in (w, None) for f, w in zip(faces, want, strict=True)), (want, found)
    assert sum(f[0] == w for f, w in zip(faces, want, strict=True)) >= 1, (want, found)
    # without the rule (and, since session 13's head calls this die cocked at 0.96659, without the cocked
    # call) the side face reads 4: the test sees the fault it guards against
    off = read_dice(img, prof, clf, VisionConfig(), search,
                    dataclasses.replace(DiceConfig(), likely_leaning_min_probability=1.01, leaning_min_probability=1.01,
                                        on_die_call_min_probability=1.01))
    assert 4 in [d.face for d in _near(off, leaning)]


def test_session_13s_head_keeps_a_doubted_face_unsure() -> None:
    """Pose render 904060_0 (seen): a flat 1 with a 3 leaning on it.  Session 13's averaged deciding head
    gives the flat 1 P(leaning) ~0.42 (its P(leaning) runs lower than the old head's 0.72), with a
    face-check P(flat) 0.08: at the old ``likely_leaning_min_probability`` 0.6 its face is read, wrong;
    at 0.4 it is unsure."""
    from vision.dice.evaluate import match
    from vision.training.pose import pose_frame

    img, prof, truth = pose_frame(904060, 0)
    die = truth["dice"][0]
    assert die["face"] == 1 and not die["cocked"]
    clf, search = FaceClassifier(), DiceSearch(prof)

    def face(dcfg: DiceConfig) -> int | None:
        found = read_dice(img, prof, clf, VisionConfig(), search, dcfg)
        j = match(truth["dice"], found)[0]
        assert j is not None
        return found[j].face

    assert face(DiceConfig()) in (1, None)
    assert face(dataclasses.replace(DiceConfig(), likely_leaning_min_probability=0.6)) not in (1, None)
