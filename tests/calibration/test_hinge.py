"""The hinge restarts (``calibration.board.hinge_restarts``) on a rendered board whose near end is stuck.

Seed 3435 (a SEEN scene of session 5: rendered at 1920x1080 by the simulator).  The pose below is where
the automatic path stood after its outline polish and polish restarts on that scene: the two far corners
within 0.45 px of the truth, the two near corners 6.3 and 5.3 px off (only the near tray's rims pin that
end).  Started again with the near end turned toward / away from the camera about the far edge, the fit
reaches a lower polish edge cost and every corner comes within 0.5 px of the truth.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.board import hinge_restarts
from calibration.config import CalibrationConfig
from calibration.scenes import corner_errors
from tests.calibration.stuck import edge_cost, stuck_scene

SEED = 3435
FX = 1478.3827169655565
DIST = (-0.2403206432483844, -0.014275347458667379, 0.00033064333077337867, -0.001264075963422472, 0.0)
RVEC = (-0.19289652704294394, -3.0823695562522944, 0.5382950793738105)
TVEC = (356.88066661962307, -274.77327476316924, 945.7012203449649)


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return stuck_scene(SEED, tmp_path_factory.mktemp("hinge_scenes"), FX, DIST, RVEC, TVEC, "edges")


def test_the_hinge_restarts_free_the_stuck_near_end(scene) -> None:
    lab, truth, stuck = scene
    cfg = replace(CalibrationConfig(), hinge_restarts_deg=(0.3, -0.3, 1.0, -1.0))  # off by default now
    errs = corner_errors(stuck.corners_px, truth)
    assert float(errs.max()) > 5.0 and float(np.sort(errs)[1]) < 0.6  # far end right, near end stuck
    best, _ = hinge_restarts(lab, stuck, 0.73, True, cfg)
    assert best is not stuck
    assert float(corner_errors(best.corners_px, truth).max()) < 1.0
    assert edge_cost(lab, best) < edge_cost(lab, stuck)
    # switched off, or with a known lens, they change nothing
    assert hinge_restarts(lab, stuck, 0.73, True, replace(cfg, hinge_restarts_deg=()))[0] is stuck
    assert hinge_restarts(lab, stuck, 0.73, False, cfg)[0] is stuck
    # a far-corner tolerance of 0 refuses every restart (they all move the far end a little)
    assert hinge_restarts(lab, stuck, 0.73, True, replace(cfg, hinge_far_tol_px=0.0))[0] is stuck
