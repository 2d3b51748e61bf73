"""The lens restarts (``calibration.board.lens_restarts``) on a rendered board whose lens is stuck.

Seed 3383 (a SEEN scene: walnut inlay, 9.5 degrees from frontal, rendered at 1920x1080 by the simulator; the
true camera has f 1268 px, k1 -0.211).  The pose and lens below are where the automatic path stood before
the lens restarts on that scene: f 1524 px and k1 -0.290, the two trading off at the image's edge, the far
corners within 0.8 px and the near ones 3.3 and 4.4 px off, at a polish edge cost (0.313) above the truth's
(0.265).  Re-posed through a shorter focal length with the same distortion in pixels, the fit reaches the
lower cost and every corner comes within 0.5 px of the truth.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.board import _lens_scaled, _polish_cost, lens_restarts
from calibration.config import CalibrationConfig
from calibration.profile import CalibrationProfile
from calibration.scenes import corner_errors
from tests.calibration.stuck import stuck_scene

SEED = 3383
FX = 1524.1365369161604
DIST = (-0.29001414239954204, -0.002222166646348687, 0.0009573110885075073, 0.0016296305412357387, 0.0)
RVEC = (0.25453288206878927, -3.1082060252017025, 0.3046249765625963)
TVEC = (442.4126814620854, -183.11938602897746, 1028.131273093598)


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return stuck_scene(SEED, tmp_path_factory.mktemp("lens_scenes"), FX, DIST, RVEC, TVEC, "default")


def test_the_lens_scaled_camera_shows_the_board_where_it_was(scene) -> None:
    _, _, stuck = scene
    cam, rv, tv = _lens_scaled(stuck, 0.8)
    assert cam.fx == pytest.approx(0.8 * FX) and cam.dist[0] == pytest.approx(0.64 * DIST[0])
    moved = CalibrationProfile.from_pose(cam, stuck.spec, rv, tv, reprojection_px=0.5)
    # the same outline in the image (to a pixel or so: a shorter lens is a different perspective)
    assert float(np.abs(np.asarray(moved.corners_px) - np.asarray(stuck.corners_px)).max()) < 3.0


def test_the_lens_restarts_free_the_stuck_lens(scene) -> None:
    lab, truth, stuck = scene
    cfg = CalibrationConfig()
    assert float(corner_errors(stuck.corners_px, truth).max()) > 4.0
    best, _ = lens_restarts(lab, stuck, 0.6, True, cfg)
    assert best is not stuck
    assert float(corner_errors(best.corners_px, truth).max()) < 0.5
    assert _polish_cost(lab, best, cfg) < _polish_cost(lab, stuck, cfg)
    assert best.camera.fx == pytest.approx(1268.0, rel=0.05)
    # switched off, or with a known lens, they change nothing
    assert lens_restarts(lab, stuck, 0.6, True, replace(cfg, lens_restarts=()))[0] is stuck
    assert lens_restarts(lab, stuck, 0.6, False, cfg)[0] is stuck
    # nor in a view steeper than the limit (this one is ~9.5 degrees from frontal) without steep restarts
    steep = replace(cfg, lens_restart_max_tilt_deg=5.0, lens_restart_steep_margin=0.0)
    assert lens_restarts(lab, stuck, 0.6, True, steep)[0] is stuck
    # beyond the limit a restart must lower the cost by lens_restart_steep_margin (here it does, by ~0.05)
    assert lens_restarts(lab, stuck, 0.6, True, replace(cfg, lens_restart_max_tilt_deg=5.0, lens_restart_steep_margin=0.2))[0] is stuck


def _counting(monkeypatch):
    import calibration.model as model

    calls = []
    real = model.fit_pose

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(model, "fit_pose", counted)
    return calls


def test_the_walk_stops_at_the_first_restart_worse_than_its_start(scene, monkeypatch) -> None:
    """Session 6: the restarts stop at the first whose cost is not below the starting fit's (the first, 0.85,
    is a probe): on this stuck lens each one lowers it (all three run, the same fix as trying them all); from
    the fixed fit the probe does not (one fit, not three) and the fit is kept."""
    lab, truth, stuck = scene
    cfg = CalibrationConfig()
    assert cfg.lens_restart_early_stop
    calls = _counting(monkeypatch)
    walked, _ = lens_restarts(lab, stuck, 0.6, True, cfg)
    assert len(calls) == 3
    assert float(corner_errors(walked.corners_px, truth).max()) < 0.5
    calls.clear()
    again, _ = lens_restarts(lab, walked, 0.6, True, cfg)
    assert again is walked and len(calls) == 1
    calls.clear()
    full, _ = lens_restarts(lab, walked, 0.6, True, replace(cfg, lens_restart_early_stop=False))
    assert len(calls) == 3 and _polish_cost(lab, full, cfg) <= _polish_cost(lab, walked, cfg)


def test_the_bench_tells_a_stuck_fit_from_a_biased_one(scene) -> None:
    """``bench.failure_kind``: the stored pose is STUCK (the truth's polish edge cost is lower: a restart can
    reach it), while the fit started AT the truth with a free lens settles 0.3 px away at a LOWER cost than
    the truth's (the edges themselves favour it: biased; on this scene by 0.002, harmlessly)."""
    from calibration.bench import failure_kind, truth_profile
    from calibration.board import _polish_refit

    lab, truth, stuck = scene
    cfg = CalibrationConfig()
    kind = failure_kind(lab, stuck, truth, cfg)
    assert kind["failure_kind"] == "stuck"
    assert kind["edge_cost_fit"] == pytest.approx(_polish_cost(lab, stuck, cfg), abs=1e-4)
    assert kind["edge_cost_truth"] < kind["edge_cost_fit"] - 0.03
    tp = truth_profile(truth, 1920, 1080)
    assert float(np.abs(np.asarray(tp.corners_px) - truth.corners_px).max()) < 0.01
    refit = _polish_refit(lab, tp.camera, tp.spec, np.asarray(tp.rvec), np.asarray(tp.tvec),
                          cfg.outline_polish_searches, cfg)
    assert refit is not None
    assert failure_kind(lab, refit[0], truth, cfg)["failure_kind"] == "biased"
