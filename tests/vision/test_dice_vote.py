"""The grid's vote on a die's face is weighed by each square's face probability (session 16).

On game frames the three squares of the 3 x 3 grid shifted toward one side of a flat die read a weak 2
(P 0.39-0.60) while the other six read the die's face at 0.73-0.97; weighed by (1 - P(not a die))
only, the face's share was 0.67, below ``DiceConfig.top_vote_share`` 0.7, and a face the turned
check read surely was left unsure (s15f 7588 f1495: a flat 5 and a flat 1).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.vision.renders import rendered_frames
from vision.config import VisionConfig
from vision.dice.board import DiceSearch, read_dice
from vision.dice.classify import FaceClassifier, FaceGuess
from vision.dice.config import DiceConfig
from vision.dice.faceread import choose

DICE = DiceConfig()

# 7588 f1495, the flat 5 at (191, 131) mm: the grid's nine readings (face, P(face), P(not a die)),
# in the grid's order (dx, dy) = (0, 0), (0, -s), (0, s), (-s, 0), (-s, -s), ...
GRID_5 = [(5, 0.88, 0.03), (2, 0.51, 0.02), (5, 0.97, 0.0), (5, 0.96, 0.01), (2, 0.43, 0.03),
          (5, 0.97, 0.0), (5, 0.76, 0.09), (2, 0.42, 0.06), (5, 0.94, 0.0)]
# the same frame's flat 1 at (336, 267) mm
GRID_1 = [(1, 0.73, 0.01), (2, 0.49, 0.02), (1, 0.97, 0.0), (1, 0.82, 0.11), (2, 0.6, 0.04),
          (1, 0.93, 0.01), (1, 0.73, 0.02), (2, 0.39, 0.09), (1, 0.89, 0.0)]


@pytest.mark.parametrize("grid", [GRID_5, GRID_1])
def test_a_weak_minority_on_one_side_does_not_cap_the_face(grid: list[tuple[int, float, float]]) -> None:
    g = [FaceGuess(f, p, n) for f, p, n in grid]
    _, best = choose(g, DICE.vote_notdie, DICE.top_vote_share, 0.0)
    assert best.face == grid[0][0]
    assert best.probability > 0.9


def test_a_strong_minority_still_caps_the_face() -> None:
    """Three squares reading another face as surely as the rest read theirs: the die stays unsure."""
    g = [FaceGuess(f, 0.95 if f == 2 else p, n) for f, p, n in GRID_5]
    _, best = choose(g, DICE.vote_notdie, DICE.top_vote_share, 0.0)
    assert best.probability == 0.5


@pytest.fixture(scope="module")
def frame(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any, dict[str, Any]]:
    """Rendered seed 900260 (1280x720, ~3 s; a seen slot-evaluation scene)."""
    return rendered_frames(tmp_path_factory.mktemp("renders"), (900260,))[900260]


def test_a_flat_two_left_unsure_by_the_vote_is_read(frame: tuple[Any, Any, dict[str, Any]]) -> None:
    """900260: a flat 2 near (575, 409) mm was read unsure (0.5) by the unweighted vote; now 2."""
    img, prof, truth = frame
    found = read_dice(img, prof, FaceClassifier(), VisionConfig(), DiceSearch(prof))
    die = next(d for d in truth["dice"] if math.hypot(d["center_mm"][0] - 575, d["center_mm"][1] - 409) < 12)
    assert die["face"] == 2 and not die.get("cocked")
    near = [d for d in found if math.hypot(d.center_mm[0] - 575, d.center_mm[1] - 409) < 12]
    assert [d.face for d in near] == [2]
    assert all(d.face == t["face"] for d in found for t in truth["dice"]
               if d.face is not None and math.hypot(d.center_mm[0] - t["center_mm"][0], d.center_mm[1] - t["center_mm"][1]) < 12)
