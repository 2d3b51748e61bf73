from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.profile import CalibrationProfile
from vision.config import VisionConfig
from vision.geometry import BoardSpec
from vision.motion import MotionGate, RegionMap


@pytest.fixture(scope="module")
def profile() -> CalibrationProfile:
    return CalibrationProfile.from_corners(
        [(1100, 150), (180, 150), (100, 650), (1180, 650)], CameraModel.default_for_size(1280, 720),
        BoardSpec.tournament(), method="manual")


def _frame(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = np.full((720, 1280, 3), (60, 100, 40), np.uint8)
    return np.clip(base + rng.normal(0, 2, base.shape), 0, 255).astype(np.uint8)


def test_still_after_configured_frames(profile: CalibrationProfile) -> None:
    gate = MotionGate(RegionMap.build(profile), VisionConfig(still_frames=3))
    reports = [gate.update(_frame(i)) for i in range(5)]
    assert [r.still for r in reports] == [False, False, False, True, True]
    assert not reports[-1].covered


def test_moving_region_is_named_and_resets_stillness(profile: CalibrationProfile) -> None:
    gate = MotionGate(RegionMap.build(profile), VisionConfig(still_frames=2))
    for i in range(4):
        gate.update(_frame(i))
    f = _frame(9)
    # paint something over point 6's column
    xy = profile.board_to_image(np.array([profile.layout.stack_slots(6, 1)]))[0]
    x, y = int(xy[0]), int(xy[1])
    f[y - 30 : y + 30, x - 20 : x + 20] = 250
    r = gate.update(f)
    assert "p6" in r.moving and "p6" in r.covered
    assert not r.still and r.still_frames == 0
    assert "p18" not in r.moving


def test_skin_covers_region(profile: CalibrationProfile) -> None:
    gate = MotionGate(RegionMap.build(profile), VisionConfig(still_frames=1))
    for _i in range(3):
        gate.update(_frame(1))
    f = _frame(1)
    xy = profile.board_to_image(np.array([profile.layout.stack_slots(13, 2)]))[0]
    x, y = int(xy[0]), int(xy[1])
    f[y - 60 : y + 60, x - 40 : x + 40] = (120, 150, 210)  # a skin tone (BGR)
    for _ in range(6):  # the hand comes in and then rests without moving
        r = gate.update(f)
    assert "p13" in r.covered
    assert not r.still  # never read with a hand over the board
    assert "p1" not in r.covered


def test_skin_coloured_board_is_not_a_hand(profile: CalibrationProfile) -> None:
    gate = MotionGate(RegionMap.build(profile), VisionConfig(still_frames=2))
    board = np.full((720, 1280, 3), (120, 150, 210), np.uint8)  # a tan/skin-toned board
    reports = [gate.update(board) for _ in range(4)]
    assert not reports[-1].covered and reports[-1].still


def _at(profile: CalibrationProfile, point: int, slot: int) -> tuple[int, int]:
    xy = profile.board_to_image(np.array([profile.layout.stack_slots(point, slot)]))[0]
    return int(xy[0]), int(xy[1])


def test_single_flickering_pixels_are_not_motion(profile: CalibrationProfile) -> None:
    """Compression flicker (one or two gate pixels in a point's column) must not hold the scene."""
    cfg = VisionConfig(still_frames=3)
    gate = MotionGate(RegionMap.build(profile), cfg)
    x, y = _at(profile, 4, 1)
    s = round(1 / cfg.motion_scale)
    reports = []
    for i in range(6):
        f = _frame(i)
        if i % 2:  # one gate pixel (an s x s block of the frame) flips every other frame
            f[y : y + s, x : x + s] = 255
        reports.append(gate.update(f))
    assert reports[-1].still and "p4" not in reports[-1].moving


def test_hand_in_first_frame_does_not_stay_covered(profile: CalibrationProfile) -> None:
    """A hand over a tan (skin-coloured) board when the camera starts, then gone: the region is read
    again (the reference is the first still scene, not the first frame)."""
    gate = MotionGate(RegionMap.build(profile), VisionConfig(still_frames=2))
    x, y = _at(profile, 20, 1)
    board = _frame(1)
    board[y - 80 : y + 80, x - 60 : x + 60] = (80, 120, 180)  # tan wood: skin-coloured
    hand = board.copy()
    hand[y - 60 : y + 60, x - 40 : x + 40] = (130, 170, 230)  # a lighter skin tone (BGR)
    first = [gate.update(hand) for _ in range(2)]
    assert "p20" in first[0].covered  # no reference yet: skin counts
    for _ in range(5):
        r = gate.update(board)
    assert r.still and "p20" not in r.covered


def _cube_side_place(profile: CalibrationProfile) -> tuple[int, int]:
    """Image position of the middle of the tray column where a cube rests beside the players
    (no region of its own)."""
    from vision.cube import cube_places

    rect, z = cube_places(profile)[1]
    xy = profile.board_to_image(np.array([[(rect.x0 + rect.x1) / 2, (rect.y0 + rect.y1) / 2, z]]))[0]
    return int(xy[0]), int(xy[1])


def test_hand_over_the_cubes_place_blocks_reading(profile: CalibrationProfile) -> None:
    """A hand resting over the tray column where a cube rests (no named region there): not still,
    the cube's place covered, no named region covered; once it is gone, still again."""
    regions = RegionMap.build(profile)
    assert regions.cube is not None
    x, y = _cube_side_place(profile)
    assert regions.labels[int(y * regions.scale), int(x * regions.scale)] == 0  # in no named region
    assert regions.cube[int(y * regions.scale), int(x * regions.scale)]
    gate = MotionGate(regions, VisionConfig(still_frames=1))
    for _ in range(3):
        gate.update(_frame(1))
    f = _frame(1)
    f[y - 50:y + 50, x - 35:x + 35] = (120, 150, 210)  # a skin tone (BGR), a hand's size
    reports = [gate.update(f) for _ in range(6)]  # comes in, then rests without moving
    assert all(not r.still and r.cube_covered for r in reports)
    assert not reports[-1].covered
    back = [gate.update(_frame(1)) for _ in range(3)]
    assert back[-1].still and not back[-1].cube_covered


def test_motion_over_the_cubes_place_is_motion(profile: CalibrationProfile) -> None:
    gate = MotionGate(RegionMap.build(profile), VisionConfig(still_frames=2))
    for i in range(4):
        gate.update(_frame(i))
    x, y = _cube_side_place(profile)
    f = _frame(9)
    f[y - 20:y + 20, x - 15:x + 15] = 230  # something light (not skin) set down there
    r = gate.update(f)
    assert not r.still and r.cube_covered and r.still_frames == 0
