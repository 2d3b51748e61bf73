"""The lens restarts beyond ``lens_restart_max_tilt_deg`` (session 7: ``lens_restart_steep_margin``).

Seed 3570 (a SEEN scene: green felt, tournament board, 25.1 degrees from frontal, rendered at 1920x1080 by the
simulator; the true camera has f 1204 px, k1 -0.187).  The pose and lens below are where the automatic path
stood on that scene in session 6: f 1250 px, k1 -0.201, a fitted tilt of 26.0 degrees (just past the 25 degree
limit of the plain lens restarts), the far corners within 0.6 px and the near ones 8.0 and 6.3 px off.  The 0.85
restart lowers the polish edge cost by ~0.021 and brings every corner within 0.6 px.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.board import _polish_cost, lens_restarts
from calibration.config import CalibrationConfig
from calibration.scenes import corner_errors
from tests.calibration.stuck import stuck_scene

SEED = 3570
FX = 1250.3074777166155
DIST = (-0.2009523910282977, -0.008832529257818482, -0.0004911012366896416, -0.0005415456240147787, 0.0)
RVEC = (0.07736635927809213, 2.993866206325322, -0.6818710711503866)
TVEC = (373.8241970798797, -239.62814949376357, 771.9982668937326)


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return stuck_scene(SEED, tmp_path_factory.mktemp("steep_scenes"), FX, DIST, RVEC, TVEC, "default")


def test_a_steep_stuck_lens_is_freed_by_a_clear_drop_in_edge_cost(scene) -> None:
    lab, truth, stuck = scene
    # the stuck pose was stored before session 10's shared point width; with it (the default since), the restarts
    # from this pose no longer lower the cost by the margin and 3570 ends 6.5 px off (a known loss, see
    # docs/calibration.md, session 10): the restarts themselves are tested without it, and judged by the cost their
    # steep margin was chosen with (the walled outer edges counted: sessions 7-11; without them 3570's drop is smaller)
    cfg = replace(CalibrationConfig(), point_width_px=None, polish_cost_walled_outer=True)
    assert stuck.quality.tilt_deg > cfg.lens_restart_max_tilt_deg
    assert float(corner_errors(stuck.corners_px, truth).max()) > 6.0
    best, _ = lens_restarts(lab, stuck, 0.6, True, cfg)
    assert best is not stuck
    assert float(corner_errors(best.corners_px, truth).max()) < 0.8
    assert _polish_cost(lab, best, cfg) <= _polish_cost(lab, stuck, cfg) - cfg.lens_restart_steep_margin
    # the session-6 rule (no restarts beyond the tilt limit) left it stuck
    assert lens_restarts(lab, stuck, 0.6, True, replace(cfg, lens_restart_steep_margin=0.0))[0] is stuck
    # a margin the drop does not reach keeps the fit
    assert lens_restarts(lab, stuck, 0.6, True, replace(cfg, lens_restart_steep_margin=0.05))[0] is stuck
    assert np.isfinite(_polish_cost(lab, best, cfg))
