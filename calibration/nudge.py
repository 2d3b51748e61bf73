"""Nudged boards on rendered video: is the move noticed within a second, and re-fitted?

The simulator renders the starting position, then the same scene with the board shifted by
``shift_mm`` and turned by ``rot_deg`` about its centre.  The scene API has no board pose of its own,
so the move is rendered as the equivalent camera move (the camera pose composed with the inverse
motion): the board, pieces and table all move together in the image, exactly as when the camera
is nudged; the tracker sees the same outline change either way.  A 30 fps clip is made of the two
renders with fresh sensor noise per frame: ``still_s`` seconds before the nudge, ``after_s`` after.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.profile import CalibrationProfile
from calibration.scenes import SceneTruth, corner_errors, truth_of
from calibration.tracking import BoardTracker, TrackStatus
from rules.position import Position

Image = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class NudgeResult:
    seed: int
    shift_mm: float
    rot_deg: float
    detected_after_s: float | None
    """Seconds from the nudge to the first frame the tracker stopped reporting OK."""
    refitted_after_s: float | None
    corner_err_px: float | None
    """Largest corner error of the re-fitted profile against the nudged truth."""
    false_alarm: bool
    """The tracker left OK before the nudge."""


def nudged_scene(scene: Any, shift_mm: tuple[float, float], rot_deg: float) -> Any:
    """``scene`` with the board moved by ``shift_mm`` and turned ``rot_deg`` about its centre (as a camera move)."""
    cam = scene.camera
    o = scene.layout.outline()
    cx, cy = o.center
    th = math.radians(rot_deg)
    Rn = np.array([[math.cos(th), -math.sin(th), 0], [math.sin(th), math.cos(th), 0], [0, 0, 1.0]])
    tn = np.array([cx, cy, 0.0]) - Rn @ np.array([cx, cy, 0.0]) + np.array([shift_mm[0], shift_mm[1], 0.0])
    Rc = cam.R
    R2 = Rc @ Rn
    t2 = Rc @ tn + np.asarray(cam.tvec, float)
    rv, _ = cv2.Rodrigues(R2)
    new_cam = replace(cam, rvec=tuple(float(v) for v in rv.ravel()), tvec=tuple(float(v) for v in t2))
    return replace(scene, camera=new_cam)


def start_scene(seed: int, width: int, height: int, tilt_max: float = 45.0) -> Any:
    from vision.sim.config import SimConfig
    from vision.sim.scene import random_scene

    cfg = SimConfig().with_overrides(tilt_deg=(0.0, tilt_max), hands_p=0.0)
    return random_scene(seed, cfg, width=width, height=height, position=Position.initial())


def render_pair(seed: int, width: int, height: int, tilt_max: float = 45.0
                ) -> tuple[Image, SceneTruth, Image, SceneTruth, float, float]:
    """Renders before and after a random nudge (shift 10-30 mm, turn 2-5 degrees, random directions)."""
    from vision.sim.render import render

    rng = random.Random(seed * 7 + 1)
    scene = start_scene(seed, width, height, tilt_max)
    dist = rng.uniform(10.0, 30.0)
    ang = rng.uniform(0, 2 * math.pi)
    rot = rng.uniform(2.0, 5.0) * rng.choice((-1, 1))
    moved = nudged_scene(scene, (dist * math.cos(ang), dist * math.sin(ang)), rot)
    a, _ = render(scene)
    b, _ = render(moved)
    return np.asarray(a, np.uint8), truth_of(scene), np.asarray(b, np.uint8), truth_of(moved), dist, abs(rot)


def run_clip(profile: CalibrationProfile, before: Image, after: Image, truth_after: SceneTruth, *, seed: int,
             shift_mm: float, rot_deg: float, fps: float = 30.0, still_s: float = 1.0, after_s: float = 2.0,
             noise: float = 2.0) -> NudgeResult:
    """Feed the tracker a clip: ``before`` for ``still_s``, then ``after``; time the detection and re-fit."""
    rng = np.random.default_rng(seed)
    tracker = BoardTracker(profile, before)
    n0, n1 = round(still_s * fps), round(after_s * fps)
    detected = refitted = None
    err = None
    false_alarm = False
    for i in range(n0 + n1):
        base = before if i < n0 else after
        frame = np.clip(base.astype(np.int16) + rng.normal(0, noise, base.shape).astype(np.int16), 0, 255
                        ).astype(np.uint8)
        t = i / fps
        u = tracker.update(frame, t)
        if i < n0:
            false_alarm |= u.status is not TrackStatus.OK
            continue
        if detected is None and u.status is not TrackStatus.OK:
            detected = t - still_s
        if u.status is TrackStatus.REFITTED:
            refitted = t - still_s
            err = float(corner_errors(u.profile.corners_px, truth_after).max())
            break
        if u.status is TrackStatus.LOST:
            break
    return NudgeResult(seed, shift_mm, rot_deg, detected, refitted, err, false_alarm)
