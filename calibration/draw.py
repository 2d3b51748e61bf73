"""Drawing a profile's geometry on a frame, so a director can see at a glance that it fits."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from calibration.profile import CalibrationProfile

Image = npt.NDArray[np.uint8]

_OUTLINE = (0, 255, 255)
_POINT = (255, 200, 0)
_BAR = (255, 0, 255)
_TRAY = (0, 165, 255)
_DICE_W = (255, 255, 255)
_DICE_B = (40, 40, 40)


def _poly(img: Image, pts: npt.NDArray[np.float64], colour: tuple[int, int, int], thickness: int) -> None:
    cv2.polylines(img, [np.round(pts * 16).astype(np.int32).reshape(-1, 1, 2)], True, colour, thickness,
                  cv2.LINE_AA, 4)


def draw_profile(image: Image, profile: CalibrationProfile, *, labels: bool = True) -> Image:
    """A copy of ``image`` with the outline, every point, the bar, trays and dice areas drawn on it."""
    profile.check_frame(image)
    out = image.copy()
    t = max(1, round(out.shape[1] / 800))
    polys = profile.region_polygons_image()
    _poly(out, polys["outline"], _OUTLINE, t)
    _poly(out, polys["field"], _OUTLINE, t)
    for p in range(1, 25):
        _poly(out, polys[f"p{p}"], _POINT, t)
    _poly(out, polys["bar"], _BAR, t)
    _poly(out, polys["tray_w"], _TRAY, t)
    _poly(out, polys["tray_b"], _TRAY, t)
    _poly(out, polys["dice_w"], _DICE_W, max(1, t // 2))
    _poly(out, polys["dice_b"], _DICE_B, max(1, t // 2))
    for c in profile.corners_px:
        cv2.drawMarker(out, (round(c[0]), round(c[1])), (0, 0, 255), cv2.MARKER_CROSS, 12 * t, t)
    if labels:
        lay = profile.layout
        scale = 0.45 * t
        for p in range(1, 25):
            x, y = lay.point_center(p)
            u, v = profile.board_to_image([(x, y)])[0]
            cv2.putText(out, str(p), (round(u) - 8 * t, round(v)), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3 * t)
            cv2.putText(out, str(p), (round(u) - 8 * t, round(v)), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), t)
        s = profile.seating
        q = profile.quality
        text = (f"WHITE sits {s.white.value}, home {s.white_home.value} | {q.method} | "
                f"reproj {q.reprojection_px:.2f}px | conf {q.corner_confidence:.2f} | tilt {q.tilt_deg:.0f} deg")
        cv2.putText(out, text, (10, 30 * t), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * t, (0, 0, 0), 4 * t)
        cv2.putText(out, text, (10, 30 * t), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * t, (0, 255, 255), t)
    return out
