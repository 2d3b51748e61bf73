"""Flat, cocked or on the other die: the top face's geometry in board coordinates.

A flat die's top face is a square of the die's edge, parallel to the board, at height = the die's
edge.  :func:`pose_patch` rectifies the image around a die on two horizontal planes of the board:
z = the die's edge (a flat die's top is there: a sharp square of known size, in the middle) and
z = twice the edge (the top of a die resting on the other die).  Because the rectification is in
board millimetres, a flat die looks the same from any camera angle up to 45 degrees (its visible side
faces fall outside the square, on the side away from the camera), while a tilted top face is skewed,
shifted and blurred across the plane and a raised one is sharp only on the upper plane.  The patch
is turned so that the camera is always on the same side of it (which side faces a flat die shows is
then fixed, and a side face seen where a flat die cannot show one is a cue the model can use).  A small
CNN (``vision/models/die_pose.onnx``, trained on rendered dice by
``python -m vision.training.faces pose``) reads the two planes: flat / cocked (leaning on a checker,
the rail, the bar or the other die) / on top of the other die.

Training and inference share :func:`pose_patch` and :func:`normalise_pose`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.dice.classify import MODEL_DIR, session

DIE_POSE_MODEL = MODEL_DIR / "die_pose.onnx"
POSE_PATCH = 32
"""Side of the pose patch (pixels)."""
POSE_SPAN = 2.0
"""The pose patch covers this many die edges on each plane."""
FLAT, COCKED, ON_DIE = 0, 1, 2


@dataclass(frozen=True, slots=True)
class PoseGuess:
    """P(flat), P(cocked: leaning), P(on top of the other die)."""

    flat: float
    cocked: float
    on_die: float


def camera_centre(profile: Any) -> npt.NDArray[np.float64]:
    """The camera's optical centre in board millimetres (x, y, z)."""
    R, _ = cv2.Rodrigues(np.asarray(profile.rvec, np.float64))
    c: npt.NDArray[np.float64] = (-R.T @ np.asarray(profile.tvec, np.float64).reshape(3)).astype(np.float64)
    return c


def pose_patch(gray: npt.NDArray[Any], profile: Any, center_mm: tuple[float, float], edge_mm: float,
               camera_mm: npt.NDArray[np.float64] | None = None) -> npt.NDArray[np.uint8]:
    """(2, P, P) grey samples of the planes z = edge and z = 2 edges around ``center_mm`` (board mm),
    turned so that the camera lies straight "below" the patch: a flat die's visible side faces then
    always fall on the same side of its top square, whatever the camera's position."""
    n = POSE_PATCH
    span = POSE_SPAN * edge_mm
    g = (np.arange(n) + 0.5) / n * span - span / 2
    cam = camera_centre(profile) if camera_mm is None else camera_mm
    d = np.array([cam[0] - center_mm[0], cam[1] - center_mm[1]], np.float64)
    norm = float(np.hypot(d[0], d[1]))
    v = d / norm if norm > 1e-6 else np.array([0.0, 1.0])
    u = np.array([-v[1], v[0]])
    gu, gv = np.meshgrid(g, g)
    gx = center_mm[0] + gu * u[0] + gv * v[0]
    gy = center_mm[1] + gu * u[1] + gv * v[1]
    planes = []
    for z in (edge_mm, 2 * edge_mm):
        pts = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)], axis=1)
        img = profile.board_to_image(pts).astype(np.float32)
        planes.append(cv2.remap(gray, img[:, 0].reshape(n, n), img[:, 1].reshape(n, n), cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE))
    return np.stack(planes)


def normalise_pose(p: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """Each plane centred on its median and scaled by its spread (float32)."""
    x = p.astype(np.float32)
    med = np.median(x.reshape(len(x), -1), axis=1)[:, None, None]
    spread = np.maximum(np.percentile(x.reshape(len(x), -1), 95, axis=1) - np.percentile(x.reshape(len(x), -1), 5, axis=1), 16.0)
    out: npt.NDArray[np.float32] = ((x - med) / spread[:, None, None]).astype(np.float32)
    return out


class PoseClassifier:
    """Loads the ONNX pose model once."""

    def __init__(self, path: Path = DIE_POSE_MODEL) -> None:
        self._session = session(path)
        self._input = self._session.get_inputs()[0].name

    def classify(self, patches: list[npt.NDArray[np.uint8]]) -> list[PoseGuess]:
        if not patches:
            return []
        x = np.stack([normalise_pose(p) for p in patches]).astype(np.float32)
        logits = np.asarray(self._session.run(None, {self._input: x})[0], np.float32)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        return [PoseGuess(float(a), float(b), float(c)) for a, b, c in p]


_POSE: PoseClassifier | None = None


def pose_classifier() -> PoseClassifier | None:
    """The process-wide pose model, or None when its file is absent (flat/cocked then unsure)."""
    global _POSE
    if _POSE is None and DIE_POSE_MODEL.is_file():
        _POSE = PoseClassifier()
    return _POSE
