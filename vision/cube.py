"""The doubling cube: where it sits, its rotation, and the numeral on top.

The cube lives in a few known places: centred on the bar (showing 64), or on a player's side (in the
tray column on his long side, or on the rail before him).  ``find_cube`` looks for a cube-sized
square blob in those places on the plane of the cube's top; the position comes from where it is
(board mm), the rotation from the top face's outline.  The numeral is read by the cube model when
one is installed (``vision/models/cube_face.onnx``); without it the face is None (unsure).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rules.position import Side
from vision.config import VisionConfig
from vision.geometry import Area, LongSide
from vision.observation import CubePosition, CubeReading


@dataclass(frozen=True, slots=True)
class CubeBlob:
    center_mm: tuple[float, float]
    side_mm: float
    rotation_deg: float
    contrast: float


def _search_rects(profile: Any) -> list[tuple[Any, float]]:
    """(rect, z of the cube's top) for each place a cube may rest."""
    layout = profile.layout
    s = profile.spec
    out = [(layout.bar_region(), s.rail_height_mm + s.cube_size_mm)]
    for col in layout.tray_columns():
        out.append((col, s.cube_size_mm))
    return out


def find_cube(gray: npt.NDArray[Any], profile: Any, config: VisionConfig) -> CubeBlob | None:
    """The most cube-like square blob of the cube's size in the places a cube rests."""
    s = profile.spec
    ppm = 3.0
    best: CubeBlob | None = None
    for rect, z in _search_rects(profile):
        w = int((rect.x1 - rect.x0) * ppm)
        h = int((rect.y1 - rect.y0) * ppm)
        if w < 8 or h < 8:
            continue
        gx, gy = np.meshgrid(rect.x0 + (np.arange(w) + 0.5) / ppm, rect.y0 + (np.arange(h) + 0.5) / ppm)
        img = profile.board_to_image(np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)], axis=1)).astype(np.float32)
        patch = cv2.remap(gray, img[:, 0].reshape(h, w), img[:, 1].reshape(h, w), cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
        bg = float(np.median(patch))
        for sign in (1, -1):
            diff = np.clip((patch.astype(np.int16) - bg) * sign, 0, 255).astype(np.uint8)
            _, mask = cv2.threshold(diff, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
            k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(s.cube_size_mm * ppm * 0.3) | 1,) * 2)
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, k)
            contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for cnt in contours:
                (cx, cy), (rw, rh), ang = cv2.minAreaRect(cnt)
                side = math.sqrt(max(rw * rh, 0.0)) / ppm
                if not 0.75 * s.cube_size_mm <= side <= 1.35 * s.cube_size_mm:
                    continue
                if max(rw, rh) / max(min(rw, rh), 1e-6) > 1.3:
                    continue
                if cv2.contourArea(cnt) / max(rw * rh, 1e-6) < 0.8:
                    continue
                m = np.zeros(mask.shape, np.uint8)
                cv2.drawContours(m, [cnt], -1, 255, -1)
                contrast = abs(float(cv2.mean(patch, m)[0]) - bg)
                blob = CubeBlob((rect.x0 + cx / ppm, rect.y0 + cy / ppm), side, float(ang % 90.0), contrast)
                if best is None or blob.contrast > best.contrast:
                    best = blob
    return best


def cube_position(profile: Any, center_mm: tuple[float, float], config: VisionConfig) -> tuple[CubePosition, float]:
    """MIDDLE on the bar; otherwise the side of whoever sits on that long side; with a confidence."""
    layout = profile.layout
    x, y = center_mm
    if layout.area_of(x, y) is Area.BAR:
        return CubePosition.MIDDLE, 1.0
    near = y > profile.spec.depth_mm / 2
    long_side = LongSide.NEAR if near else LongSide.FAR
    side = Side.WHITE if layout.seating.side_of(Side.WHITE) is long_side else Side.BLACK
    margin = abs(y - profile.spec.depth_mm / 2)
    conf = min(1.0, margin / config.cube_middle_band_mm)
    return (CubePosition.WHITE_SIDE if side is Side.WHITE else CubePosition.BLACK_SIDE), conf


def read_cube(gray: npt.NDArray[Any], profile: Any, config: VisionConfig,
              numeral: Any | None = None) -> CubeReading | None:
    blob = find_cube(gray, profile, config)
    if blob is None:
        return None
    pos, pconf = cube_position(profile, blob.center_mm, config)
    face: int | None = None
    fconf = 0.0
    if numeral is not None:
        face, fconf = numeral(gray, profile, blob)
        if fconf < config.cube_min_confidence:
            face = None
    return CubeReading(face, round(fconf, 4), pos, round(blob.rotation_deg, 1), round(pconf, 4))
