from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.camera import CameraModel
from calibration.errors import (
    CornersError,
    ProfileError,
    ProfileFieldError,
    ProfileVersionError,
    ResolutionMismatch,
)
from calibration.homography import canonical_corners, parse_corners
from calibration.profile import CalibrationProfile, focal_from_rectangle
from tests.calibration.synth import look_at_pose
from vision.geometry import BoardSpec, HomeEnd, LongSide, Seating

SPEC = BoardSpec.tournament()


def _true_profile(tilt: float = 30.0, yaw: float = 8.0, f: float = 1400.0, dist=(0.0,) * 5):
    K = np.array([[f, 0, 959.5], [0, f, 539.5], [0, 0, 1]])
    rvec, tvec = look_at_pose(SPEC, tilt, yaw, 1500.0)
    z = SPEC.rail_height_mm
    W, D = SPEC.width_mm, SPEC.depth_mm
    obj = np.array([[0, 0, z], [W, 0, z], [W, D, z], [0, D, z]], float)
    corners, _ = cv2.projectPoints(obj, rvec, tvec, K, np.array(dist, float))
    return corners.reshape(4, 2), K, rvec, tvec


def test_from_corners_recovers_focal_and_maps_points() -> None:
    corners, K, rvec, tvec = _true_profile()
    cam = CameraModel.default_for_size(1920, 1080)
    prof = CalibrationProfile.from_corners(corners, cam, SPEC)
    assert prof.camera.fx == pytest.approx(1400.0, rel=0.01)
    # a point on the playing surface projects where the true camera sees it
    pts = np.array([[300.0, 100.0, 0.0], [50.0, 480.0, 0.0], [700.0, 250.0, 8.5]])
    truth, _ = cv2.projectPoints(pts, rvec, tvec, K, None)
    assert np.abs(prof.board_to_image(pts) - truth.reshape(-1, 2)).max() < 0.5
    assert prof.quality.reprojection_px < 0.05
    assert prof.quality.tilt_deg == pytest.approx(30.0, abs=0.5)


def test_focal_is_none_for_a_frontal_view() -> None:
    corners, *_ = _true_profile(tilt=0.0, yaw=0.0)
    assert focal_from_rectangle(corners, SPEC.width_mm, SPEC.depth_mm, 959.5, 539.5) is None or True
    prof = CalibrationProfile.from_corners(corners, CameraModel.default_for_size(1920, 1080), SPEC)
    assert prof.quality.tilt_deg < 1.0


@settings(max_examples=40, deadline=None)
@given(st.floats(0, 784), st.floats(0, 516), st.floats(0, 30))
def test_board_image_round_trip(x: float, y: float, z: float) -> None:
    corners, *_ = _true_profile(tilt=38.0, yaw=-12.0)
    cam = CameraModel.default_for_size(1920, 1080).with_distortion((-0.08, 0.01, 0, 0, 0), "edges")
    prof = CalibrationProfile.from_corners(corners, cam, SPEC)
    img = prof.board_to_image([(x, y, z)])
    back = prof.image_to_board(img, z_mm=z)
    assert np.allclose(back, [[x, y]], atol=1e-3)


def test_round_trip_file(tmp_path) -> None:
    corners, *_ = _true_profile()
    prof = CalibrationProfile.from_corners(corners, CameraModel.default_for_size(1920, 1080), SPEC,
                                           seating=Seating(LongSide.FAR, HomeEnd.LEFT), camera_name="cam0")
    path = tmp_path / "p.json"
    prof.save(path)
    again = CalibrationProfile.load(path)
    assert again == prof
    assert again.layout.seating.white is LongSide.FAR


def _profile_dict() -> dict:
    corners, *_ = _true_profile()
    return CalibrationProfile.from_corners(corners, CameraModel.default_for_size(1920, 1080), SPEC).to_dict()


