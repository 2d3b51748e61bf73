"""The model fit's analytic Jacobian (``calibration.model._residuals_jac``, session 7) against forward differences.

No image is needed: the residuals are perpendicular distances from given observations to the projected board
edges, so any pose, lens and observation set exercises every column (pose, log focal length, k1 k2 p1 p2, the
lens prior rows).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.model import _residuals, _residuals_jac, model_segments, triangle_segments
from vision.geometry import BoardSpec


def _setup() -> tuple[CameraModel, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    spec = BoardSpec.by_name("tournament")
    segs = model_segments(spec) + triangle_segments(spec)
    P = np.array([[*s.a, 0.0 if s.flat else spec.rail_height_mm] for s in segs], np.float64)
    T = np.array([[s.b[0] - s.a[0], s.b[1] - s.a[1], 0.0] for s in segs], np.float64)
    T /= np.linalg.norm(T, axis=1, keepdims=True)
    cam = replace(CameraModel.default_for_size(1920, 1080), fx=1300.0, fy=1300.0).with_distortion(
        (-0.2, 0.03, 0.001, -0.0008, 0.0), "default")
    p = np.array([0.3, 2.9, -0.5, 380.0, -240.0, 900.0, 0.05, -0.21, 0.02, 0.0012, -0.0006])
    rng = np.random.default_rng(7)
    obs = rng.uniform([200.0, 100.0], [1700.0, 1000.0], size=(len(P), 2))
    return cam, p, obs, P, T


@pytest.mark.parametrize("free", [True, False])
def test_the_analytic_jacobian_matches_forward_differences(free: bool) -> None:
    cam, p, obs, P, T = _setup()
    prior0 = np.array([0.0, -0.2, 0.0, 0.0, 0.0])
    r, J = _residuals_jac(p, cam, obs, P, T, free, prior0)
    r0 = _residuals(p, cam, obs, P, T, free, prior0)
    assert np.allclose(r, r0)
    assert J.shape == (len(r0), 11 if free else 6)
    for j in range(J.shape[1]):
        h = 1e-3 if 3 <= j < 6 else 1e-7
        dp = np.zeros_like(p)
        dp[j] = h
        fd = (_residuals(p + dp, cam, obs, P, T, free, prior0) - _residuals(p - dp, cam, obs, P, T, free, prior0)) / (2 * h)
        assert np.abs(J[:, j] - fd).max() <= 1e-4 * max(1.0, float(np.abs(fd).max())), j
