from __future__ import annotations

import numpy as np

from calibration.camera import CameraModel
from calibration.profile import CalibrationProfile
from calibration.tracking import BoardTracker, TrackStatus, outline_support
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
