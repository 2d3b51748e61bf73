"""The doubling cube: where it sits, its rotation, and the numeral on top.

The cube lives in a few known places: centred on the bar (showing 64), or on a player's side (in the
tray column on his long side, or on the rail before him).  ``find_cube`` looks for a cube-sized
square blob in those places on the plane of the cube's top; the position comes from where it is
(board mm), the rotation from the top face's outline.  The numeral is read by the cube model when
one is installed (``vision/models/cube_face.onnx``); without it the face is None (unsure).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
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
    ambiguous: bool = False
    """Another place showed a similar cube-like contrast: the position is unsure."""


def _search_rects(profile: Any) -> list[tuple[Any, float]]:
    """(rect, z of the cube's top) for each place a cube may rest: the bar, and the tray column
    at the other end from the home trays (beside each player's long side)."""
    layout = profile.layout
    s = profile.spec
    out = [(layout.bar_region(), s.rail_height_mm + s.cube_size_mm)]
    lo, hi = layout.tray_columns()
    home = layout.tray_region(Side.WHITE)
    out.append((hi if home.x0 == lo.x0 else lo, s.cube_size_mm))
    return out


class CubeSampler:
    """Precomputed remap maps (per profile) of the places a cube may rest, on its top's plane."""

    PPM = 2.0

    def __init__(self, profile: Any) -> None:
        self.profile = profile
        self.maps: list[tuple[Any, npt.NDArray[np.float32], npt.NDArray[np.float32]]] = []
        for rect, z in _search_rects(profile):
            w = int((rect.x1 - rect.x0) * self.PPM)
            h = int((rect.y1 - rect.y0) * self.PPM)
            if w < 4 or h < 4:
                continue
            gx, gy = np.meshgrid(rect.x0 + (np.arange(w) + 0.5) / self.PPM, rect.y0 + (np.arange(h) + 0.5) / self.PPM)
            pts = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)], axis=1)
            img = profile.board_to_image(pts).astype(np.float32)
            self.maps.append((rect, np.ascontiguousarray(img[:, 0].reshape(h, w)),
                              np.ascontiguousarray(img[:, 1].reshape(h, w))))

    def patches(self, gray: npt.NDArray[Any]) -> list[tuple[Any, npt.NDArray[Any]]]:
        return [(rect, cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
                for rect, mx, my in self.maps]


def find_cube(gray: npt.NDArray[Any], sampler: CubeSampler, config: VisionConfig) -> CubeBlob | None:
    """The most contrasted cube-sized square in the places a cube rests (None when nothing stands out)."""
    s = sampler.profile.spec
    ppm = sampler.PPM
    found: list[CubeBlob] = []
    for rect, patch8 in sampler.patches(gray):
        patch = patch8.astype(np.float32)
        k_in = max(3, int(s.cube_size_mm * ppm * 0.7))
        k_out = max(k_in + 2, int(s.cube_size_mm * ppm * 1.5))
        h, w = patch.shape
        if h < k_out or w < k_in:
            continue
        inner = cv2.blur(patch, (k_in, k_in))
        outer = cv2.blur(patch, (k_out, k_out))
        ring = (outer * k_out * k_out - inner * k_in * k_in) / (k_out * k_out - k_in * k_in)
        score = np.abs(inner - ring)
        y, x = np.unravel_index(int(np.argmax(score)), score.shape)
        contrast = float(score[y, x])
        if contrast < config.cube_min_contrast:
            continue
        blob = _blob_at(patch, inner, ring, int(x), int(y), ppm, s.cube_size_mm, contrast, rect)
        if blob is None:  # a contrast peak that is not cube-shaped: keep it, at half weight
            blob = CubeBlob((rect.x0 + (x + 0.5) / ppm, rect.y0 + (y + 0.5) / ppm), s.cube_size_mm, 0.0, contrast / 2)
        found.append(blob)
    found.sort(key=lambda b: -b.contrast)
    if not found:
        return None
    best = found[0]
    if len(found) > 1 and found[1].contrast > 0.7 * best.contrast:
        best = replace(best, ambiguous=True)
    return best


def _blob_at(patch: npt.NDArray[Any], inner: npt.NDArray[Any], ring: npt.NDArray[Any], x: int, y: int, ppm: float,
             size: float, contrast: float, rect: Any) -> CubeBlob | None:
    """The square blob at a contrast peak, or None when it is not cube-sized and square."""
    light = inner[y, x] > ring[y, x]
    thr = (inner[y, x] + ring[y, x]) / 2
    mask = ((patch > thr) if light else (patch < thr)).astype(np.uint8) * 255
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, int(size * ppm * 0.3)) | 1,) * 2)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, k)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cnt = next((c for c in contours if cv2.pointPolygonTest(c, (float(x), float(y)), False) >= 0), None)
    if cnt is None:
        return None
    (rx, ry), (rw, rh), a = cv2.minAreaRect(cnt)
    side = math.sqrt(max(rw * rh, 0.0)) / ppm
    if not 0.7 * size <= side <= 1.6 * size or max(rw, rh) / max(min(rw, rh), 1e-6) > 1.6:
        return None
    return CubeBlob((rect.x0 + (rx + 0.5) / ppm, rect.y0 + (ry + 0.5) / ppm), side, float(a % 90.0), contrast)


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


def read_cube(gray: npt.NDArray[Any], sampler: CubeSampler, config: VisionConfig,
              numeral: Any | None = None) -> CubeReading | None:
    profile = sampler.profile
    blob = find_cube(gray, sampler, config)
    if blob is None:
        return None
    pos, pconf = cube_position(profile, blob.center_mm, config)
    if blob.ambiguous:
        pconf = min(pconf, 0.5)
    face: int | None = None
    fconf = 0.0
    if numeral is not None:
        face, fconf = numeral(gray, profile, blob)
        if fconf < config.cube_min_confidence:
            face = None
    return CubeReading(face, round(fconf, 4), pos, round(blob.rotation_deg, 1), round(pconf, 4))
