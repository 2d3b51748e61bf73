"""The camera model, and that the ray-cast board and the projected pieces agree."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from referee.cli import main
from vision.geometry import BoardLayout, BoardSpec, Seating
from vision.sim.config import SimConfig
from vision.sim.optics import CameraModel, CameraModelError
from vision.sim.render import static_board
from vision.sim.scene import SCHEMES, frame_camera, random_scene, sample_lighting


def test_projection_and_undistortion_round_trip() -> None:
    cam = CameraModel.look_at(800, 600, 65, eye=(300, 900, 700), target=(390, 260, 0), roll_deg=7,
                              dist=(-0.2, 0.05, 0.001, -0.001, 0.0))
    pts = np.random.default_rng(0).uniform([0, 0, 0], [780, 516, 30], (200, 3))
    px = cam.project(pts)
    pc = cam.to_camera(pts)
    und = cam.undistort_normalised((px[:, 0] - cam.cx) / cam.fx, (px[:, 1] - cam.cy) / cam.fy)
    assert np.allclose(und[:, 0], pc[:, 0] / pc[:, 2], atol=1e-6)
    assert np.allclose(und[:, 1], pc[:, 1] / pc[:, 2], atol=1e-6)
    assert CameraModel.from_json(cam.to_json()) == cam


def test_tilt_and_framing() -> None:
    lay = BoardLayout(BoardSpec.tournament(), Seating())
    for tilt in (0.0, 20.0, 45.0):
        cam = frame_camera(lay, 1280, 720, tilt_deg=tilt, azimuth_deg=10, roll_deg=3, hfov_deg=60, fill=0.9,
                           dist=(-0.1, 0.0, 0.0, 0.0, 0.0), target_jitter=(0.0, 0.0))
        assert cam.tilt_deg == pytest.approx(tilt, abs=0.5)
        p = cam.project([(x, y, lay.spec.rail_height_mm) for x, y in lay.outline().corners()])
        assert p[:, 0].min() >= 0 and p[:, 0].max() < 1280 and p[:, 1].min() >= 0 and p[:, 1].max() < 720
    with pytest.raises(CameraModelError, match="coincide"):
        CameraModel.look_at(640, 480, 60, eye=(1, 2, 3), target=(1, 2, 3))


def test_ray_cast_board_matches_projection_under_strong_distortion() -> None:
    cfg = SimConfig().with_overrides(schemes=("green_felt",), tilt_deg=40, k1=-0.22, k2=0.02, uneven=0.0,
                                     vignette=0.0, glare=0.0, boards=("tournament",))
    scene = random_scene(2, cfg, width=640, height=480)
    st = static_board(scene.layout, scene.scheme, scene.camera, scene.lighting, scene.seed)
    lay = scene.layout
    for p in range(1, 25):
        (x0, by), (x1, _), (xt, ty), _ = lay.point_polygon(p)
        cx, cy = (x0 + x1 + xt) / 3, (by * 2 + ty) / 3  # the triangle's centroid
        u, v = scene.camera.project([(cx, cy, 0.0)])[0]
        b, _g, r = st.image[round(v), round(u)].astype(float)
        ivory = p % 2 == 1  # green_felt: odd points ivory, even points red
        assert (b / max(r, 1.0) > 0.6) == ivory, (p, b, r)


def test_lighting_direction_is_a_unit_vector_above_the_board() -> None:
    import random

    lay = BoardLayout()
    for s in range(20):
        L = np.asarray(sample_lighting(lay, SimConfig(), random.Random(s)).direction)
        assert np.linalg.norm(L) == pytest.approx(1.0) and L[2] > 0.5
    assert len(SCHEMES) >= 6 and "dark_on_dark" in SCHEMES


def test_cli_render_scene(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", "scene", "--seed", "4", "--size", "640x480", "--clean", "--out", str(tmp_path)]) == 0
    truth = json.loads((tmp_path / "scene_000004.json").read_text())
    assert truth["schema"] == "bgref.sim.truth/1" and truth["camera"]["width"] == 640
    assert (tmp_path / "scene_000004.jpg").stat().st_size > 10_000
    with pytest.raises(SystemExit):
        main(["render", "scene", "--size", "10x10", "--out", str(tmp_path)])
    assert main(["render", "game", "--out", str(tmp_path), "--infractions", "nope@2"]) == 2
    assert "nope@2" in capsys.readouterr().err
