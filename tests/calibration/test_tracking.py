from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.profile import CalibrationProfile
from calibration.tracking import BoardTracker, TrackStatus, board_support, outline_support, support_score
from tests.calibration.synth import look_at_pose, render
from vision.geometry import BoardLayout, BoardSpec

SPEC = BoardSpec.tournament()
K = np.array([[1400.0, 0, 959.5], [0, 1400, 539.5], [0, 0, 1]])


def _frame(shift=(0.0, 0.0), yaw=8.0, seed=0):
    rvec, tvec = look_at_pose(SPEC, 30.0, yaw, 2100.0, shift_mm=shift)
    return render(BoardLayout(SPEC), K, rvec, tvec, seed=seed)


def test_nudge_is_detected_and_refitted() -> None:
    img0, c0 = _frame()
    prof = CalibrationProfile.from_corners(c0, CameraModel.default_for_size(1920, 1080), SPEC)
    assert outline_support(img0, prof) > 0.8
    tracker = BoardTracker(prof, img0)
    assert tracker.update(img0, 0.0).status is TrackStatus.OK
    # the board slides 2 cm and turns 3 degrees (seen as the camera moving the other way)
    img1, c1 = _frame(shift=(-20.0, 12.0), yaw=11.0, seed=1)
    assert outline_support(img1, prof) < 0.4
    statuses = []
    for i in range(30):  # 1 s of video at 30 fps
        u = tracker.update(img1, 0.1 + i / 30)
        statuses.append(u.status)
        if u.status is TrackStatus.REFITTED:
            break
    assert TrackStatus.SUSPECT in statuses  # judging pauses before the re-fit
    assert statuses[-1] is TrackStatus.REFITTED
    assert np.abs(np.array(tracker.profile.corners_px) - c1).max() < 1.5
    assert tracker.update(img1, 1.0).status is TrackStatus.OK


def test_board_pose_moves_board_and_pieces_not_the_table() -> None:
    from dataclasses import replace

    from calibration.scenes import truth_of
    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import BoardPose, random_scene

    cfg = SimConfig().with_overrides(hands_p=0.0, cup_p=0.0, tilt_deg=10.0)
    scene = random_scene(3, cfg, width=320, height=180)
    moved = replace(scene, board_pose=BoardPose((25.0, -10.0), 4.0))
    t0, t1 = truth_of(scene), truth_of(moved)
    # the outline moves by about 25 mm worth of pixels and turns
    shift = np.abs(t1.corners_px - t0.corners_px).max()
    assert shift > 3.0
    assert truth_of(replace(scene, board_pose=BoardPose())).corners_px == pytest.approx(t0.corners_px, abs=1e-6)
    a, _ = render(scene)
    b, _ = render(moved)
    # a table corner far from the board stays the same; the board's middle changes
    assert np.abs(a[:12, :12].astype(int) - b[:12, :12].astype(int)).mean() < 3.0
    assert np.abs(a.astype(int) - b.astype(int)).mean() > 3.0


def test_still_board_never_alarms_and_inner_edges_separate_moved_from_still() -> None:
    img0, c0 = _frame()
    prof = CalibrationProfile.from_corners(c0, CameraModel.default_for_size(1920, 1080), SPEC)
    tracker = BoardTracker(prof, img0)
    rng = np.random.default_rng(5)
    for i in range(12):  # fresh sensor noise on a still board: never leaves OK
        noisy = np.clip(img0.astype(np.int16) + rng.normal(0, 3, img0.shape).astype(np.int16), 0, 255).astype(np.uint8)
        assert tracker.update(noisy, i / 30).status is TrackStatus.OK
    still = support_score(board_support(img0, prof))
    img1, _ = _frame(shift=(-12.0, 6.0), yaw=9.5, seed=1)
    moved = support_score(board_support(img1, prof))
    assert still > 0.6 and moved < tracker.threshold < still
