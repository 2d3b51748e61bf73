"""Plane geometry: homographies between the image and the board plane, poses, corner ordering.

Board-frame conventions (see :mod:`vision.geometry`): millimetres, origin at an outer corner of the frame,
x along the long side, y across it.  Corner order is always ``(0,0), (W,0), (W,D), (0,D)``.

>>> H = homography_from_corners([(0, 0), (200, 0), (200, 100), (0, 100)], 400.0, 200.0)
>>> apply_homography(H, [(100, 50)]).round(3).tolist()
[[200.0, 100.0]]
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import CornersError

FloatArray = npt.NDArray[np.float64]


def as_points(pts: npt.ArrayLike) -> FloatArray:
    """Any (N, 2) array-like as a float64 (N, 2) array."""
    a = np.asarray(pts, dtype=np.float64)
    if a.size == 0:
        return a.reshape(0, 2)
    if a.ndim == 1 and a.shape[0] == 2:
        a = a.reshape(1, 2)
    return a.reshape(-1, 2)


def apply_homography(H: npt.ArrayLike, pts: npt.ArrayLike) -> FloatArray:
    """Map (N, 2) points through the 3x3 homography ``H``."""
    p = as_points(pts)
    if len(p) == 0:
        return p
    h = np.asarray(H, dtype=np.float64)
    q = np.hstack([p, np.ones((len(p), 1))]) @ h.T
    w = q[:, 2:3]
    w = np.where(np.abs(w) < 1e-12, 1e-12, w)
    return np.asarray(q[:, :2] / w, dtype=np.float64)


def board_corners_mm(width_mm: float, depth_mm: float) -> FloatArray:
    return np.array([[0.0, 0.0], [width_mm, 0.0], [width_mm, depth_mm], [0.0, depth_mm]])


def homography_from_corners(image_corners: npt.ArrayLike, width_mm: float, depth_mm: float) -> FloatArray:
    """The homography image -> board millimetres from four corners given in board order."""
    img = as_points(image_corners)
    if img.shape != (4, 2):
        raise CornersError(f"need exactly 4 corners, got {len(img)}")
    check_quad(img)
    H = cv2.getPerspectiveTransform(img.astype(np.float32), board_corners_mm(width_mm, depth_mm).astype(np.float32))
    return np.asarray(H / H[2, 2], dtype=np.float64)


def fit_homography(image_pts: npt.ArrayLike, board_pts: npt.ArrayLike) -> FloatArray:
    """Least-squares homography image -> board from N >= 4 correspondences."""
    a, b = as_points(image_pts), as_points(board_pts)
    H, _ = cv2.findHomography(a, b, 0)
    if H is None:
        raise CornersError("correspondences are degenerate: no homography")
    return np.asarray(H / H[2, 2], dtype=np.float64)


def _cross(o: FloatArray, a: FloatArray, b: FloatArray) -> float:
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def check_quad(quad: FloatArray, min_side_px: float = 8.0) -> None:
    """Raise :class:`CornersError` unless ``quad`` is a convex, non-degenerate quadrilateral."""
    signs = [_cross(quad[i], quad[(i + 1) % 4], quad[(i + 2) % 4]) for i in range(4)]
    if not (all(s > 0 for s in signs) or all(s < 0 for s in signs)):
        raise CornersError(f"corners {quad.round(1).tolist()} do not form a convex quadrilateral in order")
    sides = [float(np.hypot(*(quad[(i + 1) % 4] - quad[i]))) for i in range(4)]
    if min(sides) < min_side_px:
        raise CornersError(f"corners {quad.round(1).tolist()} have a side shorter than {min_side_px} px")


def order_clockwise(pts: npt.ArrayLike) -> FloatArray:
    """Four points in clockwise image order (image y points down), starting nearest the top-left."""
    p = as_points(pts)
    if p.shape != (4, 2):
        raise CornersError(f"need exactly 4 corners, got {len(p)}")
    c = p.mean(axis=0)
    ang = np.arctan2(p[:, 1] - c[1], p[:, 0] - c[0])
    p = p[np.argsort(ang)]  # increasing angle = clockwise on screen (y down)
    start = int(np.argmin(p[:, 0] + p[:, 1]))
    return np.roll(p, -start, axis=0)


def side_ratio(quad: FloatArray, K: FloatArray) -> float:
    """Metric length ratio |side 0-1| / |side 1-2| of the rectangle imaged as ``quad`` (clockwise).

    Uses the camera matrix: for the homography H of the unit square, ``K^-1 H = s [L1 r1, L2 r2, t]``.
    """
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    Hs = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    a = np.linalg.inv(K) @ Hs
    n0, n1 = float(np.linalg.norm(a[:, 0])), float(np.linalg.norm(a[:, 1]))
    return n0 / max(n1, 1e-12)


def canonical_corners(pts: npt.ArrayLike, K: FloatArray, aspect: float) -> FloatArray:
    """Order four image corners as board corners ``(0,0), (W,0), (W,D), (0,D)``.

    The board frame is right-handed seen from above, so in the image (y down) this order runs
    counter-clockwise.  The long side (``aspect`` = W/D > 1) is recognised with the camera matrix; of
    the two remaining choices the one whose y-max (NEAR) side is lower in the image is taken.

    >>> K = np.array([[1000.0, 0, 500], [0, 1000, 400], [0, 0, 1]])
    >>> canonical_corners([(100, 100), (900, 100), (900, 600), (100, 600)], K, 1.5).tolist()
    [[900.0, 100.0], [100.0, 100.0], [100.0, 600.0], [900.0, 600.0]]
    """
    q = order_clockwise(pts)
    check_quad(q)
    q = q[::-1].copy()  # counter-clockwise from the top-left
    r = side_ratio(q, K)
    if abs(np.log(r) - np.log(aspect)) > abs(np.log(r) + np.log(aspect)):
        q = np.roll(q, -1, axis=0)  # side 0-1 was a short side
    alt = np.roll(q, -2, axis=0)
    # side (W,D)-(0,D) is q[2]-q[3]; prefer it lower in the image
    if (alt[2, 1] + alt[3, 1]) > (q[2, 1] + q[3, 1]):
        q = alt
    return np.asarray(q, dtype=np.float64)


def parse_corners(text: str) -> FloatArray:
    """``"x1,y1,x2,y2,x3,y3,x4,y4"`` -> (4, 2) points; raises :class:`CornersError` quoting the input."""
    parts = [s for s in text.replace(";", ",").replace(" ", ",").split(",") if s]
    try:
        vals = [float(s) for s in parts]
    except ValueError as exc:
        raise CornersError(f"corners {text!r}: not numbers ({exc})") from None
    if len(vals) != 8:
        raise CornersError(f"corners {text!r}: need 8 numbers x1,y1,...,x4,y4, got {len(vals)}")
    return np.array(vals, dtype=np.float64).reshape(4, 2)
