"""Dice leaning on the other die: two readings side by side are two dice (session 13).

The stage used to lose a die leaning on the other die, or the die it leans on, three ways: the
leaning die's detector peak is hidden by its neighbour's in the 3 x 3 peak search (``board.near_look``
reads the best cell beside each found die), the two readings lie on the line toward the camera and
the nearer was dropped as the other's side face though both read the same face
(``DiceConfig.side_face_min_pair_probability``), or their centres on the plane of a flat die's top
lie 0.75-0.9 edges apart and were merged as one die (``DiceConfig.same_die_edges``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from vision.config import VisionConfig
from vision.dice import board
from vision.dice.board import DiceSearch, read_dice
from vision.dice.classify import FaceClassifier, FaceGuess
from vision.dice.config import DiceConfig
from vision.training.pose import pose_frame


def _near(found: tuple[Any, ...], die: dict[str, Any], edges: float = 0.6) -> list[Any]:
    x, y = die["center_mm"][:2]
    return [d for d in found if math.hypot(d.center_mm[0] - x, d.center_mm[1] - y) < edges * die["size_mm"]]


def _leaning_on_die(truth: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The die leaning on the other die and the flat die nearest it."""
    lean = next(d for d in truth["dice"] if d["cocked"] and d["leaning_on"] == "die")
    x, y = lean["center_mm"][:2]
    other = min((d for d in truth["dice"] if d is not lean),
                key=lambda d: math.hypot(d["center_mm"][0] - x, d["center_mm"][1] - y))
    return lean, other


def _run(frame: tuple[Any, Any, dict[str, Any]], dcfg: DiceConfig | None = None) -> tuple[Any, ...]:
    img, prof, _ = frame
    return read_dice(img, prof, FaceClassifier(), VisionConfig(), DiceSearch(prof), dcfg or DiceConfig())


def test_two_dice_reading_the_same_face_on_the_camera_line_are_both_kept() -> None:
    """901885_4: a 4 leaning 12 degrees on a flat 4, 19 mm apart on the line toward the camera; both
    read 4 at 0.999.  A die's side is never its top's face: both are dice."""
    frame = pose_frame(901885, 4)
    lean, other = _leaning_on_die(frame[2])
    assert (lean["face"], other["face"]) == (4, 4)
    found = _run(frame)
    for die in (lean, other):
        near = _near(found, die)
        assert len(near) == 1 and near[0].face in (die["face"], None), (die, found)
    # without the rule the leaning 4 is dropped as the flat one's side face
    off = _run(frame, dataclasses.replace(DiceConfig(), side_face_min_pair_probability=1.01))
    assert not _near(off, lean) and _near(off, other)


def test_a_die_beside_a_found_die_is_looked_for() -> None:
    """901899_1: a 3 leaning 16 degrees on the other die (a 5); the detector's peak on it is hidden
    by its neighbour's, the cell beside the found die reads 3 at 0.998."""
    frame = pose_frame(901899, 1)
    lean, other = _leaning_on_die(frame[2])
    assert lean["face"] == 3
    found = _run(frame)
    near = _near(found, lean)
    assert len(near) == 1 and near[0].face in (3, None), found
    assert len(_near(found, other)) == 1
    # without the near look (and the second look of sessions 8-14, only when fewer than two dice
    # were found: since session 15 the second look of a frame that found a pair reads this peak too)
    off = _run(frame, dataclasses.replace(DiceConfig(), near_look_edges=(0.0, 0.0), second_look_found_below=0))
    assert not _near(off, lean)


def test_two_dice_closer_than_an_edge_on_the_top_plane_are_two() -> None:
    """901894_4: a 3 leaning 44 degrees on a flat 2; on the plane of a flat die's top their readings
    lie 13.9 mm (0.84 edges) apart, which ``same_die_edges`` 0.9 merged into one die."""
    frame = pose_frame(901894, 4)
    lean, other = _leaning_on_die(frame[2])
    assert (lean["face"], other["face"]) == (3, 2)
    found = _run(frame)
    assert len(_near(found, lean)) == 1 and len(_near(found, other)) == 1, found
    assert all(d.face in (die["face"], None) for die in (lean, other) for d in _near(found, die))
    off = _run(frame, dataclasses.replace(DiceConfig(), same_die_edges=0.9))
    assert not _near(off, lean)


def test_the_side_face_rule_keeps_a_pair_only_for_sure_same_or_opposite_faces() -> None:
    mm = np.array([[100.0, 100.0], [100.0, 84.0]])  # the second 16 mm toward the camera
    cam = (100.0, -400.0)
    dcfg = DiceConfig()

    def side(a: FaceGuess, b: FaceGuess) -> set[int]:
        return board.side_face_readings(mm, cam, 16.0, dcfg, [a, b])

    assert side(FaceGuess(4, 0.999, 0.0), FaceGuess(4, 0.999, 0.0)) == set()
    assert side(FaceGuess(5, 0.999, 0.0), FaceGuess(2, 0.999, 0.0)) == set()  # opposite faces
    assert side(FaceGuess(5, 0.999, 0.0), FaceGuess(3, 0.999, 0.0)) == {1}  # may be its side
    assert side(FaceGuess(4, 0.97, 0.0), FaceGuess(4, 0.999, 0.0)) == {1}  # 901693_2: a side read 4 at 0.972
    assert board.side_face_readings(mm, cam, 16.0, dcfg) == {1}
    # a near-look reading never displaces an earlier one: it is the one dropped
    assert board.side_face_readings(mm, cam, 16.0, dcfg, yields=frozenset({0})) == {0}


def test_near_cells_finds_the_neighbour_a_peak_hides() -> None:
    """A heat map with a found die's blob and, 16 mm away, a weaker one its 3 x 3 maximum hides."""

    class Search:
        PPM, MARGIN_MM, z = 0.5, 30.0, 16.0

        @staticmethod
        def to_mm(u: float, v: float) -> tuple[float, float]:
            return (u + 0.5) / 0.5 - 30.0, (v + 0.5) / 0.5 - 30.0

    heat = np.zeros((3, 40, 40), np.float32)
    heat[0, 10, 10] = 0.9  # the found die: cell centre (54, 54) mm
    heat[0, 10, 11] = 0.5  # its neighbour's cell, 8 mm on: no 3 x 3 peak
    heat[0, 10, 12] = 0.3  # 16 mm on
    found = np.array([[54.0, 54.0]])
    cells = board.near_cells(heat, Search(), found, found, DiceConfig())  # type: ignore[arg-type]
    assert cells.shape == (1, 2) and abs(cells[0, 0] - 70.0) < 0.1 and abs(cells[0, 1] - 54.0) < 0.1
    # nothing at or above the score bar beside it: no cell
    heat[0, 10, 12] = 0.05
    assert board.near_cells(heat, Search(), found, found, DiceConfig()).shape == (0, 2)  # type: ignore[arg-type]
