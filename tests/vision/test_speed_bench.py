"""``bgref bench vision``'s own logic (not speed: speed is a benchmark, never a timed test)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from calibration.profile import CalibrationProfile
from vision.bench import STAGES, _after_move, _table
from vision.config import VisionConfig

DATA = Path(__file__).parent / "data"


def test_after_move_times_full_readings_with_the_cube_kept(cube_reads: list[int]) -> None:
    """The "after a move elsewhere" figure comes from full readings of the live loop in which the
    cube stage kept its reading (read_cube runs once, for the first reading only)."""
    img = cv2.imread(str(DATA / "board_900023.jpg"))
    prof = CalibrationProfile.load(DATA / "board_900023.profile.json")
    out = _after_move(VisionConfig(still_frames=2), img, prof, 3)
    assert len(cube_reads) == 1
    for k in (*STAGES, "gate"):
        assert out[f"{k}_wall"] >= 0.0
    assert out["read_wall"] >= out["checkers_wall"] > 0.0 and out["read_cpu"] > 0.0


def test_table_reports_targets_stages_and_best_runs() -> None:
    stage = {k: 1.0 for k in (*STAGES, "overhead", "gate", "overhead_with_gate", "read")}
    size = {"wall_ms": stage, "cpu_ms": stage, "wall_best_ms": stage, "live_per_frame_ms": 0.2,
            "after_move_elsewhere_ms": {"read_wall": 3.0, "read_cpu": 2.0, "cube_cpu": 0.1}}
    res = {"frames": 1, "repeats": 3, "load_average": 1.0,
           "sizes": {"1920x1080": size, "1280x720": json.loads(json.dumps(size))}}
    text = "\n".join(_table(res))
    assert "read_1280x720" in text and "met" in text
    assert "best wall of 3 runs, 1280x720" in text
    assert "after checkers moved far from the cube (cube kept)" in text