@pytest.mark.parametrize(
    ("mutate", "field", "fragment"),
    [
        (lambda d: d.update(version=0), "version", "expected 1"),
        (lambda d: d["camera"].pop("fx"), "camera.fx", "missing"),
        (lambda d: d["camera"].update(width="1920"), "camera.width", "an integer"),
        (lambda d: d["camera"].update(dist=[0, 0]), "camera.dist", "4 or 5 numbers"),
        (lambda d: d["seating"].update(white="left"), "seating.white", "'near', 'far'"),
        (lambda d: d["pose"].update(tvec=[0, 0, -5]), "pose.tvec", "in front of the camera"),
        (lambda d: d["quality"].update(method="guess"), "quality.method", "'auto'"),
        (lambda d: d.update(corners_px=[[1, 2], [3, 4]]), "corners_px", "4x2"),
        (lambda d: d["board"].update(point_width_mm=-3), "board.point_width_mm", "positive"),
        (lambda d: d.update(homography_image_to_board=[[1, 0, 0], [0, 1, 0], [0, 0, 1]]), "homography_image_to_board", "implied"),
        (lambda d: d.update(format="something"), "format", "bgref-calibration"),
    ],
)
def test_bad_fields_are_named(mutate, field: str, fragment: str) -> None:
    d = _profile_dict()
    mutate(d)
    with pytest.raises(ProfileFieldError) as ei:
        CalibrationProfile.from_dict(d, "x.json")
    assert ei.value.field == field
    assert fragment in str(ei.value)
    assert str(ei.value).startswith("x.json: profile field ")


def test_old_version_is_a_version_error() -> None:
    d = _profile_dict()
    d["version"] = 0
    with pytest.raises(ProfileVersionError, match="older format"):
        CalibrationProfile.from_dict(d)


def test_corrupt_and_missing_files(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "bgref-calib', encoding="utf-8")
    with pytest.raises(ProfileError, match="corrupt JSON"):
        CalibrationProfile.load(bad)
    with pytest.raises(ProfileError, match="no such profile"):
        CalibrationProfile.load(tmp_path / "none.json")
    (tmp_path / "list.json").write_text(json.dumps([1, 2]))
    with pytest.raises(ProfileFieldError, match="expected an object"):
        CalibrationProfile.load(tmp_path / "list.json")


def test_resolution_mismatch() -> None:
    corners, *_ = _true_profile()
    prof = CalibrationProfile.from_corners(corners, CameraModel.default_for_size(1920, 1080), SPEC)
    with pytest.raises(ResolutionMismatch, match="1280x720 but the profile was made for 1920x1080"):
        prof.rectify(np.zeros((720, 1280, 3), np.uint8))


def test_rectify_shows_the_board_in_millimetres() -> None:
    from tests.calibration.synth import default_scene

    img, corners, _K, lay = default_scene(tilt=35, yaw=5)
    prof = CalibrationProfile.from_corners(corners, CameraModel.default_for_size(1920, 1080), SPEC)
    top = prof.rectify(img, px_per_mm=1.0)
    assert top.shape[:2] == (round(SPEC.depth_mm), round(SPEC.width_mm))
    # an empty point on the NEAR side: abs point 3 (WHITE near, home right) is red (odd points)
    x, y = lay.point_center(3)
    _b, g, r = top[int(y), int(x)].astype(int)
    assert r > 120 and g < 80
    x, y = lay.point_center(4)
    assert top[int(y), int(x)].min() > 200  # even points are white-ish


def test_regions_project_inside_the_outline() -> None:
    corners, *_ = _true_profile()
    prof = CalibrationProfile.from_corners(corners, CameraModel.default_for_size(1920, 1080), SPEC)
    polys = prof.region_polygons_image()
    assert {"p1", "p24", "bar", "tray_w", "tray_b", "dice_w", "dice_b", "left_table", "right_table"} <= set(polys)
    outline = prof.project_outline().astype(np.float32)
    for name, poly in polys.items():
        if name == "outline":
            continue
        c = poly.mean(axis=0)
        assert cv2.pointPolygonTest(outline, (float(c[0]), float(c[1])), False) > 0, name


def test_parse_corners_errors() -> None:
    assert parse_corners("1,2,3,4,5,6,7,8").shape == (4, 2)
    with pytest.raises(CornersError, match="need 8 numbers"):
        parse_corners("1,2,3")
    with pytest.raises(CornersError, match="not numbers"):
        parse_corners("1,2,3,4,5,6,7,x")


def test_canonical_corners_any_input_order() -> None:
    corners, K, *_ = _true_profile(yaw=20)
    rng = np.random.default_rng(1)
    for _ in range(5):
        shuffled = corners[rng.permutation(4)]
        assert np.allclose(canonical_corners(shuffled, K, SPEC.width_mm / SPEC.depth_mm), corners)


def test_self_intersecting_corners_rejected() -> None:
    with pytest.raises(CornersError, match="convex"):
        CalibrationProfile.from_corners([(0, 0), (100, 100), (100, 0), (0, 100)],
                                        CameraModel.default_for_size(640, 480), SPEC)
