"""The final polish restarts (``calibration.board.polish_restarts``) on a rendered near-frontal board.

Seed 3000 (a SEEN tuning scene of session 4: tournament board, dark_on_dark, 11.9 degrees of tilt),
rendered at 1920x1080 by the simulator.  The pose below is where the automatic path stood before its
outline polish on that scene (focal length 1723 px against the true 2013, so the distance 1610 mm
against 1870): in that view the focal length and the distance trade off, and the fit has left the outer
top edge x = W about 3 px off, a whole line the robust weights then reject.  The outline polish alone
keeps it (worst corner 3.6 px); re-started through other focal lengths with the robust window no
narrower than the search window, the polish reaches a lower edge cost and the corners come within a
pixel of the truth.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from calibration.board import outline_polish, polish_restarts
from calibration.camera import CameraModel
from calibration.config import CalibrationConfig
from calibration.profile import CalibrationProfile
from calibration.scenes import corner_errors
from tests.calibration.stuck import edge_cost, stuck_scene

SEED = 3000
FX = 1723.0966527417356
DIST = (-0.10903312775046187, -0.02604022785226497, -0.00042876876441769066, 0.0001228380892959104, 0.0)
RVEC = (1.8711189543390294, 2.358616031726107, -0.21055157835091146)
TVEC = (-155.97638346348919, -428.9370180080591, 1610.1941693721635)


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return stuck_scene(SEED, tmp_path_factory.mktemp("restart_scenes"), FX, DIST, RVEC, TVEC, "edges")


def test_outline_polish_alone_stays_off_and_the_restarts_bring_it_in(scene) -> None:
    lab, truth, start = scene
    cfg = CalibrationConfig()
    assert float(corner_errors(start.corners_px, truth).max()) > 2.5
    polished, support = outline_polish(lab, start, 0.7, True, cfg)
    assert float(corner_errors(polished.corners_px, truth).max()) > 2.5
    best, _ = polish_restarts(lab, start, polished, support, True, cfg)
    assert best is not polished
    assert float(corner_errors(best.corners_px, truth).max()) < 1.0
    assert edge_cost(lab, best) < edge_cost(lab, polished)
    # switched off, or with a known lens, the restarts change nothing
    assert polish_restarts(lab, start, polished, support, True, replace(cfg, polish_restarts=()))[0] is polished
    assert polish_restarts(lab, start, polished, support, False, cfg)[0] is polished


def test_the_polish_cost_prefers_the_truth_to_the_stuck_fit(scene) -> None:
    lab, truth, start = scene
    cam = replace(CameraModel.default_for_size(1920, 1080), fx=float(truth.K[0, 0]), fy=float(truth.K[1, 1]),
                  cx=float(truth.K[0, 2]), cy=float(truth.K[1, 2]))
    cam = cam.with_distortion(tuple(float(v) for v in truth.dist.ravel()[:5]), "default")
    at_truth = CalibrationProfile.from_pose(cam, truth.spec, truth.rvec, truth.tvec, reprojection_px=0.0)
    assert edge_cost(lab, at_truth) < edge_cost(lab, start) - 0.05
