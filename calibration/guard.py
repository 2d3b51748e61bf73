"""The fit guard's second signal: do the points' sides lie where the fit puts them?

The first signal (:attr:`calibration.board.BoardFit.corner_confidence`) is the share of ALL the board's
edges a fit explains.  A board taken shifted by about a point's width (seen 3163, 3171, 3202, 3225, 3256)
still shows the points' alternating colours (pattern 0.70-0.95) and a convincing 2-5-3-5, and on green
felt explains enough rims and outline to pass the first signal's threshold (3225: 0.365).  What such a
placement cannot do is put the 48 long sides of the points on their colour edges: their median hit
fraction is 0-0.19 there, against 0.81 and more at the true pose of all 336 seen scenes (of 400) whose
points stand out from the field by 60 Lab units or more.  Where they do not (dark points on a dark field), the sides show no clear edge even
at the truth, so the test only applies when the image shows the points' sides clearly: the colour
difference between the middle of each point's tip half and the field beside it
(:func:`side_contrast`), measured on the fitted placement (a shift by a point still samples a point and
the field beside one).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from calibration.model import edge_support, triangle_segments
from calibration.profile import CalibrationProfile

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]


def side_contrast(image: Image, profile: CalibrationProfile) -> float:
    """Median over the 24 points of the Lab distance (OpenCV 8-bit Lab units) between the middle of the
    point's tip half and the field between it and its neighbours, at the same heights."""
    lay = profile.layout
    inside, outside = [], []
    for p in range(1, 25):
        (x0, by), (x1, _), (_, ty), _ = lay.point_polygon(p)
        cx = (x0 + x1) / 2
        for f in (0.6, 0.7, 0.8):
            y = by + (ty - by) * f
            inside.append((cx, y))
            outside.append((x0, y))
            outside.append((x1, y))
    pts = np.array(inside + outside, dtype=np.float64)
    px = profile.board_to_image(pts)
    h, w = image.shape[:2]
    px = np.clip(px, 0, [w - 1, h - 1]).astype(np.float32)
    cols = cv2.remap(image, px[:, 0:1], px[:, 1:2], cv2.INTER_LINEAR)
    lab = cv2.cvtColor(cols.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float64)
    n = len(inside)
    cin = lab[:n].reshape(24, 3, 3)
    cout = lab[n:].reshape(24, 3, 2, 3)
    d = np.linalg.norm(cin[:, :, None, :] - cout, axis=3)  # (24, 3 heights, 2 sides)
    return float(np.median(np.median(d.reshape(24, -1), axis=1)))


def side_support(lab: npt.NDArray[np.float32], profile: CalibrationProfile) -> float:
    """Median over the 48 long sides of the points (tip halves) of the fraction of samples with a colour
    edge within 1.5 px of where ``profile`` puts them (:func:`calibration.model.edge_support`)."""
    segs = triangle_segments(profile.spec)
    per = edge_support(lab, profile.camera, profile.spec, np.asarray(profile.rvec), np.asarray(profile.tvec),
                       inner_only=True, tol_px=1.5)[-len(segs):]
    per = per[np.isfinite(per)]
    return float(np.median(per)) if len(per) else 0.0
