"""Seats and home side from the starting position: both checker sets' 2-5-3-5 patterns, and abstention.

Synthetic frames (tests/calibration/synth.py) seen through the true camera, so only the seat decision
is tested: every seating is found, also when one checker set has the board's own colour (black men on
a black board, where the old score collapsed), and a frame without the starting position raises
``SeatsUndecided`` instead of guessing.
"""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.errors import SeatsUndecided
from calibration.pipeline import calibrate_frame
from calibration.profile import CalibrationProfile
from calibration.seats import ALL_SEATINGS, detect_seating
from rules.position import Position, Side
from tests.calibration.synth import Style, look_at_pose, render
from vision.geometry import BoardLayout, BoardSpec, HomeEnd, LongSide, Seating

SIZE = (960, 540)
F = 700.0
DARK = Style(rail=(20, 20, 22), field=(36, 36, 38), point_a=(22, 22, 24), point_b=(92, 96, 98),
             white=(200, 206, 210), black=(30, 30, 32), table=(90, 110, 130))


def _frame(seating: Seating, style: Style | None, position: Position | None = None, tilt: float = 20.0):
    spec = BoardSpec.tournament()
    K = np.array([[F, 0, (SIZE[0] - 1) / 2], [0, F, (SIZE[1] - 1) / 2], [0, 0, 1]])
    rvec, tvec = look_at_pose(spec, tilt, 8.0, spec.width_mm * F / (SIZE[0] * 0.62))
    img, corners = render(BoardLayout(spec, seating), K, rvec, tvec, SIZE, style, position=position, seed=5)
    cam = CameraModel(SIZE[0], SIZE[1], F, F, K[0, 2], K[1, 2], source="chessboard")
    return img, CalibrationProfile.from_pose(cam, spec, rvec, tvec, reprojection_px=0.0), corners, cam


@pytest.mark.parametrize("style", [None, DARK], ids=["light_on_red", "black_men_on_black_board"])
@pytest.mark.parametrize("seating", ALL_SEATINGS, ids=lambda s: f"{s.white.value}-{s.white_home.value}")
def test_every_seating_is_found(seating: Seating, style: Style | None) -> None:
    img, prof, _, _ = _frame(seating, style)
    res = detect_seating(img, prof)
    assert res.seating == seating, res
    assert res.score >= 0.5 and res.margin >= 0.15, res


def test_a_frame_without_the_starting_position_abstains() -> None:
    empty = Position((0,) * 26, (0,) * 26, Side.WHITE)
    img, _, corners, cam = _frame(Seating(LongSide.NEAR, HomeEnd.RIGHT), None, position=empty)
    with pytest.raises(SeatsUndecided, match="seats not decided"):
        calibrate_frame(img, BoardSpec.tournament(), camera=cam, corners=corners, refine_manual=False)
    # given the seating, the same frame calibrates
    res = calibrate_frame(img, BoardSpec.tournament(), camera=cam, corners=corners, refine_manual=False,
                          seating=Seating(LongSide.FAR, HomeEnd.LEFT))
    assert res.profile.seating == Seating(LongSide.FAR, HomeEnd.LEFT)


@pytest.mark.parametrize("seed", [2003, 2039])
def test_black_men_on_a_black_rendered_board(seed: int, tmp_path) -> None:
    """Simulator frames (dark_on_dark: near-black men on a near-black board) where the previous score,
    which asked the empty points to look unlike BOTH checker colours, picked a wrong seating."""
    from calibration.scenes import load_or_render

    img, truth = load_or_render(seed, 960, 540, 45.0, tmp_path)
    cam = CameraModel(960, 540, float(truth.K[0, 0]), float(truth.K[1, 1]), float(truth.K[0, 2]),
                      float(truth.K[1, 2]), tuple(float(v) for v in truth.dist.ravel()), source="chessboard")  # type: ignore[arg-type]
    prof = CalibrationProfile.from_pose(cam, truth.spec, truth.rvec, truth.tvec, reprojection_px=0.0)
    res = detect_seating(img, prof)
    assert truth.scheme == "dark_on_dark"
    assert res.seating == truth.seating, res
    assert res.score >= 0.5 and res.margin >= 0.15, res
