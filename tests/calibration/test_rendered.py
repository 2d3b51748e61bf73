"""Automatic calibration and nudge tracking on frames rendered by the simulator (known truth).

Small renders (960x540) keep this within the CI budget; ``bgref bench calibration`` measures the
same criteria on 1920x1080 scenes (docs/calibration_accuracy.json).
"""

from __future__ import annotations

import pytest

from calibration.bench import run_one
from calibration.nudge import render_pair, run_clip
from calibration.pipeline import calibrate_frame
from calibration.scenes import corner_errors

W, H = 960, 540

# tournament and travel boards, four colour schemes, camera tilt 2..29 degrees
SEEDS = (2, 10, 11, 12, 28)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("calib_scenes")


@pytest.mark.parametrize("seed", SEEDS)
def test_automatic_calibration_on_rendered_start(seed, cache) -> None:
    rec = run_one(seed, W, H, 45.0, "auto", cache)
    assert rec["found"], rec
    assert rec["board_found"] == rec["board"], rec  # tournament / travel guessed
    assert rec["seats_ok"], rec
    assert rec["checkers_outside"] == 0, rec
    assert max(rec["corner_err"]) <= 1.5 * W / 1920, rec  # 1.5 px at 1920x1080
    assert rec["success"], rec


def test_nudged_board_detected_and_refitted_on_rendered_video() -> None:
    before, truth, after, truth_after, shift, rot = render_pair(10, W, H)
    assert 10.0 <= shift <= 30.0 and 2.0 <= rot <= 5.0
    prof = calibrate_frame(before).profile
    assert float(corner_errors(prof.corners_px, truth).max()) <= 1.0
    res = run_clip(prof, before, after, truth_after, seed=10, shift_mm=shift, rot_deg=rot, still_s=0.5, after_s=1.0)
    assert not res.false_alarm
    assert res.detected_after_s is not None and res.detected_after_s <= 1.0
    assert res.refitted_after_s is not None and res.refitted_after_s <= 1.0
    assert res.corner_err_px is not None and res.corner_err_px <= 1.5
