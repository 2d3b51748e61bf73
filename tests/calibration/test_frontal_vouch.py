"""A near-frontal fit under the first signal's bar is decided when the points' sides vouch for it.

Seed 4564 (SEEN: session 12's fresh set; green felt seen from 0.1 degrees) was refused at corner confidence 0.342
(bar 0.38) although its fit lay within 0.3 px of the truth, the seats right: the points stand out from the field
(side contrast ~98) and the fit puts 0.875 of their sides on their edges.  Seed 3883 (SEEN, green felt, 2.7 degrees)
is a wrong near-frontal placement (36 px off, confidence 0.312, sides 0.0): the sides must keep refusing it even
with the vouched bar lowered under its confidence.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from calibration.bench import seats_right
from calibration.config import CalibrationConfig
from calibration.errors import FitUntrusted
from calibration.pipeline import calibrate_frame, fitted_tilt_deg
from calibration.scenes import checkers_in_points, corner_errors, load_or_render


def test_a_right_frontal_fit_vouched_by_its_sides_is_decided(tmp_path) -> None:
    img, truth = load_or_render(4564, 1920, 1080, 45.0, tmp_path)
    cfg = CalibrationConfig()
    res = calibrate_frame(img, truth.spec, config=cfg)
    assert res.fit is not None
    conf = res.fit.corner_confidence
    assert cfg.frontal_vouch_confidence is not None
    assert cfg.frontal_vouch_confidence <= conf < cfg.min_corner_confidence  # under the first signal's bar
    assert fitted_tilt_deg(res.profile.rvec) < cfg.frontal_vouch_tilt_deg
    assert float(corner_errors(res.profile.corners_px, truth).max()) < 1.0
    assert seats_right(res.profile, truth) and checkers_in_points(res.profile, truth)[0] == 0
    assert any("points' sides lie on their edges" in n for n in res.notes)
    # without the vouch the same right fit is refused
    with pytest.raises(FitUntrusted) as info:
        calibrate_frame(img, truth.spec, config=replace(cfg, frontal_vouch_confidence=None))
    assert info.value.confidence == pytest.approx(conf)


def test_a_wrong_frontal_placement_is_not_vouched_for(tmp_path) -> None:
    img, truth = load_or_render(3883, 1920, 1080, 45.0, tmp_path)
    cfg = replace(CalibrationConfig(), frontal_vouch_confidence=0.25)  # below the wrong fit's own confidence
    with pytest.raises(FitUntrusted) as info:
        calibrate_frame(img, truth.spec, config=cfg)
    exc = info.value
    assert type(exc) is FitUntrusted and exc.confidence >= 0.25
    assert fitted_tilt_deg(exc.fit.profile.rvec) < cfg.frontal_vouch_tilt_deg  # near-frontal: only the sides refuse it
    assert float(corner_errors(exc.fit.corners_px, truth).max()) > 20.0


def test_a_vouched_bar_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="frontal_vouch_confidence"):
        CalibrationConfig(frontal_vouch_confidence=1.5)
