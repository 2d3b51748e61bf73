"""The fit guard's third signal: a fit with an outer corner far outside the frame abstains (``CornerOutside``).

Seed 4351 (SEEN: session 11's fresh set; dark points on a dark field, 30.9 degrees) was decided with its near
corners 96-198 px off the true ones at corner confidence 0.395 (the first signal's bar: 0.38), the seats right
and every checker in its point: the near end (trays, dice area) wrong.  Its fitted near corners lie 36 px below
and 98 px right of the frame, the true ones inside it.  Seed 4255 (SEEN, walnut inlay, 40.6 degrees) has a true
corner exactly on the frame's bottom edge and a right fit: it must stay decided.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.config import CalibrationConfig
from calibration.errors import CornerOutside, FitUntrusted
from calibration.pipeline import calibrate_frame
from calibration.scenes import corner_errors, load_or_render


def test_a_fit_reaching_out_of_the_frame_abstains(tmp_path) -> None:
    img, truth = load_or_render(4351, 1920, 1080, 45.0, tmp_path)
    cfg = CalibrationConfig()
    with pytest.raises(CornerOutside) as info:
        calibrate_frame(img, truth.spec, config=cfg)
    exc = info.value
    assert isinstance(exc, FitUntrusted)
    assert exc.confidence >= cfg.min_corner_confidence  # the first signal passed it
    assert exc.outside_px > 2 * 20.0
    assert "outside the 1920x1080 frame" in str(exc) and "--corners" in str(exc)
    # without this guard the wrong profile is decided (the near end whole tens of pixels off)
    res = calibrate_frame(img, truth.spec, config=replace(cfg, max_corner_outside_px=None))
    assert float(corner_errors(res.profile.corners_px, truth).max()) > 50.0


def test_a_right_fit_touching_the_frame_edge_is_kept(tmp_path) -> None:
    img, truth = load_or_render(4255, 1920, 1080, 45.0, tmp_path)
    assert float(np.asarray(truth.corners_px)[:, 1].max()) > 1079.9  # a true corner on the bottom edge
    res = calibrate_frame(img, truth.spec)
    assert float(corner_errors(res.profile.corners_px, truth).max()) < 2.0


def test_a_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="max_corner_outside_px"):
        CalibrationConfig(max_corner_outside_px=-1.0)
