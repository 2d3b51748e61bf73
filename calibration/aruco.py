"""Optional ArUco markers on the board's corners, for boards that are hard to find.

Stick four markers of ``DICT_4X4_50`` with ids 0, 1, 2, 3 on the frame's top at the outer corners
(0,0), (W,0), (W,D), (0,D) of the board frame, each marker's own corner 0 (its top-left as printed)
exactly on the board corner; any marker size.  ``bgref calibrate --aruco`` then uses them.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import BoardNotFound

FloatArray = npt.NDArray[np.float64]


def find_marker_corners(image: npt.NDArray[np.uint8], dictionary: int = cv2.aruco.DICT_4X4_50) -> FloatArray:
    """The four board corners (board order) from markers 0..3; raises BoardNotFound naming the missing."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary), cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(gray)
    found: dict[int, FloatArray] = {}
    if ids is not None:
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
        for c, i in zip(corners, ids.ravel(), strict=True):
            if 0 <= int(i) <= 3:
                pts = cv2.cornerSubPix(gray, c.reshape(-1, 1, 2).astype(np.float32), (5, 5), (-1, -1), crit)
                found[int(i)] = np.asarray(pts, dtype=np.float64).reshape(4, 2)[0]
    missing = [i for i in range(4) if i not in found]
    if missing:
        raise BoardNotFound(f"ArUco corner markers {missing} not found (need ids 0-3 of DICT_4X4_50)")
    return np.array([found[i] for i in range(4)])
