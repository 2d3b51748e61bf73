"""Camera intrinsics and lens distortion.

A :class:`CameraModel` is either measured from a chessboard / ChArUco target shown to the camera, or a
default for the image size (a moderate field of view, principal point in the centre, no distortion) that
:mod:`calibration.board` may improve with a radial term estimated from the board's own straight edges.

>>> cam = CameraModel.default_for_size(1920, 1080)
>>> round(cam.fx), cam.cx, cam.source
(1663, 959.5, 'default')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.config import CalibrationConfig
from calibration.errors import TargetNotFound

FloatArray = npt.NDArray[np.float64]

SOURCES = ("default", "chessboard", "charuco", "edges")


@dataclass(frozen=True, slots=True)
class CameraModel:
    """Pinhole intrinsics plus OpenCV's (k1, k2, p1, p2, k3) distortion, for one resolution."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)
    source: str = "default"
    rms_px: float | None = None
    """RMS reprojection error of the target calibration, when measured."""

    @classmethod
    def default_for_size(cls, width: int, height: int, config: CalibrationConfig | None = None) -> CameraModel:
        """A plausible camera for an image size: square pixels, centred, no distortion."""
        cfg = config or CalibrationConfig()
        f = (width / 2.0) / math.tan(math.radians(cfg.default_hfov_deg) / 2.0)
        return cls(width, height, f, f, (width - 1) / 2.0, (height - 1) / 2.0)

    @property
    def matrix(self) -> FloatArray:
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def dist_array(self) -> FloatArray:
        return np.array(self.dist, dtype=np.float64)

    @property
    def has_distortion(self) -> bool:
        return any(abs(d) > 1e-12 for d in self.dist)

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)

    def with_distortion(self, dist: Sequence[float], source: str) -> CameraModel:
        d = tuple(float(x) for x in dist) + (0.0,) * (5 - len(dist))
        return replace(self, dist=(d[0], d[1], d[2], d[3], d[4]), source=source)

    def undistort_points(self, pts: npt.ArrayLike) -> FloatArray:
        """Distorted pixel coordinates -> ideal (undistorted) pixel coordinates, same camera matrix."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        if not self.has_distortion or len(p) == 0:
            return p.copy()
        out = cv2.undistortPoints(p.reshape(-1, 1, 2), self.matrix, self.dist_array, P=self.matrix)
        return np.asarray(out, dtype=np.float64).reshape(-1, 2)

    def distort_points(self, pts: npt.ArrayLike) -> FloatArray:
        """Ideal (undistorted) pixel coordinates -> distorted pixel coordinates as the camera sees them."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        if not self.has_distortion or len(p) == 0:
            return p.copy()
        x = (p[:, 0] - self.cx) / self.fx
        y = (p[:, 1] - self.cy) / self.fy
        obj = np.stack([x, y, np.ones_like(x)], axis=1)
        img, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), self.matrix, self.dist_array)
        return np.asarray(img, dtype=np.float64).reshape(-1, 2)


def _target_images(images: Iterable[npt.NDArray[np.uint8]]) -> list[npt.NDArray[np.uint8]]:
    out: list[npt.NDArray[np.uint8]] = []
    for im in images:
        out.append(np.asarray(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY) if im.ndim == 3 else im, dtype=np.uint8))
    return out


def _fit_intrinsics(obj_pts: list[Any], img_pts: list[Any], shape: tuple[int, ...], source: str) -> CameraModel:
    """OpenCV's calibration of matched target points, as a CameraModel for images of ``shape`` (h, w)."""
    h, w = shape[:2]
    rms, k, d, _, _ = cv2.calibrateCamera(obj_pts, img_pts, (w, h), None, None)
    d = np.asarray(d).ravel()
    return CameraModel(
        w, h, float(k[0, 0]), float(k[1, 1]), float(k[0, 2]), float(k[1, 2]),
        (float(d[0]), float(d[1]), float(d[2]), float(d[3]), float(d[4]) if len(d) > 4 else 0.0),
        source, float(rms),
    )


def from_chessboard(
    images: Iterable[npt.NDArray[np.uint8]],
    inner_corners: tuple[int, int] = (9, 6),
    square_mm: float = 25.0,
    min_views: int = 3,
) -> CameraModel:
    """Intrinsics from several views of a printed chessboard (``inner_corners`` = (columns, rows))."""
    grays = _target_images(images)
    if not grays:
        raise TargetNotFound("no images of the chessboard target were given")
    cols, rows = inner_corners
    obj = np.zeros((cols * rows, 3), np.float32)
    obj[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm
    obj_pts, img_pts = [], []
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 1e-3)
    for g in grays:
        ok, corners = cv2.findChessboardCorners(g, (cols, rows))
        if not ok:
            continue
        corners = cv2.cornerSubPix(g, corners, (11, 11), (-1, -1), crit)
        obj_pts.append(obj)
        img_pts.append(corners)
    if len(obj_pts) < min_views:
        raise TargetNotFound(
            f"chessboard {cols}x{rows} found in {len(obj_pts)} of {len(grays)} images; need {min_views}"
        )
    return _fit_intrinsics(obj_pts, img_pts, grays[0].shape[:2], "chessboard")


def from_charuco(
    images: Iterable[npt.NDArray[np.uint8]],
    squares: tuple[int, int] = (7, 5),
    square_mm: float = 30.0,
    marker_mm: float = 22.0,
    dictionary: int = cv2.aruco.DICT_4X4_50,
    min_views: int = 3,
) -> CameraModel:
    """Intrinsics from several views of a ChArUco board (``squares`` = (columns, rows))."""
    grays = _target_images(images)
    if not grays:
        raise TargetNotFound("no images of the ChArUco target were given")
    board = cv2.aruco.CharucoBoard(squares, square_mm, marker_mm, cv2.aruco.getPredefinedDictionary(dictionary))
    detector = cv2.aruco.CharucoDetector(board)
    obj_pts, img_pts = [], []
    for g in grays:
        ch_corners, ch_ids, _, _ = detector.detectBoard(g)
        if ch_ids is None or len(ch_ids) < 6:
            continue
        o, i = board.matchImagePoints(ch_corners, ch_ids)  # type: ignore[call-overload]
        obj_pts.append(o)
        img_pts.append(i)
    if len(obj_pts) < min_views:
        raise TargetNotFound(f"ChArUco board found in {len(obj_pts)} of {len(grays)} images; need {min_views}")
    return _fit_intrinsics(obj_pts, img_pts, grays[0].shape[:2], "charuco")
