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
                     angles_deg: npt.NDArray[Any] | None = None, margin: int = 0) -> list[U8Array]:
    """PATCH x PATCH grey patches of the board squares (side ``edge * CONTEXT * scale``, centred on
    ``centres`` in board mm) on the plane at height ``z`` mm, through each square's homography.

    With ``margin`` each patch is ``margin`` pixels larger on every side at the same scale (a
    window): its PATCH x PATCH slices are the patches of squares shifted by whole patch pixels
    (``read_dice`` re-reads a candidate on shifted squares from one window).  When the image is finer
    than the patch (a near camera, 1080p) the source is smoothed first so the resampling does not
    alias the pips."""
    size = PATCH + 2 * margin
    k = size / PATCH
    s0 = np.ones(len(np.asarray(centres).reshape(-1, 2))) if scales is None else np.asarray(scales, np.float64)
    corners = patch_corners_mm(centres, edge, s0 * k, angles_deg)
    n = len(corners)
    if n == 0:
        return []
    dst = np.array([[-0.5, -0.5], [size - 0.5, -0.5], [size - 0.5, size - 0.5], [-0.5, size - 0.5]], np.float32)
    flat = corners.reshape(-1, 2)
    img = np.asarray(profile.board_to_image(np.column_stack([flat, np.full(len(flat), z)])), np.float64)
    quads = img.reshape(n, 4, 2).astype(np.float32)
    out: list[U8Array] = []
    h, w = gray.shape[:2]
    for q in quads:
        # source pixels per patch pixel (mean of the two sides): > 1.5 -> smooth the region first
        ratio = (float(np.linalg.norm(q[1] - q[0])) + float(np.linalg.norm(q[3] - q[0]))) / (2 * size)
        m = cv2.getPerspectiveTransform(dst, q)
        src: Any = gray
        if ratio > 1.5:
            x0, y0 = np.floor(q.min(axis=0)).astype(int) - 3
            x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 4
            x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1))
            if x1 > x0 and y1 > y0:
                src = cv2.GaussianBlur(gray[y0:y1, x0:x1], (0, 0), 0.45 * ratio)
                m = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ m
        p = cv2.warpPerspective(src, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
        out.append(p)
    return out


def _pct(a: npt.NDArray[Any], q: float) -> npt.NDArray[np.float64]:
    """Row-wise percentile ``q`` of row-sorted ``a`` (numpy's default 'linear' method)."""
    idx = q / 100 * (a.shape[1] - 1)
    i = int(np.floor(idx))
    f = idx - i
    lo = a[:, i].astype(np.float64)
    if f == 0 or i + 1 >= a.shape[1]:
        return lo
    out: npt.NDArray[np.float64] = lo + f * (a[:, i + 1].astype(np.float64) - lo)
    return out


def normalise_fast(patches: list[U8Array]) -> npt.NDArray[np.float32]:
    """:func:`vision.preprocess.normalise_patches` (the same numbers, to float rounding) computed from
    one radix sort of each uint8 patch instead of numpy's percentile calls: the live loop's version."""
    if not patches:
        return np.zeros((0, 1, PATCH, PATCH), np.float32)
    raw = np.stack(patches)
    n = len(raw)
    k = PATCH // 6
    c = np.sort(raw[:, k : PATCH - k, k : PATCH - k].reshape(n, -1), axis=1, kind="stable")
    lo, med, hi = _pct(c, 3), _pct(c, 50), _pct(c, 97)
    light = (hi - med) > (med - lo)
    a = np.sort(raw.reshape(n, -1), axis=1, kind="stable")
    p2, p98 = _pct(a, 2), _pct(a, 98)
    lo2 = np.where(light, 255.0 - p98, p2)
    hi2 = np.where(light, 255.0 - p2, p98)
    p = raw.astype(np.float32)
    p[light] = 255.0 - p[light]
    scale = np.maximum(hi2 - lo2, 8.0).astype(np.float32)
    p = (p - lo2.astype(np.float32)[:, None, None]) / scale[:, None, None]
    out: npt.NDArray[np.float32] = np.clip(p * 2.0 - 1.0, -1.5, 1.5).astype(np.float32)[:, None]
    return out
