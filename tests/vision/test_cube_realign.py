"""Re-centred cube windows turned onto the top's edges (``CropSpec.realign``, models from session 6)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests.vision.test_cube import _frame, _paint
from vision.cube import CropSpec, CubeBlob, refine_blobs


@pytest.mark.parametrize(("turn", "offset"), [(0.0, (0.0, 0.0)), (12.0, (4.0, -3.0)), (-20.0, (-5.0, 2.0)),
                                              (30.0, (3.0, 5.0)), (-35.0, (0.0, -6.0))])
def test_realign_turns_the_window_onto_the_top(turn: float, offset: tuple[float, float]) -> None:
    """A cube top painted square to the board (edges at 0 degrees) on a dark field; a window off its
    centre by a few mm and turned ``turn`` degrees: re-centred and realigned it lies within 3 degrees
    and 3 mm of the top; re-centred only, it keeps its turn."""
    _, prof, _ = _frame(900023)
    size = prof.spec.cube_size_mm
    center = (300.0, 150.0)
    dark = np.full((prof.image_size[1], prof.image_size[0]), 30, np.uint8)
    img = _paint(dark, prof, center, size, 16, 0.0, size)
    start = CubeBlob((center[0] + offset[0], center[1] + offset[1]), size, turn % 90.0, 1.0, z_mm=size)
    got = refine_blobs(img, prof, [start], realign=True)[0]
    off = abs((got.rotation_deg + 45.0) % 90.0 - 45.0)
    assert off <= 3.0, got
    assert math.hypot(got.center_mm[0] - center[0], got.center_mm[1] - center[1]) <= 3.0, got
    plain = refine_blobs(img, prof, [start])[0]
    assert plain.rotation_deg == start.rotation_deg


def test_realign_travels_with_the_model(tmp_path: Path) -> None:
    rec = tmp_path / "m.train.json"
    rec.write_text(json.dumps({"crop": {"patch": 48, "sides": 1.8, "refine": True, "search_ppm": 0.75,
                                        "realign": True}}))
    assert CropSpec.of_model(tmp_path / "m.onnx").realign
    rec.write_text(json.dumps({"crop": {"patch": 48, "sides": 1.8, "refine": True, "search_ppm": 0.75}}))
    assert not CropSpec.of_model(tmp_path / "m.onnx").realign  # records before session 6
    # set apart for inference (chosen after training, on seen sets)
    rec.write_text(json.dumps({"crop": {"patch": 48, "sides": 1.8, "refine": True, "search_ppm": 0.75},
                               "inference": {"search_ppm": 0.5, "realign": True}}))
    spec = CropSpec.of_model(tmp_path / "m.onnx")
    assert spec.realign and spec.search_ppm == 0.5 and spec.patch == 48
