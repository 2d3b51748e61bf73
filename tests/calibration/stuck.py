"""A rendered 1920x1080 calibration scene and a fit where the automatic path stood on it (the restart tests)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.board import smoothed_lab
from calibration.camera import CameraModel
from calibration.model import fit_cost
from calibration.profile import CalibrationProfile
from calibration.scenes import load_or_render


def stuck_scene(seed: int, where: Path, fx: float, dist: tuple[float, ...], rvec: tuple[float, ...],
                tvec: tuple[float, ...], lens_source: str) -> tuple[Any, Any, CalibrationProfile]:
    """(smoothed Lab image, truth, the profile at ``fx``/``dist``/``rvec``/``tvec``) of seen scene ``seed``."""
    img, truth = load_or_render(seed, 1920, 1080, 45.0, where)
    cam = replace(CameraModel.default_for_size(1920, 1080), fx=fx, fy=fx).with_distortion(dist, lens_source)
    prof = CalibrationProfile.from_pose(cam, truth.spec, np.array(rvec), np.array(tvec), reprojection_px=0.5)
    return smoothed_lab(img), truth, prof


def edge_cost(lab: Any, p: CalibrationProfile) -> float:
    """The polish's edge cost of ``p`` (hole offsets, walled outer rims, the default tolerance)."""
    return float(fit_cost(lab, p.camera, p.spec, np.asarray(p.rvec), np.asarray(p.tvec), hole_offsets=True,
                          walled_outer=True))
