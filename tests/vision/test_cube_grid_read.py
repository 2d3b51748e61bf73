"""The grid read (``CubeConfig.grid_read``): a cube on a player's side in a played game, found off its top."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.profile import CalibrationProfile
from tests.vision.test_cube import needs_model
from vision.cube import CubeBlob, CubeConfig, CubeSampler, grid_windows, read_cube
from vision.observation import CubePosition

DATA = Path(__file__).resolve().parent / "data"


def _game_frame(name: str) -> tuple[np.ndarray, CalibrationProfile, dict[str, object]]:
    """A played game's frame (``referee.recorded``'s director, 1280x720): the part around the cube as
    rendered (JPEG), the rest of the frame filled with that part's median colour."""
    meta = json.loads((DATA / f"{name}.json").read_text())
    part = cv2.imread(str(DATA / f"{name}.jpg"))
    assert part is not None, f"{name}.jpg missing"
    w, h = meta["size"]
    x0, y0 = meta["origin"]
    frame = np.empty((h, w, 3), np.uint8)
    frame[:] = np.median(part.reshape(-1, 3), axis=0).astype(np.uint8)
    frame[y0:y0 + part.shape[0], x0:x0 + part.shape[1]] = part
    return frame, CalibrationProfile.load(DATA / f"{name}.profile.json"), meta


@needs_model
def test_a_taken_cube_found_off_its_top_by_the_rail_is_read_by_the_grid() -> None:
    """s12f 7492 seq 247: a 2 on Black's side after his take, by the tray's rail end, 39x42 px.  The
    search finds it 10 mm off its top, re-centring slides 17 mm off, and every earlier read leaves the
    face unsure; the grid around the found window reads it (2 at 1.0 a window 1 mm from the top).
    Without the grid read the face is unread on every still frame of that stretch of the game."""
    frame, prof, meta = _game_frame("cube_game_7492_247")
    cube = meta["cube"]
    assert isinstance(cube, dict) and cube["face"] == 2 and cube["position"] == "black"
    sampler = CubeSampler(prof)
    r = read_cube(frame, sampler, CubeConfig())
    assert r is not None
    assert r.face == 2 and r.face_confidence >= 0.999
    assert r.position is CubePosition.BLACK_SIDE and r.position_confidence >= 0.9
    before = read_cube(frame, sampler, replace(CubeConfig(), grid_read=False))
    assert before is not None and before.face is None and before.position is CubePosition.BLACK_SIDE


def test_grid_windows_step_along_the_windows_edges() -> None:
    w = CubeBlob((100.0, 50.0), 25.0, 30.0, 1.0)
    grid = grid_windows(w, 0.3, 1)
    assert len(grid) == 8 and all(g.side_mm == w.side_mm and g.rotation_deg == w.rotation_deg for g in grid)
    d = sorted(math.dist(g.center_mm, w.center_mm) for g in grid)
    assert d[:4] == [7.5] * 4 or np.allclose(d[:4], 7.5)
    assert np.allclose(d[4:], 7.5 * math.sqrt(2))
    t = math.radians(30.0)
    along = [(g.center_mm[0] - 100.0, g.center_mm[1] - 50.0) for g in grid]
    assert any(np.allclose(v, (7.5 * math.cos(t), 7.5 * math.sin(t))) for v in along)
