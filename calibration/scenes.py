"""Rendered starting positions with their truth, cached on disk (for the benchmark and the tests).

A scene is rendered once by the simulator (:mod:`vision.sim`) and kept as ``DIR/<key>/<seed>.png`` plus
``<seed>.json`` (the truth calibration is judged against: the board's corners, the camera, the
seating and every checker's place).  Rendering a 1080p frame takes seconds; reading one back, a few
milliseconds.  The default folder, ``build/calib_scenes``, is git-ignored.

>>> key_of(1920, 1080, 45.0)
'1920x1080_t45'
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rules.position import Position, Side
from vision.geometry import BoardLayout, BoardSpec, HomeEnd, LongSide, Seating

FloatArray = npt.NDArray[np.float64]
CACHE_VERSION = 1
DEFAULT_DIR = Path(__file__).resolve().parent.parent / "build" / "calib_scenes"


@dataclass(frozen=True, slots=True)
class SceneTruth:
    """What the renderer knows about a frame of the starting position."""

    seed: int
    spec: BoardSpec
    seating: Seating
    scheme: str
    tilt_deg: float
    corners_px: FloatArray
    """Outer top corners (z = rail height) in board order, as seen (with distortion)."""
    K: FloatArray
    dist: FloatArray
    rvec: FloatArray
    tvec: FloatArray
    checkers: tuple[tuple[str, str, float, float], ...]
    """(side name, region, x mm, y mm) of every checker."""

    @property
    def layout(self) -> BoardLayout:
        return BoardLayout(self.spec, self.seating)

    def project(self, pts: npt.ArrayLike) -> FloatArray:
        """Board mm (N, 3) -> image px through the true camera (OpenCV model)."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 3)
        img, _ = cv2.projectPoints(p, self.rvec, self.tvec, self.K, self.dist)
        return np.asarray(img, dtype=np.float64).reshape(-1, 2)

    def to_dict(self) -> dict[str, Any]:
        return {
            "cache_version": CACHE_VERSION, "seed": self.seed, "spec": self.spec.name,
            "seating": [self.seating.white.value, self.seating.white_home.value], "scheme": self.scheme,
            "tilt_deg": self.tilt_deg, "corners_px": self.corners_px.tolist(), "K": self.K.tolist(),
            "dist": self.dist.tolist(), "rvec": self.rvec.tolist(), "tvec": self.tvec.tolist(),
            "checkers": [list(c) for c in self.checkers],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SceneTruth:
        return cls(
            int(d["seed"]), BoardSpec.by_name(d["spec"]), Seating(LongSide(d["seating"][0]), HomeEnd(d["seating"][1])),
            str(d["scheme"]), float(d["tilt_deg"]), np.array(d["corners_px"], np.float64), np.array(d["K"], np.float64),
            np.array(d["dist"], np.float64), np.array(d["rvec"], np.float64), np.array(d["tvec"], np.float64),
            tuple((str(a), str(b), float(x), float(y)) for a, b, x, y in d["checkers"]),
        )


def key_of(width: int, height: int, tilt_max: float) -> str:
    return f"{width}x{height}_t{tilt_max:g}"


def render_start(seed: int, width: int, height: int, tilt_max: float = 45.0) -> tuple[npt.NDArray[np.uint8], SceneTruth]:
    """Render the starting position for ``seed`` (random board, colours, camera up to ``tilt_max``, light)."""
    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import random_scene

    cfg = SimConfig().with_overrides(tilt_deg=(0.0, tilt_max), hands_p=0.0)
    scene = random_scene(seed, cfg, width=width, height=height, position=Position.initial())
    img, _ = render(scene)
    return np.asarray(img, dtype=np.uint8), truth_of(scene)


def truth_of(scene: Any) -> SceneTruth:
    """The :class:`SceneTruth` of a :class:`vision.sim.scene.Scene` (a moved board: as the camera sees it)."""
    from vision.sim.scene import in_board_frame

    scene = in_board_frame(scene)
    lay = scene.layout
    cam = scene.camera
    corners = cam.project([(x, y, lay.spec.rail_height_mm) for x, y in lay.outline().corners()])
    ch = tuple(("WHITE" if c.side is Side.WHITE else "BLACK", c.region, float(c.center[0]), float(c.center[1]))
               for c in scene.checkers)
    return SceneTruth(
        scene.seed, lay.spec, lay.seating, scene.scheme.name, float(cam.tilt_deg), np.asarray(corners, np.float64),
        np.asarray(cam.K, np.float64), np.asarray(cam.dist, np.float64), np.asarray(cam.rvec, np.float64),
        np.asarray(cam.tvec, np.float64), ch,
    )


def load_or_render(
    seed: int, width: int, height: int, tilt_max: float = 45.0, folder: Path | None = None
) -> tuple[npt.NDArray[np.uint8], SceneTruth]:
    """The cached render of ``seed`` (rendering and caching it on a miss)."""
    d = (folder or DEFAULT_DIR) / key_of(width, height, tilt_max)
    png, js = d / f"{seed}.png", d / f"{seed}.json"
    if png.exists() and js.exists():
        try:
            data = json.loads(js.read_text())
            img = cv2.imread(str(png), cv2.IMREAD_COLOR)
            if data.get("cache_version") == CACHE_VERSION and img is not None:
                return np.asarray(img, dtype=np.uint8), SceneTruth.from_dict(data)
        except (ValueError, KeyError):
            pass
    img, truth = render_start(seed, width, height, tilt_max)
    d.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(png), img)
    js.write_text(json.dumps(truth.to_dict()))
    return img, truth


def corner_errors(found: npt.ArrayLike, truth: SceneTruth) -> FloatArray:
    """Per-corner pixel error, up to the board's 180-degree symmetry (both orders name the same board)."""
    got = np.asarray(found, dtype=np.float64).reshape(4, 2)
    errs = [np.linalg.norm(np.roll(got, r, axis=0) - truth.corners_px, axis=1) for r in (0, 2)]
    return min(errs, key=lambda e: float(e.max()))


def checkers_in_points(profile: Any, truth: SceneTruth) -> tuple[int, float]:
    """How many checkers on points fall outside their point as ``profile`` maps them, and the worst margin.

    Each checker's true centre (on the surface) is projected through the TRUE camera, mapped back to
    board millimetres by ``profile``, and must fall in the profile's rectangle of the same absolute
    point (base to tip, one point wide).  The margin (mm, negative outside) is the smallest distance
    of a centre to its rectangle's nearest edge across the width, minus the checker's true distance
    (the jitter the simulator adds), so 0 means "as far inside as the truth".
    """
    lay = profile.layout
    true_lay = truth.layout
    pts = [(x, y, 0.0) for _, r, x, y in truth.checkers if r.startswith("p")]
    regions = [int(r[1:]) for _, r, _, _ in truth.checkers if r.startswith("p")]
    if not pts:
        return 0, 0.0
    img = truth.project(pts)
    mm = profile.image_to_board(img, 0.0)
    bad = 0
    worst = math.inf
    for (x, y), (tx, _ty, _), p in zip(mm, pts, regions, strict=True):
        r = lay.point_rect(p)
        tr = true_lay.point_rect(p)
        inside = r.contains(float(x), float(y))
        bad += 0 if inside else 1
        margin = min(float(x) - r.x0, r.x1 - float(x)) - min(tx - tr.x0, tr.x1 - tx)
        worst = min(worst, margin)
    return bad, worst
