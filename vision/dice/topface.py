"""A die's up face rectified on the board: the patch the board face model reads.

On a calibrated board the plane of a flat die's top is known (z = the die's edge), so the up face
can be cut as a square in board millimetres and resampled through the local homography of that
plane to a ``PATCH`` x ``PATCH`` image: the face is then a square of fixed size in the patch
whatever the camera's angle or distance (no foreshortening, no side faces), which the oblique image
square of :func:`vision.preprocess.crop_patch` is not.  Training (``vision.training.faces``
``top_face_samples``) and inference (:func:`vision.dice.board.read_dice`) cut patches with
:func:`top_face_patches` and normalise them with :func:`vision.preprocess.normalise_patches`.

>>> import numpy as np
>>> class P:  # a camera looking straight down, 2 px/mm, board origin at pixel (10, 10)
...     def board_to_image(self, pts):
...         pts = np.asarray(pts, float)
...         return np.stack([10 + 2 * pts[:, 0], 10 + 2 * pts[:, 1]], axis=1)
>>> img = np.full((100, 100), 200, np.uint8); img[46:54, 46:54] = 20   # a dark pip at (20, 20) mm
>>> p = top_face_patches(img, P(), np.array([[20.0, 20.0]]), z=16.0, edge=16.0)[0]
>>> p.shape, int(p[16, 16]) < 100, int(p[2, 2]) > 100
((32, 32), True, True)
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.preprocess import CONTEXT, PATCH, U8Array

_UNIT = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float64)
_DST = np.array([[-0.5, -0.5], [PATCH - 0.5, -0.5], [PATCH - 0.5, PATCH - 0.5], [-0.5, PATCH - 0.5]], np.float32)


def patch_corners_mm(centres: npt.NDArray[Any], edge: float, scales: npt.NDArray[Any] | None = None,
                     angles_deg: npt.NDArray[Any] | None = None) -> npt.NDArray[np.float64]:
    """(N, 4, 2) board-mm corners of the patch squares: side ``edge * CONTEXT * scale``, turned by
    ``angle`` (degrees) about each centre."""
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    n = len(c)
    s = np.ones(n) if scales is None else np.asarray(scales, np.float64)
    a = np.zeros(n) if angles_deg is None else np.radians(np.asarray(angles_deg, np.float64))
    cos, sin = np.cos(a), np.sin(a)
    u, v = _UNIT[None, :, 0], _UNIT[None, :, 1]
    side = (edge * CONTEXT * s)[:, None]
    x = c[:, 0:1] + side * (cos[:, None] * u - sin[:, None] * v)
    y = c[:, 1:2] + side * (sin[:, None] * u + cos[:, None] * v)
    out: npt.NDArray[np.float64] = np.stack([x, y], axis=2)
    return out


def top_face_patches(gray: U8Array, profile: Any, centres: npt.NDArray[Any], z: float, edge: float,
                     scales: npt.NDArray[Any] | None = None,
                     angles_deg: npt.NDArray[Any] | None = None) -> list[U8Array]:
    """PATCH x PATCH grey patches of the board squares (side ``edge * CONTEXT * scale``, centred on
    ``centres`` in board mm) on the plane at height ``z`` mm, through each square's homography.

    When the image is finer than the patch (a near camera, 1080p) the source is smoothed first so
    the resampling does not alias the pips."""
    corners = patch_corners_mm(centres, edge, scales, angles_deg)
    n = len(corners)
    if n == 0:
        return []
    flat = corners.reshape(-1, 2)
    img = np.asarray(profile.board_to_image(np.column_stack([flat, np.full(len(flat), z)])), np.float64)
    quads = img.reshape(n, 4, 2).astype(np.float32)
    out: list[U8Array] = []
    h, w = gray.shape[:2]
    for q in quads:
        # source pixels per patch pixel (mean of the two sides): > 1.5 -> smooth the region first
        ratio = (float(np.linalg.norm(q[1] - q[0])) + float(np.linalg.norm(q[3] - q[0]))) / (2 * PATCH)
        m = cv2.getPerspectiveTransform(_DST, q)
        src: Any = gray
        if ratio > 1.5:
            x0, y0 = np.floor(q.min(axis=0)).astype(int) - 3
            x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 4
            x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1))
            if x1 > x0 and y1 > y0:
                src = cv2.GaussianBlur(gray[y0:y1, x0:x1], (0, 0), 0.45 * ratio)
                m = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ m
        p = cv2.warpPerspective(src, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
        out.append(p)
    return out
