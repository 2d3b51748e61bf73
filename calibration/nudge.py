"""Nudged boards on rendered video: is the move noticed within a second, and re-fitted?

The simulator renders the starting position, then the same scene with the board shifted by
``shift_mm`` and turned by ``rot_deg`` about its centre on the table (the scene's ``board_pose``:
board and pieces move, the camera, light, table and cup stay).  A 30 fps clip is made of the two
renders with fresh sensor noise per frame: ``still_s`` seconds before the nudge, ``after_s`` after.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from calibration.profile import CalibrationProfile
from calibration.scenes import DEFAULT_DIR, SceneTruth, corner_errors, key_of, truth_of
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
    """``scene`` with the board (and every piece on it) shifted by ``shift_mm`` and turned ``rot_deg``
    about its centre on the table; camera, light and table stay put (:class:`vision.sim.scene.BoardPose`)."""
    from vision.sim.scene import BoardPose

    return replace(scene, board_pose=BoardPose((float(shift_mm[0]), float(shift_mm[1])), float(rot_deg)))


def start_scene(seed: int, width: int, height: int, tilt_max: float = 45.0) -> Any:
    from vision.sim.config import SimConfig
    from vision.sim.scene import random_scene

    cfg = SimConfig().with_overrides(tilt_deg=(0.0, tilt_max), hands_p=0.0)
    return random_scene(seed, cfg, width=width, height=height, position=Position.initial())


def render_pair(seed: int, width: int, height: int, tilt_max: float = 45.0, folder: Path | None = None
                ) -> tuple[Image, SceneTruth, Image, SceneTruth, float, float]:
    """Renders before and after a random nudge (shift 10-30 mm, turn 2-5 degrees, random directions).

    With ``folder`` the pair is cached there (``<seed>.npz``: both frames, both truths, shift, turn)."""
    path = None if folder is None else Path(folder) / f"{key_of(width, height, tilt_max)}_nudge" / f"{seed}.npz"
    if path is not None and path.exists():
        try:
            z = np.load(path)
            meta = json.loads(str(z["meta"]))
            return (np.asarray(z["a"], np.uint8), SceneTruth.from_dict(meta["truth"]), np.asarray(z["b"], np.uint8),
                    SceneTruth.from_dict(meta["truth_after"]), float(meta["shift"]), float(meta["rot"]))
        except (OSError, ValueError, KeyError):
            pass  # a corrupt cache entry: render again
    out = _render_pair(seed, width, height, tilt_max)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"truth": out[1].to_dict(), "truth_after": out[3].to_dict(), "shift": out[4], "rot": out[5]}
        np.savez_compressed(path, a=out[0], b=out[2], meta=np.array(json.dumps(meta)))
    return out


def _render_pair(seed: int, width: int, height: int, tilt_max: float
                 ) -> tuple[Image, SceneTruth, Image, SceneTruth, float, float]:
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


def nudge_bench(seeds: list[int], width: int, height: int, tilt_max: float = 45.0, board: str = "truth",
                folder: Path | None = DEFAULT_DIR) -> list[dict[str, Any]]:
    """Calibrate each seed's start, nudge the board, feed the clip: one record per seed."""
    from calibration.errors import CalibrationError
    from calibration.pipeline import calibrate_frame

    out: list[dict[str, Any]] = []
    for seed in seeds:
        before, truth, after, truth_after, shift, rot = render_pair(seed, width, height, tilt_max, folder)
        rec: dict[str, Any] = {"seed": seed, "shift_mm": round(shift, 1), "rot_deg": round(rot, 2),
                               "board": truth.spec.name}
        try:
            prof = calibrate_frame(before, None if board == "auto" else truth.spec).profile
        except CalibrationError as exc:
            rec.update(calibrated=False, error=str(exc), success=False)
            out.append(rec)
            continue
        err0 = float(corner_errors(prof.corners_px, truth).max())
        res = run_clip(prof, before, after, truth_after, seed=seed, shift_mm=shift, rot_deg=rot)
        tol = 1.5 * width / 1920
        rec.update(calibrated=True, start_err_px=round(err0, 3), detected_s=res.detected_after_s,
                   refitted_s=res.refitted_after_s,
                   refit_err_px=None if res.corner_err_px is None else round(res.corner_err_px, 3),
                   false_alarm=res.false_alarm,
                   success=bool(not res.false_alarm and res.refitted_after_s is not None
                                and res.refitted_after_s <= 1.0 and res.corner_err_px is not None
                                and res.corner_err_px <= tol))
        out.append(rec)
    return out
